// Statistics of the verdicts (docs/results.md "Repeat, compare, gate"): medians with
// distribution-free confidence intervals, the Mann–Whitney U test with exact p-values, the
// Hodges–Lehmann shift with its distribution-free interval, the signed-rank test of paired
// runs, permutation control of the false-alarm rate over several figures, and the regression a
// test of N runs per side can detect. Node only (the verdict scripts import it; k6 never does):
// distributions come from jstat (npm, pinned in package.json). What is ours — the exact null
// distributions of the rank statistics, the order statistics that bound an interval, the
// permutation adjustment — is small and tested against SciPy (test/unit/stats.test.mjs runs
// scipy.stats from make test's .run/otava venv) and against published tables.
import { requirePinned } from './deps.mjs';

// Installed on first use when a fresh clone has no node_modules yet (scripts/lib/deps.mjs).
const { jStat } = requirePinned('jstat', 'the statistics of the verdicts and the history (jstat)');

const finite = (xs) => xs.filter((x) => typeof x === 'number' && Number.isFinite(x));
const sorted = (xs) => [...xs].sort((a, b) => a - b);

export function median(xs) {
  const v = finite(xs);
  return v.length ? jStat.median(v) : null;
}

// Sample standard deviation of the natural logs (the run-to-run spread as a share: 0.1 ≈ 10 %).
// null with fewer than 2 positive values.
export function logSd(xs) {
  const v = finite(xs).filter((x) => x > 0).map(Math.log);
  return v.length >= 2 ? jStat.stdev(v, true) : null;
}

// Sample standard deviation (null below 2 values).
export function sampleSd(xs) {
  const v = finite(xs);
  return v.length >= 2 ? jStat.stdev(v, true) : null;
}

// Pooled within-group SD of logs of several groups (each group's own centre removed).
export function pooledLogSd(groups) {
  return pooledSd(groups.map((g) => finite(g).filter((x) => x > 0).map(Math.log)));
}

// Pooled within-group SD of several groups of values.
export function pooledSd(groups) {
  let ss = 0; let df = 0;
  for (const g of groups) {
    const v = finite(g);
    if (v.length < 2) continue;
    const m = jStat.mean(v);
    ss += v.reduce((a, x) => a + (x - m) ** 2, 0);
    df += v.length - 1;
  }
  return df > 0 ? Math.sqrt(ss / df) : null;
}

// Distribution-free confidence interval of the median from order statistics (as benchstat
// and scipy.stats.quantile_test do): [x(k), x(n+1-k)] with the largest k such that
// P(Binomial(n, 1/2) < k) <= (1 - conf)/2. Its coverage is at least conf. With 95 %
// confidence it needs n >= 6 (2 · 0.5^5 > 0.05): null below that.
export function medianCI(xs, conf = 0.95) {
  const v = sorted(finite(xs));
  const n = v.length;
  const tail = (1 - conf) / 2;
  let k = 0;
  while (k + 1 <= n && jStat.binomial.cdf(k, n, 0.5) <= tail) k++;
  if (k === 0) return null;
  return { lo: v[k - 1], hi: v[n - k], coverage: 1 - 2 * jStat.binomial.cdf(k - 1, n, 0.5), k };
}

// The fewest values for which medianCI exists at this confidence.
export function runsForMedianCI(conf = 0.95) {
  for (let n = 1; n < 1000; n++) if (2 * 0.5 ** n <= 1 - conf) return n;
  return null;
}

// Median, min, max and the interval of a list of per-run values.
export function summarize(xs, conf = 0.95) {
  const v = finite(xs);
  if (!v.length) return { n: 0, median: null, min: null, max: null, ci: null };
  return { n: v.length, median: median(v), min: Math.min(...v), max: Math.max(...v), ci: medianCI(v, conf) };
}

