// Faults of a real mongod under a running k6 (a server of this file's own, never the shared
// one of `make up`): killed with SIGKILL and restarted, frozen with SIGSTOP, killed for good,
// credentials changed under the run, the run's database dropped. What must hold: every batch
// is counted with its reason, no batch outlives TIMEOUT, the run goes on once the server is
// back or stops with one line when going on is pointless, the verification is exact, nothing
// hangs, and no password is printed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { runK6, uniqueRunId } from '../helpers/k6.mjs';
import { startPrivateMongo } from '../helpers/mongoprivate.mjs';
import { closeMongo, dropDatabase, mongo } from '../helpers/mongo.mjs';

const E1 = 'scenarios/mongodb/insert-vs-overwrite.js';
const explain = (r) => `exit ${r.code}\n${r.stdout}\n${r.stderr}`;
let server;

before(async () => { server = await startPrivateMongo({ name: 'mongo-faults', testCommands: true }); });
after(async () => {
  await closeMongo();
  if (server) server.stop();
});

// The test's own client reconnects by itself after a restart.
async function waitFor(fn, timeoutMs, what) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    try { if (await fn()) return; } catch { /* the server may be restarting */ }
    await delay(25);
  }
  throw new Error(`timed out waiting for ${what}`);
}

// Documents of the run with a stamp matching re (the phase's progress, from the server itself).
async function stamped(runId, re) {
  return (await mongo(server.url)).db(`k6wp_${runId}`).collection('docs').countDocuments({ w: re });
}

function failedByReason(r) {
  const out = {};
  for (const p of r.summary.phases) for (const [k, v] of Object.entries(p.failed_by_reason)) out[k] = (out[k] || 0) + v;
  return out;
}

