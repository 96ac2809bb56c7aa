// Several runs of one workload as one result (REPEAT=N, scripts/compare sides, the gate):
// which figures of a run are compared (the one list of them), what two runs must share to be
// put together, and the aggregate of N repetitions — per phase and figure the median, min–max
// and a distribution-free 95 % interval (or "need ≥ 6 runs"), E1's ratios from each
// repetition's own ratio, and the text table, JSON and JUnit of it. Node only (scripts/lib/stats.mjs).
import { KNOBS, knobScope } from '../../lib/config.js';
import { fmt } from '../../lib/format.js';
import { runsForMedianCI, summarize } from './stats.mjs';
import { TEST_ENDPOINT } from '../../lib/test-endpoint.js';
import { junitXml } from '../../lib/report.js';
import { countersJudged } from '../../lib/ledger.js';

export const CONFIDENCE = 0.95;

// The figures of a phase that repetitions are summarised by and runs are compared on:
// [key, label, value of a summary.json phase, decimals, which direction is better].
export const METRICS = [
  ['docs_per_s', 'docs/s', (p) => p.docs_per_s, 0, 'higher'],
  ['mb_per_s', 'MB/s', (p) => p.mb_per_s, 2, 'higher'],
  ['batch_p50_ms', 'p50 ms', (p) => p.batch_ms && p.batch_ms.median, 1, 'lower'],
  ['batch_p90_ms', 'p90 ms', (p) => p.batch_ms && p.batch_ms.p90, 1, 'lower'],
  ['batch_p99_ms', 'p99 ms', (p) => p.batch_ms && p.batch_ms.p99, 1, 'lower'],
  ['batch_avg_ms', 'avg ms', (p) => p.batch_ms && p.batch_ms.average, 1, 'lower'],
];
// A phase figure that does not apply to the workload: the contention workload increments
// counters and writes no document payload, so its MB/s is no measurement.
const notApplicable = (key, summary) => key === 'mb_per_s' && Boolean(summary.contention);
// E3's whole-run figures of an arangobench run (summary.e3).
export const E3_METRICS = [
  ['time_s', 'Time (s)', (e) => e.time_s, 2, 'lower'],
  ['ops_per_s', 'ops/s', (e) => e.ops_per_s, 0, 'higher'],
];
// The contention workload's steps (summary.contention, one per hot set × load; lib/workloads/
// contention.js): operations/s, time per operation, and ops/s against the run's own spread
// baseline at the same load (none on the baseline's own steps).
export const CONTENTION_METRICS = [
  ['ops_per_s', 'ops/s', (x) => x.ops_per_s, 0, 'higher'],
  // A step that ran no operation (a run stopped before it) has no time per operation.
  ['batch_p50_ms', 'p50 ms', (x) => (x.ops ? x.op_ms && x.op_ms.median : null), 1, 'lower'],
  ['batch_p99_ms', 'p99 ms', (x) => (x.ops ? x.op_ms && x.op_ms.p99 : null), 1, 'lower'],
  ['vs_spread', 'vs spread', (x) => (x.spread ? null : x.vs_spread), 2, 'higher'],
  // Conflicts the server retried itself (MongoDB; null on targets that do not count them).
  ['server_conflicts', 'server-retried conflicts', (x) => x.server_conflicts, 0, 'lower'],
];
// A step has no such figure: the baseline's ratio to itself, a count the target does not keep.
const noFigure = (key, x) => (key === 'vs_spread' && x.spread) || (key === 'server_conflicts' && typeof x.server_conflicts !== 'number');
// "step 3: hot 1 × 32" — the row name of a contention step.
export const stepName = (x) => `step ${x.step}: ${x.spread ? 'spread' : 'hot'} ${x.hot_keys} × ${x.load}`;
const RATIO_STATS = ['average', 'median', 'p99'];

// The settings two runs must share: the knobs of scope 'workload' (lib/config.js knobScope).
// Knobs of scope 'run' (how a run was made or checked) and 'target:<db>' (how one database
// stores it) may differ, and so may values derived from knobs (timeoutMs). A workload knob
// missing from a summary (written before the knob was read on its target) had its default.
const WORKLOAD_KNOBS = Object.keys(KNOBS).filter((k) => knobScope(k).scope === 'workload');
export function workloadSettings(summary) {
  const out = { experiment: summary.experiment, ops: summary.ops || null };
  const cfg = summary.config || {};
  for (const k of WORKLOAD_KNOBS) out[k] = cfg[k] !== undefined ? cfg[k] : KNOBS[k].default;
  return out;
}