// Midranks (1-based) of the pooled values: ties share the mean of their ranks.
export function midranks(values) {
  const idx = values.map((v, i) => [v, i]).sort((a, b) => a[0] - b[0]);
  const r = new Array(values.length);
  for (let i = 0; i < idx.length;) {
    let j = i;
    while (j + 1 < idx.length && idx[j + 1][0] === idx[i][0]) j++;
    const mid = (i + j + 2) / 2;
    for (let t = i; t <= j; t++) r[idx[t][1]] = mid;
    i = j + 1;
  }
  return r;
}

// Exact permutation distribution of the rank sum of m values drawn from the pooled midranks:
// counts[s] = number of m-subsets whose doubled rank sum is s (doubling makes midranks
// integers). Exact with ties, as a permutation test over all C(m+n, m) splits would be.
function rankSumCounts(ranks, m) {
  const doubled = ranks.map((r) => Math.round(2 * r));
  const total = doubled.reduce((a, b) => a + b, 0);
  // ways[j][s]: j items chosen so far with doubled sum s (rolling over the items).
  let ways = Array.from({ length: m + 1 }, () => new Float64Array(total + 1));
  ways[0][0] = 1;
  for (const d of doubled) {
    for (let j = m; j >= 1; j--) {
      const to = ways[j]; const from = ways[j - 1];
      for (let s = total; s >= d; s--) if (from[s - d]) to[s] += from[s - d];
    }
  }
  return ways[m];
}

const EXACT_MAX_N = 100;

// Mann–Whitney U test of x against y. alternative: 'two-sided', 'less' (x tends to be smaller
// than y), 'greater' (x tends to be larger). Returns U of x (pairs where x > y, ties 1/2) and
// the p-value: exact (the permutation distribution of the midrank sum, valid with ties) when
// m + n <= 100, otherwise the normal approximation with tie correction and continuity
// correction (scipy.stats.mannwhitneyu's 'asymptotic').
export function mannWhitney(x, y, alternative = 'two-sided') {
  const a = finite(x); const b = finite(y);
  const m = a.length; const n = b.length;
  if (m === 0 || n === 0) return { U: null, p: null, exact: false };
  const r = midranks([...a, ...b]);
  const R1 = r.slice(0, m).reduce((s, v) => s + v, 0);
  const U = R1 - (m * (m + 1)) / 2;
  let pLess; let pGreater; let exact;
  const tied = new Set([...a, ...b]).size < m + n;
  if (m + n <= EXACT_MAX_N && !tied) {
    // No ties: the classic distribution of U (cached per m, n).
    exact = true;
    const cdf = uCdf(m, n);
    const u = Math.round(U);
    pLess = cdf[u];
    pGreater = u > 0 ? 1 - cdf[u - 1] : 1;
  } else if (m + n <= EXACT_MAX_N) {
    exact = true;
    const counts = rankSumCounts(r, m);
    const all = counts.reduce((s, v) => s + v, 0);
    const obs = Math.round(2 * R1);
    let le = 0; let ge = 0;
    for (let s = 0; s < counts.length; s++) {
      if (!counts[s]) continue;
      if (s <= obs) le += counts[s];
      if (s >= obs) ge += counts[s];
    }
    pLess = le / all; pGreater = ge / all;
  } else {
    exact = false;
    const N = m + n;
    const ties = new Map();
    for (const v of [...a, ...b]) ties.set(v, (ties.get(v) || 0) + 1);
    const tieTerm = [...ties.values()].reduce((s, t) => s + (t ** 3 - t), 0);
    const sd = Math.sqrt((m * n / 12) * ((N + 1) - tieTerm / (N * (N - 1))));
    const mu = (m * n) / 2;
    pGreater = sd > 0 ? 1 - jStat.normal.cdf((U - mu - 0.5) / sd, 0, 1) : 1;
    pLess = sd > 0 ? jStat.normal.cdf((U - mu + 0.5) / sd, 0, 1) : 1;
  }
  const p = alternative === 'less' ? pLess : alternative === 'greater' ? pGreater : Math.min(1, 2 * Math.min(pLess, pGreater));
  return { U, p, exact };
}

