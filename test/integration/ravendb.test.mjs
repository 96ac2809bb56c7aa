// RavenDB scenarios end-to-end: the real bin/k6 against the RavenDB API test server (a test
// double of RavenDB's HTTP API, test/servers/ravendb — never something to benchmark). Each
// test starts its own server, so databases and fault settings never leak between tests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { runK6, startK6, uniqueRunId } from '../helpers/k6.mjs';
import { expectBulkCut4x, expectBystanderKept, expectCarriedOn, expectDeletedMidRun, expectIndexWait408 } from '../helpers/raven-expect.mjs';
import { setTestServerFaults, startTestServer, withTestServer } from '../helpers/testserver.mjs';

const withServer = (args, fn) => withTestServer('ravendb', args, fn);

const faults = setTestServerFaults;

async function databaseExists(url, db) {
  const r = await fetch(`${url}/admin/databases?name=${db}`);
  await r.arrayBuffer();
  return r.status === 200;
}

async function collectionCount(url, db, collection = 'Users') {
  const r = await fetch(`${url}/databases/${db}/collections/stats`);
  assert.equal(r.status, 200);
  return ((await r.json()).Collections || {})[collection] || 0;
}

async function dropDatabase(url, db) {
  await fetch(`${url}/admin/databases`, { method: 'DELETE', body: JSON.stringify({ DatabaseNames: [db], HardDelete: true }) });
}

const phase = (summary, name) => summary.phases.find((p) => p.phase === name);
const out = (res) => `${res.stdout}\n${res.stderr}`;

