// The fidelity audit of docs/fidelity.md: one test per row, i.e. per answer the pack reads on a
// failure path. Each test pins what the API test server sends to the shape the real server
// produces (the upstream source or recorded exchange is named in the row and in the test),
// and, where the pack's reading is a pure function, what the pack concludes from it.
// Rows whose pack-side conclusion needs a k6 run name the integration test that proves it.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../helpers/testserver.mjs';
import { accountBatch } from '../../lib/targets/arangodb/arangodb-answers.js';
import { committedFromState } from '../../lib/targets/ravendb/ravendb-answers.js';
import { testEndpointOf } from '../../lib/test-endpoint.js';

async function call(base, method, url, { body, headers = {} } = {}) {
  const res = await fetch(base + url, { method, headers, body: body === undefined ? undefined : (typeof body === 'string' ? body : JSON.stringify(body)) });
  const text = await res.text();
  let json = null;
  try { json = JSON.parse(text); } catch (_) { /* not JSON */ }
  return { status: res.status, headers: res.headers, text, json };
}

// ------------------------------------------------------------------------------ ArangoDB
describe('ArangoDB failure answers (docs/fidelity.md, rows A1-A12)', () => {
  let srv;
  const auth = { Authorization: `Basic ${Buffer.from('root:pw').toString('base64')}` };
  const a = (method, url, body, headers = auth) => call(srv.url, method, url, { body, headers });
  before(async () => {
    srv = await startTestServer('arangodb', ['-root-password', 'pw']);
    assert.equal((await a('POST', '/_api/database', { name: 'audit' })).status, 201);
    assert.equal((await a('POST', '/_db/audit/_api/collection', { name: 'c' })).status, 200);
  });
  after(async () => { await srv?.stop(); });

  test('A1 inline element error: 202, {"error":true,"errorNum":1210,"errorMessage"} without _key, in input order', async () => {
    // Methods.cpp createBabiesError; array answers keep 201/202 (EX RestDocumentHandlerPostBadJsonMulti)
    const r = await a('POST', '/_db/audit/_api/document/c?overwrite=false', [{ _key: 'k1' }, { _key: 'k1' }, { _key: 'k2' }]);
    assert.equal(r.status, 202);
    assert.deepEqual(r.json[1], { error: true, errorNum: 1210, errorMessage: "unique constraint violated - in index primary of type primary over '_key'; conflicting key: k1" });
    assert.ok(typeof r.json[0]._rev === 'string' && typeof r.json[2]._rev === 'string');
    const pack = accountBatch(3, r.status, r.text, r.headers.get('x-arango-error-codes'), false);
    assert.deepEqual(pack, { failed: 1, byReason: { e1210: 1 }, failedIndexes: [1], note: null });
  });

  test('A2 X-Arango-Error-Codes is a JSON object {"<errorNum>":count} (EX RestDocumentHandlerDeleteDocumentUnknownMulti)', async () => {
    const r = await a('DELETE', '/_db/audit/_api/document/c', ['gone1', 'gone2']);
    assert.equal(r.status, 202);
    assert.equal(r.headers.get('x-arango-error-codes'), '{"1202":2}');
    assert.deepEqual(r.json.map((e) => e.errorNum), [1202, 1202]);
    const pack = accountBatch(2, r.status, r.text, r.headers.get('x-arango-error-codes'), false);
    assert.deepEqual([pack.failed, pack.byReason], [2, { e1202: 2 }]);
  });

  test('A3 silent=true: {} when all succeed; with overwriteMode=ignore the answer keeps ignored identities', async () => {
    const ok = await a('POST', '/_db/audit/_api/document/c?silent=true', [{ _key: 's1' }]);
    assert.equal(ok.text, '{}');
    const r = await a('POST', '/_db/audit/_api/document/c?silent=true&overwriteMode=ignore', [{ _key: 's1' }, { _key: 'n1' }, { _key: 'bad key' }]);
    assert.equal(r.headers.get('x-arango-error-codes'), '{"1221":1}');
    assert.deepEqual(r.json.map((e) => (e.error ? e.errorNum : e._key)), ['s1', 1221]);
    const pack = accountBatch(3, r.status, r.text, r.headers.get('x-arango-error-codes'), true);
    assert.deepEqual([pack.failed, pack.byReason], [1, { e1221: 1 }]);
  });

  test('A4 collection not found: 404 {"code":404,"error":true,"errorMessage":"collection or view not found: <name>","errorNum":1203}', async () => {
    // EX RestDocumentHandlerPostUnknownCollection1 (recorded on 3.12.10); the pack aborts the run
    // (fatal(), proven by test/integration/arangodb.test.mjs "the run database dropped under a running test …")
    const r = await a('POST', '/_db/audit/_api/document/products', { a: 1 });
    assert.equal(r.status, 404);
    assert.deepEqual(r.json, { code: 404, error: true, errorMessage: 'collection or view not found: products', errorNum: 1203 });
  });

  test('A5 database not found: 404 with errorNum 1228 "database not found" (errors.yaml ERROR_ARANGO_DATABASE_NOT_FOUND)', async () => {
    const r = await a('POST', '/_db/nodb/_api/document/c', { a: 1 });
    assert.equal(r.status, 404);
    assert.deepEqual(r.json, { code: 404, error: true, errorMessage: 'database not found', errorNum: 1228 });
  });

  test('A6 authentication: 401 errorNum 11 on any request with bad credentials; /_open/auth 401 "Wrong credentials" errorNum 401', async () => {
    // RestAuthHandler.cpp: generateError(UNAUTHORIZED, TRI_ERROR_HTTP_UNAUTHORIZED, "Wrong credentials")
    const bad = await a('GET', '/_api/version', undefined, { Authorization: `Basic ${Buffer.from('root:nope').toString('base64')}`, 'X-Omit-Www-Authenticate': 'true' });
    assert.equal(bad.status, 401);
    assert.equal(bad.headers.get('www-authenticate'), null, 'X-Omit-Www-Authenticate is honoured');
    assert.deepEqual(bad.json, { code: 401, error: true, errorMessage: 'not authorized to execute this request', errorNum: 11 });
    const open = await a('POST', '/_open/auth', { username: 'root', password: 'nope' }, {});
    assert.equal(open.status, 401);
    assert.deepEqual(open.json, { code: 401, error: true, errorMessage: 'Wrong credentials', errorNum: 401 });
  });

  test('A7 duplicate name: 409 errorNum 1207 for an existing database or collection (what DISTRIBUTED joiners read)', async () => {
    const db = await a('POST', '/_api/database', { name: 'audit' });
    assert.deepEqual([db.status, db.json.errorNum, db.json.error], [409, 1207, true]);
    const coll = await a('POST', '/_db/audit/_api/collection', { name: 'c' });
    assert.deepEqual([coll.status, coll.json.errorNum], [409, 1207]);
  });

  test('A8 single-document insert of an existing key: 409 errorNum 1210 (DOCS documents.md createDocument)', async () => {
    const r = await a('POST', '/_db/audit/_api/document/c', { _key: 'k1' });
    assert.equal(r.status, 409);
    assert.equal(r.json.errorNum, 1210);
  });

  test('A9 single-document read of a missing key: 404 errorNum 1202 "document not found" (EX RestDocumentHandlerReadDocumentUnknownHandle)', async () => {
    const r = await a('GET', '/_db/audit/_api/document/c/zz');
    assert.equal(r.status, 404);
    assert.deepEqual(r.json, { code: 404, error: true, errorMessage: 'document not found', errorNum: 1202 });
  });

  test('A10 batch read (PUT ?onlyget=true) of a missing key: 200, inline 1202, no X-Arango-Error-Codes (RestDocumentHandler generateDocument)', async () => {
    const r = await a('PUT', '/_db/audit/_api/document/c?onlyget=true', ['k1', 'zz']);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('x-arango-error-codes'), null);
    assert.equal(r.json[0]._key, 'k1');
    assert.deepEqual(r.json[1], { error: true, errorNum: 1202, errorMessage: 'document not found' });
  });

  test('A11 stream transaction not found: 404 errorNum 1655 (errors.yaml ERROR_TRANSACTION_NOT_FOUND)', async () => {
    const r = await a('PUT', '/_db/audit/_api/transaction/123');
    assert.equal(r.status, 404);
    assert.equal(r.json.errorNum, 1655);
  });

  test('A12 503: whole request refused, {"code":503,"error":true,"errorNum":503} (errors.yaml ERROR_HTTP_SERVICE_UNAVAILABLE: "not now", sent again; another errorNum with 503 fails the batch)', async () => {
    const f = await call(srv.url, 'POST', '/_testserver/faults', { body: { burst503: { every: 1, length: 1 } } });
    assert.equal(f.status, 200);
    const r = await a('POST', '/_db/audit/_api/document/c', [{ _key: 'b1' }]);
    await call(srv.url, 'POST', '/_testserver/faults', { body: {} });
    assert.equal(r.status, 503);
    assert.deepEqual([r.json.code, r.json.error, r.json.errorNum], [503, true, 503]);
  });
});

