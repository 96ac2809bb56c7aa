// Capacity search (docs/capacity.md): the pure part of scripts/capacity.mjs — what a step's
// summary.json says about the step, the knee of a list of recorded steps, the text table,
// the latency-vs-throughput chart and the comparison of two searches. No Node or k6 imports:
// every figure of a capacity.json can be recomputed from its steps with these functions.
import { lineChart } from './svg-chart.js';
import { TEST_ENDPOINT } from './test-endpoint.js';

// A search whose steps were answered by a project API test server (any step: the label is never lost).
export const testEndpointOf = (c) => Boolean(c.test_endpoint || (c.steps || []).some((s) => s.test_endpoint));

// One step = one k6 run at one arrival rate (batches/s): a warm-up stage, then the measured
// stage (the last one). summary: that run's summary.json; exit: k6's exit code.
// cpuSamples: [{ t (epoch ms at the end of a 1-second window), cores (k6's CPU over it) }]:
// the step's client load is the peak over the windows inside the measured stage (setup's
// pre-load and the warm-up are not the measured load).
export function stepFromSummary({ n, rate, runId, exit, summary, phase, sloMs, cpuSamples = [], cores = null }) {
  const st = (summary.stages || [])[summary.stages.length - 1] || {};
  const inStage = cpuSamples.filter((c) => typeof st.started_ms === 'number' && c.t - 1000 >= st.started_ms - 500 && c.t <= st.ended_ms + 500);
  const clientCpuCores = inStage.length ? Math.max(...inStage.map((c) => c.cores)) : null;
  const ph = (summary.phases || []).find((p) => p.phase === phase) || {};
  const v = summary.verification || { ran: false };
  const failedVerification = (summary.thresholds || []).filter((t) => !t.ok && /verify|readback/.test(t.metric));
  const u = undeterminedOf(ph, summary);
  const step = {
    n, rate, run_id: runId, exit,
    batch_size: summary.plan ? summary.plan.batch_size : null,
    batches: st.batches ?? null,
    docs_ok: st.docs_ok ?? null,
    docs_per_s: st.docs_per_s ?? null,
    batches_per_s: st.batches_per_s ?? null,
    mb_per_s: st.mb_per_s ?? null,
    batch_ms: st.batch_ms || { median: null, p90: null, p99: null, max: null },
    // Failures of the whole ramped phase (warm-up included): a step that failed a write in
    // its warm-up is not a clean step either.
    docs_failed: ph.docs_failed ?? null,
    failed_by_reason: ph.failed_by_reason || {},
    docs_undetermined: u.docs_undetermined,
    undetermined_stored: u.undetermined_stored,
    undetermined_not_stored: u.undetermined_not_stored,
    docs_failed_known: u.docs_failed_known,
    dropped_iterations: summary.dropped_iterations ?? null,
    verified: Boolean(v.ran && v.ok && failedVerification.length === 0),
    client_cpu_cores: clientCpuCores,
    cores,
    test_endpoint: Boolean(summary.test_endpoint),
  };
  step.verdict = stepVerdict(step, sloMs);
  return step;
}

// A step is judged on its known failed documents, as the thresholds are (docs/configuration.md,
// "What each threshold counts"): those known when answered (the phase's docs_failed_known) and,
// once the count or the ramped overwrite's read-back of every key resolved the undetermined
// ones, those not stored (the run-wide writepath_docs_failed_resolved, when the run held it).
// Without that check the undetermined ones stay unresolved and fail nothing.
function undeterminedOf(ph, summary) {
  const failed = ph.docs_failed ?? null;
  const undetermined = ph.docs_undetermined ?? 0;
  const answered = ph.docs_failed_known ?? (failed === null ? null : failed - undetermined);
  const thr = (summary.thresholds || []).find((t) => t.metric === 'writepath_docs_failed_resolved');
  const v = summary.verification || {};
  const resolved = undetermined > 0 && thr && typeof thr.observed === 'number' && v.ran === true;
  const notStored = resolved ? Math.min(undetermined, Math.max(0, thr.observed - (answered || 0))) : null;
  return {
    docs_undetermined: undetermined,
    undetermined_stored: resolved ? undetermined - notStored : null,
    undetermined_not_stored: notStored,
    docs_failed_known: answered === null ? null : answered + (notStored || 0),
  };
}

