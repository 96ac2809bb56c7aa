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
const REFUSED = 'PostgreSQL refused the connection: cannot connect now \\(starting up, shutting down or in recovery\\) \\(57P03\\)';
const SETUP_WAITS = new RegExp(`k6-writepath: ${REFUSED}: setup waits and tries again within GIVE_UP=60s`);
// The server's own refusal, as lib/pq words it (pq: message (SQLSTATE)).
const SERVER_SAID = 'pq: the database system is not accepting connections \\(57P03\\)';

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
  assert.equal([...r.stderr.matchAll(new RegExp(SETUP_WAITS.source, 'g'))].length, 1, `one line, however many tries: ${explain(r)}`);
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
  assert.match(lines[0], new RegExp(`msg="test aborted: PG_URL: ${REFUSED} for GIVE_UP=5s: ${SERVER_SAID}; nothing was written"`));
  assert.equal([...r.stderr.matchAll(new RegExp(`${REFUSED}: setup waits and tries again within GIVE_UP=5s`, 'g'))].length, 1, 'setup waited first, with one line');
  assert.doesNotMatch(r.stderr, /cannot reach PostgreSQL|writing to table/);
  assert.ok(!r.stdout.includes('k6wp-private-pw') && !r.stderr.includes('k6wp-private-pw'), 'the password is not printed');
  assert.equal(await psql(pg.url, `SELECT count(*) FROM pg_class WHERE relname LIKE 'k6wp_${runId}%'`), '0', 'nothing created');
});

