// The ArangoDB scenarios end to end: the real bin/k6 against the project's ArangoDB API
// test server (a test double started per test, never something to benchmark). Assertions
// are on k6's exit code, summary.json and the server's own document counts.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { influxQuery, localEnv, runK6, startK6, uniqueRunId } from '../helpers/k6.mjs';
import { startTestServer } from '../helpers/testserver.mjs';
import { expectCarriedOn } from '../helpers/raven-expect.mjs';

const PASSWORD = 'pw-for-tests-only';
let server;

before(async () => { server = await startTestServer('arangodb', ['-root-password', PASSWORD]); });
after(async () => { if (server) await server.stop(); });

const basic = `Basic ${Buffer.from(`root:${PASSWORD}`).toString('base64')}`;

async function api(method, path, body) {
  const res = await fetch(`${server.url}${path}`, {
    method, headers: { Authorization: basic, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

async function setFaults(faults) {
  const res = await fetch(`${server.url}/_testserver/faults`, { method: 'POST', body: JSON.stringify(faults) });
  assert.equal(res.status, 200);
}

async function databases() {
  return (await api('GET', '/_api/database')).body.result;
}

async function serverCount(runId, collection = `k6wp_${runId}`) {
  const r = await api('GET', `/_db/k6wp_${runId}/_api/collection/${collection}/count`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.count;
}

function arango(env = {}) {
  return { ARANGO_URL: server.url, ARANGO_PASSWORD: PASSWORD, INFLUX_URL: undefined, ...env };
}

function explain(r) {
  return `exit ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr.slice(-3000)}`;
}

const E1 = 'scenarios/arangodb/insert-vs-overwrite.js';
const E3 = 'scenarios/arangodb/arangobench.js';

test('E1 on ArangoDB: three phases, exact counts, read-back OK, database dropped', async () => {
  await setFaults({});
  const r = await runK6(E1, arango({ DOCS: '3000', BATCH_SIZE: '250', OVERWRITE_BATCHES: '6', MIXED_BATCHES: '4', VUS: '2' }));
  assert.equal(r.code, 0, explain(r));
  const s = r.summary;
  assert.deepEqual(s.phases.map((p) => p.phase), ['load', 'overwrite', 'mixed']);
  assert.deepEqual(s.phases.map((p) => [p.batches, p.docs_ok, p.docs_failed]), [[12, 3000, 0], [6, 1500, 0], [4, 1000, 0]]);
  assert.equal(s.verification.expected, 3000 + 4 * 125);
  assert.equal(s.verification.found, 3500);
  assert.equal(s.verification.readback_ok, true);
  assert.ok(s.verification.readback_checked > 0);
  assert.match(s.server.serverVersion, /^TEST ENDPOINT: arangodb-testserver, .*\(it reports ArangoDB 3\.12/);
  assert.equal(s.test_endpoint, true);
  assert.match(r.stdout, /^k6-writepath · TEST ENDPOINT · arangodb/m);
  assert.equal(s.server.settings.ARANGO_WAIT_FOR_SYNC, 'false', 'read back from the collection');
  assert.match(r.stdout, /\nload\s+insert\s+12\s+3000\s+0/);
  assert.match(r.stdout, /\noverwrite\s+upsert\s+6\s+1500\s+0/);
  assert.match(r.stdout, /\nmixed\s+upsert\s+4\s+1000\s+0/);
  assert.ok(!(await databases()).includes(`k6wp_${r.runId}`), 'the run database must be dropped');
  assert.ok(!r.stdout.includes(PASSWORD) && !r.stderr.includes(PASSWORD) && !JSON.stringify(s).includes(PASSWORD), 'the password must never be printed');
});

test('E1 with JWT auth, OVERWRITE_OP=merge, waitForSync and persistent indexes', async () => {
  await setFaults({});
  const r = await runK6(E1, arango({ ARANGO_AUTH: 'jwt', OVERWRITE_OP: 'merge', ARANGO_WAIT_FOR_SYNC: '1', ARANGO_INDEXES: '3', DOCS: '2000', BATCH_SIZE: '200', OVERWRITE_BATCHES: '4', MIXED_BATCHES: '2', KEEP: '1' }));
  assert.equal(r.code, 0, explain(r));
  assert.equal(r.summary.phases[1].docs_ok, 800);
  assert.match(r.stdout, /\noverwrite\s+merge\s+4\s+800\s+0/);
  assert.equal(r.summary.server.settings.ARANGO_WAIT_FOR_SYNC, 'true', 'read back from the collection');
  assert.equal(r.summary.server.settings.ARANGO_INDEXES, 'f0+f1+f2', 'read back from the collection');
  const idx = await api('GET', `/_db/k6wp_${r.runId}/_api/index?collection=k6wp_${r.runId}`);
  assert.deepEqual(idx.body.indexes.filter((i) => i.type === 'persistent').map((i) => i.fields[0]).sort(), ['f0', 'f1', 'f2']);
  assert.equal(await serverCount(r.runId), 2200);
  assert.equal((await api('DELETE', `/_api/database/k6wp_${r.runId}`)).status, 200);
});

test('injected element failures in 202 answers are counted exactly, by errorNum, and trip the threshold', async () => {
  await setFaults({ elementFailureRate: 0.07, elementFailureErrorNum: 1200, seed: 11 });
  const r = await runK6(E1, arango({ PHASES: 'load', DOCS: '3000', BATCH_SIZE: '250', KEEP: '1' }));
  await setFaults({});
  assert.equal(r.code, 99, explain(r));
  const load = r.summary.phases[0];
  const stored = await serverCount(r.runId);
  assert.ok(stored < 3000 && stored > 2500, `stored ${stored}`);
  // A document is ok only when the answer shows it: what the server stored, exactly.
  assert.equal(load.docs_ok, stored);
  assert.equal(load.docs_failed, 3000 - stored);
  assert.deepEqual(load.failed_by_reason, { e1200: 3000 - stored });
  assert.equal(r.summary.verification.found, stored);
  // Element errors in the answer are known failures: failed_docs_max counts them.
  assert.equal(load.docs_failed_known, 3000 - stored);
  assert.ok(r.summary.thresholds.some((t) => t.metric === 'writepath_docs_failed_known{phase:load}' && !t.ok));
  assert.match(r.stdout, new RegExp(`load: ${3000 - stored} documents failed: e1200 ${3000 - stored}`));
  assert.match(r.junit, /<failure message="threshold crossed: writepath_docs_failed_known\{phase:load\}/);
  await api('DELETE', `/_api/database/k6wp_${r.runId}`);
});

test('silent=true with waitForSync (201 answers): failures counted from X-Arango-Error-Codes', async () => {
  await setFaults({ elementFailureRate: 0.05, elementFailureErrorNum: 1221, seed: 5 });
  const r = await runK6(E1, arango({ PHASES: 'load', DOCS: '2000', BATCH_SIZE: '200', ARANGO_SILENT: '1', ARANGO_WAIT_FOR_SYNC: '1', KEEP: '1' }));
  await setFaults({});
  assert.equal(r.code, 99, explain(r));
  const load = r.summary.phases[0];
  const stored = await serverCount(r.runId);
  assert.ok(stored < 2000, `stored ${stored}`);
  assert.equal(load.docs_ok, stored);
  assert.deepEqual(load.failed_by_reason, { e1221: 2000 - stored });
  // In the load phase every key is new, so docs_new is exact even without indexes.
  assert.equal(load.docs_new, stored);
  await api('DELETE', `/_api/database/k6wp_${r.runId}`);
});

test('silent=true with OVERWRITE_OP=ignore: ignored documents listed in the answer are not counted as failed', async () => {
  // Real ArangoDB keeps the identity of every ignored (existing) document in a silent answer
  // once one element failed (arangod/Transaction/Methods.cpp); the test server does the same.
  // Counting those entries as failures would turn each batch with one error into a failed batch.
  await setFaults({ elementFailureRate: 0.02, elementFailureErrorNum: 1221, seed: 11 });
  const r = await runK6(E1, arango({ PHASES: 'load,overwrite', DOCS: '2000', BATCH_SIZE: '200', OVERWRITE_BATCHES: '10', OVERWRITE_OP: 'ignore', ARANGO_SILENT: '1', KEEP: '1' }));
  await setFaults({});
  assert.equal(r.code, 99, explain(r));
  const ow = r.summary.phases.find((p) => p.phase === 'overwrite');
  assert.equal(ow.docs_ok + ow.docs_failed, 2000);
  assert.deepEqual(Object.keys(ow.failed_by_reason), ['e1221'], JSON.stringify(ow.failed_by_reason));
  // 2 % of 2000 elements fail on average; far from the ~all a miscount would report
  assert.ok(ow.docs_failed > 0 && ow.docs_failed < 150, `overwrite failed ${ow.docs_failed}`);
  assert.equal(ow.failed_by_reason.e1221, ow.docs_failed);
  await api('DELETE', `/_api/database/k6wp_${r.runId}`);
});

test('503 bursts of a cluster that lost a DB server (errorNum 1478) are whole-batch failures with reason http_503', async () => {
  await setFaults({ burst503: { every: 4, length: 1, errorNum: 1478 } });
  const r = await runK6(E1, arango({ PHASES: 'load', DOCS: '2000', BATCH_SIZE: '250' }));
  await setFaults({});
  assert.equal(r.code, 99, explain(r));
  const load = r.summary.phases[0];
  // 8 batch requests, every 4th answered 503: 2 batches of 250 lost.
  assert.deepEqual([load.docs_ok, load.docs_failed, load.failed_by_reason, load.retries], [1500, 500, { http_503: 500 }, 0]);
});

test('503 "not now" bursts (errorNum 503: startup or maintenance mode, nothing done) are sent again: none failed, retries counted', async () => {
  await setFaults({ burst503: { every: 4, length: 1 } });
  const r = await runK6(E1, arango({ PHASES: 'load', DOCS: '2000', BATCH_SIZE: '250', VUS: '1' }));
  await setFaults({});
  assert.equal(r.code, 0, explain(r));
  const load = r.summary.phases[0];
  assert.deepEqual([load.docs_ok, load.docs_failed], [2000, 0]);
  assert.ok(load.retries >= 2, explain(r));
  assert.match(r.stderr, /batch of 250 refused \(http_503\): .*startup or maintenance mode.*nothing was done: sent again after a pause \(within GIVE_UP=/);
  assert.equal(r.summary.verification.found, 2000);
});

test('401 in the middle of the run aborts it with one clear line', async () => {
  await setFaults({ authFailAfter: 14 });
  const r = await runK6(E1, arango({ PHASES: 'load', DOCS: '4000', BATCH_SIZE: '100', VUS: '1' }));
  await setFaults({});
  assert.equal(r.code, 108, explain(r));
  assert.match(r.stdout + r.stderr, /ArangoDB answered 401 to POST \/_api\/document\/k6wp_\w+: credentials refused or token expired/);
  // The batch that met the 401 is counted before the abort; the ones before it succeeded.
  const load = r.summary.phases[0];
  assert.deepEqual(load.failed_by_reason, { http_401: 100 });
  assert.ok(load.docs_ok > 0 && load.docs_ok % 100 === 0, `docs_ok ${load.docs_ok}`);
  await api('DELETE', `/_api/database/k6wp_${r.runId}`);
});

test('unreachable server, wrong password and bad knobs stop before any write', async () => {
  const down = await runK6(E1, arango({ ARANGO_URL: 'http://127.0.0.1:9' }));
  assert.equal(down.code, 108, explain(down));
  assert.match(down.stdout + down.stderr, /ARANGO_URL=http:\/\/127\.0\.0\.1:9: cannot reach ArangoDB/);

  const before = await databases();
  const wrong = await runK6(E1, arango({ ARANGO_PASSWORD: 'not-the-password' }));
  assert.equal(wrong.code, 108, explain(wrong));
  assert.match(wrong.stdout + wrong.stderr, /ARANGO_USER=root: ArangoDB refused the credentials \(401\)/);
  assert.ok(!(wrong.stdout + wrong.stderr).includes('not-the-password'));
  assert.deepEqual(await databases(), before);

  const bad = await runK6(E1, arango({ OVERWRITE_OP: 'replace' }));
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /OVERWRITE_OP=\\?"replace\\?" is not allowed: one of upsert, merge, ignore/);
  const url = await runK6(E1, arango({ ARANGO_URL: 'http://root:secretpw@127.0.0.1:8529' }));
  assert.notEqual(url.code, 0);
  assert.match(url.stderr, /ARANGO_URL=\\?"http:\/\/\*\*\*@127\.0\.0\.1:8529\\?" is not allowed/);
  assert.ok(!url.stderr.includes('secretpw'));
});

test('a database of the same name that k6-writepath did not create is refused, and REUSE=1 reuses ours', async () => {
  const runId = `t${process.pid}_reuse`;
  assert.equal((await api('POST', '/_api/database', { name: `k6wp_${runId}` })).status, 201);
  const foreign = await runK6(E1, arango({ RUN_ID: runId, DOCS: '500', BATCH_SIZE: '100' }));
  assert.equal(foreign.code, 108, explain(foreign));
  assert.match(foreign.stdout + foreign.stderr, /database k6wp_\w+ exists and was not created by k6-writepath \(no marker\): refusing to touch it/);
  assert.ok((await databases()).includes(`k6wp_${runId}`), 'a foreign database is never dropped');
  await api('DELETE', `/_api/database/k6wp_${runId}`);

  const first = await runK6(E1, arango({ RUN_ID: runId, DOCS: '500', BATCH_SIZE: '100', KEEP: '1' }));
  assert.equal(first.code, 0, explain(first));
  const again = await runK6(E1, arango({ RUN_ID: runId, DOCS: '500', BATCH_SIZE: '100' }));
  assert.equal(again.code, 108, explain(again));
  assert.match(again.stdout + again.stderr, /already exists \(made by k6-writepath for RUN_ID=\w+: kept by an earlier run, or in use by a running one\): set REUSE=1/);
  const reused = await runK6(E1, arango({ RUN_ID: runId, DOCS: '500', BATCH_SIZE: '100', REUSE: '1' }));
  assert.equal(reused.code, 0, explain(reused));
  assert.equal(reused.summary.verification.found, reused.summary.verification.expected);
  assert.ok(!(await databases()).includes(`k6wp_${runId}`));
});

// What each case leaves behind after REQUESTS operations (cycles of the case's length).
const CASES = {
  document: { requests: 60, left: 60, ops: { insert: 60 } },
  crud: { requests: 52, left: 1, ops: { insert: 11, read: 21, update: 10, delete: 10 } },
  'crud-append': { requests: 50, left: 13, ops: { insert: 13, read: 25, update: 12 } },
  'crud-write-read': { requests: 51, left: 26, ops: { insert: 26, read: 25 } },
  'multi-collection': { requests: 40, left: 80, ops: { transaction: 40 } },
  'random-shapes': { requests: 60, left: 0, ops: { insert: 20, read: 20, delete: 20 } },
  'persistent-index': { requests: 48, left: 12, ops: { insert: 12, read: 24, update: 12 } },
};

for (const [name, want] of Object.entries(CASES)) {
  test(`arangobench case ${name}: exact REQUESTS, verified counts, E3 table`, async () => {
    await setFaults({});
    const r = await runK6(E3, arango({ ARANGOBENCH_CASE: name, REQUESTS: String(want.requests), VUS: '3', COMPLEXITY: '20', KEEP: '1' }));
    assert.equal(r.code, 0, explain(r));
    const e3 = r.summary.e3;
    assert.equal(e3.test_case, name);
    assert.equal(e3.requests_done, want.requests);
    assert.equal(e3.failed_operations, 0);
    assert.deepEqual(Object.fromEntries(e3.operations.map((o) => [o.op, o.count])), want.ops);
    assert.equal(r.summary.verification.expected, want.left);
    assert.equal(r.summary.verification.found, want.left);
    assert.match(r.stdout, /Complexity \|\s+Requests \|\s+Concurrency \|\s+Time \(s\) \|\s+ops\/s\n\s+20 \|\s+\d+ \|\s+3 \|/);
    if (name === 'multi-collection') {
      assert.equal(await serverCount(r.runId), 40);
      assert.equal(await serverCount(r.runId, `k6wp_${r.runId}_2`), 40);
    } else {
      assert.equal(await serverCount(r.runId), want.left);
    }
    if (name === 'persistent-index') {
      const idx = await api('GET', `/_db/k6wp_${r.runId}/_api/index?collection=k6wp_${r.runId}`);
      assert.ok(idx.body.indexes.some((i) => i.type === 'persistent' && i.fields[0] === 'value'));
    }
    await api('DELETE', `/_api/database/k6wp_${r.runId}`);
  });
}

test('arangobench: injected failures of single-document writes show up by reason and trip the threshold', async () => {
  await setFaults({ burst503: { every: 5, length: 1, errorNum: 1478 } });
  const r = await runK6(E3, arango({ ARANGOBENCH_CASE: 'document', REQUESTS: '50', VUS: '1' }));
  await setFaults({});
  assert.equal(r.code, 99, explain(r));
  assert.equal(r.summary.e3.failed_operations, 10);
  assert.deepEqual(r.summary.phases[0].failed_by_reason, { http_503: 10 });
  assert.equal(r.summary.verification.found, 40);
});

test('E1 with OVERWRITE_OP=ignore: existing documents keep their load version (read-back checks it)', async () => {
  await setFaults({});
  const r = await runK6(E1, arango({ OVERWRITE_OP: 'ignore', DOCS: '2000', BATCH_SIZE: '200', OVERWRITE_BATCHES: '4', MIXED_BATCHES: '2' }));
  assert.equal(r.code, 0, explain(r));
  assert.match(r.stdout, /\noverwrite\s+ignore\s+4\s+800\s+0/);
  assert.ok(r.summary.verification.readback_checked > 0);
  assert.equal(r.summary.verification.readback_ok, true);
});

test('InfluxDB receives the failed documents of an ArangoDB run by reason, as in summary.json', async () => {
  const { INFLUX_URL } = localEnv();
  const runId = uniqueRunId('ta');
  await setFaults({ elementFailureRate: 0.05, elementFailureErrorNum: 1210, seed: 3 });
  const r = await runK6(E1, arango({ RUN_ID: runId, DOCS: '2000', BATCH_SIZE: '250', OVERWRITE_BATCHES: '4', MIXED_BATCHES: '2', K6_INFLUXDB_TAGS_AS_FIELDS: 'vu:int,iter:int,url' }),
    { args: ['--out', `influxdb=${INFLUX_URL}`, '--tag', `testid=${runId}`], runId });
  await setFaults({});
  assert.equal(r.code, 99, explain(r));
  const res = await influxQuery(INFLUX_URL, `SELECT sum("value") FROM "writepath_docs_failed" WHERE "testid" = '${runId}' GROUP BY "phase", "reason", "target"`);
  const got = Object.fromEntries((res.results[0].series || []).map((x) => [`${x.tags.phase}/${x.tags.reason}/${x.tags.target}`, x.values[0][1]]));
  const want = Object.fromEntries(r.summary.phases.map((p) => [`${p.phase}/e1210/arangodb`, p.docs_failed]));
  assert.ok(Object.values(want).every((n) => n > 0), JSON.stringify(want));
  assert.deepEqual(got, want);
  // every batch sample of the run carries the tag test_endpoint=true (a test server answered)
  const tagged = await influxQuery(INFLUX_URL, `SELECT count("value") FROM "writepath_batch_duration" WHERE "testid" = '${runId}' GROUP BY "test_endpoint"`);
  const groups = (tagged.results[0].series || []).map((x) => [x.tags.test_endpoint, x.values[0][1]]);
  assert.deepEqual(groups, [['true', r.summary.phases.reduce((n, p) => n + p.batches, 0)]]);
});

test('connections dropped mid-request are whole-batch failures with reason connection, and nothing is counted twice', async () => {
  await setFaults({ dropConnectionRate: 0.2, seed: 1 });
  const r = await runK6(E1, arango({ PHASES: 'load', DOCS: '2000', BATCH_SIZE: '100', KEEP: '1' }));
  await setFaults({});
  assert.equal(r.code, 99, explain(r));
  const load = r.summary.phases[0];
  const stored = await serverCount(r.runId);
  assert.ok(stored < 2000 && stored % 100 === 0, `stored ${stored}`);
  assert.deepEqual([load.docs_ok, load.docs_failed, load.failed_by_reason], [stored, 2000 - stored, { connection: 2000 - stored }]);
  await api('DELETE', `/_api/database/k6wp_${r.runId}`);
});

// Case 5 of issue 38 on ArangoDB: the server commits a batch and its answer never reaches k6
// (the test server resets the connection after the commit, cutAfterBodyRate). Such a batch is
// undetermined, never "none stored"; the count holds it as a range and, every cut batch having
// been committed, the database holds the top of the range; the read-back resolves the keys.
test('connections cut after the whole batch was read and committed: undetermined, never "none stored", resolved stored; verification OK, exit 0', async () => {
  await setFaults({ cutAfterBodyRate: 0.2, seed: 3 });
  const r = await runK6(E1, arango({ DOCS: '3000', BATCH_SIZE: '250', OVERWRITE_BATCHES: '8', MIXED_BATCHES: '6', MIXED_NEW_PERCENT: '50', VUS: '2' }));
  await setFaults({});
  const s = r.summary;
  assert.ok(s, explain(r));
  const undetermined = s.phases.reduce((a, p) => a + p.docs_undetermined, 0);
  assert.ok(undetermined > 0, explain(r));
  for (const p of s.phases) {
    assert.equal(p.docs_undetermined, p.docs_failed, `${p.phase}: every failure is a cut after the commit`);
    assert.equal(p.docs_failed_known, 0, p.phase);
  }
  assert.match(r.stderr, /got no answer \(connection\): stored or not, counted failed and undetermined/);
  const v = s.verification;
  assert.equal(v.found, 3000 + 6 * 125, `every document of the plan is stored, the cut ones too: ${explain(r)}`);
  assert.equal(v.expected_max, v.found, 'the top of the range: every undetermined new document was committed');
  assert.ok(v.readback_resolved > 0, 'keys holding a cut batch\'s version are resolved: stored');
  expectCarriedOn(r);
  assert.equal(r.code, 0, explain(r));
});

test('a batch of inserts with existing keys counts each as element error 1210, and the rest of the batch as written', async () => {
  await setFaults({});
  for (const silent of ['0', '1']) {
    const r = await runK6('test/integration/fixtures/arangodb-batch-ops.js', arango({ ARANGO_SILENT: silent }));
    assert.equal(r.code, 0, explain(r));
    const m = /RESULT (\{.*\})/.exec(r.stdout + r.stderr);
    assert.ok(m, explain(r));
    const got = JSON.parse(m[1].replace(/\\"/g, '"'));
    assert.deepEqual(got.insert, { n: 300, failed: 0, byReason: {}, failedIndexes: null });
    assert.deepEqual([got.duplicates.n, got.duplicates.failed, got.duplicates.byReason], [70, 50, { e1210: 50 }]);
    // silent=true lists the failed elements without their place in the batch.
    assert.deepEqual(got.duplicates.failedIndexes, silent === '0' ? Array.from({ length: 50 }, (_, i) => i) : null);
    assert.deepEqual(got.replace, { n: 100, failed: 0, byReason: {}, failedIndexes: null });
    assert.equal(got.count, 320);
    assert.deepEqual(got.stamps, { 0: 'u', 99: 'u', 100: 'l', 299: 'l', 300: 'd', 319: 'd' });
    assert.ok(!(await databases()).includes(`k6wp_${r.runId}`));
  }
});

test('the run database dropped under a running test aborts it with one clear line', async () => {
  await setFaults({ latencyMs: 60 });
  const runId = uniqueRunId('td');
  const running = runK6(E1, arango({ RUN_ID: runId, PHASES: 'load', DOCS: '8000', BATCH_SIZE: '100', VUS: '1' }), { runId });
  // Wait until the load is under way (documents stored), then drop the database.
  let stored = 0;
  for (let i = 0; i < 200 && stored === 0; i++) {
    await new Promise((res) => setTimeout(res, 50));
    const c = await api('GET', `/_db/k6wp_${runId}/_api/collection/k6wp_${runId}/count`);
    stored = c.status === 200 ? c.body.count : 0;
  }
  assert.ok(stored > 0 && stored < 8000, `stored ${stored}`);
  assert.equal((await api('DELETE', `/_api/database/k6wp_${runId}`)).status, 200);
  const r = await running;
  await setFaults({});
  assert.equal(r.code, 108, explain(r));
  assert.match(r.stdout + r.stderr, new RegExp(`database k6wp_${runId} disappeared during the run \\(404, errorNum 1228\\)`));
  assert.deepEqual(r.summary.phases[0].failed_by_reason, { http_404: 100 });
});

test('JWT renewal: 3 s tokens (-session-timeout 3s) over a ~8 s run, 0 failures, tokens renewed, no 401', async () => {
  // A server of its own: short tokens, and 250 ms per request so that the run outlives a
  // token more than once (31 batches of one VU ≈ 8 s, plus setup and verification).
  const slow = await startTestServer('arangodb', ['-root-password', PASSWORD, '-session-timeout', '3s', '-latency-ms', '250']);
  try {
    const login = await fetch(`${slow.url}/_open/auth`, { method: 'POST', body: JSON.stringify({ username: 'root', password: PASSWORD }) });
    const jwt = (await login.json()).jwt;
    const claims = JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString());
    assert.equal(claims.exp - claims.iat, 3, 'the token lives -session-timeout');
    const started = Date.now();
    const r = await runK6(E1, { ARANGO_URL: slow.url, ARANGO_PASSWORD: PASSWORD, INFLUX_URL: undefined, ARANGO_AUTH: 'jwt',
      DOCS: '1000', BATCH_SIZE: '100', VUS: '1', OVERWRITE_BATCHES: '12', MIXED_BATCHES: '9' });
    const seconds = (Date.now() - started) / 1000;
    assert.equal(r.code, 0, explain(r));
    assert.ok(seconds >= 8, `the run lasted ${seconds} s, more than two token lifetimes`);
    assert.deepEqual(r.summary.phases.map((p) => [p.batches, p.docs_failed]), [[10, 0], [12, 0], [9, 0]]);
    assert.equal(r.summary.verification.readback_ok, true);
    const stats = await (await fetch(`${slow.url}/_testserver/stats`)).json();
    // Without renewal: 1 token each for setup, the VU and teardown (+1 for our own login),
    // and 401s (checked: with renewal switched off the overwrite phase fails with http_401).
    // A margin larger than the lifetime (the fixed 5 minutes) would log in before every
    // request: ~74 calls here; renewing at 3/4 of the lifetime takes ~8.
    // The count grows with the run's length (one renewal per 2.25 s of the VU's life), so the
    // bound follows the measured duration instead of assuming the machine was fast; it stays
    // well below the ~74 of a login per request.
    const renewals = Math.min(40, Math.ceil(seconds / 2.25) + 5);
    assert.ok(stats.openAuth > 5 && stats.openAuth <= renewals, `tokens renewed, not per request (${seconds} s, at most ${renewals}): ${JSON.stringify(stats)}`);
    assert.equal(stats.unauthorized, 0, `no request went out with an expired token: ${JSON.stringify(stats)}`);
    // The control: the server does refuse a token once it has expired.
    const late = await fetch(`${slow.url}/_api/version`, { headers: { Authorization: `bearer ${jwt}` } });
    assert.equal(late.status, 401, 'an expired token gets 401');
  } finally {
    await slow.stop();
  }
});

// Teardown removes only what the run made: a collection someone created in the run's database
// mid-run stays, and so does the database.
test('a collection created by someone else in the run\'s database survives teardown: the run drops its own collections only and says the database was left', { timeout: 120000 }, async () => {
  const runId = uniqueRunId('af');
  await setFaults({ latencyMs: 20 });
  const run = startK6(E1, arango({ DOCS: '4000', BATCH_SIZE: '100', OVERWRITE_BATCHES: '20', MIXED_BATCHES: '0' }), { runId });
  try {
    await run.waitFor(/writing to database/);
    const made = await api('POST', `/_db/k6wp_${runId}/_api/collection`, { name: 'bystander' });
    assert.equal(made.status, 200, JSON.stringify(made.body));
    await setFaults({});
    const r = await run.done;
    assert.equal(r.code, 0, explain(r));
    assert.match(r.stderr, new RegExp(`the run's collections dropped \\([^)]*k6wp_meta\\); database k6wp_${runId} left in place: it also holds collections the run did not create \\(bystander\\)`));
    assert.ok((await databases()).includes(`k6wp_${runId}`), 'the database stays');
    const names = (await api('GET', `/_db/k6wp_${runId}/_api/collection?excludeSystem=true`)).body.result.map((c) => c.name);
    assert.deepEqual(names, ['bystander']);
  } finally {
    await setFaults({});
    await api('DELETE', `/_api/database/k6wp_${runId}`);
  }
});
