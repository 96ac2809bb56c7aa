// Verdicts over several runs per side (scripts/compare; docs/results.md "Repeat, compare, gate"):
// the comparison table (per phase and figure: each side's median with n, delta with its
// interval, the exact Mann–Whitney p-value, `~` when not significant) and the regression gate
// (is the candidate worse than the baseline by more than the tolerance, significantly, with
// the false-alarm rate controlled over every gated figure; which regression could it detect
// at all). Pure functions of summary.json contents; Node only (scripts/lib/stats.mjs).
import { fmt } from '../../lib/format.js';
import { runFigures } from './repeat.mjs';
import { detectableEffect, mannWhitney, maxTAdjust, maxTLevel, normalQuantile, pooledSd, sampleSd, shiftCI, smallestP, summarize, walshCI } from './stats.mjs';

export const ALPHA = 0.05;
const CONF = 0.95;
const pct = (x, d = 1) => (x === null || x === undefined || !Number.isFinite(x) ? '-' : `${x >= 0 ? '+' : ''}${(x * 100).toFixed(d)} %`);
const logs = (xs) => xs.filter((x) => typeof x === 'number' && x > 0).map(Math.log);

// The figures of every run of a side, by '<phase>\t<key>': { phase, key, label, digits, better, values[] }.
export function sideFigures(summaries) {
  const out = new Map();
  summaries.forEach((s) => {
    for (const f of runFigures(s)) {
      const id = `${f.phase}\t${f.key}`;
      if (!out.has(id)) out.set(id, { phase: f.phase, key: f.key, label: f.label, digits: f.digits, better: f.better, values: [] });
      out.get(id).values.push(f.value);
    }
  });
  return out;
}

// delta of b against a as B/A − 1 (the Hodges–Lehmann estimate: the median of all B/A ratios
// of one run each) with its distribution-free interval, and the two-sided exact Mann–Whitney
// p-value. n = 1 on either side: no test ("n=1: no significance").
export function contrast(a, b, { alpha = ALPHA, conf = CONF } = {}) {
  const la = logs(a); const lb = logs(b);
  if (!la.length || !lb.length) return { delta: null, ci: null, p: null, significant: false, note: 'no value' };
  const s = shiftCI(la, lb, conf);
  const delta = Math.exp(s.estimate) - 1;
  const ci = s.ci ? { lo: Math.exp(s.ci.lo) - 1, hi: Math.exp(s.ci.hi) - 1, coverage: s.ci.coverage } : null;
  if (la.length < 2 || lb.length < 2) return { delta, ci: null, p: null, significant: false, note: 'n=1: no significance' };
  const { p } = mannWhitney(la, lb, 'two-sided');
  return { delta, ci, p, significant: p < alpha, note: p >= alpha ? '~' : '' };
}

// sides: [{ letter, label, summaries }] -> { alpha, figures: [{ phase, key, label, digits, better,
// sides: { A: summarize(values) + values }, vs: { B: contrast(A, B) } }] } in table order.
export function compareSides(sides, { alpha = ALPHA } = {}) {
  const figs = sides.map((s) => sideFigures(s.summaries));
  const order = [...figs[0].keys()];
  const figures = order.map((id) => {
    const f0 = figs[0].get(id);
    const row = { phase: f0.phase, key: f0.key, label: f0.label, digits: f0.digits, better: f0.better, sides: {}, vs: {} };
    sides.forEach((s, i) => { const v = (figs[i].get(id) || { values: [] }).values; row.sides[s.letter] = { values: v, ...summarize(v, CONF) }; });
    for (const s of sides.slice(1)) row.vs[s.letter] = contrast(row.sides[sides[0].letter].values, row.sides[s.letter].values, { alpha });
    return row;
  });
  return { alpha, figures };
}

// Words for a significant delta: B slower / faster (what "better" means per figure).
function direction(row, c) {
  if (!c.significant) return c.note || '';
  const worse = row.better === 'higher' ? c.delta < 0 : c.delta > 0;
  return worse ? 'worse' : 'better';
}