// ------------------------------------------------------------------------------ RavenDB
describe('RavenDB failure answers (docs/fidelity.md, rows R1-R10)', () => {
  let srv;
  const J = { 'Content-Type': 'application/json' };
  const r = (method, url, body, headers = J) => call(srv.url, method, url, { body, headers });
  const cmd = (id, cv) => ({ Id: id, ChangeVector: cv, Type: 'PUT', Document: { '@metadata': { '@collection': 'Users' } } });
  before(async () => {
    srv = await startTestServer('ravendb', ['-bulk-commit-ops', '1000']);
    assert.equal((await r('PUT', '/admin/databases?name=audit&replicationFactor=1', { DatabaseName: 'audit' })).status, 201);
  });
  after(async () => { await srv?.stop(); });

  test('R1 any exception: {"Url","Type","Message","Error"} with the status of MaybeSetExceptionStatusCode (RavenServerStartup.cs)', async () => {
    const x = await r('GET', '/nothing');
    assert.equal(x.status, 400);
    assert.deepEqual(Object.keys(x.json), ['Url', 'Type', 'Message', 'Error']);
    assert.deepEqual([x.json.Url, x.json.Type, x.json.Message], ['/nothing', 'Raven.Client.Exceptions.Routing.RouteNotFoundException', 'There is no handler for path: GET /nothing']);
    assert.ok(x.json.Error.startsWith(`${x.json.Type}: ${x.json.Message}`));
  });

  test('R2 bulk insert failure: 500 InvalidOperationException "Failed to process bulk insert. Inserted N items in B batches. Last document ID: …", Connection: close', async () => {
    const id = (await r('GET', '/databases/audit/operations/next-operation-id')).json.Id;
    // 1500 good commands, then one the server rejects: the first internal batch (1000) is committed
    const cmds = Array.from({ length: 1500 }, (_, i) => JSON.stringify({ Id: `K${i}`, Type: 'PUT', Document: { '@metadata': { '@collection': 'Users' } } }));
    const body = `[${cmds.join(',')},{"Id":"K1500","Type":"PATCH","Document":{}}]`;
    const x = await r('POST', `/databases/audit/bulk_insert?id=${id}`, body);
    assert.equal(x.status, 500);
    assert.equal(x.headers.get('connection'), 'close');
    assert.equal(x.json.Type, 'System.InvalidOperationException');
    assert.equal(x.json.Message, "Failed to process bulk insert. Inserted 1,000 items in 1 batches. Last document ID: 'K999'");
  });

  test('R3 operation state of a failed bulk insert: Faulted, Progress null, OperationExceptionResult; the pack reads Total from the message', async () => {
    const id = (await r('GET', '/databases/audit/operations/next-operation-id')).json.Id;
    const cmds = Array.from({ length: 1200 }, (_, i) => JSON.stringify({ Id: `L${i}`, Type: 'PUT', Document: { '@metadata': { '@collection': 'Users' } } }));
    await r('POST', `/databases/audit/bulk_insert?id=${id}`, `[${cmds.join(',')},{"Id":"L1200","Type":"PUT"}]`);
    const st = await r('GET', `/databases/audit/operations/state?id=${id}`);
    assert.equal(st.status, 200);
    assert.equal(st.json.Status, 'Faulted');
    assert.equal(st.json.Progress, null);
    assert.match(st.json.Result.$type, /^Raven\.Client\.Documents\.Operations\.OperationExceptionResult, Raven\.Client$/);
    assert.deepEqual([st.json.Result.Type, st.json.Result.StatusCode], ['System.InvalidOperationException', 500]);
    assert.deepEqual(committedFromState(st.json), { known: true, processed: 1000, text: `Faulted: ${st.json.Result.Message}` });
  });

  test('R4 operation state of an unknown operation id: 404 without a body (OperationsHandler.State); the pack concludes nothing was written', async () => {
    const x = await r('GET', '/databases/audit/operations/state?id=987654');
    assert.equal(x.status, 404);
    assert.equal(x.text, '');
  });

  test('R5 batch command failure: 409 ConcurrencyException "Document K has change vector …, but Put was called with expecting new document. …", nothing stored', async () => {
    assert.equal((await r('POST', '/databases/audit/bulk_docs', { Commands: [cmd('C1', '')] })).status, 201);
    const x = await r('POST', '/databases/audit/bulk_docs', { Commands: [cmd('C2', ''), cmd('C1', '')] });
    assert.equal(x.status, 409);
    assert.equal(x.json.Type, 'Raven.Client.Exceptions.ConcurrencyException');
    assert.match(x.json.Message, /^Document C1 has change vector A:\d+-[A-Za-z0-9+/]{22}, but Put was called with expecting new document\. Optimistic concurrency violation, transaction will be aborted\.$/);
    assert.equal((await r('GET', '/databases/audit/docs?id=C2')).status, 404, 'one transaction: C2 is not stored either');
  });

  test('R6 database does not exist: 500 DatabaseDoesNotExistException "Database \'X\' does not exist." (RouteInformation.CreateDatabase)', async () => {
    const x = await r('GET', '/databases/nodb/collections/stats');
    assert.equal(x.status, 500);
    assert.deepEqual([x.json.Type, x.json.Message], ['Raven.Client.Exceptions.Database.DatabaseDoesNotExistException', "Database 'nodb' does not exist."]);
    // …and the server-level lookups carry the Database-Missing header instead
    const rec = await r('GET', '/admin/databases?name=nodb');
    assert.deepEqual([rec.status, rec.headers.get('database-missing')], [404, 'nodb']);
    const topo = await r('GET', '/topology?name=nodb');
    assert.deepEqual([topo.status, topo.headers.get('database-missing'), topo.json], [503, 'nodb', { Type: 'Error', Message: "Database nodb wasn't found" }]);
  });

  test('R7 create an existing database: 409 ConcurrencyException "Database \'X\' already exists!"', async () => {
    const x = await r('PUT', '/admin/databases?name=audit&replicationFactor=1', { DatabaseName: 'audit' });
    assert.equal(x.status, 409);
    assert.deepEqual([x.json.Type, x.json.Message], ['Raven.Client.Exceptions.ConcurrencyException', "Database 'audit' already exists!"]);
  });

  test('R8 database unavailable: 503 DatabaseDisabledException; the pack reads the status only (reason http_503)', async () => {
    // the test server's burst: after every accepted write, the next one is refused
    await call(srv.url, 'POST', '/_testserver/faults', { body: { burst503: { every: 1, length: 1 } } });
    assert.equal((await r('POST', '/databases/audit/bulk_docs', { Commands: [cmd('D1', null)] })).status, 201);
    const x = await r('POST', '/databases/audit/bulk_docs', { Commands: [cmd('D2', null)] });
    await call(srv.url, 'POST', '/_testserver/faults', { body: {} });
    assert.equal(x.status, 503);
    assert.equal(x.json.Type, 'Raven.Client.Exceptions.Database.DatabaseDisabledException');
  });

  test('R9 a missing document (GET /docs?id=): 404 without a body (DocumentHandler.Get)', async () => {
    const x = await r('GET', '/databases/audit/docs?id=nope');
    assert.deepEqual([x.status, x.text], [404, '']);
  });

  test('R10 every answer of a test server carries X-K6wp-Test-Endpoint, which no real server sends', async () => {
    const x = await r('GET', '/build/version');
    assert.equal(testEndpointOf(Object.fromEntries(x.headers)), 'ravendb-testserver');
  });
});

