// The official RavenDB Python client (ravendb 7.2.7 from PyPI, venv built by `make python-deps`)
// runs its whole flow against the RavenDB API test server: create database, static index,
// session store/load, an optimistic-concurrency conflict, bulk insert plain and gzip,
// statistics, delete. test/python/ravendb_client_flow.py uses the client's public API only
// and prints what each step observed; the values are asserted here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { repoRoot, startTestServer } from '../helpers/testserver.mjs';

const python = path.join(repoRoot, '.run', 'py', 'bin', 'python');
const flow = path.join(repoRoot, 'test', 'python', 'ravendb_client_flow.py');

test('the official Python client (ravendb 7.2.7) passes its flow against the RavenDB test server', async () => {
  assert.ok(existsSync(python), `${python} is missing: run "make python-deps" (make test does it for you)`);
  const version = spawnSync(python, ['-c', 'import importlib.metadata as m; print(m.version("ravendb"))'], { encoding: 'utf8' });
  assert.equal(version.stdout.trim(), '7.2.7', version.stderr);

  const srv = await startTestServer('ravendb', ['-version', '7.1.2']);
  try {
    const r = spawnSync(python, [flow, srv.url, 'pyflow'], { encoding: 'utf8', timeout: 120000 });
    assert.equal(r.status, 0, `client flow failed:\n${r.stderr}`);
    const out = JSON.parse(r.stdout);
    // create-database: the client parses the topology of the answer (DatabaseTopologyIdBase64 …)
    assert.equal(out.create.name, 'pyflow');
    assert.deepEqual(out.create.members, ['A']);
    assert.equal(out.create.replication_factor, 1);
    assert.match(out.create.topology_id, /^[A-Za-z0-9+/]{22}$/);
    assert.deepEqual(out.index, { put: ['Users/ByEmail'], names: ['Users/ByEmail'] });
    assert.deepEqual(out.load, { name: 'Ada', age: 36, missing_is_none: true });
    // the second session's save fails with the client's ConcurrencyException; the first one's change stays
    assert.deepEqual(out.concurrency, { second_save: 'ConcurrencyException', age_after: 37 });
    assert.deepEqual(out.bulk, { plain_999: 'plain999', gzip_499: 'gzip499' });
    assert.deepEqual(out.stats, { documents: 1502, indexes: 1, collections: { Users: 1502 } });
    assert.deepEqual(out.delete_doc, { users_2_is_none: true });
    assert.deepEqual(out.delete_db, { raft_index_positive: true });
    // the database is gone: the server lists none
    const list = await (await fetch(`${srv.url}/databases?namesOnly=true`)).json();
    assert.deepEqual(list.Databases, []);
  } finally {
    await srv.stop();
  }
});
