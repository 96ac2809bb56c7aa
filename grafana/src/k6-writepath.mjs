// Source of grafana/provisioning/dashboards/k6-writepath.json (Grafana 9.5.21, InfluxQL).
//   node grafana/src/k6-writepath.mjs > grafana/provisioning/dashboards/k6-writepath.json
// (`make dashboards` does it; test/unit/grafana.test.mjs fails when the JSON is stale.)
// Every latency figure is a percentile of the raw batch times in a window (percentile("value", N)
// GROUP BY time): averaging per-interval percentiles lies (grafana#6053), so no panel does it.
import { M } from '../../lib/metric-names.js';

const DS = { type: 'influxdb', uid: 'k6-influxdb' };
const RUN = '"testid" =~ /^$testid$/ AND $timeFilter';
const WRITES = '"testid" =~ /^$testid$/ AND "target" =~ /^$target$/ AND "phase" =~ /^$phase$/ AND $timeFilter';

let nextId = 1;
function target(refId, query, alias) {
  return { refId, datasource: DS, rawQuery: true, resultFormat: 'time_series', query, ...(alias ? { alias } : {}) };
}

function timeseries(title, description, gridPos, targets, { unit = 'short', bars = false, stack = false } = {}) {
  return {
    id: nextId++, type: 'timeseries', title, description, datasource: DS, gridPos, targets,
    fieldConfig: {
      defaults: {
        unit,
        custom: { drawStyle: bars ? 'bars' : 'line', lineWidth: 1, pointSize: 5, showPoints: 'always', spanNulls: false, fillOpacity: bars ? 80 : 10, stacking: { mode: stack ? 'normal' : 'none', group: 'A' } },
      },
      overrides: [],
    },
    options: { legend: { displayMode: 'table', placement: 'bottom', calcs: ['max', 'mean'] }, tooltip: { mode: 'multi', sort: 'desc' } },
  };
}

function table(title, description, gridPos, targets, unit = 'short') {
  return {
    id: nextId++, type: 'table', title, description, datasource: DS, gridPos, targets,
    fieldConfig: { defaults: { unit }, overrides: [] },
    options: { showHeader: true },
    transformations: [{ id: 'seriesToRows', options: {} }],
  };
}

function row(title, y, extra = {}) {
  return { id: nextId++, type: 'row', title, collapsed: false, gridPos: { h: 1, w: 24, x: 0, y }, panels: [], ...extra };
}

function tagVar(name, label, query, { multi }) {
  return {
    name, label, type: 'query', datasource: DS, query, definition: query, refresh: 2,
    // Newest run first: RUN_IDs start with a UTC timestamp.
    sort: name === 'testid' ? 2 : 1,
    multi, includeAll: multi, current: {}, options: [], hide: 0,
  };
}

const pct = (n, measurementFilter, groupBy) =>
  `SELECT percentile("value", ${n}) FROM "${M.batchDuration}" WHERE ${measurementFilter} GROUP BY time($__interval), ${groupBy} fill(none)`;

