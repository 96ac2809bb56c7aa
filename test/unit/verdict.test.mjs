// Verdicts over several runs (scripts/lib/verdict.mjs, scripts/lib/repeat.mjs, scripts/compare.mjs's pure parts):
// `~` for identical sets, significance for separated ones, "n=1: no significance", the gate's
// decision and refusals, the interleaved order, and the aggregate of repetitions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { aggregate, aggregateJunit, aggregateText } from '../../scripts/lib/repeat.mjs';
import { mannWhitney, shiftCI } from '../../scripts/lib/stats.mjs';
import { compareSides, contrast, detectableRegression, gateDecision, parseGateMetrics, parseTolerance, runsNeeded } from '../../scripts/lib/verdict.mjs';
import { CompareError, parseArgs, precheckGate, runOrder } from '../../scripts/compare.mjs';

// A summary.json with the figures the verdicts read; f scales every time (docs/s divides).
function summary({ docs = 50000, p50 = 20, p99 = 40, runId = 'r1', phases = ['load', 'overwrite'] } = {}) {
  return {
    tool: 'k6-writepath', run_id: runId, target: 'postgres', experiment: 'insert-vs-overwrite', passed: true,
    config: { DOCS: 1000, BATCH_SIZE: 100, SEED: 1, VUS: 2 }, ops: { load: 'insert', overwrite: 'upsert' },
    verification: { ran: true, ok: true },
    phases: phases.map((phase) => ({ phase, docs_per_s: docs, mb_per_s: docs * 0.0012, batch_ms: { min: p50 / 2, median: p50, average: p50 * 1.1, p90: p99 * 0.8, p95: p99 * 0.9, p99, max: p99 * 1.2 } })),
    ratios: { 'overwrite/load': { average: 1, median: 1, p99: 1 } },
  };
}
const side = (letter, list) => ({ letter, summaries: list });

test('two identical sets of runs: every row ~, p = 1, delta 0 %', () => {
  const runs = [50000, 52000, 48000, 51000, 49000].map((d, i) => summary({ docs: d, p50: 20 + i, p99: 40 + 2 * i }));
  const cmp = compareSides([side('A', runs), side('B', runs.map((s) => structuredClone(s)))]);
  assert.equal(cmp.figures.length, 12, '2 phases × 6 figures');
  for (const f of cmp.figures) {
    const c = f.vs.B;
    assert.equal(c.p, 1); assert.equal(c.significant, false); assert.equal(c.note, '~');
    assert.ok(Math.abs(c.delta) < 1e-12);
    assert.equal(f.sides.A.n, 5); assert.equal(f.sides.A.ci, null, 'no 95 % interval of a median from 5 runs');
  }
});

test('clearly separated runs: significant, with the exact p-value and the Hodges–Lehmann delta and interval', () => {
  const a = [50000, 52000, 48000, 51000, 49000, 50500].map((d) => summary({ docs: d }));
  const b = [30000, 31000, 29000, 30500, 29500, 30200].map((d) => summary({ docs: d }));
  const cmp = compareSides([side('A', a), side('B', b)]);
  const row = cmp.figures.find((f) => f.phase === 'load' && f.key === 'docs_per_s');
  const c = row.vs.B;
  assert.equal(c.significant, true);
  assert.equal(c.p, mannWhitney(a.map((s) => Math.log(s.phases[0].docs_per_s)), b.map((s) => Math.log(s.phases[0].docs_per_s)), 'two-sided').p);
  assert.ok(Math.abs(c.p - 2 / 924) < 1e-15, 'complete separation of 6 + 6 runs: 2 / C(12, 6)');
  const s = shiftCI(a.map((x) => Math.log(x.phases[0].docs_per_s)), b.map((x) => Math.log(x.phases[0].docs_per_s)));
  assert.equal(c.delta, Math.exp(s.estimate) - 1);
  assert.deepEqual([c.ci.lo, c.ci.hi], [Math.exp(s.ci.lo) - 1, Math.exp(s.ci.hi) - 1]);
  assert.ok(c.delta < -0.35 && c.delta > -0.45);
  assert.ok(row.sides.A.ci, '6 runs have a 95 % interval of the median');
});