// The null distribution of U without ties for m and n values: counts[u], u = 0 … m·n
// (the classic recursion; used for the interval of the shift, as R's wilcox.test does).
function uCounts(m, n) {
  // f[i][j][u] rolled over j: counts for i of x and j of y.
  const size = m * n + 1;
  let prev = Array.from({ length: m + 1 }, (_, i) => { const c = new Float64Array(size); c[0] = 1; return c; });
  for (let j = 1; j <= n; j++) {
    const cur = [new Float64Array(size)]; cur[0][0] = 1;
    for (let i = 1; i <= m; i++) {
      const c = new Float64Array(size);
      // U(i, j) = U(i-1, j) + j when the largest value is an x (it beats all j y's),
      //         = U(i, j-1)     when it is a y.
      for (let u = 0; u < size; u++) {
        let v = prev[i][u];
        if (u >= j) v += cur[i - 1][u - j];
        c[u] = v;
      }
      cur.push(c);
    }
    prev = cur;
  }
  return prev[m];
}

const U_CDF = new Map();
function uCdf(m, n) {
  const key = `${m},${n}`;
  if (!U_CDF.has(key)) {
    const counts = uCounts(m, n);
    const all = counts.reduce((s, v) => s + v, 0);
    let cum = 0;
    U_CDF.set(key, Array.from(counts, (c) => { cum += c; return Math.min(1, cum / all); }));
  }
  return U_CDF.get(key);
}

// Hodges–Lehmann estimate of the shift of y against x (the median of all y_j − x_i) and its
// distribution-free confidence interval (Moses; the interval R's wilcox.test(conf.int = TRUE)
// gives with exact = TRUE): [D(c), D(mn+1−c)] of the sorted differences, with the largest c
// such that P(U <= c − 1) <= (1 − conf)/2 under the no-ties null distribution. ci is null when
// no such c exists (3 + 3 values at 95 %). Pass logs to get a ratio: exp(shift).
export function shiftCI(x, y, conf = 0.95) {
  const a = finite(x); const b = finite(y);
  const m = a.length; const n = b.length;
  if (!m || !n) return { estimate: null, ci: null };
  const d = [];
  for (const xi of a) for (const yj of b) d.push(yj - xi);
  d.sort((p, q) => p - q);
  const estimate = jStat.median(d);
  if (m + n > EXACT_MAX_N) {
    // Normal approximation of the rank of the bound (as R does for large samples).
    const z = jStat.normal.inv(1 - (1 - conf) / 2, 0, 1);
    const c = Math.max(1, Math.floor((m * n) / 2 - z * Math.sqrt((m * n * (m + n + 1)) / 12)));
    return { estimate, ci: { lo: d[c - 1], hi: d[m * n - c], coverage: conf } };
  }
  const counts = uCounts(m, n);
  const all = counts.reduce((s, v) => s + v, 0);
  const tail = (1 - conf) / 2;
  let cum = 0; let c = 0;
  for (let u = 0; u < counts.length; u++) {
    if ((cum + counts[u]) / all > tail) break;
    cum += counts[u];
    c = u + 1;
  }
  if (c === 0) return { estimate, ci: null };
  return { estimate, ci: { lo: d[c - 1], hi: d[m * n - c], coverage: 1 - (2 * cum) / all } };
}

// The smallest p-value a one-sided (two-sided: twice that) exact Mann–Whitney test of m and n
// values can give: 1 / C(m + n, m).
export function smallestP(m, n, alternative = 'less') {
  let c = 1;
  for (let i = 1; i <= m; i++) c = (c * (n + i)) / i;
  return (alternative === 'two-sided' ? 2 : 1) / c;
}