function abortLines(r) {
  return r.stderr.split('\n').filter((l) => /level=error/.test(l) && /test aborted/.test(l)).map((l) => l.replace(/\\"/g, '"'));
}

// 100 keys per batch over 20000: a key is overwritten about 3 times, so a failed batch is often
// the last write to some of its keys (excused in the read-back).
const base = () => ({ MONGO_URL: server.url, DOCS: '20000', BATCH_SIZE: '100', OVERWRITE_BATCHES: '600', MIXED_BATCHES: '20',
  READBACK: '100000000', TIMEOUT: '5s' });

test('mongod killed (SIGKILL) and restarted during the overwrite phase: run goes on, failures counted, nothing acknowledged lost (j:true)', { timeout: 240000 }, async () => {
  const runId = uniqueRunId('mk');
  const running = runK6(E1, { ...base(), MONGO_J: 'true' }, { runId, timeoutMs: 200000 });
  await waitFor(async () => (await stamped(runId, /^o/)) >= 2000, 90000, 'the overwrite phase to start');
  const killed = server.signal('SIGKILL');
  assert.ok(killed, 'mongod was running');
  const downAt = Date.now();
  await delay(2000);
  server.start(); // the same data directory: WiredTiger recovers from its journal
  const outageMs = Date.now() - downAt;
  const r = await running;
  assert.equal(r.code, 99, `failed documents fail the thresholds, nothing else: ${explain(r)}`);
  const byPhase = Object.fromEntries(r.summary.phases.map((p) => [p.phase, p]));
  const ow = byPhase.overwrite;
  assert.equal(ow.batches, 600, 'every overwrite batch was attempted');
  assert.ok(ow.docs_failed > 0, 'the outage failed some batches');
  for (const reason of Object.keys(failedByReason(r))) assert.ok(['connection', 'timeout'].includes(reason), JSON.stringify(failedByReason(r)));
  assert.equal(ow.docs_ok + ow.docs_failed, 60000);
  assert.equal(byPhase.mixed.docs_failed, 0, 'after the restart everything went through');
  // Each VU pauses after a connection failure (0.5 s, doubling): the outage costs a few
  // batches per VU, not the phase (a batch waits at most TIMEOUT for a server).
  const bound = 2 * (Math.ceil(outageMs / 500) + 4) * 100;
  assert.ok(ow.docs_failed <= bound, `${ow.docs_failed} failed documents in a ${outageMs} ms outage (at most ${bound})`);
  // Journaled acknowledgements (j:true) survive SIGKILL: nothing acknowledged is missing. A
  // batch that failed may still have been applied in part (the server died after writing some
  // of its documents): unexpected, never more than the failed new documents.
  const v = r.summary.verification;
  assert.equal(v.lost, 0, JSON.stringify(v));
  assert.equal(v.found, v.acknowledged_new + v.unexpected);
  assert.ok(v.unexpected <= byPhase.load.docs_failed + byPhase.mixed.docs_failed, JSON.stringify(v));
  assert.equal(v.readback_stale_or_missing, 0, r.stdout);
  assert.ok(v.readback_excused + v.readback_unacknowledged > 0, `some keys' last writer failed: ${JSON.stringify(v)}`);
  assert.equal(v.readback_ok, true);
  assert.equal(await (await mongo(server.url)).db(`k6wp_${runId}`).collection('docs').countDocuments(), 0, 'dropped after the run (count 0 = no collection)');
  assert.doesNotMatch(r.stdout + r.stderr, /k6wp-private-mongo-pw/, 'password never printed');
});

test('mongod frozen (SIGSTOP) for longer than TIMEOUT: each batch ends at its deadline, the run resumes on SIGCONT', { timeout: 240000 }, async () => {
  const runId = uniqueRunId('ms');
  const running = runK6(E1, { ...base(), OVERWRITE_BATCHES: '300', TIMEOUT: '2s' }, { runId, timeoutMs: 200000 });
  await waitFor(async () => (await stamped(runId, /^o/)) >= 2000, 90000, 'the overwrite phase to start');
  const pid = server.signal('SIGSTOP');
  const frozenAt = Date.now();
  await delay(7000);
  process.kill(pid, 'SIGCONT');
  const frozenMs = Date.now() - frozenAt;
  const r = await running;
  assert.equal(r.code, 99, explain(r));
  const failed = failedByReason(r);
  assert.ok((failed.timeout || 0) + (failed.connection || 0) > 0, JSON.stringify(failed));
  for (const reason of Object.keys(failed)) assert.ok(['connection', 'timeout'].includes(reason), JSON.stringify(failed));
  for (const p of r.summary.phases) {
    // No batch outlives TIMEOUT (2 s) by more than scheduling slack on a busy machine.
    assert.ok(p.batch_ms.max <= 2000 + 1500, `${p.phase}: longest batch ${p.batch_ms.max} ms with TIMEOUT=2s`);
  }
  const byPhase = Object.fromEntries(r.summary.phases.map((p) => [p.phase, p]));
  assert.equal(byPhase.overwrite.batches, 300);
  assert.equal(byPhase.mixed.docs_failed, 0, 'resumed after SIGCONT');
  assert.ok(frozenMs >= 7000);
  // The frozen server applies what it had received once it runs again: a batch the client gave
  // up on may be written after all (unacknowledged/unexpected), nothing acknowledged is lost.
  const v = r.summary.verification;
  assert.equal(v.lost, 0, JSON.stringify(v));
  assert.equal(v.readback_stale_or_missing, 0, r.stdout);
  assert.equal(v.readback_ok, true);
});

test('mongod killed for good: exit 108 by the give-up, one line naming what was acknowledged, the database left and its removal', { timeout: 240000 }, async (t) => {
  const runId = uniqueRunId('mg');
  // A long plan: without the give-up it would run for many minutes against a dead server.
  const running = runK6(E1, { ...base(), OVERWRITE_BATCHES: '200000', MIXED_BATCHES: '0', READBACK: '0', GIVE_UP: '3s', TIMEOUT: '2s' }, { runId, timeoutMs: 200000 });
  await waitFor(async () => (await stamped(runId, /^o/)) >= 1000, 90000, 'the overwrite phase to start');
  server.signal('SIGKILL');
  const killedAt = Date.now();
  let r;
  try {
    r = await running;
  } finally {
    server.start();
  }
  const took = (Date.now() - killedAt) / 1000;
  assert.equal(r.code, 108, explain(r));
  // Exit 108 and the give-up line prove the stop; the time is the machine's, shown only.
  t.diagnostic(`ended ${took.toFixed(1)} s after the server died`);
  const lines = abortLines(r);
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0], /msg="test aborted: mongodb answered no batch of this VU for 3s \(GIVE_UP; last: batch of 100: 100 failed \(connection 100\): [^"]*\): the run stops\. Acknowledged before: \d+ documents by this VU/);
  assert.ok(lines[0].includes(`verification did not run; database k6wp_${runId} may be left on the server (named for run ${runId}, with its marker if setup got that far); once the server answers, drop it with mongosh "$MONGO_URL" --eval 'db.getSiblingDB("k6wp_${runId}").dropDatabase()'`), lines[0]);
  assert.equal(r.summary.verification.ran, false);
  const failed = failedByReason(r);
  assert.ok((failed.connection || 0) > 0, JSON.stringify(failed));
  // Left, as the line said: the database is there once the server is back.
  await waitFor(async () => (await (await mongo(server.url)).db('admin').admin().listDatabases()).databases.some((d) => d.name === `k6wp_${runId}`), 30000, 'the left database');
  await dropDatabase(server.url, `k6wp_${runId}`);
});