export function dashboard() {
  nextId = 1;
  const panels = [];
  panels.push(row('Writes (all selected phases and targets)', 0));
  panels.push(timeseries('Batch latency p50 / p90 / p99 per phase',
    'Percentiles of the raw batch times (one sample per batch request/statement) in each window, per phase and target. End-of-run figures: results/<RUN_ID>/summary.json.',
    { h: 9, w: 12, x: 0, y: 1 },
    [50, 90, 99].map((n, i) => target('ABC'[i], pct(n, WRITES, '"phase", "target"'), `p${n} $tag_phase $tag_target`)), { unit: 'ms' }));
  panels.push(timeseries('Documents written per second, per phase and target',
    'Acknowledged documents (writepath_docs_ok) summed per window and divided by the window length.',
    { h: 9, w: 12, x: 12, y: 1 },
    [target('A', `SELECT sum("value") * 1000 / $__interval_ms FROM "${M.docsOk}" WHERE ${WRITES} GROUP BY time($__interval), "phase", "target" fill(0)`, '$tag_phase $tag_target')],
    { unit: 'short' }));
  panels.push(timeseries('Failed documents by reason',
    'Documents the database did not write, per reason (SQL error class, ArangoDB errorNum, HTTP status, timeout, connection) and phase. Empty = nothing failed.',
    { h: 8, w: 12, x: 0, y: 10 },
    [target('A', `SELECT sum("value") FROM "${M.docsFailed}" WHERE ${WRITES} GROUP BY time($__interval), "reason", "phase", "target" fill(none)`, '$tag_reason ($tag_phase, $tag_target)')],
    { bars: true, stack: true }));
  panels.push(timeseries('Share of batches with a failed document',
    'writepath_batch_failed is a k6 Rate (1 = the batch had at least one failed document); its mean per window is the failed share.',
    { h: 8, w: 12, x: 12, y: 10 },
    [target('A', `SELECT mean("value") FROM "${M.batchFailed}" WHERE ${WRITES} GROUP BY time($__interval), "phase", "target" fill(none)`, '$tag_phase $tag_target')],
    { unit: 'percentunit' }));
  panels.push(timeseries('Request payload MB/s per phase',
    'Bytes of the batch bodies sent (writepath_bytes) per window.',
    { h: 8, w: 12, x: 0, y: 18 },
    [target('A', `SELECT sum("value") / 1000000 * 1000 / $__interval_ms FROM "${M.bytes}" WHERE ${WRITES} GROUP BY time($__interval), "phase", "target" fill(0)`, '$tag_phase $tag_target')]));
  panels.push(table('Phase wall time (s)',
    'Last batch end minus first batch start of each phase (writepath_phase_clock holds epoch ms at batch start and end).',
    { h: 8, w: 12, x: 12, y: 18 },
    [target('A', `SELECT (max("value") - min("value")) / 1000 AS "wall_s", count("value") / 2 AS "batches" FROM "${M.phaseClock}" WHERE ${WRITES} GROUP BY "phase", "target"`)], 'short'));

  panels.push(row('Load generator (k6)', 26));
  panels.push(timeseries('VUs and iterations/s',
    'Active virtual users (k6 vus) and completed iterations per second; one iteration writes one batch.',
    { h: 8, w: 12, x: 0, y: 27 },
    [
      target('A', `SELECT max("value") FROM "vus" WHERE ${RUN} GROUP BY time($__interval) fill(none)`, 'VUs'),
      target('B', `SELECT sum("value") * 1000 / $__interval_ms FROM "iterations" WHERE ${RUN} GROUP BY time($__interval), "scenario" fill(0)`, 'iterations/s $tag_scenario'),
    ]));
  panels.push(timeseries('Dropped iterations (open model)',
    'Iterations an arrival-rate scenario could not start because no VU was free: the load generator, not the database, limited the rate. Empty for closed-model runs.',
    { h: 8, w: 12, x: 12, y: 27 },
    [target('A', `SELECT sum("value") FROM "dropped_iterations" WHERE ${RUN} GROUP BY time($__interval), "scenario" fill(none)`, 'dropped $tag_scenario')],
    { bars: true }));
  panels.push(table('Verification (teardown)',
    'Expected vs. found documents and stale/missing read-back keys, written once by teardown. found must equal expected, stale must be 0.',
    { h: 6, w: 24, x: 0, y: 35 },
    [target('A', `SELECT last("value") FROM "${M.verifyExpected}", "${M.verifyFound}", "${M.verifyMismatch}", "${M.readbackChecked}", "${M.readbackStale}" WHERE ${RUN}`)]));

  // One row per selected phase (Grafana repeats the row for each value of $phase).
  panels.push(row('Phase $phase', 41, { repeat: 'phase', repeatDirection: 'h' }));
  panels.push(timeseries('Batch latency in $phase: p50 / p90 / p99 / max',
    'Raw-value percentiles of the batch times of this phase, per target.',
    { h: 8, w: 12, x: 0, y: 42 },
    [[50, 'A'], [90, 'B'], [99, 'C']].map(([n, id]) => target(id, pct(n, WRITES, '"target"'), `p${n} $tag_target`))
      .concat([target('D', `SELECT max("value") FROM "${M.batchDuration}" WHERE ${WRITES} GROUP BY time($__interval), "target" fill(none)`, 'max $tag_target')]),
    { unit: 'ms' }));
  panels.push(timeseries('Documents/s in $phase',
    'Acknowledged documents per second in this phase, per target and operation.',
    { h: 8, w: 12, x: 12, y: 42 },
    [target('A', `SELECT sum("value") * 1000 / $__interval_ms FROM "${M.docsOk}" WHERE ${WRITES} GROUP BY time($__interval), "target", "op" fill(0)`, '$tag_target $tag_op')]));

  return {
    uid: 'k6-writepath',
    title: 'k6-writepath: document-store write paths',
    description: 'Batch latency, documents/s and failures per phase and target of k6-writepath runs (InfluxDB 1.x, k6 --out influxdb). Pick a run with testid.',
    tags: ['k6', 'k6-writepath'],
    editable: false,
    schemaVersion: 38,
    version: 1,
    time: { from: 'now-30m', to: 'now' },
    refresh: '',
    timezone: 'browser',
    graphTooltip: 1,
    links: [],
    templating: {
      list: [
        tagVar('testid', 'run (testid)', `SHOW TAG VALUES FROM "${M.batchDuration}" WITH KEY = "testid"`, { multi: false }),
        tagVar('target', 'target', `SHOW TAG VALUES FROM "${M.batchDuration}" WITH KEY = "target" WHERE "testid" =~ /^$testid$/`, { multi: true }),
        tagVar('phase', 'phase', `SHOW TAG VALUES FROM "${M.batchDuration}" WITH KEY = "phase" WHERE "testid" =~ /^$testid$/ AND "target" =~ /^$target$/`, { multi: true }),
      ],
    },
    annotations: {
      list: [
        { builtIn: 1, datasource: { type: 'grafana', uid: '-- Grafana --' }, enable: true, hide: true, iconColor: 'rgba(0, 211, 255, 1)', name: 'Annotations & Alerts', type: 'dashboard' },
        {
          name: 'Phase start', datasource: DS, enable: true, hide: false, iconColor: 'green',
          query: `SELECT first("value") FROM "${M.phaseClock}" WHERE ${WRITES} GROUP BY "phase", "target"`,
          tagsColumn: 'phase,target', textColumn: '',
        },
        {
          name: 'Phase end', datasource: DS, enable: true, hide: false, iconColor: 'red',
          query: `SELECT last("value") FROM "${M.phaseClock}" WHERE ${WRITES} GROUP BY "phase", "target"`,
          tagsColumn: 'phase,target', textColumn: '',
        },
      ],
    },
    panels,
  };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop())) {
  process.stdout.write(`${JSON.stringify(dashboard(), null, 2)}\n`);
}
