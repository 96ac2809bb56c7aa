// E4 in the open model (RATE_STAGES: ramping-arrival-rate): batches start on schedule; when
// the server is too slow for the VUs k6 may use, the batches it could not start are counted
// as dropped_iterations and trip the threshold — a closed-model run would just slow down.
// Against the RavenDB API test server (a test double; never something to benchmark).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runK6 } from '../helpers/k6.mjs';
import { startTestServer } from '../helpers/testserver.mjs';

const explain = (r) => `exit ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr.slice(-3000)}`;
const scenario = 'scenarios/ravendb/bulk-insert.js';

test('open model: the arrival rate is kept, nothing dropped, count = acknowledged', async () => {
  const srv = await startTestServer('ravendb', []);
  try {
    const r = await runK6(scenario, { RAVEN_URL: srv.url, RATE_STAGES: '2s:10,2s:20', VUS: '2', MAX_VUS: '6', BATCH_SIZE: '100', DOC_POOL: '100' });
    assert.equal(r.code, 0, explain(r));
    const bulk = r.summary.phases[0];
    // 2 s at 10 batches/s + 2 s at 20 batches/s = 60 scheduled batches (each stage is its
    // own constant-arrival-rate scenario, which may start one more or one fewer at its edges).
    assert.ok(bulk.batches >= 57 && bulk.batches <= 62, `batches ${bulk.batches}`);
    assert.equal(r.summary.dropped_iterations, 0);
    assert.deepEqual(r.summary.stages.map((s) => s.vus), ['10/s', '20/s']);
    const [s1, s2] = r.summary.stages;
    assert.ok(s1.batches >= 18 && s1.batches <= 21, `stage 1: ${s1.batches}`);
    assert.ok(s2.batches >= 38 && s2.batches <= 41, `stage 2: ${s2.batches}`);
    assert.equal(r.summary.verification.found, bulk.docs_ok);
    assert.match(r.stdout, /workload: open model, arrival rate 2s:10,2s:20 batches\/s \(VUs 2…6\)/);
  } finally {
    await srv.stop();
  }
});

test('open model: a server too slow for the VUs allowed shows as dropped iterations and fails the run', async () => {
  const srv = await startTestServer('ravendb', ['-latency-ms', '400']);
  try {
    const r = await runK6(scenario, { RAVEN_URL: srv.url, RATE_STAGES: '3s:10', VUS: '1', MAX_VUS: '1', BATCH_SIZE: '50', DOC_POOL: '50', TIMEOUT: '5s' });
    assert.equal(r.code, 99, explain(r));
    const bulk = r.summary.phases[0];
    // One VU, ~0.8 s per batch (two requests of 400 ms): about 4 of the 30 scheduled batches run.
    assert.ok(bulk.batches >= 2 && bulk.batches <= 8, `batches ${bulk.batches}`);
    assert.ok(r.summary.dropped_iterations >= 20, `dropped ${r.summary.dropped_iterations}`);
    assert.equal(bulk.batches + r.summary.dropped_iterations >= 28, true);
    assert.equal(bulk.docs_failed, 0, 'slow is not failed: every started batch was written');
    assert.deepEqual(r.summary.thresholds.find((t) => t.metric === 'dropped_iterations'),
      { metric: 'dropped_iterations', threshold: 'count<=0', ok: false, observed: r.summary.dropped_iterations });
    assert.match(r.stdout, /dropped iterations: \d+ batches k6 could not start on schedule/);
  } finally {
    await srv.stop();
  }
});

test('open model knobs are validated before anything is written', async () => {
  const bad = await runK6(scenario, { RAVEN_URL: 'http://127.0.0.1:1', RATE_STAGES: '2s:fast' });
  assert.equal(bad.code, 107);
  assert.match(bad.stderr, /RATE_STAGES=\\"2s:fast\\" is not allowed: comma-separated duration:batches-per-second pairs/);
  const few = await runK6(scenario, { RAVEN_URL: 'http://127.0.0.1:1', RATE_STAGES: '2s:10', VUS: '5', MAX_VUS: '2' });
  assert.equal(few.code, 107);
  assert.match(few.stderr, /MAX_VUS=2 is not allowed with VUS=5: at least the pre-allocated VUS/);
});
