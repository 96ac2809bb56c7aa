// Scale-out (docs/scale-out.md): one scenario as 3 concurrent k6 processes with execution
// segments 0:1/3, 1/3:2/3, 2/3:1 (what 3 machines or 3 k6-operator runners do), then the
// verify step. The union must be exact (no overlap, no gap), the overwrite read-back must hold,
// and the merged table from InfluxDB must add up to the instances' own summaries. Also: a
// segmented run without DISTRIBUTED refuses, a verify step with other knobs refuses, the E4
// bulk insert on the RavenDB test server, k6 archives, and the k6-operator manifests.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { k6Bin, localEnv, psql, uniqueRunId } from '../helpers/k6.mjs';
import { repoRoot, startTestServer } from '../helpers/testserver.mjs';
import { startGateway } from '../helpers/gateway.mjs';
import { closeMongo, databases, dropDatabase, mongo } from '../helpers/mongo.mjs';
import { KNOBS } from '../../lib/config.js';

const env = localEnv();
const SEGMENTS = ['0:1/3', '1/3:2/3', '2/3:1'];
const SEQUENCE = '0,1/3,2/3,1';
const E1 = 'scenarios/postgres/insert-vs-overwrite.js';
const E1_KNOBS = { DOCS: '6000', BATCH_SIZE: '500', VUS: '3', OVERWRITE_BATCHES: '12', MIXED_BATCHES: '6', MIXED_NEW_PERCENT: '50' };
const resultsDir = mkdtempSync(path.join(tmpdir(), 'k6wp-scaleout-'));

function run(cmd, args, extraEnv, timeoutMs = 240000) {
  const child = spawn(cmd, args, {
    cwd: repoRoot,
    env: { ...process.env, K6_NO_USAGE_REPORT: 'true', K6_AUTO_EXTENSION_RESOLUTION: 'false', RESULTS_DIR: resultsDir, PWD: repoRoot, ...extraEnv },
  });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { out += d; });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`${cmd} did not finish:\n${out}`)); }, timeoutMs);
    child.on('exit', (code) => { clearTimeout(timer); resolve({ code, out }); });
  });
}

// One instance = what scripts/run-distributed (or the operator) starts on machine i.
function instance(scenario, i, runId, knobs, extraEnv = {}, distributed = '1') {
  const e = Object.entries({ ...knobs, RUN_ID: runId, ...(distributed ? { DISTRIBUTED: distributed } : {}) }).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  return run(path.join(repoRoot, 'scripts', 'run'), [scenario, '--quiet', '--address=', '--execution-segment', SEGMENTS[i - 1],
    '--execution-segment-sequence', SEQUENCE, '--tag', `instance_id=${i}`, ...e], extraEnv);
}

function verifyStep(scenario, runId, knobs, extraEnv = {}) {
  const e = Object.entries({ ...knobs, RUN_ID: runId }).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  return run(path.join(repoRoot, 'scripts', 'verify-distributed'), [scenario, '--quiet', '--address=', ...e], { INSTANCES: '3', ...extraEnv });
}

const readJson = (runId, f) => JSON.parse(readFileSync(path.join(resultsDir, runId, f), 'utf8'));
const tableExists = async (runId) => (await psql(env.PG_URL, `SELECT count(*) FROM pg_class WHERE relname = 'k6wp_${runId}'`)) === '1';

after(async () => { rmSync(resultsDir, { recursive: true, force: true }); await closeMongo(); });