// Exact null distribution of the Wilcoxon signed-rank statistic W+ of n pairs without ties or
// zeros: counts[w], w = 0 … n(n+1)/2 (subsets of the ranks 1 … n by their sum).
function wCounts(n) {
  const top = (n * (n + 1)) / 2;
  const c = new Float64Array(top + 1); c[0] = 1;
  for (let r = 1; r <= n; r++) for (let w = top; w >= r; w--) c[w] += c[w - r];
  return c;
}

// Wilcoxon signed-rank test of paired differences d (H1 'greater': d tends to be above 0):
// W+ = sum of the midranks of |d| over the positive d (zeros are ranked, never positive: Pratt);
// the p-value is exact — every one of the 2^n sign patterns (n <= 20; above, the normal
// approximation with continuity correction). Same answers as scipy.stats.wilcoxon's exact
// method for differences without ties or zeros.
export function signedRank(d, alternative = 'greater') {
  const v = finite(d);
  const n = v.length;
  if (!n) return { W: null, p: null };
  const r = midranks(v.map(Math.abs));
  const W = v.reduce((s, x, i) => s + (x > 0 ? r[i] : 0), 0);
  let pG; let pL;
  if (n <= 20) {
    const counts = signFlipCounts(v, r);
    const all = 2 ** n;
    const obs = Math.round(2 * W);
    let ge = 0; let le = 0;
    for (let s = 0; s < counts.length; s++) { if (s >= obs) ge += counts[s]; if (s <= obs) le += counts[s]; }
    pG = ge / all; pL = le / all;
  } else {
    const mu = (n * (n + 1)) / 4;
    const sd = Math.sqrt((n * (n + 1) * (2 * n + 1)) / 24);
    pG = 1 - jStat.normal.cdf((W - mu - 0.5) / sd, 0, 1);
    pL = jStat.normal.cdf((W - mu + 0.5) / sd, 0, 1);
  }
  const p = alternative === 'less' ? pL : alternative === 'greater' ? pG : Math.min(1, 2 * Math.min(pL, pG));
  return { W, p };
}

// counts[s]: sign patterns whose doubled W+ is s (nonzero d can be either sign; zeros add 0).
function signFlipCounts(v, r) {
  const doubled = r.map((x, i) => (v[i] === 0 ? 0 : Math.round(2 * x)));
  const top = doubled.reduce((a, b) => a + b, 0);
  const c = new Float64Array(top + 1); c[0] = 1;
  for (const d of doubled) {
    if (d === 0) { for (let s = 0; s <= top; s++) c[s] *= 2; continue; }
    for (let s = top; s >= d; s--) c[s] += c[s - d];
  }
  return c;
}

// Hodges–Lehmann estimate of the centre of paired differences (the median of the Walsh
// averages (d_i + d_j)/2, i <= j) and its distribution-free interval from the signed-rank
// distribution (the interval R's wilcox.test(conf.int = TRUE) gives for one sample); null when
// n is too small for the confidence (5 pairs: 90 % at most 1 − 2/32).
export function walshCI(d, conf = 0.9) {
  const v = finite(d);
  const n = v.length;
  if (!n) return { estimate: null, ci: null };
  const w = [];
  for (let i = 0; i < n; i++) for (let j = i; j < n; j++) w.push((v[i] + v[j]) / 2);
  w.sort((a, b) => a - b);
  const estimate = jStat.median(w);
  const M = w.length;
  let c = 0; let cum = 0;
  if (n > 20) {
    const z = jStat.normal.inv(1 - (1 - conf) / 2, 0, 1);
    c = Math.max(0, Math.floor((n * (n + 1)) / 4 - z * Math.sqrt((n * (n + 1) * (2 * n + 1)) / 24)));
    cum = (1 - conf) / 2;
  } else {
    const counts = wCounts(n);
    const all = 2 ** n;
    const tail = (1 - conf) / 2;
    for (let k = 0; k < counts.length; k++) { if ((cum + counts[k]) / all > tail) break; cum += counts[k]; c = k + 1; }
    cum /= all;
  }
  if (c === 0) return { estimate, ci: null };
  return { estimate, ci: { lo: w[c - 1], hi: w[M - c], coverage: 1 - 2 * cum } };
}

