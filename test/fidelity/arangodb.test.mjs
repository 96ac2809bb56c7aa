// Fidelity tests for the ArangoDB API test server (test/servers/arangodb).
// The official driver arangojs 10.4.0 talks to it exactly as it would talk to
// a real ArangoDB 3.12; raw fetch tests pin the wire details our k6 adapter
// relies on (201/202, inline element errors, the X-Arango-Error-Codes header,
// fault knobs). Facts: the sources cited in test/servers/arangodb and docs/fidelity.md.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { Database } from 'arangojs';
import { isArangoError } from 'arangojs/errors';
import { startTestServer } from '../helpers/testserver.mjs';

const PASSWORD = 'fidelity-secret';
const BASIC = 'Basic ' + Buffer.from(`root:${PASSWORD}`).toString('base64');
const REV = /^_[-_A-Za-z0-9]{10}$/; // e.g. "_l6zhVDW---"

let server;
let sys; // arangojs Database on _system
let db; // arangojs Database on the test database
let seq = 0;
const uniq = (p) => `${p}_${++seq}`;

// Raw HTTP against the test server (what k6's http module will do).
async function raw(method, path, body, headers = {}) {
  const res = await fetch(server.url + path, {
    method,
    headers: { authorization: BASIC, 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: text ? JSON.parse(text) : undefined };
}

async function rejectsArango(promise, { code, errorNum }) {
  await assert.rejects(promise, (err) => {
    assert.ok(isArangoError(err), `expected ArangoError, got ${err}`);
    assert.equal(err.code, code);
    assert.equal(err.errorNum, errorNum);
    return true;
  });
}

before(async () => {
  server = await startTestServer('arangodb', ['-root-password', PASSWORD, '-version', '3.12.4']);
  sys = new Database({ url: server.url, auth: { username: 'root', password: PASSWORD } });
  db = await sys.createDatabase('fidelity');
});

after(async () => {
  sys?.close();
  await server?.stop();
});

describe('server, databases and auth (arangojs)', () => {
  test('db.version() reports the 3.12 shape', async () => {
    const v = await sys.version();
    assert.deepEqual(v, {
      server: 'arango', license: 'enterprise', version: '3.12.4',
      apiVersions: ['v0'], deprecatedApiVersions: [], requestedApiVersion: 'v0',
    });
  });

  test('wrong password -> 401 ArangoError errorNum 11', async () => {
    const bad = new Database({ url: server.url, auth: { username: 'root', password: 'nope' } });
    await rejectsArango(bad.version(), { code: 401, errorNum: 11 });
    const r = await raw('GET', '/_api/version', undefined, { authorization: '' });
    assert.equal(r.status, 401);
    assert.deepEqual(r.json, { code: 401, error: true, errorMessage: 'not authorized to execute this request', errorNum: 11 });
  });

  test('JWT via db.login() and useBearerAuth', async () => {
    const jdb = new Database({ url: server.url });
    await rejectsArango(jdb.login('root', 'wrong'), { code: 401, errorNum: 401 });
    const jwt = await jdb.login('root', PASSWORD);
    assert.equal(jwt.split('.').length, 3);
    const payload = JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString());
    const now = Math.floor(Date.now() / 1000);
    assert.ok(payload.exp >= now + 3590 && payload.exp <= now + 3610, 'expires ~1 h ahead');
    assert.equal((await jdb.version()).version, '3.12.4');
    jdb.useBearerAuth(jwt.slice(0, -2) + 'xx');
    await rejectsArango(jdb.version(), { code: 401, errorNum: 11 });
    jdb.useBearerAuth(jwt);
    assert.deepEqual(await jdb.database('fidelity').listCollections().then((l) => Array.isArray(l)), true);
  });

  test('databases: create (201), duplicate 409/1207, list, current, drop, unknown 404/1228', async () => {
    const name = uniq('tmpdb');
    const created = await raw('POST', '/_api/database', { name });
    assert.equal(created.status, 201);
    assert.deepEqual(created.json, { code: 201, error: false, result: true });
    await rejectsArango(sys.createDatabase(name), { code: 409, errorNum: 1207 });
    assert.ok((await sys.listDatabases()).includes(name));
    const cur = await sys.database(name).get();
    assert.equal(cur.name, name);
    assert.equal(cur.isSystem, false);
    assert.equal(await sys.dropDatabase(name), true);
    await rejectsArango(sys.dropDatabase(name), { code: 404, errorNum: 1228 });
    await rejectsArango(sys.database(name).version(), { code: 404, errorNum: 1228 });
    assert.equal(await sys.database(name).exists(), false);
  });
});

describe('collections and indexes (arangojs)', () => {
  test('createCollection returns properties; duplicate 409/1207; illegal name 400/1208; drop', async () => {
    const name = uniq('props');
    const col = await db.createCollection(name, { waitForSync: true });
    const p = await col.properties();
    assert.equal(p.name, name);
    assert.equal(p.type, 2);
    assert.equal(p.status, 3);
    assert.equal(p.waitForSync, true);
    assert.equal(p.keyOptions.type, 'traditional');
    assert.equal(p.keyOptions.allowUserKeys, true);
    assert.match(p.id, /^\d+$/);
    assert.ok(p.globallyUniqueId);
    await rejectsArango(db.createCollection(name), { code: 409, errorNum: 1207 });
    await rejectsArango(db.createCollection('1bad name'), { code: 400, errorNum: 1208 });
    assert.ok((await db.listCollections()).some((c) => c.name === name));
    const dropped = await col.drop();
    assert.deepEqual(dropped, { error: false, code: 200, id: p.id });
    await rejectsArango(col.get(), { code: 404, errorNum: 1203 });
    assert.equal(await col.exists(), false);
  });

  test('count(), truncate()', async () => {
    const col = await db.createCollection(uniq('cnt'));
    await col.saveAll([{ a: 1 }, { a: 2 }, { a: 3 }]);
    assert.equal((await col.count()).count, 3);
    const t = await col.truncate();
    assert.equal(t.name, col.name);
    assert.equal((await col.count()).count, 0);
  });

  test('ensureIndex persistent: 201 new, 200 existing, listed with primary, dropIndex', async () => {
    const col = await db.createCollection(uniq('idx'));
    const ix = await col.ensureIndex({ type: 'persistent', fields: ['value'], name: 'byValue' });
    assert.equal(ix.isNewlyCreated, true);
    assert.equal(ix.code, 201);
    assert.equal(ix.name, 'byValue');
    assert.equal(ix.type, 'persistent');
    assert.deepEqual(ix.fields, ['value']);
    assert.equal(ix.unique, false);
    assert.equal(ix.sparse, false);
    assert.match(ix.id, new RegExp(`^${col.name}/\\d+$`));
    const again = await col.ensureIndex({ type: 'persistent', fields: ['value'] });
    assert.equal(again.isNewlyCreated, false);
    assert.equal(again.code, 200);
    assert.equal(again.id, ix.id);
    const list = await col.indexes();
    assert.deepEqual(list.map((i) => i.type), ['primary', 'persistent']);
    assert.equal(list[0].id, `${col.name}/0`);
    assert.deepEqual(list[0].fields, ['_key']);
    const del = await col.dropIndex(ix.id);
    assert.equal(del.id, ix.id);
    assert.deepEqual((await col.indexes()).map((i) => i.type), ['primary']);
  });

  test('unique persistent index is enforced (409/1210 single, inline 1210 in arrays)', async () => {
    const col = await db.createCollection(uniq('uq'));
    await col.ensureIndex({ type: 'persistent', fields: ['email'], unique: true, name: 'uqEmail' });
    await col.save({ _key: 'u1', email: 'a@x' });
    await rejectsArango(col.save({ _key: 'u2', email: 'a@x' }), { code: 409, errorNum: 1210 });
    const res = await col.saveAll([{ _key: 'u3', email: 'b@x' }, { _key: 'u4', email: 'b@x' }]);
    assert.equal(res[0]._key, 'u3');
    assert.equal(res[1].error, true);
    assert.equal(res[1].errorNum, 1210);
    assert.match(res[1].errorMessage, /in index uqEmail .*conflicting key: u3$/);
    // Replacing a document keeps its own value without a conflict.
    await col.replace('u1', { email: 'a@x', v: 2 });
    assert.equal((await col.count()).count, 2);
  });
});

describe('documents (arangojs)', () => {
  let col;
  before(async () => { col = await db.createCollection(uniq('docs')); });

  test('saveAll plain: metadata in input order, generated numeric key', async () => {
    const res = await col.saveAll([{ _key: 'a', v: 1 }, { _key: 'b', v: 2 }, { v: 3 }]);
    assert.equal(res.length, 3);
    assert.deepEqual(Object.keys(res[0]).sort(), ['_id', '_key', '_rev']);
    assert.equal(res[0]._key, 'a');
    assert.equal(res[0]._id, `${col.name}/a`);
    assert.equal(res[1]._key, 'b');
    assert.match(res[2]._key, /^\d+$/);
    assert.equal(res[2]._id, `${col.name}/${res[2]._key}`);
    for (const r of res) assert.match(r._rev, REV);
    assert.equal(new Set(res.map((r) => r._rev)).size, 3);
    const stored = await col.document('a');
    assert.deepEqual(stored, { _key: 'a', _id: `${col.name}/a`, _rev: res[0]._rev, v: 1 });
    assert.equal((await col.count()).count, 3);
  });

  test('duplicate key: save throws 409/1210, saveAll returns an inline failure', async () => {
    await rejectsArango(col.save({ _key: 'a', v: 9 }), { code: 409, errorNum: 1210 });
    await assert.rejects(col.save({ _key: 'a' }), {
      message: "unique constraint violated - in index primary of type primary over '_key'; conflicting key: a",
    });
    const res = await col.saveAll([{ _key: 'dup1' }, { _key: 'a', v: 9 }]);
    assert.equal(res[0]._key, 'dup1');
    assert.deepEqual(res[1], {
      error: true, errorNum: 1210,
      errorMessage: "unique constraint violated - in index primary of type primary over '_key'; conflicting key: a",
    });
    const conflict = await col.saveAll([{ _key: 'a' }], { overwriteMode: 'conflict' });
    assert.equal(conflict[0].errorNum, 1210);
    assert.equal((await col.document('a')).v, 1, 'conflicting element was not written');
  });

  test('overwriteMode replace: _oldRev, old/new, stored document replaced', async () => {
    const first = await col.save({ _key: 'r1', v: 1, keep: 'x' });
    const [res] = await col.saveAll([{ _key: 'r1', w: 10 }], { overwriteMode: 'replace', returnNew: true, returnOld: true });
    assert.equal(res._oldRev, first._rev);
    assert.notEqual(res._rev, first._rev);
    assert.deepEqual(res.old, { _key: 'r1', _id: `${col.name}/r1`, _rev: first._rev, v: 1, keep: 'x' });
    assert.deepEqual(res.new, { _key: 'r1', _id: `${col.name}/r1`, _rev: res._rev, w: 10 });
    assert.deepEqual(await col.document('r1'), res.new);
    // overwrite=true is the same as replace
    const [o] = await col.saveAll([{ _key: 'r1', z: 1 }], { overwrite: true });
    assert.equal(o._oldRev, res._rev);
    assert.deepEqual(await col.document('r1'), { _key: 'r1', _id: `${col.name}/r1`, _rev: o._rev, z: 1 });
    // Missing key in replace mode is a plain insert (no _oldRev)
    const [n] = await col.saveAll([{ _key: 'r2', q: 1 }], { overwriteMode: 'replace' });
    assert.equal(n._oldRev, undefined);
  });

  test('returnOld only takes effect with update/replace', async () => {
    await col.save({ _key: 'ro', v: 1 });
    await assert.rejects(col.saveAll([{ _key: 'ro' }], { returnOld: true }).then((r) => { throw r[0]; }), { errorNum: 1210 });
    const [r] = await col.saveAll([{ _key: 'ro2' }], { returnOld: true });
    assert.equal('old' in r, false);
  });

  test('overwriteMode update: keepNull false/true, mergeObjects true/false', async () => {
    const base = { nested: { x: 1, y: 2 }, v: 1, w: 'w' };
    await col.saveAll(['u1', 'u2', 'u3', 'u4'].map((k) => ({ _key: k, ...base })));

    const [a] = await col.saveAll([{ _key: 'u1', nested: { y: null, z: 3 }, v: null }],
      { overwriteMode: 'update', keepNull: false, mergeObjects: true, returnNew: true, returnOld: true });
    assert.match(a._oldRev, REV);
    assert.deepEqual(a.old.nested, { x: 1, y: 2 });
    assert.deepEqual(a.new, { _key: 'u1', _id: `${col.name}/u1`, _rev: a._rev, nested: { x: 1, z: 3 }, w: 'w' });
    assert.deepEqual(await col.document('u1'), a.new);

    const [b] = await col.saveAll([{ _key: 'u2', nested: { y: null }, v: null }],
      { overwriteMode: 'update', keepNull: true, mergeObjects: true, returnNew: true });
    assert.deepEqual(b.new, { _key: 'u2', _id: `${col.name}/u2`, _rev: b._rev, nested: { x: 1, y: null }, v: null, w: 'w' });

    const [c] = await col.saveAll([{ _key: 'u3', nested: { z: 9 } }],
      { overwriteMode: 'update', keepNull: true, mergeObjects: false, returnNew: true });
    assert.deepEqual(c.new.nested, { z: 9 });
    assert.equal(c.new.v, 1);

    // keepNull omitted: the insert handler's update path parses it with
    // default FALSE (SRC RestDocumentHandler.cpp; the docs claim true).
    const [d] = await col.saveAll([{ _key: 'u4', v: null }], { overwriteMode: 'update', returnNew: true });
    assert.equal('v' in d.new, false);
  });

  test('overwriteMode ignore: identity of the existing revision, no write', async () => {
    const orig = await col.save({ _key: 'i1', v: 1 });
    const [r] = await col.saveAll([{ _key: 'i1', v: 2 }, { _key: 'i2', v: 3 }].slice(0, 1), { overwriteMode: 'ignore', returnNew: true });
    assert.deepEqual(r, { _id: `${col.name}/i1`, _key: 'i1', _rev: orig._rev, new: null });
    assert.equal((await col.document('i1')).v, 1);
    const [fresh] = await col.saveAll([{ _key: 'i3', v: 3 }], { overwriteMode: 'ignore' });
    assert.equal(fresh._key, 'i3');
    assert.equal((await col.document('i3')).v, 3);
  });

  test('invalid keys and document types are per-element errors', async () => {
    const res = await col.saveAll([{ _key: 'has space' }, { _key: 'x'.repeat(255) }, { _key: 'ok:.@()+,=;$!*\'%-_' }, 42, { _key: 7 }]);
    assert.deepEqual(res[0], { error: true, errorNum: 1221, errorMessage: 'illegal document key' });
    assert.equal(res[1].errorNum, 1221);
    assert.equal(res[2]._key, 'ok:.@()+,=;$!*\'%-_');
    assert.deepEqual(res[3], { error: true, errorNum: 1227, errorMessage: 'invalid document type' });
    assert.equal(res[4].errorNum, 1221);
    await rejectsArango(col.save({ _key: 'bad/key' }), { code: 400, errorNum: 1221 });
  });

  test('document(), documents() batch read (PUT ?onlyget), documentExists', async () => {
    await col.saveAll([{ _key: 'g1', v: 1 }, { _key: 'g2', v: 2 }]);
    const one = await col.document('g1');
    assert.equal(one.v, 1);
    await rejectsArango(col.document('nope'), { code: 404, errorNum: 1202 });
    assert.equal(await col.document('nope', { graceful: true }), null);
    assert.equal(await col.documentExists('g1'), true);
    assert.equal(await col.documentExists('nope'), false);
    const many = await col.documents(['g2', 'nope', { _key: 'g1' }, `${col.name}/g1`]);
    assert.equal(many.length, 4);
    assert.equal(many[0].v, 2);
    assert.deepEqual(many[1], { error: true, errorNum: 1202, errorMessage: 'document not found' });
    assert.equal(many[2]._key, 'g1');
    assert.equal(many[3]._key, 'g1');
  });

  test('update/updateAll (PATCH keepNull default true), replace, remove/removeAll', async () => {
    const s = await col.save({ _key: 'm1', v: 1, n: { a: 1 } });
    const up = await col.update('m1', { z: 1, v: null, n: { b: 2 } }, { returnNew: true, returnOld: true });
    assert.equal(up._oldRev, s._rev);
    assert.equal(up.old.v, 1);
    assert.deepEqual(up.new, { _key: 'm1', _id: `${col.name}/m1`, _rev: up._rev, v: null, n: { a: 1, b: 2 }, z: 1 });
    const upAll = await col.updateAll([{ _key: 'm1', z: 2 }, { _key: 'nope', z: 2 }, { z: 3 }], { keepNull: false });
    assert.equal(upAll[0]._oldRev, up._rev);
    assert.deepEqual(upAll[1], { error: true, errorNum: 1202, errorMessage: 'document not found' });
    assert.equal(upAll[2].errorNum, 1205);
    assert.equal((await col.document('m1')).z, 2);
    await rejectsArango(col.update('nope', { z: 1 }), { code: 404, errorNum: 1202 });
    await rejectsArango(col.update('m1', { z: 1 }, { ifMatch: '_notTheRev_' }), { code: 412, errorNum: 1200 });

    const rep = await col.replace('m1', { only: true }, { returnNew: true });
    assert.deepEqual(rep.new, { _key: 'm1', _id: `${col.name}/m1`, _rev: rep._rev, only: true });
    const repAll = await col.replaceAll([{ _key: 'm1', again: 1 }, { _key: 'nope2' }]);
    assert.equal(repAll[0]._key, 'm1');
    assert.equal(repAll[1].errorNum, 1202);

    await col.save({ _key: 'm2' });
    await col.save({ _key: 'm3' });
    const rm = await col.remove('m1', { returnOld: true });
    assert.equal(rm._key, 'm1');
    assert.deepEqual(rm.old, { _key: 'm1', _id: `${col.name}/m1`, _rev: repAll[0]._rev, again: 1 });
    await rejectsArango(col.remove('m1'), { code: 404, errorNum: 1202 });
    const rmAll = await col.removeAll(['m2', 'nope', { _key: 'm3' }]);
    assert.equal(rmAll[0]._key, 'm2');
    assert.deepEqual(rmAll[1], { error: true, errorNum: 1202, errorMessage: 'document not found' });
    assert.equal(rmAll[2]._key, 'm3');
    assert.equal(await col.documentExists('m3'), false);
  });

  test('silent=true: save resolves undefined; HTTP body {} (see raw tests)', async () => {
    assert.equal(await col.save({ _key: 'sil1' }, { silent: true }), undefined);
    assert.equal(await col.documentExists('sil1'), true);
  });
});

describe('stream transactions (arangojs)', () => {
  let col;
  before(async () => { col = await db.createCollection(uniq('trx')); });

  test('commit makes buffered writes visible; reads inside see own writes', async () => {
    const trx = await db.beginTransaction({ write: [col] });
    assert.match(trx.id, /^\d+$/);
    assert.deepEqual(await trx.get(), { id: trx.id, status: 'running' });
    const meta = await trx.step(() => col.save({ _key: 't1', v: 1 }));
    assert.equal(meta._key, 't1');
    await trx.step(() => col.saveAll([{ _key: 't2' }, { _key: 't3' }]));
    assert.equal((await trx.step(() => col.count())).count, 3);
    assert.equal((await trx.step(() => col.document('t1'))).v, 1);
    assert.equal((await col.count()).count, 0, 'not visible outside before commit');
    assert.equal(await col.documentExists('t1'), false);
    assert.deepEqual(await trx.commit(), { id: trx.id, status: 'committed' });
    assert.equal((await col.count()).count, 3);
    assert.equal((await col.document('t1')).v, 1);
    await rejectsArango(trx.step(() => col.save({ _key: 'late' })), { code: 410, errorNum: 1654 });
  });

  test('abort discards writes; using the aborted transaction -> 410/1654', async () => {
    const trx = await db.beginTransaction({ write: [col.name] });
    await trx.step(() => col.save({ _key: 'a1' }));
    await trx.step(() => col.remove('t1'));
    assert.deepEqual(await trx.abort(), { id: trx.id, status: 'aborted' });
    assert.equal(await col.documentExists('a1'), false);
    assert.equal(await col.documentExists('t1'), true);
    await rejectsArango(trx.step(() => col.save({ _key: 'a2' })), { code: 410, errorNum: 1654 });
    await rejectsArango(trx.commit(), { code: 400, errorNum: 1653 });
  });

  test('unknown transaction -> 404/1655; unknown collection in begin -> 404/1203', async () => {
    const ghost = db.transaction('123456789');
    // arangojs 10.4.0 Transaction.exists() only maps errorNum 10 to "false"
    // (lib/codes.js TRANSACTION_NOT_FOUND = 10); the reference (errors.yaml)
    // gives 1655 ERROR_TRANSACTION_NOT_FOUND for an unknown ID, which we keep,
    // so exists() rethrows instead of returning false. Pinned here on purpose.
    await rejectsArango(ghost.exists(), { code: 404, errorNum: 1655 });
    await rejectsArango(ghost.get(), { code: 404, errorNum: 1655 });
    await rejectsArango(ghost.step(() => col.save({})), { code: 404, errorNum: 1655 });
    await rejectsArango(db.beginTransaction({ write: ['no_such_collection'] }), { code: 404, errorNum: 1203 });
  });

  test('withTransaction over two collections commits both', async () => {
    const other = await db.createCollection(uniq('trx2'));
    await db.withTransaction([col, other], (step) => Promise.all([
      step(() => col.save({ _key: 'mc1' })),
    ]).then(() => step(() => other.save({ _key: 'mc1' }))));
    assert.equal(await col.documentExists('mc1'), true);
    assert.equal(await other.documentExists('mc1'), true);
  });
});

describe('raw HTTP contract used by the k6 adapter', () => {
  let name;
  const path = (q = '') => `/_db/fidelity/_api/document/${name}${q}`;
  before(async () => {
    name = uniq('rawc');
    const r = await raw('POST', '/_db/fidelity/_api/collection', { name });
    assert.equal(r.status, 200);
  });

  test('201 vs 202 by effective waitForSync (query or collection), DELETE 200 vs 202', async () => {
    assert.equal((await raw('POST', path(), { _key: 'w1' })).status, 202);
    const w = await raw('POST', path('?waitForSync=true'), [{ _key: 'w2' }]);
    assert.equal(w.status, 201);
    const single = await raw('POST', path(), { _key: 'w3' });
    assert.equal(single.headers.get('etag'), `"${single.json._rev}"`);
    assert.equal(single.headers.get('location'), `/_db/fidelity/_api/document/${name}/w3`);
    assert.equal(w.headers.get('etag'), null, 'no etag for arrays');
    const sync = uniq('sync');
    await raw('POST', '/_db/fidelity/_api/collection', { name: sync, waitForSync: true });
    assert.equal((await raw('POST', `/_db/fidelity/_api/document/${sync}`, [{ _key: 'x' }])).status, 201);
    assert.equal((await raw('POST', `/_db/fidelity/_api/document/${sync}?waitForSync=false`, { _key: 'y' })).status, 201,
      'query param cannot turn off the collection property');
    assert.equal((await raw('DELETE', path(), ['w1'])).status, 202);
    assert.equal((await raw('DELETE', path('?waitForSync=true'), ['w2'])).status, 200);
    assert.equal((await raw('PATCH', path(), [{ _key: 'w3', p: 1 }])).status, 202);
    assert.equal((await raw('PUT', path('?waitForSync=true'), [{ _key: 'w3', p: 2 }])).status, 201);
  });

  test('array response: input order, inline errors, exact X-Arango-Error-Codes JSON', async () => {
    const r = await raw('POST', path(), [{ _key: 'o1' }, { _key: 'bad key' }, { _key: 'o1' }, { _key: 'o2' }, 7, { _key: 'o3' }]);
    assert.equal(r.status, 202);
    assert.equal(r.headers.get('x-arango-error-codes'), '{"1210":1,"1221":1,"1227":1}');
    assert.equal(r.json.length, 6);
    assert.deepEqual(r.json.map((e) => e._key ?? e.errorNum), ['o1', 1221, 1210, 'o2', 1227, 'o3']);
    assert.deepEqual(r.json[1], { error: true, errorNum: 1221, errorMessage: 'illegal document key' });
    assert.deepEqual(Object.keys(r.json[3]), ['_id', '_key', '_rev']);
    const ok = await raw('POST', path(), [{ _key: 'o4' }]);
    assert.equal(ok.headers.get('x-arango-error-codes'), null, 'header only with >=1 error');
    const dup = await raw('POST', path('?overwrite=false'), [{ _key: 'o1' }, { _key: 'o2' }, { _key: 'o9' }]);
    assert.equal(dup.status, 202);
    assert.equal(dup.headers.get('x-arango-error-codes'), '{"1210":2}');
    const del = await raw('DELETE', path(), ['gone1', 'gone2']);
    assert.equal(del.status, 202);
    assert.equal(del.headers.get('x-arango-error-codes'), '{"1202":2}');
  });

  test('silent=true: {} when all succeed, else only the error objects', async () => {
    const all = await raw('POST', path('?silent=true'), [{ _key: 's1' }, { _key: 's2' }]);
    assert.equal(all.status, 202);
    assert.equal(all.text, '{}');
    const some = await raw('POST', path('?silent=true'), [{ _key: 's1' }, { _key: 's3' }, { _key: 's2' }]);
    assert.deepEqual(some.json.map((e) => e.errorNum), [1210, 1210]);
    assert.equal(some.headers.get('x-arango-error-codes'), '{"1210":2}');
    const single = await raw('POST', path('?silent=true'), { _key: 's4' });
    assert.equal(single.text, '{}');
  });

  test('silent=true with overwriteMode=ignore: once an element fails, ignored documents keep their identity in the answer', async () => {
    // arangod/Transaction/Methods.cpp: an ignored document's identity is built whatever silent
    // says, and the array is only cleared when no element failed.
    const allIgnored = await raw('POST', path('?silent=true&overwriteMode=ignore'), [{ _key: 's1' }, { _key: 'si1' }]);
    assert.equal(allIgnored.text, '{}');
    const mixed = await raw('POST', path('?silent=true&overwriteMode=ignore'), [{ _key: 's1' }, { _key: 'si2' }, { _key: 'bad key!' }, { _key: 's2' }]);
    assert.equal(mixed.status, 202);
    assert.equal(mixed.headers.get('x-arango-error-codes'), '{"1221":1}');
    // input order; the new document si2 has no entry, the two ignored ones and the error do
    assert.deepEqual(mixed.json.map((e) => (e.error ? `e${e.errorNum}` : e._key)), ['s1', 'e1221', 's2']);
    assert.match(mixed.json[0]._rev, /^_/);
  });

  test('error envelopes: bad JSON 400/600, unknown collection 404/1203, unknown db 404/1228, single dup 409/1210', async () => {
    const bad = await raw('POST', path(), '[{"_key":');
    assert.equal(bad.status, 400);
    assert.equal(bad.json.errorNum, 600);
    assert.equal(bad.json.error, true);
    const unk = await raw('POST', '/_db/fidelity/_api/document/products', { a: 1 });
    assert.equal(unk.status, 404);
    assert.deepEqual(unk.json, { code: 404, error: true, errorMessage: 'collection or view not found: products', errorNum: 1203 });
    const nodb = await raw('GET', '/_db/nodb/_api/version');
    assert.deepEqual([nodb.status, nodb.json.errorNum, nodb.json.errorMessage], [404, 1228, 'database not found']);
    await raw('POST', path(), { _key: 'd1' });
    const dup = await raw('POST', path(), { _key: 'd1' });
    assert.equal(dup.status, 409);
    assert.deepEqual(dup.json, {
      code: 409, error: true, errorNum: 1210,
      errorMessage: "unique constraint violated - in index primary of type primary over '_key'; conflicting key: d1",
    });
    const missing = await raw('GET', path('/nope'));
    assert.deepEqual(missing.json, { code: 404, error: true, errorMessage: 'document not found', errorNum: 1202 });
  });

  test('legacy ?collection= form, invalid overwriteMode ignored, onlyget without error-codes header', async () => {
    const legacy = await raw('POST', `/_db/fidelity/_api/document?collection=${name}&silent=true`, { _key: 'l1' });
    assert.equal(legacy.status, 202);
    assert.equal(legacy.text, '{}');
    const inv = await raw('POST', path('?overwriteMode=bogus'), [{ _key: 'l1' }]);
    assert.equal(inv.json[0].errorNum, 1210, 'invalid mode keeps the default (conflict)');
    const inv2 = await raw('POST', path('?overwrite=true&overwriteMode=bogus'), [{ _key: 'l1', x: 1 }]);
    assert.match(inv2.json[0]._oldRev, REV, 'invalid mode keeps overwrite=true (replace)');
    const read = await raw('PUT', path('?onlyget=true'), ['l1', 'nope']);
    assert.equal(read.status, 200);
    assert.equal(read.headers.get('x-arango-error-codes'), null);
    assert.equal(read.json[0].x, 1);
    assert.deepEqual(read.json[1], { error: true, errorNum: 1202, errorMessage: 'document not found' });
  });

  test('trx via raw headers: begin 201 shape, commit/abort bodies', async () => {
    const b = await raw('POST', '/_db/fidelity/_api/transaction/begin', { collections: { write: name } });
    assert.equal(b.status, 201);
    assert.deepEqual(b.json, { code: 201, error: false, result: { id: b.json.result.id, status: 'running' } });
    const id = b.json.result.id;
    const w = await raw('POST', path(), [{ _key: 'tx1' }], { 'x-arango-trx-id': id });
    assert.equal(w.status, 202);
    const c = await raw('PUT', `/_db/fidelity/_api/transaction/${id}`);
    assert.deepEqual([c.status, c.json.result], [200, { id, status: 'committed' }]);
    assert.equal((await raw('GET', path('/tx1'))).status, 200);
  });
});

describe('fault knobs (separate server)', () => {
  let fs; // fault server
  let fdb;
  const fraw = (method, p, body, headers = {}) => fetch(fs.url + p, {
    method, headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const setFaults = async (f) => {
    const r = await fetch(fs.url + '/_testserver/faults', { method: 'POST', body: JSON.stringify(f) });
    assert.equal(r.status, 200);
    return r.json();
  };
  before(async () => {
    fs = await startTestServer('arangodb', ['-no-auth', '-trx-idle-timeout', '300ms']);
    fdb = new Database({ url: fs.url });
    await fdb.createCollection('f');
  });
  after(async () => { fdb?.close(); await fs?.stop(); });

  test('GET/POST /_testserver/faults round-trips the config', async () => {
    const cfg = {
      latencyMs: 0, latencyJitterMs: 0, elementFailureRate: 0.25, elementFailureErrorNum: 1200,
      burst503: { every: 0, length: 0 }, dropConnectionRate: 0, cutAfterBodyRate: 0, authFailAfter: 0, upsertHoldMs: 40, seed: 7,
    };
    assert.deepEqual(await setFaults(cfg), cfg);
    assert.deepEqual(await (await fetch(fs.url + '/_testserver/faults')).json(), cfg);
    await setFaults({});
  });

  test('elementFailureRate: failed elements are reported inline, counted in the header, not stored', async () => {
    await fetch(fs.url + '/_testserver/reset', { method: 'POST' });
    await fdb.createCollection('f');
    await setFaults({ elementFailureRate: 0.1, elementFailureErrorNum: 1200, seed: 42 });
    const docs = Array.from({ length: 1000 }, (_, i) => ({ _key: `k${i}`, payload: 'x'.repeat(1200) }));
    const r = await fraw('POST', '/_api/document/f', docs);
    assert.equal(r.status, 202);
    const body = await r.json();
    const failed = body.filter((e) => e.error);
    assert.ok(failed.length > 50 && failed.length < 150, `~10% failed, got ${failed.length}`);
    assert.deepEqual(JSON.parse(r.headers.get('x-arango-error-codes')), { 1200: failed.length });
    assert.deepEqual(failed[0], { error: true, errorNum: 1200, errorMessage: 'conflict' });
    await setFaults({});
    assert.equal((await fdb.collection('f').count()).count, 1000 - failed.length);
    const idx = body.findIndex((e) => e.error);
    assert.equal(await fdb.collection('f').documentExists(`k${idx}`), false);
    // Same seed -> same failures (reproducible).
    await setFaults({ elementFailureRate: 0.1, elementFailureErrorNum: 1200, seed: 42 });
    const again = await (await fraw('POST', '/_api/document/f', docs)).json();
    assert.deepEqual(again.map((e, i) => e.errorNum === 1200 ? i : -1).filter((i) => i >= 0),
      body.map((e, i) => e.error ? i : -1).filter((i) => i >= 0));
    await setFaults({});
  });

  test('burst503: the last `length` of every `every` document writes get 503', async () => {
    await setFaults({ burst503: { every: 4, length: 2 } });
    const statuses = [];
    for (let i = 0; i < 8; i++) {
      const r = await fraw('POST', '/_api/document/f', [{ b: i }]);
      statuses.push(r.status);
      if (r.status === 503) {
        assert.deepEqual(await r.json(), { code: 503, error: true, errorNum: 503, errorMessage: 'service unavailable due to startup or maintenance mode' });
      } else await r.arrayBuffer();
    }
    assert.deepEqual(statuses, [202, 202, 503, 503, 202, 202, 503, 503]);
    assert.equal((await fraw('GET', '/_api/version')).status, 200, 'reads are not counted');
    // a coordinator that lost a DB server: 503 with errorNum 1478
    await setFaults({ burst503: { every: 1, length: 1, errorNum: 1478 } });
    const lost = await fraw('POST', '/_api/document/f', [{ b: 'lost' }]);
    assert.equal(lost.status, 503);
    assert.deepEqual(await lost.json(), { code: 503, error: true, errorNum: 1478, errorMessage: 'A cluster backend which was required for the operation could not be reached' });
    // A 503 for a large batch arrives as a response, not as a connection reset
    // (the server drains the body before answering).
    await setFaults({ burst503: { every: 1, length: 1 } });
    const big = Array.from({ length: 5000 }, (_, i) => ({ _key: `big${i}`, s: 'x'.repeat(1100) }));
    const r = await fraw('POST', '/_api/document/f', big);
    assert.equal(r.status, 503);
    assert.equal((await r.json()).errorNum, 503);
    await setFaults({});
    assert.equal(await fdb.collection('f').documentExists('big0'), false);
  });

  test('dropConnectionRate: fetch rejects, nothing stored', async () => {
    await setFaults({ dropConnectionRate: 1 });
    await assert.rejects(fraw('POST', '/_api/document/f', [{ _key: 'dropped', pad: 'x'.repeat(5000) }]), TypeError);
    await setFaults({});
    assert.equal(await fdb.collection('f').documentExists('dropped'), false);
  });

  test('cutAfterBodyRate: a batch read whole and committed loses its connection (reset), not its documents', async () => {
    await setFaults({ cutAfterBodyRate: 1 });
    const cut = await fraw('POST', '/_api/document/f', [{ _key: 'cut1' }, { _key: 'cut2', pad: 'x'.repeat(5000) }]).then(() => 'answered', (e) => e.cause?.code || e.message);
    await setFaults({});
    assert.equal(cut, 'ECONNRESET');
    assert.equal(await fdb.collection('f').documentExists('cut1'), true, 'committed before the cut');
    assert.equal(await fdb.collection('f').documentExists('cut2'), true, 'committed before the cut');
  });

  test('latencyMs and authFailAfter', async () => {
    await setFaults({ latencyMs: 150 });
    const t0 = Date.now();
    await fraw('GET', '/_api/version');
    assert.ok(Date.now() - t0 >= 150);
    await setFaults({ authFailAfter: 2 });
    const st = [];
    for (let i = 0; i < 4; i++) st.push((await fraw('GET', '/_api/version')).status);
    assert.deepEqual(st, [200, 200, 401, 401]);
    await rejectsArango(fdb.version(), { code: 401, errorNum: 11 });
    await setFaults({});
    assert.equal((await fraw('GET', '/_api/version')).status, 200);
  });

  test('latencyJitterMs: every request waits latencyMs plus a seeded 0..latencyJitterMs ms; the answers do not change', async () => {
    const write = async () => {
      const t0 = performance.now();
      const r = await fraw('POST', '/_api/document/f?overwriteMode=replace', [{ _key: 'jit1', v: 1 }, { _key: 'jit2', v: 2 }]);
      const body = await r.json();
      return { ms: performance.now() - t0, status: r.status, body: body.map((e) => ({ _key: e._key, error: Boolean(e.error) })) };
    };
    await setFaults({});
    const plain = await write();
    await setFaults({ latencyMs: 20, latencyJitterMs: 60, seed: 3 });
    const timed = [];
    for (let i = 0; i < 12; i++) timed.push(await write());
    for (const t of timed) {
      assert.deepEqual([t.status, t.body], [plain.status, plain.body], 'same answer as without latency');
      assert.ok(t.ms >= 19, `never less than latencyMs: ${t.ms}`);
    }
    const ms = timed.map((t) => t.ms);
    // Seeded draws from 0..60 ms: 12 of them spread over more than 20 ms (a fixed delay would not).
    assert.ok(Math.max(...ms) - Math.min(...ms) > 20, `delays vary: ${ms.map((x) => x.toFixed(0)).join(' ')}`);
    await setFaults({});
  });

  test('idle stream transaction expires -> 410/1654', async () => {
    const trx = await fdb.beginTransaction({ write: ['f'] });
    await new Promise((r) => setTimeout(r, 700));
    await rejectsArango(trx.step(() => fdb.collection('f').save({})), { code: 410, errorNum: 1654 });
    assert.equal((await trx.get()).status, 'aborted');
  });
});