test('E1 on PostgreSQL as 3 segmented k6 processes: the union is exact, read-back holds, the merged table adds up', async () => {
  const runId = uniqueRunId('so');
  try {
    const results = await Promise.all([1, 2, 3].map((i) => instance(E1, i, runId, E1_KNOBS)));
    results.forEach((r, i) => assert.equal(r.code, 0, `instance ${i + 1}:\n${r.out}`));
    const parts = [1, 2, 3].map((i) => readJson(runId, `instance-${i}-summary.json`));

    // The database's own view, before the verify step drops the table.
    const t = `k6wp_${runId}`;
    const docs = Number(E1_KNOBS.DOCS);
    const newPer = Number(E1_KNOBS.BATCH_SIZE) * Number(E1_KNOBS.MIXED_NEW_PERCENT) / 100;
    const expected = docs + Number(E1_KNOBS.MIXED_BATCHES) * newPer;
    assert.equal(Number(await psql(env.PG_URL, `SELECT count(*) FROM ${t}`)), expected, 'count = DOCS + new keys of the mixed phase');
    // No gap: every key K0..K(DOCS-1) is there; no stray key outside the plan.
    const missing = await psql(env.PG_URL, `SELECT count(*) FROM generate_series(0, ${docs - 1}) g WHERE NOT EXISTS (SELECT 1 FROM ${t} WHERE key = 'K' || g)`);
    assert.equal(missing, '0', 'no load key is missing');
    const stray = await psql(env.PG_URL, `SELECT count(*) FROM ${t} WHERE substr(key, 2)::int8 >= ${expected}`);
    assert.equal(stray, '0', 'no key outside [0, DOCS + mixed new keys)');
    // No overlap: each load key was inserted by exactly one instance (insert fails on a
    // duplicate key, and no instance reported a failed document), and the load phase's
    // acknowledged documents add up to DOCS exactly.
    const load = parts.map((s) => s.phases.find((p) => p.phase === 'load'));
    assert.deepEqual(load.map((p) => p.docs_failed), [0, 0, 0]);
    assert.equal(load.reduce((a, p) => a + p.docs_ok, 0), docs);
    for (const s of parts) assert.ok(s.phases.every((p) => p.docs_failed === 0), JSON.stringify(s.phases));
    assert.ok(parts.every((s) => s.phases.find((p) => p.phase === 'load').batches > 0), 'every instance loaded its share');

    // A verify step started with other workload knobs must refuse and leave the table alone.
    const wrong = await verifyStep(E1, runId, { ...E1_KNOBS, SEED: '7' });
    assert.notEqual(wrong.code, 0, wrong.out);
    assert.match(wrong.out, /other workload knobs/);
    assert.ok(await tableExists(runId), 'a refused verify step keeps the table');

    const v = await verifyStep(E1, runId, E1_KNOBS);
    assert.equal(v.code, 0, v.out);
    assert.match(v.out, new RegExp(`teardown found ${expected} documents \\(the plan writes ${expected}\\); the instances' VUs read back their overwritten keys after their last batch`));
    assert.equal(await tableExists(runId), false, 'the verify step drops the table');

    const merged = readJson(runId, 'merged-summary.json');
    assert.deepEqual(merged.instances, ['1', '2', '3']);
    assert.equal(merged.test_endpoint, false, 'a real PostgreSQL is no test endpoint');
    for (const phase of ['load', 'overwrite', 'mixed']) {
      const m = merged.phases.find((p) => p.phase === phase);
      const sum = (k) => parts.reduce((a, s) => a + s.phases.find((p) => p.phase === phase)[k], 0);
      assert.equal(m.batches, sum('batches'), `${phase}: batches = sum of the instances'`);
      assert.equal(m.docs_ok, sum('docs_ok'), `${phase}: docs ok = sum of the instances'`);
      assert.ok(m.batch_ms.p99 >= m.batch_ms.p50 && m.batch_ms.max >= m.batch_ms.p99 && m.docs_per_s > 0, JSON.stringify(m));
    }
    assert.equal(merged.phases.find((p) => p.phase === 'load').docs_ok, docs);
    assert.equal(merged.phases.find((p) => p.phase === 'overwrite').batches, Number(E1_KNOBS.OVERWRITE_BATCHES));
    assert.equal(merged.verification.ok, true);
    // The read-back: every instance's VUs read their own keys back (lib/readback.js); the
    // merge adds up their counts (READBACK=1000 positions by default, split among the VUs).
    assert.ok(merged.verification.readback_checked > 0 && merged.verification.readback_checked <= 1000, JSON.stringify(merged.verification));
    assert.equal(merged.verification.readback_stale, 0);
    assert.ok(merged.thresholds.length > 0 && merged.thresholds.every((c) => c.ok), JSON.stringify(merged.thresholds));
    assert.match(readFileSync(path.join(resultsDir, runId, 'merged-summary.txt'), 'utf8'), /thresholds \(whole run\): all \d+ passed/);
  } finally {
    await psql(env.PG_URL, `DROP TABLE IF EXISTS k6wp_${runId}`);
  }
});

