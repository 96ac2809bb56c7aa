// Distributed instances must agree on every plan knob (lib/config.js knobScope): an instance
// started with another arrival rate or VU ceiling refuses to join the run's database instead
// of adding its own batches to it. Against the RavenDB API test server (a test double; never
// something to benchmark).
import { test } from 'node:test';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import { runK6, uniqueRunId } from '../helpers/k6.mjs';
import { startTestServer } from '../helpers/testserver.mjs';

const explain = (r) => `exit ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr.slice(-3000)}`;
const scenario = 'scenarios/ravendb/bulk-insert.js';
// A DISTRIBUTED=1 process without a segment writes instance-all-summary.json.
const summaryOf = (r) => JSON.parse(readFileSync(path.join(r.dir, 'instance-all-summary.json'), 'utf8'));

test('open model: an instance with other RATE_STAGES or MAX_VUS refuses to join, the first instance\'s documents stay as they were', async () => {
  const srv = await startTestServer('ravendb', []);
  const runId = uniqueRunId('pk');
  const knobs = { RAVEN_URL: srv.url, RATE_STAGES: '1s:5', VUS: '1', MAX_VUS: '3', BATCH_SIZE: '20', DOC_POOL: '20', DISTRIBUTED: '1', RUN_ID: runId };
  const count = async () => {
    const res = await fetch(`${srv.url}/databases/k6wp_${runId}/collections/stats`);
    return (await res.json()).Collections.Users;
  };
  try {
    const first = await runK6(scenario, knobs, { runId });
    assert.equal(first.code, 0, explain(first));
    assert.match(first.stdout + first.stderr, /kept for the other instances/);
    const stored = await count();
    assert.ok(stored > 0 && stored === summaryOf(first).phases[0].docs_ok, `stored ${stored}`);
    for (const other of [{ RATE_STAGES: '1s:10' }, { MAX_VUS: '4' }]) {
      const late = await runK6(scenario, { ...knobs, ...other }, { runId });
      assert.equal(late.code, 108, explain(late));
      assert.match(late.stdout + late.stderr, /belongs to instances with other workload knobs/);
      assert.equal(await count(), stored, `${JSON.stringify(other)}: nothing written`);
    }
    // The same knobs join (without a segment it writes the same ids again: bulk insert overwrites).
    const again = await runK6(scenario, knobs, { runId });
    assert.equal(again.code, 0, explain(again));
    assert.match(again.stdout + again.stderr, /kept for the other instances/);
    assert.ok(summaryOf(again).phases[0].docs_ok > 0);
  } finally {
    await srv.stop();
  }
});
