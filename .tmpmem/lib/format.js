// Number and column formatting of every text report (run summary, E3 table, per-stage table,
// compare, merged distributed results, HTML): one home, so "-" means "no value" everywhere.
// Pure, loadable by k6 and Node alike.

// x with `digits` decimals, or '-' when there is no finite number.
export function fmt(x, digits = 1) {
  return typeof x === 'number' && Number.isFinite(x) ? x.toFixed(digits) : '-';
}

// s as a column of width n: right-aligned (numbers), or left-aligned with left = true.
export function pad(s, n, left = false) {
  return left ? String(s).padEnd(n) : String(s).padStart(n);
}

// Rows of cells as text columns: each column at least its usual width and never narrower than
// its widest cell plus a space, so any magnitude stays aligned and apart from its neighbour.
// The first `left` columns are left-aligned, the rest right-aligned.
export function columns(rows, widths, left) {
  const w = widths.map((min, i) => Math.max(min, ...rows.map((r) => String(r[i]).length + 1)));
  return rows.map((r) => r.map((c, i) => (i < left ? String(c).padEnd(w[i]) : String(c).padStart(w[i]))).join('').replace(/\s+$/, ''));
}