// The fewest pairs a one-sided exact signed-rank test needs to reach p <= level (2^−n <= level).
export function pairsNeeded(level) {
  let n = 1;
  while (2 ** -n > level) n++;
  return n;
}

// Family-wise control over several figures by permutation (Westfall & Young's single-step
// maxT): each figure's statistic is recomputed under every permutation of the data — every sign
// pattern of the pairs (paired) or every split of the runs into baseline and candidate
// (unpaired) — and a figure's adjusted p-value is the share of permutations in which the
// largest statistic of ANY figure reaches that figure's observed one. The false-alarm rate
// over all figures stays at most α whatever their correlation, and figures that move together
// (as a slower database moves docs/s and p99 of every phase) lose little power to the
// adjustment. All figures share one scale (ranks), so maxT equals minP here.
//   paired:   rows[j] = differences of figure j, one per pair (positive = regression)
//   unpaired: rows[j] = { base: [...], cand: [...] } (larger = worse)
// -> [{ stat, p, p_adjusted }] per figure; exact enumeration up to `maxPerms`, else a seeded
// random sample of permutations (p = (1 + hits)/(1 + draws)).
export function maxTAdjust(rows, { paired, maxPerms = 200000, draws = 20000, seed = 26 }) {
  const figs = rankedFigures(rows, paired);
  const observed = figs.map((f) => f.stat(f.observedPerm));
  const hitsMax = new Array(figs.length).fill(0); const hitsOwn = new Array(figs.length).fill(0);
  let total = 0;
  const exact = enumeratePerms(figs[0], { maxPerms, draws, seed }, (perm) => {
    total++;
    let mx = -Infinity;
    const s = figs.map((f) => f.stat(perm));
    for (const x of s) if (x > mx) mx = x;
    s.forEach((x, j) => { if (mx >= observed[j] - 1e-9) hitsMax[j]++; if (x >= observed[j] - 1e-9) hitsOwn[j]++; });
  });
  return observed.map((s, j) => ({ stat: s, p: hitsOwn[j] / total, p_adjusted: hitsMax[j] / total, exact }));
}

// The per-figure level that maxTAdjust leaves at the figures' own correlation: it flags a
// figure when that figure's statistic reaches c, the smallest value that the largest statistic
// over all figures reaches in fewer than α of the permutations of the centred data (each side's
// mean, or the pairs' mean difference, taken out: data with no regression and the measured
// co-movement). The level returned is the share of permutations in which one figure without ties
// reaches c: α for figures that move as one, about α/k for k unrelated ones (Bonferroni). The
// smallest regression the gate can detect is then the one-figure test's at this level — an
// approximation (a shifted figure's ranks move its permutation distribution a little), but
// neither the Bonferroni bound's pessimism for figures that move together nor a single test's
// optimism for figures that do not. rows: as maxTAdjust. -> level (0 when nothing can reach α).
export function maxTLevel(rows, { paired, alpha, maxPerms = 200000, draws = 20000, seed = 26 }) {
  const mean = (xs) => xs.reduce((a, x) => a + x, 0) / xs.length;
  const centred = rows.map((row) => (paired ? row.map((x) => x - mean(row)) : { base: row.base.map((x) => x - mean(row.base)), cand: row.cand.map((x) => x - mean(row.cand)) }));
  // Ties among centred values (equal spreads) are broken by position: the statistic's
  // permutation distribution is then the tie-free one of the reference figure below.
  const figs = rankedFigures(centred, paired, true);
  // The one-figure reference: distinct values, all in the direction of a regression.
  const n = paired ? figs[0].n : figs[0].nb + figs[0].nc;
  const ideal = rankedFigures([paired ? Array.from({ length: n }, (_, i) => i + 1) : { base: Array.from({ length: figs[0].nb }, (_, i) => i), cand: Array.from({ length: figs[0].nc }, (_, i) => figs[0].nb + i) }], paired)[0];
  const maxes = []; const single = [];
  enumeratePerms(figs[0], { maxPerms, draws, seed }, (perm) => {
    let mx = -Infinity;
    for (const f of figs) { const x = f.stat(perm); if (x > mx) mx = x; }
    maxes.push(mx); single.push(ideal.stat(perm));
  });
  const share = (xs, c) => xs.filter((x) => x >= c - 1e-9).length / xs.length;
  const candidates = [...new Set(maxes)].sort((a, b) => a - b);
  const c = candidates.find((v) => share(maxes, v) < alpha);
  return c === undefined ? 0 : share(single, c);
}