test('one run per side: a delta, no p-value, "n=1: no significance"', () => {
  const c = contrast([100], [80]);
  assert.equal(c.note, 'n=1: no significance');
  assert.equal(c.p, null); assert.equal(c.significant, false);
  assert.ok(Math.abs(c.delta + 0.2) < 1e-12);
});

test('interleaved order: A B, B A, A B, … (warm-up rounds first, not counted)', () => {
  assert.deepEqual(runOrder(['A', 'B'], 3).map((r) => r.letter).join(''), 'ABBAAB');
  const w = runOrder(['A', 'B'], 2, 1);
  assert.deepEqual(w.map((r) => `${r.letter}${r.warmup ? 'w' : ''}${r.index}`), ['Aw1', 'Bw1', 'B1', 'A1', 'A2', 'B2']);
  assert.deepEqual(runOrder(['A', 'B', 'C'], 2).map((r) => r.letter).join(''), 'ABCCBA');
});

const metrics = parseGateMetrics('docs/s,p99');

test('gate: a clear regression beyond the tolerance is flagged (exit 99); the same runs against themselves pass (exit 0)', () => {
  const base = [50000, 51000, 49000, 50500, 49500].map((d, i) => summary({ docs: d, p99: 40 + i * 0.5 }));
  const slow = [35000, 36000, 34500, 35500, 34800].map((d, i) => summary({ docs: d, p99: 55 + i * 0.5 }));
  const dec = gateDecision({ base, cand: slow, metrics, tolerance: parseTolerance('10%') });
  assert.equal(dec.exit, 99, dec.why);
  assert.equal(dec.k, 4);
  for (const r of dec.rows) {
    assert.equal(r.verdict, 'REGRESSION', `${r.phase} ${r.label}`);
    assert.equal(r.p, 1 / 252, 'complete separation, one-sided 5 + 5');
    assert.ok(r.p_adjusted <= 4 / 252 + 1e-12 && r.p_adjusted >= r.p);
    assert.ok(r.regression > 0.25);
  }
  const same = gateDecision({ base, cand: base.map((s) => structuredClone(s)), metrics, tolerance: parseTolerance('10%') });
  assert.equal(same.exit, 0, same.why);
  for (const r of same.rows) assert.equal(r.verdict, 'ok');
  // A significant regression smaller than the tolerance is allowed.
  const bit = base.map((s) => { const t = structuredClone(s); for (const p of t.phases) { p.docs_per_s *= 0.95; p.batch_ms.p99 *= 1.05; } return t; });
  const within = gateDecision({ base, cand: bit, metrics, tolerance: parseTolerance('10%') });
  assert.equal(within.exit, 0, within.why);
  assert.ok(within.rows.every((r) => r.verdict === 'within tolerance'), JSON.stringify(within.rows.map((r) => r.verdict)));
});