// pass: p99 within the SLO, nothing failed, nothing dropped, everything verified, k6 not at
// the limit of the machine. slo: p99 above the SLO. failed: documents failed. unverified: the
// database does not hold what was acknowledged (the search stops). client: k6 used (nearly)
// all cores in the measured stage (measured, whatever p99 was): the load generator's CPU, not
// the database, was the limit. vus: batches were dropped while the server answered within the
// SLO and k6's CPU was not at the machine's limit (or not measured): every VU was busy, too few
// VUs for the rate. Neither says anything about the server's knee, pass or not.
export const CLIENT_CPU_SHARE = 0.9;
export const clientSaturated = (s) => typeof s.client_cpu_cores === 'number' && Boolean(s.cores) && s.client_cpu_cores >= CLIENT_CPU_SHARE * s.cores;
export function stepVerdict(s, sloMs) {
  if (!s.verified) return 'unverified';
  // (a step recorded before docs_failed_known: every failed document counts)
  if ((s.docs_failed_known ?? s.docs_failed) > 0) return 'failed';
  const p99 = s.batch_ms && s.batch_ms.p99;
  if (clientSaturated(s)) return 'client';
  if (s.dropped_iterations > 0) return p99 !== null && p99 <= sloMs ? 'vus' : 'slo';
  if (p99 === null || p99 > sloMs) return 'slo';
  return 'pass';
}

// The knee: the highest rate whose every step passed, below the lowest rate where any step
// did not pass (a pass above a failure is noise and is reported, not believed); with the steps
// repeated around it (nextRate's repeat), how sure the boundary is: per rate how many steps passed,
// and the span from the knee to the lowest rate where no step passed. Recomputable from the
// recorded steps.
export function kneeOf(steps) {
  const rates = [...new Set(steps.map((s) => s.rate))].sort((a, b) => a - b);
  const perRate = rates.map((rate) => {
    const at = steps.filter((s) => s.rate === rate);
    return { rate, steps: at.length, passed: at.filter((s) => s.verdict === 'pass').length, verdicts: at.map((s) => s.verdict) };
  });
  const firstBadRow = perRate.find((r) => r.passed < r.steps) || null;
  const firstBad = firstBadRow ? firstBadRow.rate : null;
  const below = perRate.filter((r) => r.passed === r.steps && (firstBad === null || r.rate < firstBad));
  const kneeRow = below.length ? below[below.length - 1] : null;
  // The best-measured step at the knee (the median p99 of its steps stands for it).
  const atKnee = kneeRow ? steps.filter((s) => s.rate === kneeRow.rate).sort((a, b) => (a.batch_ms.p99 ?? 0) - (b.batch_ms.p99 ?? 0)) : [];
  const best = atKnee.length ? atKnee[Math.floor((atKnee.length - 1) / 2)] : null;
  const limitedBy = firstBadRow ? firstBadRow.verdicts.find((v) => v !== 'pass') : null;
  const noPass = perRate.find((r) => firstBad !== null && r.rate >= firstBad && r.passed === 0);
  return {
    rate: best ? best.rate : null,
    docs_per_s: best ? best.docs_per_s : null,
    p99_ms: best ? best.batch_ms.p99 : null,
    first_failing_rate: firstBad,
    limited_by: limitedBy, // slo | failed | client | vus | unverified | null (no failure within the ladder)
    step: best && firstBad !== null ? firstBad - best.rate : null,
    passes_above_failure: perRate.filter((r) => firstBad !== null && r.rate > firstBad && r.passed === r.steps).map((r) => r.rate),
    per_rate: perRate,
    // Where the boundary lies: above the knee, at or below the lowest rate that never passed.
    boundary: { from: best ? best.rate : null, to: noPass ? noPass.rate : null },
    knee_runs: kneeRow ? { steps: kneeRow.steps, passed: kneeRow.passed } : null,
    failing_runs: firstBadRow ? { steps: firstBadRow.steps, passed: firstBadRow.passed } : null,
  };
}

