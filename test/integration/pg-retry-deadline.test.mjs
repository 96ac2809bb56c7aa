// Faults inside a statement on PostgreSQL, on a private server (test/helpers/pgprivate.mjs),
// never the shared one of `make up`:
// - a backend terminated by the server mid-statement (pg_terminate_backend, SQLSTATE 57P01):
//   database/sql would re-execute the statement on a new connection because lib/pq reports
//   the FATAL error as driver.ErrBadConn, and the batch would count as ok. The pack's driver
//   (xk6/driver/postgres) forbids that: the batch fails with reason connection, once.
// - a backend frozen with SIGSTOP: lib/pq's cancel request cannot be answered, so without a
//   client-side deadline the batch would wait until the server wakes up. The pack's driver
//   abandons the connection at TIMEOUT: reason timeout, batch time bounded by TIMEOUT.
// Both: every batch the server committed is reported ok, and no other (a trigger logs the
// stamps of the committed overwrite statements).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { psql, runK6, uniqueRunId } from '../helpers/k6.mjs';
import { startPrivatePg } from '../helpers/pgprivate.mjs';

const scenario = 'scenarios/postgres/insert-vs-overwrite.js';
let pg;

before(async () => { pg = await startPrivatePg({ name: 'pg-retry-deadline' }); });
after(() => { if (pg) pg.stop('fast'); });

async function waitFor(fn, timeoutMs, what) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    try { const v = await fn(); if (v) return v; } catch { /* not yet */ }
    await delay(25);
  }
  throw new Error(`timed out waiting for ${what}`);
}

// A table from a first run (KEEP=1), with a trigger that logs every committed overwrite
// statement's stamp and one that makes every statement of the pack sleep 0.3 s before it
// touches a row (so a statement is reliably in flight, and holds no row lock yet).
async function prepare(runId, env) {
  const table = `k6wp_${runId}`;
  const first = await runK6(scenario, { ...env, PHASES: 'load', KEEP: '1' }, { runId });
  assert.equal(first.code, 0, first.stdout + first.stderr);
  await psql(pg.url, `CREATE TABLE applied_${runId} (stamp text);
    CREATE FUNCTION applied_${runId}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO applied_${runId} SELECT DISTINCT doc->>'w' FROM nt; RETURN NULL; END $$;
    CREATE TRIGGER applied AFTER UPDATE ON ${table} REFERENCING NEW TABLE AS nt FOR EACH STATEMENT EXECUTE FUNCTION applied_${runId}();
    CREATE FUNCTION slow_${runId}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_sleep(0.3); RETURN NULL; END $$;
    CREATE TRIGGER slow BEFORE INSERT ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION slow_${runId}();`);
  return table;
}

async function cleanup(runId) {
  await psql(pg.url, `DROP TABLE IF EXISTS k6wp_${runId}; DROP TABLE IF EXISTS applied_${runId};
    DROP FUNCTION IF EXISTS applied_${runId}(); DROP FUNCTION IF EXISTS slow_${runId}();`);
}

const appliedOverwrites = (runId) => psql(pg.url, `SELECT count(DISTINCT stamp) FROM applied_${runId} WHERE stamp LIKE 'o%'`).then(Number);

