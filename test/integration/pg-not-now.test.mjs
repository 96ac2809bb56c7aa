// PostgreSQL's "cannot connect now" (SQLSTATE 57P03, FATAL at connection time) is a "not now"
// answer (docs/postgres.md, "Not now"), as 53300 is (pg-too-many.test.mjs): setup waits for a
// connection and the VUs resend their refused batches, both within GIVE_UP, each resend counted.
// A real server answers it on demand: a private PostgreSQL of this file's own restarted in
// recovery (standby.signal) with hot_standby=off refuses every connection with FATAL 57P03 "the
// database system is not accepting connections" until it is promoted
// (test/helpers/pgprivate.mjs startStandby, promote).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { cutFrame, psql, startK6, uniqueRunId } from '../helpers/k6.mjs';
import { startPrivatePg } from '../helpers/pgprivate.mjs';

const scenario = 'scenarios/postgres/insert-vs-overwrite.js';
const explain = (r) => `exit ${r.code}\n${r.stdout}\n${r.stderr.slice(-6000)}`;
const aborts = (r) => r.stderr.split('\n').filter((l) => /level=error msg="test aborted: /.test(l)).map(cutFrame);
const sum = (s, f) => s.phases.reduce((a, p) => a + (p[f] || 0), 0);
const SETUP_WAITS = /k6-writepath: PostgreSQL refused the connection: [^\n"]*\(57P03\): setup waits and tries again within GIVE_UP=60s/g;

let pg;
let standby = false; // the server runs in recovery: promote() before anything else reads it
before(async () => {
  pg = await startPrivatePg({ name: 'pg-not-now' });
  // A run of this file cut short may have left it in recovery (a hot standby now: read-only).
  if (await psql(pg.url, 'SELECT pg_is_in_recovery()') === 't') pg.promote();
});
after(() => {
  if (!pg) return;
  if (standby) pg.promote();
  pg.stop('fast');
});

async function asStandby() {
  pg.stop('fast');
  await pg.startStandby();
  standby = true;
}

function promote() {
  pg.promote();
  standby = false;
}

test('setup meets a server in recovery (57P03), promoted seconds later: setup waits with one line, the run goes on and verifies, exit 0', { timeout: 240000 }, async () => {
  const runId = uniqueRunId('nn');
  await asStandby();
  let r;
  try {
    const run = startK6(scenario, { PG_URL: pg.url, VUS: '2', DOCS: '2000', BATCH_SIZE: '100', OVERWRITE_BATCHES: '20', MIXED_BATCHES: '10', GIVE_UP: '60s', TIMEOUT: '5s' },
      { runId, timeoutMs: 220000 });
    await run.waitFor(SETUP_WAITS, 60000);
    await delay(3000); // setup is refused again meanwhile
    // The server's own answer, as psql gets it: still in recovery, setup cannot have passed.
    await assert.rejects(psql(pg.url, 'SELECT 1'), /FATAL: +the database system is not accepting connections\s+DETAIL: +Hot standby mode is disabled/);
    promote();
    r = await run.done;
  } finally {
    if (standby) promote();
  }
  assert.equal(r.code, 0, explain(r));
  assert.equal((r.stderr.match(SETUP_WAITS) || []).length, 1, `one line, however many tries: ${explain(r)}`);
  assert.match(r.stderr, /setup waits[^\n]*\n(?:[^\n]*\n)*?[^\n]*writing to table/, 'the wait comes before the table is created');
  const s = r.summary;
  assert.equal(sum(s, 'docs_failed'), 0, JSON.stringify(s.phases));
  assert.equal(s.verification.ran, true);
  assert.equal(s.verification.count_ok, true, JSON.stringify(s.verification));
  assert.equal(s.verification.found, 2000 + 10 * 100 / 2, JSON.stringify(s.verification));
  assert.equal(s.verification.found, s.verification.acknowledged_new);
  assert.equal(s.verification.readback_ok, true, JSON.stringify(s.verification));
  assert.equal(await psql(pg.url, `SELECT count(*) FROM pg_class WHERE relname = 'k6wp_${runId}'`), '0', 'dropped by teardown');
});

test('a server that stays in recovery: setup gives up after GIVE_UP with one line naming 57P03, exit 108, nothing written', { timeout: 240000 }, async () => {
  const runId = uniqueRunId('nr');
  await asStandby();
  let r;
  try {
    r = await startK6(scenario, { PG_URL: pg.url, VUS: '2', DOCS: '2000', BATCH_SIZE: '100', GIVE_UP: '5s', TIMEOUT: '5s' }, { runId, timeoutMs: 200000 }).done;
  } finally {
    promote();
  }
  assert.equal(r.code, 108, explain(r));
  const lines = aborts(r);
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0], /msg="test aborted: PG_URL: PostgreSQL refused the connection: [^"]*\(57P03\) for GIVE_UP=5s: [^"]*the database system is not accepting connections[^"]*; nothing was written/);
  assert.doesNotMatch(r.stderr, /cannot reach PostgreSQL|writing to table/);
  assert.ok(!r.stdout.includes('k6wp-private-pw') && !r.stderr.includes('k6wp-private-pw'), 'the password is not printed');
  assert.equal(await psql(pg.url, `SELECT count(*) FROM pg_class WHERE relname LIKE 'k6wp_${runId}%'`), '0', 'nothing created');
});
