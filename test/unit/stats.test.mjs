// scripts/lib/stats.mjs against SciPy (run live from make test's .run/otava venv, test/python/stats_reference.py)
// and against published tables: the exact Mann–Whitney p-values (with and without ties), the
// median's distribution-free interval, the interval of the shift, Holm's adjustment, the power
// of the test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { detectableEffect, mannWhitney, maxTAdjust, maxTLevel, medianCI, pairsNeeded, pooledLogSd, power, predictionUpper, runsForMedianCI, shiftCI, signedRank, smallestP, summarize, walshCI } from '../../scripts/lib/stats.mjs';
import { repoRoot } from '../helpers/testserver.mjs';

const python = path.join(repoRoot, '.run', 'otava', 'bin', 'python');

function scipy(cases) {
  assert.ok(existsSync(python), '.run/otava is missing: make otava-deps (make test does it)');
  const r = spawnSync(python, [path.join(repoRoot, 'test', 'python', 'stats_reference.py')], { input: JSON.stringify(cases), encoding: 'utf8', maxBuffer: 1 << 26 });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

// Deterministic test data (mulberry32).
function rng(seed) {
  let s = seed >>> 0;
  return () => { s = (s + 0x6d2b79f5) >>> 0; let t = s; t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61); return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
}
const close = (a, b, tol, what) => assert.ok(Math.abs(a - b) <= tol * Math.max(1, Math.abs(b)), `${what}: ${a} vs SciPy ${b}`);

test('Mann–Whitney exact p-values equal SciPy\'s for samples without ties (1–12 values per side, all three alternatives)', () => {
  const r = rng(1);
  const cases = [];
  for (let i = 0; i < 150; i++) {
    const m = 1 + Math.floor(r() * 12); const n = 1 + Math.floor(r() * 12);
    const shift = r() * 2;
    cases.push({ kind: 'mwu', method: 'exact', alternative: ['two-sided', 'less', 'greater'][i % 3], x: Array.from({ length: m }, () => r() * 3), y: Array.from({ length: n }, () => r() * 3 + shift) });
  }
  const ref = scipy(cases);
  cases.forEach((c, i) => {
    const ours = mannWhitney(c.x, c.y, c.alternative);
    assert.equal(ours.exact, true);
    close(ours.U, ref[i].U, 1e-12, `U of case ${i}`);
    close(ours.p, ref[i].p, 1e-9, `p of case ${i} (${c.alternative}, ${c.x.length}+${c.y.length})`);
  });
});

test('with ties the p-value is the exact permutation p-value of the rank sum (SciPy permutation_test over every split)', () => {
  const r = rng(2);
  const cases = [];
  for (let i = 0; i < 60; i++) {
    const m = 2 + Math.floor(r() * 6); const n = 2 + Math.floor(r() * 6);
    // Values on a coarse grid: many ties, as rounded figures have.
    cases.push({ kind: 'perm', alternative: ['two-sided', 'less', 'greater'][i % 3], x: Array.from({ length: m }, () => Math.floor(r() * 5)), y: Array.from({ length: n }, () => Math.floor(r() * 5 + r() * 2)) });
  }
  const ref = scipy(cases);
  cases.forEach((c, i) => close(mannWhitney(c.x, c.y, c.alternative).p, ref[i].p, 1e-9, `tied case ${i} ${JSON.stringify(c)}`));
});

test('large samples use the normal approximation with tie and continuity correction, as SciPy\'s asymptotic method', () => {
  const r = rng(3);
  const cases = [];
  for (let i = 0; i < 20; i++) {
    const m = 51 + Math.floor(r() * 40); const n = 51 + Math.floor(r() * 40);
    cases.push({ kind: 'mwu', method: 'asymptotic', alternative: ['two-sided', 'less', 'greater'][i % 3], x: Array.from({ length: m }, () => Math.round(r() * 50)), y: Array.from({ length: n }, () => Math.round(r() * 50 + 3)) });
  }
  const ref = scipy(cases);
  cases.forEach((c, i) => {
    const ours = mannWhitney(c.x, c.y, c.alternative);
    assert.equal(ours.exact, false);
    close(ours.p, ref[i].p, 1e-7, `asymptotic case ${i}`);
  });
});

test('published values: R\'s wilcox.test example (W = 35, p = 0.1272) and the two-sided 5 % critical values of U', () => {
  // R documentation of wilcox.test ("Hollander & Wolfe (1973), 69f."): W = 35, p-value = 0.1272.
  const x = [0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46];
  const y = [1.15, 0.88, 0.90, 0.74, 1.21];
  const w = mannWhitney(x, y, 'greater');
  assert.equal(w.U, 35);
  assert.equal(w.p.toFixed(4), '0.1272');
  // Critical values of U for a two-sided test at 5 % (the standard Mann–Whitney table): the
  // largest U with P(U <= u) · 2 <= 0.05, for n1 = n2 = 4 … 10.
  const table = { 4: 0, 5: 2, 6: 5, 7: 8, 8: 13, 9: 17, 10: 23 };
  for (const [n, crit] of Object.entries(table).map(([k, v]) => [Number(k), v])) {
    const xs = Array.from({ length: n }, (_, i) => i);
    const pAt = (u) => {
      // n distinct values of y placed so that exactly u pairs have x > y (no ties: the table
      // is for untied samples).
      const ys = Array.from({ length: n }, (_, j) => n + j - 0.5);
      let left = u;
      for (let j = 0; j < n && left > 0; j++) { const k = Math.min(left, n); ys[j] = n - k - 0.5 - j / 1000; left -= k; }
      const r = mannWhitney(xs, ys, 'two-sided');
      assert.equal(r.U, u);
      return r.p;
    };
    assert.ok(pAt(crit) <= 0.05, `n=${n}: U=${crit} is significant`);
    assert.ok(pAt(crit + 1) > 0.05, `n=${n}: U=${crit + 1} is not`);
  }
  // The smallest possible p-values statistics.md-style statements rest on.
  assert.equal(smallestP(3, 3, 'two-sided'), 0.1);
  assert.equal(smallestP(4, 4, 'two-sided').toFixed(4), '0.0286');
  assert.equal(smallestP(5, 5).toFixed(5), (1 / 252).toFixed(5));
});

test('two identical sample sets give p = 1; clearly separated ones p = the smallest possible', () => {
  const a = [10, 12, 11, 13, 9];
  assert.equal(mannWhitney(a, [...a], 'two-sided').p, 1);
  assert.equal(mannWhitney(a, a.map((v) => v * 2), 'less').p, smallestP(5, 5));
});

test('median interval: order statistics at least 95 % (SciPy quantile_test); none below 6 values', () => {
  assert.equal(runsForMedianCI(0.95), 6);
  const r = rng(4);
  const cases = [];
  for (let n = 1; n <= 40; n++) cases.push({ kind: 'median_ci', conf: 0.95, x: Array.from({ length: n }, () => r() * 100) });
  const ref = scipy(cases);
  cases.forEach((c, i) => {
    const ours = medianCI(c.x, 0.95);
    if (ref[i].lo === null) assert.equal(ours, null, `n=${c.x.length}`);
    else {
      assert.ok(ours, `n=${c.x.length} has an interval`);
      assert.deepEqual([ours.lo, ours.hi], [ref[i].lo, ref[i].hi], `n=${c.x.length}`);
      assert.ok(ours.coverage >= 0.95);
    }
  });
  assert.equal(medianCI([1, 2, 3, 4, 5]), null);
  assert.deepEqual(summarize([3, 1, 2, 5, 4]), { n: 5, median: 3, min: 1, max: 5, ci: null });
});

test('interval of the shift: the set of shifts the two-sided exact test does not reject (inverted with SciPy)', () => {
  const r = rng(5);
  const cases = []; const cis = [];
  for (let i = 0; i < 40; i++) {
    const m = 4 + Math.floor(r() * 7); const n = 4 + Math.floor(r() * 7);
    const x = Array.from({ length: m }, () => r() * 10); const y = Array.from({ length: n }, () => r() * 10 + 2);
    const s = shiftCI(x, y, 0.95);
    assert.ok(s.ci, `${m}+${n} has a 95 % interval`);
    cis.push({ s, eps: 1e-7 });
    const alpha = 1 - s.ci.coverage;
    for (const [delta, inside] of [[s.ci.lo - 1e-7, false], [s.ci.lo + 1e-7, true], [s.ci.hi - 1e-7, true], [s.ci.hi + 1e-7, false]]) {
      cases.push({ kind: 'mwu', method: 'exact', alternative: 'two-sided', x, y: y.map((v) => v - delta), inside, alpha });
    }
  }
  const ref = scipy(cases);
  cases.forEach((c, i) => assert.equal(ref[i].p > c.alpha + 1e-12, c.inside, `case ${i}: p ${ref[i].p}, alpha ${c.alpha}`));
  // 3 + 3 values cannot give a 95 % interval (P(U = 0) = 0.05 > 0.025); 4 + 4 give the full range.
  assert.equal(shiftCI([1, 2, 3], [4, 5, 6]).ci, null);
  const four = shiftCI([1, 2, 3, 4], [5, 6, 7, 8]);
  assert.deepEqual([four.ci.lo, four.ci.hi, four.estimate], [1, 7, 4]);
});

test('signed-rank p-values of paired differences equal SciPy\'s exact wilcoxon (no ties, no zeros)', () => {
  const r = rng(7);
  const cases = [];
  for (let i = 0; i < 80; i++) {
    const n = 1 + Math.floor(r() * 14);
    cases.push({ kind: 'wilcoxon', alternative: ['two-sided', 'less', 'greater'][i % 3], d: Array.from({ length: n }, () => (r() - 0.35) * 10 + i * 1e-9) });
  }
  const ref = scipy(cases);
  cases.forEach((c, i) => close(signedRank(c.d, c.alternative).p, ref[i].p, 1e-9, `wilcoxon case ${i}`));
  assert.equal(signedRank([1, 2, 3, 4, 5]).p, 1 / 32, '5 pairs all one way: p = 2^-5');
  assert.equal(pairsNeeded(0.05), 5);
});

test('interval of paired differences: the centres the one-sample signed-rank test does not reject (inverted with SciPy)', () => {
  const r = rng(8);
  const cases = [];
  for (let i = 0; i < 30; i++) {
    const n = 5 + Math.floor(r() * 10);
    const d = Array.from({ length: n }, () => r() * 4 - 1);
    const w = walshCI(d, 0.9);
    assert.ok(w.ci, `${n} pairs have a 90 % interval`);
    const alpha = 1 - w.ci.coverage;
    for (const [c, inside] of [[w.ci.lo - 1e-7, false], [w.ci.lo + 1e-7, true], [w.ci.hi - 1e-7, true], [w.ci.hi + 1e-7, false]]) {
      cases.push({ kind: 'wilcoxon', alternative: 'two-sided', d: d.map((x) => x - c), inside, alpha });
    }
  }
  const ref = scipy(cases);
  cases.forEach((c, i) => assert.equal(ref[i].p > c.alpha + 1e-12, c.inside, `case ${i}: p ${ref[i].p}, alpha ${c.alpha}`));
  assert.equal(walshCI([1, 2, 3, 4], 0.95).ci, null, '4 pairs: no 95 % interval (2 · 2^-4 > 0.05)');
});

test('permutation adjustment over figures: one figure = its exact p; every figure\'s adjusted p = the share of permutations whose largest statistic reaches it (brute force)', () => {
  const r = rng(9);
  // Unpaired: a single figure's p is the exact one-sided Mann–Whitney p.
  for (let t = 0; t < 20; t++) {
    const base = Array.from({ length: 3 + Math.floor(r() * 4) }, () => r());
    const cand = Array.from({ length: 3 + Math.floor(r() * 4) }, () => r() + 0.3);
    const [one] = maxTAdjust([{ base, cand }], { paired: false });
    close(one.p, mannWhitney(base, cand, 'less').p, 1e-12, 'unpaired single figure');
    close(one.p_adjusted, one.p, 1e-12, 'no adjustment for one figure');
  }
  // Paired: a single figure's p is the exact signed-rank p.
  for (let t = 0; t < 20; t++) {
    const d = Array.from({ length: 4 + Math.floor(r() * 6) }, () => r() - 0.3);
    close(maxTAdjust([d], { paired: true })[0].p, signedRank(d, 'greater').p, 1e-12, 'paired single figure');
  }
  // Several figures, checked against a plain enumeration of the sign patterns.
  for (let t = 0; t < 20; t++) {
    const n = 5; const k = 2 + Math.floor(r() * 4);
    const rows = Array.from({ length: k }, () => Array.from({ length: n }, () => r() - 0.4));
    // W+ of a row with the pairs in mask flipped: ranks of |d| (no ties in random data).
    const W = (row, mask) => {
      const abs = row.map(Math.abs); const order = [...abs].sort((a, b) => a - b);
      let w = 0;
      row.forEach((x, i) => { if (((mask >> i) & 1 ? -x : x) > 0) w += order.indexOf(abs[i]) + 1; });
      return w;
    };
    const obs = rows.map((row) => W(row, 0));
    const adj = obs.map((o) => { let hits = 0; for (let mask = 0; mask < 2 ** n; mask++) if (Math.max(...rows.map((row) => W(row, mask))) >= o) hits++; return hits / 2 ** n; });
    maxTAdjust(rows, { paired: true }).forEach((x, j) => { assert.equal(x.stat, obs[j]); close(x.p_adjusted, adj[j], 1e-12, `paired maxT figure ${j}`); });
  }
  // The adjusted p-value never falls below the figure's own p, nor exceeds k times it.
  const rows = [{ base: [5, 6, 7, 8, 9], cand: [10, 11, 12, 13, 14] }, { base: [1, 3, 5, 7, 9], cand: [2, 4, 6, 8, 10] }];
  for (const x of maxTAdjust(rows, { paired: false })) assert.ok(x.p_adjusted >= x.p && x.p_adjusted <= 2 * x.p + 1e-12);
});

test('power: a shift of 0 is found at most as often as the level allows; SciPy\'s simulated power of 5 + 5 runs', () => {
  // No shift: the rate of significant results is the level's attainable part.
  assert.ok(power({ m: 5, n: 5, effect: 0, level: 0.05, sims: 4000 }) <= 0.06);
  assert.equal(power({ m: 3, n: 3, effect: 5, level: 0.01 }), 0, '3 + 3 runs cannot reach p < 0.01');
  // The figures of the background measurement: log SD 0.22 and a 25 % drop in docs/s, two-sided
  // 5 % (one-sided 2.5 %): SciPy's own simulation (3000 draws) gives 0.33; log SD 0.11: 0.88.
  const p22 = power({ m: 5, n: 5, effect: -Math.log(0.75) / 0.22, level: 0.025, sims: 4000 });
  const p11 = power({ m: 5, n: 5, effect: -Math.log(0.75) / 0.11, level: 0.025, sims: 4000 });
  assert.ok(Math.abs(p22 - 0.33) < 0.04, `${p22}`);
  assert.ok(Math.abs(p11 - 0.88) < 0.04, `${p11}`);
  const e = detectableEffect({ m: 5, n: 5, level: 0.05, target: 0.9 });
  assert.ok(power({ m: 5, n: 5, effect: e, level: 0.05 }) >= 0.9);
  assert.ok(power({ m: 5, n: 5, effect: e * 0.9, level: 0.05 }) < 0.9);
  assert.equal(detectableEffect({ m: 3, n: 3, level: 0.05 }), Infinity);
  // Paired: 5 pairs all one way are needed at 5 %, so power = Φ(effect)^5 (normal differences).
  const ep = detectableEffect({ n: 5, level: 0.05, paired: true });
  assert.ok(Math.abs(ep - 2.03) < 0.08, `${ep}`);
  assert.equal(detectableEffect({ n: 4, level: 0.05, paired: true }), Infinity);
});

test('prediction bound and pooled spread follow the t distribution and the logs (SciPy t.ppf)', () => {
  const xs = [100, 110, 95, 105, 120, 98];
  const [ref] = scipy([{ kind: 't_ppf', p: 0.995, df: 5 }]);
  const logs = xs.map(Math.log);
  const mean = logs.reduce((a, b) => a + b) / logs.length;
  const sd = Math.sqrt(logs.reduce((a, b) => a + (b - mean) ** 2, 0) / (logs.length - 1));
  close(predictionUpper(xs, 0.005), Math.exp(mean + ref.q * sd * Math.sqrt(1 + 1 / 6)), 1e-8, 'prediction bound');
  close(pooledLogSd([xs, xs.map((v) => v * 3)]), sd, 1e-12, 'pooled spread ignores the groups\' centres');
});

test('maxTLevel: the per-figure level the permutation adjustment leaves — α for figures that move as one, near α/k for unrelated ones, none when nothing can reach α', () => {
  const a = { base: [1, 2, 3, 4, 5], cand: [1.5, 2.5, 3.5, 4.5, 5.5] };
  // One figure, 5 + 5 runs: the exact one-sided Mann–Whitney level below 0.05 is P(U ≥ 21) = 12/252 (SciPy mannwhitneyu, exact).
  assert.equal(maxTLevel([a], { paired: false, alpha: 0.05 }), 12 / 252);
  assert.equal(maxTLevel([a, structuredClone(a), structuredClone(a)], { paired: false, alpha: 0.05 }), 12 / 252);
  // Three figures whose runs are in unrelated orders: a level near Bonferroni's 0.05/3, never above α.
  const unrelated = [a, { base: [5, 1, 4, 2, 3], cand: [2, 5, 1, 3, 4] }, { base: [2, 4, 1, 5, 3], cand: [4, 1, 5, 3, 2] }];
  const lv = maxTLevel(unrelated, { paired: false, alpha: 0.05 });
  assert.ok(lv < 12 / 252 && lv >= 0.05 / 3 / 2, String(lv));
  // The adjusted p-values agree: a figure is flagged exactly when its own p reaches that level.
  for (const shift of [0, 2, 3, 4, 10]) {
    const rows = unrelated.map((r, j) => (j === 0 ? { base: r.base, cand: r.cand.map((x) => x + shift) } : r));
    const adj = maxTAdjust(rows, { paired: false });
    assert.equal(adj[0].p_adjusted < 0.05, adj[0].p <= lv + 1e-12, `shift ${shift}: p ${adj[0].p}, adjusted ${adj[0].p_adjusted}, level ${lv}`);
  }
  // Paired: 5 pairs reach 2^-5 when they all agree; 4 pairs never reach 0.05.
  assert.equal(maxTLevel([[1, -2, 3, -4, 5]], { paired: true, alpha: 0.05 }), 1 / 32);
  assert.equal(maxTLevel([[1, -2, 3, -4]], { paired: true, alpha: 0.05 }), 0);
});
