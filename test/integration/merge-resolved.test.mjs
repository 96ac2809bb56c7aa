// A distributed E1 (DISTRIBUTED=1, then DISTRIBUTED=verify) against the ArangoDB API test
// server (a test double, it measures nothing) streaming to the private InfluxDB: merge-results
// holds the run-wide resolved failures (writepath_docs_failed_resolved summed over the
// instances, less what the verify step found) against the phases' failed_docs_max, as k6 does
// for a single run.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { localEnv, runK6, uniqueRunId } from '../helpers/k6.mjs';
import { startTestServer } from '../helpers/testserver.mjs';
import { merge, checkThresholds } from '../../scripts/merge-results.mjs';

const env = localEnv();
let server;
before(async () => { server = await startTestServer('arangodb', ['-no-auth']); });
after(async () => { if (server) await server.stop(); });

async function setFaults(faults) {
  const res = await fetch(`${server.url}/_testserver/faults`, { method: 'POST', body: JSON.stringify(faults) });
  assert.equal(res.status, 200);
}

const explain = (r) => `exit ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr.slice(-3000)}`;
const E1 = 'scenarios/arangodb/insert-vs-overwrite.js';
const knobs = { DOCS: '3000', BATCH_SIZE: '250', OVERWRITE_BATCHES: '8', MIXED_BATCHES: '6', MIXED_NEW_PERCENT: '50', VUS: '2' };
const doc = { phases: { load: { failed_docs_max: 0 }, overwrite: { failed_docs_max: 0 }, mixed: { failed_docs_max: 0 } }, verify: true };
const NAME = 'failed docs once the count resolved the undetermined ones (all phases) <= 0';

test('merged distributed run: lost answers all committed pass the resolved check; documents the verify step does not find fail it', async () => {
  assert.ok(env.INFLUX_URL, 'the private InfluxDB (make up)');
  const runId = uniqueRunId('mr');
  const base = { ARANGO_URL: server.url, INFLUX_URL: env.INFLUX_URL, ...knobs };
  const out = { runId, args: ['--out', `influxdb=${env.INFLUX_URL}`, '--tag', `testid=${runId}`] };
  await setFaults({ cutAfterBodyRate: 0.2, seed: 3 });
  const instance = await runK6(E1, { ...base, DISTRIBUTED: '1' }, out);
  await setFaults({});
  assert.equal(instance.code, 0, explain(instance));
  const verify = await runK6(E1, { ...base, DISTRIBUTED: 'verify', KEEP: '1' }, out);
  assert.equal(verify.code, 0, explain(verify));
  const merged = await merge({ influx: env.INFLUX_URL, testid: runId });
  const undetermined = merged.phases.reduce((a, r) => a + r.docs_undetermined, 0);
  assert.ok(undetermined > 0, `some batch was cut after its commit: ${JSON.stringify(merged.phases)}`);
  assert.equal(merged.verification.failed_resolved, 0, JSON.stringify(merged.verification));
  const check = checkThresholds(merged, doc).find((c) => c.name === NAME);
  assert.deepEqual(check, { name: NAME, value: 0, limit: 0, ok: true });

  // Documents the verify step does not find are failed after all: seven removed behind the
  // run's back, then verified again (the count fails too: that is a loss; here only the
  // resolved check's figure is asserted).
  const coll = `/_db/k6wp_${runId}/_api/document/k6wp_${runId}`;
  for (let k = 0; k < 7; k++) {
    const res = await fetch(`${server.url}${coll}/K${k}`, { method: 'DELETE' });
    assert.ok(res.status < 300, `DELETE K${k}: ${res.status}`);
  }
  const again = await runK6(E1, { ...base, DISTRIBUTED: 'verify' }, out);
  assert.notEqual(again.code, 0, explain(again));
  const merged2 = await merge({ influx: env.INFLUX_URL, testid: runId });
  const check2 = checkThresholds(merged2, doc).find((c) => c.name === NAME);
  assert.deepEqual(check2, { name: NAME, value: 7, limit: 0, ok: false });
});
