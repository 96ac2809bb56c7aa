// A scenario file's k6 exports from a workload (what is done) and a target (how, on one
// database): options, setup, the per-iteration function, teardown with verification, and
// handleSummary. A scenario file is just:  const s = scenario(workload, target, __ENV);  where
// target is a target module (lib/targets/<db>/<db>.js: createTarget and its declaration).
import { loadConfig, newRunId, planSignature, publicConfig } from './config.js';
import { planRemaining } from './metrics.js';
import { batchRunner } from './targets/outcome.js';
import { countedSetup, finish, runMode, segmentOf, setupCut } from './run-modes.js';
import exec from 'k6/execution';

// k6 runs this init code for its options pass, setup, teardown and the summary (__VU 0) and
// once in every VU. A VU only writes batches: refusals, options and report are worked out and
// their modules loaded (require) in the __VU 0 contexts only, which saves every VU's runtime
// memory. k6 reads options from the first init context alone, and every VU sees the same
// environment, so what that context accepted, a VU would too.
const VU0 = !(typeof __VU === 'number' && __VU > 0);
const init = VU0 ? require('./run-init.js') : null;
const { buildReport } = VU0 ? require('./report.js') : {};
const { renderHtml } = VU0 ? require('./report-html.js') : {};

export function scenario(workload, { createTarget, declaration }, env, { configure = (/** @type {any} */ _cfg) => {} } = {}) {
  const targetName = declaration.name;
  const cfg = loadConfig(env, { target: targetName, experiment: workload.EXPERIMENT, phases: workload.PHASES });
  configure(cfg);
  const plan = workload.plan(cfg);
  const memory = VU0 ? init.checkMemory(cfg, plan, declaration) : null;
  // A target gets what it must prepare from the plan (batch size, largest key, operations in
  // use, collections), never the workload's knobs; every write goes through the one batch runner.
  const adapter = createTarget(cfg, plan.target);
  const runner = batchRunner(adapter, cfg);
  const { parsed, layout } = VU0 ? init.checkRun(workload, adapter, targetName, cfg, plan, env) : {};
  const mode = runMode(cfg, adapter, targetName);
  const derived = VU0 ? init.runPlan(workload, { declaration, adapter, cfg, plan, mode, parsed }) : null;
  const state = {};

  // (countedSetup: a summary without setup's data tells from it whether k6 stopped setup from outside)
  const setup = () => countedSetup(setupRun);

  function setupRun() {
    init.refuseFlags(cfg, derived.plannedScenarios, exec.test.options);
    const runId = cfg.RUN_ID || newRunId();
    const { instance, segment } = segmentOf(mode, exec.test.options);
    // lib/targets/lifecycle.js: create (or refuse, reuse, join, verify) the run's objects.
    const info = adapter.setup(runId, planSignature(cfg), mode.lifecycle);
    if (derived.plannedBatches) planRemaining.add(derived.plannedBatches);
    // A ramped workload may write its starting data set here, before the load model starts.
    if (workload.prepare && mode.prepares) { adapter.bind(runId, info); workload.prepare(runner, cfg, plan); }
    // scripts/run reads an instance's label from this line: its summaries' names carry it.
    console.log(`k6-writepath: run ${runId} on ${targetName} (${info.serverVersion || info.version}); ${mode.verb} ${info.objects.join(', ')}${instance ? ` as instance ${instance} (segment ${segment})` : ''}`);
    console.log(`k6-writepath: client memory estimate ${memory.mib} MiB (${Math.round(memory.baseMib)} MiB for k6 and ${memory.perVuMib.toFixed(1)} MiB per VU; MEMORY_BUDGET_MB=${cfg.MEMORY_BUDGET_MB})`);
    return { runId, target: info, startedAt: new Date().toISOString(), instance, segment: segment || null };
  }

  // Tagged in every output: a run on a project API test server is no database result.
  function tagTestEndpoint(data) {
    if (data && data.target && data.target.testEndpoint) exec.vu.metrics.tags.test_endpoint = 'true';
  }

  function iteration(data) {
    if (!mode.writes) return;
    if (!state.testEndpointTagged) { tagTestEndpoint(data); state.testEndpointTagged = true; }
    adapter.bind(data.runId, data.target);
    workload.iteration(runner, cfg, plan, state);
  }

  function teardown(data) {
    if (!data || !data.runId) return;
    tagTestEndpoint(data);
    finish(mode, { workload, adapter, cfg, plan, countBy: derived.countBy }, data);
  }

  function handleSummary(data) {
    // The workload describes its plan and may add its own sections; report.js renders every
    // workload from these. parsed.verify false makes the verification information only.
    const runId = (data.setup_data || {}).runId;
    const resultsAt = layout === 'nested' ? `${cfg.RESULTS_DIR}/${runId}/` : layout === 'flat' ? `${cfg.RESULTS_DIR}/${runId}-*` : null;
    const cut = runId ? null : setupCut(data, mode, adapter, cfg.RUN_ID, exec.test.options);
    const r = buildReport(data, { cfg: publicConfig(cfg), verifyGate: parsed.verify, description: derived.description, phases: cfg.PHASES, target: targetName, experiment: workload.EXPERIMENT, reasons: adapter.reasons, ops: derived.ops,
      sections: workload.sections ? (d) => workload.sections(d, { cfg, plan, target: adapter }) : null, resultsAt, cut });
    const out = { stdout: r.text };
    if (cut) console.log(`k6-writepath: ${r.cutLine}`); // scripts/run ends on this line
    const id = r.runId || (cut && cut.runId);
    if (!id || layout === 'none') return out;
    // Instances of one distributed run share RUN_ID (and, on one machine, the folder).
    const prefix = (layout === 'nested' ? `${cfg.RESULTS_DIR}/${id}/` : `${cfg.RESULTS_DIR}/${id}-`) + mode.filePrefix(data.setup_data || cut);
    out[`${prefix}summary.txt`] = r.text;
    out[`${prefix}junit.xml`] = r.junit;
    // Stopped in setup: nothing measured, so no summary.json (history, REPEAT's aggregate and
    // merge-results take it for a measured run) and no report.html.
    if (cut) return out;
    out[`${prefix}summary.json`] = JSON.stringify(r.json, null, 2);
    if (cfg.HTML_REPORTER !== 'none') out[`${prefix}report.html`] = renderHtml(r.json, derived.description);
    return out;
  }

  return { cfg, plan, options: derived && derived.options, setup, run: iteration, teardown, handleSummary };
}