// The table: phase | figure | A (n) | B (n) | delta B | 95 % CI | p | (~, better, worse)
export function compareTable(cmp, sides) {
  const others = sides.slice(1);
  const head = ['phase', 'figure', ...sides.map((s) => `${s.letter} median (n)`), ...others.flatMap((s) => [`delta ${s.letter} (HL)`, `${Math.round(CONF * 100)} % CI`, 'p', ''])];
  const rows = cmp.figures.map((r) => [
    r.phase, r.label,
    ...sides.map((s) => { const x = r.sides[s.letter]; return x.n ? `${fmt(x.median, r.digits)} (${x.n})` : '-'; }),
    ...others.flatMap((s) => {
      const c = r.vs[s.letter];
      return [pct(c.delta), c.ci ? `${pct(c.ci.lo)} … ${pct(c.ci.hi)}` : '-', c.p === null ? '-' : c.p < 0.001 ? '<0.001' : c.p.toFixed(3), c.note === 'n=1: no significance' ? c.note : c.significant ? `${s.letter} ${direction(r, c)}` : c.note];
    }),
  ]);
  return align(head, rows, 2);
}

export function align(head, rows, leftCols) {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => String(row[i]).length)));
  const line = (cells) => cells.map((cell, i) => (i < leftCols ? String(cell).padEnd(widths[i]) : String(cell).padStart(widths[i]))).join(' | ').replace(/\s+$/, '');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('-|-'), ...rows.map(line)];
}

// ---- the gate --------------------------------------------------------------------------------

export const GATE_FIGURES = { 'docs/s': 'docs_per_s', 'mb/s': 'mb_per_s', p50: 'batch_p50_ms', p90: 'batch_p90_ms', p99: 'batch_p99_ms', avg: 'batch_avg_ms', time: 'time_s', 'ops/s': 'ops_per_s' };
export const DEFAULT_GATE_METRICS = ['docs/s', 'p99'];
export const POWER = 0.9;

// "docs/s,overwrite:p99" -> [{ phase|null, figure, key }]; throws a one-line message on a bad item.
export function parseGateMetrics(text) {
  const items = String(text).split(',').map((x) => x.trim()).filter(Boolean);
  if (!items.length) throw new Error(`--metrics "${text}" is not allowed: a comma-separated list of [phase:]figure, figures ${Object.keys(GATE_FIGURES).join(', ')}`);
  return items.map((it) => {
    const m = /^(?:([a-z0-9_-]+):)?(.+)$/i.exec(it);
    const figure = m[2].toLowerCase();
    if (!GATE_FIGURES[figure]) throw new Error(`--metrics "${text}" is not allowed: "${it}" is no [phase:]figure; figures ${Object.keys(GATE_FIGURES).join(', ')}`);
    return { phase: m[1] || null, figure, key: GATE_FIGURES[figure] };
  });
}

// "10%" | "0.1" is not taken (ambiguous): "10%", or per figure "docs/s=10%,p99=30%" (a plain
// "10%" item sets the default) -> { default: 0.1, byFigure: { p99: 0.3 } }.
export function parseTolerance(text) {
  const bad = (why) => { throw new Error(`--max-regression "${text}" is not allowed: ${why}`); };
  const out = { default: null, byFigure: {} };
  for (const it of String(text).split(',').map((x) => x.trim()).filter(Boolean)) {
    const m = /^(?:([^=]+)=)?(\d+(?:\.\d+)?)%$/.exec(it);
    if (!m) bad('a share in percent such as 10%, or per figure docs/s=10%,p99=30%');
    const v = Number(m[2]) / 100;
    if (!(v > 0 && v < 10)) bad('each share above 0 % and below 1000 %');
    if (m[1]) { const f = m[1].trim().toLowerCase(); if (!GATE_FIGURES[f]) bad(`"${m[1]}" is no figure (${Object.keys(GATE_FIGURES).join(', ')})`); out.byFigure[f] = v; } else out.default = v;
  }
  if (out.default === null && !Object.keys(out.byFigure).length) bad('a share in percent such as 10%');
  return out;
}

// The gated figures present in both sides' figure maps, in table order.
export function gatedFigures(baseFigs, metrics) {
  const out = [];
  for (const [id, f] of baseFigs) {
    const sel = metrics.find((m) => m.key === f.key && (m.phase === null || m.phase === f.phase));
    if (sel) out.push({ id, ...f, figure: sel.figure });
  }
  return out;
}

// Regression as a positive share in the worse direction: docs/s 20 % lower -> 0.2 (B = 0.8 A),
// p99 25 % higher -> 0.25; from an oriented log shift (larger = worse).
const regressionOf = (better, shift) => (better === 'higher' ? 1 - Math.exp(-shift) : Math.exp(shift) - 1);

