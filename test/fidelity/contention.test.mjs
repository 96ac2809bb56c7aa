// Fidelity of the API test servers on the contention workload's requests (docs/contention.md,
// docs/fidelity.md A14-A17 and R12-R14): the official clients (arangojs 10.4.0, ravendb 7.2.6)
// send the same requests the pack sends (lib/targets/increments.js) and must get what a real
// server answers, including under concurrency; the pack's readers of those answers are
// checked on the same answers.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Database } from 'arangojs';
import { isArangoError } from 'arangojs/errors';
import { DocumentStore, CreateDatabaseOperation } from 'ravendb';
import { startTestServer } from '../helpers/testserver.mjs';
import {
  ARANGO_INCREMENT_AQL, arangoIncrementBody, arangoIncrementOutcome,
  RAVEN_INCREMENT_SCRIPT, ravenIncrementBody, ravenIncrementOutcome,
} from '../../lib/targets/increments.js';

async function post(url, body, headers = {}) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const text = await res.text();
  return { status: res.status, text, json: text ? JSON.parse(text) : undefined };
}

describe('ArangoDB: AQL UPSERT increments through the cursor API', () => {
  let srv; let sys; let db; let col;
  before(async () => {
    srv = await startTestServer('arangodb', ['-no-auth']);
    sys = new Database({ url: srv.url });
    db = await sys.createDatabase('contention');
    col = await db.createCollection('counters');
    await col.saveAll([{ _key: 'C0', n: 0 }, { _key: 'C1', n: 0 }, { _key: 'C2', n: 0 }]);
  });
  after(async () => { sys?.close(); await srv?.stop(); });
  const faults = (f) => post(`${srv.url}/_testserver/faults`, JSON.stringify(f));

  test('A14: arangojs runs the pack query; 201 with writesExecuted = number of keys, counters +1', async () => {
    const cursor = await db.query({ query: ARANGO_INCREMENT_AQL, bindVars: { keys: ['C0', 'C2'], '@coll': 'counters' } });
    assert.deepEqual(await cursor.all(), []);
    assert.equal(cursor.extra.stats.writesExecuted, 2);
    assert.equal(cursor.extra.stats.writesIgnored, 0);
    const docs = await col.documents(['C0', 'C1', 'C2']);
    assert.deepEqual(docs.map((d) => d.n), [1, 0, 1]);
    // The raw answer the pack reads, and its reading.
    const r = await post(`${srv.url}/_db/contention/_api/cursor`, arangoIncrementBody(['C1'], 'counters'));
    assert.equal(r.status, 201);
    assert.deepEqual(Object.keys(r.json), ['result', 'hasMore', 'cached', 'extra', 'error', 'code']);
    assert.deepEqual(arangoIncrementOutcome(1, r.status, r.text), { acked: 1, failed: 0, undetermined: 0, reason: null, message: null });
  });

  test('A15: concurrent upserts of one key: one commits, the others abort with 409 errorNum 1200 and apply nothing', async () => {
    await faults({ upsertHoldMs: 300 }); // the winner holds its key lock past the 1 ms lock timeout
    try {
      const before = (await col.document('C1')).n;
      const runs = await Promise.allSettled(Array.from({ length: 4 }, () =>
        db.query({ query: ARANGO_INCREMENT_AQL, bindVars: { keys: ['C1'], '@coll': 'counters' } })));
      const ok = runs.filter((x) => x.status === 'fulfilled');
      const bad = runs.filter((x) => x.status === 'rejected').map((x) => x.reason);
      assert.equal(ok.length, 1, 'exactly one query holds the key');
      assert.equal(bad.length, 3);
      for (const e of bad) {
        assert.ok(isArangoError(e), String(e));
        assert.equal(e.code, 409);
        assert.equal(e.errorNum, 1200);
        assert.match(e.message, /^AQL: (timeout waiting to lock key|write-write conflict).* \(while executing\)$/);
      }
      assert.equal((await col.document('C1')).n, before + 1, 'the aborted queries applied nothing');
    } finally {
      await faults({});
    }
  });

  test('A16: a batch that meets a held key aborts whole: none of its keys move; the pack reads e1200, failed', async () => {
    await faults({ upsertHoldMs: 300 });
    try {
      const before = (await col.documents(['C0', 'C1', 'C2'])).map((d) => d.n);
      const holder = post(`${srv.url}/_db/contention/_api/cursor`, arangoIncrementBody(['C2'], 'counters'));
      await new Promise((r) => setTimeout(r, 50));
      const loser = await post(`${srv.url}/_db/contention/_api/cursor`, arangoIncrementBody(['C0', 'C1', 'C2'], 'counters'));
      assert.equal(loser.status, 409);
      assert.deepEqual(Object.keys(loser.json), ['code', 'error', 'errorMessage', 'errorNum']);
      const o = arangoIncrementOutcome(3, loser.status, loser.text);
      assert.equal(o.failed, 3); assert.equal(o.acked, 0); assert.equal(o.reason, 'e1200');
      assert.equal((await holder).status, 201);
      assert.deepEqual((await col.documents(['C0', 'C1', 'C2'])).map((d) => d.n), [before[0], before[1], before[2] + 1]);
    } finally {
      await faults({});
    }
  });

  test('A17: other AQL is not run by the double (501 errorNum 9); unknown collection 404 1203; missing bind 400 1551', async () => {
    await assert.rejects(db.query('RETURN 1'), (e) => isArangoError(e) && e.code === 501 && e.errorNum === 9);
    await assert.rejects(db.query({ query: ARANGO_INCREMENT_AQL, bindVars: { keys: ['C0'], '@coll': 'nope' } }),
      (e) => isArangoError(e) && e.code === 404 && e.errorNum === 1203 && e.message === 'collection or view not found: nope');
    await assert.rejects(db.query({ query: ARANGO_INCREMENT_AQL, bindVars: { '@coll': 'counters' } }),
      (e) => isArangoError(e) && e.code === 400 && e.errorNum === 1551);
  });

  test('no answer is undetermined, never failed', () => {
    assert.deepEqual(arangoIncrementOutcome(5, 0, '', 'timeout'), { acked: 0, failed: 0, undetermined: 5, reason: 'timeout', message: null });
  });
});

