// The contention workload (docs/contention.md) with the real k6: exact counters on the real
// PostgreSQL under many VUs and few keys, a database-side fault that silently drops increments
// caught counter by counter (exit 99), conflicts counted by reason on the ArangoDB test server,
// the RavenDB test server, and bad knobs refused with one line (exit 107). No timing asserted.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { influxQuery, k6Bin, localEnv, psql, runK6, startK6, uniqueRunId } from '../helpers/k6.mjs';
import { closeMongo, mongo } from '../helpers/mongo.mjs';
import { repoRoot, startTestServer } from '../helpers/testserver.mjs';
import { dashboardQueries, interpolate, loadDashboards } from '../helpers/grafana.mjs';

const PG = 'scenarios/postgres/contention.js';
let pgUrl;
before(() => { pgUrl = localEnv().PG_URL; });

const rowsOf = (r) => r.summary.contention;

// The contention panels of the shipped dashboard, filled in as Grafana would for one run.
async function panel(title, runId, target, fromMs) {
  const [{ dashboard }] = loadDashboards();
  const vars = { testid: [runId], target: [target], phase: ['contention'] };
  const range = { fromMs, toMs: Date.now() + 60000, intervalMs: 1000 };
  const out = [];
  for (const q of dashboardQueries(dashboard).filter((x) => x.title === title)) {
    const res = await influxQuery(localEnv().INFLUX_URL, interpolate(q.query, vars, range));
    out.push(res.results[0].series || []);
  }
  return out;
}
const sum = (xs, f) => xs.reduce((s, x) => s + f(x), 0);

