// @ts-check
// Source of grafana/provisioning/dashboards/k6-writepath.json (Grafana 13.2.3, InfluxQL).
//   node grafana/src/k6-writepath.mjs > grafana/provisioning/dashboards/k6-writepath.json
// (`make dashboards` does it; test/unit/grafana.test.mjs fails when the JSON is stale.)
// Typed with Grafana's foundation SDK (@grafana/grafana-foundation-sdk, pinned in package.json):
// every object below is checked by tsc (grafana/jsconfig.json, part of make test) against the
// SDK's dashboard, panel, field config and option types, and every enumerated setting comes from
// the SDK's enums, so a misspelt key or value does not type-check. What the types leave open
// (panel type strings, transformation ids, InfluxQL aliases, variables) is checked by
// grafana/validate.mjs.
// Every latency figure is a percentile of the raw batch times in a window (percentile("value", N)
// GROUP BY time): averaging per-interval percentiles lies (grafana#6053), so no panel and no
// legend does it (latency legends show max and last, never mean).
import * as common from '@grafana/grafana-foundation-sdk/common';
import * as dash from '@grafana/grafana-foundation-sdk/dashboard';
import { M } from '../../lib/metric-names.js';

/** @typedef {import('@grafana/grafana-foundation-sdk/dashboard').Dashboard} Dashboard */
/** @typedef {import('@grafana/grafana-foundation-sdk/dashboard').Panel} Panel */
/** @typedef {import('@grafana/grafana-foundation-sdk/dashboard').RowPanel} RowPanel */
/** @typedef {import('@grafana/grafana-foundation-sdk/dashboard').GridPos} GridPos */
/** @typedef {import('@grafana/grafana-foundation-sdk/dashboard').VariableModel} VariableModel */
/** @typedef {import('@grafana/grafana-foundation-sdk/dashboard').AnnotationQuery} AnnotationQuery */
/** @typedef {import('@grafana/grafana-foundation-sdk/common').DataSourceRef} DataSourceRef */
/** @typedef {import('@grafana/grafana-foundation-sdk/timeseries').Options} TimeseriesOptions */
/** @typedef {import('@grafana/grafana-foundation-sdk/timeseries').FieldConfig} TimeseriesFieldConfig */
/** @typedef {import('@grafana/grafana-foundation-sdk/table').Options} TableOptions */
/** @typedef {import('@grafana/grafana-foundation-sdk/stat').Options} StatOptions */
/** @typedef {import('@grafana/grafana-foundation-sdk/dashboard').DataTransformerConfig} DataTransformerConfig */
/** @typedef {import('./influxql').InfluxQLQuery} InfluxQLQuery */

/** @type {DataSourceRef} */
const DS = { type: 'influxdb', uid: 'k6-influxdb' };
const RUN = '"testid" =~ /^$testid$/ AND $timeFilter';
const WRITES = '"testid" =~ /^$testid$/ AND "target" =~ /^$target$/ AND "phase" =~ /^$phase$/ AND $timeFilter';
// Batches of ramped runs (STAGES / RATE_STAGES): lib/load-model.js tags each with its 1-based
// `stage`; fixed-plan batches have no stage tag and are left out.
const STAGED = `${WRITES} AND "stage" =~ /^[0-9]+$/`;
// Operations of the contention workload: tagged hot_keys (lib/workloads/contention.js).
const CONTENTION = `"testid" =~ /^$testid$/ AND "target" =~ /^$target$/ AND "phase" = 'contention' AND $timeFilter`;
// Points of runs against the project's API test servers carry test_endpoint=true (lib/test-endpoint.js).
const TEST_ENDPOINT = '"testid" =~ /^$testid$/ AND "test_endpoint" = \'true\' AND $timeFilter';

let nextId = 1;
/**
 * @param {string} refId @param {string} query @param {string} [alias]
 * @param {InfluxQLQuery['resultFormat']} [resultFormat]
 * @returns {InfluxQLQuery}
 */
function target(refId, query, alias, resultFormat = 'time_series') {
  return { refId, datasource: DS, rawQuery: true, resultFormat, query, ...(alias ? { alias } : {}) };
}

/**
 * @param {string} title @param {string} description @param {GridPos} gridPos @param {InfluxQLQuery[]} targets
 * @param {{ unit?: string, bars?: boolean, stack?: boolean, latency?: boolean, transformations?: DataTransformerConfig[] }} [opts]
 * @returns {Panel}
 */
