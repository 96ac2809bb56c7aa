// Threshold files: acceptable batch latency and failures per phase, kept out of the
// scenario code (thresholds/<target>/<experiment>.json). This module turns a file into k6
// thresholds on tagged sub-metrics, and rejects anything it does not understand.
//
// {
//   "phases": {
//     "load":      { "batch_p95_ms": 2000, "batch_p99_ms": 5000, "failed_docs_max": 0 },
//     "overwrite": { "batch_p99_ms": 8000, "failed_batches_rate_max": 0.01, "abort_on_fail": true }
//   },
//   "verify": true
// }
import { fail } from './parse.js';
import { M } from './metric-names.js';

export const LATENCY = {
  batch_avg_ms: 'avg', batch_p50_ms: 'med', batch_p90_ms: 'p(90)',
  batch_p95_ms: 'p(95)', batch_p99_ms: 'p(99)', batch_max_ms: 'max',
};
const LIMIT_KEYS = [...Object.keys(LATENCY), 'failed_docs_max', 'undetermined_docs_max', 'failed_batches_rate_max', 'dropped_iterations_max', 'abort_on_fail'];
const STAGE_LIMIT_KEYS = [...Object.keys(LATENCY), 'failed_docs_max', 'failed_batches_rate_max'];

function jsonOf(text, where) {
  try {
    return JSON.parse(text);
  } catch (e) {
    return fail(`${where} is not valid JSON (${String(e.message || e).split('\n')[0]})`);
  }
}

export function parseThresholds(text, { path, phases }) {
  const where = `THRESHOLDS=${path}`;
  const doc = jsonOf(text, where);
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) fail(`${where} must hold a JSON object with "phases"`);
  for (const k of Object.keys(doc)) {
    if (!['phases', 'stages', 'verify', '$comment'].includes(k)) fail(`${where}: unknown key "${k}"; allowed: phases, stages, verify, $comment`);
  }
  if (doc.phases === null || typeof doc.phases !== 'object' || Array.isArray(doc.phases)) fail(`${where}: "phases" must be an object keyed by phase (${phases.join(', ')})`);
  if (doc.verify !== undefined && typeof doc.verify !== 'boolean') fail(`${where}: "verify" must be true or false`);
  const out = { phases: {}, stages: {}, verify: doc.verify !== false, path };
  const checkLimits = (name, limits, keys) => {
    if (limits === null || typeof limits !== 'object' || Array.isArray(limits)) fail(`${where}: ${name} must be an object`);
    for (const [k, v] of Object.entries(limits)) {
      if (!keys.includes(k)) fail(`${where}: ${name}.${k} is unknown; allowed: ${keys.join(', ')}`);
      if (k === 'abort_on_fail') {
        if (typeof v !== 'boolean') fail(`${where}: ${name}.abort_on_fail=${JSON.stringify(v)} must be true or false`);
      } else if (k === 'failed_batches_rate_max') {
        if (typeof v !== 'number' || !(v >= 0 && v <= 1)) fail(`${where}: ${name}.${k}=${JSON.stringify(v)} must be a number from 0 to 1`);
      } else if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
        fail(`${where}: ${name}.${k}=${JSON.stringify(v)} must be a number >= 0`);
      }
    }
  };
  for (const [phase, limits] of Object.entries(doc.phases)) {
    if (!phases.includes(phase)) fail(`${where}: unknown phase "${phase}"; this experiment has ${phases.join(', ')}`);
    checkLimits(`phases.${phase}`, limits, LIMIT_KEYS);
    out.phases[phase] = limits;
  }
  // Per stage of a load model (STAGES / RATE_STAGES), keyed by the 1-based stage number.
  // dropped_iterations cannot be limited per stage: k6 tags them with the scenario only.
  if (doc.stages !== undefined) {
    if (doc.stages === null || typeof doc.stages !== 'object' || Array.isArray(doc.stages)) fail(`${where}: "stages" must be an object keyed by stage number ("1", "2", …)`);
    for (const [stage, limits] of Object.entries(doc.stages)) {
      if (!/^[1-9]\d{0,3}$/.test(stage)) fail(`${where}: stages."${stage}" is not a stage number; use "1", "2", … (the stages of STAGES or RATE_STAGES, in order)`);
      checkLimits(`stages.${stage}`, limits, STAGE_LIMIT_KEYS);
      out.stages[stage] = limits;
    }
  }
  // A file that limits nothing would pass every run: a gate that cannot fail.
  const anyLimit = Object.values(doc.phases).some((l) => Object.keys(l).some((k) => k !== 'abort_on_fail'))
    || (doc.stages && typeof doc.stages === 'object' && Object.values(doc.stages).some((l) => l && typeof l === 'object' && Object.keys(l).length));
  if (!anyLimit) fail(`${where}: no limit in it ("phases" ${Object.keys(doc.phases).length ? 'holds no limit' : 'is {}'}): a threshold file must limit at least one phase (${phases.join(', ')}) with keys such as batch_p99_ms, failed_docs_max`);
  return out;
}

