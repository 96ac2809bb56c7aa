// A ramped E1 (RATE_STAGES) whose lost answers were committed: the ArangoDB API test server
// (a test double, it measures nothing) reads a write whole, commits it, then resets the
// connection (cutAfterBodyRate). Those batches are undetermined; the ramp's stage rows count
// them and its read-back of every key resolves them: nothing was lost, so the run passes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startK6, uniqueRunId } from '../helpers/k6.mjs';
import { startTestServer } from '../helpers/testserver.mjs';

let server;
before(async () => { server = await startTestServer('arangodb', ['-no-auth']); });
after(async () => { if (server) await server.stop(); });

async function setFaults(faults) {
  const res = await fetch(`${server.url}/_testserver/faults`, { method: 'POST', body: JSON.stringify(faults) });
  assert.equal(res.status, 200);
}

async function count(runId) {
  const res = await fetch(`${server.url}/_db/k6wp_${runId}/_api/collection/k6wp_${runId}/count`);
  return res.status === 200 ? (await res.json()).count : 0;
}

const explain = (r) => `exit ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr.slice(-3000)}`;

test('a ramped overwrite whose cut batches were committed: undetermined per stage, resolved stored by the read-back, exit 0', async () => {
  await setFaults({});
  const runId = uniqueRunId('ru');
  const run = startK6('scenarios/arangodb/insert-vs-overwrite.js', {
    ARANGO_URL: server.url, INFLUX_URL: undefined, RATE_STAGES: '2s:6,2s:6', PHASES: 'load,overwrite', DOCS: '4000', BATCH_SIZE: '100',
  }, { runId });
  // The pre-load (setup) must not be cut: it stops the run on any failure. Faults go on once it is done.
  let done = false;
  run.done.then(() => { done = true; });
  while (!done && await count(runId) < 4000) await new Promise((r) => setTimeout(r, 20));
  await setFaults({ cutAfterBodyRate: 0.4, seed: 5 });
  const r = await run.done;
  await setFaults({});
  const s = r.summary;
  assert.ok(s, explain(r));
  const over = s.phases.find((p) => p.phase === 'overwrite');
  assert.ok(over.docs_undetermined > 0, `some ramp batch was cut after its commit: ${explain(r)}`);
  assert.equal(over.docs_failed, over.docs_undetermined, 'every failure is a cut after the commit');
  assert.equal(over.docs_failed_known, 0, 'nothing known failed: every cut batch was stored');
  // The stage rows count them too.
  const rows = s.stages;
  assert.equal(rows.reduce((a, x) => a + x.docs_undetermined, 0), over.docs_undetermined, JSON.stringify(rows));
  assert.equal(rows.reduce((a, x) => a + x.docs_failed_known, 0), 0, JSON.stringify(rows));
  // The read-back of every key resolved them: stored.
  assert.equal(s.verification.overwrites_undetermined_stored, over.docs_undetermined, JSON.stringify(s.verification));
  assert.equal(s.verification.overwrites_unaccounted, -over.docs_undetermined, JSON.stringify(s.verification));
  assert.match(r.stdout, new RegExp(`overwrites: ${over.docs_undetermined} undetermined \\(.*\\): the read-back found all ${over.docs_undetermined} stored\n`));
  // The run-wide resolved check holds them against failed_docs_max: none failed after all.
  const resolved = s.thresholds.find((t) => t.metric === 'writepath_docs_failed_resolved');
  assert.ok(resolved && resolved.ok && resolved.observed === 0, JSON.stringify(s.thresholds));
  assert.doesNotMatch(r.stdout, /— FAILED/);
  assert.equal(r.code, 0, explain(r));
});