test('PostgreSQL: 24 VUs on 1 and 3 counters (single and batches of 2): every counter holds exactly its acknowledged increments', async () => {
  for (const [hot, batch] of [['1,3', '1'], ['3', '2']]) {
    const runId = uniqueRunId('ctn');
    const r = await runK6(PG, { PG_URL: pgUrl, STAGES: '2s:24', HOT_KEYS: hot, SPREAD_KEYS: '0', BATCH_SIZE: batch, KEEP: '1' }, { runId });
    const table = `k6wp_${runId}`;
    try {
      assert.equal(r.code, 0, r.stdout + r.stderr);
      const rows = rowsOf(r);
      assert.equal(rows.length, hot.split(',').length);
      assert.ok(rows.every((x) => x.ops > 0 && x.load === '24'), JSON.stringify(rows));
      const acked = sum(rows, (x) => x.increments_ok);
      assert.equal(acked, sum(rows, (x) => x.ops) * Number(batch), 'every operation acknowledged all its increments');
      assert.equal(sum(rows, (x) => x.increments_failed), 0);
      // The database itself: the counters hold the acknowledged increments, no more, no less.
      assert.equal(Number(await psql(pgUrl, `SELECT sum((doc->>'n')::int8) FROM ${table} WHERE key LIKE 'K%'`)), acked);
      assert.equal(Number(await psql(pgUrl, `SELECT count(*) FROM ${table} WHERE key LIKE 'K%'`)), 3);
      const v = r.summary.verification;
      assert.deepEqual([v.counters_checked, v.increments_lost, v.increments_phantom, v.ledger_unstored, v.counters_ok, v.ok], [3, 0, 0, 0, true, true]);
      assert.equal(r.summary.passed, true);
      assert.match(r.stdout, /counters: 3 read back against the VUs' ledgers: lost 0, phantom 0 — OK/);
      // One ledger per VU, stored after the load.
      assert.equal(Number(await psql(pgUrl, `SELECT count(*) FROM ${table} WHERE key LIKE 'L%'`)), 24);
    } finally {
      await psql(pgUrl, `DROP TABLE IF EXISTS ${table}`);
    }
  }
});

// A database-side fault on the counters: a BEFORE UPDATE trigger that, on every `every`-th
// counter update, records the counter in a side table and runs `action` (PL/pgSQL that leaves
// the row to write in NEW or returns OLD). The table comes from a first run (KEEP=1), so that
// the trigger is in place before the measured run reuses it (REUSE=1 empties the table; the
// trigger stays). -> { r: the measured run, hits: Map counter -> times the fault fired }
async function withFault(name, every, action, env, stages, inspect = null) {
  const runId = uniqueRunId(`ctn${name[0]}`);
  const table = `k6wp_${runId}`;
  const first = await runK6(PG, { ...env, STAGES: '1s:1' }, { runId });
  assert.equal(first.code, 0, first.stdout + first.stderr);
  try {
    await psql(pgUrl, `CREATE TABLE hits_${runId} (key text);
      CREATE SEQUENCE seq_${runId};
      CREATE FUNCTION fault_${runId}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF OLD.key LIKE 'K%' AND nextval('seq_${runId}') % ${every} = 0 THEN
            INSERT INTO hits_${runId} VALUES (OLD.key);
            ${action}
          END IF;
          RETURN NEW;
        END $$;
      CREATE TRIGGER ${name} BEFORE UPDATE ON ${table} FOR EACH ROW EXECUTE FUNCTION fault_${runId}();`);
    const fromMs = Date.now();
    const r = await runK6(PG, { ...env, STAGES: stages, REUSE: '1' }, { runId, args: ['--out', `influxdb=${localEnv().INFLUX_URL}`, '--tag', `testid=${runId}`] });
    const hits = new Map((await psql(pgUrl, `SELECT key, count(*) FROM hits_${runId} GROUP BY key`)).split('\n').filter(Boolean)
      .map((l) => l.split('|')).map(([k, n]) => [k, Number(n)]));
    // inspect(table): what the test reads from the database before the table goes (r.extra).
    if (inspect) r.extra = await inspect(table);
    return { r, hits, runId, fromMs };
  } finally {
    await psql(pgUrl, `DROP TABLE IF EXISTS ${table}; DROP TABLE IF EXISTS hits_${runId}; DROP SEQUENCE IF EXISTS seq_${runId}; DROP FUNCTION IF EXISTS fault_${runId}()`);
  }
}

test('PostgreSQL: a trigger that silently drops every 7th counter update fails the run (exit 99) with the lost increments per counter', async () => {
  // RETURN OLD: the row keeps its old value and the statement still reports it updated.
  const { r, hits: dropped, runId, fromMs } = await withFault('drop_some', 7, 'RETURN OLD;', { PG_URL: pgUrl, HOT_KEYS: '4', SPREAD_KEYS: '0', KEEP: '1' }, '2s:8');
  assert.equal(r.code, 99, r.stdout + r.stderr);
  const total = [...dropped.values()].reduce((a, b) => a + b, 0);
  assert.ok(total > 0, 'the fault dropped increments');
  const v = r.summary.verification;
  assert.equal(v.increments_lost, total, 'exactly the dropped increments are reported lost');
  assert.equal(v.increments_phantom, 0);
  assert.equal(v.counters_ok, false);
  assert.equal(v.ok, false);
  assert.equal(r.summary.passed, false);
  // Per counter, in the log: "counter K2 holds 180; acknowledged 203, undetermined 0: 23 lost".
  const out = r.stdout + r.stderr;
  for (const [key, n] of dropped) assert.match(out, new RegExp(`counter ${key} holds \\d+; acknowledged \\d+, undetermined 0: ${n} lost`));
  assert.match(out, new RegExp(`counters: 4 read back against the VUs' ledgers: lost ${total}, phantom 0 — FAILED`));
  assert.ok(r.summary.thresholds.some((t) => t.metric === 'writepath_counter_lost' && !t.ok));
  assert.match(r.junit, /writepath_counter_lost count==0"><failure/);
  // Grafana's table of lost increments per counter shows the same numbers.
  const [lostSeries, phantomSeries] = await panel('Lost and phantom increments per counter', runId, 'postgres', fromMs);
  assert.deepEqual(new Map(lostSeries.map((x) => [x.tags.counter, x.values[0][1]])), dropped);
  assert.deepEqual(phantomSeries, []);
});

test('ArangoDB test server: write-write conflicts (errorNum 1200) are retried and counted by reason per step; counters stay exact', async () => {
  const srv = await startTestServer('arangodb', ['-no-auth', '-upsert-hold-ms', '5']);
  try {
    const runId = uniqueRunId('ctna');
    const fromMs = Date.now();
    const r = await runK6('scenarios/arangodb/contention.js', { ARANGO_URL: srv.url, STAGES: '2s:6', HOT_KEYS: '1', SPREAD_KEYS: '1000', CONFLICT_RETRIES: '2' },
      { runId, args: ['--out', `influxdb=${localEnv().INFLUX_URL}`, '--tag', `testid=${runId}`] });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const [hot, spread] = rowsOf(r);
    assert.ok(hot.retries_by_reason.e1200 > 0, JSON.stringify(hot));
    assert.equal(hot.retries, hot.retries_by_reason.e1200);
    assert.ok(hot.failed_by_reason.e1200 > 0, 'operations still conflicting after 2 retries count as failed increments');
    assert.equal(hot.increments_failed, hot.failed_by_reason.e1200);
    assert.equal(hot.ops, hot.increments_ok + hot.increments_failed);
    assert.equal(spread.spread, true);
    assert.ok(spread.vs_spread === 1 && typeof hot.vs_spread === 'number');
    assert.match(r.stdout, /retries: e1200 \d+/);
    assert.deepEqual([r.summary.verification.increments_lost, r.summary.verification.increments_phantom, r.summary.verification.counters_ok], [0, 0, true]);
    assert.equal(r.summary.test_endpoint, true);
    // The dashboard's conflict panel: retries and failed increments by reason and hot set, as counted.
    const [retries, failed] = await panel('Conflicts by reason: retries and failed increments', runId, 'arangodb', fromMs);
    const total = (series, keys) => series.filter((x) => x.tags.hot_keys === keys).reduce((a, x) => a + x.values.reduce((b, v) => b + (v[1] || 0), 0), 0);
    assert.deepEqual([...new Set(retries.concat(failed).map((x) => x.tags.reason))], ['e1200']);
    for (const row of [hot, spread]) {
      assert.equal(total(retries, String(row.hot_keys)), row.retries);
      assert.equal(total(failed, String(row.hot_keys)), row.increments_failed);
    }
    const [ops] = await panel('Increment operations/s per hot set', runId, 'arangodb', fromMs);
    assert.deepEqual(ops.map((x) => x.tags.hot_keys).sort(), ['1', '1000']);
  } finally {
    await srv.stop();
  }
});

test('RavenDB test server: batches of 3 PATCH increments from 8 VUs on 5 counters; exact, no conflicts', async () => {
  const srv = await startTestServer('ravendb');
  try {
    const r = await runK6('scenarios/ravendb/contention.js', { RAVEN_URL: srv.url, STAGES: '2s:8', HOT_KEYS: '5', SPREAD_KEYS: '0', BATCH_SIZE: '3' });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const [row] = rowsOf(r);
    assert.equal(row.increments_ok, row.ops * 3);
    assert.equal(row.retries, 0);
    assert.deepEqual([r.summary.verification.counters_checked, r.summary.verification.increments_lost, r.summary.verification.counters_ok], [5, 0, true]);
    // The HTML report's contention table and chart.
    const html = readFileSync(path.join(r.dir, 'report.html'), 'utf8');
    assert.equal((html.match(/<tr data-step="/g) || []).length, 1);
    assert.match(html, new RegExp(`<tr data-step="1"><th scope="row">5</th><td>8</td><td>${row.ops}</td>`));
    assert.match(html, /Increment operations per second by hot set/);
    assert.match(html, /lost increments 0, phantom 0 — OK/);
  } finally {
    await srv.stop();
  }
});

test('bad contention knobs: one line naming the knob, exit 107, nothing written', async () => {
  // k6 prints the thrown line JSON-quoted: a value may show as \"0\".
  const kv = (k, v) => `${k}=\\\\?"?${v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\\\?"?`;
  const cases = [
    [{ HOT_KEYS: '0' }, new RegExp(`${kv('HOT_KEYS', '0')} is not allowed: comma-separated hot-set sizes from 1 to 1000000`)],
    [{ HOT_KEYS: '10,abc' }, new RegExp(`${kv('HOT_KEYS', '10,abc')} is not allowed`)],
    [{ HOT_KEYS: '10,10' }, new RegExp(`${kv('HOT_KEYS', '10,10')} is not allowed: 10 appears twice`)],
    [{ HOT_KEYS: '1,10', BATCH_SIZE: '2' }, new RegExp(`${kv('BATCH_SIZE', '2')} is not allowed with HOT_KEYS=1,10: .*hot set 1`)],
    [{ HOT_KEYS: '100', SPREAD_KEYS: '50' }, new RegExp(`${kv('SPREAD_KEYS', '50')} is not allowed with HOT_KEYS=100`)],
    [{ CONFLICT_RETRIES: '-1' }, new RegExp(`${kv('CONFLICT_RETRIES', '-1')} is not allowed`)],
    [{ STAGES: '1s:1', RATE_STAGES: '1s:5' }, new RegExp(`${kv('STAGES', '1s:1')} is not allowed with RATE_STAGES=1s:5`)],
  ];
  for (const [env, re] of cases) {
    const runId = uniqueRunId('ctnb');
    const r = await runK6(PG, { PG_URL: pgUrl, ...env }, { runId });
    assert.equal(r.code, 107, `${JSON.stringify(env)}: ${r.stdout}${r.stderr}`);
    const errors = (r.stdout + r.stderr).split('\n').filter((l) => /level=error/.test(l));
    assert.equal(errors.length, 1, errors.join('\n'));
    assert.match(errors[0], re);
    assert.equal(await psql(pgUrl, `SELECT count(*) FROM pg_class WHERE relname = 'k6wp_${runId}'`), '0');
  }
});

test('scripts/compare puts two targets\' contention runs side by side per step (ops/s, A/B, p99, vs spread, retries, failed) and draws them', async () => {
  const arango = await startTestServer('arangodb', ['-no-auth']);
  const raven = await startTestServer('ravendb');
  try {
    const knobs = { STAGES: '1s:2', HOT_KEYS: '1,5', SPREAD_KEYS: '100' };
    const a = await runK6('scenarios/arangodb/contention.js', { ARANGO_URL: arango.url, ...knobs });
    const b = await runK6('scenarios/ravendb/contention.js', { RAVEN_URL: raven.url, ...knobs });
    assert.equal(a.code, 0, a.stdout + a.stderr);
    assert.equal(b.code, 0, b.stdout + b.stderr);
    const out = mkdtempSync(path.join(tmpdir(), 'k6wp-cmp-'));
    const r = spawnSync(path.join(repoRoot, 'scripts', 'compare'), [a.dir, b.dir, '--out', out], { encoding: 'utf8', cwd: repoRoot });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    const json = JSON.parse(readFileSync(path.join(out, 'compare.json'), 'utf8'));
    // Every step is a row of the comparison (scripts/lib/repeat.mjs runFigures): ops/s, p50, p99, vs spread.
    const steps = json.table.filter((f) => f.phase.startsWith('step '));
    assert.deepEqual([...new Set(steps.map((f) => f.phase))], ['step 1: hot 1 × 2', 'step 2: hot 5 × 2', 'step 3: spread 100 × 2']);
    assert.deepEqual(steps.filter((f) => f.phase === 'step 3: spread 100 × 2').map((f) => f.key), ['ops_per_s', 'batch_p50_ms', 'batch_p99_ms']);
    for (const [i, x] of a.summary.contention.entries()) {
      const f = steps.find((y) => y.phase.startsWith(`step ${i + 1}:`) && y.key === 'ops_per_s');
      assert.deepEqual(f.sides.A.values, [x.ops_per_s]);
      assert.deepEqual(f.sides.B.values, [b.summary.contention[i].ops_per_s]);
      assert.equal(f.vs.B.note, 'n=1: no significance');
    }
    assert.match(r.stdout, /workload: contention · hot sets 1,5 \+ spread 100 counters · STAGES 1s:2 per hot set/);
    assert.match(r.stdout, /step 2: hot 5 × 2/);
    assert.match(readFileSync(path.join(out, 'compare.svg'), 'utf8'), /Increment operations per second per step/);
    // Runs with other steps are refused by the workload check (HOT_KEYS differs).
    const c = await runK6('scenarios/ravendb/contention.js', { RAVEN_URL: raven.url, ...knobs, HOT_KEYS: '1,6' });
    const refused = spawnSync(path.join(repoRoot, 'scripts', 'compare'), [a.dir, c.dir, '--out', out], { encoding: 'utf8', cwd: repoRoot });
    assert.notEqual(refused.status, 0);
    assert.match(refused.stdout + refused.stderr, /refusing to compare runs with different workload settings: HOT_KEYS A=1,5 B=1,6/);
  } finally {
    await arango.stop();
    await raven.stop();
  }
});

test('REPEAT=2 through scripts/run: the aggregate holds every step\'s ops/s, p50, p99 and vs spread of both repetitions', async () => {
  const srv = await startTestServer('ravendb');
  try {
    const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-rep-'));
    const id = uniqueRunId('ctnr').slice(0, 28);
    const r = spawnSync(path.join(repoRoot, 'scripts', 'run'), ['scenarios/ravendb/contention.js', '-q', '-e', 'REPEAT=2', '-e', `RUN_ID=${id}`, '-e', `RESULTS_DIR=${dir}`,
      '-e', 'WP_INFLUX=0', '-e', `RAVEN_URL=${srv.url}`, '-e', 'STAGES=1s:2', '-e', 'HOT_KEYS=1', '-e', 'SPREAD_KEYS=10'], { cwd: repoRoot, encoding: 'utf8', timeout: 120000, env: { ...process.env, K6_NO_USAGE_REPORT: 'true' } });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    const own = [1, 2].map((i) => JSON.parse(readFileSync(path.join(dir, id, `${id}_r0${i}`, 'summary.json'), 'utf8')));
    const agg = JSON.parse(readFileSync(path.join(dir, id, 'summary.json'), 'utf8'));
    assert.deepEqual(agg.contention.map((x) => x.name), ['step 1: hot 1 × 2', 'step 2: spread 10 × 2']);
    assert.deepEqual(agg.contention[0].metrics.ops_per_s.values, own.map((s) => s.contention[0].ops_per_s));
    assert.deepEqual(agg.contention[0].metrics.vs_spread.values, own.map((s) => s.contention[0].vs_spread));
    assert.equal(agg.contention[1].metrics.vs_spread, undefined, 'the baseline has no ratio to itself');
    assert.match(r.stdout, /^step 1: hot 1 × 2\s+increment\s+ops\/s\s+2\s+\d+\s+\d+ – \d+\s+need ≥ 6 runs$/m);
    assert.match(readFileSync(path.join(dir, id, 'report.html'), 'utf8'), /<table id="contention">/);
  } finally {
    await srv.stop();
  }
});

test('thresholds per step: a limit on step 2 (hot 5 × 4 VUs) fails only that step\'s sub-metric (exit 99); counters still verified', async () => {
  const srv = await startTestServer('ravendb', ['-latency-ms', '5']);
  try {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'k6wp-thr-')), 'contention.json');
    writeFileSync(file, JSON.stringify({ phases: { contention: { batch_p99_ms: 10000 } }, stages: { 2: { batch_p99_ms: 1 } }, verify: true }));
    const r = await runK6('scenarios/ravendb/contention.js', { RAVEN_URL: srv.url, STAGES: '1s:1,1s:4', HOT_KEYS: '5', SPREAD_KEYS: '0', THRESHOLDS: file });
    assert.equal(r.code, 99, r.stdout + r.stderr);
    const failed = r.summary.thresholds.filter((t) => !t.ok).map((t) => `${t.metric} ${t.threshold}`);
    assert.deepEqual(failed, ['writepath_batch_duration{stage:2} p(99)<=1']);
    assert.equal(r.summary.verification.counters_ok, true);
  } finally {
    await srv.stop();
  }
});

test('PostgreSQL: a trigger that applies every 5th counter update twice is caught as phantom increments per counter (exit 99)', async () => {
  const { r, hits: doubled } = await withFault('double_some', 5, "NEW.doc := jsonb_set(NEW.doc, '{n}', to_jsonb((NEW.doc->>'n')::int8 + 1));",
    { PG_URL: pgUrl, HOT_KEYS: '3', SPREAD_KEYS: '0', KEEP: '1' }, '2s:6');
  assert.equal(r.code, 99, r.stdout + r.stderr);
  const total = [...doubled.values()].reduce((a, b) => a + b, 0);
  assert.ok(total > 0);
  assert.deepEqual([r.summary.verification.increments_phantom, r.summary.verification.increments_lost, r.summary.verification.counters_ok], [total, 0, false]);
  for (const [key, n] of doubled) assert.match(r.stdout + r.stderr, new RegExp(`counter ${key} holds \\d+; acknowledged \\d+, undetermined 0: ${n} phantom`));
});

test('PostgreSQL: increments whose connection dies are undetermined, neither failed nor lost: every counter holds between acknowledged and acknowledged + undetermined', async () => {
  // Every 4th counter update ends its own session inside the statement (the server closes the
  // connection; the statement is rolled back): the client gets no answer and cannot know
  // whether the increment was applied. No timing involved. Failed increments are allowed by
  // this run's thresholds, so the verdict is the counters'.
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'k6wp-thr-')), 'contention.json');
  writeFileSync(file, JSON.stringify({ phases: { contention: { batch_p99_ms: 100000, failed_docs_max: 1000000 } }, verify: true }));
  const { r, runId } = await withFault('end_some', 4, 'PERFORM pg_terminate_backend(pg_backend_pid());',
    { PG_URL: pgUrl, HOT_KEYS: '2', SPREAD_KEYS: '0', KEEP: '1', THRESHOLDS: file }, '2s:4', async (table) => {
      return Number(await psql(pgUrl, `SELECT sum((doc->>'n')::int8) FROM ${table} WHERE key LIKE 'K%'`));
    });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const rows = rowsOf(r);
  const v = r.summary.verification;
  const undetermined = sum(rows, (x) => x.increments_undetermined);
  assert.ok(undetermined > 0, `some increments lost their connection: ${JSON.stringify(rows.map((x) => x.failed_by_reason))}`);
  assert.equal(undetermined, sum(rows, (x) => (x.failed_by_reason || {}).connection || 0), 'the undetermined increments of the steps are those whose connection died');
  assert.deepEqual([v.increments_acknowledged, v.increments_failed, v.increments_undetermined], [sum(rows, (x) => x.increments_ok), 0, undetermined]);
  // The database's own sum, read before the table was dropped, is the one the run reported;
  // the ended sessions' statements were rolled back, so it is the acknowledged increments.
  assert.equal(v.counters_sum, r.extra, `${runId}: counters' sum in the database`);
  assert.equal(v.counters_sum, v.increments_acknowledged);
  assert.deepEqual([v.increments_lost, v.increments_phantom, v.counters_ok, v.ok, r.summary.passed], [0, 0, true, true, true]);
  assert.ok(r.stdout.split('\n').includes(`increments in the ledgers: ${v.increments_acknowledged} acknowledged, 0 failed (not applied), ${undetermined} undetermined (no answer) — 0 of them applied, ${undetermined} not`), r.stdout);
  assert.match(readFileSync(path.join(r.dir, 'report.html'), 'utf8'), new RegExp(`<p>increments in the ledgers: ${v.increments_acknowledged} acknowledged, 0 failed`));
});

