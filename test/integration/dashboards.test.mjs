// Every query of every provisioned dashboard, with its variables and time range filled in as
// Grafana would, returns data from a real run streamed into the real local InfluxDB.
// The runs, all under one testid: E1 on PostgreSQL; the same with MIXED_OP=insert (documents
// fail, reason unique_violation, k6 exits 99); the same on MongoDB with ordered batches (target
// mongodb: each mixed batch fails at its first existing key, e11000, the rest not_attempted);
// a tiny open-model run (dropped_iterations).
// The per-stage panels and the TEST ENDPOINT banner are checked with a second run under its own
// testid: a ramped open-model E1 run against the RavenDB API test server with lost connections and a
// fixed answer latency, so that it has stages, failed documents, dropped iterations and the
// test_endpoint tag.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { influxQuery, localEnv, runK6, uniqueRunId } from '../helpers/k6.mjs';
import { dashboardQueries, formatVar, interpolate, loadDashboards, valueMappingResult } from '../helpers/grafana.mjs';
import { startTestServer } from '../helpers/testserver.mjs';
import { DROPPED_STAGE_REGEX } from '../../grafana/src/k6-writepath.mjs';

const env = localEnv();
const INTERVAL_MS = 1000;

// Queries that only return data for ramped runs (tag stage, the stage scenarios' drops) or for
// runs against an API test server (tag test_endpoint): checked by the second test.
const rampedOrTestEndpoint = (q) => /"stage" =~ |"test_endpoint" = |"scenario" =~ /.test(q.query);
// The contention workload's panels (its operations, retries, per-counter verification): empty
// for every other workload; test/integration/contention.test.mjs checks them on its runs.
const contention = (q) => /"phase" = 'contention'|writepath_counter_(lost|phantom)|writepath_retries/.test(q.query);