test('mid-run: stopped, back in recovery (57P03) for seconds, promoted: the refused batches are sent again (counted, reason connection), none counted failed; the batches the stop cut are counted as after any outage; verification OK', { timeout: 300000 }, async (t) => {
  const runId = uniqueRunId('nm');
  const table = `k6wp_${runId}`;
  const env = { PG_URL: pg.url, DOCS: '20000', BATCH_SIZE: '100', OVERWRITE_BATCHES: '3000', MIXED_BATCHES: '20',
    READBACK: '100000000', TIMEOUT: '10s', GIVE_UP: '60s' };
  // As in pg-faults.test.mjs: a first run (KEEP=1) makes the table, a trigger logs the stamp of
  // every overwrite statement the server commits, the measured run reuses the table (REUSE=1).
  const first = await startK6(scenario, { ...env, PHASES: 'load', DOCS: '200', KEEP: '1' }, { runId }).done;
  assert.equal(first.code, 0, explain(first));
  await psql(pg.url, `DROP TABLE IF EXISTS applied_${runId};
    CREATE TABLE applied_${runId} (stamp text);
    CREATE FUNCTION applied_${runId}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO applied_${runId} SELECT DISTINCT doc->>'w' FROM nt; RETURN NULL; END $$;
    CREATE TRIGGER applied AFTER UPDATE ON ${table} REFERENCING NEW TABLE AS nt FOR EACH STATEMENT EXECUTE FUNCTION applied_${runId}();`);
  const applied = async (what) => Number(await psql(pg.url, `SELECT count(${what}) FROM applied_${runId} WHERE stamp LIKE 'o%'`));
  let r;
  try {
    const run = startK6(scenario, { ...env, REUSE: '1', KEEP: '1' }, { runId, timeoutMs: 280000 });
    for (const end = Date.now() + 120000; await applied('DISTINCT stamp').catch(() => 0) < 40;) {
      assert.ok(Date.now() < end, 'the overwrite phase started');
      await delay(25);
    }
    await asStandby();
    await run.waitFor(/"not now\\?", 57P03\)/, 60000); // a VU's batch met the refusal
    await delay(3000); // refused again meanwhile
    promote();
    r = await run.done;
  } finally {
    if (standby) promote();
  }
  try {
    const s = r.summary;
    assert.ok(s, explain(r));
    const byPhase = Object.fromEntries(s.phases.map((p) => [p.phase, p]));
    t.diagnostic(`exit ${r.code}; retries ${sum(s, 'retries')}; failed ${sum(s, 'docs_failed')} (known ${sum(s, 'docs_failed_known')}, undetermined ${sum(s, 'docs_undetermined')})`);
    const ow = byPhase.overwrite;
    assert.equal(ow.batches, 3000, 'every overwrite batch was attempted');
    assert.equal(ow.docs_ok + ow.docs_failed, 300000);
    // Sent again, each resend counted, under the reason the failures table uses.
    assert.ok(sum(s, 'retries') > 0, `the refused batches were sent again and counted: ${JSON.stringify(s.phases.map((p) => [p.phase, p.retries]))}`);
    assert.match(r.stdout, /requests sent again after the server refused them before doing anything \("not now"\)/);
    // A VU's first refusal may still meet the server starting up (57P03 too, in other words).
    assert.match(r.stderr, new RegExp(`batch of 100 failed \\(connection\\): not sent, the server refused the connection \\(\\\\?"not now\\\\?", 57P03\\): (${SERVER_SAID}|pq: the database system is starting up \\(57P03\\)); nothing was done: sent again after a pause \\(within GIVE_UP=60s\\)`), explain(r));
    // No refused batch was counted failed: its line would end at the server's words.
    assert.doesNotMatch(r.stderr, /57P03\)" source=console/);
    // What failed, failed in the stop itself (a statement the shutdown ended, a connection refused
    // while the server was down): reason connection only, each document once.
    for (const p of s.phases) {
      assert.ok(Object.keys(p.failed_by_reason).every((k) => k === 'connection'), `${p.phase}: ${JSON.stringify(p.failed_by_reason)}`);
      assert.equal(p.docs_failed, p.docs_failed_known + p.docs_undetermined, p.phase);
    }
    // The database's own record: each batch reported ok was applied once, and no other (a
    // resent batch ran once; no batch reported failed was applied).
    assert.equal(await applied('*'), await applied('DISTINCT stamp'), 'no overwrite statement applied twice');
    const appliedDocs = await applied('DISTINCT stamp') * 100;
    assert.ok(appliedDocs >= ow.docs_ok && appliedDocs <= ow.docs_ok + ow.docs_undetermined,
      `batches applied (${appliedDocs / 100}) = batches reported ok (${ow.docs_ok / 100}), plus at most the undetermined (${ow.docs_undetermined / 100})`);
    const v = s.verification;
    const newFailed = byPhase.load.docs_failed + byPhase.mixed.docs_failed;
    assert.equal(v.lost, 0, 'no acknowledged document is missing');
    assert.equal(v.count_ok, true, JSON.stringify(v));
    assert.equal(v.found, v.acknowledged_new + v.unexpected);
    assert.ok(v.unexpected <= newFailed, `unexpected ${v.unexpected} <= failed new ${newFailed}`);
    assert.equal(v.readback_stale_or_missing, 0, r.stdout);
    assert.equal(v.readback_unacknowledged, 0, 'no batch reported failed was applied');
    assert.equal(v.readback_ok, true, r.stdout);
    // A run with failed documents fails its failure limits (exit 99), and only those; none: exit 0.
    const known = sum(s, 'docs_failed_known');
    const crossed = s.thresholds.filter((t) => !t.ok).map((t) => t.metric);
    assert.ok(crossed.every((m) => /^writepath_docs_failed_(known|resolved)\b/.test(m)), JSON.stringify(crossed));
    assert.equal(r.code, known > 0 ? 99 : 0, explain(r));
    assert.doesNotMatch(r.stdout + r.stderr, /k6wp-private-pw/, 'password never printed');
  } finally {
    await psql(pg.url, `DROP TABLE IF EXISTS ${table}; DROP TABLE IF EXISTS applied_${runId}; DROP FUNCTION IF EXISTS applied_${runId}()`);
  }
});
