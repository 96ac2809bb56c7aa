// Glue between a workload (what is done), a target (how, on one database) and k6: options,
// setup, the per-iteration function, teardown with verification, and handleSummary. A
// scenario file is just:  const e = experiment(workload, createTarget, __ENV, {...});
import { fail, loadConfig, publicConfig } from './config.js';
import { frozenOptionsDiffer } from './guards.js';
import { k6Thresholds, parseThresholds } from './thresholds.js';
import { buildReport } from './report.js';
import { renderHtml } from './report-html.js';
import { verifyUnaccounted } from './metrics.js';
import { M } from './metric-names.js';
import exec from 'k6/execution';

export const TREND_STATS = ['min', 'med', 'avg', 'p(90)', 'p(95)', 'p(99)', 'max', 'count'];

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

function newRunId() {
  const d = new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return `${d}_${Math.floor(Math.random() * 0x10000).toString(16).padStart(4, '0')}`;
}

// Knobs that decide what a run writes. With DISTRIBUTED, every instance and the verify step
// must agree on them: their hash is part of the shared objects' marker, so an instance
// started with another DOCS or SEED refuses to join instead of corrupting the counts.
const PLAN_KNOBS = ['PHASES', 'DOCS', 'BATCH_SIZE', 'VUS', 'OVERWRITE_BATCHES', 'MIXED_BATCHES', 'MIXED_NEW_PERCENT', 'MIXED_OP',
  'KEY_DIST', 'ZIPF_THETA', 'HOTSPOT_DATA_PERCENT', 'HOTSPOT_OPS_PERCENT', 'DOC_SHAPE', 'DOC_BYTES', 'COMPLEXITY', 'DOC_POOL', 'SEED',
  'STAGES', 'LOAD_OP', 'OVERWRITE_OP', 'ARANGOBENCH_CASE', 'REQUESTS', 'PG_TABLE', 'PG_INDEXES', 'RAVEN_COLLECTION', 'RAVEN_INDEXES',
  'ARANGO_INDEXES', 'ARANGO_WAIT_FOR_SYNC', 'ARANGO_KEEP_NULL'];

export function planSignature(cfg) {
  const text = PLAN_KNOBS.filter((k) => cfg[k] !== undefined).map((k) => `${k}=${cfg[k]}`).join(';');
  let h = 0x811c9dc5; // FNV-1a, 32 bits
  for (let i = 0; i < text.length; i++) { h ^= text.charCodeAt(i); h = Math.imul(h, 0x01000193) >>> 0; }
  return `${cfg.experiment}-${h.toString(16).padStart(8, '0')}`;
}

// Which instance of a segmented run this is: 1-based position of the segment in the
// sequence (what k6-operator passes as instance_id), or the segment itself.
export function instanceLabel(segment, sequence) {
  if (!segment || segment === '0:1') return null;
  const start = String(segment).split(':')[0];
  const seq = sequence ? String(sequence).split(',').map((x) => x.trim()) : [];
  const i = seq.indexOf(start);
  return i >= 0 ? String(i + 1) : String(segment).replace(/[^0-9]+/g, '_');
}