test('credentials changed under the run (password changed, server restarted): the refused batch is counted, one line, 108, no password shown', { timeout: 240000 }, async () => {
  const runId = uniqueRunId('mc');
  const user = `k6wp_c_${process.pid}`;
  const admin = (await mongo(server.url)).db('admin');
  await admin.command({ createUser: user, pwd: 'Canary-Before-Pw-1', roles: ['root'] });
  try {
    const u = new URL(server.url);
    u.username = user;
    u.password = 'Canary-Before-Pw-1';
    const running = runK6(E1, { ...base(), MONGO_URL: u.toString(), OVERWRITE_BATCHES: '3000', MIXED_BATCHES: '0' }, { runId, timeoutMs: 200000 });
    await waitFor(async () => (await stamped(runId, /^o/)) >= 1000, 90000, 'the overwrite phase to start');
    await admin.command({ updateUser: user, pwd: 'Canary-After-Pw-2' });
    // Open connections stay authenticated; a restart makes the driver log in again.
    server.stop(30);
    server.start();
    const r = await running;
    assert.equal(r.code, 108, explain(r));
    const aborted = abortLines(r);
    assert.equal(aborted.length, 1, r.stderr);
    assert.match(aborted[0], /MONGO_URL: the server refused the credentials or the permission: .*AuthenticationFailed/);
    assert.ok((failedByReason(r).auth || 0) > 0, `the refused batch is counted: ${JSON.stringify(failedByReason(r))}`);
    const everything = r.stdout + r.stderr + JSON.stringify(r.summary) + (r.junit || '');
    assert.ok(!everything.includes('Canary-'), 'no password printed');
  } finally {
    await (await mongo(server.url)).db('admin').command({ dropUser: user });
    await dropDatabase(server.url, `k6wp_${runId}`);
  }
});

test('the run\'s database dropped during the run: the batch that found out is counted, nothing recreated, one line, 108', { timeout: 120000 }, async () => {
  const runId = uniqueRunId('mx');
  const running = runK6(E1, { ...base(), OVERWRITE_BATCHES: '3000', MIXED_BATCHES: '0' }, { runId, timeoutMs: 100000 });
  await waitFor(async () => (await stamped(runId, /^o/)) >= 1000, 90000, 'the overwrite phase to start');
  await dropDatabase(server.url, `k6wp_${runId}`);
  const r = await running;
  assert.equal(r.code, 108, explain(r));
  const aborted = abortLines(r);
  assert.equal(aborted.length, 1, r.stderr);
  // 361 for the operations after the drop; 175 "collection dropped. UUID …" for an upsert whose
  // plan was running when the drop came (both recorded on mongod 6.0.5).
  assert.match(aborted[0], /the run's collection disappeared during the run .*(Collection UUID does not match that specified|collection dropped\. UUID [0-9a-f-]+)/);
  const failed = failedByReason(r);
  // Per document: a drop that lands inside a batch leaves the operations before it written
  // and the rest refused (361), so the revealing batch may count fewer than 100.
  assert.ok((failed.collection_gone || 0) >= 1, `the revealing batch is counted: ${JSON.stringify(failed)}`);
  for (const p of r.summary.phases) assert.equal(p.docs_ok + p.docs_failed, p.batches * 100, `${p.phase}: every document of every batch counted`);
  const names = (await (await mongo(server.url)).db(`k6wp_${runId}`).listCollections().toArray()).map((c) => c.name);
  assert.deepEqual(names, [], 'no write recreated the collection');
});