// The smallest regression a design finds with probability POWER when its figure is tested at
// `level` (the gate: the per-figure level the permutation adjustment leaves, maxTLevel), for log
// spread `sd` (unpaired: of one run; paired: of the difference of a pair). A level a hair above
// the attainable p-value it was computed from, so that p ≤ level counts.
export function detectableRegression({ better, sd, nb, nc, level, paired }) {
  if (sd === null || sd === undefined) return null;
  if (!(level > 0)) return Infinity;
  const lv = level * (1 + 1e-9);
  const effect = paired ? detectableEffect({ n: nb, level: lv, target: POWER, paired: true }) : detectableEffect({ m: nb, n: nc, level: lv, target: POWER });
  return Number.isFinite(effect) ? regressionOf(better, effect * sd) : Infinity;
}

// How many runs per side (pairs, paired) would let the gate see `tol` at this spread: the
// smallest n up to 64 whose detectable regression is within it, each figure tested at the
// level this gate's measured co-movement leaves; null when not even 64.
// Up to 10 runs the exact tests' simulated power; above, the normal approximation of a shift
// test with the rank tests' efficiency against it (3/π: Lehmann, Nonparametrics, 1975).
// A planning figure for the next gate, not a promise: the spread itself is an estimate.
export function runsNeeded({ better, sd, tol, level, paired }) {
  if (!(sd > 0) || !(level > 0)) return null;
  const sees = (n) => {
    if (n <= 10) { const d = detectableRegression({ better, sd, nb: n, nc: n, level, paired }); return d !== null && d <= tol; }
    const effect = (normalQuantile(1 - level) + normalQuantile(POWER)) * Math.sqrt((paired ? 1 : 2) / n) * Math.sqrt(Math.PI / 3);
    return regressionOf(better, effect * sd) <= tol;
  };
  let lo = 2; let hi = 64;
  if (!sees(hi)) return null;
  while (hi - lo > 1) { const mid = (lo + hi) >> 1; if (sees(mid)) hi = mid; else lo = mid; }
  return hi;
}

// Can N runs per side reach significance at all (before any spread is known)? The adjusted
// p-value's smallest value is the single test's (every gated figure as far apart as it can be),
// whatever the number of figures.
export function gateReachable({ nb, nc, alpha = ALPHA, paired }) {
  return paired ? 2 ** -nb < alpha : smallestP(nb, nc) < alpha;
}

// The gate's decision. base, cand: [summary] (paired: base[i] and cand[i] ran side by side).
// -> { design, alpha, k, rows: [{ phase, figure, label, better, base, cand, delta, ci, p,
//      p_adjusted, regression, spread, detectable, tolerance, verdict }], exit, why }
// The figures steadier than p99 that a gate which cannot see its tolerance is pointed to;
// advice only for a gate that gates others too.
export function steadierAdvice(metrics) {
  return metrics.every((m) => ['docs/s', 'p50'].includes(m.figure)) ? '' : 'steadier figures (--metrics docs/s,p50), ';
}