test('gate: a spread too wide for the tolerance is "cannot detect" (exit 107), and the precheck refuses before any run', () => {
  const wide = [50000, 80000, 30000, 65000, 40000].map((d) => summary({ docs: d, p99: 2e6 / d }));
  const dec = gateDecision({ base: wide, cand: wide.map((s) => structuredClone(s)), metrics, tolerance: parseTolerance('10%') });
  assert.equal(dec.exit, 107);
  assert.match(dec.why, /^this gate cannot detect its tolerance on load docs\/s \(detects ≥ \d+ %, tolerance 10 %\)/);
  assert.match(dec.why, / — (about \d+ runs per side would at this spread: more runs|not even 64 runs per side would at this spread, so more runs do not help: steadier figures)/);
  assert.ok(dec.runs_needed === null || dec.runs_needed > 5, String(dec.runs_needed));
  const o = { paired: false, repeat: 5, alpha: 0.05, metrics, tolerance: parseTolerance('10%') };
  assert.throws(() => precheckGate(o, wide.map((summary_) => ({ summary: summary_ })), 5), (e) => e instanceof CompareError && /^--max-regression is not allowed for this gate: with 5 baseline runs of the measured spread and 5 candidate runs, load docs\/s detects ≥ \d+ % but is allowed 10 %/.test(e.message));
  // Candidate runs that exist already are judged, not refused beforehand: a regression they
  // show is flagged whatever the baseline's spread.
  assert.doesNotThrow(() => precheckGate({ ...o, candidateFolders: true }, wide.map((summary_) => ({ summary: summary_ })), 5));
  // 3 + 3 runs can never reach p < 0.05 (1/C(6,3) = 0.05): refused whatever the spread or figures.
  const refused = (fn, re) => assert.throws(fn, (e) => e instanceof CompareError && re.test(e.message));
  refused(() => precheckGate({ ...o, repeat: 3 }, null, 3), /^--repeat 3 is not allowed for this gate: 3 baseline and 3 candidate runs cannot reach significance at α = 0.05 \(the smallest p-value is 1\/C\(6,3\)\)/);
  assert.doesNotThrow(() => precheckGate({ ...o, repeat: 4 }, null, 3));
  // Paired: 5 pairs reach 2^-5 = 0.031 < 0.05 (with several figures too, when they move as one); 4 pairs never.
  assert.doesNotThrow(() => precheckGate({ ...o, paired: true }, null, 5));
  refused(() => precheckGate({ ...o, paired: true, repeat: 4 }, null, 4), /4 pairs cannot reach significance/);
});

test('gate: the runs per side that would see the tolerance grow with the spread and fall with the tolerance', () => {
  const n = (sd, tol, level = 0.05, paired = false) => runsNeeded({ better: 'higher', sd, tol, level, paired });
  assert.ok(n(0.01, 0.1) <= 5, 'a spread of 1 % sees 10 % with few runs');
  const seq = [0.02, 0.04, 0.06, 0.1].map((sd) => n(sd, 0.1));
  for (let i = 1; i < seq.length; i++) assert.ok(seq[i] >= seq[i - 1], String(seq));
  assert.ok(n(0.06, 0.2) <= n(0.06, 0.1));
  assert.equal(n(1, 0.05), null, 'a 100 % spread never sees 5 % within 64 runs');
  // The gate's own "detects" at that many runs is within the tolerance (the exact tests up to 10 runs).
  const k = n(0.04, 0.15, 0.0159);
  assert.ok(k <= 10 && detectableRegression({ better: 'higher', sd: 0.04, nb: k, nc: k, level: 0.0159 }) <= 0.15);
  assert.ok(detectableRegression({ better: 'higher', sd: 0.04, nb: k - 1, nc: k - 1, level: 0.0159 }) > 0.15);
});

test('gate: what it can detect follows how the gated figures move together (the permutation adjustment, not Bonferroni)', () => {
  // Five runs per side whose docs/s and p99 of both phases move as one (p99 = 2e6 / docs/s).
  const spread = [50000, 52000, 48500, 51000, 49000];
  const base = spread.map((d) => summary({ docs: d, p99: 2e6 / d }));
  const cand = [49500, 51500, 50500, 48000, 52500].map((d) => summary({ docs: d, p99: 2e6 / d }));
  const one = gateDecision({ base, cand, metrics: parseGateMetrics('load:docs/s'), tolerance: parseTolerance('10%') });
  const four = gateDecision({ base, cand, metrics, tolerance: parseTolerance('10%') });
  assert.equal(one.k, 1); assert.equal(four.k, 4);
  assert.equal(one.level, 12 / 252, 'one figure: the exact one-sided 5 + 5 level below 0.05 (U ≥ 21)');
  assert.equal(four.level, one.level, 'four figures that move as one: no loss to the adjustment');
  const det = (d) => d.rows.find((r) => r.phase === 'load' && r.key === 'docs_per_s').detectable;
  assert.equal(det(four), det(one));
  // The same spread, figures that do not move together: the level falls towards 0.05/4, what it detects grows.
  const mixed = base.map((s, i) => { const t = structuredClone(s); t.phases[1].docs_per_s = spread[(i + 2) % 5]; t.phases[1].batch_ms.p99 = 2e6 / spread[(i + 4) % 5] * (1 + i / 50); t.phases[0].batch_ms.p99 = 2e6 / spread[(i + 1) % 5]; return t; });
  const loose = gateDecision({ base: mixed, cand, metrics, tolerance: parseTolerance('10%') });
  assert.ok(loose.level < one.level && loose.level >= 0.05 / 4 - 0.01, String(loose.level));
  assert.ok(det(loose) >= det(one), `${det(loose)} ${det(one)}`);
});

