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

// groupedBars({ title, unit, groups: ['load', …], series: [{ name, values: [n|null per group] }] })
// One group of bars per entry of `groups` (a phase), one bar per series (a stat or a target).
// Missing values (null) leave a gap and are labelled "-", never drawn as zero.
export function groupedBars({ title, unit = '', groups, series, width = 640, height = 260 }) {
  const top = 34; const bottom = 42; const left = 56; const right = 12;
  const plotW = width - left - right; const plotH = height - top - bottom;
  const all = series.flatMap((s) => s.values).filter((v) => typeof v === 'number' && Number.isFinite(v));
  const max = all.length ? Math.max(...all) : 1;
  const scaleMax = max > 0 ? max * 1.1 : 1;
  const groupW = plotW / Math.max(1, groups.length);
  const barW = Math.max(4, (groupW * 0.8) / Math.max(1, series.length));
  const y = (v) => top + plotH - (v / scaleMax) * plotH;
  const out = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height + 18 * Math.ceil(series.length / 3)}" viewBox="0 0 ${width} ${height + 18 * Math.ceil(series.length / 3)}" font-family="sans-serif" font-size="11" role="img" aria-label="${esc(title)}">`);
  out.push(`<text x="${left}" y="18" font-size="13" font-weight="bold">${esc(title)}${unit ? ` (${esc(unit)})` : ''}</text>`);
  for (let t = 0; t <= 4; t++) {
    const v = (scaleMax * t) / 4;
    out.push(`<line x1="${left}" x2="${width - right}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#ddd"/>`);
    out.push(`<text x="${left - 4}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end" fill="#555">${short(v)}</text>`);
  }
  groups.forEach((g, gi) => {
    const x0 = left + gi * groupW + groupW * 0.1;
    series.forEach((s, si) => {
      const v = s.values[gi];
      const x = x0 + si * barW;
      if (typeof v === 'number' && Number.isFinite(v)) {
        out.push(`<rect x="${x.toFixed(1)}" y="${y(v).toFixed(1)}" width="${(barW - 1).toFixed(1)}" height="${(top + plotH - y(v)).toFixed(1)}" fill="${PALETTE[si % PALETTE.length]}"><title>${esc(`${g} · ${s.name}: ${short(v)}${unit ? ` ${unit}` : ''}`)}</title></rect>`);
      }
      out.push(`<text x="${(x + barW / 2).toFixed(1)}" y="${((typeof v === 'number' && Number.isFinite(v) ? y(v) : top + plotH) - 3).toFixed(1)}" text-anchor="middle" font-size="9" fill="#333">${short(v)}</text>`);
    });
    out.push(`<text x="${(left + gi * groupW + groupW / 2).toFixed(1)}" y="${top + plotH + 16}" text-anchor="middle" font-weight="bold">${esc(g)}</text>`);
  });
  out.push(`<line x1="${left}" x2="${width - right}" y1="${top + plotH}" y2="${top + plotH}" stroke="#888"/>`);
  series.forEach((s, si) => {
    const lx = left + (si % 3) * ((width - left) / 3);
    const ly = height - 8 + 18 * Math.floor(si / 3);
    out.push(`<rect x="${lx}" y="${ly - 9}" width="10" height="10" fill="${PALETTE[si % PALETTE.length]}"/><text x="${lx + 14}" y="${ly}">${esc(s.name)}</text>`);
  });
  out.push('</svg>');
  return out.join('\n');
}