describe('RavenDB: PATCH increment commands in bulk_docs', () => {
  let srv; let store;
  const DB = 'contention';
  before(async () => {
    srv = await startTestServer('ravendb');
    store = new DocumentStore(srv.url, DB);
    store.conventions.findCollectionNameForObjectLiteral = () => 'Counters';
    store.initialize();
    await store.maintenance.server.send(new CreateDatabaseOperation({ databaseName: DB }));
    const s = store.openSession();
    for (const id of ['C0', 'C1', 'C2']) await s.store({ n: 0 }, id);
    await s.saveChanges();
  });
  after(async () => { store?.dispose(); await srv?.stop(); });

  async function value(id) {
    const s = store.openSession();
    return (await s.load(id)).n;
  }

  test('R12: the official client\'s increment() sends the pack\'s script; 20 concurrent sessions lose none', async () => {
    let seen = null;
    const s0 = store.openSession();
    s0.advanced.increment('C0', 'n', 1);
    // The deferred command the client built is the one the pack sends.
    seen = [...s0.advanced.deferredCommandsMap.values()][0].serialize(store.conventions);
    assert.equal(seen.Patch.Script, RAVEN_INCREMENT_SCRIPT);
    assert.deepEqual(seen.Patch.Values, { val_0: 1 });
    await s0.saveChanges();
    await Promise.all(Array.from({ length: 20 }, async () => {
      const s = store.openSession();
      s.advanced.increment('C0', 'n', 1);
      await s.saveChanges();
    }));
    assert.equal(await value('C0'), 21);
  });

  test('R12: the raw reply of a batch of PATCH commands; the pack reads every Patched as acknowledged', async () => {
    const r = await post(`${srv.url}/databases/${DB}/bulk_docs`, ravenIncrementBody(['C1', 'C2']));
    assert.equal(r.status, 201);
    assert.equal(r.json.Results.length, 2);
    for (const x of r.json.Results) {
      assert.deepEqual(Object.keys(x), ['Id', 'ChangeVector', 'LastModified', 'Type', 'PatchStatus', 'Debug']);
      assert.equal(x.Type, 'PATCH'); assert.equal(x.PatchStatus, 'Patched'); assert.equal(x.Debug, null);
      assert.match(x.ChangeVector, /^A:\d+-/);
    }
    assert.deepEqual(ravenIncrementOutcome(2, r.status, r.text).acked, 2);
    assert.equal(await value('C1'), 1);
  });

  test('R13: a missing counter is PatchStatus DocumentDoesNotExist in a 201: not applied, the pack counts it failed (missing)', async () => {
    const r = await post(`${srv.url}/databases/${DB}/bulk_docs`, ravenIncrementBody(['C2', 'GONE']));
    assert.equal(r.status, 201);
    assert.equal(r.json.Results[1].PatchStatus, 'DocumentDoesNotExist');
    assert.equal(r.json.Results[1].ChangeVector, null);
    const o = ravenIncrementOutcome(2, r.status, r.text);
    assert.deepEqual([o.acked, o.failed, o.undetermined, o.byReason], [1, 1, 0, { missing: 1 }]);
    const s = store.openSession();
    assert.equal(await s.load('GONE'), null, 'nothing was created');
  });

  test('R14: a stale change vector aborts the batch: 409 ConcurrencyException, nothing applied, the pack counts all failed (conflict)', async () => {
    const before = await value('C2');
    const body = JSON.parse(ravenIncrementBody(['C1', 'C2']));
    body.Commands[1].ChangeVector = 'A:1-AAAAAAAAAAAAAAAAAAAAAA';
    const r = await post(`${srv.url}/databases/${DB}/bulk_docs`, JSON.stringify(body));
    assert.equal(r.status, 409);
    assert.equal(r.json.Type, 'Raven.Client.Exceptions.ConcurrencyException');
    assert.equal(r.json.Message, 'Could not patch document \'C2\' because non current change vector was used');
    const o = ravenIncrementOutcome(2, r.status, r.text);
    assert.deepEqual([o.acked, o.failed, o.reason], [0, 2, 'conflict']);
    assert.equal(await value('C2'), before);
  });

  test('other scripts are refused by the double (500 NotSupportedException naming it)', async () => {
    const body = JSON.stringify({ Commands: [{ Id: 'C1', ChangeVector: null, Type: 'PATCH', Patch: { Script: 'this.n = 7;', Values: {} } }] });
    const r = await post(`${srv.url}/databases/${DB}/bulk_docs`, body);
    assert.equal(r.status, 500);
    assert.equal(r.json.Type, 'System.NotSupportedException');
    assert.match(r.json.Message, /k6-writepath RavenDB test server runs only the increment script/);
  });
});
