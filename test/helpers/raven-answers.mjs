// Exchanges with a RavenDB server over raw HTTP whose answers the API test server must give as
// the real RavenDB 4.1.0 gives them. Each check is run against both (test/fidelity/ravendb.test.mjs
// with the test server's fault knobs, test/integration/ravendb-real.test.mjs against the real
// 4.1.0 of scripts/raven-private.sh): one assertion for both servers is the proof that the test
// server follows the real one. What 4.1.0 answered is recorded in test/servers/ravendb/ (the
// comments beside each answer).
import assert from 'node:assert/strict';
import { loadavg } from 'node:os';
import { committedButIndexWaitFailed, notNowReason, parseBulkInsertProgress } from '../../lib/targets/ravendb/ravendb-answers.js';

const J = { 'Content-Type': 'application/json' };

// No answer: status 0, and a text that says which request waited how long on how busy a
// machine (a real 4.1.0 once left a 2 000-document bulk_docs unanswered for 30 s right after
// its start, at load average ~10 on 2 cores), and whether the server still answers at all.
async function call(base, method, path, body, timeoutMs = 30000) {
  const t0 = Date.now();
  try {
    const r = await fetch(base + path, { method, body, headers: J, signal: AbortSignal.timeout(timeoutMs) });
    const text = await r.text();
    let json = null;
    try { json = text ? JSON.parse(text) : null; } catch (_) { /* not JSON */ }
    return { status: r.status, headers: r.headers, text, json };
  } catch (e) {
    const why = String(e.cause?.code || e.message);
    const ms = Date.now() - t0;
    // Only after the 30 s ceiling: a quick refusal (a restart check counts them) is not delayed.
    const alive = ms < timeoutMs - 1000 ? '' : await fetch(`${base}/build/version`, { signal: AbortSignal.timeout(5000) })
      .then((r) => `; GET /build/version then answered ${r.status} in ${Date.now() - t0 - ms} ms`, (x) => `; GET /build/version then got no answer either (${x.cause?.code || x.message})`);
    return { status: 0, headers: new Headers(), text: `${why} (${method} ${path.split('?')[0]}: no answer after ${ms} ms, load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}${alive})`, json: null };
  }
}