test('bad gate options: one line naming the option, the value and what is allowed', () => {
  const bad = (argv, re) => assert.throws(() => parseArgs(argv), (e) => e instanceof CompareError && re.test(e.message) && !e.message.includes('\n'));
  bad(['--gate', '--baseline', 'results/x', '--max-regression', 'ten', 'a.js'], /^--max-regression "ten" is not allowed: a share in percent such as 10%/);
  bad(['--gate', '--baseline', 'results/x', '--max-regression', '0%', 'a.js'], /each share above 0 %/);
  bad(['--gate', '--baseline', 'results/x', '--max-regression', 'p98=5%', 'a.js'], /"p98" is no figure/);
  bad(['--gate', '--baseline', 'results/x', '--metrics', 'speed', 'a.js'], /^--metrics "speed" is not allowed/);
  bad(['--alpha', '0.5', 'a', 'b'], /^--alpha 0.5 is not allowed: a significance level above 0 and at most 0.2/);
  bad(['--alpha', 'x', 'a', 'b'], /^--alpha x is not allowed/);
  bad(['--repeat', '0', 'a', 'b'], /^--repeat 0 is not allowed: a whole number from 1 to 99/);
  bad(['--repeat', '100', 'a', 'b'], /^--repeat 100 is not allowed/);
  bad(['--gate', 'a.js'], /^--gate needs --baseline/);
  bad(['--gate', '--baseline', 'results/does-not-exist', 'scenarios/postgres/insert-vs-overwrite.js'], /^--baseline results\/does-not-exist is not allowed: a scenario file \(run now, interleaved with the candidate\) or result folders with summary.json/);
  bad(['--max-regression', '10%', 'a', 'b'], /^--max-regression is an option of --gate$/);
  assert.deepEqual(parseTolerance('10%,p99=40%'), { default: 0.1, byFigure: { p99: 0.4 } });
  assert.deepEqual(parseGateMetrics('docs/s,overwrite:p99').map((m) => `${m.phase}:${m.key}`), ['null:docs_per_s', 'overwrite:batch_p99_ms']);
});

