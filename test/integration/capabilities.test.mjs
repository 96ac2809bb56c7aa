// Workloads ask for capabilities, never for a database (lib/capabilities.js): a workload on a
// target that lacks what it needs is refused at startup with one line and exit 107, before
// the target is even contacted (nothing is created). The fixtures pair workloads and targets
// that no scenario of the pack pairs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { localEnv, psql, runK6, uniqueRunId } from '../helpers/k6.mjs';

const env = localEnv();
const explain = (r) => `exit ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr.slice(-3000)}`;

const CASES = [
  ['arangobench-on-postgres', { ARANGOBENCH_CASE: 'crud', REQUESTS: '50' }, 'arangobench needs single-document operations (insert, read, update, delete one document), which the postgres target does not offer (it offers: batch insert, batch upsert, count, readback, increment)'],
  ['arangobench-on-postgres', { ARANGOBENCH_CASE: 'multi-collection', REQUESTS: '50' }, 'arangobench needs transactions across collections, 2 collections, which the postgres target does not offer'],
  ['bulk-insert-on-postgres', {}, 'bulk-insert needs batch operation bulk, which the postgres target does not offer'],
  ['bulk-insert-on-arangodb', { ARANGO_URL: 'http://127.0.0.1:9' }, 'bulk-insert needs batch operation bulk, which the arangodb target does not offer'],
];

for (const [fixture, knobs, line] of CASES) {
  test(`${fixture} ${JSON.stringify(knobs)}: refused with one line, exit 107, nothing created`, async () => {
    const runId = uniqueRunId('cap');
    const r = await runK6(`test/integration/fixtures/${fixture}.js`, { PG_URL: env.PG_URL, RUN_ID: runId, ...knobs });
    assert.equal(r.code, 107, explain(r));
    const hits = (r.stdout + r.stderr).split('\n').filter((l) => l.includes('k6-writepath: '));
    assert.equal(hits.length, 1, explain(r));
    assert.ok(hits[0].includes(`k6-writepath: ${line}`), hits[0]);
    assert.equal(await psql(env.PG_URL, `SELECT count(*) FROM pg_class WHERE relname = 'k6wp_${runId}'`), '0');
  });
}