// k6 `options.thresholds` for the phases that run. Every per-phase sub-metric is declared
// (with an empty list when there is no limit) because k6 only reports sub-metrics that have
// a thresholds entry, and the result table needs them all.
// verification: what "verify": true checks (lib/scenario.js decides per run): the count
// against the plan ('plan': writepath_verify_mismatch) or against the acknowledged new
// documents ('acknowledged': writepath_verify_unaccounted, + per batch, - found), the read-back,
// and, for a planned run, that the plan finished (writepath_plan_remaining).
export function k6Thresholds(parsed, phases, reasons = [], stageCount = 0, verification = { count: 'plan', planned: false }) {
  const t = {};
  for (const [stage, limits] of Object.entries(parsed.stages || {})) {
    if (Number(stage) > stageCount) {
      fail(stageCount === 0 ? `THRESHOLDS=${parsed.path}: limits stages.${stage}, but this run has no stages: set STAGES or RATE_STAGES, or remove "stages"`
        : `THRESHOLDS=${parsed.path}: limits stages.${stage}, but STAGES/RATE_STAGES has only ${stageCount} stage${stageCount === 1 ? '' : 's'}`);
    }
    const lat = [];
    for (const [k, agg] of Object.entries(LATENCY)) if (limits[k] !== undefined) lat.push(`${agg}<=${limits[k]}`);
    t[`${M.batchDuration}{stage:${stage}}`] = lat;
    t[`${M.docsFailedKnown}{stage:${stage}}`] = limits.failed_docs_max !== undefined ? [`count<=${limits.failed_docs_max}`] : [];
    t[`${M.batchFailed}{stage:${stage}}`] = limits.failed_batches_rate_max !== undefined ? [`rate<=${limits.failed_batches_rate_max}`] : [];
  }
  for (const phase of phases) {
    const limits = parsed.phases[phase] || {};
    const abort = limits.abort_on_fail === true;
    const lat = [];
    for (const [k, agg] of Object.entries(LATENCY)) {
      if (limits[k] !== undefined) lat.push(`${agg}<=${limits[k]}`);
    }
    t[`${M.batchDuration}{phase:${phase}}`] = lat;
    t[`${M.docsOk}{phase:${phase}}`] = [];
    t[`${M.docsNew}{phase:${phase}}`] = [];
    t[`${M.bytes}{phase:${phase}}`] = [];
    t[`${M.phaseClock}{phase:${phase}}`] = [];
    if (verification.gateway) t[`${M.gatewayDb}{phase:${phase}}`] = [];
    // A failure limit, as k6 takes it (aborting the run at once when the file says so).
    const limit = (value, stat) => (value === undefined ? [] : [abort ? { threshold: `${stat}<=${value}`, abortOnFail: true, delayAbortEval: '5s' } : `${stat}<=${value}`]);
    // failed_docs_max limits the documents known to have failed, never the undetermined ones
    // (counted on their own line and resolved by the verification, which fails on a loss).
    t[`${M.docsFailed}{phase:${phase}}`] = [];
    t[`${M.docsFailedKnown}{phase:${phase}}`] = limit(limits.failed_docs_max, 'count');
    for (const r of reasons) t[`${M.docsFailed}{phase:${phase},reason:${r}}`] = [];
    t[`${M.docsUndetermined}{phase:${phase}}`] = limit(limits.undetermined_docs_max, 'count');
    t[`${M.retries}{phase:${phase}}`] = [];
    t[`${M.batchFailed}{phase:${phase}}`] = limit(limits.failed_batches_rate_max, 'rate');
    // Open-model runs: batches k6 could not start on schedule. k6 tags dropped_iterations with
    // the scenario only; every workload of the pack runs one k6 scenario, so the limit is global.
    if (limits.dropped_iterations_max !== undefined) t.dropped_iterations = [`count<=${limits.dropped_iterations_max}`];
  }
  if (parsed.verify) {
    // ranged: the target's failures may name no document (ArangoDB silent=true): the count is
    // held against a range (lib/metrics.js recordBatch), and a read-back that judged no key is
    // no pass (lib/report.js says NOT JUDGED; this threshold makes the exit code say it too).
    if (verification.count === 'acknowledged' && verification.ranged) {
      t[M.verifyUnaccounted] = ['count<=0'];
      t[M.verifyUnaccountedMax] = ['count>=0'];
    } else if (verification.count === 'acknowledged') t[M.verifyUnaccounted] = ['count==0'];
    else t[M.verifyMismatch] = ['value==0'];
    // Undetermined new documents the count does not find failed after all; no phase can be
    // named for them, so with them the run's known failures are held against the sum of the
    // phases' failed_docs_max (when every phase has one).
    const budgets = phases.map((p) => (parsed.phases[p] || {}).failed_docs_max);
    if (verification.count === 'acknowledged' && verification.ranged && phases.length && budgets.every((b) => b !== undefined)) {
      t[M.docsFailedResolved] = [`count<=${budgets.reduce((a, b) => a + b, 0)}`];
    }
    t[M.readbackStale] = ['count==0'];
    if (verification.ranged && verification.readback) t[M.readbackJudged] = ['count>0'];
    if (verification.planned) t[M.planRemaining] = ['count<=0'];
  }
  return t;
}
