// The HTML report of a repeated run (results/<RUN_ID>/report.html of REPEAT=N): the aggregate
// table (median, min – max, interval per phase and figure), charts that show every
// repetition's value, the ratios, and links to each repetition's own report. Self-contained
// and offline like the single run's report (lib/report-html.js).
import { spreadChart } from '../../lib/svg-chart.js';
import { CONTENTION_METRICS, METRICS, spreadCells } from './repeat.mjs';
import { settingsText } from '../../lib/report.js';
import { pageHead } from '../../lib/report-html.js';

function esc(s) {
  return String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export function renderRepeatHtml(agg) {
  const pct = Math.round(agg.confidence * 100);
  const title = `k6-writepath · ${agg.test_endpoint ? 'TEST ENDPOINT · ' : ''}${agg.target} · ${agg.experiment} · ${agg.n} repetitions · run ${agg.run_id}`;
  const server = agg.server ? (agg.server.serverVersion || agg.server.version || '') : '';
  const settings = agg.server && agg.server.settings ? settingsText(agg.server.settings) : '';
  const passed = agg.repetitions.filter((r) => r.passed).length;
  // Only the figures the aggregate holds for the phase (one that does not apply is left out).
  const rows = agg.phases.flatMap((p) => { const figs = METRICS.filter(([key]) => p.metrics[key]); return figs.map(([key, label, , digits], i) => {
    const s = p.metrics[key];
    const [med, range, ci] = spreadCells(s, digits, agg.confidence);
    return `<tr data-phase="${esc(p.phase)}" data-figure="${esc(key)}">${i === 0 ? `<th scope="row" rowspan="${figs.length}">${esc(p.phase)}</th><td rowspan="${METRICS.length}">${esc(p.op || '')}</td>` : ''}` +
      `<td>${esc(label)}</td><td>${s.n}</td><td>${med}</td><td>${range}</td><td>${esc(ci)}</td><td class="muted">${s.values.map((v) => (v === null ? '-' : v.toFixed(digits))).join(' · ')}</td></tr>`;
  }); }).join('\n');
  const groups = agg.phases.map((p) => p.phase);
  const chart = (key, title, unit) => spreadChart({
    title, unit, groups,
    series: [{ name: `each repetition (n=${agg.n_with_results})`, runs: agg.phases.map((p) => p.metrics[key].values), ci: agg.phases.map((p) => p.metrics[key].ci) }],
  });
  const latency = spreadChart({
    title: 'Time per batch: p50 and p99 of each repetition', unit: 'ms', groups,
    series: [['p50', 'batch_p50_ms'], ['p99', 'batch_p99_ms']].map(([name, key]) => ({ name, runs: agg.phases.map((p) => p.metrics[key].values), ci: agg.phases.map((p) => p.metrics[key].ci) })),
  });
  const ratios = Object.entries(agg.ratios).map(([name, r]) => `<tr><th scope="row">${esc(name)}</th>${['average', 'median', 'p99'].map((stat) => {
    const [med, range, ci] = spreadCells(r[stat], 2, agg.confidence);
    return `<td>${med}× <span class="muted">(${range}; ${esc(ci)})</span></td>`;
  }).join('')}</tr>`).join('\n');
  // The contention workload: per step (hot set × load) its figures and a chart of ops/s.
  const steps = agg.contention || [];
  const stepRows = steps.flatMap((st) => {
    const figs = CONTENTION_METRICS.filter(([key]) => st.metrics[key]);
    return figs.map(([key, label, , digits], i) => {
      const s = st.metrics[key];
      const [med, range, ci] = spreadCells(s, digits, agg.confidence);
      return `<tr data-step="${st.step}" data-figure="${esc(key)}">${i === 0 ? `<th scope="row" rowspan="${figs.length}">${esc(st.name)}</th>` : ''}` +
        `<td>${esc(label)}</td><td>${s.n}</td><td>${med}</td><td>${range}</td><td>${esc(ci)}</td><td class="muted">${s.values.map((v) => (v === null ? '-' : v.toFixed(digits))).join(' · ')}</td></tr>`;
    });
  }).join('\n');
  const stepChart = steps.length ? spreadChart({
    title: 'Increment operations per second per step, each repetition', unit: 'ops/s', groups: steps.map((st) => st.name.replace(/^step \d+: /, '')),
    series: [{ name: `each repetition (n=${agg.n_with_results})`, runs: steps.map((st) => st.metrics.ops_per_s.values), ci: steps.map((st) => st.metrics.ops_per_s.ci) }],
  }) : '';
  const reps = agg.repetitions.map((r, i) => `<li class="${r.passed ? 'ok' : 'bad'}">${i + 1}. <a href="${esc(`${r.run_id}/report.html`)}">${esc(r.run_id)}</a>: ${r.passed ? 'passed' : `FAILED — ${esc(r.why)}`}</li>`).join('\n');
  return `${pageHead(title)}
${agg.test_endpoint ? '<p class="bad" id="test-endpoint">TEST ENDPOINT: a k6-writepath API test server answered, not a database; these figures test the pack and measure no database.</p>\n' : ''}<p class="verdict ${agg.passed ? 'ok' : 'bad'}" id="verdict">${agg.passed ? 'PASSED' : 'FAILED'}: ${passed} of ${agg.n} repetitions passed their thresholds and verification</p>
<p>server: ${esc(server)}${settings ? `<br>settings: ${esc(settings)}` : ''}<br>
${agg.n} repetitions, one after another, each with its own objects and result folder. Every figure below is one value per repetition; the ${pct} % interval of the median is distribution-free and needs at least 6 repetitions.</p>
<h2>Phases</h2>
<table id="aggregate"><thead><tr><th>phase</th><th>op</th><th>figure</th><th>n</th><th>median</th><th>min – max</th><th>${pct} % CI of the median</th><th>each repetition</th></tr></thead>
<tbody>
${rows}
</tbody></table>
<figure>${chart('docs_per_s', 'Documents per second of each repetition', 'docs/s')}</figure>
<figure>${latency}</figure>
${ratios ? `<h2>Phase ratios (each repetition's own ratio)</h2><table id="ratios"><thead><tr><th></th><th>average</th><th>median</th><th>p99</th></tr></thead><tbody>\n${ratios}\n</tbody></table>` : ''}
${steps.length ? `<h2>Contention steps (hot set × load)</h2>
<table id="contention"><thead><tr><th>step</th><th>figure</th><th>n</th><th>median</th><th>min – max</th><th>${pct} % CI of the median</th><th>each repetition</th></tr></thead>
<tbody>
${stepRows}
</tbody></table>
<figure>${stepChart}</figure>` : ''}
<h2>Repetitions</h2>
<ul id="repetitions">
${reps}
</ul>
</body></html>
`;
}