for (const loadOp of ['insert', 'bulk']) {
  test(`E1 on RavenDB with LOAD_OP=${loadOp}: exact counts, read-back, database dropped`, async () => {
    await withServer([], async (srv) => {
      const res = await runK6('scenarios/ravendb/insert-vs-overwrite.js', {
        RAVEN_URL: srv.url, LOAD_OP: loadOp, DOCS: '3000', BATCH_SIZE: '300', VUS: '2',
        OVERWRITE_BATCHES: '6', MIXED_BATCHES: '4', MIXED_NEW_PERCENT: '50', READBACK: '500',
      });
      assert.equal(res.code, 0, out(res));
      const s = res.summary;
      assert.equal(s.target, 'ravendb');
      assert.deepEqual(s.phases.map((p) => [p.phase, p.docs_ok, p.docs_failed]), [['load', 3000, 0], ['overwrite', 1800, 0], ['mixed', 1200, 0]]);
      assert.equal(s.verification.expected, 3000 + 4 * 150);
      assert.equal(s.verification.found, 3600);
      assert.equal(s.verification.count_ok, true);
      // 500 sampled positions of overwritten batches; a key chosen twice is checked once.
      assert.ok(s.verification.readback_checked > 400 && s.verification.readback_checked <= 500, String(s.verification.readback_checked));
      assert.equal(s.verification.readback_stale_or_missing, 0);
      assert.equal(s.server.settings.load_op, loadOp);
      // the test server identifies itself: every output of the run says TEST ENDPOINT
      assert.match(s.server.serverVersion, /^TEST ENDPOINT: ravendb-testserver, .*\(it reports RavenDB 7\.1\.2/);
      assert.equal(s.test_endpoint, true);
      assert.match(res.stdout, /^k6-writepath · TEST ENDPOINT · ravendb · insert-vs-overwrite/m);
      assert.match(res.junit, /<testsuite name="k6-writepath TEST ENDPOINT · ravendb /);
      assert.match(readFileSync(path.join(res.dir, 'report.html'), 'utf8'), /id="test-endpoint">TEST ENDPOINT/);
      assert.match(res.stdout, new RegExp(`load\\s+${loadOp}\\s+10\\s+3000\\s+0`));
      assert.equal(await databaseExists(srv.url, `k6wp_${res.runId}`), false, 'teardown drops the run\'s database');
    });
  });
}

test('E1 on RavenDB: a batch that inserts an existing id fails whole (409 conflict), is counted per document and trips the threshold', async () => {
  // Slow requests give the test time to plant a document that a later load batch inserts.
  await withServer(['-latency-ms', '150'], async (srv) => {
    const runId = uniqueRunId('rvdup');
    const db = `k6wp_${runId}`;
    const run = runK6('scenarios/ravendb/insert-vs-overwrite.js', {
      RAVEN_URL: srv.url, DOCS: '2000', BATCH_SIZE: '100', VUS: '1', PHASES: 'load', RUN_ID: runId,
    }, { runId });
    const deadline = Date.now() + 20000;
    while (!(await databaseExists(srv.url, db))) {
      assert.ok(Date.now() < deadline, 'the run never created its database');
      await new Promise((r) => setTimeout(r, 50));
    }
    // K1950 belongs to the last of the 20 load batches (keys 1900..1999).
    const put = await fetch(`${srv.url}/databases/${db}/docs?id=K1950`, { method: 'PUT', body: JSON.stringify({ planted: true, '@metadata': { '@collection': 'Users' } }) });
    assert.equal(put.status, 201);
    const res = await run;
    assert.equal(res.code, 99, out(res));
    const load = phase(res.summary, 'load');
    assert.equal(load.docs_ok, 1900);
    assert.equal(load.docs_failed, 100);
    assert.deepEqual(load.failed_by_reason, { conflict: 100 });
    assert.equal(load.failed_batch_rate, 1 / 20);
    // Nothing of the failed batch was stored: 1900 loaded + the planted document.
    assert.equal(res.summary.verification.found, 1901);
    assert.match(res.stderr, /insert batch of 100 documents failed \(conflict\), none stored: 409 Raven\.Client\.Exceptions\.ConcurrencyException/);
    // A 409 is a known failure: failed_docs_max counts it in its phase, and in the run's total.
    assert.ok(res.summary.thresholds.some((t) => t.metric === 'writepath_docs_failed_known{phase:load}' && !t.ok));
    assert.match(res.junit, /<failure message="threshold crossed: writepath_docs_failed_known\{phase:load\} count&lt;=0 \(observed 100 documents\)"/);
    // (100 minus the planted document, which the count finds beyond the range and fails on its own)
    assert.match(res.junit, /<failure message="threshold crossed: writepath_docs_failed_resolved count&lt;=0 \(observed 99 documents\)"/);
  });
});

test('E4 bulk insert with gzip: per-stage table, server count equals acknowledged documents', async () => {
  await withServer([], async (srv) => {
    const res = await runK6('scenarios/ravendb/bulk-insert.js', {
      RAVEN_URL: srv.url, STAGES: '1s:1,1s:2', BATCH_SIZE: '500', RAVEN_GZIP: '1', DOC_POOL: '500', KEEP: '1',
    });
    const db = `k6wp_${res.runId}`;
    try {
      assert.equal(res.code, 0, out(res));
      const s = res.summary;
      const bulk = phase(s, 'bulk');
      assert.ok(bulk.docs_ok >= 1000, `at least two batches: ${bulk.docs_ok}`);
      assert.equal(bulk.docs_ok % 500, 0);
      assert.equal(bulk.docs_failed, 0);
      assert.equal(await collectionCount(srv.url, db), bulk.docs_ok, 'the server holds exactly the acknowledged documents');
      assert.equal(s.verification.found, bulk.docs_ok);
      assert.equal(s.verification.count_ok, true);
      assert.equal(s.server.settings.bulk_insert_gzip, true);
      assert.deepEqual(s.stages.map((r) => r.vus), ['1', '2']);
      assert.equal(s.stages.reduce((a, r) => a + r.docs_ok, 0), bulk.docs_ok);
      for (const r of s.stages) assert.ok(r.docs_per_s > 0 && r.mb_per_s > 0, JSON.stringify(r));
      assert.match(res.stdout, /per stage \(batches of 500, gzip bodies/);
      // The documents are the E4 users, with their collection from @metadata.
      const doc = await (await fetch(`${srv.url}/databases/${db}/docs?id=K0`)).json();
      assert.match(doc.Results[0].Email, /@/);
      assert.equal(doc.Results[0]['@metadata']['@collection'], 'Users');
    } finally {
      await dropDatabase(srv.url, db);
    }
  });
});

test('E4 bulk insert: dropped connections are reported with the committed part from the operation state', async () => {
  // The server commits every 1000 commands; every bulk insert connection is dropped halfway
  // through its 3000 documents, so exactly one internal batch of each is committed and the
  // failure text carries a count with a thousands separator, as the real server writes it
  // ("Inserted 1,000 items in 1 batches. Last document ID: '…'").
  await withServer(['-bulk-commit-ops', '1000'], async (srv) => {
    await faults(srv.url, { dropConnectionRate: 1, seed: 1 });
    const res = await runK6('scenarios/ravendb/bulk-insert.js', {
      RAVEN_URL: srv.url, STAGES: '1s:1', BATCH_SIZE: '3000', DOC_POOL: '200', KEEP: '1',
    });
    const db = `k6wp_${res.runId}`;
    try {
      assert.equal(res.code, 99, out(res));
      const bulk = phase(res.summary, 'bulk');
      assert.ok(bulk.batches >= 1);
      assert.equal(bulk.failed_batch_rate, 1);
      assert.equal(bulk.docs_ok, bulk.batches * 1000, 'the committed internal batch of each bulk insert is acknowledged');
      assert.equal(bulk.docs_ok + bulk.docs_failed, bulk.batches * 3000);
      assert.deepEqual(bulk.failed_by_reason, { connection: bulk.docs_failed });
      // No answer came: the state's count is a floor, the rest undetermined (never "failed, none stored").
      assert.equal(bulk.docs_undetermined, bulk.docs_failed);
      assert.equal(await collectionCount(srv.url, db), bulk.docs_ok);
      assert.equal(res.summary.verification.count_ok, true);
      // None of the undetermined documents is stored: the count makes them failed documents,
      // held against the run's failed_docs_max (0), so the run fails (exit 99 above) on that
      // alone; no phase had a known failure.
      assert.equal(bulk.docs_failed_known, 0);
      assert.deepEqual(res.summary.thresholds.filter((t) => !t.ok).map((t) => [t.metric, t.threshold, t.observed]),
        [['writepath_docs_failed_resolved', 'count<=0', bulk.docs_failed]], out(res));
      assert.match(res.stderr, /bulk insert of 3000 documents failed \(connection\): .*operation \d+: Faulted: Failed to process bulk insert\. Inserted 1,000 items in 1 batches\. Last document ID: 'K\d+'; 1000 committed, 2000 counted failed and undetermined/);
    } finally {
      await dropDatabase(srv.url, db);
    }
  });
});

// A busy 4.1.0 ran a bulk insert's handler, which registers its operation, after the client's
// TIMEOUT: operations/state answered 404, and the documents were stored later. A 404 for a
// request that got no answer is asked again (within GIVE_UP), never taken for "never started".
test('E4 bulk insert whose operation the server registers after the client gave up: its state is asked again until found, never "never started"; nothing lost', async () => {
  await withServer(['-version', '4.1.0'], async (srv) => {
    await faults(srv.url, { bulkStartDelayMs: 1200 });
    const res = await runK6('scenarios/ravendb/bulk-insert.js', { RAVEN_URL: srv.url, STAGES: '1s:1', BATCH_SIZE: '500', DOC_POOL: '100', TIMEOUT: '300ms' });
    const bulk = phase(res.summary, 'bulk');
    assert.doesNotMatch(res.stderr, /never started|operation not found/, out(res));
    // The state read once the operation showed up: here the handler went on and committed all.
    assert.match(res.stderr, /bulk insert of 500 documents failed \(timeout\): request timeout; operation \d+: Completed, Total=500; 500 committed, 0 counted as failed/, out(res));
    assert.equal(bulk.docs_undetermined, bulk.docs_failed, out(res));
    assert.equal(res.summary.verification.found, bulk.docs_ok + bulk.docs_failed, `every document sent was stored: ${out(res)}`);
    assert.equal(res.summary.verification.count_ok, true, out(res));
    assert.equal(res.summary.verification.lost, 0, out(res));
  });
});

// The wait for the operation to show up is bounded by GIVE_UP, not by a fixed few seconds: a
// server that registers it 4 s late (past the old fixed 3 s) still has its commit counted.
test('E4 bulk insert whose operation shows up later than a few seconds: its state is asked within GIVE_UP, the commit counted, nothing undetermined', async () => {
  await withServer(['-version', '4.1.0'], async (srv) => {
    await faults(srv.url, { bulkStartDelayMs: 4000 });
    const res = await runK6('scenarios/ravendb/bulk-insert.js', { RAVEN_URL: srv.url, STAGES: '1s:1', BATCH_SIZE: '500', DOC_POOL: '100', TIMEOUT: '300ms', GIVE_UP: '30s' });
    const bulk = phase(res.summary, 'bulk');
    assert.doesNotMatch(res.stderr, /never started|operation not found|committed part unknown/, out(res));
    assert.match(res.stderr, /bulk insert of 500 documents failed \(timeout\): request timeout; operation \d+: Completed, Total=500; 500 committed, 0 counted as failed/, out(res));
    assert.equal(bulk.docs_failed, 0, out(res));
    assert.equal(res.summary.verification.count_ok, true, out(res));
    assert.equal(res.summary.verification.lost, 0, out(res));
  });
});

test('E4 bulk insert refused with 503 DatabaseDisabled before the server started it: sent again, counted by reason, nothing failed', async () => {
  // A 503 DatabaseDisabledException is answered before the bulk-insert handler runs (the real
  // server maps it in RavenServerStartup.MaybeSetExceptionStatusCode): nothing was done, so the
  // runner sends it again after a pause (with a fresh operation id) and counts the resend.
  await withServer([], async (srv) => {
    await faults(srv.url, { burst503: { every: 2, length: 1 } });
    const res = await runK6('scenarios/ravendb/bulk-insert.js', {
      RAVEN_URL: srv.url, STAGES: '2s:1', BATCH_SIZE: '500', DOC_POOL: '200', KEEP: '1',
    });
    const db = `k6wp_${res.runId}`;
    try {
      assert.equal(res.code, 0, out(res));
      const bulk = phase(res.summary, 'bulk');
      assert.equal(bulk.docs_failed, 0, out(res));
      assert.ok(bulk.retries >= 1, out(res));
      assert.equal(await collectionCount(srv.url, db), bulk.docs_ok);
      assert.equal(res.summary.verification.count_ok, true);
      assert.match(res.stderr, /bulk insert of 500 documents refused \(http_503\): 503 Raven\.Client\.Exceptions\.Database\.DatabaseDisabledException: .*; nothing was done: sent again after a pause \(within GIVE_UP=60s\)/);
    } finally {
      await dropDatabase(srv.url, db);
    }
  });
});

test('RavenDB: an existing database without the marker is refused before anything is written', async () => {
  await withServer([], async (srv) => {
    const runId = uniqueRunId('rvforeign');
    const db = `k6wp_${runId}`;
    const r = await fetch(`${srv.url}/admin/databases?name=${db}&replicationFactor=1`, { method: 'PUT', body: JSON.stringify({ DatabaseName: db }) });
    assert.equal(r.status, 201);
    const res = await runK6('scenarios/ravendb/insert-vs-overwrite.js', { RAVEN_URL: srv.url, DOCS: '4000', RUN_ID: runId }, { runId });
    assert.equal(res.code, 108, out(res));
    assert.match(res.stderr, new RegExp(`RavenDB database ${db} exists and was not created by k6-writepath \\(no marker\\): refusing to touch it`));
    assert.equal(await databaseExists(srv.url, db), true, 'the foreign database is left alone');
    assert.equal(await collectionCount(srv.url, db), 0);
  });
});

test('RavenDB cluster: a database the cluster places on another node is refused with one line and dropped again', async () => {
  // -database-node B: the create answer's topology puts the new database on node B while
  // RAVEN_URL reaches node A (GET /cluster/node-info). The pack does not follow the topology.
  await withServer(['-database-node', 'B'], async (srv) => {
    const res = await runK6('scenarios/ravendb/insert-vs-overwrite.js', { RAVEN_URL: srv.url, DOCS: '2000' });
    assert.equal(res.code, 108, out(res));
    assert.match(res.stderr, new RegExp(`RavenDB database k6wp_${res.runId}: the cluster placed it on node B, but RAVEN_URL reaches node A\\. k6-writepath sends every request to RAVEN_URL and does not follow the database topology`));
    assert.equal(await databaseExists(srv.url, `k6wp_${res.runId}`), false, 'the misplaced database is dropped again');
  });
});

test('RavenDB: bad knobs stop the run with one line naming the knob', async () => {
  const res = await runK6('scenarios/ravendb/bulk-insert.js', { RAVEN_URL: 'http://127.0.0.1:1', STAGES: '10s:two' });
  assert.notEqual(res.code, 0);
  assert.match(res.stderr, /STAGES=\\"10s:two\\" is not allowed: comma-separated duration:VUs pairs/);
  const res2 = await runK6('scenarios/ravendb/insert-vs-overwrite.js', { LOAD_OP: 'merge' });
  assert.match(res2.stderr, /LOAD_OP=\\"merge\\" is not allowed: one of insert, bulk/);
});

test('RavenDB: an unreachable server aborts setup with one clear line', async () => {
  const res = await runK6('scenarios/ravendb/insert-vs-overwrite.js', { RAVEN_URL: 'http://127.0.0.1:9', DOCS: '4000' });
  assert.equal(res.code, 108, out(res));
  assert.match(res.stderr, /RAVEN_URL=http:\/\/127\.0\.0\.1:9: cannot reach RavenDB/);
});

// The same run and assertion as against the real 4.1.0 (ravendb-real.test.mjs): its deletion
// answers 503 DatabaseDisabled while it runs (deleteWindowMs), then 500 DatabaseDoesNotExist.
test('RavenDB: the database deleted during the run: its 503 DatabaseDisabled window is sent again, then the run stops with one clear line', async () => {
  await withServer(['-latency-ms', '20'], async (srv) => {
    await faults(srv.url, { deleteWindowMs: 600 });
    const runId = uniqueRunId('rvgone');
    const db = `k6wp_${runId}`;
    const run = runK6('scenarios/ravendb/bulk-insert.js', { RAVEN_URL: srv.url, STAGES: '20s:2', BATCH_SIZE: '100', DOC_POOL: '100', GIVE_UP: '20s', RUN_ID: runId }, { runId });
    const deadline = Date.now() + 20000;
    while (!(await databaseExists(srv.url, db))) {
      assert.ok(Date.now() < deadline, 'the run never created its database');
      await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 500));
    await dropDatabase(srv.url, db);
    const res = await run;
    expectDeletedMidRun(res, db);
    // Stopped at the first batch that met the missing database, not after its 20 s stage: each
    // of the 2 VUs failed at most the one batch it had under way (a run carrying on would fail a
    // batch of 100 every few ms), every failure being the database's absence.
    const bulk = phase(res.summary, 'bulk');
    assert.deepEqual(Object.keys(bulk.failed_by_reason), ['http_500'], out(res));
    assert.ok([100, 200].includes(bulk.docs_failed), `${bulk.docs_failed} documents failed: ${out(res)}`);
    // Every counted failure has its line; a VU's line written while the other VU's abort stopped
    // the run may lack its count (seen once in CI: 2 lines, 100 documents counted; nothing was
    // sent in either batch, so no write is hidden).
    const lines = res.stderr.split('\n').filter((l) => /bulk insert of 100 documents (not sent|failed) \(http_500\): .*DatabaseDoesNotExistException/.test(l)).length;
    assert.ok(lines >= bulk.docs_failed / 100 && lines <= 2, `${lines} lines for ${bulk.docs_failed} documents failed: ${out(res)}`);
    assert.match(res.stderr, /\(http_503\): .*DatabaseDisabledException: The database k6wp_\w+ has been unloaded and locked by DeleteDatabase; nothing was done: sent again after a pause/);
  });
});

// As the real 4.1.0 does it (ravendb-real.test.mjs, the same assertion): committed, then 408.
test('E1 on a 4.1.0 test server whose index lags (indexLagMs): batches committed then answered 408 are undetermined and resolved: verification OK', async () => {
  await withServer(['-version', '4.1.0'], async (srv) => {
    await faults(srv.url, { indexLagMs: 20 });
    const r = await runK6('scenarios/ravendb/insert-vs-overwrite.js', {
      RAVEN_URL: srv.url, RAVEN_INDEXES: '3', RAVEN_WAIT_FOR_INDEXES: '1ms', DOCS: '3000', BATCH_SIZE: '300', VUS: '2',
      OVERWRITE_BATCHES: '6', MIXED_BATCHES: '4', MIXED_NEW_PERCENT: '50',
    });
    expectIndexWait408(r);
  });
});

test('E4 on a 4.1.0 test server, bulk inserts cut mid-body: the committed count comes from 4.x\'s failure text; verification OK', async () => {
  await withServer(['-version', '4.1.0', '-bulk-commit-ops', '600'], async (srv) => {
    await faults(srv.url, { dropConnectionRate: 0.5, seed: 3 });
    const r = await runK6('scenarios/ravendb/bulk-insert.js', { RAVEN_URL: srv.url, STAGES: '2s:1', BATCH_SIZE: '2000', DOC_POOL: '100' });
    expectBulkCut4x(r);
  });
});

// What the real server did once killed (ravendb-real.test.mjs): answers lost after the whole
// request was sent; the test server stages it without a kill (cutAfterBodyRate).
test('E1 with connections cut after the whole batch was read and committed: undetermined, resolved stored, never "none stored"', async () => {
  await withServer([], async (srv) => {
    await faults(srv.url, { cutAfterBodyRate: 0.25, seed: 5 });
    const r = await runK6('scenarios/ravendb/insert-vs-overwrite.js', {
      RAVEN_URL: srv.url, DOCS: '3000', BATCH_SIZE: '300', VUS: '2', OVERWRITE_BATCHES: '6', MIXED_BATCHES: '4', MIXED_NEW_PERCENT: '50',
    });
    const s = r.summary;
    const undetermined = s.phases.reduce((a, p) => a + p.docs_undetermined, 0);
    assert.ok(undetermined > 0, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stderr, /got no answer \(connection\): stored or not, counted failed and undetermined/);
    assert.ok(s.verification.readback_resolved > 0);
    expectCarriedOn(r);
  });
});

// The real server killed and restarted on its data (ravendb-real.test.mjs, the same assertion):
// the test server keeps its documents in -data-dir and answers a restart's windows.
test('E1 with the test server killed (SIGKILL) mid-run and restarted on its data: not-now answers sent again, nothing lost', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-ravends-'));
  let srv = await startTestServer('ravendb', ['-version', '4.1.0', '-data-dir', dir, '-latency-ms', '5']);
  const addr = srv.url.replace('http://', '');
  try {
    const k = startK6('scenarios/ravendb/insert-vs-overwrite.js', {
      RAVEN_URL: srv.url, DOCS: '20000', BATCH_SIZE: '500', VUS: '2', OVERWRITE_BATCHES: '10', MIXED_BATCHES: '6', MIXED_NEW_PERCENT: '50', GIVE_UP: '60s',
    });
    await k.waitFor(/writing to database k6wp_/, 60000);
    await new Promise((res) => setTimeout(res, 400));
    srv.proc.kill('SIGKILL');
    await new Promise((res) => srv.proc.once('exit', res));
    await new Promise((res) => setTimeout(res, 1000));
    srv = await startTestServer('ravendb', ['-version', '4.1.0', '-data-dir', dir, '-addr', addr, '-latency-ms', '5',
      '-start-empty500-ms', '500', '-start-nre-ms', '500', '-start-passive-ms', '1500']);
    const r = await k.done;
    expectCarriedOn(r);
    const retries = r.summary.phases.reduce((a, p) => a + (p.retries || 0), 0);
    assert.ok(retries > 0, 'the start windows\' answers were sent again');
    assert.match(r.stderr, /\(http_50[03]\): .*nothing was done: sent again after a pause/);
  } finally {
    await srv.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('E4 bulk insert: an acknowledged document that disappears fails the verification threshold (exit 99)', async () => {
  await withServer(['-latency-ms', '20'], async (srv) => {
    const runId = uniqueRunId('rvlost');
    const db = `k6wp_${runId}`;
    const run = runK6('scenarios/ravendb/bulk-insert.js', { RAVEN_URL: srv.url, STAGES: '3s:1', BATCH_SIZE: '100', DOC_POOL: '100', RUN_ID: runId }, { runId });
    // Wait for the first batch (K0…K99), then delete K5 behind the run's back: the database
    // then holds one document fewer than it acknowledged.
    const deadline = Date.now() + 20000;
    for (;;) {
      assert.ok(Date.now() < deadline, 'the first batch never arrived');
      if ((await databaseExists(srv.url, db)) && (await collectionCount(srv.url, db)) >= 100) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const del = await fetch(`${srv.url}/databases/${db}/docs?id=K5`, { method: 'DELETE' });
    assert.equal(del.status, 204);
    const res = await run;
    assert.equal(res.code, 99, out(res));
    const bulk = phase(res.summary, 'bulk');
    assert.equal(bulk.docs_failed, 0, 'nothing failed as far as the server said');
    assert.equal(res.summary.verification.found, bulk.docs_ok - 1);
    assert.equal(res.summary.verification.count_ok, false);
    const t = res.summary.thresholds.find((x) => x.metric === 'writepath_verify_unaccounted');
    // observed: acknowledged minus found = the one deleted document.
    // RavenDB's count is a range (a batch without an answer may be stored after all): the
    // acknowledged documents are its floor, and one of them is missing.
    assert.deepEqual(t, { metric: 'writepath_verify_unaccounted', threshold: 'count<=0', ok: false, observed: 1 });
  });
});

// Teardown removes only what the run made (test/helpers/raven-expect.mjs, asserted alike on the
// real 4.1.0 in ravendb-real.test.mjs): a document someone put into the run's database stays,
// and so does the database.
test('a document created by someone else in the run\'s database survives teardown: the run deletes its own documents, index and marker, and says the database was left', { timeout: 120000 }, async () => {
  await withServer([], async (srv) => {
    await faults(srv.url, { latencyMs: 20 });
    const k = startK6('scenarios/ravendb/insert-vs-overwrite.js', { RAVEN_URL: srv.url, RAVEN_INDEXES: '1', DOCS: '4000', BATCH_SIZE: '100', VUS: '2', OVERWRITE_BATCHES: '20', MIXED_BATCHES: '0' });
    let db;
    try {
      db = await expectBystanderKept(srv.url, k);
    } finally {
      await faults(srv.url, {});
      await dropDatabase(srv.url, db || `k6wp_${k.runId}`);
    }
  });
});