// Per figure its ranks and its statistic under a permutation (see maxTAdjust): paired, the
// signed-rank sum of the pairs not flipped; unpaired, the candidate's Mann–Whitney U.
function rankedFigures(rows, paired, ordinal = false) {
  const rank = ordinal ? ordinalRanks : midranks;
  return rows.map((row) => {
    if (paired) {
      const v = row.map((x) => (typeof x === 'number' && Number.isFinite(x) ? x : 0));
      const r = rank(v.map(Math.abs));
      const weight = v.map((x, i) => (x === 0 ? 0 : r[i])); const sign = v.map((x) => (x > 0 ? 1 : x < 0 ? -1 : 0));
      return { n: v.length, paired, observedPerm: new Array(v.length).fill(false),
        stat: (perm) => { let w = 0; for (let k = 0; k < v.length; k++) if (sign[k] * (perm[k] ? -1 : 1) > 0) w += weight[k]; return w; } };
    }
    const nb = row.base.length; const nc = row.cand.length;
    const ranks = rank([...row.base, ...row.cand]);
    return { nb, nc, paired, observedPerm: Array.from({ length: nc }, (_, i) => nb + i),
      stat: (perm) => { let rs = 0; for (const i of perm) rs += ranks[i]; return rs - (nc * (nc + 1)) / 2; } };
  });
}

// Ranks 1..n, equal values in the order given.
function ordinalRanks(values) {
  const r = new Array(values.length);
  values.map((v, i) => [v, i]).sort((a, b) => a[0] - b[0] || a[1] - b[1]).forEach(([, i], k) => { r[i] = k + 1; });
  return r;
}

// Every permutation (paired: sign pattern; unpaired: choice of the candidate's places) when
// there are at most maxPerms, else the observed one and `draws` seeded random ones; visit(perm)
// for each. -> true when exact.
function enumeratePerms(f, { maxPerms, draws, seed }, visit) {
  const n = f.paired ? f.n : f.nb + f.nc;
  const count = f.paired ? 2 ** n : binom(n, f.nc);
  if (count <= maxPerms) {
    if (f.paired) for (let mask = 0; mask < count; mask++) visit(Array.from({ length: n }, (_, k) => Boolean(mask & (1 << k))));
    else combinations(n, f.nc, visit);
    return true;
  }
  const rnd = uniform(seed);
  visit(f.observedPerm);
  for (let t = 0; t < draws; t++) {
    if (f.paired) visit(Array.from({ length: n }, () => rnd() < 0.5));
    else { const idx = Array.from({ length: n }, (_, i) => i); for (let i = n - 1; i > 0; i--) { const j = Math.floor(rnd() * (i + 1)); [idx[i], idx[j]] = [idx[j], idx[i]]; } visit(idx.slice(0, f.nc)); }
  }
  return false;
}

function binom(n, k) { let c = 1; for (let i = 1; i <= k; i++) c = (c * (n - k + i)) / i; return Math.round(c); }
function combinations(n, k, fn) {
  const idx = Array.from({ length: k }, (_, i) => i);
  for (;;) {
    fn(idx.slice());
    let i = k - 1;
    while (i >= 0 && idx[i] === n - k + i) i--;
    if (i < 0) return;
    idx[i]++;
    for (let j = i + 1; j < k; j++) idx[j] = idx[j - 1] + 1;
  }
}

