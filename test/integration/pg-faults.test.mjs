// Fault: PostgreSQL restarted in the middle of the overwrite phase. Runs against a private
// server of its own (test/helpers/pgprivate.mjs), never the shared one of `make up`.
// What must hold: the run goes on once the server is back, the failed batches are counted
// in their phase with reason "connection", exactly as many batches as the database applied
// are reported ok (a trigger logs every overwrite statement the server committed),
// verification is exact (nothing lost, the keys of failed batches excused), the exit code is
// 99, nothing hangs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { psql, runK6, uniqueRunId } from '../helpers/k6.mjs';
import { startPrivatePg } from '../helpers/pgprivate.mjs';

const scenario = 'scenarios/postgres/insert-vs-overwrite.js';
let pg;

before(async () => { pg = await startPrivatePg({ name: 'pg-restart' }); });
// The private server exists for this file only: stopped afterwards, its data dir kept for next time.
after(() => { if (pg) pg.stop('fast'); });

async function waitFor(fn, timeoutMs, what) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    try { if (await fn()) return; } catch { /* server may be restarting */ }
    await delay(25);
  }
  throw new Error(`timed out waiting for ${what}`);
}

test('PostgreSQL restarted during the overwrite phase: run continues, failures counted by reason, verification exact, exit 99', { timeout: 180000 }, async () => {
  const runId = uniqueRunId('rs');
  const table = `k6wp_${runId}`;
  // 100 keys per batch over 20000 keys: a key is overwritten about 3 times, so writes failed
  // in the outage are often the last ones to a key (excused in the read-back).
  const env = { PG_URL: pg.url, DOCS: '20000', BATCH_SIZE: '100', OVERWRITE_BATCHES: '600', MIXED_BATCHES: '20',
    READBACK: '100000000', TIMEOUT: '10s' };

  // The table comes from a first run (KEEP=1), so that a trigger can log what the server
  // commits before the measured run reuses it (REUSE=1 truncates, the trigger stays).
  const first = await runK6(scenario, { ...env, PHASES: 'load', DOCS: '200', BATCH_SIZE: '100', KEEP: '1' }, { runId });
  assert.equal(first.code, 0, first.stdout + first.stderr);
  await psql(pg.url, `DROP TABLE IF EXISTS applied_${runId};
    CREATE TABLE applied_${runId} (stamp text);
    CREATE FUNCTION applied_${runId}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO applied_${runId} SELECT DISTINCT doc->>'w' FROM nt; RETURN NULL; END $$;
    CREATE TRIGGER applied AFTER UPDATE ON ${table} REFERENCING NEW TABLE AS nt FOR EACH STATEMENT EXECUTE FUNCTION applied_${runId}();`);

  const started = Date.now();
  const running = runK6(scenario, { ...env, REUSE: '1', KEEP: '1' }, { runId, timeoutMs: 150000 });
  let stoppedAt = null;
  await waitFor(async () => Number(await psql(pg.url, `SELECT count(DISTINCT stamp) FROM applied_${runId} WHERE stamp LIKE 'o%'`)) >= 40,
    60000, 'the overwrite phase to start');
  pg.stop('fast');
  stoppedAt = Date.now();
  await delay(2000);
  await pg.start();
  const outageMs = Date.now() - stoppedAt; // longer than 2 s on a busy machine
  const r = await running;
  const elapsed = Date.now() - started;

  try {
    assert.ok(stoppedAt, 'the server was stopped while k6 ran');
    assert.equal(r.code, 99, `exit code 99 (threshold on failures)\n${r.stdout}\n${r.stderr}`);
    assert.ok(elapsed < 120000, `bounded: took ${elapsed} ms`);
    const byPhase = Object.fromEntries(r.summary.phases.map((p) => [p.phase, p]));
    const ow = byPhase.overwrite;
    assert.equal(ow.batches, 600, 'every overwrite batch was attempted');
    assert.ok(ow.docs_failed > 0, 'the outage failed some overwrite batches');
    assert.deepEqual(Object.keys(ow.failed_by_reason), ['connection'], `reasons: ${JSON.stringify(ow.failed_by_reason)}`);
    assert.equal(ow.docs_ok + ow.docs_failed, 60000);
    // The run went on after the restart: the mixed phase (after the outage) all went through.
    assert.equal(byPhase.mixed.docs_failed, 0);
    assert.equal(byPhase.mixed.docs_ok, 2000);
    // Each VU (VUS=2 by default) pauses 0.5 s after a connection failure: the outage costs at
    // most one batch per VU per pause (+ the batches in flight), whatever its measured length.
    const bound = 2 * (Math.ceil(outageMs / 500) + 3) * 100;
    assert.ok(ow.docs_failed <= bound, `a ${outageMs} ms outage costs a few batches per VU, not the phase: ${ow.docs_failed} failed (at most ${bound})`);

    // The database's own record: every overwrite statement it committed left its stamp.
    const applied = Number(await psql(pg.url, `SELECT count(DISTINCT stamp) FROM applied_${runId} WHERE stamp LIKE 'o%'`));
    assert.equal(applied * 100, ow.docs_ok, `batches the server applied (${applied}) = batches reported ok`);

    // Every acknowledged document is there (lost 0). A new document is present without being
    // acknowledged only when the outage met a batch the server committed just before the
    // connection died (the client saw a failure): at most the failed new documents, and the
    // summary names them as unexpected instead of hiding them.
    const v = r.summary.verification;
    const newFailed = byPhase.load.docs_failed + byPhase.mixed.docs_failed;
    assert.equal(v.lost, 0, 'no acknowledged document is missing');
    assert.equal(v.found, v.acknowledged_new + v.unexpected);
    assert.ok(v.unexpected <= newFailed, `unexpected ${v.unexpected} <= failed new ${newFailed}`);
    assert.equal(v.expected_by_plan - v.acknowledged_new, newFailed, 'the plan minus the acknowledged = the failed new documents');
    assert.equal(Number(await psql(pg.url, `SELECT count(*) FROM ${table}`)), v.found, 'verification counted what the table holds');
    // The read-back judges each key against its last ACKNOWLEDGED writer (lib/readback.js).
    // The server applied exactly the batches reported ok (above), so no write was lost: no key
    // is stale. Keys are overwritten about 3 times each, so some failed batch was the plan's
    // last write to its key (about 5 % of the failed documents): those keys hold the previous
    // acknowledged version and are excused, not stale (the plan's last writer was expected
    // before, which reported them as damage), never more than the failed documents.
    assert.equal(v.readback_stale_or_missing, 0, r.stdout);
    assert.ok(v.readback_excused > 0 && v.readback_excused <= ow.docs_failed, `excused ${v.readback_excused}, failed ${ow.docs_failed}`);
    assert.equal(v.readback_unacknowledged, 0, 'no batch reported failed was applied');
    assert.equal(v.readback_ok, true);
    assert.match(r.stdout, /overwrite: \d+ documents failed: connection \d+/);
    assert.match(r.stderr, /\[overwrite\] batch of 100 failed \(connection\)/);
    assert.doesNotMatch(r.stdout + r.stderr, /k6wp-private-pw/, 'password never printed');
  } finally {
    await pg.start();
    await psql(pg.url, `DROP TABLE IF EXISTS ${table}; DROP TABLE IF EXISTS applied_${runId}; DROP FUNCTION IF EXISTS applied_${runId}()`);
  }
});