const show = (v) => (Array.isArray(v) ? v.join(',') : JSON.stringify(v));

// One line naming every workload setting that differs between the runs ({ name, summary }), or null.
export function workloadDifference(runs) {
  const settings = runs.map((r) => workloadSettings(r.summary));
  const keys = [...new Set(settings.flatMap((s) => Object.keys(s)))].sort();
  const diffs = [];
  for (const k of keys) {
    const vals = settings.map((s) => show(s[k]));
    if (new Set(vals).size > 1) diffs.push(`${k} ${runs.map((r, i) => `${r.name}=${vals[i] === undefined ? '(unset)' : vals[i]}`).join(' ')}`);
  }
  return diffs.length ? diffs.join('; ') : null;
}

// Every comparable figure of one run's summary.json: { '<phase> <label>': value, … } in table
// order, plus E3's whole-run figures ('run Time (s)', 'run ops/s') of an arangobench run.
export function runFigures(summary) {
  const out = [];
  for (const p of summary.phases || []) {
    for (const [key, label, get, digits, better] of METRICS) out.push({ phase: p.phase, key, label, digits, better, value: num(get(p)) });
  }
  if (summary.e3) for (const [key, label, get, digits, better] of E3_METRICS) out.push({ phase: 'e3', key, label, digits, better, value: num(get(summary.e3)) });
  for (const x of summary.contention || []) {
    for (const [key, label, get, digits, better] of CONTENTION_METRICS) if (!noFigure(key, x)) out.push({ phase: stepName(x), key, label, digits, better, value: num(get(x)) });
  }
  return out;
}

const num = (x) => (typeof x === 'number' && Number.isFinite(x) ? x : null);

// The aggregate of repetitions: reps = [{ run_id, dir, exit, summary (null when the run left
// none) }], in the order they ran.
export function aggregate(reps, { runId, conf = CONFIDENCE } = {}) {
  const done = reps.filter((r) => r.summary);
  if (done.length === 0) return null;
  const first = done[0].summary;
  const diff = workloadDifference(done.map((r) => ({ name: r.run_id, summary: r.summary })));
  if (diff) throw new Error(`the repetitions do not share one workload: ${diff}`);
  const phases = first.phases.map((p) => {
    const metrics = {};
    for (const [key, , get] of METRICS) {
      if (notApplicable(key, first)) continue;
      const values = done.map((r) => { const q = r.summary.phases.find((x) => x.phase === p.phase); return q ? num(get(q)) : null; });
      metrics[key] = { values, ...summarize(values, conf) };
    }
    return { phase: p.phase, op: (first.ops || {})[p.phase] || null, metrics };
  });
  const ratios = {};
  for (const name of Object.keys(first.ratios || {})) {
    ratios[name] = {};
    for (const stat of RATIO_STATS) {
      const values = done.map((r) => num(((r.summary.ratios || {})[name] || {})[stat]));
      ratios[name][stat] = { values, ...summarize(values, conf) };
    }
  }
  let e3 = null;
  if (first.e3) {
    e3 = { test_case: first.e3.test_case, complexity: first.e3.complexity, requests: first.e3.requests, concurrency: first.e3.concurrency };
    for (const [key, , get] of E3_METRICS) {
      const values = done.map((r) => (r.summary.e3 ? num(get(r.summary.e3)) : null));
      e3[key] = { values, ...summarize(values, conf) };
    }
  }
  // The contention workload: per step (the repetitions share their steps: same knobs).
  const contention = first.contention ? first.contention.map((x, i) => {
    const metrics = {};
    for (const [key, , get] of CONTENTION_METRICS) {
      if (noFigure(key, x)) continue;
      const values = done.map((r) => { const q = (r.summary.contention || [])[i]; return q ? num(get(q)) : null; });
      metrics[key] = { values, ...summarize(values, conf) };
    }
    return { step: x.step, name: stepName(x), hot_keys: x.hot_keys, spread: x.spread, load: x.load, metrics };
  }) : null;
  const repetitions = reps.map((r) => ({
    run_id: r.run_id, dir: r.dir, exit: r.exit ?? null,
    passed: r.summary ? Boolean(r.summary.passed) : false,
    verified: r.summary ? Boolean(r.summary.verification && r.summary.verification.ok) : false,
    verification: verificationOf(r.summary).state,
    interrupted: r.exit === EXIT_INTERRUPTED,
    started_at: r.summary ? r.summary.started_at : null,
    why: whyFailed(r),
  }));
  const config = { ...(first.config || {}) };
  delete config.RUN_ID;
  return {
    tool: 'k6-writepath',
    kind: 'repeat',
    run_id: runId || null,
    target: first.target,
    experiment: first.experiment,
    test_endpoint: done.some((r) => r.summary.test_endpoint),
    server: first.server || null,
    config,
    ops: first.ops || {},
    n: reps.length,
    n_with_results: done.length,
    confidence: conf,
    repetitions,
    phases,
    ratios,
    ...(e3 ? { e3 } : {}),
    ...(contention ? { contention } : {}),
    passed: repetitions.every((r) => r.passed),
  };
}

