// Fault rows of issue 8 that the per-target suites do not cover: answers slower than the
// request timeout (ArangoDB, RavenDB) and 503 bursts on RavenDB. Each must be counted as
// failed documents with its reason, never as success, and must not crash a VU.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runK6, uniqueRunId } from '../helpers/k6.mjs';
import { startTestServer } from '../helpers/testserver.mjs';

const explain = (r) => `exit ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr.slice(-3000)}`;

async function setFaults(url, faults) {
  const res = await fetch(`${url}/_testserver/faults`, { method: 'POST', body: JSON.stringify(faults) });
  assert.equal(res.status, 200, await res.text());
}

// The server answers in BASE_MS (below TIMEOUT) so the run lasts long enough; once the run
// has written `after` documents (setup is not affected) every answer takes latencyMs, above
// TIMEOUT, for windowMs; then the server heals before teardown.
const BASE_MS = 60;
async function slowWindow(url, countNow, { after, latencyMs, windowMs, deadlineMs = 30000 }) {
  const deadline = Date.now() + deadlineMs;
  while ((await countNow()) < after) {
    assert.ok(Date.now() < deadline, 'the run never reached the documents that start the slow window');
    await new Promise((r) => setTimeout(r, 25));
  }
  await setFaults(url, { latencyMs, seed: 1 });
  await new Promise((r) => setTimeout(r, windowMs));
  await setFaults(url, { latencyMs: BASE_MS, seed: 1 });
}

test('ArangoDB: answers slower than TIMEOUT are failed documents with reason timeout, the run goes on', async () => {
  const password = 'pw-timeouts';
  const srv = await startTestServer('arangodb', ['-root-password', password, '-latency-ms', String(BASE_MS)]);
  const auth = { Authorization: `Basic ${Buffer.from(`root:${password}`).toString('base64')}` };
  try {
    const runId = uniqueRunId('arto');
    const count = async () => {
      const r = await fetch(`${srv.url}/_db/k6wp_${runId}/_api/collection/k6wp_${runId}/count`, { headers: auth });
      return r.status === 200 ? (await r.json()).count : 0;
    };
    const run = runK6('scenarios/arangodb/insert-vs-overwrite.js', {
      ARANGO_URL: srv.url, ARANGO_PASSWORD: password, RUN_ID: runId, PHASES: 'load', DOCS: '12000', BATCH_SIZE: '250', VUS: '1', TIMEOUT: '600ms',
    }, { runId });
    // 5 s answers: far beyond TIMEOUT, so "ended at TIMEOUT" is told apart from "waited for the
    // server" with seconds of margin for a busy machine.
    await slowWindow(srv.url, count, { after: 500, latencyMs: 5000, windowMs: 1500 });
    const r = await run;
    assert.equal(r.code, 99, explain(r));
    const load = r.summary.phases[0];
    assert.ok(load.failed_by_reason.timeout >= 250, explain(r));
    assert.deepEqual(Object.keys(load.failed_by_reason), ['timeout']);
    assert.equal(load.docs_failed % 250, 0, 'a timed-out batch fails whole');
    assert.equal(load.docs_ok + load.docs_failed, 12000, 'every document is accounted for once');
    assert.ok(load.docs_ok > 500, 'batches after the slow window succeed again');
    assert.ok(load.batch_ms.max >= 600 && load.batch_ms.max < 4000, `the timed-out batches end at TIMEOUT, not with the 5 s answer: max ${load.batch_ms.max}`);
  } finally {
    await srv.stop();
  }
});

test('RavenDB: 503 DatabaseDisabled bursts are sent again (counted by reason); after GIVE_UP they fail; answers slower than TIMEOUT are failed and undetermined', async () => {
  const srv = await startTestServer('ravendb', []);
  try {
    // 503: in every window of 4 writes the last one is refused (the first write is setup's
    // marker). DatabaseDisabledException means the server did nothing: resent after a pause.
    await setFaults(srv.url, { burst503: { every: 4, length: 1 }, seed: 1 });
    const r = await runK6('scenarios/ravendb/insert-vs-overwrite.js', { RAVEN_URL: srv.url, PHASES: 'load', DOCS: '2000', BATCH_SIZE: '250', VUS: '1' });
    assert.equal(r.code, 0, explain(r));
    const load = r.summary.phases[0];
    assert.equal(load.docs_failed, 0, explain(r));
    assert.ok(load.retries >= 1 && load.retries <= 3, explain(r));
    assert.equal(r.summary.verification.found, 2000);
    // Refused for longer than GIVE_UP: the batch fails with its reason, nothing stored.
    await setFaults(srv.url, { burst503: { every: 1, length: 1000 }, seed: 1 });
    const g = await runK6('scenarios/ravendb/insert-vs-overwrite.js', { RAVEN_URL: srv.url, PHASES: 'load', DOCS: '500', BATCH_SIZE: '250', VUS: '1', GIVE_UP: '1s' });
    await setFaults(srv.url, { burst503: { every: 0, length: 0 }, seed: 1 });
    assert.equal(g.code, 99, explain(g));
    const gl = g.summary.phases[0];
    assert.ok(gl.docs_failed >= 250, explain(g));
    assert.deepEqual(Object.keys(gl.failed_by_reason), ['http_503']);
    assert.equal(gl.docs_undetermined, 0);
    assert.equal(g.summary.verification.found, gl.docs_ok, 'what failed with 503 is not in the database');

    const runId = uniqueRunId('rvto');
    const count = async () => {
      const c = await fetch(`${srv.url}/databases/k6wp_${runId}/collections/stats`);
      return c.status === 200 ? ((await c.json()).Collections || {}).Users || 0 : 0;
    };
    await setFaults(srv.url, { latencyMs: BASE_MS, seed: 1 });
    const run = runK6('scenarios/ravendb/insert-vs-overwrite.js', {
      RAVEN_URL: srv.url, RUN_ID: runId, PHASES: 'load', DOCS: '12000', BATCH_SIZE: '250', VUS: '1', TIMEOUT: '600ms',
    }, { runId });
    await slowWindow(srv.url, count, { after: 500, latencyMs: 1500, windowMs: 1500 });
    const t = await run;
    const tl = t.summary.phases[0];
    assert.ok(tl.failed_by_reason.timeout >= 250, explain(t));
    // The server may still commit a batch the client gave up on: undetermined, and the count holds.
    assert.equal(tl.docs_undetermined, tl.docs_failed);
    assert.equal(t.summary.verification.count_ok, true, explain(t));
    // The test server commits what it answers late: every undetermined document is found, none
    // is a known failure, no threshold is crossed (docs/configuration.md, "What each threshold counts").
    assert.equal(t.summary.verification.found, 12000, explain(t));
    assert.equal(tl.docs_failed_known, 0);
    assert.equal(t.code, 0, explain(t));
    assert.equal(tl.docs_ok + tl.docs_failed, 12000);
    assert.ok(tl.docs_ok > 500);
  } finally {
    await srv.stop();
  }
});
