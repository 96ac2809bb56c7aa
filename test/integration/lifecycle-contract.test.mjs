// The lifecycle contract (lib/targets/lifecycle.js, docs/reliability.md "What ours means"),
// run against every target: PostgreSQL and MongoDB for real (MongoDB on a mongod of this
// file's own, whose fail points slow its batches down), ArangoDB and RavenDB on their API test
// servers. Each row is one hostile situation; every target must end it the same way:
//   - a foreign object whose marker merely looks like ours    refused, untouched, not dropped
//   - an object with this run's marker but another shape       refused naming the difference
//   - a marker forged from what the pack prints (RUN_ID, plan
//     hash, token "distributed"), without the run's secret     refused by REUSE and by the verify
//                                                              step, untouched, not dropped
//   - a second run with the same RUN_ID while the first runs,
//     with or without REUSE=1                                  refused; the first finishes OK
//   - REUSE with other settings                                refused; REUSE=recreate obeys,
//                                                              and the report shows the object
//   - the run's object dropped mid-run                         the revealing batch counted, 108
//   - the server lost mid-run (HTTP targets)                   failures counted, back-off
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { localEnv, markerFor, psql, psqlSession as session, startK6, runK6, uniqueRunId, errorLines } from '../helpers/k6.mjs';
import { startTestServer, testServerBinary } from '../helpers/testserver.mjs';
import { startPrivateMongo } from '../helpers/mongoprivate.mjs';
import { closeMongo, failPoint, mongo } from '../helpers/mongo.mjs';

const E1 = (t) => `scenarios/${t}/insert-vs-overwrite.js`;
const small = { DOCS: '2000', BATCH_SIZE: '250', OVERWRITE_BATCHES: '4', MIXED_BATCHES: '2' };
const explain = (r) => `exit ${r.code}\n${r.stdout}\n${r.stderr}`;
const json = (o) => JSON.stringify(o);

// ---- PostgreSQL: a database of this test's own on the shared server ---------------------
const shared = localEnv().PG_URL;
const pgDb = `k6wp_contract_${process.pid}`;
const pgUrl = (() => { const u = new URL(shared); u.pathname = `/${pgDb}`; return u.toString(); })();
const q = (s) => psql(pgUrl, s);

const pg = {
  name: 'postgres',
  noun: (runId) => `table public.k6wp_${runId}`,
  env: () => ({ PG_URL: pgUrl }),
  async foreign(runId, comment) {
    await q(`CREATE TABLE k6wp_${runId} (key text PRIMARY KEY, doc jsonb NOT NULL);
      COMMENT ON TABLE k6wp_${runId} IS '${comment.replace(/'/g, "''")}';
      INSERT INTO k6wp_${runId} SELECT 'K' || g, jsonb_build_object('mine', g) FROM generate_series(0, 9) g;`);
  },
  async otherShape(runId, marker) {
    await q(`CREATE TABLE k6wp_${runId} (id int, v text);
      COMMENT ON TABLE k6wp_${runId} IS '${json(marker)}';
      INSERT INTO k6wp_${runId} SELECT g, 'v' || g FROM generate_series(0, 9) g;`);
  },
  async fingerprint(runId) {
    if ((await q(`SELECT to_regclass('k6wp_${runId}') IS NULL`)) === 't') return 'absent';
    return q(`SELECT count(*) || ':' || md5(coalesce(string_agg(t::text, ',' ORDER BY t::text), '')) || ':' || coalesce(obj_description('k6wp_${runId}'::regclass, 'pg_class'), '') FROM k6wp_${runId} t`);
  },
  async remove(runId) { await q(`DROP TABLE IF EXISTS k6wp_${runId}`); },
  // Holds the run's writes (ACCESS EXCLUSIVE lock) until release(); release(drop) drops the
  // table first, in the same transaction, so the waiting batch meets a table that is gone.
  async hold(runId) {
    const s = session(pgUrl);
    await s.run(`BEGIN; LOCK TABLE k6wp_${runId} IN ACCESS EXCLUSIVE MODE;`, 'locked');
    return async (drop = false) => { await s.run(`${drop ? `DROP TABLE k6wp_${runId}; ` : ''}COMMIT;`, 'released'); await s.close(); };
  },
  dropReason: 'undefined_table',
  gone: /the run's table disappeared during the run/,
};

