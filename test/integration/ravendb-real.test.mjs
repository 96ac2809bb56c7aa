// RavenDB scenarios against a REAL RavenDB 4.1.0 (scripts/raven-private.sh: PyPI
// pyravendb-embedded 4.1.1.4 on .NET Core 2.1, pinned by sha256), each test on a server of its
// own under .run/test/ (a free port), because they kill, restart or stall it. These are the
// failure paths the API test server could not stage as the real server behaves: a commit
// followed by a failed index wait (408), a bulk insert cut part-way (4.x's failure text), a
// server killed with SIGKILL and restarted on its data (500, then 503 NodeIsPassive, then
// answers), and answers lost after the whole request was sent. Each ends with the verification
// OK (nothing lost) and no batch called "none stored" that the database holds.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startK6, uniqueRunId } from '../helpers/k6.mjs';
import { startPrivateRaven } from '../helpers/ravenprivate.mjs';
import { expectBulkCut4x, expectBystanderKept, expectCarriedOn, expectDeletedMidRun, expectIndexWait408, noFalseNoneStored, out } from '../helpers/raven-expect.mjs';
import { checkBulkInsert4x, checkDeleteByQuery, checkDeleteWindow, checkIndexWait408, checkRestart, dropDatabase } from '../helpers/raven-answers.mjs';

let srv;
before(async () => { srv = await startPrivateRaven({ name: 'raven-real' }); });
after(() => { if (srv) srv.stop(30); });

// Database names of this run's own (the server's data directory outlives a run).
const dbName = (what) => `${what}_${process.pid}_${Date.now().toString(36)}`;
const run = (scenario, env, opts) => startK6(scenario, { RAVEN_URL: srv.url, ...env }, opts);

// The raw exchanges the API test server must answer alike (test/fidelity/ravendb.test.mjs runs
// the same checks against it, its fault knobs staging each case).
test('real 4.1 answers: a batch waiting for its indexes is committed, then answered 408', async () => {
  await checkIndexWait408(srv.url, dbName('raw408'));
});

test('real 4.1 answers: a bulk insert failed part-way answers in 4.x words, counting what is stored', async () => {
  await checkBulkInsert4x(srv.url, dbName('rawbulk4'));
});

test('real 4.1 answers: a database being deleted answers 503 DatabaseDisabled, then 500 DatabaseDoesNotExist', async (t) => {
  t.diagnostic(JSON.stringify(await checkDeleteWindow(srv.url, dbName('rawdel'))));
});

test('real 4.1 answers: killed with SIGKILL and started again on its data: 500s, then 503 NodeIsPassive, then 201, every document kept', async (t) => {
  const met = await checkRestart(srv.url, dbName('rawrestart'), async () => {
    assert.ok(srv.kill('SIGKILL'), 'the server was running');
    await new Promise((res) => setTimeout(res, 300));
    await srv.restartAsync();
  });
  t.diagnostic(JSON.stringify(met));
});


test('real 4.1: a batch committed, then answered 408 for its index wait, is undetermined and resolved: verification OK', async () => {
  const r = await run('scenarios/ravendb/insert-vs-overwrite.js', {
    RAVEN_INDEXES: '3', RAVEN_WAIT_FOR_INDEXES: '1ms', DOCS: '3000', BATCH_SIZE: '300', VUS: '2',
    OVERWRITE_BATCHES: '6', MIXED_BATCHES: '4', MIXED_NEW_PERCENT: '50',
  }).done;
  assert.equal(r.summary?.server.version, 'RavenDB 4.1.0', out(r));
  assert.equal(r.summary.test_endpoint, false);
  // Not every batch need time out (an idle index may catch up within 1 ms): the ones that did
  // are undetermined, and all of them are in the database.
  expectIndexWait408(r);
});

test('real 4.1: bulk inserts cut part-way by TIMEOUT take their committed count from 4.x\'s failure text; verification OK', async () => {
  const r = await run('scenarios/ravendb/bulk-insert.js', { STAGES: '2s:1', BATCH_SIZE: '20000', TIMEOUT: '150ms' }).done;
  // 4.1.0's words: "Failed to process bulk insert Inserted 12335 documents in 44 batches. Last document id: 'K12334'"
  expectBulkCut4x(r);
});

test('real 4.1: killed with SIGKILL mid-run and restarted on its data: not-now answers are resent, lost answers are undetermined, nothing lost', async (t) => {
  const k = run('scenarios/ravendb/insert-vs-overwrite.js', {
    DOCS: '40000', BATCH_SIZE: '1000', VUS: '2', OVERWRITE_BATCHES: '10', MIXED_BATCHES: '6', MIXED_NEW_PERCENT: '50', GIVE_UP: '90s',
  }, { timeoutMs: 240000 });
  await k.waitFor(/writing to database k6wp_/, 60000);
  await new Promise((res) => setTimeout(res, 400));
  const killed = srv.kill('SIGKILL');
  assert.ok(killed, 'the server was running');
  // Down for a moment, as a crash and a supervisor's restart would leave it.
  await new Promise((res) => setTimeout(res, 1000));
  srv.restart();
  const r = await k.done;
  const s = r.summary;
  // Refused connections (nothing sent) fail; answers lost on the way are undetermined; the
  // database holds every acknowledged document and its count lies in the range.
  expectCarriedOn(r);
  t.diagnostic(`phases ${JSON.stringify(s.phases.map((p) => [p.phase, p.docs_ok, p.docs_failed, p.docs_undetermined, p.retries, p.failed_by_reason]))}; found ${s.verification.found} in ${s.verification.expected}..${s.verification.expected_max}`);
  t.diagnostic(r.stderr.split('\n').filter((l) => /level=error|sent again|undetermined/.test(l)).slice(0, 8).join('\n'));
});