export function gateDecision({ base, cand, metrics, tolerance, alpha = ALPHA, paired = false }) {
  const bf = sideFigures(base); const cf = sideFigures(cand);
  const gated = gatedFigures(bf, metrics).filter((g) => cf.has(g.id));
  const k = gated.length;
  const conf = 1 - 2 * alpha; // two-sided interval whose lower end is the one-sided bound the test uses
  // Oriented logs: larger = worse.
  const orient = (g, xs) => xs.map((x) => (typeof x === 'number' && x > 0 ? (g.better === 'higher' ? -Math.log(x) : Math.log(x)) : null));
  // Only runs (pairs) that have every gated figure take part: the permutations move whole runs.
  const ok = (x) => x !== null && x !== undefined;
  const oriented = gated.map((g) => ({ g, b: orient(g, bf.get(g.id).values), c: orient(g, cf.get(g.id).values) }));
  const keepB = base.map((_, i) => oriented.every((o) => ok(o.b[i])));
  const keepC = cand.map((_, i) => oriented.every((o) => ok(o.c[i])));
  const rowsData = oriented.map(({ g, b, c }) => (paired
    ? { g, d: b.map((x, i) => (keepB[i] && keepC[i] ? c[i] - x : null)).filter(ok) }
    : { g, b: b.filter((_, i) => keepB[i]), c: c.filter((_, i) => keepC[i]) }));
  const usable = rowsData.filter((r) => (paired ? r.d.length >= 1 : r.b.length >= 1 && r.c.length >= 1));
  const permRows = usable.map((r) => (paired ? r.d : { base: r.b, cand: r.c }));
  const adj = usable.length ? maxTAdjust(permRows, { paired }) : [];
  // The level each figure is in effect tested at, given how the gated figures move together.
  const level = usable.length && (paired ? permRows[0].length : permRows[0].base.length && permRows[0].cand.length) ? maxTLevel(permRows, { paired, alpha }) : 0;
  const rows = rowsData.map((r) => {
    const g = r.g;
    const tol = tolerance.byFigure[g.figure] ?? tolerance.default;
    const i = usable.indexOf(r);
    const a = i >= 0 ? adj[i] : null;
    const nb = paired ? r.d.length : r.b.length; const nc = paired ? r.d.length : r.c.length;
    const est = paired ? walshCI(r.d, conf) : shiftCI(r.b, r.c, conf);
    const spread = paired ? sampleSd(r.d) : pooledSd([r.b, r.c]);
    const detectable = detectableRegression({ better: g.better, sd: spread, nb, nc, level, paired });
    const regression = est.estimate === null ? null : regressionOf(g.better, est.estimate);
    // The interval of the regression share (its lower end: the one-sided bound of the test).
    const ci = est.ci ? { lo: regressionOf(g.better, est.ci.lo), hi: regressionOf(g.better, est.ci.hi), coverage: est.ci.coverage } : null;
    const significant = Boolean(a && a.p_adjusted < alpha);
    let verdict;
    if (significant && regression > tol) verdict = 'REGRESSION';
    else if (detectable === null || detectable > tol) verdict = 'cannot detect';
    else if (significant) verdict = 'within tolerance';
    else verdict = 'ok';
    const delta = regression === null ? null : (g.better === 'higher' ? -regression : regression);
    return {
      phase: g.phase, figure: g.figure, key: g.key, label: g.label, better: g.better, digits: g.digits,
      base: summarize(bf.get(g.id).values), cand: summarize(cf.get(g.id).values),
      delta, regression, ci, p: a ? a.p : null, p_adjusted: a ? a.p_adjusted : null, spread, detectable, tolerance: tol, verdict,
    };
  });
  const flagged = rows.filter((r) => r.verdict === 'REGRESSION');
  const blind = rows.filter((r) => r.verdict === 'cannot detect');
  // For a gate that cannot see its tolerance: the runs per side that would (the widest need).
  const needs = flagged.length ? [] : blind.map((r) => runsNeeded({ better: r.better, sd: r.spread, tol: r.tolerance, level, paired }));
  const needed = needs.length ? (needs.some((n) => n === null) ? null : Math.max(...needs)) : undefined;
  const exit = flagged.length ? 99 : blind.length ? 107 : 0;
  const why = flagged.length ? `regression beyond the tolerance: ${flagged.map((r) => `${r.phase} ${r.label} ${pct(r.delta)}`).join(', ')}`
    : blind.length ? `this gate cannot detect its tolerance on ${blind.map((r) => `${r.phase} ${r.label} (detects ${r.detectable === Infinity || r.detectable === null ? 'nothing' : `≥ ${(r.detectable * 100).toFixed(0)} %`}, tolerance ${(r.tolerance * 100).toFixed(0)} %)`).join(', ')}${needed === undefined ? '' : needed === null ? ' — not even 64 runs per side would at this spread, so more runs do not help' : ` — about ${needed} ${paired ? 'pairs' : 'runs per side'} would at this spread`}: ${needed === null ? '' : 'more runs (--repeat), '}${steadierAdvice(metrics)}or a larger tolerance for them (--max-regression figure=X%)`
      : 'no significant regression beyond the tolerance';
  return { design: paired ? 'paired' : 'unpaired', alpha, k, level, conf, rows, exit, why, runs_needed: needed };
}

export function gateTable(dec) {
  const head = ['phase', 'figure', 'baseline median (n)', 'candidate median (n)', 'delta (HL)', `${Math.round(dec.conf * 100)} % CI of the regression`, 'p', 'p adjusted', 'detects (90 %)', 'tolerance', 'verdict'];
  const rows = dec.rows.map((r) => [
    r.phase, r.label, `${fmt(r.base.median, r.digits)} (${r.base.n})`, `${fmt(r.cand.median, r.digits)} (${r.cand.n})`, pct(r.delta),
    r.ci ? `${pct(r.ci.lo)} … ${pct(r.ci.hi)}` : '-', r.p === null ? '-' : r.p.toFixed(4), r.p_adjusted === null ? '-' : r.p_adjusted.toFixed(4),
    r.detectable === null ? '-' : r.detectable === Infinity ? 'nothing' : `≥ ${(r.detectable * 100).toFixed(0)} %`, `${(r.tolerance * 100).toFixed(0)} %`, r.verdict,
  ]);
  return align(head, rows, 2);
}