// The adaptive ladder: coarse steps start, start·factor, … until a step does not pass (or
// max), then bisection between the last pass and the first failure until they are at most
// max(1, resolution · last pass) batches/s apart. next(steps) -> the next rate, or null.
// Then the rates at the knee, at the first failure and the lowest rate that never passed are run
// again until each has `repeat` steps (a knee that fails a repeat moves down, and the new knee
// is confirmed too).
export function nextRate(steps, { start, factor, max, resolution, repeat = 1 }) {
  if (steps.length === 0) return start;
  if (steps.some((s) => s.verdict === 'unverified')) return null;
  const k = kneeOf(steps);
  const coarse = nextLadderRate(steps, k, { factor, max, resolution });
  if (coarse !== null) return coarse;
  if (clientLimited(k) || k.first_failing_rate === null) return null;
  for (const rate of [k.rate, k.first_failing_rate, k.boundary.to]) {
    if (rate === null) continue;
    if (steps.filter((s) => s.rate === rate).length < repeat) return rate;
  }
  return null;
}

const clientLimited = (k) => k.limited_by === 'client' || k.limited_by === 'vus';

function nextLadderRate(steps, k, { factor, max, resolution }) {
  if (k.first_failing_rate === null) {
    const top = Math.max(...steps.map((s) => s.rate));
    if (top >= max) return null;
    return Math.min(max, Math.max(top + 1, Math.ceil(top * factor)));
  }
  if (clientLimited(k)) return null; // beyond this the client, not the server, is measured
  const lo = k.rate === null ? 0 : k.rate;
  const hi = k.first_failing_rate;
  if (hi - lo <= Math.max(1, Math.floor(resolution * lo))) return null;
  const mid = Math.round((lo + hi) / 2);
  if (mid <= lo || mid >= hi || steps.some((s) => s.rate === mid)) return null;
  return mid;
}

const f = (x, d = 1) => (typeof x === 'number' && Number.isFinite(x) ? x.toFixed(d) : '-');