function timeseries(title, description, gridPos, targets, { unit = 'short', bars = false, stack = false, latency = false, transformations } = {}) {
  /** @type {TimeseriesFieldConfig} */
  const custom = {
    drawStyle: bars ? common.GraphDrawStyle.Bars : common.GraphDrawStyle.Line, lineWidth: 1, pointSize: 5, showPoints: common.VisibilityMode.Always,
    spanNulls: false, fillOpacity: bars ? 80 : 10, stacking: { mode: stack ? common.StackingMode.Normal : common.StackingMode.None, group: 'A' },
  };
  /** @type {TimeseriesOptions} */
  const options = {
    // A mean of per-window percentiles is no percentile: latency legends show max and last only.
    legend: { displayMode: common.LegendDisplayMode.Table, placement: common.LegendPlacement.Bottom, showLegend: true, calcs: latency ? ['max', 'lastNotNull'] : ['max', 'mean'] },
    tooltip: { mode: common.TooltipDisplayMode.Multi, sort: common.SortOrder.Descending },
  };
  return {
    id: nextId++, type: 'timeseries', title, description, datasource: DS, gridPos, targets: /** @type {any[]} */ (targets),
    fieldConfig: { defaults: { unit, custom }, overrides: [] },
    options,
    ...(transformations ? { transformations } : {}),
  };
}

/**
 * @param {string} title @param {string} description @param {GridPos} gridPos @param {InfluxQLQuery[]} targets
 * @param {string} [unit]
 * @returns {Panel}
 */
function table(title, description, gridPos, targets, unit = 'short') {
  /** @type {TableOptions} */
  const options = { frameIndex: 0, showHeader: true };
  return {
    id: nextId++, type: 'table', title, description, datasource: DS, gridPos, targets: /** @type {any[]} */ (targets),
    fieldConfig: { defaults: { unit }, overrides: [] },
    options,
    transformations: [{ id: 'seriesToRows', options: {} }],
  };
}

/**
 * The TEST ENDPOINT banner: a stat per target counting the selected run's batches (writepath_docs_ok
 * has one point per batch, 0 included) that carry
 * test_endpoint=true. Any such batch turns it red with the words TEST ENDPOINT; none shows
 * the noValue text in green.
 * @param {GridPos} gridPos @returns {Panel}
 */
function testEndpointStat(gridPos) {
  /** @type {StatOptions} */
  const options = {
    graphMode: common.BigValueGraphMode.None, colorMode: common.BigValueColorMode.Background, justifyMode: common.BigValueJustifyMode.Center,
    textMode: common.BigValueTextMode.ValueAndName, wideLayout: true, showPercentChange: false,
    reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false },
    percentChangeColorMode: common.PercentChangeColorMode.Standard, orientation: common.VizOrientation.Auto,
  };
  return {
    id: nextId++, type: 'stat', title: 'Endpoint of the selected run',
    description: 'Batches of the selected run tagged test_endpoint=true, per target: the run wrote to one of the project\'s API test servers (test doubles that check the pack), not to a database. Its figures are no database benchmark. Green "database" = no batch carries the tag.',
    datasource: DS, gridPos,
    targets: /** @type {any[]} */ ([target('A', `SELECT count("value") FROM "${M.docsOk}" WHERE ${TEST_ENDPOINT} GROUP BY "target"`, '$tag_target')]),
    fieldConfig: {
      defaults: {
        unit: 'none', noValue: 'database (no batch tagged test_endpoint)',
        color: { mode: dash.FieldColorModeId.Thresholds },
        thresholds: { mode: dash.ThresholdsMode.Absolute, steps: [{ value: null, color: 'green' }, { value: 1, color: 'red' }] },
        // Open-ended ranges cannot be written as to: null: Grafana's getValueMappingResult
        // (packages/grafana-data/src/utils/valueMappings.ts, read on main) tests !isNaN(to),
        // which is true for null (= 0), so every count >= 1 would miss the range.
        mappings: [{ type: dash.MappingType.RangeToText, options: { from: 1, to: Number.MAX_SAFE_INTEGER, result: { text: 'TEST ENDPOINT (API test server, not a database)', color: 'red', index: 0 } } }],
      },
      overrides: [],
    },
    options,
  };
}

