// Glue between a workload (what is done), a target (how, on one database) and k6: options,
// setup, the per-iteration function, teardown with verification, and handleSummary. A
// scenario file is just:  const e = experiment(workload, target, __ENV);  where target is a
// target module (lib/targets/<db>.js: createTarget and its declaration).
import { loadConfig, newRunId, planSignature, publicConfig } from './config.js';
import { fail } from './parse.js';
import { stop } from './abort.js';
import { planRemaining, verifyError, verifyUnaccounted, verifyUnaccountedMax } from './metrics.js';
import { batchRunner } from './targets/outcome.js';
import exec from 'k6/execution';

// k6 runs this init code for its options pass, for setup, teardown and the summary (all with
// __VU 0) and once in every VU. A VU only writes batches: the refusals (memory, capabilities,
// results folder), the thresholds, the options and the report are made in the __VU 0 contexts
// only, and their modules loaded there only, with require(): k6 reads options from the first
// init context alone (v1.8.1 internal/js/bundle.go populateExports, updateOptions) and serves
// a module resolved there to the later contexts from its cache (js/modules/resolution.go Lock,
// require_impl.go), archives included. Every VU sees the same environment, so what the first
// context accepted, a VU would too. Measured: ~135 KiB less JavaScript runtime per VU (each
// function object costs ~0.85 KiB in k6's runtime; issue 30, bench/RESULTS.md).
const VU0 = !(typeof __VU === 'number' && __VU > 0);
const { checkMemory } = VU0 ? require('./memory.js') : {};
const { frozenOptionsDiffer } = VU0 ? require('./guards.js') : {};
const { k6Thresholds, parseThresholds } = VU0 ? require('./thresholds.js') : {};
const { buildReport } = VU0 ? require('./report.js') : {};
const { countBasis } = VU0 ? require('./verdict.js') : {};
const { refusal } = VU0 ? require('./capabilities.js') : {};
const { renderHtml } = VU0 ? require('./report-html.js') : {};

const TREND_STATS = ['min', 'med', 'avg', 'p(90)', 'p(95)', 'p(99)', 'max', 'count'];

function readThresholdFile(path) {
  // Relative paths are relative to the repository root (this file is in lib/).
  const resolved = path.startsWith('/') ? path : import.meta.resolve(`../${path}`);
  try {
    return open(resolved);
  } catch (e) {
    return fail(`THRESHOLDS=${path}: cannot read the file (${String(e).includes('no such file') ? 'no such file' : String(e).split('\n')[0]})`);
  }
}

// handleSummary can write files but not create directories, so where results go is decided
// in the init context: results/<RUN_ID>/ when scripts/run (or the user) created it, else
// flat files results/<run id>-summary.json … when results/ exists, else stdout only.
function probe(path, env) {
  const abs = path.startsWith('/') ? path : (env.PWD ? `${env.PWD}/${path}` : null);
  if (!abs) return 'unknown';
  try { open(abs); return 'file'; } catch (e) { return /directories/.test(String(e)) ? 'dir' : 'none'; }
}

function onRealFs() {
  try { open(import.meta.resolve('../README.md')); return true; } catch (_) { return false; }
}

function resultsLayout(cfg, env) {
  if (cfg.RUN_ID && probe(`${cfg.RESULTS_DIR}/${cfg.RUN_ID}`, env) === 'dir') return 'nested';
  const base = probe(cfg.RESULTS_DIR, env);
  return base === 'dir' || base === 'unknown' ? 'flat' : 'none';
}

// Which instance of a segmented run this is: 1-based position of the segment in the
// sequence (what k6-operator passes as instance_id), or the segment itself.
function instanceLabel(segment, sequence) {
  if (!segment || segment === '0:1') return null;
  const start = String(segment).split(':')[0];
  const seq = sequence ? String(sequence).split(',').map((x) => x.trim()) : [];
  const i = seq.indexOf(start);
  return i >= 0 ? String(i + 1) : String(segment).replace(/[^0-9]+/g, '_');
}

