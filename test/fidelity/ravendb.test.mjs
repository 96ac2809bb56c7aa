// Fidelity tests for the RavenDB API test double (test/servers/ravendb):
// 1. the official `ravendb` npm client (7.2.6) must work against it unchanged;
// 2. raw HTTP exchanges our k6 adapter relies on (lib/targets/ravendb/ravendb.js) must
//    match what the real server does (sources in test/servers/ravendb and docs/fidelity.md).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import {
  DocumentStore,
  CreateDatabaseOperation,
  DeleteDatabasesOperation,
  GetStatisticsOperation,
  GetCollectionStatisticsOperation,
  PutIndexesOperation,
  IndexDefinition,
  GetOperationStateOperation,
} from 'ravendb';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTestServer } from '../helpers/testserver.mjs';
import { checkBulkInsert4x, checkDeleteByQuery, checkDeleteWindow, checkIndexWait408, checkRestart, createDatabase, postBatch, usersCount } from '../helpers/raven-answers.mjs';

class User {
  constructor(name = '', email = '', age = 0) {
    this.name = name;
    this.email = email;
    this.age = age;
  }
}

function newStore(url, database) {
  const store = new DocumentStore(url, database);
  store.conventions.findCollectionNameForObjectLiteral = () => 'Users';
  store.initialize();
  return store;
}

async function expectRejectName(promise, name) {
  let err;
  try { await promise; } catch (e) { err = e; }
  assert.ok(err, `expected ${name}, got success`);
  assert.equal(err.name, name, `expected ${name}, got ${err.name}: ${err.message}`);
  return err;
}