test('real 4.1: the database deleted mid-run: batches meeting its 503 DatabaseDisabled window are sent again, then DatabaseDoesNotExist ends the run with one line (exit 108)', async (t) => {
  const k = run('scenarios/ravendb/bulk-insert.js', { STAGES: '30s:2', BATCH_SIZE: '100', DOC_POOL: '100', GIVE_UP: '20s' }, { timeoutMs: 120000 });
  const db = `k6wp_${k.runId}`;
  await k.waitFor(/writing to database k6wp_/, 60000);
  await new Promise((res) => setTimeout(res, 1500));
  const del = await fetch(`${srv.url}/admin/databases`, { method: 'DELETE', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ DatabaseNames: [db], HardDelete: true, FromNodes: null, TimeToWaitForConfirmation: null }) });
  assert.equal(del.status, 200);
  const r = await k.done;
  expectDeletedMidRun(r, db);
  t.diagnostic(r.stderr.split('\n').filter((l) => /level=error|sent again/.test(l)).slice(0, 6).join('\n'));
});

test('real 4.1 answers: delete by query deletes one collection\'s documents (an operation, Completed with the count), a bad query answers 500 ParseException', async () => {
  await checkDeleteByQuery(srv.url, dbName('rdq'));
});

test('real 4.1: a document created by someone else in the run\'s database survives teardown: the run deletes its own documents, index and marker, and says the database was left', async () => {
  const k = run('scenarios/ravendb/insert-vs-overwrite.js', { RAVEN_INDEXES: '1', DOCS: '20000', BATCH_SIZE: '500', VUS: '2', OVERWRITE_BATCHES: '100', MIXED_BATCHES: '0' }, { timeoutMs: 240000 });
  let db;
  try {
    db = await expectBystanderKept(srv.url, k);
  } finally {
    await dropDatabase(srv.url, db || `k6wp_${k.runId}`).catch(() => {});
  }
});

// A database disabled by its administrator answers 503 DatabaseDisabledException ("… has been
// disabled") to every route of it, before any handler: "not now". The set-up of a REUSE run
// meets it at its marker read, waits (one line) within GIVE_UP, and goes on once the database
// is enabled again; the test enables it when that line appears.
test('real 4.1: REUSE=1 of a kept database that was disabled: setup waits out its 503 DatabaseDisabled with one line, then reuses and drops it', async () => {
  const runId = uniqueRunId('rvdis');
  const db = `k6wp_${runId}`;
  const env = { RUN_ID: runId, STAGES: '1s:1', BATCH_SIZE: '500', DOC_POOL: '100' };
  const toggle = async (how) => {
    const r = await fetch(`${srv.url}/admin/databases/${how}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ DatabaseNames: [db] }) });
    assert.equal(r.status, 200, await r.text());
  };
  try {
    const first = await run('scenarios/ravendb/bulk-insert.js', { ...env, KEEP: '1' }).done;
    assert.equal(first.code, 0, out(first));
    await toggle('disable');
    // The server unloads the database a moment after the toggle: wait for its first 503.
    let status = 0;
    for (const until = Date.now() + 60000; status !== 503 && Date.now() < until; await new Promise((r) => setTimeout(r, 200))) {
      const r = await fetch(`${srv.url}/databases/${db}/docs?id=k6wp%2Fmarker`);
      status = r.status;
      await r.arrayBuffer();
    }
    assert.equal(status, 503, 'the disabled database answers 503');
    const k = run('scenarios/ravendb/bulk-insert.js', { ...env, REUSE: '1', GIVE_UP: '120s' });
    await k.waitFor(/RavenDB refused GET the marker k6wp\/marker for now \(503 Raven\.Client\.Exceptions\.Database\.DatabaseDisabledException: [^)]*has been disabled\)/);
    await toggle('enable');
    const res = await k.done;
    assert.equal(res.code, 0, out(res));
    assert.equal(res.summary.verification.count_ok, true, out(res));
    assert.equal((res.stderr.match(/RavenDB refused [^"]* for now/g) || []).length, 1, out(res));
    assert.match(res.stderr, new RegExp(`msg="k6-writepath: database ${db}[^"]*: dropped"`), out(res));
  } finally {
    await dropDatabase(srv.url, db).catch(() => {});
  }
});