// ------------------------------------------------------------------ test-server storage limit
// Not an answer of a healthy server: what each test server sends once it holds -max-stored-mb of
// documents (test/servers/internal/storelimit), shaped as the real database's answer to a write
// its storage cannot take, with the limit named in the text; nothing stored before is lost,
// and a dropped database gives its room back.
describe('storage limit of the test servers (docs/fidelity.md, rows A13 and R11)', () => {
  const big = (i) => ({ _key: `k${i}`, s: 'x'.repeat(2000) });

  test('A13 ArangoDB past -max-stored-mb: 500 errorNum 1104 "IO error: No space left on device: …" for the whole request; what was stored stays', async () => {
    const srv = await startTestServer('arangodb', ['-root-password', 'pw', '-max-stored-mb', '1']);
    try {
      const auth = { Authorization: `Basic ${Buffer.from('root:pw').toString('base64')}` };
      const a = (method, url, body) => call(srv.url, method, url, { body, headers: auth });
      assert.equal((await a('POST', '/_api/database', { name: 'full' })).status, 201);
      assert.equal((await a('POST', '/_db/full/_api/collection', { name: 'c' })).status, 200);
      let stored = 0;
      let refused = null;
      for (let b = 0; b < 100 && !refused; b++) {
        const x = await a('POST', '/_db/full/_api/document/c', Array.from({ length: 50 }, (_, i) => big(b * 50 + i)));
        if (x.status === 202 || x.status === 201) stored += 50; else refused = x;
      }
      assert.ok(refused, 'the limit was reached');
      assert.equal(refused.status, 500);
      assert.deepEqual([refused.json.code, refused.json.error, refused.json.errorNum], [500, true, 1104]);
      assert.match(refused.json.errorMessage, /^IO error: No space left on device: arangodb-testserver keeps documents in memory and holds \d+ MB, its limit -max-stored-mb=1 \(a limit of this API test server, not of the database it stands in for\)$/);
      assert.match(srv.stderr(), /TEST-SERVER LIMIT REACHED: arangodb-testserver/);
      assert.equal((await a('GET', '/_db/full/_api/collection/c/count')).json.count, stored, 'nothing acknowledged was dropped');
      assert.ok(stored * 2000 <= 1 << 20, `at most 1 MB of documents kept (${stored} of 2 KB)`);
      // dropping the database gives the room back
      assert.equal((await a('DELETE', '/_api/database/full')).status, 200);
      assert.equal((await a('POST', '/_api/database', { name: 'again' })).status, 201);
      assert.equal((await a('POST', '/_db/again/_api/collection', { name: 'c' })).status, 200);
      assert.equal((await a('POST', '/_db/again/_api/document/c', [big(1)])).status, 202);
    } finally { await srv.stop(); }
  });

  test('R11 RavenDB past -max-stored-mb: 500 DiskFullException "There is not enough space …" (bulk_docs), a faulted bulk insert carrying it; what was stored stays', async () => {
    const srv = await startTestServer('ravendb', ['-max-stored-mb', '1']);
    try {
      const J = { 'Content-Type': 'application/json' };
      const r = (method, url, body) => call(srv.url, method, url, { body, headers: J });
      const put = (id) => ({ Id: id, ChangeVector: null, Type: 'PUT', Document: { s: 'x'.repeat(2000), '@metadata': { '@collection': 'Users' } } });
      assert.equal((await r('PUT', '/admin/databases?name=full&replicationFactor=1', { DatabaseName: 'full' })).status, 201);
      let stored = 0;
      let refused = null;
      for (let b = 0; b < 100 && !refused; b++) {
        const x = await r('POST', '/databases/full/bulk_docs', { Commands: Array.from({ length: 50 }, (_, i) => put(`u/${b * 50 + i}`)) });
        if (x.status === 201) stored += 50; else refused = x;
      }
      assert.ok(refused, 'the limit was reached');
      assert.equal(refused.status, 500);
      assert.equal(refused.json.Type, 'Sparrow.Server.Exceptions.DiskFullException');
      assert.match(refused.json.Message, /^There is not enough space to set the size of file Databases\/full\/Raven\.voron to [\d.,]+ [KMG]?Bytes\. Currently available space: [\d.,]+ [KMG]?Bytes\. Error Message: ravendb-testserver keeps documents in memory and holds \d+ MB, its limit -max-stored-mb=1 \(a limit of this API test server, not of the database it stands in for\)$/);
      assert.match(srv.stderr(), /TEST-SERVER LIMIT REACHED: ravendb-testserver/);
      // bulk insert: the failure of R2, the DiskFullException as its inner exception
      const id = (await r('GET', '/databases/full/operations/next-operation-id')).json.Id;
      const cmds = Array.from({ length: 60 }, (_, i) => JSON.stringify({ Id: `b/${i}`, Type: 'PUT', Document: { s: 'x'.repeat(2000), '@metadata': { '@collection': 'Users' } } }));
      const bi = await r('POST', `/databases/full/bulk_insert?id=${id}`, `[${cmds.join(',')}]`);
      assert.equal(bi.status, 500);
      assert.equal(bi.json.Message, 'Failed to process bulk insert. Inserted 0 items in 0 batches.');
      assert.match(bi.json.Error, /---> Sparrow\.Server\.Exceptions\.DiskFullException: There is not enough space/);
      const stats = await r('GET', '/databases/full/stats');
      assert.equal(stats.json.CountOfDocuments, stored, 'nothing acknowledged was dropped');
      // deleting the database gives the room back
      assert.equal((await r('DELETE', '/admin/databases', { DatabaseNames: ['full'], HardDelete: true })).status, 200);
      assert.equal((await r('PUT', '/admin/databases?name=again&replicationFactor=1', { DatabaseName: 'again' })).status, 201);
      assert.equal((await r('POST', '/databases/again/bulk_docs', { Commands: [put('u/1')] })).status, 201);
    } finally { await srv.stop(); }
  });
});