test('E1 on MongoDB as 3 segmented k6 processes: they join one database, the union is exact, verify drops it', async () => {
  const runId = uniqueRunId('som');
  const scenario = 'scenarios/mongodb/insert-vs-overwrite.js';
  const knobs = { ...E1_KNOBS }; // MONGO_URL: .run/env, read by scripts/run and verify-distributed
  try {
    const results = await Promise.all([1, 2, 3].map((i) => instance(scenario, i, runId, knobs)));
    results.forEach((r, i) => assert.equal(r.code, 0, `instance ${i + 1}:\n${r.out}`));
    const parts = [1, 2, 3].map((i) => readJson(runId, `instance-${i}-summary.json`));
    const docs = Number(E1_KNOBS.DOCS);
    const expected = docs + Number(E1_KNOBS.MIXED_BATCHES) * Number(E1_KNOBS.BATCH_SIZE) * Number(E1_KNOBS.MIXED_NEW_PERCENT) / 100;
    const coll = (await mongo(env.MONGO_URL)).db(`k6wp_${runId}`).collection('docs');
    assert.equal(await coll.countDocuments(), expected, 'the database\'s own count');
    assert.equal(await coll.countDocuments({ w: 'l' }) + await coll.countDocuments({ w: { $ne: 'l' } }), expected);
    for (const s of parts) assert.ok(s.phases.every((p) => p.docs_failed === 0), JSON.stringify(s.phases));
    assert.equal(parts.reduce((a, s) => a + s.phases.find((p) => p.phase === 'load').docs_ok, 0), docs, 'no overlap, no gap');
    const v = await verifyStep(scenario, runId, knobs);
    assert.equal(v.code, 0, v.out);
    assert.match(v.out, new RegExp(`teardown found ${expected} documents \\(the plan writes ${expected}\\)`));
    assert.ok(!(await databases(env.MONGO_URL)).includes(`k6wp_${runId}`), 'the verify step drops the database');
    const merged = readJson(runId, 'merged-summary.json');
    assert.equal(merged.verification.ok, true);
    assert.equal(merged.verification.readback_stale, 0);
  } finally {
    await dropDatabase(env.MONGO_URL, `k6wp_${runId}`);
  }
});

test('a crossed whole-run threshold exits 99 from the merge', async () => {
  // Reuses nothing: a tiny 3-instance run, then the merge against a 0 ms p99 limit.
  const runId = uniqueRunId('sq');
  const knobs = { DOCS: '1500', BATCH_SIZE: '500', VUS: '3', OVERWRITE_BATCHES: '3', MIXED_BATCHES: '0' };
  try {
    const results = await Promise.all([1, 2, 3].map((i) => instance(E1, i, runId, knobs)));
    results.forEach((r) => assert.equal(r.code, 0, r.out));
    const v = await verifyStep(E1, runId, { ...knobs, THRESHOLDS: 'test/integration/fixtures/scale-out-impossible.json' });
    assert.equal(v.code, 99, v.out);
    assert.match(v.out, /✗ load batch p99 <= 0 ms/);
  } finally {
    await psql(env.PG_URL, `DROP TABLE IF EXISTS k6wp_${runId}`);
  }
});

test('a segmented run without DISTRIBUTED=1 refuses before writing', async () => {
  const runId = uniqueRunId('sn');
  const r = await instance(E1, 2, runId, { DOCS: '1500', BATCH_SIZE: '500', VUS: '3' }, {}, null);
  assert.equal(r.code, 108, r.out);
  assert.match(r.out, /test aborted: k6-writepath: --execution-segment \S+ needs DISTRIBUTED=1 and the same explicit RUN_ID/);
  assert.equal(await tableExists(runId), false);
});

