// Load models shared by the workloads: the fixed plan (each workload's own exact executor),
// the closed model (STAGES = duration:VUs,… → k6 ramping-vus) and the open model
// (RATE_STAGES = duration:batches-per-second,… → k6 ramping-arrival-rate, whose batches start
// on schedule whether or not earlier ones finished; those k6 cannot start for lack of a free
// VU are dropped_iterations). Every batch of a ramped run is tagged `stage` (1-based: the
// stage it started in), so the report, summary.json, InfluxDB and the thresholds see each
// stage on its own. Pure apart from k6/execution in stageOf(): the report part runs in Node.
import { durationMs, fail, parseStages, shown } from './parse.js';
import { M } from './metric-names.js';

// loadModel(cfg, defaults) -> null (fixed plan) or
// { open, stages, steps, ends, labels, vus (pre-allocated / peak VUs), maxVUs, maxIterations }
// defaults.stages: STAGES to use when neither knob is set (bulk-insert always ramps).
// plannedBy: what made the stage list, for the refusal of a run planned beyond MAX_DURATION
// (the contention workload repeats the stages once per hot set).
export function loadModel(cfg, { stages: defaultStages = null, plannedBy = null } = {}) {
  const open = Boolean(cfg.RATE_STAGES);
  const text = open ? cfg.RATE_STAGES : (cfg.STAGES || defaultStages);
  if (!text) return null;
  if (open && cfg.STAGES) fail(`STAGES=${cfg.STAGES} is not allowed with RATE_STAGES=${cfg.RATE_STAGES}: choose one load model (closed: STAGES, open: RATE_STAGES)`);
  const stages = parseStages(text);
  const knob = open ? 'RATE_STAGES' : 'STAGES';
  for (const s of stages) {
    if (!(durationMs(s.duration) > 0)) fail(`${knob}=${text} is not allowed: every stage needs a duration above 0 (${s.duration})`);
  }
  const peak = Math.max(...stages.map((s) => s.target));
  if (peak < 1) {
    fail(open ? `RATE_STAGES=${text} is not allowed: at least one stage needs a rate of 1 or more batches per second`
      : `STAGES=${text} is not allowed: at least one stage needs 1 or more VUs`);
  }
  if (open && cfg.MAX_VUS < cfg.VUS) fail(`MAX_VUS=${cfg.MAX_VUS} is not allowed with VUS=${cfg.VUS}: at least the pre-allocated VUS`);
  let end = 0;
  const ends = stages.map((s) => (end += durationMs(s.duration)));
  // The stages are the run's plan: one that outlasts MAX_DURATION is refused now, not found out
  // hours into the run.
  if (cfg.MAX_DURATION && end > durationMs(cfg.MAX_DURATION)) {
    fail(`${plannedBy || `${knob}=${shown(text)}`} is not allowed with MAX_DURATION=${cfg.MAX_DURATION}: the run is planned to last ${hms(end)}, longer than MAX_DURATION; raise MAX_DURATION (up to 720h) or plan a shorter run`);
  }
  // Each stage is a step: jump to its VU count or rate, hold it for its duration. k6 ramps
  // linearly towards a stage's target, which would mix load levels inside a stage's figures
  // (and leave a first "10s:1" stage with no VU at all until its end).
  const steps = [];
  for (const s of stages) steps.push({ duration: '0s', target: s.target }, { duration: s.duration, target: s.target });
  const labels = stages.map((s) => (open ? `${s.target}/s` : String(s.target)));
  // Open model: one k6 scenario per stage (constant-arrival-rate, started when the stage
  // before it ends), so that k6's dropped_iterations, tagged with the scenario only, are
  // counted per stage too. A stage starts at most rate x duration iterations (+1 margin);
  // batch numbers of stage s start after the budgets of the stages before it, so they are
  // unique across the run.
  const budgets = open ? stages.map((s) => Math.ceil(s.target * durationMs(s.duration) / 1000) + 1) : null;
  const offsets = open ? budgets.map((_, i) => budgets.slice(0, i).reduce((a, b) => a + b, 0)) : null;
  const maxIterations = open ? budgets.reduce((a, b) => a + b, 0) : null;
  return { open, stages, steps, ends, labels, vus: open ? cfg.VUS : peak, maxVUs: open ? cfg.MAX_VUS : peak, maxIterations, budgets, offsets, text };
}

// 29520000 -> "8h12m" (whole seconds shown only under an hour).
function hms(ms) {
  const s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600); const m = Math.floor((s % 3600) / 60); const sec = s % 60;
  return h ? `${h}h${m ? `${m}m` : ''}` : `${m ? `${m}m` : ''}${sec || !m ? `${sec}s` : ''}`;
}

// k6 scenario name of stage i (0-based) of an open-model run.
const stageScenario = (name, i) => `${name}-s${i + 1}`;