// ---------------------------------------------------------------- official client
describe('RavenDB test server vs the official ravendb client', () => {
  let srv;
  let store;
  const db = 'fidelity';

  before(async () => {
    srv = await startTestServer('ravendb', ['-version', '7.1.2']);
    store = newStore(srv.url, db);
  });
  after(async () => {
    store?.dispose();
    await srv?.stop();
  });

  test('CreateDatabaseOperation creates, a second create is a ConcurrencyException', async () => {
    const res = await store.maintenance.server.send(new CreateDatabaseOperation({ databaseName: db }));
    assert.equal(res.name, db);
    assert.deepEqual(res.nodesAddedTo, [srv.url]);
    assert.ok(res.raftCommandIndex > 0);
    const err = await expectRejectName(
      store.maintenance.server.send(new CreateDatabaseOperation({ databaseName: db })), 'ConcurrencyException');
    assert.match(err.message, /Database 'fidelity' already exists!/);
  });

  test('session store/saveChanges, load single and multiple ids, update, delete', async () => {
    {
      const s = store.openSession();
      await s.store(new User('Ada', 'ada@example.com', 36), 'users/1');
      await s.store(new User('Grace', 'grace@example.com', 45), 'users/2');
      await s.store(new User('Linus', 'linus@example.com', 28), 'users/3');
      await s.saveChanges();
    }
    {
      const s = store.openSession();
      const ada = await s.load('users/1', User);
      assert.ok(ada instanceof User);
      assert.equal(ada.name, 'Ada');
      assert.equal(ada.age, 36);
      const md = s.advanced.getMetadataFor(ada);
      assert.equal(md['@collection'], 'Users');
      assert.equal(md['@id'], 'users/1');
      assert.match(s.advanced.getChangeVectorFor(ada), /^A:\d+-[A-Za-z0-9+/]{22}$/);

      const many = await s.load(['users/1', 'users/2', 'users/404'], User);
      assert.deepEqual(Object.keys(many).sort(), ['users/1', 'users/2', 'users/404']);
      assert.equal(many['users/2'].email, 'grace@example.com');
      assert.equal(many['users/404'], null);
      assert.equal(await s.load('users/missing'), null);
    }
    {
      const s = store.openSession();
      const grace = await s.load('users/2', User);
      grace.age = 46;
      await s.delete('users/3');
      await s.saveChanges();
    }
    {
      const s = store.openSession();
      assert.equal((await s.load('users/2', User)).age, 46);
      assert.equal(await s.load('users/3'), null);
    }
  });

  test('optimistic concurrency: storing an existing id as new is a ConcurrencyException and stores nothing', async () => {
    const s = store.openSession();
    s.advanced.useOptimisticConcurrency = true;
    await s.store(new User('Impostor', 'x@example.com', 1), 'users/1');
    await s.store(new User('Batch-mate', 'y@example.com', 2), 'users/oc-new');
    const err = await expectRejectName(s.saveChanges(), 'ConcurrencyException');
    assert.match(err.message, /^Document users\/1 has change vector A:\d+-\S+, but Put was called with expecting new document\. Optimistic concurrency violation, transaction will be aborted\.$/);

    const check = store.openSession();
    assert.equal((await check.load('users/1', User)).name, 'Ada');
    assert.equal(await check.load('users/oc-new'), null, 'the whole batch is one transaction');
  });

  test('bulkInsert of 3000 documents, then collection and database statistics', async () => {
    const bulk = store.bulkInsert();
    for (let i = 0; i < 3000; i++) {
      await bulk.store(new User(`bulk-${i}`, `bulk${i}@example.com`, i % 90), `bulk/${i}`);
    }
    await bulk.finish();

    const coll = await store.maintenance.send(new GetCollectionStatisticsOperation());
    // users/1 and users/2 from the session test + 3000 bulk-inserted
    assert.equal(coll.countOfDocuments, 3002);
    assert.deepEqual(coll.collections, { Users: 3002 });
    assert.equal(coll.countOfConflicts, 0);

    const stats = await store.maintenance.send(new GetStatisticsOperation());
    assert.equal(stats.countOfDocuments, 3002);
    assert.equal(stats.countOfIndexes, 0);

    const s = store.openSession();
    const doc = await s.load('bulk/2999', User);
    assert.equal(doc.name, 'bulk-2999');
    assert.equal(doc.age, 2999 % 90);
    assert.equal(s.advanced.getMetadataFor(doc)['@collection'], 'Users');
  });

  test('PutIndexesOperation for a static index shows up in stats', async () => {
    const def = new IndexDefinition();
    def.name = 'Users/ByEmail';
    def.maps = new Set(['from u in docs.Users select new { u.email, u.name }']);
    const res = await store.maintenance.send(new PutIndexesOperation(def));
    assert.equal(res.length, 1);
    assert.equal(res[0].index, 'Users/ByEmail');
    assert.ok(res[0].raftCommandIndex > 0);

    const stats = await store.maintenance.send(new GetStatisticsOperation());
    assert.equal(stats.countOfIndexes, 1);
    assert.equal(stats.indexes[0].name, 'Users/ByEmail');
    assert.equal(stats.indexes[0].isStale, false);
    assert.equal(stats.indexes[0].type, 'Map');
  });

  test('HiLo ids for entities stored without an id', async () => {
    const s = store.openSession();
    const u = new User('NoId', 'noid@example.com', 5);
    await s.store(u);
    await s.saveChanges();
    assert.equal(u.id, 'users/1-A');
    const check = store.openSession();
    assert.equal((await check.load('users/1-A', User)).name, 'NoId');
  });

  test('DeleteDatabasesOperation, then the database is gone', async () => {
    const res = await store.maintenance.server.send(new DeleteDatabasesOperation({ databaseNames: [db], hardDelete: true }));
    assert.ok(res.raftCommandIndex > 0);
    assert.deepEqual(res.pendingDeletes, []);
    const other = newStore(srv.url, db);
    try {
      await expectRejectName(other.maintenance.send(new GetStatisticsOperation()), 'DatabaseDoesNotExistException');
    } finally {
      other.dispose();
    }
  });

  test('the client used no route the test server does not implement', () => {
    // unknown routes answer 400 RouteNotFoundException and are logged to stderr
    assert.doesNotMatch(srv.stderr(), /unknown route/);
  });
});

// ---------------------------------------------------------------- raw HTTP
function userDoc(i, extra = {}) {
  return {
    Name: `user-${String(i).padStart(6, '0')}`,
    Email: `user${String(i).padStart(6, '0')}@example.com`,
    ...extra,
    '@metadata': { '@collection': 'Users' },
  };
}
function bulkBody(from, n, prefix = 'users/') {
  const cmds = [];
  for (let i = from; i < from + n; i++) {
    cmds.push(JSON.stringify({ Id: `${prefix}${String(i).padStart(6, '0')}`, Type: 'PUT', Document: userDoc(i) }));
  }
  return '[' + cmds.join(',') + ']';
}