// k6's and scripts/run's code for an interrupted run (docs/reliability.md "Exit codes").
const EXIT_INTERRUPTED = 105;

// What a repetition's own summary said of its verification: 'verified'; 'failed' when a count,
// the read-back or the counters were judged and did not hold; 'not verified' when nothing was
// judged (it did not run, the plan stopped short, the ledgers are incomplete, every key read
// back undetermined), with the summary's reason.
export function verificationOf(summary) {
  const v = summary && summary.verification;
  if (!v || !v.ran) return { state: 'not verified', why: `did not run: ${(v && v.why) || 'no summary.json'}` };
  if (v.ok) return { state: 'verified', why: null };
  const judged = countersJudged(v);
  if (v.count_ok === false || v.readback_ok === false || (v.counters_ok === false && judged !== false)) return { state: 'failed', why: null };
  const why = v.partial ? 'the run stopped before its plan finished' : judged === false ? 'the VUs\' ledgers are incomplete'
    : v.readback_unjudged ? 'every key read back is undetermined' : 'nothing judged';
  return { state: 'not verified', why };
}

// Why a repetition did not pass, in one line (null when it passed).
function whyFailed(r) {
  if (!r.summary) return `no summary.json (k6 exit ${r.exit ?? '?'}: bad input or aborted; see its junit.xml)`;
  if (r.summary.passed) return null;
  const parts = [];
  const failed = (r.summary.thresholds || []).filter((t) => !t.ok);
  if (failed.length) parts.push(`thresholds failed: ${failed.map((t) => `${t.metric} ${t.threshold}`).join('; ')}`);
  const v = verificationOf(r.summary);
  if (v.state === 'failed') parts.push('verification FAILED');
  else if (v.state === 'not verified') parts.push(`NOT VERIFIED: ${v.why}`);
  if (r.exit === EXIT_INTERRUPTED) parts.unshift(`interrupted (k6 exit ${r.exit})`);
  else if (r.exit !== null && r.exit !== undefined && ![0, 99].includes(r.exit)) parts.push(`k6 exit ${r.exit}`);
  return parts.join('; ') || 'did not pass';
}

// "median" / "min – max" / interval cells of one summarised figure.
export function spreadCells(s, digits, conf = CONFIDENCE) {
  if (!s || !s.n) return ['-', '-', '-'];
  const ci = s.ci ? `${fmt(s.ci.lo, digits)} – ${fmt(s.ci.hi, digits)}` : `need ≥ ${runsForMedianCI(conf)} runs`;
  return [fmt(s.median, digits), `${fmt(s.min, digits)} – ${fmt(s.max, digits)}`, ci];
}

