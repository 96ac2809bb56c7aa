// A database that dies for good ends the run (issue 27, class 1; lib/targets/outcome.js): after
// GIVE_UP without an answer to any batch of a VU, one line, exit 108, saying what was
// acknowledged before, that verification did not run, what is left on the server and the
// command that removes it. A database back within GIVE_UP lets the run go on. PostgreSQL on a
// private server of this file's own (stopped for good, then started again to check what was
// left and that the printed command removes it); ArangoDB and RavenDB on their API test
// servers, killed with SIGKILL.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
import { cutFrame, psql, startK6, uniqueRunId } from '../helpers/k6.mjs';
import { startPrivatePg } from '../helpers/pgprivate.mjs';
import { startTestServer } from '../helpers/testserver.mjs';

const explain = (r) => `exit ${r.code}\n${r.stdout}\n${r.stderr}`;
// Stock k6 ends an abort line with the JavaScript frame; scripts/run cuts it (cutFrame does the same).
const aborts = (r) => r.stderr.split('\n').filter((l) => /level=error msg="test aborted: /.test(l)).map(cutFrame);
// Long plans: without the give-up they would run for many minutes against a dead server.
const long = { DOCS: '20000', BATCH_SIZE: '100', OVERWRITE_BATCHES: '200000', MIXED_BATCHES: '0', READBACK: '0', GIVE_UP: '3s', TIMEOUT: '2s' };

let pg;
before(async () => { pg = await startPrivatePg({ name: 'pg-giveup' }); });
after(() => { if (pg) pg.stop('fast'); });

test('PostgreSQL stopped for good: exit 108 by the give-up, one line (no stack frame) naming what was acknowledged, the table left and its removal', { timeout: 240000 }, async (t) => {
  const runId = uniqueRunId('gu');
  const run = startK6('scenarios/postgres/insert-vs-overwrite.js', { ...long, PG_URL: pg.url }, { runId, timeoutMs: 200000 });
  await run.waitFor(/writing to table/);
  await delay(2000); // under way: load done or nearly
  pg.stop('immediate');
  const stoppedAt = Date.now();
  const r = await run.done;
  const took = (Date.now() - stoppedAt) / 1000;
  try {
    assert.equal(r.code, 108, explain(r));
    // Exit 108 and the give-up line prove the stop (the plan would run for minutes); how long it
    // took is the machine's, shown, never asserted.
    t.diagnostic(`ended ${took.toFixed(1)} s after the server stopped`);
    const lines = aborts(r);
    assert.equal(lines.length, 1, r.stderr);
    const line = lines[0];
    assert.match(line, /msg="test aborted: postgres answered no batch of this VU for 3s \(GIVE_UP; last: batch of 100 failed \(connection\): [^"]*\): the run stops\. /);
    assert.match(line, /Acknowledged before: \d+ documents by this VU, every VU's in the table above \(docs ok\); verification did not run; /);
    assert.ok(line.includes(`table public.k6wp_${runId} may be left on the server (named for run ${runId}, with its marker if setup got that far); once the server answers, drop it with psql \\"$PG_URL\\" -c 'DROP TABLE \\"public\\".k6wp_${runId}'"`), line);
    assert.doesNotMatch(line, / at \S+ \(file:|file:\/\//, 'no JavaScript frame');
    assert.ok(!r.stdout.includes('k6-private-pw') && !r.stderr.includes('k6-private-pw'), 'the password is not printed');
    // What was acknowledged is in the table; the plan did not finish, verification did not run.
    const ow = r.summary.phases.find((p) => p.phase === 'overwrite');
    assert.ok(ow.batches < 200000 && ow.docs_failed > 0, JSON.stringify(ow));
    assert.deepEqual(Object.keys(ow.failed_by_reason), ['connection']);
    assert.equal(r.summary.verification.ran, false);
    assert.match(r.stdout, /verification: did not run: /);
  } finally {
    await pg.start();
  }
  // The table is left, as the line said; the printed command removes it.
  assert.equal(await psql(pg.url, `SELECT count(*) FROM pg_class WHERE relname = 'k6wp_${runId}'`), '1');
  const command = /drop it with (psql .*)"$/.exec(aborts(r)[0])[1].replace(/\\"/g, '"');
  const rm = spawnSync('bash', ['-c', command], { env: { ...process.env, PG_URL: pg.url }, encoding: 'utf8' });
  assert.equal(rm.status, 0, rm.stderr);
  assert.equal(await psql(pg.url, `SELECT count(*) FROM pg_class WHERE relname = 'k6wp_${runId}'`), '0');
});

test('PostgreSQL back within GIVE_UP: the run goes on, counts the outage as connection failures and verifies', { timeout: 240000 }, async () => {
  const runId = uniqueRunId('gb');
  const run = startK6('scenarios/postgres/insert-vs-overwrite.js',
    { PG_URL: pg.url, DOCS: '20000', BATCH_SIZE: '100', OVERWRITE_BATCHES: '1500', MIXED_BATCHES: '10', GIVE_UP: '30s', TIMEOUT: '5s' }, { runId, timeoutMs: 200000 });
  await run.waitFor(/writing to table/);
  await delay(1500);
  pg.stop('fast');
  await delay(2000);
  await pg.start();
  const r = await run.done;
  assert.equal(r.code, 99, explain(r)); // the failed batches trip the failure thresholds, nothing else
  assert.equal(aborts(r).length, 0, r.stderr);
  const failed = r.summary.phases.reduce((s, p) => s + p.docs_failed, 0);
  assert.ok(failed > 0, 'the outage failed some batches');
  assert.deepEqual(Array.from(new Set(r.summary.phases.flatMap((p) => Object.keys(p.failed_by_reason)))), ['connection']);
  assert.equal(r.summary.verification.ran, true);
  assert.equal(r.summary.verification.count_ok, true, JSON.stringify(r.summary.verification));
  assert.equal(await psql(pg.url, `SELECT count(*) FROM pg_class WHERE relname = 'k6wp_${runId}'`), '0', 'dropped by teardown');
});

test('a server that answers "too many connections" is not a dead one: the VU it refuses fails its batches (reason connection), the run is not given up', { timeout: 240000 }, async () => {
  // A role allowed two connections: setup's (kept for teardown) and one VU's; the other VU is
  // refused with SQLSTATE 53300 on every batch, for longer than GIVE_UP.
  const role = `k6wp_limit_${process.pid}`;
  await psql(pg.url, `DROP ROLE IF EXISTS ${role}; CREATE ROLE ${role} LOGIN PASSWORD 'limit-pw' CONNECTION LIMIT 2; GRANT ALL ON SCHEMA public TO ${role};`);
  const u = new URL(pg.url);
  u.username = role; u.password = 'limit-pw';
  const runId = uniqueRunId('gl');
  try {
    const run = startK6('scenarios/postgres/insert-vs-overwrite.js',
      { PG_URL: u.toString(), DOCS: '4000', BATCH_SIZE: '100', OVERWRITE_BATCHES: '6000', MIXED_BATCHES: '0', READBACK: '0', VUS: '2', GIVE_UP: '2s', TIMEOUT: '5s', MAX_DURATION: '12s' },
      { runId, timeoutMs: 200000 });
    const r = await run.done;
    assert.equal(aborts(r).filter((l) => /answered no batch/.test(l)).length, 0, r.stderr);
    assert.match(r.stderr, /batch of 100 failed \(connection\): [^\n]*too many connections for role/);
    const failed = r.summary.phases.reduce((s, p) => s + p.docs_failed, 0);
    const ok = r.summary.phases.reduce((s, p) => s + p.docs_ok, 0);
    assert.ok(failed > 0 && ok > 0, `one VU wrote, the other was refused: ok ${ok}, failed ${failed}`);
  } finally {
    await psql(pg.url, `DROP TABLE IF EXISTS k6wp_${runId}; DROP OWNED BY ${role}; DROP ROLE IF EXISTS ${role}`);
  }
});

for (const [name, knob, removal] of [
  ['arangodb', 'ARANGO_URL', (url, db) => `curl -u \\"$ARANGO_USER:$ARANGO_PASSWORD\\" -X DELETE ${url}/_db/_system/_api/database/${db}`],
  ['ravendb', 'RAVEN_URL', (url, db) => `curl -X DELETE ${url}/admin/databases -H 'Content-Type: application/json' -d '{\\"DatabaseNames\\":[\\"${db}\\"],\\"HardDelete\\":true}'`],
]) {
  test(`${name} killed for good: exit 108 by the give-up, one line naming what was acknowledged, the database left and its removal`, { timeout: 240000 }, async (t) => {
    const server = await startTestServer(name, name === 'arangodb' ? ['-no-auth'] : []);
    const runId = uniqueRunId('gh');
    const run = startK6(`scenarios/${name}/insert-vs-overwrite.js`, { ...long, [knob]: server.url }, { runId, timeoutMs: 200000 });
    await run.waitFor(/writing to database/);
    await delay(1500);
    server.proc.kill('SIGKILL');
    const killedAt = Date.now();
    const r = await run.done;
    const took = (Date.now() - killedAt) / 1000;
    assert.equal(r.code, 108, explain(r));
    t.diagnostic(`ended ${took.toFixed(1)} s after the server died (exit 108 and the give-up line prove the stop)`);
    const lines = aborts(r);
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0], new RegExp(`msg="test aborted: ${name} answered no batch of this VU for 3s \\(GIVE_UP; last: [^"]*\\(connection\\)[^"]*\\): the run stops\\. Acknowledged before: \\d+ documents by this VU`));
    assert.ok(lines[0].includes(`verification did not run; ${name === 'ravendb' ? 'RavenDB ' : ''}database k6wp_${runId} may be left on the server (named for run ${runId}, with its marker if setup got that far); once the server answers, drop it with ${removal(server.url, `k6wp_${runId}`)}`), lines[0]);
    assert.equal(r.summary.verification.ran, false);
  });
}