test('E4 bulk insert on the RavenDB test server as 3 segmented processes: ids disjoint, found = acknowledged', async () => {
  const srv = await startTestServer('ravendb');
  const runId = uniqueRunId('sr');
  const knobs = { RAVEN_URL: srv.url, STAGES: '2s:3,2s:6', BATCH_SIZE: '100', DOC_POOL: '200' };
  try {
    const results = await Promise.all([1, 2, 3].map((i) => instance('scenarios/ravendb/bulk-insert.js', i, runId, knobs)));
    results.forEach((r, i) => assert.equal(r.code, 0, `instance ${i + 1}:\n${r.out}`));
    const parts = [1, 2, 3].map((i) => readJson(runId, `instance-${i}-summary.json`));
    const acked = parts.reduce((a, s) => a + s.phases[0].docs_ok, 0);
    assert.ok(acked > 0);
    const v = await verifyStep('scenarios/ravendb/bulk-insert.js', runId, knobs);
    assert.equal(v.code, 0, v.out);
    const merged = readJson(runId, 'merged-summary.json');
    // Bulk insert overwrites silently: a shared id would make found < acknowledged.
    assert.equal(merged.verification.found, acked, JSON.stringify(merged.verification));
    assert.equal(merged.phases[0].docs_ok, acked);
    // the instances wrote to a test server: the merged result is labelled too
    assert.equal(merged.test_endpoint, true);
    assert.match(readFileSync(path.join(resultsDir, runId, 'merged-summary.txt'), 'utf8'), /^k6-writepath · TEST ENDPOINT · merged distributed run/);
    assert.match(v.out, /dropped/);
  } finally {
    await srv.stop();
  }
});

