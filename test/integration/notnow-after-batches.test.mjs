// "Not now" answers after the batches: a server that refuses before doing anything (RavenDB 503
// NodeIsPassiveException, ArangoDB 503 errorNum 503) while the run verifies and drops what it
// wrote. The set-up, teardown and verification requests wait it out within GIVE_UP with one
// line (lib/targets/lifecycle.js patiently); a refusal that outlasts GIVE_UP leaves the
// database in place with the line that says how to drop it. The real bin/k6 against the API
// test servers; their fault notNow (test/servers/internal/notnow) opens the window at a chosen
// request, so it falls over the teardown whatever the machine's speed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { k6Bin, runK6 } from '../helpers/k6.mjs';
import { repoRoot, setTestServerFaults, withTestServer } from '../helpers/testserver.mjs';

const withServer = withTestServer;

const faults = setTestServerFaults;

const out = (res) => `${res.stdout}\n${res.stderr}`;
const waits = (res, name) => res.stderr.match(new RegExp(`k6-writepath: ${name} refused [^"]* for now \\([^"]*\\): nothing was done; waiting and sending it again within GIVE_UP=`, 'g')) || [];

async function ravenDatabaseExists(url, db) {
  const r = await fetch(`${url}/admin/databases?name=${db}`);
  await r.arrayBuffer();
  return r.status === 200;
}

async function arangoDatabases(url) {
  const r = await fetch(`${url}/_api/database`);
  return (await r.json()).result;
}

const RAVEN_E1 = { DOCS: '3000', BATCH_SIZE: '300', VUS: '2', OVERWRITE_BATCHES: '6', MIXED_BATCHES: '4', MIXED_NEW_PERCENT: '50', READBACK: '500' };

