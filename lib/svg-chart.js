// Small grouped bar charts as self-contained SVG text, used by the HTML report (inside k6's
// handleSummary) and by scripts/compare (in Node). No k6 or Node imports: it must run in both.

const PALETTE = ['#3274d9', '#e0752d', '#56a64b', '#a352cc', '#f2cc0c', '#8ab8ff', '#ff7383', '#37872d'];

function esc(s) {
  return String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function short(x) {
  if (x === null || x === undefined || !Number.isFinite(x)) return '-';
  if (Math.abs(x) >= 10000) return `${(x / 1000).toFixed(0)}k`;
  if (Math.abs(x) >= 100) return x.toFixed(0);
  return x.toFixed(1);
}

// The opening of a chart with a value axis: the svg element, the title, five grid lines with
// their values (y: value -> pixel). Returns the list of lines the chart goes on with.
function frame({ width, fullH, title, unit, left, right, y, scaleMax }) {
  const out = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${fullH}" viewBox="0 0 ${width} ${fullH}" font-family="sans-serif" font-size="11" role="img" aria-label="${esc(title)}">`);
  out.push(`<text x="${left}" y="18" font-size="13" font-weight="bold">${esc(title)}${unit ? ` (${esc(unit)})` : ''}</text>`);
  for (let t = 0; t <= 4; t++) {
    const v = (scaleMax * t) / 4;
    out.push(`<line x1="${left}" x2="${width - right}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#ddd"/>`);
    out.push(`<text x="${left - 4}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end" fill="#555">${short(v)}</text>`);
  }
  return out;
}

// The end of such a chart: the base line, the legend (three series a row), the closing tag.
function close(out, { left, right, width, height, base, series }) {
  out.push(`<line x1="${left}" x2="${width - right}" y1="${base}" y2="${base}" stroke="#888"/>`);
  series.forEach((s, si) => {
    const lx = left + (si % 3) * ((width - left) / 3);
    const ly = height - 8 + 18 * Math.floor(si / 3);
    out.push(`<rect x="${lx}" y="${ly - 9}" width="10" height="10" fill="${PALETTE[si % PALETTE.length]}"/><text x="${lx + 14}" y="${ly}">${esc(s.name)}</text>`);
  });
  out.push('</svg>');
  return out.join('\n');
}

// groupedBars({ title, unit, groups: ['load', …], series: [{ name, values: [n|null per group] }] })
// One group of bars per entry of `groups` (a phase), one bar per series (a stat or a target).
// Missing values (null) leave a gap and are labelled "-", never drawn as zero.
export function groupedBars({ title, unit = '', groups, series, width = 640, height = 260 }) {
  const all = series.flatMap((s) => s.values).filter((v) => typeof v === 'number' && Number.isFinite(v));
  return groupedChart({ title, unit, groups, series, width, height, all, minColW: 4 }, ({ out, g, gi, s, si, x0, colW: barW, y, base }) => {
    const v = s.values[gi];
    const x = x0 + si * barW;
    if (typeof v === 'number' && Number.isFinite(v)) {
      out.push(`<rect x="${x.toFixed(1)}" y="${y(v).toFixed(1)}" width="${(barW - 1).toFixed(1)}" height="${(base - y(v)).toFixed(1)}" fill="${PALETTE[si % PALETTE.length]}"><title>${esc(`${g} · ${s.name}: ${short(v)}${unit ? ` ${unit}` : ''}`)}</title></rect>`);
    }
    out.push(`<text x="${(x + barW / 2).toFixed(1)}" y="${((typeof v === 'number' && Number.isFinite(v) ? y(v) : base) - 3).toFixed(1)}" text-anchor="middle" font-size="9" fill="#333">${short(v)}</text>`);
  });
}

// The layout shared by the charts with one group per phase and one column per series: the value
// axis from 0 to 1.1 × the largest value, the groups' labels, the legend. column() draws one
// series' column of one group (x0: the group's first column, colW: a column's width).
function groupedChart({ title, unit, groups, series, width, height, all, minColW }, column) {
  const top = 34; const bottom = 42; const left = 56; const right = 12;
  const plotW = width - left - right; const plotH = height - top - bottom;
  const max = all.length ? Math.max(...all) : 1;
  const scaleMax = max > 0 ? max * 1.1 : 1;
  const groupW = plotW / Math.max(1, groups.length);
  const colW = Math.max(minColW, (groupW * 0.8) / Math.max(1, series.length));
  const y = (v) => top + plotH - (v / scaleMax) * plotH;
  const base = top + plotH;
  const out = frame({ width, fullH: height + 18 * Math.ceil(series.length / 3), title, unit, left, right, y, scaleMax });
  groups.forEach((g, gi) => {
    const x0 = left + gi * groupW + groupW * 0.1;
    series.forEach((s, si) => column({ out, g, gi, s, si, x0, colW, y, base }));
    out.push(`<text x="${(left + gi * groupW + groupW / 2).toFixed(1)}" y="${top + plotH + 16}" text-anchor="middle" font-weight="bold">${esc(g)}</text>`);
  });
  return close(out, { left, right, width, height, base, series });
}

// lineChart({ title, xLabel, yLabel, series: [{ name, points: [[x, y], …], dashed, color }],
//   hLines: [{ y, label }], marks: [{ x, y, label }] })
// Lines through points sorted by x (a latency-vs-throughput curve: x = achieved docs/s,
// y = ms). Points with a missing coordinate are left out, never drawn at zero.
// sortX: false keeps the points in the given order (a capacity curve follows the offered
// rate, and an overloaded step can achieve fewer docs/s than the one before it).
export function lineChart({ title, xLabel = '', yLabel = '', series, hLines = [], marks = [], width = 720, height = 360, sortX = true }) {
  const top = 34; const bottom = 48; const left = 64; const right = 16;
  const legendRows = Math.ceil(series.length / 2);
  const plotW = width - left - right; const plotH = height - top - bottom;
  const ok = (v) => typeof v === 'number' && Number.isFinite(v);
  const pts = series.map((s) => { const p = s.points.filter(([x, y]) => ok(x) && ok(y)); return sortX ? p.sort((a, b) => a[0] - b[0]) : p; });
  const xs = pts.flat().map((p) => p[0]);
  const ys = pts.flat().map((p) => p[1]).concat(hLines.map((h) => h.y).filter(ok));
  const xMax = xs.length ? Math.max(...xs) * 1.08 || 1 : 1;
  const yMax = ys.length ? Math.max(...ys) * 1.1 || 1 : 1;
  const X = (v) => left + (v / xMax) * plotW;
  const Y = (v) => top + plotH - (v / yMax) * plotH;
  const fullH = height + 18 * legendRows;
  const out = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${fullH}" viewBox="0 0 ${width} ${fullH}" font-family="sans-serif" font-size="11" role="img" aria-label="${esc(title)}">`);
  out.push(`<text x="${left}" y="18" font-size="13" font-weight="bold">${esc(title)}</text>`);
  for (let t = 0; t <= 4; t++) {
    const yv = (yMax * t) / 4; const xv = (xMax * t) / 4;
    out.push(`<line x1="${left}" x2="${width - right}" y1="${Y(yv).toFixed(1)}" y2="${Y(yv).toFixed(1)}" stroke="#ddd"/>`);
    out.push(`<text x="${left - 4}" y="${(Y(yv) + 4).toFixed(1)}" text-anchor="end" fill="#555">${short(yv)}</text>`);
    out.push(`<text x="${X(xv).toFixed(1)}" y="${top + plotH + 14}" text-anchor="middle" fill="#555">${short(xv)}</text>`);
  }
  out.push(`<line x1="${left}" x2="${width - right}" y1="${top + plotH}" y2="${top + plotH}" stroke="#888"/><line x1="${left}" x2="${left}" y1="${top}" y2="${top + plotH}" stroke="#888"/>`);
  out.push(`<text x="${left + plotW / 2}" y="${top + plotH + 30}" text-anchor="middle">${esc(xLabel)}</text>`);
  out.push(`<text x="14" y="${top + plotH / 2}" text-anchor="middle" transform="rotate(-90 14 ${top + plotH / 2})">${esc(yLabel)}</text>`);
  for (const h of hLines) {
    if (!ok(h.y)) continue;
    out.push(`<line x1="${left}" x2="${width - right}" y1="${Y(h.y).toFixed(1)}" y2="${Y(h.y).toFixed(1)}" stroke="#c62828" stroke-dasharray="6 4"/><text x="${width - right - 2}" y="${(Y(h.y) - 4).toFixed(1)}" text-anchor="end" fill="#c62828">${esc(h.label || '')}</text>`);
  }
  series.forEach((s, si) => {
    const color = s.color || PALETTE[si % PALETTE.length];
    const p = pts[si];
    if (p.length > 1) out.push(`<polyline fill="none" stroke="${color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="5 3"' : ''} points="${p.map(([x, y]) => `${X(x).toFixed(1)},${Y(y).toFixed(1)}`).join(' ')}"/>`);
    for (const [x, y] of p) out.push(`<circle cx="${X(x).toFixed(1)}" cy="${Y(y).toFixed(1)}" r="3" fill="${color}"><title>${esc(`${s.name}: ${short(x)} ${xLabel} → ${short(y)} ${yLabel}`)}</title></circle>`);
    const lx = left + (si % 2) * (plotW / 2);
    const ly = height - 4 + 18 * Math.floor(si / 2);
    out.push(`<line x1="${lx}" x2="${lx + 18}" y1="${ly - 4}" y2="${ly - 4}" stroke="${color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="5 3"' : ''}/><text x="${lx + 22}" y="${ly}">${esc(s.name)}</text>`);
  });
  marks.forEach((m, i) => {
    if (!ok(m.x) || !ok(m.y)) return;
    // Labels right-aligned left of the mark when it sits in the right half; stacked by index.
    const right = X(m.x) > left + plotW / 2;
    out.push(`<circle cx="${X(m.x).toFixed(1)}" cy="${Y(m.y).toFixed(1)}" r="6" fill="none" stroke="#222" stroke-width="2"/><text x="${(X(m.x) + (right ? -8 : 8)).toFixed(1)}" y="${(Y(m.y) - 8 - 14 * i).toFixed(1)}" text-anchor="${right ? 'end' : 'start'}" font-weight="bold">${esc(m.label || '')}</text>`);
  });
  out.push('</svg>');
  return out.join('\n');
}

// spreadChart({ title, unit, groups, series: [{ name, runs: [[values of each run] per group],
//   ci: [{ lo, hi } | null per group] }] })
// One column per series in every group showing the spread instead of one bar: every run's value
// as a dot, min–max as a thin line, the median as a wide tick, and the confidence interval of
// the median (when there is one) as a shaded box. Missing values are left out, never drawn at 0.
export function spreadChart({ title, unit = '', groups, series, width = 640, height = 260 }) {
  const ok = (v) => typeof v === 'number' && Number.isFinite(v);
  const all = series.flatMap((s) => s.runs.flat()).filter(ok);
  return groupedChart({ title, unit, groups, series, width, height, all, minColW: 8 }, ({ out, g, gi, s, si, x0, colW, y, base }) => {
    const vals = (s.runs[gi] || []).filter(ok).sort((a, b) => a - b);
    const cx = x0 + si * colW + colW / 2;
    const color = PALETTE[si % PALETTE.length];
    if (!vals.length) {
      out.push(`<text x="${cx.toFixed(1)}" y="${(base - 3).toFixed(1)}" text-anchor="middle" font-size="9" fill="#333">-</text>`);
      return;
    }
    const med = vals.length % 2 ? vals[vals.length >> 1] : (vals[vals.length / 2 - 1] + vals[vals.length / 2]) / 2;
    const ci = s.ci && s.ci[gi];
    const label = `${g} · ${s.name}: median ${short(med)}${unit ? ` ${unit}` : ''}, min–max ${short(vals[0])}–${short(vals[vals.length - 1])}, n=${vals.length}${ci ? `, CI ${short(ci.lo)}–${short(ci.hi)}` : ''}`;
    out.push(`<g class="spread"><title>${esc(label)}</title>`);
    if (ci && ok(ci.lo) && ok(ci.hi)) out.push(`<rect class="ci" x="${(cx - colW * 0.35).toFixed(1)}" y="${y(ci.hi).toFixed(1)}" width="${(colW * 0.7).toFixed(1)}" height="${Math.max(1, y(ci.lo) - y(ci.hi)).toFixed(1)}" fill="${color}" fill-opacity="0.18"/>`);
    out.push(`<line class="range" x1="${cx.toFixed(1)}" x2="${cx.toFixed(1)}" y1="${y(vals[vals.length - 1]).toFixed(1)}" y2="${y(vals[0]).toFixed(1)}" stroke="${color}" stroke-width="1"/>`);
    out.push(`<line class="median" x1="${(cx - colW * 0.4).toFixed(1)}" x2="${(cx + colW * 0.4).toFixed(1)}" y1="${y(med).toFixed(1)}" y2="${y(med).toFixed(1)}" stroke="${color}" stroke-width="3"/>`);
    for (const v of vals) out.push(`<circle class="run" cx="${cx.toFixed(1)}" cy="${y(v).toFixed(1)}" r="2.5" fill="${color}" fill-opacity="0.7"/>`);
    out.push(`<text x="${cx.toFixed(1)}" y="${(y(vals[vals.length - 1]) - 4).toFixed(1)}" text-anchor="middle" font-size="9" fill="#333">${short(med)}</text></g>`);
  });
}