describe('RavenDB test server raw HTTP (what the k6 adapter relies on)', () => {
  let srv;
  let base;
  const DB = 'raw';
  const J = { 'Content-Type': 'application/json' };

  const req = (method, path, { body, headers } = {}) => fetch(base + path, { method, body, headers });
  const json = async (method, path, opts) => {
    const r = await req(method, path, opts);
    const text = await r.text();
    return { status: r.status, headers: r.headers, text, body: text ? JSON.parse(text) : null };
  };
  const nextId = async () => (await json('GET', `/databases/${DB}/operations/next-operation-id`)).body.Id;
  const state = async (id) => json('GET', `/databases/${DB}/operations/state?id=${id}`);
  const users = async () => (await json('GET', `/databases/${DB}/collections/stats`)).body.Collections.Users ?? 0;
  const setFaults = (f) => json('POST', '/_testserver/faults', { body: JSON.stringify(f), headers: J });

  before(async () => {
    srv = await startTestServer('ravendb', ['-version', '7.1.2', '-bulk-commit-ops', '1000']);
    base = srv.url;
    const r = await json('PUT', `/admin/databases?name=${DB}&replicationFactor=1`, { body: JSON.stringify({ DatabaseName: DB }), headers: J });
    assert.equal(r.status, 201);
    assert.equal(r.body.Name, DB);
    assert.deepEqual(r.body.Topology.Members, ['A']);
  });
  after(async () => { await srv?.stop(); });

  test('build/version and next-operation-id', async () => {
    const v = await json('GET', '/build/version');
    assert.deepEqual(v.body, { BuildVersion: 71, ProductVersion: '7.1', CommitHash: v.body.CommitHash, FullVersion: '7.1.2' });
    assert.equal(v.headers.get('raven-server-version'), '7.1.2.71');
    const a = await json('GET', `/databases/${DB}/operations/next-operation-id`);
    const b = await json('GET', `/databases/${DB}/operations/next-operation-id`);
    assert.equal(a.body.NodeTag, 'A');
    assert.equal(b.body.Id, a.body.Id + 1);
  });

  test('database create conflict, delete, missing database shapes', async () => {
    const dup = await json('PUT', `/admin/databases?name=${DB}&replicationFactor=1`, { body: JSON.stringify({ DatabaseName: DB }), headers: J });
    assert.equal(dup.status, 409);
    assert.equal(dup.body.Type, 'Raven.Client.Exceptions.ConcurrencyException');
    assert.equal(dup.body.Message, `Database '${DB}' already exists!`);

    const tmp = await json('PUT', '/admin/databases?name=tmpdb&replicationFactor=1', { body: '{"DatabaseName":"tmpdb"}', headers: J });
    assert.equal(tmp.status, 201);
    const list = await json('GET', '/databases?namesOnly=true');
    assert.deepEqual(list.body.Databases, ['raw', 'tmpdb']);
    const del = await json('DELETE', '/admin/databases', { body: JSON.stringify({ DatabaseNames: ['tmpdb', 'never-existed'], HardDelete: true, FromNodes: null, TimeToWaitForConfirmation: null }), headers: J });
    assert.equal(del.status, 200);
    assert.deepEqual(del.body.PendingDeletes, []);
    assert.ok(del.body.RaftCommandIndex > tmp.body.RaftCommandIndex);

    const missing = await json('GET', '/databases/tmpdb/stats');
    assert.equal(missing.status, 500);
    assert.equal(missing.body.Type, 'Raven.Client.Exceptions.Database.DatabaseDoesNotExistException');
    assert.equal(missing.body.Message, "Database 'tmpdb' does not exist.");
    const topo = await json('GET', '/topology?name=tmpdb');
    assert.equal(topo.status, 503);
    assert.equal(topo.headers.get('database-missing'), 'tmpdb');
    assert.deepEqual(topo.body, { Type: 'Error', Message: 'Database tmpdb wasn\'t found' });
  });

  test('bulk_insert with a complete array and Content-Length: 201, empty body, state Completed', async () => {
    const id = await nextId();
    const body = bulkBody(0, 1500);
    // fetch sends a string body with Content-Length (not chunked), like k6's http.post
    const r = await req('POST', `/databases/${DB}/bulk_insert?id=${id}&skipOverwriteIfUnchanged=false`, { body, headers: J });
    assert.equal(r.status, 201);
    assert.equal(r.headers.get('content-length'), '0');
    assert.equal(await r.text(), '');
    const st = await state(id);
    assert.equal(st.status, 200);
    assert.equal(st.body.Status, 'Completed');
    assert.equal(st.body.Result.Total, 1500);
    assert.equal(st.body.Result.DocumentsProcessed, 1500);
    assert.match(st.body.Result.$type, /BulkInsertResult/);
    assert.equal(await users(), 1500);

    // re-inserting the same ids overwrites (ChangeVector ignored): count unchanged
    const id2 = await nextId();
    const again = await req('POST', `/databases/${DB}/bulk_insert?id=${id2}`, { body: bulkBody(0, 10).replace(/"Type":"PUT"/g, '"ChangeVector":"bogus","Type":"PUT"'), headers: J });
    assert.equal(again.status, 201);
    assert.equal(await users(), 1500);
  });

  test('bulk_insert gzip works, deflate fails with 500 + Connection: close and a Faulted state', async () => {
    const before_ = await users();
    const id = await nextId();
    const gz = zlib.gzipSync(bulkBody(100000, 200));
    const r = await req('POST', `/databases/${DB}/bulk_insert?id=${id}`, { body: gz, headers: { ...J, 'Content-Encoding': 'gzip' } });
    assert.equal(r.status, 201);
    assert.equal((await state(id)).body.Result.Total, 200);
    assert.equal(await users(), before_ + 200);

    const id2 = await nextId();
    const df = zlib.deflateSync(bulkBody(200000, 50));
    const bad = await json('POST', `/databases/${DB}/bulk_insert?id=${id2}`, { body: df, headers: { ...J, 'Content-Encoding': 'deflate' } });
    assert.equal(bad.status, 500);
    assert.equal(bad.headers.get('connection'), 'close');
    assert.equal(bad.body.Type, 'System.InvalidOperationException');
    // nothing was committed: the progress reads 0 items in 0 batches, without a last id
    assert.equal(bad.body.Message, 'Failed to process bulk insert. Inserted 0 items in 0 batches.');
    assert.equal(bad.body.Url, `/databases/${DB}/bulk_insert?id=${id2}`);
    assert.equal(typeof bad.body.Error, 'string');
    const st = await state(id2);
    assert.equal(st.body.Status, 'Faulted');
    assert.match(st.body.Result.$type, /OperationExceptionResult/);
    assert.equal(st.body.Result.StatusCode, 500);
    assert.equal(st.body.Result.Type, 'System.InvalidOperationException');
    assert.equal(await users(), before_ + 200);
  });

  test('bulk_insert input errors: missing id 400, case-sensitive names, unknown Type, missing Document; unknown state 404', async () => {
    const noId = await json('POST', `/databases/${DB}/bulk_insert`, { body: '[]', headers: J });
    assert.equal(noId.status, 400);

    const empty = await req('POST', `/databases/${DB}/bulk_insert?id=${await nextId()}`, { body: '[]', headers: J });
    assert.equal(empty.status, 201);

    for (const bad of [
      '[{"id":"x/1","Type":"PUT","Document":{}}]',
      '[{"Id":"x/1","Type":"put","Document":{}}]',
      '[{"Id":"x/1","Type":"PATCH","Document":{}}]',
      '[{"Id":"x/1","Type":"PUT"}]',
      '[{"Id":"x/1","Type":"PUT","Document":{}},',
      '{"Id":"x/1"}',
    ]) {
      const id = await nextId();
      const r = await json('POST', `/databases/${DB}/bulk_insert?id=${id}`, { body: bad, headers: J });
      assert.equal(r.status, 500, bad);
      assert.equal(r.body.Type, 'System.InvalidOperationException', bad);
      assert.equal((await state(id)).body.Status, 'Faulted', bad);
    }
    const unknownProps = await req('POST', `/databases/${DB}/bulk_insert?id=${await nextId()}`, {
      body: '[{"Id":"x/ok","Extra":{"a":[1,2]},"Type":"PUT","Document":{"A":1}},{"Type":"HeartBeat"}]', headers: J,
    });
    assert.equal(unknownProps.status, 201);
    const doc = await json('GET', `/databases/${DB}/docs?id=x/ok`);
    assert.equal(doc.body.Results[0]['@metadata']['@collection'], '@empty');

    const unknown = await req('GET', `/databases/${DB}/operations/state?id=987654`);
    assert.equal(unknown.status, 404);
    const kill = await req('POST', `/databases/${DB}/operations/kill?id=987654`);
    assert.equal(kill.status, 404);
  });

  test('bulk_docs: upsert with ChangeVector null, ChangeVector "" on an existing id is 409 and stores nothing', async () => {
    const put = (id, cv, extra = {}) => ({ Id: id, ChangeVector: cv, Type: 'PUT', Document: userDoc(0, extra) });
    const up1 = await json('POST', `/databases/${DB}/bulk_docs`, { body: JSON.stringify({ Commands: [put('bd/1', null), put('bd/2', null)] }), headers: J });
    assert.equal(up1.status, 201);
    assert.equal(up1.body.Results.length, 2);
    const r0 = up1.body.Results[0];
    assert.deepEqual(Object.keys(r0), ['Type', '@id', '@collection', '@change-vector', '@last-modified']);
    assert.equal(r0.Type, 'PUT');
    assert.equal(r0['@id'], 'bd/1');
    assert.equal(r0['@collection'], 'Users');
    assert.match(r0['@last-modified'], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7}Z$/);

    const up2 = await json('POST', `/databases/${DB}/bulk_docs?waitForIndexesTimeout=00:00:15&waitForIndexThrow=false&waitForSpecificIndex=Users%2FByEmail`, {
      body: JSON.stringify({ Commands: [put('bd/1', null, { V: 2 })] }), headers: J,
    });
    assert.equal(up2.status, 201);
    assert.notEqual(up2.body.Results[0]['@change-vector'], r0['@change-vector']);

    const before_ = await users();
    const conflict = await json('POST', `/databases/${DB}/bulk_docs`, { body: JSON.stringify({ Commands: [put('bd/new', ''), put('bd/2', '')] }), headers: J });
    assert.equal(conflict.status, 409);
    assert.equal(conflict.body.Type, 'Raven.Client.Exceptions.ConcurrencyException');
    assert.equal(conflict.body.Message,
      `Document bd/2 has change vector ${up1.body.Results[1]['@change-vector']}, but Put was called with expecting new document. Optimistic concurrency violation, transaction will be aborted.`);
    assert.equal(conflict.body.Url, `/databases/${DB}/bulk_docs`);
    assert.equal((await req('GET', `/databases/${DB}/docs?id=bd/new`)).status, 404);
    assert.equal(await users(), before_);

    // a matching change vector succeeds, a stale one is a 409
    const cv = up2.body.Results[0]['@change-vector'];
    const ok = await json('POST', `/databases/${DB}/bulk_docs`, { body: JSON.stringify({ Commands: [put('bd/1', cv, { V: 3 })] }), headers: J });
    assert.equal(ok.status, 201);
    const stale = await json('POST', `/databases/${DB}/bulk_docs`, { body: JSON.stringify({ Commands: [put('bd/1', cv)] }), headers: J });
    assert.equal(stale.status, 409);

    const del = await json('POST', `/databases/${DB}/bulk_docs`, { body: JSON.stringify({ Commands: [{ Id: 'bd/2', ChangeVector: null, Type: 'DELETE' }, { Id: 'bd/none', ChangeVector: null, Type: 'DELETE' }] }), headers: J });
    assert.equal(del.status, 201);
    assert.deepEqual(del.body.Results, [{ Id: 'bd/2', Type: 'DELETE', Deleted: true }, { Id: 'bd/none', Type: 'DELETE', Deleted: false }]);

    const wrongType = await json('POST', `/databases/${DB}/bulk_docs`, { body: JSON.stringify({ Commands: [put('bd/9', null)] }), headers: { 'Content-Type': 'text/plain' } });
    assert.equal(wrongType.status, 500);
    assert.match(wrongType.body.Message, /Content type 'text\/plain' is not supported/);
    // a Buffer body makes fetch send no Content-Type at all
    const noType = await req('POST', `/databases/${DB}/bulk_docs`, { body: Buffer.from(JSON.stringify({ Commands: [put('bd/9', null)] })) });
    assert.equal(noType.status, 201);

    const move = await json('POST', `/databases/${DB}/bulk_docs`, { body: JSON.stringify({ Commands: [{ Id: 'bd/1', ChangeVector: null, Type: 'PUT', Document: { '@metadata': { '@collection': 'Orders' } } }] }), headers: J });
    assert.equal(move.status, 500);
    assert.match(move.body.Message, /^Changing 'bd\/1' from 'Users' to 'Orders' via update is not supported\./);
  });

  test('docs GET (single, multiple, 404, 304), PUT with If-Match, DELETE', async () => {
    const one = await json('GET', `/databases/${DB}/docs?id=users/000001`);
    assert.equal(one.status, 200);
    assert.deepEqual(Object.keys(one.body), ['Results', 'Includes']);
    const d = one.body.Results[0];
    assert.equal(d.Name, 'user-000001');
    assert.deepEqual(Object.keys(d['@metadata']), ['@collection', '@change-vector', '@id', '@last-modified']);
    assert.equal(d['@metadata']['@id'], 'users/000001');

    const many = await json('GET', `/databases/${DB}/docs?id=users/000001&id=nope/1&id=USERS/000002`);
    assert.equal(many.status, 200);
    assert.equal(many.body.Results.length, 3);
    assert.equal(many.body.Results[1], null);
    assert.equal(many.body.Results[2].Name, 'user-000002', 'ids are case-insensitive');

    const miss = await req('GET', `/databases/${DB}/docs?id=nope/1`);
    assert.equal(miss.status, 404);
    assert.equal(await miss.text(), '');

    const etag = one.headers.get('etag');
    assert.ok(etag);
    const nm = await req('GET', `/databases/${DB}/docs?id=users/000001`, { headers: { 'If-None-Match': etag } });
    assert.equal(nm.status, 304);

    const put = await json('PUT', `/databases/${DB}/docs?id=single/1`, { body: JSON.stringify(userDoc(7)), headers: J });
    assert.equal(put.status, 201);
    assert.deepEqual(Object.keys(put.body), ['Id', 'ChangeVector']);
    assert.equal(put.body.Id, 'single/1');
    const stale = await json('PUT', `/databases/${DB}/docs?id=single/1`, { body: JSON.stringify(userDoc(7)), headers: { ...J, 'If-Match': '"A:1-xxxxxxxxxxxxxxxxxxxxxx"' } });
    assert.equal(stale.status, 409);
    const good = await json('PUT', `/databases/${DB}/docs?id=single/1`, { body: JSON.stringify(userDoc(8)), headers: { ...J, 'If-Match': `"${put.body.ChangeVector}"` } });
    assert.equal(good.status, 201);
    const gen = await json('PUT', `/databases/${DB}/docs?id=gen/`, { body: JSON.stringify(userDoc(9)), headers: J });
    assert.match(gen.body.Id, /^gen\/\d{19}-A$/);

    const del = await req('DELETE', `/databases/${DB}/docs?id=single/1`);
    assert.equal(del.status, 204);
    assert.equal((await req('GET', `/databases/${DB}/docs?id=single/1`)).status, 404);
  });

  test('stats, collections/stats and static indexes', async () => {
    const coll = await json('GET', `/databases/${DB}/collections/stats`);
    const st = await json('GET', `/databases/${DB}/stats`);
    assert.equal(st.body.CountOfDocuments, coll.body.CountOfDocuments);
    assert.equal(coll.body.CountOfConflicts, 0);
    const sum = Object.values(coll.body.Collections).reduce((a, b) => a + b, 0);
    assert.equal(sum, coll.body.CountOfDocuments);

    const noMaps = await json('PUT', `/databases/${DB}/admin/indexes`, { body: JSON.stringify({ Indexes: [{ Name: 'Bad', Maps: [] }] }), headers: J });
    assert.equal(noMaps.status, 500);
    assert.equal(noMaps.body.Message, "Index must have a 'Maps' fields");

    const put = await json('PUT', `/databases/${DB}/admin/indexes`, {
      body: JSON.stringify({ Indexes: [{ Name: 'Users/ByEmail', Maps: ['from u in docs.Users select new { u.Email, u.Name }'] }] }), headers: J,
    });
    assert.equal(put.status, 201);
    assert.equal(put.body.Results[0].Index, 'Users/ByEmail');
    const ist = await json('GET', `/databases/${DB}/indexes/stats`);
    assert.equal(ist.body.Results[0].Name, 'Users/ByEmail');
    assert.equal(ist.body.Results[0].EntriesCount, coll.body.Collections.Users);
    assert.equal(ist.body.Results[0].IsStale, false);
    assert.equal((await json('GET', `/databases/${DB}/stats`)).body.CountOfIndexes, 1);
    assert.equal((await req('DELETE', `/databases/${DB}/indexes?name=Users%2FByEmail`)).status, 204);
    assert.equal((await json('GET', `/databases/${DB}/stats`)).body.CountOfIndexes, 0);
  });

  test('fault: burst503 fails exactly the configured write requests', async () => {
    const f = await setFaults({ burst503: { every: 3, length: 2 } });
    assert.deepEqual(f.body, { latencyMs: 0, latencyJitterMs: 0, burst503: { every: 3, length: 2 }, dropConnectionRate: 0, cutAfterBodyRate: 0, indexLagMs: 0, bulkInsertText: '', deleteWindowMs: 0, bulkStartDelayMs: 0, seed: 1 });
    const statuses = [];
    let body503;
    for (let i = 0; i < 10; i++) {
      const r = await json('POST', `/databases/${DB}/bulk_docs`, { body: JSON.stringify({ Commands: [{ Id: `burst/${i}`, ChangeVector: null, Type: 'PUT', Document: userDoc(i) }] }), headers: J });
      statuses.push(r.status);
      if (r.status === 503) body503 = r.body;
    }
    // reads are not counted and never fail
    assert.equal((await req('GET', `/databases/${DB}/stats`)).status, 200);
    await setFaults({ burst503: { every: 0, length: 0 } });
    assert.deepEqual(statuses, [201, 201, 201, 503, 503, 201, 201, 201, 503, 503]);
    assert.equal(body503.Type, 'Raven.Client.Exceptions.Database.DatabaseDisabledException');
    assert.match(body503.Message, /service unavailable/);
    const ids = Array.from({ length: 10 }, (_, i) => `id=burst/${i}`).join('&');
    const got = await json('GET', `/databases/${DB}/docs?${ids}`);
    assert.equal(got.body.Results.filter((x) => x !== null).length, 6);
  });

  test('fault: dropConnection mid bulk_insert body rejects fetch, committed batches stay, state Faulted', async () => {
    const before_ = await users();
    await setFaults({ dropConnectionRate: 1 });
    const id = await nextId();
    const body = bulkBody(500000, 2500); // uniform docs; the drop point is half of Content-Length
    await assert.rejects(req('POST', `/databases/${DB}/bulk_insert?id=${id}`, { body, headers: J }));
    const docsBody = JSON.stringify({ Commands: [{ Id: 'dropped/1', ChangeVector: null, Type: 'PUT', Document: userDoc(1, { Pad: 'x'.repeat(4096) }) }] });
    await assert.rejects(req('POST', `/databases/${DB}/bulk_docs`, { body: docsBody, headers: J }));
    await setFaults({ dropConnectionRate: 0 });

    const st = await state(id);
    assert.equal(st.body.Status, 'Faulted');
    // BulkInsertProgress.ToString() of 6.x/7.x: committed items with thousands separators
    assert.equal(st.body.Result.Message, "Failed to process bulk insert. Inserted 1,000 items in 1 batches. Last document ID: 'users/500999'");
    assert.equal(st.body.Progress, null);
    assert.equal(st.body.Result.Type, 'System.InvalidOperationException');
    // -bulk-commit-ops 1000: the first batch of 1000 was committed before the drop
    assert.equal(await users(), before_ + 1000);
    assert.equal((await req('GET', `/databases/${DB}/docs?id=dropped/1`)).status, 404);
  });

  test('fault: latency and reset', async () => {
    await setFaults({ latencyMs: 150 });
    const t0 = performance.now();
    assert.equal((await req('GET', '/build/version')).status, 200);
    assert.ok(performance.now() - t0 >= 145);
    const cur = await json('GET', '/_testserver/faults');
    assert.equal(cur.body.latencyMs, 150);
    const reset = await json('POST', '/_testserver/reset');
    assert.equal(reset.status, 200);
    assert.equal(reset.body.faults.latencyMs, 0);
    assert.equal((await json('GET', `/databases/${DB}/stats`)).body.Type, 'Raven.Client.Exceptions.Database.DatabaseDoesNotExistException');
  });
});