test('RavenDB passive from the count on: the count, the read-back and the teardown wait the window out; verified, dropped, one waiting line', async () => {
  await withServer('ravendb', [], async (srv) => {
    // The window opens at the count (the first GET collections/stats of the run) and covers
    // the read-back and the teardown's reads after it.
    await faults(srv.url, { notNow: { on: 'GET collections/stats', ms: 2500 } });
    const res = await runK6('scenarios/ravendb/insert-vs-overwrite.js', { RAVEN_URL: srv.url, ...RAVEN_E1 });
    assert.equal(res.code, 0, out(res));
    assert.equal(res.summary.verification.found, 3600, out(res));
    assert.equal(res.summary.verification.count_ok, true, out(res));
    assert.equal(res.summary.verification.readback_stale_or_missing, 0, out(res));
    assert.equal(waits(res, 'RavenDB').length, 1, out(res));
    assert.match(res.stderr, /RavenDB refused GET collections\/stats for now \(503 Raven\.Client\.Exceptions\.Cluster\.NodeIsPassiveException: Can't perform actions on the database 'k6wp_[^']+' while the node is passive\.\)/, out(res));
    assert.match(res.stderr, new RegExp(`msg="k6-writepath: database k6wp_${res.runId}[^"]*: dropped"`), out(res));
    assert.equal(await ravenDatabaseExists(srv.url, `k6wp_${res.runId}`), false);
  });
});

test('RavenDB passive at the teardown\'s DELETE: sent again after the window, dropped, one waiting line', async () => {
  await withServer('ravendb', [], async (srv) => {
    await faults(srv.url, { notNow: { on: 'DELETE /admin/databases', ms: 2000 } });
    const res = await runK6('scenarios/ravendb/bulk-insert.js', { RAVEN_URL: srv.url, STAGES: '1s:1', BATCH_SIZE: '500', DOC_POOL: '100' });
    assert.equal(res.code, 0, out(res));
    assert.equal(res.summary.verification.count_ok, true, out(res));
    assert.deepEqual(waits(res, 'RavenDB').length, 1, out(res));
    assert.match(res.stderr, /RavenDB refused DELETE \/admin\/databases for now \(503 Raven\.Client\.Exceptions\.Cluster\.NodeIsPassiveException/, out(res));
    assert.match(res.stderr, new RegExp(`msg="k6-writepath: database k6wp_${res.runId}[^"]*: dropped"`), out(res));
    assert.equal(await ravenDatabaseExists(srv.url, `k6wp_${res.runId}`), false);
  });
});

test('RavenDB passive at the DELETE for longer than GIVE_UP: NOT dropped, left in place with how to drop it; the run\'s verdict as without the window', async () => {
  await withServer('ravendb', [], async (srv) => {
    await faults(srv.url, { notNow: { on: 'DELETE /admin/databases', ms: 600000 } });
    const res = await runK6('scenarios/ravendb/bulk-insert.js', { RAVEN_URL: srv.url, STAGES: '1s:1', BATCH_SIZE: '500', DOC_POOL: '100', GIVE_UP: '2s' });
    const db = `k6wp_${res.runId}`;
    assert.equal(res.code, 0, out(res));
    assert.equal(res.summary.verification.count_ok, true, out(res));
    assert.equal(waits(res, 'RavenDB').length, 1, out(res));
    assert.match(res.stderr, new RegExp(`msg="k6-writepath: database ${db}[^"]*: NOT dropped: 503 Raven\\.Client\\.Exceptions\\.Cluster\\.NodeIsPassiveException: Can't perform actions on the databases while the node is passive\\.; drop it yourself once you have looked at it: curl -X DELETE ${srv.url}/admin/databases`), out(res));
    await faults(srv.url, { notNow: { on: '', ms: 0 } });
    assert.equal(await ravenDatabaseExists(srv.url, db), true, 'left in place');
    const d = await fetch(`${srv.url}/admin/databases`, { method: 'DELETE', body: JSON.stringify({ DatabaseNames: [db], HardDelete: true }) });
    assert.equal(d.status, 200);
  });
});

test('ArangoDB in maintenance mode at the teardown: its requests wait the window out; dropped, one waiting line', async () => {
  await withServer('arangodb', ['-no-auth'], async (srv) => {
    // The teardown lists the run's collections before it drops the database.
    await faults(srv.url, { notNow: { on: 'GET /_api/collection', ms: 2000 } });
    const res = await runK6('scenarios/arangodb/insert-vs-overwrite.js', { ARANGO_URL: srv.url, DOCS: '2000', BATCH_SIZE: '500', VUS: '1', OVERWRITE_BATCHES: '2', MIXED_BATCHES: '2' });
    assert.equal(res.code, 0, out(res));
    assert.equal(res.summary.verification.count_ok, true, out(res));
    assert.equal(waits(res, 'ArangoDB').length, 1, out(res));
    assert.match(res.stderr, /ArangoDB refused GET \/_api\/collection for now \(503 errorNum 503: service unavailable due to startup or maintenance mode\)/, out(res));
    assert.match(res.stderr, new RegExp(`msg="k6-writepath: database k6wp_${res.runId}[^"]*: dropped"`), out(res));
    assert.ok(!(await arangoDatabases(srv.url)).includes(`k6wp_${res.runId}`), 'dropped');
  });
});

test('ArangoDB in maintenance mode at the teardown for longer than GIVE_UP: NOT dropped, left in place with how to drop it', async () => {
  await withServer('arangodb', ['-no-auth'], async (srv) => {
    await faults(srv.url, { notNow: { on: 'GET /_api/collection', ms: 600000 } });
    const res = await runK6('scenarios/arangodb/insert-vs-overwrite.js', { ARANGO_URL: srv.url, DOCS: '2000', BATCH_SIZE: '500', VUS: '1', OVERWRITE_BATCHES: '2', MIXED_BATCHES: '2', GIVE_UP: '2s' });
    const db = `k6wp_${res.runId}`;
    assert.equal(res.code, 0, out(res));
    assert.equal(res.summary.verification.count_ok, true, out(res));
    assert.equal(waits(res, 'ArangoDB').length, 1, out(res));
    assert.match(res.stderr, new RegExp(`msg="k6-writepath: database ${db}[^"]*: NOT dropped: list the collections of ${db}: 503 errorNum 503: service unavailable due to startup or maintenance mode; drop it yourself once you have looked at it: curl `), out(res));
    await faults(srv.url, {});
    assert.ok((await arangoDatabases(srv.url)).includes(db), 'left in place');
    const d = await fetch(`${srv.url}/_api/database/${db}`, { method: 'DELETE' });
    assert.equal(d.status, 200);
  });
});

// Setup and teardown may each wait out a "not now" window of up to GIVE_UP: k6's own timeouts of
// setup() and teardown() (as k6 resolves the options) leave room for it beyond their base.
test('k6\'s setup and teardown timeouts grow with GIVE_UP, so a wait within GIVE_UP is not cut by k6', () => {
  const inspect = (scenario, env) => {
    const r = spawnSync(k6Bin, ['inspect', ...Object.entries({ GATEWAY_URL: 'http://127.0.0.1:9', ...env }).flatMap(([k, v]) => ['-e', `${k}=${v}`]), scenario], { cwd: repoRoot, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const o = JSON.parse(r.stdout);
    return [o.setupTimeout, o.teardownTimeout];
  };
  assert.deepEqual(inspect('scenarios/postgres/insert-vs-overwrite.js', { GIVE_UP: '300s' }), ['7m0s', '15m0s']);
  assert.deepEqual(inspect('scenarios/ravendb/insert-vs-overwrite.js', { GIVE_UP: '1h' }), ['1h2m0s', '1h10m0s']);
  assert.deepEqual(inspect('scenarios/arangodb/insert-vs-overwrite.js', {}), ['3m0s', '11m0s']);
});