export function capacityText(c) {
  const k = c.knee;
  const tep = testEndpointOf(c);
  const lines = [
    `k6-writepath capacity · ${tep ? `${TEST_ENDPOINT} · ` : ''}${c.target} · ${c.op} · ${c.id}`,
    ...(tep ? [`${TEST_ENDPOINT}: a k6-writepath API test server answered, not a database; this knee tests the pack (a configured knee) and measures no database.`] : []),
    `question: highest arrival rate whose p99 batch time stays within ${c.slo_ms} ms with no failed writes and no dropped iterations, k6 below ${Math.round(CLIENT_CPU_SHARE * 100)} % of the machine's cores`,
    `ladder: start ${c.ladder.start}/s ×${c.ladder.factor} up to ${c.ladder.max}/s, then bisection to ${Math.round(c.ladder.resolution * 100)} %, then the rates around the knee ${c.ladder.repeat || 1} times each; warm-up ${c.ladder.warmup}, measured ${c.ladder.hold} per step; batches of ${c.batch_size}`,
    '',
    `${'step'.padEnd(6)}${'rate/s'.padStart(8)}${'docs/s'.padStart(10)}${'MB/s'.padStart(8)}${'p50 ms'.padStart(9)}${'p90 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'max ms'.padStart(9)}${'failed'.padStart(8)}${'dropped'.padStart(9)}${'k6 cores'.padStart(10)}  verdict`,
  ];
  for (const s of [...c.steps].sort((a, b) => a.rate - b.rate)) {
    lines.push(`${String(s.n).padEnd(6)}${String(s.rate).padStart(8)}${f(s.docs_per_s, 0).padStart(10)}${f(s.mb_per_s, 2).padStart(8)}${f(s.batch_ms.median).padStart(9)}${f(s.batch_ms.p90).padStart(9)}` +
      `${f(s.batch_ms.p99).padStart(9)}${f(s.batch_ms.max).padStart(9)}${String(s.docs_failed_known ?? s.docs_failed ?? '-').padStart(8)}${String(s.dropped_iterations ?? '-').padStart(9)}${f(s.client_cpu_cores, 2).padStart(10)}  ${s.verdict}`);
  }
  for (const s of c.steps.filter((x) => x.docs_undetermined > 0)) lines.push(`  step ${s.n}: ${undeterminedText(s)}`);
  lines.push('');
  // A search stopped by a signal (scripts/capacity.mjs): its knee is of the steps done only.
  const stopped = c.interrupted;
  if (stopped) lines.push(`INTERRUPTED (${stopped.signal})${stopped.step ? ` during step ${stopped.step} at ${stopped.rate}/s, not counted` : ''}: the search is incomplete; what follows comes from the ${c.steps.length} step${c.steps.length === 1 ? '' : 's'} done`);
  if (stopped && c.steps.length === 0) {
    lines.push('knee: none — no step finished before the interruption');
  } else if (stopped && k.first_failing_rate === null) {
    lines.push(`knee: not reached before the interruption — every step up to ${k.rate} batches/s (${f(k.docs_per_s, 0)} docs/s) passed`);
  } else if (k.rate === null) {
    lines.push(`knee: none — the first step (${c.ladder.start}/s) already ${describeLimit(k.limited_by)}`);
  } else if (k.first_failing_rate === null && c.stopped) {
    lines.push(`knee: not reached — every step up to ${k.rate} batches/s (${f(k.docs_per_s, 0)} docs/s) passed; the search stopped before ${c.stopped.rate}/s: ${c.stopped.text}`);
  } else if (k.first_failing_rate === null) {
    lines.push(`knee: not reached — every step up to ${k.rate} batches/s (${f(k.docs_per_s, 0)} docs/s) passed; raise CAPACITY_MAX`);
  } else {
    lines.push(`knee (the highest rate every step of which passed): ${k.rate} batches/s = ${f(k.docs_per_s, 0)} docs/s at p99 ${f(k.p99_ms)} ms (SLO ${c.slo_ms} ms); ${failingText(k)}`);
    if (!clientLimited(k) && k.limited_by !== 'unverified') lines.push(`  how sure: ${boundaryText(k)}`);
  }
  const limitStep = c.steps.find((s) => s.rate === k.first_failing_rate && s.verdict === k.limited_by);
  const cpu = limitStep && typeof limitStep.client_cpu_cores === 'number' ? `k6 used ${limitStep.client_cpu_cores.toFixed(2)} of ${limitStep.cores} cores` : 'k6\'s CPU was not measured';
  if (k.limited_by === 'client') lines.push(`  the load generator saturated (measured: ${cpu} in the measured stage, at least ${Math.round(CLIENT_CPU_SHARE * 100)} %): this is not the database's knee — add load generators (docs/scale-out.md)`);
  if (k.limited_by === 'vus') lines.push(`  every VU was busy (dropped iterations while the server answered within the SLO; ${cpu}, not the machine's limit): too few VUs for the rate, not the database's knee — raise MAX_VUS (or MEMORY_BUDGET_MB where memory capped them)`);
  if (k.passes_above_failure.length) lines.push(`  note: ${k.passes_above_failure.join(', ')}/s passed above the first failure (noise; not counted)`);
  const unverified = c.steps.filter((s) => s.verdict === 'unverified');
  if (unverified.length) lines.push(`  VERIFICATION FAILED in step(s) ${unverified.map((s) => s.n).join(', ')}: the database does not hold what it acknowledged; the search stopped`);
  lines.push(`accounting: ${c.steps.length} steps, ${c.steps.reduce((a, s) => a + (s.docs_ok || 0), 0)} documents acknowledged in measured stages, every step verified: ${unverified.length === 0 ? 'yes' : 'NO'}`);
  return `${lines.join('\n')}\n`;
}