// ---------------------------------------------------------------- the real 4.1.0's answers
// The same checks (test/helpers/raven-answers.mjs) run against the real RavenDB 4.1.0 in
// test/integration/ravendb-real.test.mjs: here the test server's knobs stage them.
describe('RavenDB test server answers as the real 4.1.0 (the same checks as ravendb-real.test.mjs)', () => {
  let srv;
  const setFaults = async (f) => {
    const r = await fetch(`${srv.url}/_testserver/faults`, { method: 'POST', body: JSON.stringify(f) });
    assert.equal(r.status, 200, await r.text());
  };
  before(async () => { srv = await startTestServer('ravendb', ['-version', '4.1.0', '-bulk-commit-ops', '600']); });
  after(async () => { await srv?.stop(); });

  test('indexLagMs: a batch waiting for its indexes is committed, then answered 408', async () => {
    await setFaults({ indexLagMs: 50 });
    await checkIndexWait408(srv.url, 'f408');
    await setFaults({ indexLagMs: 0 });
  });

  test('-version 4.1.0: a bulk insert failed part-way answers in 4.x words, counting what is stored; bulkInsertText overrides the version', async () => {
    await checkBulkInsert4x(srv.url, 'fbulk4');
    // A 7.1.2 server keeps 6.x's words unless told otherwise.
    const v7 = await startTestServer('ravendb', ['-version', '7.1.2', '-bulk-commit-ops', '600']);
    try {
      await fetch(`${v7.url}/_testserver/faults`, { method: 'POST', body: JSON.stringify({ bulkInsertText: '4.x' }) });
      await checkBulkInsert4x(v7.url, 'fbulk4');
      const bad = await fetch(`${v7.url}/_testserver/faults`, { method: 'POST', body: JSON.stringify({ bulkInsertText: '5.x' }) });
      assert.equal(bad.status, 400);
    } finally { await v7.stop(); }
  });

  test('delete by query deletes one collection\'s documents (an operation, Completed with the count), a bad query answers 500 ParseException', async () => {
    await checkDeleteByQuery(srv.url, 'fdq');
  });

  test('deleteWindowMs: a database being deleted answers 503 DatabaseDisabled, then 500 DatabaseDoesNotExist', async () => {
    await setFaults({ deleteWindowMs: 400 });
    await checkDeleteWindow(srv.url, 'fdel');
    await setFaults({ deleteWindowMs: 0 });
  });

  test('cutAfterBodyRate: a batch read whole and committed loses its connection, not its documents', async () => {
    await createDatabase(srv.url, 'fcut');
    await setFaults({ cutAfterBodyRate: 1 });
    const r = await postBatch(srv.url, 'fcut', 0, 300);
    const id = (await (await fetch(`${srv.url}/databases/fcut/operations/next-operation-id`)).json()).Id;
    const bulk = await fetch(`${srv.url}/databases/fcut/bulk_insert?id=${id}`, { method: 'POST', body: JSON.stringify([{ Id: 'K900', Type: 'PUT', Document: { '@metadata': { '@collection': 'Users' } } }]) }).then(() => 'answered', (e) => e.cause?.code || e.message);
    await setFaults({ cutAfterBodyRate: 0 });
    assert.equal(r.status, 0, 'no answer');
    assert.notEqual(bulk, 'answered');
    assert.equal(await usersCount(srv.url, 'fcut'), 301, 'both were committed');
    const st = await (await fetch(`${srv.url}/databases/fcut/operations/state?id=${id}`)).json();
    assert.equal(st.Status, 'Completed');
  });

  test('-data-dir and the start windows: killed with SIGKILL and started again on its data, it answers as a restarted 4.1.0 and keeps every document', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-ravends-'));
    let a = await startTestServer('ravendb', ['-version', '4.1.0', '-data-dir', dir]);
    const addr = a.url.replace('http://', '');
    try {
      // A database of its own with an index, to see both kept (checkRestart drops its own).
      await createDatabase(a.url, 'fkeep');
      await fetch(`${a.url}/databases/fkeep/admin/indexes`, { method: 'PUT', body: JSON.stringify({ Indexes: [{ Name: 'K6wp/ByFields', Maps: ['from d in docs.Users select new { d.f0 }'] }] }) });
      assert.equal((await postBatch(a.url, 'fkeep', 0, 5)).status, 201);
      const met = await checkRestart(a.url, 'frestart', async () => {
        a.proc.kill('SIGKILL');
        await new Promise((res) => a.proc.once('exit', res));
        await new Promise((res) => setTimeout(res, 200));
        a = await startTestServer('ravendb', ['-version', '4.1.0', '-data-dir', dir, '-addr', addr,
          '-start-empty500-ms', '300', '-start-nre-ms', '300', '-start-passive-ms', '400']);
      });
      assert.deepEqual(met.filter((p) => p !== 'refused'), ['empty500', 'nre', 'passive', 'ok']);
      // Documents, indexes and the database record are kept; so is a deletion (frestart, dropped
      // by checkRestart).
      const doc = await (await fetch(`${a.url}/databases/fkeep/docs?id=K4`)).json();
      assert.equal(doc.Results[0].p.length, 200);
      assert.deepEqual((await (await fetch(`${a.url}/databases/fkeep/indexes`)).json()).Results.map((x) => x.Name), ['K6wp/ByFields']);
      await fetch(`${a.url}/admin/databases`, { method: 'DELETE', body: JSON.stringify({ DatabaseNames: ['fkeep'], HardDelete: true }) });
      a.proc.kill('SIGKILL');
      await new Promise((res) => a.proc.once('exit', res));
      a = await startTestServer('ravendb', ['-version', '4.1.0', '-data-dir', dir, '-addr', addr]);
      assert.equal((await fetch(`${a.url}/databases/fkeep/stats`)).status, 500);
      assert.equal((await fetch(`${a.url}/databases/frestart/stats`)).status, 500);
    } finally {
      await a.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
