// What the __VU 0 init contexts (k6's options pass, setup, teardown, the summary) work out
// once, and a VU never loads (lib/scenario.js says why): the refusals at init (client
// memory, the workload's shape, capabilities, the threshold file, the results folder) and the
// run's plan as k6 and the report see it (description, ops, count basis, options), and the
// refusals of command-line flags in setup.
import { durationMs, fail } from './parse.js';
import { stop } from './abort.js';
import { frozenOptionsDiffer } from './guards.js';
import { checkMemory } from './memory.js';
import { refusal } from './capabilities.js';
import { k6Thresholds, parseThresholds } from './thresholds.js';
import { countBasis } from './verdict.js';

// The client memory the plan needs, against MEMORY_BUDGET_MB, before any VU holds a body
// (lib/memory.js: one line and exit 107 when it does not fit).
export { checkMemory };

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

// The refusals once the target exists, in the order a user meets them -> { parsed, layout }.
export function checkRun(workload, adapter, targetName, cfg, plan, env) {
  // A workload asks for capabilities, never for a database (lib/capabilities.js), and
  // describes its own plan to the report (docs/design.md).
  for (const f of ['needs', 'describe']) if (typeof workload[f] !== 'function') fail(`workload ${workload.EXPERIMENT} does not export ${f}(cfg, plan) (docs/design.md, "Workloads × targets")`);
  // Nothing rewrites a built report: a workload's own parts come from describe() and sections().
  if (workload.report) fail(`workload ${workload.EXPERIMENT} exports report(): describe the run through describe(cfg, plan) and sections(data, meta) instead (docs/design.md, "Workloads × targets")`);
  const refused = refusal(workload.EXPERIMENT, workload.needs(cfg, plan), targetName, adapter.capabilities);
  if (refused) fail(refused);
  const parsed = parseThresholds(readThresholdFile(cfg.THRESHOLDS), { path: cfg.THRESHOLDS, phases: workload.PHASES });
  const layout = resultsLayout(cfg, env);
  // (Only on the real file system: a k6 archive sees its own files only, and README.md, never
  // opened by a script, is not among them.)
  if (env.RESULTS_DIR && layout === 'none' && onRealFs()) fail(`RESULTS_DIR=${JSON.stringify(env.RESULTS_DIR)} is not allowed: an existing directory (k6 cannot create it; scripts/run does)`);
  return { parsed, layout };
}

// The plan as k6 and the report see it, worked out once: the workload's description and
// operations, the batches a single process plans (a run that stops early fails
// writepath_plan_remaining), what the count is held against (lib/verdict.js) and k6's options.
export function runPlan(workload, { declaration, adapter, cfg, plan, mode, parsed }) {
  const description = workload.describe(cfg, plan);
  const ops = plan.ops || (workload.opsFor ? workload.opsFor(cfg) : {});
  const plannedBatches = mode.countsPlan ? description.plannedBatches : null;
  const countBy = countBasis(cfg.DISTRIBUTED, plannedBatches, plan.expectedDocs !== null);
  const options = {
    scenarios: mode.scenarios || workload.scenarios(cfg, plan, adapter.capabilities),
    // A workload may declare extra sub-metrics (arangobench: latency per operation kind).
    // (Declared first, so that a per-stage limit of the threshold file replaces the empty entry.)
    thresholds: Object.assign(workload.extraThresholds ? workload.extraThresholds(cfg, plan, adapter.reasons) : {},
      k6Thresholds(mode.thresholds(parsed), cfg.PHASES, adapter.reasons, plan.loadModel ? plan.loadModel.stages.length : 0, {
        count: countBy, planned: Boolean(plannedBatches), gateway: Boolean(declaration.gateway),
        // a target whose failed batches may be stored after all (undetermined) holds a range too
        ranged: Boolean(adapter.capabilities && (adapter.capabilities.unnamedFailures || adapter.capabilities.undetermined)),
        readback: mode.countsPlan && description.readback !== null && !plan.loadModel,
      })),
    summaryTrendStats: TREND_STATS,
    // A ramped overwrite pre-loads DOCS in setup; setup, teardown and verification wait out a
    // server's "not now" answers for up to GIVE_UP, which k6 must not cut short.
    setupTimeout: plusGiveUp(plan.setupTimeout || '120s', cfg.GIVE_UP),
    teardownTimeout: plusGiveUp('600s', cfg.GIVE_UP),
    tags: { target: declaration.name },
  };
  // What the knobs plan, before k6 replaces the exported options with its resolved ones.
  const plannedScenarios = JSON.parse(JSON.stringify(options.scenarios));
  return { description, ops, plannedBatches, countBy, options, plannedScenarios };
}

// k6's duration text of base plus GIVE_UP (a whole number of seconds, rounded up).
function plusGiveUp(base, giveUp) {
  return `${Math.ceil((durationMs(base) + (giveUp ? durationMs(giveUp) : 0)) / 1000)}s`;
}

// Command-line flags show only in setup, where refusing them is an abort (exit 108): --http-debug
// prints every request's headers (ArangoDB: Authorization) and with =full the bodies.
export function refuseFlags(cfg, plannedScenarios, options) {
  if (options.httpDebug && !cfg.ALLOW_HTTP_DEBUG) stop(`k6-writepath: --http-debug=${options.httpDebug} is not allowed: it prints credentials (Authorization headers, login bodies) to the terminal; set ALLOW_HTTP_DEBUG=1 to accept that`);
  const frozen = frozenOptionsDiffer(plannedScenarios, JSON.parse(JSON.stringify(options.scenarios || {})));
  if (frozen) stop(`k6-writepath: the run's scenarios differ from what the knobs plan (${frozen}): a k6 archive built with other -e values (build it with the knobs it runs with: make k8s-archives K8S_KNOBS="…", docs/scale-out.md), or --iterations/--duration/--stages on the command line, or --vus on k6 v2 (use the knobs instead)`);
}
