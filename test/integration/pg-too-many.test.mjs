// PostgreSQL's "too many clients" (SQLSTATE 53300, FATAL at connection time) is a "not now"
// answer (docs/postgres.md, "Not now"): setup waits for a connection and the VUs resend their
// batches, both within GIVE_UP, each resend counted; a server that keeps refusing past GIVE_UP
// at setup ends the run with one line naming 53300, exit 108, nothing written. A PostgreSQL of
// this file's own with max_connections=4 and no superuser-reserved slots (the test user is a
// superuser), its slots held by idle psql sessions.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { cutFrame, psql, psqlSession, startK6, uniqueRunId } from '../helpers/k6.mjs';
import { startPrivatePg } from '../helpers/pgprivate.mjs';

const SLOTS = 4;
const explain = (r) => `exit ${r.code}\n${r.stdout}\n${r.stderr}`;
const aborts = (r) => r.stderr.split('\n').filter((l) => /level=error msg="test aborted: /.test(l)).map(cutFrame);

let pg;
before(async () => { pg = await startPrivatePg({ name: 'pg-too-many', settings: [`max_connections=${SLOTS}`, 'superuser_reserved_connections=0'] }); });
after(() => { if (pg) pg.stop('fast'); });

// n idle sessions, each holding a connection slot once it answered.
async function hold(n) {
  const sessions = [];
  for (let i = 0; i < n; i++) {
    const s = psqlSession(pg.url);
    await s.run('SELECT 1;', `held${i}`);
    sessions.push(s);
  }
  return sessions;
}

test('slots held, then released: setup waits, the VUs resend their refused batches (counted), the run goes on and verifies', { timeout: 240000 }, async () => {
  const runId = uniqueRunId('tm');
  const held = await hold(SLOTS);
  let released = false;
  try {
    const run = startK6('scenarios/postgres/insert-vs-overwrite.js',
      { PG_URL: pg.url, VUS: '2', DOCS: '2000', BATCH_SIZE: '100', OVERWRITE_BATCHES: '20', MIXED_BATCHES: '10', GIVE_UP: '60s', TIMEOUT: '5s' }, { runId, timeoutMs: 220000 });
    await run.waitFor(/too many clients \(53300\)/, 60000); // setup is refused and waits
    await delay(1500);
    await held.shift().close(); // one slot: setup's connection
    await run.waitFor(/writing to table/, 60000);
    await delay(3000); // the VUs are refused meanwhile
    await Promise.all(held.splice(0).map((s) => s.close()));
    released = true;
    const r = await run.done;
    assert.equal(r.code, 0, explain(r));
    const s = r.summary;
    const failed = s.phases.reduce((a, p) => a + p.docs_failed, 0);
    const retries = s.phases.reduce((a, p) => a + p.retries, 0);
    assert.equal(failed, 0, JSON.stringify(s.phases));
    assert.ok(retries > 0, `the refused batches were sent again and counted: ${JSON.stringify(s.phases.map((p) => [p.phase, p.retries]))}`);
    assert.match(r.stdout, /requests sent again after the server refused them before doing anything \("not now"\)/);
    assert.match(r.stderr, /batch of 100 failed \(connection\): not sent, the server refused the connection \(\\?"not now\\?", 53300\): [^\n]*too many clients already[^\n]*; nothing was done: sent again after a pause/);
    assert.equal(s.verification.ran, true);
    assert.equal(s.verification.count_ok, true, JSON.stringify(s.verification));
    assert.equal(s.verification.found, s.verification.acknowledged_new);
    assert.equal(await psql(pg.url, `SELECT count(*) FROM pg_class WHERE relname = 'k6wp_${runId}'`), '0', 'dropped by teardown');
  } finally {
    if (!released) await Promise.all(held.map((s) => s.close()));
  }
});

test('slots held for good under a running run: each refused batch is resent for GIVE_UP, then counted failed (connection), not undetermined, named 53300; teardown, refused too, says so: exit 108, the table left and named', { timeout: 240000 }, async () => {
  const runId = uniqueRunId('tg');
  const held = await hold(SLOTS);
  let r;
  try {
    const run = startK6('scenarios/postgres/insert-vs-overwrite.js',
      { PG_URL: pg.url, VUS: '2', DOCS: '2000', BATCH_SIZE: '100', OVERWRITE_BATCHES: '20', MIXED_BATCHES: '0', GIVE_UP: '2s', TIMEOUT: '5s', MAX_DURATION: '10s' }, { runId, timeoutMs: 220000 });
    await run.waitFor(/too many clients \(53300\)/, 60000);
    await held.shift().close(); // setup's connection; the VUs and teardown find no slot for good
    r = await run.done;
  } finally {
    await Promise.all(held.map((x) => x.close()));
  }
  assert.equal(r.code, 108, explain(r));
  const load = r.summary.phases.find((p) => p.phase === 'load');
  assert.ok(load.docs_failed > 0 && load.docs_ok === 0, JSON.stringify(load));
  assert.deepEqual(Object.keys(load.failed_by_reason), ['connection']);
  assert.equal(load.docs_undetermined, 0, 'never sent: not undetermined');
  assert.ok(load.retries > 0, JSON.stringify(load));
  // Resent first, then the same batch counted failed: both lines name 53300; the give-up
  // clock does not run (the server answered).
  assert.match(r.stderr, /batch of 100 failed \(connection\): not sent, the server refused the connection \(\\?"not now\\?", 53300\): [^\n]*too many clients already \(53300\); nothing was done: sent again after a pause/);
  assert.match(r.stderr, /batch of 100 failed \(connection\): not sent, the server refused the connection \(\\?"not now\\?", 53300\): [^\n]*too many clients already \(53300\)" source=console/);
  assert.doesNotMatch(r.stderr, /answered no batch/);
  const lines = aborts(r);
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0], /msg="test aborted: verification did not run to its end: [^"]*too many clients already \(53300\)/);
  assert.match(r.stderr, new RegExp(`table public\\.k6wp_${runId}: left in place: [^\\n]*53300[^\\n]*DROP TABLE`));
  assert.equal(await psql(pg.url, `SELECT count(*) FROM pg_class WHERE relname = 'k6wp_${runId}'`), '1', 'left, as the line says');
  await psql(pg.url, `DROP TABLE k6wp_${runId}`);
});

test('slots held for good: setup gives up after GIVE_UP with one line naming 53300, exit 108, nothing created', { timeout: 240000 }, async () => {
  const runId = uniqueRunId('tn');
  const held = await hold(SLOTS);
  try {
    const run = startK6('scenarios/postgres/insert-vs-overwrite.js',
      { PG_URL: pg.url, VUS: '2', DOCS: '2000', BATCH_SIZE: '100', GIVE_UP: '4s', TIMEOUT: '5s' }, { runId, timeoutMs: 200000 });
    const r = await run.done;
    assert.equal(r.code, 108, explain(r));
    const lines = aborts(r);
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0], /msg="test aborted: PG_URL: PostgreSQL refused the connection: too many clients \(53300\) for GIVE_UP=4s: [^"]*sorry, too many clients already[^"]*nothing was written/);
    assert.doesNotMatch(r.stderr, /cannot reach PostgreSQL/);
    assert.ok(!r.stdout.includes('k6wp-private-pw') && !r.stderr.includes('k6wp-private-pw'), 'the password is not printed');
  } finally {
    await Promise.all(held.map((s) => s.close()));
  }
  assert.equal(await psql(pg.url, `SELECT count(*) FROM pg_class WHERE relname = 'k6wp_${runId}'`), '0', 'nothing created');
});