// A step's undetermined documents and what the verification made of them.
export function undeterminedText(s) {
  const head = `${s.docs_undetermined} documents undetermined (no answer after the whole batch was sent, or "committed, but a wait failed")`;
  if (s.undetermined_stored === null || s.undetermined_stored === undefined) return `${head}: not resolved (the run held no writepath_docs_failed_resolved), not counted failed`;
  return `${head}: ${s.undetermined_stored} resolved stored, ${s.undetermined_not_stored} not stored (counted failed: ${s.docs_failed_known} in all)`;
}

// Pass counts of the rates around the knee and where the boundary lies.
function boundaryText(k) {
  const around = k.per_rate.filter((r) => r.rate >= k.rate && (k.boundary.to === null || r.rate <= k.boundary.to));
  const counts = around.map((r) => `${r.rate}/s passed ${r.passed} of ${r.steps}`).join(', ');
  const single = around.every((r) => r.steps === 1);
  const where = k.boundary.to === null
    ? `every rate above ${k.rate}/s that ran passed at least once: the boundary lies above ${k.rate}/s, where exactly is not known`
    : `the boundary lies between ${k.boundary.from} and ${k.boundary.to} batches/s`;
  return `${counts}; ${where}${single ? ' (each rate ran once: CAPACITY_REPEAT=3 runs the rates around the knee three times)' : ''}`;
}

function describeLimit(v) {
  return { slo: 'went past the SLO', failed: 'had failed writes', client: 'hit the load generator\'s CPU limit', vus: 'ran out of VUs', unverified: 'failed verification' }[v] || 'did not pass';
}

// The first rate that did not pass every time, with its own outcomes: a rate that passed 2 of 3
// is said to have passed twice, not to have failed.
function failingText(k) {
  const row = k.per_rate.find((r) => r.rate === k.first_failing_rate);
  if (!row || row.passed === 0) return `${k.first_failing_rate}/s ${describeLimit(k.limited_by)}${row && row.steps > 1 ? ` (${row.steps} of ${row.steps} steps)` : ''}`;
  const why = [...new Set(row.verdicts.filter((v) => v !== 'pass'))].map(describeLimit).join(', ');
  return `${k.first_failing_rate}/s passed only ${row.passed} of ${row.steps} steps (the others ${why}), so it is not counted as within capacity`;
}

// One chart for one or several searches: p50 (dashed) and p99 against achieved docs/s.
export function capacityChart(runs, { title = 'Latency against throughput' } = {}) {
  const series = [];
  const marks = [];
  for (const c of runs) {
    const label = `${c.label || `${c.target} ${c.op}`}${testEndpointOf(c) ? ` (${TEST_ENDPOINT})` : ''}`;
    // One point per offered rate (the median of its steps), joined in rate order: repeated
    // steps at one rate would otherwise make the line run back and forth.
    const steps = c.steps.filter((s) => s.docs_per_s !== null);
    const rates = [...new Set(steps.map((s) => s.rate))].sort((a, b) => a - b);
    const med = (xs) => { const v = xs.filter((x) => typeof x === 'number').sort((a, b) => a - b); return v.length ? (v[(v.length - 1) >> 1] + v[v.length >> 1]) / 2 : null; };
    const perRate = (get) => rates.map((r) => { const at = steps.filter((s) => s.rate === r); return [med(at.map((s) => s.docs_per_s)), med(at.map(get))]; });
    series.push({ name: `${label} p99`, points: perRate((s) => s.batch_ms.p99) });
    series.push({ name: `${label} p50`, points: perRate((s) => s.batch_ms.median), dashed: true, color: undefined });
    if (c.knee.rate !== null) marks.push({ x: c.knee.docs_per_s, y: c.knee.p99_ms, label: `knee ${label}` });
  }
  // p50 in the p99 colour of the same run (dashed).
  const PAL = ['#3274d9', '#e0752d', '#56a64b', '#a352cc', '#c4162a', '#8f6b00', '#1f9e9e', '#555555'];
  series.forEach((s, i) => { s.color = PAL[Math.floor(i / 2) % PAL.length]; });
  const slos = [...new Set(runs.map((c) => c.slo_ms))];
  return lineChart({ title, xLabel: 'achieved docs/s (one point per offered rate: the median of its steps, joined in rate order)', yLabel: 'batch time (ms)', series, marks, sortX: false, hLines: slos.map((y) => ({ y, label: `SLO p99 ${y} ms` })) });
}