// A server that has just started (or restarted) answers 500 NullReferenceException, an empty 500
// or 503 for a few seconds (recorded on 4.1.0, test/servers/ravendb): set-up waits that out.
export async function createDatabase(base, db) {
  let r;
  for (let i = 0; i < 80; i++) {
    r = await call(base, 'PUT', `/admin/databases?name=${db}&replicationFactor=1`, JSON.stringify({ DatabaseName: db }));
    const warmingUp = r.status === 503 || (r.status === 500 && (r.text === '' || /NullReferenceException/.test(r.text)));
    if (!warmingUp) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  assert.equal(r.status, 201, r.text);
}

export async function dropDatabase(base, db) {
  const r = await call(base, 'DELETE', '/admin/databases', JSON.stringify({ DatabaseNames: [db], HardDelete: true, FromNodes: null, TimeToWaitForConfirmation: null }));
  assert.equal(r.status, 200, r.text);
}

export async function usersCount(base, db) {
  const r = await call(base, 'GET', `/databases/${db}/collections/stats`);
  assert.equal(r.status, 200, r.text);
  return r.json.Collections.Users ?? 0;
}

function putBody(from, n, pad = 200) {
  const cmds = [];
  for (let i = from; i < from + n; i++) cmds.push({ Id: `K${i}`, ChangeVector: null, Type: 'PUT', Document: { f0: i, f1: `a${i}`, f2: i * 2, p: 'x'.repeat(pad), '@metadata': { '@collection': 'Users' } } });
  return JSON.stringify({ Commands: cmds });
}

export const postBatch = (base, db, from, n, query = '') => call(base, 'POST', `/databases/${db}/bulk_docs${query}`, putBody(from, n));

// A bulk_docs batch with waitForIndexesTimeout=1 ms over a collection a static index maps:
// committed, then 408 System.TimeoutException, which the pack counts undetermined.
export async function checkIndexWait408(base, db) {
  await createDatabase(base, db);
  // A static index is C# the server compiles (Roslyn, src/Raven.Server/Documents/Indexes/Static/
  // IndexCompiler.cs): on a just-started 4.1.0 at load average ~20 on 2 cores this PUT went
  // unanswered for 30 s, twice; it gets 120 s.
  const ix = await call(base, 'PUT', `/databases/${db}/admin/indexes`, JSON.stringify({ Indexes: [{ Name: 'K6wp/ByFields', Maps: ['from d in docs.Users select new { d.f0, d.f1, d.f2 }'] }] }), 120000);
  assert.ok(ix.status === 201 || ix.status === 200, ix.text);
  const r = await postBatch(base, db, 0, 2000, '?waitForIndexesTimeout=00:00:00.0010000');
  assert.equal(r.status, 408, r.text);
  assert.equal(r.json.Type, 'System.TimeoutException');
  assert.equal(r.json.Url, `/databases/${db}/bulk_docs?waitForIndexesTimeout=00:00:00.0010000`);
  assert.match(r.json.Message, /^After waiting for \d\d:\d\d:\d\d\.\d{7}, could not verify that 1 indexes has caught up with the changes as of etag: \d+$/);
  assert.match(r.json.Error, /^System\.TimeoutException: After waiting for .* at Raven\.Server\.Documents\.Handlers\.BatchHandler\.WaitForIndexesAsync/s);
  assert.equal(committedButIndexWaitFailed(r.status, r.json), true);
  assert.equal(await usersCount(base, db), 2000, 'the batch answered 408 is committed');
  // Without the wait the same batch is an ordinary 201.
  assert.equal((await postBatch(base, db, 0, 10)).status, 201);
  await dropDatabase(base, db);
}

// A bulk insert that fails part-way (5 000 PUTs, then a command the parser refuses): 500 with
// Connection: close and 4.x's words, whose count is exactly what is stored.
export async function checkBulkInsert4x(base, db) {
  await createDatabase(base, db);
  const id = (await call(base, 'GET', `/databases/${db}/operations/next-operation-id`)).json.Id;
  const cmds = [];
  for (let i = 0; i < 5000; i++) cmds.push(JSON.stringify({ Id: `K${i}`, Type: 'PUT', Document: { p: 'x'.repeat(100), '@metadata': { '@collection': 'Users' } } }));
  cmds.push('{"Id":"bad","Type":"PATCH","Document":{}}');
  const r = await call(base, 'POST', `/databases/${db}/bulk_insert?id=${id}`, `[${cmds.join(',')}]`);
  assert.equal(r.status, 500, r.text);
  assert.equal(r.headers.get('connection'), 'close');
  assert.equal(r.json.Type, 'System.InvalidOperationException');
  assert.match(r.json.Message, /^Failed to process bulk insert Inserted \d+ documents in \d+ batches\.( Last document id: 'K\d+')?$/);
  const p = parseBulkInsertProgress(r.json.Message);
  assert.ok(p && p.total <= 5000 && p.batches >= 1, r.json.Message);
  assert.equal(p.lastId, `K${p.total - 1}`);
  assert.equal(await usersCount(base, db), p.total, 'the text counts exactly the documents stored');
  const st = await call(base, 'GET', `/databases/${db}/operations/state?id=${id}`);
  assert.equal(st.json.Status, 'Faulted');
  assert.equal(st.json.Progress, null);
  assert.equal(st.json.Result.Message, r.json.Message);
  assert.equal(st.json.Result.StatusCode, 500);
  // Nothing committed: no last id.
  const id2 = (await call(base, 'GET', `/databases/${db}/operations/next-operation-id`)).json.Id;
  const none = await call(base, 'POST', `/databases/${db}/bulk_insert?id=${id2}`, '[{"Id":"bad","Type":"PATCH","Document":{}}]');
  assert.equal(none.json.Message, 'Failed to process bulk insert Inserted 0 documents in 0 batches.');
  await dropDatabase(base, db);
}

// Which answer a request to a database met, as a phase name.
function phaseOf(r) {
  if (r.status === 201) return 'ok';
  if (r.status === 0) return 'refused';
  if (r.status === 500 && r.text === '' && !r.headers.get('raven-server-version')) return 'empty500';
  const t = r.json?.Type || '';
  if (r.status === 500 && t === 'System.NullReferenceException') return 'nre';
  if (r.status === 503 && t.endsWith('NodeIsPassiveException')) return 'passive';
  if (r.status === 503 && t.endsWith('DatabaseDisabledException')) return 'disabled';
  if (r.status === 500 && t.endsWith('DatabaseDoesNotExistException')) return 'missing';
  return `other ${r.status} ${r.text.slice(0, 200)}`;
}

// The phases in the order met, each once (['ok', 'disabled', 'missing']).
function phases(seen) {
  const out = [];
  for (const s of seen) if (out[out.length - 1] !== s.phase) out.push(s.phase);
  return out;
}

// A database deleted while batches keep coming: 201s, then 503 DatabaseDisabledException
// while the deletion runs (a "not now" the pack sends again), then 500
// DatabaseDoesNotExistException for good.
export async function checkDeleteWindow(base, db) {
  await createDatabase(base, db);
  for (let i = 0; i < 5; i++) assert.equal((await postBatch(base, db, i * 2000, 2000)).status, 201);
  const seen = [];
  let deleted = false;
  const loop = (async () => {
    for (let i = 0; !deleted || seen.length === 0 || seen[seen.length - 1].phase !== 'missing'; i++) {
      const r = await postBatch(base, db, i, 10);
      seen.push({ phase: phaseOf(r), r });
      if (seen.length > 20000) break;
    }
  })();
  await new Promise((res) => setTimeout(res, 300));
  const del = await call(base, 'DELETE', '/admin/databases', JSON.stringify({ DatabaseNames: [db], HardDelete: true, FromNodes: null, TimeToWaitForConfirmation: null }));
  deleted = true;
  assert.equal(del.status, 200, del.text);
  await loop;
  assert.deepEqual(phases(seen), ['ok', 'disabled', 'missing'], JSON.stringify(phases(seen)));
  const d = seen.find((s) => s.phase === 'disabled').r;
  assert.equal(d.json.Message, `The database ${db} has been unloaded and locked by DeleteDatabase`);
  assert.equal(notNowReason(503, d.json), 'http_503');
  const m = seen.find((s) => s.phase === 'missing').r;
  assert.equal(m.json.Message, `Database '${db}' does not exist.`);
  assert.equal(notNowReason(500, m.json), null);
  return phases(seen);
}

// A server killed with SIGKILL and started again on its data (restart(): resolves once the
// new process was started, before it answers): refused connections, then 500 with no body,
// 500 NullReferenceException, 503 NodeIsPassiveException, in this order (each may be too short
// to meet), then 201; every document written before the kill is there.
export async function checkRestart(base, db, killAndRestart) {
  await createDatabase(base, db);
  assert.equal((await postBatch(base, db, 0, 2000)).status, 201);
  const restarted = killAndRestart();
  const seen = [];
  const deadline = Date.now() + 120000;
  for (let i = 0; Date.now() < deadline; i++) {
    const r = await postBatch(base, db, 0, 10);
    seen.push({ phase: phaseOf(r), r, at: Date.now() });
    if (r.status === 201) break;
    await new Promise((res) => setTimeout(res, r.status === 0 ? 20 : 5));
  }
  await restarted;
  const order = ['refused', 'empty500', 'nre', 'passive', 'ok'];
  const met = phases(seen);
  assert.equal(met[met.length - 1], 'ok', JSON.stringify(met));
  for (let i = 1; i < met.length; i++) assert.ok(order.indexOf(met[i - 1]) < order.indexOf(met[i]) && order.indexOf(met[i - 1]) >= 0, JSON.stringify(met));
  assert.ok(met.some((p) => p === 'empty500' || p === 'nre' || p === 'passive'), `a not-now answer before the first 201: ${JSON.stringify(met)}`);
  for (const s of seen) {
    if (s.phase === 'nre') assert.equal(notNowReason(500, s.r.json), 'http_500');
    if (s.phase === 'passive') {
      assert.equal(s.r.json.Message, `Can't perform actions on the database '${db}' while the node is passive.`);
      assert.equal(notNowReason(503, s.r.json), 'http_503');
    }
  }
  assert.equal(await usersCount(base, db), 2000, 'the documents of before the kill are kept');
  await dropDatabase(base, db);
  return met;
}

// Deletion by query, what teardown uses when the run's database also holds someone else's
// documents: DELETE /queries {"Query":"from Users"} answers 200 {"OperationId"}, the operation
// ends Completed with a BulkOperationResult counting the deleted documents, the other
// collection keeps its documents; a query that does not parse answers 500 ParseException.
export async function checkDeleteByQuery(base, db) {
  await createDatabase(base, db);
  assert.equal((await postBatch(base, db, 0, 3)).status, 201);
  const other = await call(base, 'PUT', `/databases/${db}/docs?id=others/1`, JSON.stringify({ note: 'kept', '@metadata': { '@collection': 'Others' } }));
  assert.equal(other.status, 201, other.text);
  const del = await call(base, 'DELETE', `/databases/${db}/queries`, JSON.stringify({ Query: 'from Users' }));
  assert.equal(del.status, 200, del.text);
  assert.equal(typeof del.json.OperationId, 'number', del.text);
  let st;
  for (let i = 0; i < 100; i++) {
    st = await call(base, 'GET', `/databases/${db}/operations/state?id=${del.json.OperationId}`);
    if (st.status === 200 && st.json.Status !== 'InProgress') break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.equal(st.status, 200, st.text);
  assert.equal(st.json.Status, 'Completed', st.text);
  assert.deepEqual([st.json.Result.$type, st.json.Result.Total, st.json.Result.Message], ['Raven.Client.Documents.Operations.BulkOperationResult, Raven.Client', 3, 'Processed 3 items.']);
  const stats = await call(base, 'GET', `/databases/${db}/collections/stats`);
  assert.equal(stats.json.Collections.Users ?? 0, 0, stats.text);
  assert.equal(stats.json.Collections.Others, 1, stats.text);
  const bad = await call(base, 'DELETE', `/databases/${db}/queries`, JSON.stringify({ Query: 'frm Users' }));
  assert.equal(bad.status, 500, bad.text);
  assert.equal(bad.json.Type, 'Raven.Server.Documents.Queries.Parser.QueryParser+ParseException');
  await dropDatabase(base, db);
}