test('E1 on the ArangoDB test server as 3 segmented processes: create-or-join, union exact, verify drops; other knobs refuse to join', async () => {
  const PASSWORD = 'pw-for-tests-only';
  const srv = await startTestServer('arangodb', ['-root-password', PASSWORD]);
  const runId = uniqueRunId('sg');
  const scenario = 'scenarios/arangodb/insert-vs-overwrite.js';
  // Two persistent indexes: every instance creates them (idempotent), none may be doubled.
  const knobs = { ARANGO_URL: srv.url, ARANGO_INDEXES: '2', ...E1_KNOBS };
  const secret = { ARANGO_PASSWORD: PASSWORD };
  const basic = `Basic ${Buffer.from(`root:${PASSWORD}`).toString('base64')}`;
  const api = async (method, p, body) => {
    const res = await fetch(`${srv.url}${p}`, { method, headers: { Authorization: basic }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: await res.json() };
  };
  const dbUrl = `/_db/k6wp_${runId}/_api`;
  const dbExists = async () => (await api('GET', '/_api/database')).body.result.includes(`k6wp_${runId}`);
  try {
    const results = await Promise.all([1, 2, 3].map((i) => instance(scenario, i, runId, knobs, secret)));
    results.forEach((r, i) => assert.equal(r.code, 0, `instance ${i + 1}:\n${r.out}`));
    const parts = [1, 2, 3].map((i) => readJson(runId, `instance-${i}-summary.json`));

    // The server's own view, before the verify step drops the database.
    const docs = Number(E1_KNOBS.DOCS);
    const expected = docs + Number(E1_KNOBS.MIXED_BATCHES) * Number(E1_KNOBS.BATCH_SIZE) * Number(E1_KNOBS.MIXED_NEW_PERCENT) / 100;
    const count = await api('GET', `${dbUrl}/collection/k6wp_${runId}/count`);
    assert.equal(count.body.count, expected, 'count = DOCS + new keys of the mixed phase');
    // No gap: every key K0..K(expected-1) is there; with the count, no stray key either.
    const keys = Array.from({ length: expected }, (_, i) => `K${i}`);
    const got = await api('PUT', `${dbUrl}/document/k6wp_${runId}?onlyget=true`, keys);
    assert.equal(got.status, 200);
    assert.equal(got.body.filter((d) => d && !d.error).length, expected, 'every planned key is stored');
    const idx = await api('GET', `${dbUrl}/index?collection=k6wp_${runId}`);
    assert.deepEqual(idx.body.indexes.filter((i) => i.type === 'persistent').map((i) => i.fields[0]).sort(), ['f0', 'f1']);
    const marker = await api('GET', `${dbUrl}/document/k6wp_meta/owner`);
    assert.deepEqual([marker.body.tool, marker.body.run, marker.body.token], ['k6-writepath', runId, 'distributed']);
    assert.match(marker.body.plan, /^insert-vs-overwrite-[0-9a-f]{8}$/);
    // No overlap, nothing failed: the load phase's acknowledged documents add up to DOCS.
    for (const s of parts) assert.ok(s.phases.every((p) => p.docs_failed === 0), JSON.stringify(s.phases));
    assert.equal(parts.reduce((a, s) => a + s.phases.find((p) => p.phase === 'load').docs_ok, 0), docs);
    assert.ok(parts.every((s) => s.phases.find((p) => p.phase === 'load').batches > 0), 'every instance loaded its share');
    results.forEach((r) => assert.match(r.out, /kept for the other instances/));

    // An instance (or a verify step) started with other workload knobs refuses to join and
    // leaves the database alone.
    for (const other of [{ DOCS: '6500' }, { SEED: '7' }]) {
      const late = await instance(scenario, 2, runId, { ...knobs, ...other }, secret);
      assert.notEqual(late.code, 0, late.out);
      assert.match(late.out, /other workload knobs/);
    }
    const wrong = await verifyStep(scenario, runId, { ...knobs, SEED: '7' }, secret);
    assert.notEqual(wrong.code, 0, wrong.out);
    assert.match(wrong.out, /other workload knobs/);
    assert.ok(await dbExists(), 'a refused instance or verify step keeps the database');
    assert.equal((await api('GET', `${dbUrl}/collection/k6wp_${runId}/count`)).body.count, expected, 'and writes nothing');

    const v = await verifyStep(scenario, runId, knobs, secret);
    assert.equal(v.code, 0, v.out);
    assert.match(v.out, new RegExp(`teardown found ${expected} documents \\(the plan writes ${expected}\\); the instances' VUs read back their overwritten keys after their last batch`));
    assert.match(v.out, /dropped/);
    assert.equal(await dbExists(), false, 'the verify step drops the database');
    const merged = readJson(runId, 'merged-summary.json');
    assert.deepEqual(merged.instances, ['1', '2', '3']);
    assert.equal(merged.phases.find((p) => p.phase === 'load').docs_ok, docs);
    assert.equal(merged.verification.ok, true);

    // Verify never creates: a second verify step finds nothing to verify.
    const again = await verifyStep(scenario, runId, knobs, secret);
    assert.notEqual(again.code, 0, again.out);
    assert.match(again.out, /nothing to verify/);
    assert.equal(await dbExists(), false);
  } finally {
    await srv.stop();
  }
});

test('k6 archive of a scenario carries lib/ and the threshold file, and runs elsewhere', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-archive-'));
  try {
    const tar = path.join(dir, 'e1.tar');
    // A placeholder gateway, as scripts/k8s-archives builds them: k6 stores -e values in the
    // archive, and k6 never holds PG_URL (the gateway does). The archive freezes the run's
    // options, so it is built with the knobs it runs with (k8s-archive.test.mjs shows other
    // knobs at run time refused).
    const knobs = ['-e', 'DOCS=1000', '-e', 'BATCH_SIZE=250', '-e', 'OVERWRITE_BATCHES=2', '-e', 'MIXED_BATCHES=2'];
    const a = spawnSync(k6Bin, ['archive', '--quiet', '-e', 'GATEWAY_URL=http://gateway.set-at-run-time.invalid', ...knobs, '-O', tar, E1], { cwd: repoRoot, encoding: 'utf8' });
    assert.equal(a.status, 0, a.stderr);
    const list = spawnSync('tar', ['tf', tar], { encoding: 'utf8' }).stdout;
    assert.match(list, /thresholds\/postgres\/insert-vs-overwrite\.json/);
    assert.match(list, /lib\/workloads\/insert-vs-overwrite\.js/);
    const meta = spawnSync('tar', ['xOf', tar, 'metadata.json'], { encoding: 'utf8' }).stdout;
    assert.ok(!meta.includes(new URL(env.PG_URL).password), 'the archive holds no password');
    // Elsewhere, as a runner pod runs it: a gateway beside k6 holds PG_URL, k6's environment
    // has only the gateway's URL and token, which win over the archive's placeholder.
    const runId = uniqueRunId('sa');
    const gw = startGateway({ PG_URL: env.PG_URL });
    let r;
    try {
      r = spawnSync(k6Bin, ['run', '--quiet', '--address=', ...knobs, '-e', `RUN_ID=${runId}`, tar],
        { cwd: dir, encoding: 'utf8', env: gw.env({ ...process.env, K6_NO_USAGE_REPORT: 'true' }) });
    } finally {
      gw.stop();
    }
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, /verification: expected 1250, found 1250 — OK/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// A Python with PyYAML that make test guarantees: Debian's python3, whose python3-yaml comes
// with the docker-compose package (make test-deps-compose); the pyenv python may lack it.
const yamlPython = ['/usr/bin/python3', 'python3'].find((py) => spawnSync(py, ['-c', 'import yaml'], { encoding: 'utf8' }).status === 0);

test('k6-operator TestRun manifests: parsed, the fields the operator reads are there', () => {
  assert.ok(yamlPython, 'no python3 with PyYAML: run `make test-deps-compose` (Debian python3-yaml)');
  const files = readdirSync(path.join(repoRoot, 'deploy', 'k8s')).filter((f) => /^testrun-.*\.yaml$/.test(f));
  assert.ok(files.length >= 3, files.join(','));
  const py = spawnSync(yamlPython, ['-c', `import sys, json, yaml
out = {}
for f in sys.argv[1:]:
    docs = list(yaml.safe_load_all(open(f)))
    assert len(docs) == 1, f
    out[f] = docs[0]
print(json.dumps(out))`, ...files.map((f) => path.join(repoRoot, 'deploy', 'k8s', f))], { encoding: 'utf8' });
  assert.equal(py.status, 0, py.stderr);
  const manifests = JSON.parse(py.stdout);
  const secret = spawnSync(yamlPython, ['-c', 'import yaml,sys,json; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))', path.join(repoRoot, 'deploy', 'k8s', 'secret.example.yaml')], { encoding: 'utf8' });
  const secretKeys = Object.keys(JSON.parse(secret.stdout).stringData);
  for (const [file, m] of Object.entries(manifests)) {
    const name = path.basename(file);
    assert.equal(m.apiVersion, 'k6.io/v1alpha1', name);
    assert.equal(m.kind, 'TestRun', name);
    assert.match(m.metadata.name, /^[a-z0-9-]{1,52}$/, `${name}: metadata.name (the operator appends -<i> and suffixes)`);
    assert.ok(Number.isInteger(m.spec.parallelism) && m.spec.parallelism >= 1, name);
    const sources = ['configMap', 'volumeClaim', 'localFile'].filter((k) => m.spec.script[k] !== undefined);
    assert.equal(sources.length, 1, `${name}: exactly one script source`);
    if (m.spec.script.configMap) assert.ok(m.spec.script.configMap.name && m.spec.script.configMap.file, name);
    const args = m.spec.arguments;
    assert.equal(typeof args, 'string', name);
    const runId = /-e RUN_ID=(\S+)/.exec(args)[1];
    assert.match(args, new RegExp(`--tag testid=${runId}(\\s|$)`), `${name}: testid = RUN_ID, the key of the merge`);
    assert.match(args, /--out influxdb=http/, name);
    const dist = /-e DISTRIBUTED=(\S+)/.exec(args)[1];
    assert.ok(dist === '1' || (dist === 'verify' && m.spec.parallelism === 1), `${name}: DISTRIBUTED=${dist} with parallelism ${m.spec.parallelism}`);
    assert.doesNotMatch(args, /PASSWORD=|PG_URL=|MONGO_URL=|TOKEN=/, `${name}: credentials come from the Secret, not arguments`);
    assert.match(m.spec.runner.image, /\S+:\S+/, name);
    const sidecars = m.spec.runner.initContainers || [];
    for (const c of [m.spec.runner, ...sidecars]) {
      for (const e of c.env || []) {
        assert.ok(e.name && (e.value !== undefined || e.valueFrom), `${name}: env ${JSON.stringify(e)}`);
        if (e.valueFrom) assert.ok(secretKeys.includes(e.valueFrom.secretKeyRef.key), `${name}: ${e.name} from a key of the example Secret`);
      }
    }
    // PostgreSQL/MongoDB: each runner pod reaches its database through its own gateway, a native
    // sidecar (an init container with restartPolicy Always, the only extra container k6-operator
    // puts into a runner pod) on the pod's loopback; the database URL is the sidecar's, never k6's.
    const runnerEnv = Object.fromEntries((m.spec.runner.env || []).map((e) => [e.name, e]));
    for (const k of ['PG_URL', 'MONGO_URL']) assert.ok(!runnerEnv[k], `${name}: k6 never gets ${k} (the gateway sidecar does)`);
    const dbUrls = sidecars.flatMap((c) => (c.env || []).map((e) => e.name)).filter((k) => k === 'PG_URL' || k === 'MONGO_URL');
    if (/^testrun-e1-postgres/.test(name)) assert.deepEqual(dbUrls, ['PG_URL'], `${name}: the gateway sidecar gets PG_URL`);
    if (dbUrls.length) {
      const gw = sidecars.find((c) => c.command && c.command[0] === '/usr/local/bin/wp-gateway');
      assert.ok(gw, `${name}: a wp-gateway sidecar`);
      assert.equal(gw.restartPolicy, 'Always', `${name}: the gateway is a native sidecar (runs beside k6, stopped when k6 exits)`);
      assert.equal(gw.image, m.spec.runner.image, `${name}: the sidecar runs the runner image's wp-gateway`);
      const addr = gw.command[gw.command.indexOf('-addr') + 1];
      assert.match(addr, /^127\.0\.0\.1:\d+$/, `${name}: the gateway listens on the pod's loopback only`);
      assert.equal(runnerEnv.GATEWAY_URL?.value, `http://${addr}`, `${name}: k6's GATEWAY_URL is the sidecar`);
      const tokenOf = (list) => list.find((e) => e.name === 'WP_GATEWAY_TOKEN')?.valueFrom?.secretKeyRef;
      assert.ok(tokenOf(gw.env || []) && tokenOf(m.spec.runner.env || []), `${name}: both containers get WP_GATEWAY_TOKEN from the Secret`);
      assert.deepEqual(tokenOf(gw.env), tokenOf(m.spec.runner.env), `${name}: the same token`);
      // The initializer runs only the init code: it must not inherit the sidecar (the operator
      // copies the runner's spec when initializer is omitted).
      assert.ok(m.spec.initializer && !m.spec.initializer.initContainers, `${name}: initializer given, without the sidecar`);
    }
    // Every -e KNOB is a knob the pack knows (a misspelt knob is silently ignored by k6).
    for (const [, k] of args.matchAll(/-e ([A-Z_]+)=/g)) assert.ok(KNOBS[k], `${name}: -e ${k} is no knob of lib/config.js`);
  }
  // The runner image recipe builds on the pack's own k6 image (the official k6 + wp-gateway).
  const df = readFileSync(path.join(repoRoot, 'deploy', 'k8s', 'runner.Dockerfile'), 'utf8');
  assert.match(df, /docker\/k6\.Dockerfile/);
  assert.match(df, /^FROM \$\{K6_IMAGE\}/m);
  assert.ok(existsSync(path.join(repoRoot, 'docker', 'k6.Dockerfile')));
  assert.match(readFileSync(path.join(repoRoot, 'docker', 'k6.Dockerfile'), 'utf8'), /^COPY --from=\S+ \/out\/wp-gateway \/usr\/local\/bin\/wp-gateway$/m, 'the image carries the sidecar\'s wp-gateway');
});