// Faults after which going on is pointless: the run must stop within seconds with one line
// naming the cause, not fail batch after batch until MAX_DURATION.
async function faultDuringOverwrite(fault, { runId, env }) {
  const started = Date.now();
  const running = runK6(scenario, { PG_URL: pg.url, DOCS: '20000', BATCH_SIZE: '100', OVERWRITE_BATCHES: '3000', MIXED_BATCHES: '0', TIMEOUT: '10s', ...env }, { runId, timeoutMs: 120000 });
  await waitFor(async () => Number(await psql(pg.url, `SELECT count(*) FROM pg_stat_activity WHERE application_name = 'k6-writepath' AND query LIKE '%ON CONFLICT%'`)) > 0,
    60000, 'the overwrite phase to start');
  const faultAt = Date.now();
  await fault();
  const r = await running;
  return { r, afterFaultMs: Date.now() - faultAt, totalMs: Date.now() - started };
}

// Failed documents by reason over all phases: when the fault lands, one VU may still be in
// its load phase while the other already overwrites (each VU goes through its own share of
// the phases), so the batch that meets the fault can belong to either phase.
function failedByReason(r) {
  const out = {};
  for (const p of r.summary.phases) for (const [k, v] of Object.entries(p.failed_by_reason)) out[k] = (out[k] || 0) + v;
  return out;
}