test('a statement terminated by the server (57P01) fails its batch once, with reason connection, and is not re-executed', { timeout: 180000 }, async (t) => {
  const runId = uniqueRunId('term');
  const env = { PG_URL: pg.url, DOCS: '2000', BATCH_SIZE: '100', OVERWRITE_BATCHES: '40', MIXED_BATCHES: '0', READBACK: '100000000', TIMEOUT: '20s' };
  await prepare(runId, env);
  try {
    const running = runK6(scenario, { ...env, PHASES: 'load,overwrite', REUSE: '1', KEEP: '1' }, { runId, timeoutMs: 150000 });
    await waitFor(async () => (await appliedOverwrites(runId)) >= 4, 60000, 'the overwrite phase to start');
    // Terminate statements of the run that are in flight (sleeping in the trigger), three times.
    let terminated = 0;
    for (let i = 0; i < 3; i++) {
      terminated += Number(await waitFor(() => psql(pg.url, `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity
        WHERE application_name = 'k6-writepath' AND state = 'active' AND wait_event = 'PgSleep' AND query LIKE 'INSERT INTO%ON CONFLICT%'`).then((n) => Number(n) > 0 && n),
      20000, 'an overwrite statement in flight'));
      await delay(700);
    }
    const r = await running;
    const ow = r.summary.phases.find((p) => p.phase === 'overwrite');
    const why = `${r.stdout}\n${r.stderr}`;
    t.diagnostic(`terminated in flight: ${terminated}; overwrite: ok ${ow.docs_ok}, failed ${JSON.stringify(ow.failed_by_reason)}, exit ${r.code}`);
    assert.equal(r.code, 99, `exit 99: failed documents cross the threshold\n${why}`);
    assert.equal(ow.batches, 40);
    // One failed batch per terminated backend: the statement in flight, never re-executed.
    assert.deepEqual(ow.failed_by_reason, { connection: terminated * 100 }, why);
    assert.equal(ow.docs_ok + ow.docs_failed, 4000);
    // The database's own record: exactly the ok batches were committed.
    assert.equal((await appliedOverwrites(runId)) * 100, ow.docs_ok);
    assert.match(r.stderr, /\[overwrite\] batch of 100 failed \(connection\): (GoError: )?pq: terminating connection due to administrator command \(SQLSTATE 57P01\)/);
    assert.match(r.stderr, /not re-executed/);
  } finally {
    await cleanup(runId);
  }
});

test('a frozen server (SIGSTOP on the backend) ends the batch at TIMEOUT with reason timeout; the run goes on', { timeout: 180000 }, async (t) => {
  const runId = uniqueRunId('frz');
  const env = { PG_URL: pg.url, DOCS: '2000', BATCH_SIZE: '100', OVERWRITE_BATCHES: '60', MIXED_BATCHES: '0', READBACK: '100000000', TIMEOUT: '2s' };
  await prepare(runId, env);
  let pid = null;
  try {
    const running = runK6(scenario, { ...env, PHASES: 'load,overwrite', REUSE: '1', KEEP: '1' }, { runId, timeoutMs: 150000 });
    await waitFor(async () => (await appliedOverwrites(runId)) >= 4, 60000, 'the overwrite phase to start');
    pid = Number(await waitFor(() => psql(pg.url, `SELECT pid FROM pg_stat_activity WHERE application_name = 'k6-writepath'
      AND state = 'active' AND wait_event = 'PgSleep' AND query LIKE 'INSERT INTO%ON CONFLICT%' LIMIT 1`), 20000, 'an overwrite statement in flight'));
    process.kill(pid, 'SIGSTOP');
    // Frozen for 8 s, four times TIMEOUT: the batch must not wait for it.
    await delay(8000);
    process.kill(pid, 'SIGCONT');
    pid = null;
    const r = await running;
    const why = `${r.stdout}\n${r.stderr}`;
    const ow = r.summary.phases.find((p) => p.phase === 'overwrite');
    t.diagnostic(`frozen 8 s, TIMEOUT 2 s: overwrite max batch ${Math.round(ow.batch_ms.max)} ms, failed ${JSON.stringify(ow.failed_by_reason)}, exit ${r.code}`);
    assert.equal(r.code, 99, `exit 99\n${why}`);
    assert.equal(ow.batches, 60, 'the run went on after the frozen batch');
    assert.deepEqual(ow.failed_by_reason, { timeout: 100 }, `${JSON.stringify(ow)}\n${why}`);
    assert.equal(ow.docs_ok, 5900);
    // The frozen batch ended at TIMEOUT (2 s), not when the server woke up (8 s); 2 s of
    // slack for a loaded machine.
    assert.ok(ow.batch_ms.max < 4000, `max batch time ${ow.batch_ms.max} ms, TIMEOUT 2 s`);
    assert.ok(ow.batch_ms.max >= 2000, `the frozen batch waited for TIMEOUT: max ${ow.batch_ms.max} ms`);
    // The abandoned statement was cancelled when the server woke up: not committed.
    await delay(500);
    assert.equal((await appliedOverwrites(runId)) * 100, ow.docs_ok);
    // Sent and never answered: stored or not, as far as anyone could know at the time (here the
    // server cancelled it on waking, which the count above shows).
    assert.match(r.stderr, /\[overwrite\] batch of 100 got no answer \(timeout\): stored or not, counted failed and undetermined \(the verification resolves it\): k6wp-postgres: context deadline exceeded/);
    assert.equal(ow.docs_undetermined, 100);
    // The read-back (every key) finds the keys whose last write was the frozen batch at their
    // earlier version: those undetermined documents failed after all and fail the run (exit 99
    // above); its keys written again later cannot tell, and are not counted.
    assert.ok(ow.docs_failed_known >= 1 && ow.docs_failed_known <= 100, `${JSON.stringify(ow)}\n${why}`);
    assert.ok(r.summary.thresholds.some((x) => x.metric === 'writepath_docs_failed_known{phase:overwrite}' && !x.ok && x.observed === ow.docs_failed_known), why);
  } finally {
    if (pid) process.kill(pid, 'SIGCONT');
    await cleanup(runId);
  }
});