export function experiment(workload, { createTarget, declaration }, env, { configure = (/** @type {any} */ _cfg) => {} } = {}) {
  const target = declaration.name;
  const cfg = loadConfig(env, { target, experiment: workload.EXPERIMENT, phases: workload.PHASES });
  configure(cfg);
  const plan = workload.plan(cfg);
  // The client memory the plan needs, against MEMORY_BUDGET_MB, before any VU holds a body
  // (lib/memory.js: one line and exit 107 when it does not fit).
  const memory = VU0 ? checkMemory(cfg, plan, declaration) : null;
  // A target gets what it must prepare from the plan (batch size, largest key, operations in
  // use, collections), never the workload's knobs.
  const tgt = createTarget(cfg, plan.target);
  // Every write of the workload goes through the one batch runner (lib/targets/outcome.js).
  const db = batchRunner(tgt, cfg);
  // A workload asks for capabilities, never for a database (lib/capabilities.js), and
  // describes its own plan to the report (docs/design.md).
  for (const f of ['needs', 'describe']) if (typeof workload[f] !== 'function') fail(`workload ${workload.EXPERIMENT} does not export ${f}(cfg, plan) (docs/design.md, "Workloads × targets")`);
  // Nothing rewrites a built report: a workload's own parts come from describe() and sections().
  if (workload.report) fail(`workload ${workload.EXPERIMENT} exports report(): describe the run through describe(cfg, plan) and sections(data, meta) instead (docs/design.md, "Workloads × targets")`);
  const refused = VU0 ? refusal(workload.EXPERIMENT, workload.needs(cfg, plan), target, tgt.capabilities) : null;
  if (refused) fail(refused);
  const parsed = VU0 ? parseThresholds(readThresholdFile(cfg.THRESHOLDS), { path: cfg.THRESHOLDS, phases: workload.PHASES }) : null;
  const state = {};
  const layout = VU0 ? resultsLayout(cfg, env) : 'none';
  // (Only on the real file system: a k6 archive sees its own files only, and README.md, never
  // opened by a script, is not among them.)
  if (VU0 && env.RESULTS_DIR && layout === 'none' && onRealFs()) fail(`RESULTS_DIR=${JSON.stringify(env.RESULTS_DIR)} is not allowed: an existing directory (k6 cannot create it; scripts/run does)`);
  const distributed = cfg.DISTRIBUTED; // '0' | '1' (one instance of several) | 'verify'
  if (distributed !== '0' && !tgt.distributed) fail(`DISTRIBUTED=${distributed} is not supported by the ${target} target yet (docs/scale-out.md)`);
  // An instance does not verify (it sees only its part); the verify step writes nothing.
  // The batches a single-process run plans (null: not a count of batches, lib/report.js); a
  // planned run that stopped early (Ctrl-C, MAX_DURATION) fails writepath_plan_remaining.
  const plannedBatches = VU0 && distributed === '0' ? workload.describe(cfg, plan).plannedBatches : null;
  // Against what the database acknowledged, or against the plan (lib/report.js countBasis).
  const countBy = VU0 ? countBasis(distributed, plannedBatches, plan.expectedDocs !== null) : null;
  const thresholdsFrom = !VU0 ? null : distributed === '1' ? { ...parsed, verify: false } : distributed === 'verify' ? { phases: {}, verify: parsed.verify } : parsed;

  const options = !VU0 ? null : {
    scenarios: distributed === 'verify'
      ? { verify: { executor: 'shared-iterations', vus: 1, iterations: 1, maxDuration: '10s' } }
      : workload.scenarios(cfg, plan, tgt.capabilities),
    // A workload may declare extra sub-metrics (arangobench: latency per operation kind).
    // (Declared first, so that a per-stage limit of the threshold file replaces the empty entry.)
    thresholds: Object.assign(workload.extraThresholds ? workload.extraThresholds(cfg, plan, tgt.reasons) : {},
      k6Thresholds(thresholdsFrom, cfg.PHASES, tgt.reasons, plan.loadModel ? plan.loadModel.stages.length : 0, {
        count: countBy, planned: Boolean(plannedBatches), gateway: Boolean(declaration.gateway),
        // a target whose failed batches may be stored after all (undetermined) holds a range too
        ranged: Boolean(tgt.capabilities && (tgt.capabilities.unnamedFailures || tgt.capabilities.undetermined)),
        readback: distributed === '0' && workload.describe(cfg, plan).readback !== null && !plan.loadModel,
      })),
    summaryTrendStats: TREND_STATS,
    setupTimeout: plan.setupTimeout || '120s', // a ramped overwrite pre-loads DOCS in setup
    teardownTimeout: '600s',
    tags: { target },
  };
  // What the knobs plan, before k6 replaces the exported options with its resolved ones.
  const plannedScenarios = VU0 ? JSON.parse(JSON.stringify(options.scenarios)) : null;

  function setup() {
    // Refusals of command-line flags: k6 shows them to a script only here, in setup, where it
    // can end the started run only as an abort (one line, exit 108; lib/abort.js).
    // k6 --http-debug prints every request's headers (ArangoDB: Authorization) and with
    // =full the bodies (the JWT login holds the password); only options show it, not __ENV.
    if (exec.test.options.httpDebug && !cfg.ALLOW_HTTP_DEBUG) stop(`k6-writepath: --http-debug=${exec.test.options.httpDebug} is not allowed: it prints credentials (Authorization headers, login bodies) to the terminal; set ALLOW_HTTP_DEBUG=1 to accept that`);
    const frozen = frozenOptionsDiffer(plannedScenarios, JSON.parse(JSON.stringify(exec.test.options.scenarios || {})));
    if (frozen) stop(`k6-writepath: the run's scenarios differ from what the knobs plan (${frozen}): a k6 archive built with other -e values (build it with the knobs it runs with: make k8s-archives K8S_KNOBS="…", docs/scale-out.md), or --iterations/--duration/--stages on the command line, or --vus on k6 v2 (use the knobs instead)`);
    const runId = cfg.RUN_ID || newRunId();
    // Each segmented instance runs its own setup and teardown (k6 and k6-operator alike,
    // grafana/k6-operator#223): without DISTRIBUTED the first instance to finish would verify
    // a third of the run and drop the objects under the others.
    const segment = exec.test.options.executionSegment;
    const instance = instanceLabel(segment, exec.test.options.executionSegmentSequence);
    if (instance && distributed === '0') stop(`k6-writepath: --execution-segment ${segment} needs DISTRIBUTED=1 and the same explicit RUN_ID on every instance (docs/scale-out.md)`);
    if (instance && distributed === 'verify') stop(`k6-writepath: DISTRIBUTED=verify runs once, after all instances: remove --execution-segment ${segment}`);
    // lib/targets/lifecycle.js: create (or refuse, reuse, join, verify) the run's objects.
    const info = tgt.setup(runId, planSignature(cfg), distributed === '0' ? 'own' : distributed === '1' ? 'join' : 'verify');
    if (plannedBatches) planRemaining.add(plannedBatches);
    // A ramped workload may write its starting data set here, before the load model starts.
    if (workload.prepare && distributed === '0') { tgt.bind(runId, info); workload.prepare(db, cfg, plan); }
    console.log(`k6-writepath: run ${runId} on ${target} (${info.serverVersion || info.version}); ${distributed === 'verify' ? 'verifying' : 'writing to'} ${info.objects.join(', ')}${instance ? ` as instance ${instance} (segment ${segment})` : ''}`);
    console.log(`k6-writepath: client memory estimate ${memory.mib} MiB (${Math.round(memory.baseMib)} MiB for k6 and ${memory.perVuMib.toFixed(1)} MiB per VU; MEMORY_BUDGET_MB=${cfg.MEMORY_BUDGET_MB})`);
    return { runId, target: info, startedAt: new Date().toISOString(), instance, segment: segment || null };
  }

  // InfluxDB (and every other output) tag: a run on a project API test server is never
  // mistaken for a database result (lib/test-endpoint.js).
  function tagTestEndpoint(data) {
    if (data && data.target && data.target.testEndpoint) exec.vu.metrics.tags.test_endpoint = 'true';
  }

  function run(data) {
    if (distributed === 'verify') return;
    if (!state.testEndpointTagged) { tagTestEndpoint(data); state.testEndpointTagged = true; }
    tgt.bind(data.runId, data.target);
    workload.iteration(db, cfg, plan, state);
  }

  function teardown(data) {
    if (!data || !data.runId) return;
    tagTestEndpoint(data);
    if (distributed === '1') {
      console.log(`k6-writepath: ${data.target.objects.join(', ')}: kept for the other instances; verify the union and drop with scripts/verify-distributed (RUN_ID=${data.runId})`);
      return;
    }
    tgt.bind(data.runId, data.target);
    // Teardown cannot know whether the plan finished (Ctrl-C, MAX_DURATION): it checks against
    // the plan, and the summary (which sees the batches) judges — lib/report.js.
    let v = null;
    let error = null;
    try {
      v = workload.verify(tgt, cfg, plan);
    } catch (e) {
      error = String(e).split('\n')[0].replace(/^((Go)?Error: )+/, '');
    }
    // The verify step of a distributed run did not write the objects: one whose count is not
    // the plan's is left in place, named with the command to drop it (lifecycle.js).
    const contradiction = distributed === 'verify' && v && v.expected !== null && v.found !== v.expected
      ? `it holds ${v.found} documents where the instances' plan writes ${v.expected}` : null;
    const fate = tgt.teardown(data.runId, data.target.owned, cfg.KEEP, contradiction);
    if (error) {
      // Did not run is not OK: the run fails (exit 108), after the objects were dealt with.
      verifyError.add(1);
      console.log(`k6-writepath: ${data.target.objects.join(', ')}: ${fate}`);
      stop(`verification did not run to its end: ${error}`);
      return;
    }
    // Held against the acknowledged documents: writepath_verify_unaccounted (+ per batch) - found.
    if (countBy === 'acknowledged') { verifyUnaccounted.add(-v.found); verifyUnaccountedMax.add(-v.found); }
    // A workload that checks more than a count says what it found itself (v.note: contention).
    if (v.note) console.log(`k6-writepath: ${v.note}`);
    else if (v.expected === null) console.log(`k6-writepath: teardown found ${v.found} documents (the summary compares them with the acknowledged ones)`);
    else if (!v.readback) console.log(`k6-writepath: teardown found ${v.found} documents (the plan writes ${v.expected}); ${distributed === 'verify' ? 'the instances\' VUs read back their overwritten keys after their last batch (merge-results adds them up)' : 'the VUs read back their overwritten keys after their last batch (the summary below judges both)'}`);
    else console.log(`k6-writepath: teardown found ${v.found} documents (the plan writes ${v.expected}); read back ${v.readback.checked} overwritten keys: ${v.readback.stale} hold an older version, ${v.readback.missing} missing (the summary below judges them)`);
    for (const ex of (v.readback ? v.readback.examples : [])) console.warn(`k6-writepath: key ${ex.key} holds version ${ex.found}; the plan's writers of it: ${ex.writtenBy.join(',')}`);
    console.log(`k6-writepath: ${data.target.objects.join(', ')}: ${fate}`);
  }

  function handleSummary(data) {
    // The workload describes its plan (header line, summary.json's plan, how verification
    // counts) and may add its own sections (arangobench: E3's table; a ramped run: per stage);
    // report.js renders every workload from these, nothing rewrites its result afterwards.
    // verifyGate: "verify" of the threshold file; false makes the verification information,
    // and summary, JUnit and exit code then all say so (issue 27 class 7).
    const r = buildReport(data, { cfg: publicConfig(cfg), verifyGate: parsed.verify, description: workload.describe(cfg, plan), phases: cfg.PHASES, target, experiment: workload.EXPERIMENT, reasons: tgt.reasons, ops: workload.opsFor ? workload.opsFor(cfg) : {},
      sections: workload.sections ? (d) => workload.sections(d, { cfg, plan, target: tgt }) : null,
      resultsAt: layout === 'nested' ? `${cfg.RESULTS_DIR}/${(data.setup_data || {}).runId}/` : layout === 'flat' ? `${cfg.RESULTS_DIR}/${(data.setup_data || {}).runId}-*` : null });
    const out = { stdout: r.text };
    if (r.runId && layout !== 'none') {
      // Instances of one distributed run share RUN_ID (and, on one machine, the folder).
      const sd = data.setup_data || {};
      const who = distributed === 'verify' ? 'verify-' : distributed === '1' ? `instance-${sd.instance || 'all'}-` : '';
      const prefix = (layout === 'nested' ? `${cfg.RESULTS_DIR}/${r.runId}/` : `${cfg.RESULTS_DIR}/${r.runId}-`) + who;
      out[`${prefix}summary.txt`] = r.text;
      out[`${prefix}summary.json`] = JSON.stringify(r.json, null, 2);
      out[`${prefix}junit.xml`] = r.junit;
      if (cfg.HTML_REPORTER !== 'none') out[`${prefix}report.html`] = renderHtml(r.json, workload.describe(cfg, plan));
    }
    return out;
  }

  return { cfg, plan, options, setup, run, teardown, handleSummary };
}