function oneAbortLine(r) {
  const errors = r.stderr.split('\n').filter((l) => /level=error/.test(l) && /test aborted/.test(l));
  assert.equal(errors.length, 1, r.stderr);
  return errors[0];
}

test('the run\'s table dropped during the overwrite phase: one clear line, abort within seconds, exit 108', { timeout: 120000 }, async () => {
  const runId = uniqueRunId('dt');
  const { r, afterFaultMs } = await faultDuringOverwrite(() => psql(pg.url, `DROP TABLE k6wp_${runId}`), { runId, env: {} });
  assert.equal(r.code, 108, r.stdout + r.stderr);
  assert.match(oneAbortLine(r), /the run's table disappeared during the run: .*does not exist/);
  assert.ok(afterFaultMs < 15000, `aborted ${afterFaultMs} ms after the drop`);
  const ow = r.summary.phases.find((p) => p.phase === 'overwrite');
  assert.ok(ow.batches < 3000, `stopped early: ${ow.batches} of 3000 batches`);
  const failed = failedByReason(r);
  assert.ok((failed.undefined_table || 0) > 0, `the batch that met the missing table is counted: ${JSON.stringify(failed)}`);
});

test('authentication refused after a reconnect in the middle of a run: one clear line, abort, password not printed', { timeout: 120000 }, async () => {
  const runId = uniqueRunId('au');
  // A role of this test, so the server's own postgres password never changes.
  const role = `k6wp_user_${runId}`.slice(0, 63);
  const before = new URL(pg.url); before.username = role; before.password = 'Canary-Pw-Before-1';
  await psql(pg.url, `CREATE ROLE ${role} LOGIN SUPERUSER PASSWORD 'Canary-Pw-Before-1'`);
  try {
    const { r, afterFaultMs } = await faultDuringOverwrite(async () => {
      await psql(pg.url, `ALTER ROLE ${role} PASSWORD 'Canary-Pw-After-2';
        SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '${role}'`);
    }, { runId, env: { PG_URL: before.toString() } });
    assert.equal(r.code, 108, r.stdout + r.stderr);
    assert.match(oneAbortLine(r), /PG_URL: authentication failed: .*password authentication failed for user/);
    assert.ok(afterFaultMs < 15000, `aborted ${afterFaultMs} ms after the password changed`);
    assert.ok(!(r.stdout + r.stderr + JSON.stringify(r.summary)).includes('Canary-Pw'), 'no password printed');
    const failed = failedByReason(r);
    assert.ok((failed.auth || 0) > 0, `the refused batch is counted: ${JSON.stringify(failed)}`);
  } finally {
    await psql(pg.url, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '${role}'`);
    await psql(pg.url, `DROP TABLE IF EXISTS k6wp_${runId}`);
    await psql(pg.url, `DROP ROLE IF EXISTS ${role}`);
  }
});