/** @param {string} title @param {number} y @param {string} [repeat] @returns {RowPanel} */
function row(title, y, repeat) {
  return { id: nextId++, type: 'row', title, collapsed: false, gridPos: { h: 1, w: 24, x: 0, y }, panels: [], ...(repeat ? { repeat } : {}) };
}

/** @param {string} name @param {string} label @param {string} query @param {{ multi: boolean }} opts @returns {VariableModel} */
function tagVar(name, label, query, { multi }) {
  return {
    name, label, type: dash.VariableType.Query, datasource: DS, query, definition: query, refresh: dash.VariableRefresh.OnTimeRangeChanged,
    // Newest run first: RUN_IDs start with a UTC timestamp.
    sort: name === 'testid' ? dash.VariableSort.AlphabeticalDesc : dash.VariableSort.AlphabeticalAsc,
    multi, includeAll: multi, options: [], hide: dash.VariableHide.DontHide,
  };
}

/**
 * Current Grafana's annotation form: an InfluxQL query in `target` (table format) and `mappings`
 * from its columns to the annotation's fields (tag columns are named after the tag key).
 * @param {string} name @param {string} iconColor @param {string} query @returns {AnnotationQuery}
 */
function annotation(name, iconColor, query) {
  return {
    name, datasource: DS, enable: true, hide: false, iconColor,
    target: /** @type {any} */ (target('Anno', query, undefined, 'table')),
    mappings: {
      text: { source: dash.AnnotationEventFieldSource.Field, value: 'phase' },
      tags: { source: dash.AnnotationEventFieldSource.Field, value: 'target' },
    },
  };
}

// "<scenario>-s<N>" (lib/load-model.js stageScenario) -> "stage N (<scenario>)" in Grafana's
// renameByRegex transformation. Grafana anchors a regex that does not start with "/" itself
// (new RegExp(`^${str}$`): stringToJsRegex in github.com/grafana/grafana,
// packages/grafana-data/src/text/string.ts, read on main) and renames a field's display name
// with String.replace, so $1/$2 in the pattern are the groups.
export const DROPPED_STAGE_REGEX = '(.*)-s([0-9]+)';

const pct = (n, measurementFilter, groupBy) =>
  `SELECT percentile("value", ${n}) FROM "${M.batchDuration}" WHERE ${measurementFilter} GROUP BY time($__interval), ${groupBy} fill(none)`;