// Seeded uniform numbers (mulberry32) for the power simulation: the same answer every time.
function uniform(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Probability that a one-sided exact Mann–Whitney test at level `level` finds a shift of
// `effect` standard deviations between m and n normal values (on the log scale: log-normal
// run-to-run spread). Rank tests are invariant to monotone transforms, so only effect/sd
// matters. Simulated with a fixed seed and common random numbers (monotone in effect).
export function power({ m, n, effect, level, sims = 2000, seed = 26 }) {
  if (smallestP(m, n) > level) return 0;
  const rnd = uniform(seed);
  const z = () => jStat.normal.inv(Math.min(1 - 1e-12, Math.max(1e-12, rnd())), 0, 1);
  let hits = 0;
  for (let s = 0; s < sims; s++) {
    const x = Array.from({ length: m }, z);
    const y = Array.from({ length: n }, () => z() + effect);
    if (mannWhitney(x, y, 'less').p < level) hits++;
  }
  return hits / sims;
}

// Probability that a one-sided exact signed-rank test of n pairs at `level` finds a centre of
// `effect` standard deviations of the differences (normal differences; simulated as power()).
export function pairedPower({ n, effect, level, sims = 2000, seed = 26 }) {
  if (2 ** -n > level) return 0;
  const rnd = uniform(seed);
  const z = () => jStat.normal.inv(Math.min(1 - 1e-12, Math.max(1e-12, rnd())), 0, 1);
  let hits = 0;
  for (let s = 0; s < sims; s++) if (signedRank(Array.from({ length: n }, () => z() + effect), 'greater').p <= level) hits++;
  return hits / sims;
}

// The smallest shift (in standard deviations of the log values) the test finds with
// probability `target`; Infinity when m and n are too few to reach `level` at all.
// paired: n pairs and the signed-rank test (m is ignored).
const DETECTABLE = new Map();
export function detectableEffect({ m, n, level, target = 0.9, sims = 2000, paired = false }) {
  const key = `${paired ? 'p' : m},${n},${level},${target},${sims}`;
  if (!DETECTABLE.has(key)) DETECTABLE.set(key, searchEffect({ m, n, level, target, sims, paired }));
  return DETECTABLE.get(key);
}
function searchEffect({ m, n, level, target, sims, paired }) {
  const pw = (effect) => (paired ? pairedPower({ n, effect, level, sims }) : power({ m, n, effect, level, sims }));
  if (paired ? 2 ** -n > level : smallestP(m, n) > level) return Infinity;
  let lo = 0; let hi = 1;
  while (pw(hi) < target) { lo = hi; hi *= 2; if (hi > 1e3) return Infinity; }
  for (let i = 0; i < 14; i++) {
    const mid = (lo + hi) / 2;
    if (pw(mid) >= target) hi = mid; else lo = mid;
  }
  return hi;
}

// An upper limit that a new value from the same log-normal spread exceeds with probability q:
// the one-sided prediction bound exp(mean + t(1−q; n−1) · sd · sqrt(1 + 1/n)) of the logs.
export function predictionUpper(xs, q) {
  const v = finite(xs).filter((x) => x > 0).map(Math.log);
  if (v.length < 2) return null;
  const n = v.length;
  const t = jStat.studentt.inv(1 - q, n - 1);
  return Math.exp(jStat.mean(v) + t * jStat.stdev(v, true) * Math.sqrt(1 + 1 / n));
}

export const normalQuantile = (p) => jStat.normal.inv(p, 0, 1);
export const lognormalMean = (xs) => { const v = finite(xs).filter((x) => x > 0).map(Math.log); return v.length ? Math.exp(jStat.mean(v)) : null; };