// Grafana resolves the variables in order, each from its own query; the run is picked by testid.
async function resolveVars(dashboard, file, runId, range) {
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
  return vars;
}

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
  const mongo = await runK6('scenarios/mongodb/insert-vs-overwrite.js', { ...workload, PG_URL: undefined, MONGO_URL: env.MONGO_URL, MIXED_OP: 'insert', MONGO_ORDERED: '1' },
    { args: influx, runId: uniqueRunId('dashm') });
  assert.equal(mongo.code, 99, mongo.stderr);
  assert.deepEqual(mongo.summary.phases.find((p) => p.phase === 'mixed').failed_by_reason, { e11000: 4, not_attempted: 996 },
    'an ordered batch stops at its first existing key (the 250 new ones come first)');

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
    const vars = await resolveVars(dashboard, file, runId, range);
    assert.deepEqual(vars.target, ['mongodb', 'postgres']);
    assert.deepEqual(vars.phase, ['load', 'mixed', 'overwrite']);

    for (const q of dashboardQueries(dashboard)) {
      if (rampedOrTestEndpoint(q) || contention(q)) {
        // Fixed-plan runs on PostgreSQL and MongoDB: no stage, no test endpoint, no contention, so these stay empty.
        const text = interpolate(q.query, vars, range);
        assert.deepEqual(seriesOf(await influxQuery(env.INFLUX_URL, text), text), [], `"${q.title}" is empty for fixed-plan database runs: ${text}`);
        continue;
      }
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
    const okInSummary = [good, pg, mongo].reduce((t, r) => t + r.summary.phases.reduce((s, p) => s + p.docs_ok, 0), 0);
    assert.equal(Math.round(total), okInSummary, 'docs/s × window length adds up to the acknowledged documents');
    const failedPanel = panel('Failed documents by reason');
    const failed = seriesOf(await influxQuery(env.INFLUX_URL, interpolate(failedPanel.query, vars, range)), failedPanel.query);
    const byReason = Object.fromEntries(failed.map((ser) => [`${ser.tags.reason}/${ser.tags.phase}/${ser.tags.target}`, ser.values.reduce((a, [, v]) => a + (v || 0), 0)]));
    assert.deepEqual(byReason, { 'e11000/mixed/mongodb': 4, 'not_attempted/mixed/mongodb': 996, 'unique_violation/mixed/postgres': 2000 });
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

test('per-stage panels and the TEST ENDPOINT banner: a ramped run on the RavenDB API test server', { timeout: 240000 }, async () => {
  const srv = await startTestServer('ravendb', []);
  const runId = uniqueRunId('dashst');
  const closedId = uniqueRunId('dashcl');
  const fromMs = Date.now() - 60000;
  let r;
  let closed;
  try {
    // A quarter of the batch requests lose their connection half way through the body (a 503
    // would be a "not now" the pack sends again, lib/targets/outcome.js), every answer takes 100 ms:
    // one VU can start at most ~10 batches/s, so the 20/s stage drops iterations whatever the
    // machine's speed; the 4/s stage needs under half of the VU's time.
    const faults = async () => {
      const f = await fetch(`${srv.url}/_testserver/faults`, { method: 'POST', body: JSON.stringify({ dropConnectionRate: 0.25, latencyMs: 100, seed: 1 }) });
      assert.equal(f.status, 200, await f.text());
    };
    await faults();
    r = await runK6('scenarios/ravendb/insert-vs-overwrite.js', {
      RAVEN_URL: srv.url, RATE_STAGES: '2s:4,2s:20', PHASES: 'load', BATCH_SIZE: '50', VUS: '1', MAX_VUS: '1', RUN_ID: runId,
      K6_INFLUXDB_TAGS_AS_FIELDS: 'vu:int,iter:int,url',
    }, { args: ['--out', `influxdb=${env.INFLUX_URL}`, '--tag', `testid=${runId}`], runId });
    // The closed model (STAGES, same faults) tags its batches the same way and drops nothing.
    await faults();
    closed = await runK6('scenarios/ravendb/insert-vs-overwrite.js', {
      RAVEN_URL: srv.url, STAGES: '1s:1,1s:2', PHASES: 'load', BATCH_SIZE: '50', RUN_ID: closedId, K6_INFLUXDB_TAGS_AS_FIELDS: 'vu:int,iter:int,url',
    }, { args: ['--out', `influxdb=${env.INFLUX_URL}`, '--tag', `testid=${closedId}`], runId: closedId });
  } finally {
    await srv.stop();
  }
  const explain = `exit ${r.code}\n${r.stdout}\n${r.stderr.slice(-3000)}`;
  assert.equal(r.code, 99, `lost connections are failed documents: exit 99\n${explain}`);
  assert.equal(r.summary.test_endpoint, true, explain);
  const stages = r.summary.stages;
  assert.deepEqual(stages.map((x) => x.load), ['4/s', '20/s']);
  assert.ok(stages.every((x) => (x.failed_by_reason.connection || 0) > 0), `failures in every stage: ${JSON.stringify(stages.map((x) => x.failed_by_reason))}`);
  assert.ok(stages[1].dropped_iterations > 0, `the 20/s stage drops iterations: ${stages.map((x) => x.dropped_iterations)}`);
  const range = { fromMs, toMs: Date.now() + 60000, intervalMs: INTERVAL_MS };
  const run = async (text) => seriesOf(await influxQuery(env.INFLUX_URL, text), text);

  for (const { file, dashboard } of loadDashboards()) {
    const vars = await resolveVars(dashboard, file, runId, range);
    assert.deepEqual(vars.target, ['ravendb']);
    assert.deepEqual(vars.phase, ['load']);
    const queries = dashboardQueries(dashboard);
    const checked = queries.filter((q) => rampedOrTestEndpoint(q) && !contention(q));
    assert.deepEqual(checked.map((q) => q.title).sort(), ['Batch latency p50 / p99 per stage', 'Batch latency p50 / p99 per stage',
      'Batch time per stage, whole stage (ms)', 'Documents/s per stage', 'Dropped iterations per stage (open model)', 'Endpoint of the selected run',
      'Failed documents by reason per stage', 'annotation: TEST ENDPOINT']);
    for (const q of checked) {
      const text = interpolate(q.query, vars, range);
      const series = await run(text);
      assert.ok(series.some((s) => s.values && s.values.length > 0), `"${q.title}" [${q.refId}] returned no data: ${text}`);
      if (/"stage"/.test(q.query)) assert.deepEqual([...new Set(series.map((s) => s.tags.stage))].sort(), ['1', '2'], `"${q.title}" has both stages`);
    }
    const one = (title) => queries.find((q) => q.title === title);
    const perStage = async (title, fn) => {
      const out = {};
      for (const s of await run(interpolate(one(title).query, vars, range))) {
        const k = fn(s);
        out[k] = (out[k] || 0) + s.values.reduce((a, [, v]) => a + (v || 0), 0);
      }
      return out;
    };
    // docs/s x window = each stage's acknowledged documents.
    const docs = await perStage('Documents/s per stage', (s) => s.tags.stage);
    assert.deepEqual(Object.fromEntries(Object.entries(docs).map(([k, v]) => [k, Math.round(v * INTERVAL_MS / 1000)])),
      Object.fromEntries(stages.map((x) => [String(x.stage), x.docs_ok])));
    // Failed documents per stage and reason = summary.json's stages[].failed_by_reason.
    const failed = await perStage('Failed documents by reason per stage', (s) => `${s.tags.stage}/${s.tags.reason}`);
    assert.deepEqual(failed, Object.fromEntries(stages.flatMap((x) => Object.entries(x.failed_by_reason).map(([reason, n]) => [`${x.stage}/${reason}`, n]))));
    // The whole-stage table: batches and max as k6 counted them, p50 <= p99 <= max.
    const table = await run(interpolate(one('Batch time per stage, whole stage (ms)').query, vars, range));
    assert.deepEqual(table.map((s) => s.tags.stage).sort(), ['1', '2']);
    for (const s of table) {
      const row = Object.fromEntries(s.columns.map((c, i) => [c, s.values[0][i]]));
      const st = stages[Number(s.tags.stage) - 1];
      assert.equal(row.batches, st.batches, `stage ${st.stage} batches`);
      assert.ok(Math.abs(row.max - st.batch_ms.max) < 0.01, `stage ${st.stage} max ${row.max} vs ${st.batch_ms.max}`);
      assert.ok(row.p50 >= 100 && row.p50 <= row.p99 && row.p99 <= row.max, `stage ${st.stage}: 100 ms answers, p50 ${row.p50} <= p99 ${row.p99} <= max ${row.max}`);
    }
    // Dropped iterations: the series of scenario <name>-s<N>, renamed as Grafana's renameByRegex
    // does (the panel's regex and pattern, applied to the series name = the alias $tag_scenario),
    // add up to summary.json's per-stage counts.
    const dq = one('Dropped iterations per stage (open model)');
    const panel = dashboard.panels.find((p) => p.title === dq.title);
    const { regex, renamePattern } = panel.transformations.find((t) => t.id === 'renameByRegex').options;
    assert.equal(regex, DROPPED_STAGE_REGEX);
    const grafanaRegex = new RegExp(`^${regex}$`); // stringToJsRegex of a regex without slashes (see grafana/src)
    const dropped = await perStage(dq.title, (s) => s.tags.scenario.replace(grafanaRegex, renamePattern).replace(/ \(.*\)$/, ''));
    assert.deepEqual(dropped, Object.fromEntries(stages.filter((x) => x.dropped_iterations > 0).map((x) => [`stage ${x.stage}`, x.dropped_iterations])));

    // TEST ENDPOINT: the banner counts this run's batches, and its value mapping turns any count
    // of 1 or more into the words TEST ENDPOINT; for the PostgreSQL run it stays empty (the
    // first test), which Grafana shows as the panel's noValue text.
    const bq = one('Endpoint of the selected run');
    const banner = await run(interpolate(bq.query, vars, range));
    assert.deepEqual(banner.map((s) => [s.tags.target, s.values[0][1]]), [['ravendb', stages.reduce((a, x) => a + x.batches, 0)]]);
    const bp = dashboard.panels.find((p) => p.title === bq.title);
    const shown = valueMappingResult(bp.fieldConfig.defaults.mappings, banner[0].values[0][1]);
    assert.ok(shown, 'the count is mapped');
    assert.match(shown.text, /^TEST ENDPOINT/);
    assert.equal(shown.color, 'red');
    assert.equal(valueMappingResult(bp.fieldConfig.defaults.mappings, 1).text, shown.text, 'a single tagged batch is enough');
    assert.match(bp.fieldConfig.defaults.noValue, /^database/);
    // Closed model: the same stage values and documents; the drop panel stays empty.
    assert.equal(closed.code, 99, `${closed.stdout}\n${closed.stderr.slice(-3000)}`);
    const cvars = await resolveVars(dashboard, file, closedId, range);
    const cdocs = {};
    for (const ser of await run(interpolate(one('Documents/s per stage').query, cvars, range))) {
      cdocs[ser.tags.stage] = (cdocs[ser.tags.stage] || 0) + Math.round(ser.values.reduce((a, [, v]) => a + (v || 0), 0) * INTERVAL_MS / 1000);
    }
    assert.deepEqual(cdocs, Object.fromEntries(closed.summary.stages.map((x) => [String(x.stage), x.docs_ok])));
    assert.deepEqual(Object.keys(cdocs), ['1', '2']);
    assert.deepEqual(await run(interpolate(dq.query, cvars, range)), [], 'STAGES runs drop nothing');
    const anno = await run(interpolate(one('annotation: TEST ENDPOINT').query, vars, range));
    assert.deepEqual(anno.map((s) => s.tags.target), ['ravendb']);
    assert.match(dashboard.annotations.list.find((a) => a.name === 'TEST ENDPOINT').mappings.text.value, /^TEST ENDPOINT/);
  }
});