/** @returns {Dashboard} */
export function dashboard() {
  nextId = 1;
  /** @type {(Panel | RowPanel)[]} */
  const panels = [];
  panels.push(testEndpointStat({ h: 3, w: 24, x: 0, y: 0 }));
  panels.push(row('Writes (all selected phases and targets)', 0));
  panels.push(timeseries('Batch latency p50 / p90 / p99 per phase',
    'Percentiles of the raw batch times (one sample per batch request/statement) in each window, per phase and target. End-of-run figures: results/<RUN_ID>/summary.json.',
    { h: 9, w: 12, x: 0, y: 1 },
    [50, 90, 99].map((n, i) => target('ABC'[i], pct(n, WRITES, '"phase", "target"'), `p${n} $tag_phase $tag_target`)), { unit: 'ms', latency: true }));
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
  panels.push(table('Verification',
    'Expected vs. found documents, written once by teardown (found must equal expected), and the read-back of overwritten keys, added by each VU after its last batch: stale must be 0; excused = keys at their last acknowledged version because later batches to them failed.',
    { h: 6, w: 24, x: 0, y: 35 },
    [target('A', `SELECT last("value") FROM "${M.verifyExpected}", "${M.verifyFound}", "${M.verifyMismatch}" WHERE ${RUN}`),
      target('B', `SELECT sum("value") FROM "${M.readbackChecked}", "${M.readbackStale}", "${M.readbackExcused}", "${M.readbackUnacknowledged}" WHERE ${RUN}`)]));

  // Ramped runs: one series (or table row) per stage, next to target; empty for fixed-plan runs.
  panels.push(row('Stages (ramped runs: STAGES / RATE_STAGES; empty for the fixed plan)', 41));
  panels.push(timeseries('Documents/s per stage',
    'Acknowledged documents per second of the batches that started in each stage (tag stage, 1-based; docs/load-models.md). Whole-stage docs/s over the stage\'s wall time: summary.json stages.',
    { h: 8, w: 12, x: 0, y: 42 },
    [target('A', `SELECT sum("value") * 1000 / $__interval_ms FROM "${M.docsOk}" WHERE ${STAGED} GROUP BY time($__interval), "stage", "target" fill(none)`, 'stage $tag_stage $tag_target')]));
  panels.push(timeseries('Batch latency p50 / p99 per stage',
    'Raw-value percentiles of the batch times of each stage in each window.',
    { h: 8, w: 12, x: 12, y: 42 },
    [50, 99].map((n, i) => target('AB'[i], pct(n, STAGED, '"stage", "target"'), `p${n} stage $tag_stage $tag_target`)), { unit: 'ms', latency: true }));
  panels.push(table('Batch time per stage, whole stage (ms)',
    'Percentiles over all raw batch times of each stage (not of windows), per target. k6 interpolates its percentiles, InfluxDB takes the nearest sample, so p50/p99 may differ slightly from summary.json; batches and max agree.',
    { h: 8, w: 12, x: 0, y: 50 },
    [target('A', `SELECT count("value") AS "batches", percentile("value", 50) AS "p50", percentile("value", 99) AS "p99", max("value") AS "max" FROM "${M.batchDuration}" WHERE ${STAGED} GROUP BY "stage", "target"`)], 'ms'));
  panels.push(timeseries('Failed documents by reason per stage',
    'Documents the database did not write, per stage, reason and target. Empty = nothing failed.',
    { h: 8, w: 12, x: 12, y: 50 },
    [target('A', `SELECT sum("value") FROM "${M.docsFailed}" WHERE ${STAGED} GROUP BY time($__interval), "stage", "reason", "target" fill(none)`, 'stage $tag_stage: $tag_reason ($tag_target)')],
    { bars: true, stack: true }));
  panels.push(timeseries('Dropped iterations per stage (open model)',
    'Batches an arrival-rate stage could not start for lack of a free VU. Each RATE_STAGES stage is its own k6 scenario <name>-s<stage>, and k6 tags dropped_iterations with the scenario only; the series are renamed to the stage. Empty for STAGES and fixed-plan runs, and when nothing was dropped.',
    { h: 8, w: 24, x: 0, y: 58 },
    [target('A', `SELECT sum("value") FROM "dropped_iterations" WHERE ${RUN} AND "scenario" =~ /-s[0-9]+$/ GROUP BY time($__interval), "scenario" fill(none)`, '$tag_scenario')],
    { bars: true, transformations: [{ id: 'renameByRegex', options: { regex: DROPPED_STAGE_REGEX, renamePattern: 'stage $2 ($1)' } }] }));

  // The contention workload (scenarios/<target>/contention.js, docs/contention.md): its
  // operations carry hot_keys (the hot-set size of their step) besides stage; empty otherwise.
  panels.push(row('Contention (scenarios/<target>/contention.js; empty for other workloads)', 66));
  panels.push(timeseries('Increment operations/s per hot set',
    'Operations (one atomic increment of BATCH_SIZE distinct counters each; writepath_docs_ok has one point per operation, 0 included) per second, per hot-set size (tag hot_keys) and target. The spread baseline is the largest hot_keys value. Whole-step figures and the ratio to the spread baseline: summary.json contention.',
    { h: 8, w: 12, x: 0, y: 67 },
    [target('A', `SELECT count("value") * 1000 / $__interval_ms FROM "${M.docsOk}" WHERE ${CONTENTION} GROUP BY time($__interval), "hot_keys", "target" fill(none)`, 'hot keys $tag_hot_keys $tag_target')]));
  panels.push(timeseries('Operation latency p50 / p99 per hot set',
    'Raw-value percentiles of the operation times (retries included) per hot-set size in each window.',
    { h: 8, w: 12, x: 12, y: 67 },
    [50, 99].map((n, i) => target('AB'[i], pct(n, CONTENTION, '"hot_keys", "target"'), `p${n} hot keys $tag_hot_keys $tag_target`)), { unit: 'ms', latency: true }));
  panels.push(timeseries('Conflicts by reason: retries and failed increments',
    'Requests sent again after a "not applied, retry" answer (writepath_retries: ArangoDB errorNum 1200 write-write conflict / lock timeout, PostgreSQL deadlock or serialization failure), and increments that failed for good (writepath_docs_failed), per reason and hot-set size. Empty = no conflict.',
    { h: 8, w: 12, x: 0, y: 75 },
    [target('A', `SELECT sum("value") FROM "${M.retries}" WHERE ${CONTENTION} GROUP BY time($__interval), "reason", "hot_keys", "target" fill(none)`, 'retry $tag_reason (hot keys $tag_hot_keys, $tag_target)'),
      target('B', `SELECT sum("value") FROM "${M.docsFailed}" WHERE ${CONTENTION} GROUP BY time($__interval), "reason", "hot_keys", "target" fill(none)`, 'failed $tag_reason (hot keys $tag_hot_keys, $tag_target)')],
    { bars: true, stack: true }));
  panels.push(table('Lost and phantom increments per counter',
    'Written by teardown after it read every counter back against the VUs\' ledgers: lost = acknowledged increments a counter does not hold, phantom = increments it holds beyond the acknowledged and undetermined ones. Any row fails the run (exit 99). Empty = every counter exact. Counters beyond the first 1000 with a discrepancy are summed under "(more)".',
    { h: 8, w: 12, x: 12, y: 75 },
    [target('A', `SELECT sum("value") AS "lost" FROM "${M.counterLost}" WHERE ${RUN} GROUP BY "counter"`),
      target('B', `SELECT sum("value") AS "phantom" FROM "${M.counterPhantom}" WHERE ${RUN} GROUP BY "counter"`)]));

  // One row per selected phase (Grafana repeats the row for each value of $phase).
  panels.push(row('Phase $phase', 83, 'phase'));
  panels.push(timeseries('Batch latency in $phase: p50 / p90 / p99 / max',
    'Raw-value percentiles of the batch times of this phase, per target.',
    { h: 8, w: 12, x: 0, y: 84 },
    /** @type {[number, string][]} */ ([[50, 'A'], [90, 'B'], [99, 'C']]).map(([n, id]) => target(id, pct(n, WRITES, '"target"'), `p${n} $tag_target`))
      .concat([target('D', `SELECT max("value") FROM "${M.batchDuration}" WHERE ${WRITES} GROUP BY time($__interval), "target" fill(none)`, 'max $tag_target')]),
    { unit: 'ms', latency: true }));
  panels.push(timeseries('Documents/s in $phase',
    'Acknowledged documents per second in this phase, per target and operation.',
    { h: 8, w: 12, x: 12, y: 84 },
    [target('A', `SELECT sum("value") * 1000 / $__interval_ms FROM "${M.docsOk}" WHERE ${WRITES} GROUP BY time($__interval), "target", "op" fill(0)`, '$tag_target $tag_op')]));

  // The banner takes the top 3 grid units; everything else sits below it.
  for (const p of panels.slice(1)) p.gridPos = { ...p.gridPos, y: p.gridPos.y + 3 };
  return {
    uid: 'k6-writepath',
    title: 'k6-writepath: document-store write paths',
    description: 'Batch latency, documents/s and failures per phase and target of k6-writepath runs (InfluxDB 1.x, k6 --out influxdb). Pick a run with testid.',
    tags: ['k6', 'k6-writepath'],
    editable: false,
    schemaVersion: 42,
    version: 1,
    time: { from: 'now-30m', to: 'now' },
    refresh: '',
    timezone: 'browser',
    graphTooltip: dash.DashboardCursorSync.Crosshair,
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
        {
          builtIn: 1, datasource: { type: 'grafana', uid: '-- Grafana --' }, enable: true, hide: true, iconColor: 'rgba(0, 211, 255, 1)',
          name: 'Annotations & Alerts', type: 'dashboard',
        },
        annotation('Phase start', 'green', `SELECT first("value") FROM "${M.phaseClock}" WHERE ${WRITES} GROUP BY "phase", "target"`),
        annotation('Phase end', 'red', `SELECT last("value") FROM "${M.phaseClock}" WHERE ${WRITES} GROUP BY "phase", "target"`),
        // A mark on every time-series panel at the first batch of a test-endpoint run, per target.
        {
          ...annotation('TEST ENDPOINT', 'purple', `SELECT first("value") FROM "${M.phaseClock}" WHERE ${TEST_ENDPOINT} GROUP BY "target"`),
          mappings: {
            text: { source: dash.AnnotationEventFieldSource.Text, value: 'TEST ENDPOINT: this run wrote to a k6-writepath API test server, not a database' },
            tags: { source: dash.AnnotationEventFieldSource.Field, value: 'target' },
          },
        },
      ],
    },
    panels,
  };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop())) {
  process.stdout.write(`${JSON.stringify(dashboard(), null, 2)}\n`);
}