// ---- MongoDB (the mongod of `make up`, bin/k6's module; the database's view through the
// official Node.js driver) ----------------------------------------------------------------
const MONGO = 'scenarios/mongodb/contention.js';
const writeConflicts = async (url) => (await (await mongo(url)).db('admin').command({ serverStatus: 1 })).metrics.operation.writeConflicts;

test('MongoDB: 16 VUs $inc-upsert 1 and 3 counters (single and batches of 2): every counter exact; conflicts the server retried counted per step', async () => {
  const url = localEnv().MONGO_URL;
  try {
    for (const [hot, batch] of [['1,3', '1'], ['3', '2']]) {
      const runId = uniqueRunId('ctnm');
      const before = await writeConflicts(url);
      const fromMs = Date.now();
      const r = await runK6(MONGO, { MONGO_URL: url, STAGES: '2s:16', HOT_KEYS: hot, SPREAD_KEYS: '0', BATCH_SIZE: batch, KEEP: '1' },
        { runId, args: ['--out', `influxdb=${localEnv().INFLUX_URL}`, '--tag', `testid=${runId}`] });
      const after = await writeConflicts(url);
      const coll = (await mongo(url)).db(`k6wp_${runId}`).collection('docs');
      try {
        assert.equal(r.code, 0, r.stdout + r.stderr);
        const rows = rowsOf(r);
        assert.equal(rows.length, hot.split(',').length);
        const acked = sum(rows, (x) => x.increments_ok);
        assert.equal(acked, sum(rows, (x) => x.ops) * Number(batch));
        assert.equal(sum(rows, (x) => x.increments_failed), 0);
        // The database itself, read by another client: the counters hold the acknowledged increments.
        const counters = await coll.find({ _id: /^K/ }).toArray();
        assert.equal(counters.length, 3);
        assert.equal(counters.reduce((a, d) => a + d.n, 0), acked);
        const v = r.summary.verification;
        assert.deepEqual([v.counters_checked, v.increments_lost, v.increments_phantom, v.ledger_unstored, v.increments_acknowledged, v.counters_sum, v.ok],
          [3, 0, 0, 0, acked, acked, true]);
        // One ledger per VU of the ledger step: the 16 writers' and the sampler's (empty).
        assert.equal(await coll.countDocuments({ _id: /^L/ }), 17);
        // Write conflicts the server retried itself: a count per step (server-wide, sampled
        // during the load only), never more than the server counted over the whole run.
        assert.ok(rows.every((x) => Number.isInteger(x.server_conflicts)), JSON.stringify(rows));
        assert.ok(sum(rows, (x) => x.server_conflicts) <= after - before, `${sum(rows, (x) => x.server_conflicts)} > ${after - before}`);
        assert.match(r.stdout, /\(conflicts the server retried itself: serverStatus metrics\.operation\.writeConflicts, server-wide/);
        // Grafana's conflicts panel shows the same server-retried conflicts per hot set.
        const [, , server] = await panel('Conflicts by reason: retries and failed increments', runId, 'mongodb', fromMs);
        const byHot = new Map();
        for (const x of server) byHot.set(x.tags.hot_keys, (byHot.get(x.tags.hot_keys) || 0) + x.values.reduce((a, [, y]) => a + (y || 0), 0));
        for (const row of rows) assert.equal(byHot.get(String(row.hot_keys)) || 0, row.server_conflicts, `hot ${row.hot_keys}: ${JSON.stringify([...byHot])}`);
      } finally {
        await coll.db.dropDatabase();
      }
    }
  } finally {
    await closeMongo();
  }
});

test('MongoDB: a foreign writer that takes 5 increments from K0 and adds 3 to K1 during the run is caught per counter (exit 99)', async () => {
  const url = localEnv().MONGO_URL;
  const runId = uniqueRunId('ctnf');
  const run = startK6(MONGO, { MONGO_URL: url, STAGES: '3s:4', HOT_KEYS: '2', SPREAD_KEYS: '0' }, { runId });
  try {
    await run.waitFor(/writing to database/);
    const coll = (await mongo(url)).db(`k6wp_${runId}`).collection('docs');
    // Each change once its counter exists (setup creates them before the load).
    for (const [id, inc, times] of [['K0', -1, 5], ['K1', 1, 3]]) {
      let done = 0;
      for (let tries = 0; done < times && tries < 500; tries++) {
        done += (await coll.updateOne({ _id: id }, { $inc: { n: inc } })).matchedCount;
        if (done < times) await new Promise((res) => setTimeout(res, 20));
      }
      assert.equal(done, times, `the foreign writer changed ${id} ${times} times`);
    }
    const r = await run.done;
    assert.equal(r.code, 99, r.stdout + r.stderr);
    const v = r.summary.verification;
    assert.deepEqual([v.increments_lost, v.increments_phantom, v.counters_ok, v.ok, r.summary.passed], [5, 3, false, false, false]);
    const out = r.stdout + r.stderr;
    assert.match(out, /counter K0 holds \d+; acknowledged \d+, undetermined 0: 5 lost/);
    assert.match(out, /counter K1 holds \d+; acknowledged \d+, undetermined 0: 3 phantom/);
    assert.match(out, /counters: 2 read back against the VUs' ledgers: lost 5, phantom 3 — FAILED/);
  } finally {
    await closeMongo();
  }
});

test('MongoDB: a user who may not read serverStatus: counters still exact, the server-retried conflicts "not known", never shown as 0', async () => {
  const url = localEnv().MONGO_URL;
  const admin = (await mongo(url)).db('admin');
  const user = `k6wp_ctn_${process.pid}`;
  const pwd = `pw-${process.pid}-${Date.now()}`;
  // Enough to create, write and drop its own database; no clusterMonitor (serverStatus).
  await admin.command({ createUser: user, pwd, roles: ['readWriteAnyDatabase', 'dbAdminAnyDatabase'] });
  try {
    const u = new URL(url);
    u.username = user;
    u.password = pwd;
    const r = await runK6(MONGO, { MONGO_URL: u.toString(), STAGES: '2s:4', HOT_KEYS: '1', SPREAD_KEYS: '0' });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.ok(rowsOf(r).every((x) => x.server_conflicts === null), JSON.stringify(rowsOf(r)));
    assert.equal(r.summary.verification.ok, true);
    assert.ok(r.stdout.includes('(conflicts the server retried itself: not known — serverStatus metrics.operation.writeConflicts could not be read; the log says why)'), r.stdout);
    assert.match(r.stderr, /cannot read the server's conflict count: .*not authorized/i);
  } finally {
    await admin.command({ dropUser: user });
    await closeMongo();
  }
});

// Every VU k6 may hand an increment to stores its ledger and teardown reads it: the ledger step
// runs on k6's whole VU pool. In the open model each stage is a scenario with MAX_VUS of its own
// and k6 sizes the pool for stages whose graceful stops (2 s) overlap the next ones' start (stages
// of 1 s: 3 alive at once; the spread baseline repeats the stages; +1 for MongoDB's sampler VU); a ledger
// step of MAX_VUS VUs left the other VUs' increments in no ledger (a false "phantom").
test('the ledger step covers k6\'s whole VU pool (k6 inspect --execution-requirements): open model with overlapping stages, closed model, the sampler VU', () => {
  const inspect = (scenario, env) => {
    const r = spawnSync(k6Bin, ['inspect', '--execution-requirements', ...Object.entries({ GATEWAY_URL: 'http://127.0.0.1:9', ...env }).flatMap(([k, v]) => ['-e', `${k}=${v}`]), scenario], { cwd: repoRoot, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const d = JSON.parse(r.stdout);
    return [d.maxVUs, d.scenarios.ledger.vus];
  };
  const cases = [
    ['scenarios/postgres/contention.js', { HOT_KEYS: '1,100', RATE_STAGES: '20s:500,20s:2000', MAX_VUS: '40' }, 80],
    ['scenarios/postgres/contention.js', { HOT_KEYS: '10', RATE_STAGES: '1s:50,1s:60,1s:70', MAX_VUS: '40' }, 120],
    ['scenarios/postgres/contention.js', {}, null],
    ['scenarios/mongodb/contention.js', { MONGO_URL: 'mongodb://127.0.0.1:9/', HOT_KEYS: '10', RATE_STAGES: '1s:50,1s:60', MAX_VUS: '40' }, 121],
  ];
  for (const [scenario, env, pool] of cases) {
    const [maxVUs, ledger] = inspect(scenario, env);
    assert.equal(ledger, maxVUs, `${scenario} ${JSON.stringify(env)}: k6's pool ${maxVUs}, ledger step ${ledger} VUs`);
    if (pool !== null) assert.equal(maxVUs, pool, `${scenario} ${JSON.stringify(env)}`);
  }
});