export function describeModel(lm) {
  return lm.open ? `open model, arrival rate ${lm.text} batches/s (VUs ${lm.vus}…${lm.maxVUs})` : `ramping VUs ${lm.text}`;
}

// The k6 scenario of a ramped workload.
// The fixed plan: one per-vu-iterations scenario, each VU working through its own batches.
export function fixedScenario(name, cfg, vus, iterations) {
  return { [name]: { executor: 'per-vu-iterations', vus, iterations, maxDuration: cfg.MAX_DURATION, gracefulStop: '30s' } };
}


// How long k6 lets a batch in flight finish when a stage or the scenario ends: its request
// (TIMEOUT) plus the reading of what a failed one committed (a RavenDB bulk insert's operation
// state, lib/targets/ravendb/ravendb.js). An iteration k6 cuts off is never recorded, yet its
// documents may be stored: the count would show them as unexpected.
const SETTLE_MS = 5000;
function grace(cfg) {
  return `${durationMs(cfg.TIMEOUT) + SETTLE_MS}ms`;
}

export function rampScenario(name, cfg, lm) {
  if (lm.open) {
    const out = {};
    lm.stages.forEach((st, i) => {
      out[stageScenario(name, i)] = {
        executor: 'constant-arrival-rate',
        rate: st.target,
        timeUnit: '1s',
        duration: st.duration,
        startTime: `${i === 0 ? 0 : lm.ends[i - 1]}ms`,
        preAllocatedVUs: lm.vus,
        maxVUs: lm.maxVUs,
        gracefulStop: grace(cfg),
      };
    });
    return out;
  }
  return {
    [name]: {
      executor: 'ramping-vus',
      startVUs: 0,
      stages: lm.steps,
      gracefulRampDown: grace(cfg),
      gracefulStop: grace(cfg),
    },
  };
}

// 0-based stage of a batch that starts `elapsedMs` after the scenario started.
function stageIndex(lm, elapsedMs) {
  let s = 0;
  while (s < lm.ends.length - 1 && elapsedMs >= lm.ends[s]) s++;
  return s;
}

// A count (whole number) that grew over [fromMs, toMs] (ms from the start), shared among the
// stages the interval overlaps in proportion to the overlap: whole numbers per stage that add
// up to count (largest remainders first). Time past the last stage's end is the last stage's.
export function splitOverStages(lm, fromMs, toMs, count) {
  const ends = lm.ends;
  const out = new Array(ends.length).fill(0);
  const span = toMs - fromMs;
  if (!(span > 0)) { out[stageIndex(lm, toMs)] = count; return out; }
  const shares = ends.map((end, s) => {
    const lo = Math.max(fromMs, s === 0 ? -Infinity : ends[s - 1]);
    const hi = Math.min(toMs, s === ends.length - 1 ? Infinity : end);
    return (Math.max(0, hi - lo) / span) * count;
  });
  let left = count;
  shares.forEach((x, s) => { out[s] = Math.floor(x); left -= out[s]; });
  shares.map((x, s) => [x - Math.floor(x), s]).sort((a, b) => b[0] - a[0] || a[1] - b[1]).slice(0, left).forEach(([, s]) => { out[s]++; });
  return out;
}

// Where the current iteration stands: { s: 0-based stage, n: batch number unique across the
// run, or -1 when an open-model stage started more iterations than its budget (never
// expected; the caller counts it instead of reusing another stage's numbers).
// exec: k6/execution (passed in, so that this module loads in Node too).
export function rampPosition(lm, exec, startedAt) {
  const sc = exec.scenario;
  if (!lm.open) return { s: stageIndex(lm, startedAt - sc.startTime), n: sc.iterationInTest };
  const s = Number(/-s(\d+)$/.exec(sc.name)[1]) - 1;
  return { s, n: sc.iterationInTest < lm.budgets[s] ? lm.offsets[s] + sc.iterationInTest : -1 };
}

// Sub-metrics per stage, so that handleSummary sees them (k6 only reports tagged sub-metrics
// that have a thresholds entry).
export function stageThresholds(lm, reasons = [], name = null) {
  const t = {};
  if (!lm) return t;
  if (lm.open) for (let i = 0; i < lm.stages.length; i++) t[`dropped_iterations{scenario:${stageScenario(name, i)}}`] = [];
  for (let s = 1; s <= lm.stages.length; s++) {
    for (const m of [M.batchDuration, M.docsOk, M.docsFailed, M.docsUndetermined, M.docsFailedKnown, M.batchFailed, M.bytes, M.phaseClock]) t[`${m}{stage:${s}}`] = [];
    for (const r of reasons) t[`${M.docsFailed}{stage:${s},reason:${r}}`] = [];
  }
  return t;
}

