// Every query of every provisioned dashboard, with its variables and time range filled in as
// Grafana would, returns data from a real run streamed into the real local InfluxDB.
// The runs, all under one testid: E1 on PostgreSQL; the same with MIXED_OP=insert (documents
// fail, reason unique_violation, k6 exits 99); a tiny open-model run (dropped_iterations).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { influxQuery, localEnv, runK6, uniqueRunId } from '../helpers/k6.mjs';
import { dashboardQueries, formatVar, interpolate, loadDashboards } from '../helpers/grafana.mjs';

const env = localEnv();
const INTERVAL_MS = 1000;

function seriesOf(res, query) {
  const r = res.results[0];
  if (r.error) throw new Error(`InfluxDB error "${r.error}" for: ${query}`);
  return r.series || [];
}

test('every dashboard panel and annotation returns data for a real run', { timeout: 240000 }, async () => {
  const runId = uniqueRunId('dash');
  const fromMs = Date.now() - 60000;
  const influx = ['--out', `influxdb=${env.INFLUX_URL}`, '--tag', `testid=${runId}`];
  const tagsAsFields = { K6_INFLUXDB_TAGS_AS_FIELDS: 'vu:int,iter:int,url' };

  const workload = { PG_URL: env.PG_URL, DOCS: '4000', BATCH_SIZE: '500', OVERWRITE_BATCHES: '6', MIXED_BATCHES: '4', ...tagsAsFields };
  const good = await runK6('scenarios/postgres/insert-vs-overwrite.js', workload, { args: influx, runId });
  assert.equal(good.code, 0, good.stderr);
  const pg = await runK6('scenarios/postgres/insert-vs-overwrite.js', { ...workload, MIXED_OP: 'insert' }, { args: influx, runId: uniqueRunId('dashf') });
  assert.equal(pg.code, 99, `failed documents cross failed_docs_max: exit 99\n${pg.stderr}`);
  const mixed = pg.summary.phases.find((p) => p.phase === 'mixed');
  assert.equal(mixed.docs_failed, 4 * 500, 'each mixed batch holds existing keys, so PostgreSQL fails the whole statement');
  assert.deepEqual(mixed.failed_by_reason, { unique_violation: 2000 });

  const allFailedId = uniqueRunId('dashz');
  const allFailed = await runK6('scenarios/postgres/insert-vs-overwrite.js', { ...workload, DOCS: '1000', PHASES: 'load,mixed', MIXED_OP: 'insert', MIXED_NEW_PERCENT: '0', MIXED_BATCHES: '2' },
    { args: ['--out', `influxdb=${env.INFLUX_URL}`, '--tag', `testid=${allFailedId}`], runId: allFailedId });
  assert.equal(allFailed.code, 99, allFailed.stderr);
  assert.equal(allFailed.summary.phases.find((p) => p.phase === 'mixed').docs_ok, 0, 'every mixed batch failed');
  const open = await runK6('test/integration/fixtures/open-model-drops.js', tagsAsFields, { args: influx, runId: uniqueRunId('drop') });
  assert.equal(open.code, 0, open.stderr);
  assert.match(open.stdout, /dropped_iterations=[1-9]\d*/);
  const toMs = Date.now() + 60000;
  const range = { fromMs, toMs, intervalMs: INTERVAL_MS };

  for (const { file, dashboard } of loadDashboards()) {
    // Variables: their own queries, chained as Grafana resolves them; the run is picked by testid.
    const vars = {};
    for (const v of dashboard.templating.list) {
      const q = interpolate(v.query, vars, range);
      const values = seriesOf(await influxQuery(env.INFLUX_URL, q), q).flatMap((s) => s.values.map((row) => row[1]));
      assert.ok(values.length > 0, `${file}: variable ${v.name} has no values: ${q}`);
      if (v.name === 'testid') {
        assert.ok(values.includes(runId), `${file}: testid values include this run`);
        vars.testid = [runId];
      } else {
        vars[v.name] = [...new Set(values)].sort(); // "All"
      }
    }
    assert.deepEqual(vars.target, ['postgres']);
    assert.deepEqual(vars.phase, ['load', 'mixed', 'overwrite']);

    for (const q of dashboardQueries(dashboard)) {
      const rounds = q.repeat ? vars[q.repeat].map((v) => ({ ...vars, [q.repeat]: [v] })) : [vars];
      for (const filled of rounds) {
        const text = interpolate(q.query, filled, range);
        const series = seriesOf(await influxQuery(env.INFLUX_URL, text), text);
        const label = `${q.title} [${q.refId}]${q.repeat ? ` (${q.repeat}=${filled[q.repeat][0]})` : ''}`;
        assert.ok(series.length > 0 && series.some((s) => s.values && s.values.length > 0), `panel "${label}" returned no data: ${text}`);
      }
    }

    // A few panels checked for the right numbers, not just for data.
    const panel = (title) => dashboardQueries(dashboard).find((q) => q.title === title);
    const rate = panel('Documents written per second, per phase and target');
    const rows = seriesOf(await influxQuery(env.INFLUX_URL, interpolate(rate.query, vars, range)), rate.query);
    const total = rows.reduce((s, ser) => s + ser.values.reduce((a, [, v]) => a + (v || 0) * INTERVAL_MS / 1000, 0), 0);
    const okInSummary = [good, pg].reduce((t, r) => t + r.summary.phases.reduce((s, p) => s + p.docs_ok, 0), 0);
    assert.equal(Math.round(total), okInSummary, 'docs/s × window length adds up to the acknowledged documents');
    const failedPanel = panel('Failed documents by reason');
    const failed = seriesOf(await influxQuery(env.INFLUX_URL, interpolate(failedPanel.query, vars, range)), failedPanel.query);
    assert.deepEqual(failed.map((s) => `${s.tags.reason}/${s.tags.phase}`), ['unique_violation/mixed']);
    assert.equal(failed[0].values.reduce((a, [, v]) => a + (v || 0), 0), 2000);
    // A phase in which every batch failed: its own run (own testid), docs/s shows 0, not nothing.
    const docsIn = dashboardQueries(dashboard).find((q) => q.title === 'Documents/s in $phase');
    const onlyFailed = { ...vars, testid: [allFailed.runId], phase: ['mixed'] };
    const zero = seriesOf(await influxQuery(env.INFLUX_URL, interpolate(docsIn.query, onlyFailed, range)), docsIn.query);
    assert.ok(zero.length > 0, 'the all-failed phase has a docs/s series');
    const points = zero.flatMap((ser) => ser.values.map(([, v]) => v));
    assert.ok(points.length > 0 && points.every((v) => v === 0), `every docs/s point is 0: ${points}`);
    const p99 = panel('Batch latency p50 / p90 / p99 per phase');
    assert.ok(p99, 'latency panel exists');
    assert.equal(formatVar(vars.phase), '(load|mixed|overwrite)');
  }
});