export function aggregateText(agg, { header = [], resultsAt = null } = {}) {
  const pct = Math.round(agg.confidence * 100);
  const tep = agg.test_endpoint ? `${TEST_ENDPOINT} · ` : '';
  const lines = [`k6-writepath · ${tep}${agg.target} · ${agg.experiment} · ${agg.n} repetitions · run ${agg.run_id}`, ...header];
  if (agg.test_endpoint) lines.push(`${TEST_ENDPOINT}: a k6-writepath API test server answered, not a database; these figures test the pack and measure no database.`);
  lines.push(`repetitions: ${agg.repetitions.map((r) => r.run_id).join(', ')} — each with its own objects and result folder; one after another`);
  lines.push('');
  const rows = [['phase', 'op', 'figure', 'n', 'median', 'min – max', `${pct} % CI of the median`]];
  for (const p of agg.phases) {
    METRICS.filter(([key]) => p.metrics[key]).forEach(([key, label, , digits], i) => {
      const s = p.metrics[key];
      rows.push([i === 0 ? p.phase : '', i === 0 ? (p.op || '') : '', label, String(s.n), ...spreadCells(s, digits, agg.confidence)]);
    });
  }
  if (agg.e3) for (const [key, label, , digits] of E3_METRICS) rows.push(['run (E3)', '', label, String(agg.e3[key].n), ...spreadCells(agg.e3[key], digits, agg.confidence)]);
  for (const st of agg.contention || []) {
    CONTENTION_METRICS.filter(([key]) => st.metrics[key]).forEach(([key, label, , digits], i) => {
      rows.push([i === 0 ? st.name : '', i === 0 ? 'increment' : '', label, String(st.metrics[key].n), ...spreadCells(st.metrics[key], digits, agg.confidence)]);
    });
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  for (const r of rows) lines.push(r.map((c, i) => (i < 3 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ').replace(/\s+$/, ''));
  lines.push('');
  lines.push(`Each figure is one value per repetition (docs/s of the phase, ${agg.contention ? '' : 'MB/s, '}batch-time percentiles of the phase${agg.contention ? '; no MB/s: the contention workload increments counters and writes no document payload' : ''}); median and min – max over the repetitions; the ${pct} % interval of the median is distribution-free (order statistics) and needs at least ${runsForMedianCI(agg.confidence)} repetitions.`);
  if (agg.contention) lines.push('Contention steps: ops/s and time per operation of each step (hot set × load); vs spread = each repetition\'s ops/s against its own spread baseline at the same load.');
  for (const [name, r] of Object.entries(agg.ratios)) {
    const parts = RATIO_STATS.map((stat) => {
      const s = r[stat];
      if (!s.n) return `${stat} -`;
      const [med, range, ci] = spreadCells(s, 2, agg.confidence);
      return `${stat} ${med}x (min – max ${range}, ${s.ci ? `${pct} % CI ${ci}` : ci})`;
    });
    lines.push(`${name} ratio, median of the ${r.average.n} repetitions' own ratios (n=${r.average.n}): ${parts.join(' · ')}`);
  }
  const verified = agg.repetitions.filter((r) => r.verified).length;
  const passed = agg.repetitions.filter((r) => r.passed).length;
  // As each repetition's own summary said it: one not verified (interrupted) is no failed one.
  const ids = (state) => agg.repetitions.filter((r) => (r.verification || (r.verified ? 'verified' : 'failed')) === state).map((r) => `${r.run_id}${r.interrupted ? ' (interrupted)' : ''}`);
  const notVerified = ids('not verified');
  const failedV = ids('failed');
  lines.push(`verification: ${verified} of ${agg.n} repetitions verified (${agg.contention ? 'counters against the VUs\' ledgers' : 'count and read-back'})` +
    `${notVerified.length ? `; NOT VERIFIED: ${notVerified.join(', ')}` : ''}${failedV.length ? ` — FAILED: ${failedV.join(', ')}` : ''}`);
  lines.push(`thresholds and verification: ${passed} of ${agg.n} repetitions passed${passed < agg.n ? ` — FAILED: ${agg.repetitions.filter((r) => !r.passed).map((r) => `${r.run_id} (${r.why})`).join('; ')}` : ''}`);
  if (resultsAt) lines.push(`results: ${resultsAt} (each repetition in its own folder inside)`);
  return `${lines.join('\n')}\n`;
}

// JUnit of a repeated run: one case per repetition (its thresholds and verification).
export function aggregateJunit(agg) {
  const cls = `${agg.target}.${agg.experiment}`;
  return junitXml(`k6-writepath ${agg.test_endpoint ? `${TEST_ENDPOINT} ` : ''}${agg.target} ${agg.experiment} REPEAT=${agg.n}`,
    agg.repetitions.map((r, i) => ({ classname: cls, name: `repetition ${i + 1} of ${agg.n} (run ${r.run_id}): thresholds and verification`, failure: r.passed ? null : r.why })));
}