test('a whole frozen server (SIGSTOP on the postmaster too: no cancel request, no new connection answers) still ends batches at TIMEOUT', { timeout: 180000 }, async (t) => {
  const runId = uniqueRunId('frw');
  const env = { PG_URL: pg.url, DOCS: '2000', BATCH_SIZE: '100', OVERWRITE_BATCHES: '60', MIXED_BATCHES: '0', READBACK: '100000000', TIMEOUT: '2s' };
  await prepare(runId, env);
  const postmaster = Number(readFileSync(path.join(pg.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  const stopped = [];
  try {
    const running = runK6(scenario, { ...env, PHASES: 'load,overwrite', REUSE: '1', KEEP: '1' }, { runId, timeoutMs: 150000 });
    await waitFor(async () => (await appliedOverwrites(runId)) >= 4, 60000, 'the overwrite phase to start');
    const pid = Number(await waitFor(() => psql(pg.url, `SELECT pid FROM pg_stat_activity WHERE application_name = 'k6-writepath'
      AND state = 'active' AND wait_event = 'PgSleep' AND query LIKE 'INSERT INTO%ON CONFLICT%' LIMIT 1`), 20000, 'an overwrite statement in flight'));
    process.kill(postmaster, 'SIGSTOP'); stopped.push(postmaster);
    process.kill(pid, 'SIGSTOP'); stopped.push(pid);
    await delay(8000);
    // The postmaster first: it delivers the queued cancel request to the still stopped backend.
    process.kill(postmaster, 'SIGCONT'); stopped.shift();
    await delay(500);
    process.kill(pid, 'SIGCONT'); stopped.shift();
    const r = await running;
    const why = `${r.stdout}\n${r.stderr}`;
    assert.ok(r.summary, `summary.json written\n${why}`);
    const ow = r.summary.phases.find((p) => p.phase === 'overwrite');
    t.diagnostic(`whole server frozen 8 s, TIMEOUT 2 s: overwrite max batch ${Math.round(ow.batch_ms.max)} ms, ok ${ow.docs_ok}, failed ${JSON.stringify(ow.failed_by_reason)}, exit ${r.code}`);
    assert.equal(r.code, 99, `exit 99\n${why}`);
    assert.equal(ow.batches, 60, 'the run went on');
    assert.deepEqual(Object.keys(ow.failed_by_reason), ['timeout'], why);
    assert.ok(ow.docs_failed >= 100, why);
    assert.equal(ow.docs_ok + ow.docs_failed, 6000);
    // TIMEOUT (2 s) + at most 1 s for a cancel request that cannot be delivered, + 2 s of slack.
    assert.ok(ow.batch_ms.max < 5000, `max batch time ${ow.batch_ms.max} ms, TIMEOUT 2 s, frozen 8 s`);
    await delay(1000);
    assert.equal((await appliedOverwrites(runId)) * 100, ow.docs_ok, 'the abandoned statement was cancelled, not committed');
  } finally {
    for (const p of stopped) process.kill(p, 'SIGCONT');
    await cleanup(runId);
  }
});