// Per-stage rows from k6's summary data: docs/s and MB/s over each stage's wall time (first
// batch start to last batch end of the batches that started in the stage), batch time
// p50/p90/p99/max, failed documents by reason. MB = 10^6 bytes of request body.
export function stageRows(data, lm, reasons = [], name = null) {
  const v = (name) => (data.metrics[name] ? data.metrics[name].values : {});
  const n = (x) => (typeof x === 'number' && Number.isFinite(x) ? x : null);
  return lm.stages.map((st, i) => {
    const tag = `{stage:${i + 1}}`;
    const clock = v(M.phaseClock + tag);
    const wall = clock.max > clock.min ? (clock.max - clock.min) / 1000 : null;
    const ok = v(M.docsOk + tag).count || 0;
    const bytes = v(M.bytes + tag).count || 0;
    const d = v(M.batchDuration + tag);
    const byReason = {};
    for (const r of reasons) {
      const c = v(`${M.docsFailed}{stage:${i + 1},reason:${r}}`).count || 0;
      if (c > 0) byReason[r] = c;
    }
    const dropped = lm.open && data.metrics[`dropped_iterations{scenario:${stageScenario(name, i)}}`]
      ? data.metrics[`dropped_iterations{scenario:${stageScenario(name, i)}}`].values.count || 0 : 0;
    return {
      stage: i + 1, duration: st.duration, dropped_iterations: dropped, load: lm.labels[i], vus: lm.labels[i], model: lm.open ? 'open' : 'closed',
      target_rate: lm.open ? st.target : null, target_vus: lm.open ? null : st.target,
      batches: d.count || 0, docs_ok: ok, docs_failed: v(M.docsFailed + tag).count || 0, failed_by_reason: byReason,
      // The undetermined ones (stored or not) and the known failures, as the phase rows have them.
      docs_undetermined: v(M.docsUndetermined + tag).count || 0, docs_failed_known: v(M.docsFailedKnown + tag).count || 0,
      wall_s: wall, docs_per_s: wall ? ok / wall : null, mb_per_s: wall ? bytes / 1e6 / wall : null,
      // When the stage's batches ran (epoch ms): the capacity search reads k6's CPU in this window.
      started_ms: n(clock.min), ended_ms: n(clock.max),
      batches_per_s: wall ? (d.count || 0) / wall : null,
      batch_ms: { median: n(d.med), p90: n(d['p(90)']), p99: n(d['p(99)']), max: n(d.max) },
      // Kept for summary.json readers of the first version (E4's table).
      batch_ms_median: n(d.med), batch_ms_p99: n(d['p(99)']),
    };
  });
}

// The per-stage section of a ramped run, in the shape of a workload's sections() (lib/report.js
// appends `after` to the text and merges `json` into summary.json).
export function stageSection(data, { model: lm, batchSize, reasons = [], note = '', name }) {
  const rows = stageRows(data, lm, reasons, name);
  const f = (x, d = 1) => (x === null || x === undefined ? '-' : x.toFixed(d));
  const lines = ['', `per stage (batches of ${batchSize}${note ? `, ${note}` : ''}; ${describeModel(lm)}):`,
    `${'stage'.padEnd(7)}${(lm.open ? 'rate' : 'VUs').padEnd(8)}${'batches'.padStart(8)}${'docs ok'.padStart(10)}${'failed'.padStart(8)}${'docs/s'.padStart(10)}${'MB/s'.padStart(8)}` +
    `${'p50 ms'.padStart(9)}${'p90 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'max ms'.padStart(9)}${lm.open ? 'dropped'.padStart(9) : ''}`];
  for (const x of rows) {
    lines.push(`${String(x.stage).padEnd(7)}${x.load.padEnd(8)}${String(x.batches).padStart(8)}${String(x.docs_ok).padStart(10)}${String(x.docs_failed).padStart(8)}` +
      `${f(x.docs_per_s, 0).padStart(10)}${f(x.mb_per_s, 2).padStart(8)}${f(x.batch_ms.median).padStart(9)}${f(x.batch_ms.p90).padStart(9)}${f(x.batch_ms.p99).padStart(9)}${f(x.batch_ms.max).padStart(9)}${lm.open ? String(x.dropped_iterations).padStart(9) : ''}`);
    if (x.docs_failed > 0) lines.push(`  stage ${x.stage}: ${x.docs_failed} documents failed: ${Object.entries(x.failed_by_reason).map(([k, c]) => `${k} ${c}`).join(', ') || 'reason not listed'}` +
      (x.docs_undetermined > 0 ? `; ${x.docs_undetermined} of them undetermined (stored or not: the verification resolves them), ${x.docs_failed_known} known failed` : ''));
  }
  return { after: lines, json: { load_model: { model: lm.open ? 'open' : 'closed', stages: lm.text, vus: lm.vus, max_vus: lm.maxVUs }, stages: rows } };
}