test('aggregate of repetitions: per phase and figure the values in order, median, min–max, interval from 6 on; ratios from each repetition', () => {
  const reps = [50000, 40000, 60000, 45000, 55000, 52000].map((d, i) => ({ run_id: `x_r0${i + 1}`, dir: `x_r0${i + 1}`, exit: 0, summary: { ...summary({ docs: d, runId: `x_r0${i + 1}` }), ratios: { 'overwrite/load': { average: 1 + i / 10, median: 1, p99: 2 } } } }));
  reps.push({ run_id: 'x_r07', dir: 'x_r07', exit: 108, summary: null });
  const agg = aggregate(reps, { runId: 'x' });
  assert.equal(agg.n, 7); assert.equal(agg.n_with_results, 6);
  const d = agg.phases[0].metrics.docs_per_s;
  assert.deepEqual(d.values, [50000, 40000, 60000, 45000, 55000, 52000]);
  assert.deepEqual([d.n, d.median, d.min, d.max], [6, 51000, 40000, 60000]);
  assert.deepEqual([d.ci.lo, d.ci.hi], [40000, 60000], '6 values: the 95 % interval is min–max (coverage 1 − 2/64)');
  assert.deepEqual(agg.ratios['overwrite/load'].average.values.map((v) => +v.toFixed(1)), [1, 1.1, 1.2, 1.3, 1.4, 1.5]);
  assert.equal(agg.passed, false, 'a repetition without results fails the aggregate');
  assert.match(agg.repetitions[6].why, /^no summary.json \(k6 exit 108/);
  const text = aggregateText(agg);
  assert.match(text, /^load\s+insert\s+docs\/s\s+6\s+51000\s+40000 – 60000\s+40000 – 60000$/m);
  assert.match(text, /overwrite\/load ratio, median of the 6 repetitions' own ratios \(n=6\): average 1\.25x/);
  const junit = aggregateJunit(agg);
  assert.match(junit, /<testsuites tests="7" failures="1">/);
  assert.match(junit, /name="repetition 7 of 7 \(run x_r07\): thresholds and verification"><failure message="no summary.json/);
  // Repetitions of different workloads are refused.
  const other = { ...reps[1], summary: { ...reps[1].summary, config: { ...reps[1].summary.config, SEED: 9 } } };
  assert.throws(() => aggregate([reps[0], other]), /the repetitions do not share one workload: SEED x_r01=1 x_r02=9/);
});

test('gate: a gate of docs/s and p50 that cannot see its tolerance is not told to gate docs/s and p50', () => {
  const wide = [50000, 80000, 30000, 65000, 40000].map((d) => summary({ docs: d, p99: 2e6 / d }));
  const steady = parseGateMetrics('docs/s,p50');
  const dec = gateDecision({ base: wide, cand: wide.map((s) => structuredClone(s)), metrics: steady, tolerance: parseTolerance('10%') });
  assert.equal(dec.exit, 107);
  assert.doesNotMatch(dec.why, /--metrics docs\/s,p50/);
  assert.match(dec.why, /or a larger tolerance for them \(--max-regression figure=X%\)$/);
});

test('aggregate: a repetition stopped short with its count held is NOT VERIFIED (interrupted), one whose count did not hold FAILED', () => {
  const rep = (i, exit, verification) => ({ run_id: `v_r0${i}`, dir: `v_r0${i}`, exit, summary: { ...summary({ runId: `v_r0${i}` }), passed: exit === 0, verification } });
  const agg = aggregate([
    rep(1, 0, { ran: true, ok: true, count_ok: true, readback_ok: true }),
    rep(2, 105, { ran: true, ok: false, partial: true, count_ok: true, readback_ok: null }),
    rep(3, 105, { ran: true, ok: false, partial: true, count_ok: false, readback_ok: null }),
    rep(4, 99, { ran: false, why: 'teardown did not finish' }),
  ], { runId: 'v' });
  assert.deepEqual(agg.repetitions.map((r) => [r.verification, r.interrupted]), [['verified', false], ['not verified', true], ['failed', true], ['not verified', false]]);
  const text = aggregateText(agg);
  assert.match(text, /^verification: 1 of 4 repetitions verified \(count and read-back\); NOT VERIFIED: v_r02 \(interrupted\), v_r04 — FAILED: v_r03 \(interrupted\)$/m);
  assert.match(text, /v_r02 \(interrupted \(k6 exit 105\); NOT VERIFIED: the run stopped before its plan finished\)/);
  assert.match(text, /v_r03 \(interrupted \(k6 exit 105\); verification FAILED\)/);
  assert.match(text, /v_r04 \(NOT VERIFIED: did not run: teardown did not finish\)/);
  assert.match(text, /^\s+MB\/s\s+4\s/m, 'MB/s applies to documents');
});