// ---- the HTTP targets, on test servers of this file's own -------------------------------
async function http(base, method, path, body) {
  const res = await fetch(`${base}${path}`, { method, headers: { 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let parsed = null;
  try { parsed = JSON.parse(text); } catch (_) { /* not JSON */ }
  return { status: res.status, body: parsed, text };
}

function arango(server) {
  const base = () => server.url;
  const api = (m, p, b) => http(base(), m, p, b);
  return {
    name: 'arangodb',
    noun: (runId) => `database k6wp_${runId}`,
    env: () => ({ ARANGO_URL: base() }),
    async foreign(runId, marker) {
      assert.equal((await api('POST', '/_api/database', { name: `k6wp_${runId}` })).status, 201);
      assert.equal((await api('POST', `/_db/k6wp_${runId}/_api/collection`, { name: `k6wp_${runId}` })).status, 200);
      assert.equal((await api('POST', `/_db/k6wp_${runId}/_api/document/k6wp_${runId}`, Array.from({ length: 10 }, (_, i) => ({ _key: `K${i}`, mine: i })))).status, 202);
      if (marker !== null) {
        await api('POST', `/_db/k6wp_${runId}/_api/collection`, { name: 'k6wp_meta' });
        assert.equal((await api('POST', `/_db/k6wp_${runId}/_api/document/k6wp_meta`, typeof marker === 'string' ? { _key: 'owner', note: marker } : { _key: 'owner', ...marker })).status, 202);
      }
    },
    // This run's marker, but the run's collection is missing and another one holds data.
    async otherShape(runId, marker) {
      assert.equal((await api('POST', '/_api/database', { name: `k6wp_${runId}` })).status, 201);
      await api('POST', `/_db/k6wp_${runId}/_api/collection`, { name: 'users' });
      await api('POST', `/_db/k6wp_${runId}/_api/document/users`, Array.from({ length: 10 }, (_, i) => ({ _key: `u${i}` })));
      await api('POST', `/_db/k6wp_${runId}/_api/collection`, { name: 'k6wp_meta' });
      assert.equal((await api('POST', `/_db/k6wp_${runId}/_api/document/k6wp_meta`, { _key: 'owner', ...marker })).status, 202);
    },
    async fingerprint(runId) {
      const cols = await api('GET', `/_db/k6wp_${runId}/_api/collection`);
      if (cols.status === 404) return 'absent';
      const out = [];
      for (const c of cols.body.result.map((x) => x.name).filter((n) => !n.startsWith('_')).sort()) {
        out.push(`${c}=${(await api('GET', `/_db/k6wp_${runId}/_api/collection/${c}/count`)).body.count}`);
      }
      const m = await api('GET', `/_db/k6wp_${runId}/_api/document/k6wp_meta/owner`);
      return `${out.join(',')} marker=${m.status === 200 ? json({ ...m.body, _id: 0, _rev: 0 }) : 'none'}`;
    },
    async remove(runId) { await api('DELETE', `/_api/database/k6wp_${runId}`); },
    async dropNow(runId) { assert.equal((await api('DELETE', `/_api/database/k6wp_${runId}`)).status, 200); },
    dropReason: 'http_404',
    gone: /database k6wp_\w+ disappeared during the run \(404, errorNum 1228\)/,
  };
}

function raven(server) {
  const base = () => server.url;
  const api = (m, p, b) => http(base(), m, p, b);
  const mkdb = async (runId) => assert.equal((await api('PUT', `/admin/databases?name=k6wp_${runId}&replicationFactor=1`, { DatabaseName: `k6wp_${runId}` })).status, 201);
  const putDoc = async (runId, id, doc) => assert.equal((await api('PUT', `/databases/k6wp_${runId}/docs?id=${encodeURIComponent(id)}`, doc)).status, 201);
  return {
    name: 'ravendb',
    noun: (runId) => `RavenDB database k6wp_${runId}`,
    env: () => ({ RAVEN_URL: base() }),
    async foreign(runId, marker) {
      await mkdb(runId);
      for (let i = 0; i < 10; i++) await putDoc(runId, `K${i}`, { mine: i, '@metadata': { '@collection': 'Users' } });
      if (marker !== null) await putDoc(runId, 'k6wp/marker', { ...(typeof marker === 'string' ? { tool: marker } : marker), '@metadata': { '@collection': 'K6wpMarkers' } });
    },
    // This run's marker, but an index the plan does not have.
    async otherShape(runId, marker) {
      await mkdb(runId);
      for (let i = 0; i < 10; i++) await putDoc(runId, `K${i}`, { mine: i, '@metadata': { '@collection': 'Users' } });
      const ix = await api('PUT', `/databases/k6wp_${runId}/admin/indexes`, { Indexes: [{ Name: 'Users/ByMine', Maps: ['from d in docs.Users select new { d.mine }'] }] });
      assert.ok(ix.status === 201 || ix.status === 200, ix.text);
      await putDoc(runId, 'k6wp/marker', { ...marker, '@metadata': { '@collection': 'K6wpMarkers' } });
    },
    async fingerprint(runId) {
      const st = await api('GET', `/databases/k6wp_${runId}/collections/stats`);
      if (st.status !== 200) return 'absent';
      const m = await api('GET', `/databases/k6wp_${runId}/docs?id=k6wp/marker`);
      const marker = m.status === 200 ? m.body.Results[0] : null;
      if (marker) delete marker['@metadata'];
      return `${json(st.body.Collections)} marker=${json(marker)}`;
    },
    async remove(runId) { await api('DELETE', '/admin/databases', { DatabaseNames: [`k6wp_${runId}`], HardDelete: true }); },
    async dropNow(runId) { assert.equal((await api('DELETE', '/admin/databases', { DatabaseNames: [`k6wp_${runId}`], HardDelete: true })).status, 200); },
    dropReason: null, // the status the server answers for a deleted database (see the RavenDB adapter's dbMissing)
    gone: /RavenDB database k6wp_\w+ does not exist any more/,
  };
}

// ---- MongoDB: a mongod of this file's own (its fail points hold the pack's batches) -------
function mongoTarget(server) {
  const db = async (runId) => (await mongo(server.url)).db(`k6wp_${runId}`);
  const meta = async (runId, marker) => {
    if (marker === null) return;
    await (await db(runId)).collection('k6wp_meta').insertOne(typeof marker === 'string' ? { _id: 'owner', note: marker } : { _id: 'owner', ...marker });
  };
  return {
    name: 'mongodb',
    noun: (runId) => `database k6wp_${runId}`,
    env: () => ({ MONGO_URL: server.url }),
    async foreign(runId, marker) {
      await (await db(runId)).collection('docs').insertMany(Array.from({ length: 10 }, (_, i) => ({ _id: `K${i}`, mine: i })));
      await meta(runId, marker);
    },
    // This run's marker, but an index the plan does not have.
    async otherShape(runId, marker) {
      const d = await db(runId);
      await d.collection('docs').insertMany(Array.from({ length: 10 }, (_, i) => ({ _id: `K${i}`, mine: i })));
      await d.collection('docs').createIndex({ mine: 1 });
      await meta(runId, marker);
    },
    async fingerprint(runId) {
      const d = await db(runId);
      const cols = (await d.listCollections().toArray()).map((c) => c.name).sort();
      if (cols.length === 0) return 'absent';
      const out = [];
      for (const c of cols) {
        const docs = await d.collection(c).find({}).sort({ _id: 1 }).toArray();
        const idx = (await d.collection(c).listIndexes().toArray()).map((i) => i.name).sort();
        out.push(`${c}=${json(docs)} indexes=${idx.join('+')}`);
      }
      return out.join(' ');
    },
    async remove(runId) { await (await db(runId)).dropDatabase(); },
    async dropNow(runId) { await (await db(runId)).dropDatabase(); },
    // The pack's inserts (appName k6-writepath) take ms each from now on, the tests' own do not.
    async slow(ms) { await failPoint(server.url, 'alwaysOn', { failCommands: ['insert'], blockConnection: true, blockTimeMS: ms }); },
    async fast() { await failPoint(server.url, 'off'); },
    dropReason: 'collection_gone',
    gone: /the run's collection disappeared during the run .*(Collection UUID does not match that specified|collection dropped\. UUID [0-9a-f-]+)/,
  };
}

let arangoServer; let ravenServer; let mongoServer;
const targets = [];
before(async () => {
  await psql(shared, `DROP DATABASE IF EXISTS ${pgDb}`);
  await psql(shared, `CREATE DATABASE ${pgDb}`);
  arangoServer = await startTestServer('arangodb', ['-no-auth']);
  ravenServer = await startTestServer('ravendb');
  mongoServer = await startPrivateMongo({ name: 'mongo-contract', testCommands: true });
  targets.push(pg, arango(arangoServer), raven(ravenServer), mongoTarget(mongoServer));
});
after(async () => {
  await closeMongo();
  if (mongoServer) mongoServer.stop();
  await psql(shared, `DROP DATABASE IF EXISTS ${pgDb} WITH (FORCE)`);
  await arangoServer.stop();
  await ravenServer.stop();
});

const each = (title, fn) => {
  for (const name of ['postgres', 'arangodb', 'ravendb', 'mongodb']) {
    test(`${name}: ${title}`, async () => fn(targets.find((t) => t.name === name)));
  }
};

each('a foreign object whose marker only looks like ours is refused with REUSE=1 and left exactly as it was', async (t) => {
  const looksLike = [
    'k6-writepath benchmark baseline — do not drop',
    json({ tool: 'k6-writepath', run: 'someone_else', token: 'abcd', plan: 'insert-vs-overwrite-00000000' }),
  ];
  for (const [i, marker] of looksLike.entries()) {
    const runId = uniqueRunId(`cf${i}`);
    await t.foreign(runId, t.name === 'postgres' ? marker : (i === 0 ? marker : JSON.parse(marker)));
    // MongoDB's refusal names what it found in the marker document (no tool field: "no marker"-like).
    const before = await t.fingerprint(runId);
    const r = await runK6(E1(t.name), { ...t.env(), ...small, REUSE: '1' }, { runId });
    assert.equal(r.code, 108, explain(r));
    assert.equal(errorLines(r).length, 1, r.stderr);
    assert.match(errorLines(r)[0], i === 0
      ? new RegExp(`${t.noun(runId)} exists and was not created by k6-writepath \\((no marker|marker .*)\\): refusing to touch it`)
      : new RegExp(`${t.noun(runId)} carries the marker of another k6-writepath run \\(run=someone_else\\): refusing to touch it`));
    assert.equal(await t.fingerprint(runId), before, 'not one document, collection or marker changed; not dropped');
    await t.remove(runId);
  }
});

each('an object with this run\'s marker but another shape is refused with REUSE=1, naming the difference', async (t) => {
  const runId = uniqueRunId('cs');
  // A marker only a holder of the run's secret can make (the tests' RUN_SECRET), kept.
  await t.otherShape(runId, markerFor(t.noun(runId), { run: runId }));
  const before = await t.fingerprint(runId);
  const r = await runK6(E1(t.name), { ...t.env(), ...small, REUSE: '1' }, { runId });
  assert.equal(r.code, 108, explain(r));
  assert.equal(errorLines(r).length, 1, r.stderr);
  const diff = { postgres: /columns is id integer, v text there, the plan says key text not null, doc jsonb not null/, arangodb: /collections is missing k6wp_\w+ there, the plan says k6wp_\w+/, ravendb: /RAVEN_INDEXES is index Users\/ByMine there, the plan says 0/, mongodb: /MONGO_INDEXES is other index: mine_1 \{\\?"mine\\?":1\} there, the plan says 0/ }[t.name];
  assert.match(errorLines(r)[0], new RegExp(`${t.noun(runId)} was made for RUN_ID=${runId} with other settings \\(.*`));
  assert.match(errorLines(r)[0], diff);
  assert.equal(await t.fingerprint(runId), before, 'untouched');
  await t.remove(runId);
});

each('a marker forged from what the pack prints, without the run\'s secret: REUSE and the verify step refuse it, nothing touched, nothing dropped', async (t) => {
  // What a bystander can know: the RUN_ID, the plan hash (printed in refusal lines), the
  // shared token "distributed", and the marker's format; not RUN_SECRET.
  const forgeries = [
    { tool: 'k6-writepath', run: null, token: 'distributed', plan: 'insert-vs-overwrite-003aed4c' },
    (runId) => markerFor(t.noun(runId), { run: runId, token: 'distributed', state: 'kept', secret: 'a-guess-at-the-secret-0000' }),
    (runId) => markerFor(t.noun(runId), { run: runId, state: 'kept', secret: 'a-guess-at-the-secret-0000' }),
  ];
  for (const [i, forge] of forgeries.entries()) {
    const runId = uniqueRunId(`cg${i}`);
    const marker = typeof forge === 'function' ? forge(runId) : { ...forge, run: runId };
    await t.foreign(runId, t.name === 'postgres' ? json(marker) : marker);
    const before = await t.fingerprint(runId);
    for (const knobs of [{ DISTRIBUTED: 'verify' }, { REUSE: '1' }, { REUSE: 'recreate' }]) {
      const r = await runK6(E1(t.name), { ...t.env(), ...small, ...knobs }, { runId });
      assert.equal(r.code, 108, `${json(knobs)}: ${explain(r)}`);
      assert.equal(errorLines(r).length, 1, r.stderr);
      assert.match(errorLines(r)[0], new RegExp(`${t.noun(runId)} carries a k6-writepath marker for RUN_ID=${runId} that this run cannot prove is its own \\((no proof|made with another RUN_SECRET)[^)]*\\): refusing to touch it;.* drop it yourself once you have looked at it: `));
      assert.equal(await t.fingerprint(runId), before, `${json(knobs)}: not one document, collection or marker changed; not dropped`);
    }
    await t.remove(runId);
  }
});

each('REUSE with other settings is refused; REUSE=recreate recreates; the report shows the object as it is', async (t) => {
  const runId = uniqueRunId('cr');
  const kn = { postgres: ['PG_INDEXES', '2', 'f0+f1'], arangodb: ['ARANGO_INDEXES', '2', 'f0+f1'], ravendb: ['RAVEN_INDEXES', '2', 'f0+f1 (collection Users)'], mongodb: ['MONGO_INDEXES', '2', 'f0+f1'] }[t.name];
  const first = await runK6(E1(t.name), { ...t.env(), ...small, [kn[0]]: kn[1], KEEP: '1' }, { runId });
  assert.equal(first.code, 0, explain(first));
  assert.equal(first.summary.server.settings[kn[0]], kn[2], 'read back from the server');
  const kept = await t.fingerprint(runId);
  const refused = await runK6(E1(t.name), { ...t.env(), ...small, REUSE: '1' }, { runId });
  assert.equal(refused.code, 108, explain(refused));
  assert.match(errorLines(refused)[0], new RegExp(`${kn[0]} is ${kn[2].replace(/[()+]/g, '\\$&')} there, the plan says 0\\).*REUSE=recreate`));
  assert.equal(await t.fingerprint(runId), kept, 'untouched');
  const same = await runK6(E1(t.name), { ...t.env(), ...small, [kn[0]]: kn[1], REUSE: '1', KEEP: '1' }, { runId });
  assert.equal(same.code, 0, explain(same));
  assert.equal(same.summary.verification.found, same.summary.verification.expected, 'emptied before the run');
  assert.equal(same.summary.server.reused, true);
  const again = await runK6(E1(t.name), { ...t.env(), ...small, REUSE: 'recreate' }, { runId });
  assert.equal(again.code, 0, explain(again));
  assert.equal(again.summary.server.settings[kn[0]], '0', 'the recreated object has the new settings');
  assert.equal(again.summary.verification.found, again.summary.verification.expected);
  assert.equal(await t.fingerprint(runId), 'absent', 'dropped by its own run');
});

each('a second run with the same RUN_ID while the first runs, with or without REUSE=1, is refused and touches nothing; the first finishes OK', async (t) => {
  const runId = uniqueRunId('cc');
  let server = null;
  let env = t.env();
  let first;
  let release = null;
  if (t.name === 'postgres') {
    first = startK6(E1(t.name), { ...env, PHASES: 'load', DOCS: '100000', BATCH_SIZE: '1000' }, { runId });
    await first.waitFor(/writing to table/);
    release = await t.hold(runId);
  } else if (t.name === 'mongodb') {
    // The server holds each of the pack's inserts 150 ms (its own fail point).
    await t.slow(150);
    first = startK6(E1(t.name), { ...env, PHASES: 'load', DOCS: '8000', BATCH_SIZE: '100', VUS: '1' }, { runId });
    await first.waitFor(/writing to database/);
    release = () => t.fast();
  } else {
    // A test server that answers slowly keeps the first run busy while the second starts.
    server = await startTestServer(t.name, [...(t.name === 'arangodb' ? ['-no-auth'] : []), '-latency-ms', '150']);
    env = t.name === 'arangodb' ? { ARANGO_URL: server.url } : { RAVEN_URL: server.url };
    first = startK6(E1(t.name), { ...env, PHASES: 'load', DOCS: '8000', BATCH_SIZE: '100', VUS: '1' }, { runId });
    await first.waitFor(/writing to (table|database)/);
  }
  const second = await runK6(E1(t.name), { ...env, ...small }, { runId });
  // The same RUN_ID and REUSE=1 (docs/reliability.md): the first one's marker says running, so
  // the second refuses instead of emptying what the first still writes to.
  const reuse = await runK6(E1(t.name), { ...env, ...small, REUSE: '1' }, { runId });
  if (release && t.name !== 'mongodb') await release();
  assert.equal(second.code, 108, explain(second));
  assert.equal(errorLines(second).length, 1, second.stderr);
  assert.match(errorLines(second)[0], /already exists \(made by k6-writepath for RUN_ID=\w+: kept by an earlier run, or in use by a running one\)/);
  assert.equal(reuse.code, 108, explain(reuse));
  assert.equal(errorLines(reuse).length, 1, reuse.stderr);
  if (release && t.name === 'mongodb') await release();
  assert.match(errorLines(reuse)[0], /is in use by another process with RUN_ID=\w+ \(its marker says running; .*\): REUSE=1 empties only objects a finished run kept; .*drop it yourself once you have looked at it: /);
  const r = await first.done;
  assert.equal(r.code, 0, `the first run must not notice the second: ${explain(r)}`);
  assert.equal(r.summary.verification.found, r.summary.verification.expected);
  assert.match(r.stderr + r.stdout, /: dropped/);
  if (server) await server.stop();
});

each('the run\'s object dropped during the run: the batch that found out is counted, one line, exit 108', async (t) => {
  const runId = uniqueRunId('cd');
  let server = null;
  let env = t.env();
  let run;
  if (t.name === 'postgres') {
    run = startK6(E1(t.name), { ...env, PHASES: 'load', DOCS: '100000', BATCH_SIZE: '1000', VUS: '1' }, { runId });
    await run.waitFor(/writing to table/);
    const release = await t.hold(runId);
    await release(true);
  } else if (t.name === 'mongodb') {
    await t.slow(100);
    try {
      run = startK6(E1(t.name), { ...env, PHASES: 'load', DOCS: '8000', BATCH_SIZE: '100', VUS: '1' }, { runId });
      await run.waitFor(/writing to database/);
      await new Promise((res) => setTimeout(res, 500));
      await t.dropNow(runId);
      await run.done;
    } finally {
      await t.fast();
    }
  } else {
    server = await startTestServer(t.name, [...(t.name === 'arangodb' ? ['-no-auth'] : []), '-latency-ms', '100']);
    env = t.name === 'arangodb' ? { ARANGO_URL: server.url } : { RAVEN_URL: server.url };
    run = startK6(E1(t.name), { ...env, PHASES: 'load', DOCS: '8000', BATCH_SIZE: '100', VUS: '1' }, { runId });
    await run.waitFor(/writing to database/);
    await new Promise((res) => setTimeout(res, 500));
    await { arangodb: arango, ravendb: raven }[t.name](server).dropNow(runId);
  }
  const r = await run.done;
  assert.equal(r.code, 108, explain(r));
  const aborted = errorLines(r).filter((l) => /test aborted/.test(l));
  assert.equal(aborted.length, 1, r.stderr);
  assert.match(aborted[0], t.gone);
  const load = r.summary.phases.find((p) => p.phase === 'load');
  if (t.name === 'mongodb') {
    // Counted per document: a drop inside a batch leaves the operations before it written.
    assert.ok(load.docs_failed >= 1, `the revealing batch is counted: ${json(load)}`);
  } else {
    assert.ok(load.docs_failed >= (t.name === 'postgres' ? 1000 : 100), `the revealing batch is counted: ${json(load)}`);
    assert.equal(load.docs_failed % (t.name === 'postgres' ? 1000 : 100), 0, 'whole batches');
  }
  if (t.dropReason) assert.ok(load.failed_by_reason[t.dropReason] >= 1, json(load.failed_by_reason));
  assert.equal(load.batches * (t.name === 'postgres' ? 1000 : 100), load.docs_ok + load.docs_failed, 'every batch sent is counted');
  if (server) await server.stop();
});

// The HTTP targets lose their server: each VU backs off (0.5 s, doubling, at most 4 s), the
// failed batches are counted with reason connection, and the run ends when the server is back
// without the run's database. (PostgreSQL: test/integration/pg-faults.test.mjs restarts a
// private server under a run.)
for (const name of ['arangodb', 'ravendb']) {
  test(`${name}: the server lost during the run: failures counted as connection, VUs back off, few log lines`, async () => {
    const extra = name === 'arangodb' ? ['-no-auth'] : [];
    let server = await startTestServer(name, [...extra, '-latency-ms', '50']);
    const port = new URL(server.url).port;
    const env = name === 'arangodb' ? { ARANGO_URL: server.url } : { RAVEN_URL: server.url };
    const runId = uniqueRunId('cl');
    const run = startK6(E1(name), { ...env, PHASES: 'load', DOCS: '20000', BATCH_SIZE: '100', VUS: '2' }, { runId });
    await run.waitFor(/writing to database/);
    await new Promise((res) => setTimeout(res, 300));
    server.proc.kill('SIGKILL');
    const downAt = Date.now();
    await new Promise((res) => setTimeout(res, 4000));
    // The same port again, a fresh server: the run's database is not there any more.
    const again = spawn(testServerBinary(name), ['-addr', `127.0.0.1:${port}`, ...extra], { stdio: 'ignore' });
    const downS = (Date.now() - downAt) / 1000;
    const r = await run.done;
    again.kill('SIGTERM');
    assert.equal(r.code, 108, `the restarted server has no run database: ${explain(r)}`);
    const load = r.summary.phases.find((p) => p.phase === 'load');
    const conn = load.failed_by_reason.connection || 0;
    assert.ok(conn >= 100, `connection failures counted: ${json(load)}`);
    // Back-off: with pauses of 0.5, 1, 2, 4 s a VU makes at most 1 + log2(downS / 0.5) + downS / 4
    // attempts while the server is down (fewer on a slow machine, never more).
    const perVu = 2 + Math.ceil(Math.log2(Math.max(1, downS / 0.5))) + Math.ceil(downS / 4);
    assert.ok(conn / 100 <= 2 * perVu, `${conn / 100} failed batches in ${downS.toFixed(1)} s of outage: more than ${2 * perVu}, no back-off?`);
    const lines = r.stderr.split('\n').filter((l) => /level=(error|warning)/.test(l));
    assert.ok(lines.length <= 2 * perVu + 6, `a few lines, not one per request: ${lines.length}\n${r.stderr}`);
  });
}

// The verify step of a distributed run did not write the objects it verifies: one whose count
// is not the instances' plan is evidence, not the run's to throw away.
test('postgres: the verify step leaves an object whose count contradicts the plan in place, naming the command to drop it', async () => {
  const runId = uniqueRunId('cv');
  const env = { PG_URL: pgUrl, ...small };
  const instance = await runK6(E1('postgres'), { ...env, DISTRIBUTED: '1' }, { runId });
  assert.equal(instance.code, 0, explain(instance));
  await q(`DELETE FROM k6wp_${runId} WHERE key IN (SELECT key FROM k6wp_${runId} ORDER BY key LIMIT 7)`);
  const v = await runK6(E1('postgres'), { ...env, DISTRIBUTED: 'verify' }, { runId });
  assert.equal(v.code, 99, explain(v));
  const verification = JSON.parse(readFileSync(path.join(v.dir, 'verify-summary.json'), 'utf8')).verification;
  // The verify step wrote nothing: no table of zeros, a line saying where the phases are.
  assert.match(v.stdout, /^phases: written by the instances, not by this verify step/m);
  assert.doesNotMatch(v.stdout, /^(load|overwrite|mixed) +(insert|upsert) /m);
  assert.equal(verification.found, verification.expected - 7);
  assert.match(v.stdout + v.stderr, new RegExp(`table public\\.k6wp_${runId}: left in place: it holds ${verification.found} documents where the instances' plan writes ${verification.expected}, so this run does not vouch for its content; drop it yourself once you have looked at it: psql \\\\"\\$PG_URL\\\\" -c 'DROP TABLE \\\\"public\\\\"\\.k6wp_${runId}'`));
  assert.equal(Number(await q(`SELECT count(*) FROM k6wp_${runId}`)), verification.found, 'not dropped');
  assert.equal(JSON.parse(await q(`SELECT obj_description('k6wp_${runId}'::regclass, 'pg_class')`)).state, 'kept');
  await pg.remove(runId);
});