export function experiment(workload, createTarget, env, { target, required = [], configure = () => {} }) {
  const cfg = loadConfig(env, { target, experiment: workload.EXPERIMENT, phases: workload.PHASES, required });
  configure(cfg);
  const plan = workload.plan(cfg);
  // The plan tells a target what the workload needs beyond one collection (arangobench).
  const tgt = createTarget(cfg, plan);
  const parsed = parseThresholds(readThresholdFile(cfg.THRESHOLDS), { path: cfg.THRESHOLDS, phases: workload.PHASES });
  const state = {};
  const layout = resultsLayout(cfg, env);
  // (Only on the real file system: a k6 archive sees its own files only, and README.md, never
  // opened by a script, is not among them.)
  if (env.RESULTS_DIR && layout === 'none' && onRealFs()) fail(`RESULTS_DIR=${JSON.stringify(env.RESULTS_DIR)} is not allowed: an existing directory (k6 cannot create it; scripts/run does)`);
  const distributed = cfg.DISTRIBUTED; // '0' | '1' (one instance of several) | 'verify'
  if (distributed !== '0' && !tgt.distributed) fail(`DISTRIBUTED=${distributed} is not supported by the ${target} target yet (docs/scale-out.md)`);
  // An instance does not verify (it sees only its part); the verify step writes nothing.
  const thresholdsFrom = distributed === '1' ? { ...parsed, verify: false } : distributed === 'verify' ? { phases: {}, verify: parsed.verify } : parsed;

  const options = {
    scenarios: distributed === 'verify'
      ? { verify: { executor: 'shared-iterations', vus: 1, iterations: 1, maxDuration: '10s' } }
      : workload.scenarios(cfg, plan),
    // A workload may declare extra sub-metrics (arangobench: latency per operation kind).
    thresholds: Object.assign(k6Thresholds(thresholdsFrom, cfg.PHASES, tgt.reasons), workload.extraThresholds ? workload.extraThresholds(cfg, plan) : {},
      // Without a planned count, verification = every acknowledged document is found
      // (distributed: scripts/merge-results.mjs compares with all instances' documents).
      parsed.verify && plan.expectedDocs === null && distributed === '0' ? { [M.verifyUnaccounted]: ['count==0'] } : {}),
    summaryTrendStats: TREND_STATS,
    setupTimeout: '120s',
    teardownTimeout: '600s',
    tags: { target },
  };
  // What the knobs plan, before k6 replaces the exported options with its resolved ones.
  const plannedScenarios = JSON.parse(JSON.stringify(options.scenarios));

  function setup() {
    // k6 --http-debug prints every request's headers (ArangoDB: Authorization) and with
    // =full the bodies (the JWT login holds the password); only options show it, not __ENV.
    if (exec.test.options.httpDebug && !cfg.ALLOW_HTTP_DEBUG) fail(`--http-debug=${exec.test.options.httpDebug} is not allowed: it prints credentials (Authorization headers, login bodies) to the terminal; set ALLOW_HTTP_DEBUG=1 to accept that`);
    const frozen = frozenOptionsDiffer(plannedScenarios, JSON.parse(JSON.stringify(exec.test.options.scenarios || {})));
    if (frozen) fail(`the run's scenarios differ from what the knobs plan (${frozen}): a k6 archive built with other -e values (build it with the knobs it runs with: make k8s-archives K8S_KNOBS="…", docs/scale-out.md), or --vus/--iterations/--duration/--stages on the command line (use the knobs instead)`);
    const runId = cfg.RUN_ID || newRunId();
    // Each segmented instance runs its own setup and teardown (k6 and k6-operator alike,
    // grafana/k6-operator#223): without DISTRIBUTED the first instance to finish would verify
    // a third of the run and drop the objects under the others.
    const segment = exec.test.options.executionSegment;
    const instance = instanceLabel(segment, exec.test.options.executionSegmentSequence);
    if (instance && distributed === '0') fail(`--execution-segment ${segment} needs DISTRIBUTED=1 and the same explicit RUN_ID on every instance (docs/scale-out.md)`);
    if (instance && distributed === 'verify') fail(`DISTRIBUTED=verify runs once, after all instances: remove --execution-segment ${segment}`);
    const info = tgt.setup(runId, distributed === '0' ? null : { mode: distributed === '1' ? 'join' : 'verify', signature: planSignature(cfg) });
    console.log(`k6-writepath: run ${runId} on ${target} (${info.serverVersion || info.version}); ${distributed === 'verify' ? 'verifying' : 'writing to'} ${info.objects.join(', ')}${instance ? ` as instance ${instance} (segment ${segment})` : ''}`);
    return { runId, target: info, startedAt: new Date().toISOString(), instance, segment: segment || null };
  }

  function run(data) {
    if (distributed === 'verify') return;
    tgt.bind(data.runId, data.target);
    workload.iteration(tgt, cfg, plan, state);
  }

  function teardown(data) {
    if (!data || !data.runId) return;
    if (distributed === '1') {
      console.log(`k6-writepath: ${data.target.objects.join(', ')}: kept for the other instances; verify the union and drop with scripts/verify-distributed (RUN_ID=${data.runId})`);
      return;
    }
    tgt.bind(data.runId, data.target);
    const v = workload.verify(tgt, cfg, plan);
    const ok = v.found === v.expected && v.readback.stale === 0 && v.readback.missing === 0;
    // expected null: the count is compared with the acknowledged documents in the summary.
    if (v.expected === null) verifyUnaccounted.add(-v.found);
    if (v.expected === null) console.log(`k6-writepath: verification found ${v.found} documents (the summary compares them with the acknowledged ones)`);
    else console.log(`k6-writepath: verification expected ${v.expected}, found ${v.found}; read-back ${v.readback.checked} keys, ${v.readback.stale} stale, ${v.readback.missing} missing — ${ok ? 'OK' : 'FAILED'}`);
    for (const ex of v.readback.examples) console.warn(`k6-writepath: stale key ${ex.key}: holds ${ex.found}, written by ${ex.writtenBy.join(',')}`);
    const fate = tgt.teardown(data.runId, cfg.KEEP);
    console.log(`k6-writepath: ${data.target.objects.join(', ')}: ${fate}`);
  }

  function handleSummary(data) {
    const r = buildReport(data, { cfg: publicConfig(cfg), plan, phases: cfg.PHASES, target, experiment: workload.EXPERIMENT, reasons: tgt.reasons, ops: workload.opsFor ? workload.opsFor(cfg) : {},
      resultsAt: layout === 'nested' ? `${cfg.RESULTS_DIR}/${(data.setup_data || {}).runId}/` : layout === 'flat' ? `${cfg.RESULTS_DIR}/${(data.setup_data || {}).runId}-*` : null });
    // A workload may add its experiment's own table (arangobench: E3's shape).
    if (workload.report) workload.report(data, r, { cfg, plan, target });
    const out = { stdout: r.text };
    if (r.runId && layout !== 'none') {
      // Instances of one distributed run share RUN_ID (and, on one machine, the folder).
      const sd = data.setup_data || {};
      const who = distributed === 'verify' ? 'verify-' : distributed === '1' ? `instance-${sd.instance || 'all'}-` : '';
      const prefix = (layout === 'nested' ? `${cfg.RESULTS_DIR}/${r.runId}/` : `${cfg.RESULTS_DIR}/${r.runId}-`) + who;
      out[`${prefix}summary.txt`] = r.text;
      out[`${prefix}summary.json`] = JSON.stringify(r.json, null, 2);
      out[`${prefix}junit.xml`] = r.junit;
      if (cfg.HTML_REPORTER !== 'none') out[`${prefix}report.html`] = renderHtml(r.json);
    }
    return out;
  }

  return { cfg, plan, options, setup, run, teardown, handleSummary };
}
