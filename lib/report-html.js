// The run's HTML report (results/<RUN_ID>/report.html): the same figures as the text table
// (buildReport's JSON), as one self-contained page — no scripts, fonts or remote assets, so it
// opens offline, in a CI artifact viewer, and in a headless browser. Pure: tested in Node.
import { groupedBars } from './svg-chart.js';
import { fmt } from './format.js';
import { settingsText, showObserved, thresholdUnit } from './report.js';
import { countersJudged, countersLine, ledgerLine } from './ledger.js';

function esc(s) {
  return String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const STATS = [['min', 'min'], ['median', 'median'], ['average', 'average'], ['p90', 'p90'], ['p99', 'p99'], ['max', 'max']];

// json: buildReport(...).json (summary.json); description: the workload's describe(cfg, plan),
// whose line says what the run wrote (lib/workloads/*.js).
export function renderHtml(json, description = {}) {
  const ops = json.ops || {};
  const title = `k6-writepath · ${json.test_endpoint ? 'TEST ENDPOINT · ' : ''}${json.target} · ${json.experiment} · run ${json.run_id || '(none)'}`;
  const server = json.server ? (json.server.serverVersion || json.server.version || '') : 'setup did not finish';
  const settings = json.server && json.server.settings ? settingsText(json.server.settings) : '';
  const phases = json.phases || [];
  const failed = (json.thresholds || []).filter((t) => !t.ok);
  // passed holds the verification when it is a gate ("verify": false makes it information).
  const verdict = json.passed;
  const verifyStep = (json.config || {}).DISTRIBUTED === 'verify';
  // What failed, named in the first line: the limits crossed (with what was observed) and a
  // verification that did not hold or did not run.
  const v0 = json.verification || { ran: false };
  const why = [
    ...failed.map((t) => `${t.metric} ${t.threshold}${showObserved(t)}`),
    ...(!v0.ran ? [`verification did not run${v0.why ? `: ${v0.why}` : ''}`] : v0.ok === false && v0.gate !== false ? [
      ...(v0.count_ok === false ? [`documents: expected ${v0.expected}, found ${v0.found}`] : []),
      ...(v0.readback_ok === false ? [`read-back: ${v0.readback_stale_or_missing} of ${v0.readback_checked} keys stale or missing`] : []),
      ...(v0.readback_unjudged ? [`read-back: not judged (all ${v0.readback_checked} keys checked are undetermined)`] : []),
      ...(v0.counters_ok === false ? [countersJudged(v0) === false ? 'counters: the VUs\' ledgers are incomplete, no lost or phantom judgement is possible' : `counters: ${v0.increments_lost} increments lost, ${v0.increments_phantom} phantom${v0.ledger_unstored ? `, ${v0.ledger_unstored} in ledgers not stored` : ''}`] : []),
    ] : []),
  ];
  const headline = `${verdict ? 'PASSED' : 'FAILED'}: ${failed.length === 0 ? `all ${(json.thresholds || []).length} thresholds passed` : `${failed.length} of ${json.thresholds.length} thresholds failed`}` +
    `${!verdict && why.length ? ` — ${why.join('; ')}` : ''}`;
  // The experiment's answer (E1: each phase against load), with the batches it rests on.
  const n = Object.fromEntries(phases.map((p) => [p.phase, p.batches]));
  const ratioN = (name) => name.split('/').map((ph) => `${ph} ${n[ph] ?? '-'}`).join(', ');

  const rows = phases.map((p) => `<tr data-phase="${esc(p.phase)}"><th scope="row">${esc(p.phase)}</th><td>${esc(ops[p.phase] || '')}</td>` +
    `<td>${p.batches}</td><td>${p.docs_ok}</td><td class="${p.docs_failed ? 'bad' : ''}">${p.docs_failed}</td><td>${fmt(p.docs_per_s, 0)}</td><td>${fmt(p.mb_per_s, 2)}</td>` +
    `${STATS.map(([k]) => `<td>${fmt(p.batch_ms[k])}</td>`).join('')}</tr>`).join('\n');
  const failures = phases.filter((p) => p.docs_failed > 0)
    .map((p) => `<li>${esc(p.phase)}: ${p.docs_failed} documents failed — ${Object.entries(p.failed_by_reason).map(([r, c]) => `${esc(r)} ${c}`).join(', ')}</li>`).join('');
  const ratios = Object.entries(json.ratios || {})
    .map(([name, r]) => `<tr><th scope="row">${esc(name)}</th><td>${fmt(r.average, 2)}×</td><td>${fmt(r.median, 2)}×</td><td>${fmt(r.p99, 2)}×</td><td>${esc(ratioN(name))}</td></tr>`).join('\n');
  const v = json.verification || { ran: false };
  const verification = v.ran
    ? `${v.gate === false ? '<p class="muted" id="not-a-gate">not a gate: "verify": false in the threshold file</p>\n' : ''}<p class="${v.count_ok ? 'ok' : 'bad'}">documents: expected ${v.expected}${v.expected_max !== undefined ? `–${v.expected_max}` : ''}, found ${v.found} — ${v.count_ok ? 'OK' : 'FAILED'} (acknowledged new documents: ${v.acknowledged_new})</p>
${v.readback_none ? '<p class="ok">read-back: not part of this run</p>' : `<p class="${v.readback_ok ? 'ok' : 'bad'}">read-back: ${v.readback_checked} overwritten keys checked, ${v.readback_stale_or_missing} stale or missing${v.readback_excused ? `, ${v.readback_excused} excused (later batches to them failed)` : ''}${v.readback_unacknowledged ? `, ${v.readback_unacknowledged} hold a version reported failed` : ''}${v.readback_resolved ? `, ${v.readback_resolved} hold the version of an undetermined batch (resolved: stored)` : ''} — ${v.readback_ok ? 'OK' : v.readback_ok === false ? 'FAILED' : v.readback_unjudged ? 'NOT JUDGED: every key checked is undetermined' : v.readback_by_instances ? 'done by the instances' : 'not judged: the plan did not finish'}</p>`}`
    : `<p class="bad">verification did not run: ${esc(v.why || 'setup or teardown did not finish')}</p>`;
  const thresholds = (json.thresholds || []).map((t) => `<tr class="${t.ok ? 'ok' : 'bad'}"><td>${esc(t.metric)}</td><td>${esc(t.threshold)}</td><td>${fmt(t.observed, 3)}${t.observed !== null && t.observed !== undefined && thresholdUnit(t) ? ` ${thresholdUnit(t)}` : ''}</td><td>${t.ok ? 'passed' : 'FAILED'}</td></tr>`).join('\n');

  const groups = phases.map((p) => p.phase);
  const latencyChart = groupedBars({
    title: 'Time per batch by phase', unit: 'ms', groups,
    series: [['median', 'median'], ['p90', 'p90'], ['p99', 'p99']].map(([name, k]) => ({ name, values: phases.map((p) => p.batch_ms[k]) })),
  });
  const rateChart = groupedBars({ title: 'Documents written per second by phase', unit: 'docs/s', groups, series: [{ name: 'docs/s', values: phases.map((p) => p.docs_per_s) }] });

  return `${pageHead(title)}
${json.test_endpoint ? '<p class="bad" id="test-endpoint">TEST ENDPOINT: a k6-writepath API test server answered, not a database; these figures test the pack and measure no database.</p>\n' : ''}<p class="verdict ${verdict ? 'ok' : 'bad'}" id="verdict">${esc(headline)}</p>
${ratios && !verifyStep ? `<h2>The answer: each phase against load (this run, n=1)</h2><table id="ratios"><thead><tr><th></th><th>average</th><th>median</th><th>p99</th><th>batches</th></tr></thead><tbody>\n${ratios}\n</tbody></table>` : ''}
<p>server: ${esc(server)}${settings ? `<br>settings: ${esc(settings)}` : ''}<br>
${description.line ? `${esc(description.line)}<br>\n` : ''}<span class="muted">started ${esc(json.started_at || '-')}</span></p>
${verifyStep ? '<p id="phases">phases: written by the instances, not by this verify step (each instance\'s report; all of them together: merged-summary.txt, scripts/merge-results.mjs)</p>' : `<h2>Phases</h2>
<table id="phases"><thead><tr><th>phase</th><th>op</th><th>batches</th><th>docs ok</th><th>failed</th><th>docs/s</th><th>MB/s</th>${STATS.map(([, h]) => `<th>${h} ms</th>`).join('')}</tr></thead>
<tbody>
${rows}
</tbody></table>
${failures ? `<ul class="bad">${failures}</ul>` : ''}
<figure>${latencyChart}</figure>
<figure>${rateChart}</figure>
${stagesHtml(json)}${contentionHtml(json)}`}
<h2>Verification</h2>
${verification}
<h2>Thresholds</h2>
<table id="thresholds"><thead><tr><th>metric</th><th>threshold</th><th>observed</th><th>result</th></tr></thead><tbody>
${thresholds}
</tbody></table>
<p class="muted">Percentiles are k6's end-of-run figures over every batch (summary.json); Grafana shows them per time window.</p>
</body></html>
`;
}

// The head of every report page (a run's, a repeated run's): title, styles, the h1.
export function pageHead(title) {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<style>
body{font-family:sans-serif;margin:1.5em;color:#222}table{border-collapse:collapse;margin:.5em 0 1.2em}
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:right}th{background:#f4f4f4}td:first-child,th[scope=row]{text-align:left}
.ok{color:#1a7f37}.bad{color:#c62828;font-weight:bold}.verdict{font-size:1.3em}.muted{color:#666}figure{display:inline-block;margin:0 1em 1em 0}
</style></head><body>
<h1>${esc(title)}</h1>`;
}

// k6's summary data without the metrics that recorded nothing but zeros (the pack declares a
// sub-metric per phase and failure reason so that they are reported; k6-reporter would show each
// as a row of zeros). Metrics with a threshold stay: a passed limit is worth showing.
export function withoutEmptyMetrics(data) {
  const metrics = {};
  for (const [name, m] of Object.entries(data.metrics || {})) {
    const values = Object.values(m.values || {});
    const empty = values.length > 0 && values.every((v) => v === 0 || v === null);
    if (!empty || Object.keys(m.thresholds || {}).length > 0) metrics[name] = m;
  }
  return { ...data, metrics };
}

// Per-stage rows of a ramped run (STAGES / RATE_STAGES; lib/load-model.js), with a chart of
// p50/p99 per stage.
function stagesHtml(json) {
  const st = json.stages || [];
  if (st.length === 0) return '';
  const open = json.load_model && json.load_model.model === 'open';
  const rows = st.map((x) => `<tr data-stage="${x.stage}"><th scope="row">${x.stage}</th><td>${esc(x.load || x.vus)}</td><td>${x.batches}</td><td>${x.docs_ok}</td>` +
    `<td class="${x.docs_failed ? 'bad' : ''}">${x.docs_failed}${x.docs_failed ? ` (${esc(Object.entries(x.failed_by_reason || {}).map(([r, c]) => `${r} ${c}`).join(', '))})` : ''}</td>` +
    `<td>${fmt(x.docs_per_s, 0)}</td><td>${fmt(x.mb_per_s, 2)}</td>${['median', 'p90', 'p99', 'max'].map((k) => `<td>${fmt((x.batch_ms || {})[k])}</td>`).join('')}` +
    `${open ? `<td class="${x.dropped_iterations ? 'bad' : ''}">${x.dropped_iterations ?? '-'}</td>` : ''}</tr>`).join('\n');
  const chart = groupedBars({
    title: 'Time per batch by stage', unit: 'ms', groups: st.map((x) => `${x.stage}: ${x.load || x.vus}`),
    series: [['p50', 'median'], ['p99', 'p99']].map(([name, k]) => ({ name, values: st.map((x) => (x.batch_ms || {})[k] ?? null) })),
  });
  return `<h2>Stages (${open ? 'open model: batches/s' : 'closed model: VUs'} ${esc(json.load_model ? json.load_model.stages : '')})</h2>
<table id="stages"><thead><tr><th>stage</th><th>${open ? 'rate' : 'VUs'}</th><th>batches</th><th>docs ok</th><th>failed</th><th>docs/s</th><th>MB/s</th><th>p50 ms</th><th>p90 ms</th><th>p99 ms</th><th>max ms</th>${open ? '<th>dropped</th>' : ''}</tr></thead><tbody>
${rows}
</tbody></table>
<figure>${chart}</figure>`;
}

// The contention workload (docs/contention.md): one row per step (hot set x load) and a chart
// of operations/s per step, one bar group per hot set and one colour per load.
function contentionHtml(json) {
  const c = json.contention || [];
  if (c.length === 0) return '';
  const open = json.load_model && json.load_model.model === 'open';
  const label = (x) => `${x.hot_keys}${x.spread ? ' (spread)' : ''}`;
  const reasons = (m) => Object.entries(m || {}).map(([r, n]) => `${r} ${n}`).join(', ');
  // A target that counts the conflicts it retried itself (MongoDB): one more column.
  const server = c.some((x) => x.server_conflicts !== null && x.server_conflicts !== undefined);
  const rows = c.map((x) => `<tr data-step="${x.step}"><th scope="row">${esc(label(x))}</th><td>${esc(x.load)}</td><td>${x.ops}</td><td>${fmt(x.ops_per_s, 0)}</td>` +
    `<td>${fmt(x.op_ms.median)}</td><td>${fmt(x.op_ms.p99)}</td>` +
    `<td class="${x.increments_failed ? 'bad' : ''}">${x.increments_failed}${x.increments_failed ? ` (${esc(reasons(x.failed_by_reason))})` : ''}</td>` +
    `<td>${x.retries}${x.retries ? ` (${esc(reasons(x.retries_by_reason))})` : ''}</td>${server ? `<td>${x.server_conflicts ?? '-'}</td>` : ''}<td>${x.vs_spread === null ? '-' : `${fmt(x.vs_spread, 2)}x`}</td></tr>`).join('\n');
  const sets = [...new Set(c.map(label))];
  const loads = [...new Set(c.map((x) => x.load))];
  const chart = groupedBars({
    title: 'Increment operations per second by hot set', unit: 'ops/s', groups: sets,
    series: loads.map((l) => ({ name: `${open ? 'rate' : 'VUs'} ${l}`, values: sets.map((s) => { const x = c.find((y) => label(y) === s && y.load === l); return x ? x.ops_per_s : null; }) })),
  });
  // Time per operation against contention: p50 and p99 of every step (hot set × load).
  const latency = groupedBars({
    title: 'Time per increment operation by step (hot set × load)', unit: 'ms', groups: c.map((x) => `${label(x)} × ${x.load}`),
    series: [['p50', 'median'], ['p99', 'p99']].map(([name, k]) => ({ name, values: c.map((x) => (x.op_ms || {})[k] ?? null) })),
  });
  const v = json.verification || {};
  return `\n<h2>Contention (${open ? 'open model' : 'closed model'} ${esc(json.load_model ? json.load_model.stages : '')} per hot set)</h2>
<table id="contention"><thead><tr><th>hot keys</th><th>${open ? 'rate' : 'VUs'}</th><th>ops</th><th>ops/s</th><th>p50 ms</th><th>p99 ms</th><th>failed increments</th><th>retries</th>${server ? '<th>conflicts retried by the server</th>' : ''}<th>vs spread</th></tr></thead><tbody>
${rows}
</tbody></table>
<figure>${chart}</figure>
<figure>${latency}</figure>
<p class="${v.counters_ok === false ? 'bad' : ''}">${countersJudged(v) === false ? `${esc(countersLine(v))}.` : `Counters read back against the VUs' ledgers: ${v.counters_checked ?? '-'}; lost increments ${v.increments_lost ?? '-'}, phantom ${v.increments_phantom ?? '-'}${v.counters_ok === undefined ? '' : v.counters_ok ? ' — OK' : ' — FAILED'}.`}</p>${v.increments_acknowledged === null || v.increments_acknowledged === undefined || v.counters_checked === null ? '' : `\n<p>${esc(ledgerLine(v))}.</p>`}`;
}