function esc(s) {
  return String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export function capacityHtml(runs, text) {
  const tep = runs.some(testEndpointOf) ? `${TEST_ENDPOINT} · ` : '';
  const title = runs.length === 1 ? `k6-writepath capacity · ${tep}${runs[0].target} · ${runs[0].op}` : `k6-writepath capacity comparison · ${tep}${runs.map((c) => `${c.label || c.target}${testEndpointOf(c) ? ` (${TEST_ENDPOINT})` : ''}`).join(' vs. ')}`;
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<style>body{font-family:sans-serif;margin:1.5em;color:#222}pre{background:#f6f6f6;padding:.8em;overflow-x:auto}</style></head><body>
<h1>${esc(title)}</h1>
<figure id="curve">${capacityChart(runs)}</figure>
<pre id="table">${esc(text)}</pre>
<p>Each point is one k6 run at a constant arrival rate (open model); x = documents acknowledged per second in the measured stage, y = batch time. The knee is the highest rate whose p99 stays within the SLO with no failed writes and no dropped iterations (docs/capacity.md).</p>
</body></html>
`;
}

// compare(A, B): both knees and the ratio of the knees' docs/s.
export function compareText(a, b) {
  const la = `${a.label || `${a.target} ${a.op}`}${testEndpointOf(a) ? ` (${TEST_ENDPOINT})` : ''}`;
  const lb = `${b.label || `${b.target} ${b.op}`}${testEndpointOf(b) ? ` (${TEST_ENDPOINT})` : ''}`;
  const w = Math.max(28, la.length + 4, lb.length + 4);
  const row = (l, c) => `${l.padEnd(w)}${String(c.knee.rate ?? '-').padStart(10)}${f(c.knee.docs_per_s, 0).padStart(12)}${f(c.knee.p99_ms).padStart(12)}${String(c.slo_ms).padStart(9)}   ${c.knee.first_failing_rate === null ? 'not reached' : c.knee.limited_by}`;
  const ratio = a.knee.docs_per_s && b.knee.docs_per_s ? a.knee.docs_per_s / b.knee.docs_per_s : null;
  const warn = [];
  if (a.slo_ms !== b.slo_ms) warn.push(`different SLOs (${a.slo_ms} vs. ${b.slo_ms} ms)`);
  if (a.batch_size !== b.batch_size) warn.push(`different batch sizes (${a.batch_size} vs. ${b.batch_size})`);
  if (a.op !== b.op) warn.push(`different operations (${a.op} vs. ${b.op})`);
  return [
    `${'capacity run'.padEnd(w)}${'knee/s'.padStart(10)}${'knee docs/s'.padStart(12)}${'p99 ms'.padStart(12)}${'SLO ms'.padStart(9)}   limited by`,
    row(`A ${la}`, a), row(`B ${lb}`, b),
    `A/B knee docs/s: ${ratio === null ? '- (a knee is missing)' : `${ratio.toFixed(2)}x`}`,
    ...(warn.length ? [`note: ${warn.join('; ')}`] : []),
    ...(testEndpointOf(a) || testEndpointOf(b) ? [`${TEST_ENDPOINT}: an API test server of this project answered for ${[a, b].filter(testEndpointOf).map((c) => c === a ? 'A' : 'B').join(' and ')}, not a database: its knee is configured, no measurement`] : []),
    '',
  ].join('\n');
}
