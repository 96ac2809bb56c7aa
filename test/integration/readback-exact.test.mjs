// The read-back judges each key against its last ACKNOWLEDGED writer (lib/readback.js): a
// later batch that failed is not a writer, so its keys at the previous version are excused,
// not stale (before, the plan's last writer was expected, and a run with failed batches
// reported damage that did not happen: "holds o0, written by o0,m0"). A write that was
// acknowledged and is gone still shows as stale (test/integration/pg-hidden-failure.test.mjs).
// Whole-batch failures on PostgreSQL; per-document failures (named by index, or not named) on
// the ArangoDB test server.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { localEnv, psql, runK6, uniqueRunId } from '../helpers/k6.mjs';
import { startTestServer } from '../helpers/testserver.mjs';

const explain = (r) => `exit ${r.code}\n${r.stdout}\n${r.stderr.slice(-3000)}`;
const ALL = '100000000'; // READBACK: every overwritten key

test('PostgreSQL, MIXED_OP=insert: the failed mixed batches are not writers; their keys are excused, none stale', async () => {
  const { PG_URL } = localEnv();
  const runId = uniqueRunId('rx');
  const table = `k6wp_${runId}`;
  // 2 VUs: overwrite batches o0..o3 and mixed m0, m1 (each 125 new + 125 existing keys).
  // PostgreSQL fails each mixed batch whole (its existing keys violate the primary key).
  const r = await runK6('scenarios/postgres/insert-vs-overwrite.js', { PG_URL, DOCS: '2000', BATCH_SIZE: '250', OVERWRITE_BATCHES: '4',
    MIXED_BATCHES: '2', MIXED_OP: 'insert', READBACK: ALL, KEEP: '1' }, { runId });
  try {
    assert.equal(r.code, 99, explain(r)); // the failed documents' threshold
    const mixed = r.summary.phases.find((p) => p.phase === 'mixed');
    assert.equal(mixed.docs_failed, 500, explain(r));
    const v = r.summary.verification;
    // The database's own view: no mixed batch wrote anything.
    assert.equal(await psql(PG_URL, `SELECT count(*) FROM ${table} WHERE doc->>'w' LIKE 'm%'`), '0');
    // Every key of a mixed batch (its 125 new keys, absent, and its 125 existing keys, at their
    // last overwrite or load version) is excused: 2 batches × 250 distinct keys.
    assert.equal(v.readback_excused, 500, explain(r));
    assert.equal(v.readback_stale_or_missing, 0, explain(r));
    assert.equal(v.readback_unacknowledged, 0);
    assert.equal(v.readback_ok, true);
    // Every key any overwrite or mixed batch chose was read back: the keys holding an
    // overwrite version, the 250 new keys of the mixed batches, and existing keys only a mixed
    // batch chose (at most 250); 1500 positions in all.
    const overwritten = Number(await psql(PG_URL, `SELECT count(*) FROM ${table} WHERE doc->>'w' LIKE 'o%'`));
    assert.ok(v.readback_checked >= overwritten + 250 && v.readback_checked <= Math.min(1500, overwritten + 500), `checked ${v.readback_checked}, overwritten ${overwritten}`);
    assert.match(r.stdout, /read-back: \d+ overwritten keys checked, 0 stale or missing; 500 at their last acknowledged version because later batches to them failed \(not lost writes\) — OK/);
    assert.doesNotMatch(r.stderr, /holds version/);
  } finally {
    await psql(PG_URL, `DROP TABLE IF EXISTS ${table}`);
  }
});

let arango;
const PASSWORD = 'pw-for-tests-only';
before(async () => { arango = await startTestServer('arangodb', ['-root-password', PASSWORD]); });
after(async () => { if (arango) await arango.stop(); });

async function setFaults(faults) {
  const res = await fetch(`${arango.url}/_testserver/faults`, { method: 'POST', body: JSON.stringify(faults) });
  assert.equal(res.status, 200);
}

const basic = `Basic ${Buffer.from(`root:${PASSWORD}`).toString('base64')}`;
async function serverCount(runId) {
  const res = await fetch(`${arango.url}/_db/k6wp_${runId}/_api/collection/k6wp_${runId}/count`, { headers: { Authorization: basic } });
  assert.equal(res.status, 200);
  return (await res.json()).count;
}

test('ArangoDB, documents failing inside 202 answers (named by index): excused per document, none stale', async () => {
  const runId = uniqueRunId('ra');
  // Element failures (errorNum 1200, write-write conflict) only once the load is in: a fault
  // set after the load phase would race with k6, so the whole run has them and the load's
  // failed keys are simply absent (their later upserts create them).
  await setFaults({ elementFailureRate: 0.05, elementFailureErrorNum: 1200, seed: 3 });
  let r;
  try {
    r = await runK6('scenarios/arangodb/insert-vs-overwrite.js', { ARANGO_URL: arango.url, ARANGO_PASSWORD: PASSWORD, INFLUX_URL: undefined,
      DOCS: '3000', BATCH_SIZE: '100', OVERWRITE_BATCHES: '40', MIXED_BATCHES: '6', READBACK: ALL, KEEP: '1' }, { runId });
  } finally {
    await setFaults({});
  }
  assert.equal(r.code, 99, explain(r));
  const failed = r.summary.phases.filter((p) => p.phase !== 'load').reduce((a, p) => a + p.docs_failed, 0);
  assert.ok(failed > 0, 'some overwrite and mixed documents failed');
  const v = r.summary.verification;
  assert.equal(v.readback_stale_or_missing, 0, explain(r));
  assert.ok(v.readback_excused > 0 && v.readback_excused <= failed + r.summary.phases[0].docs_failed, `excused ${v.readback_excused}, failed ${failed}`);
  assert.equal(v.readback_undetermined, 0, 'a 202 answer names each failed document');
  assert.equal(v.readback_ok, true);
  // The test server stores no element it answered with an error: no key holds a version the
  // run was told failed.
  assert.equal(v.readback_unacknowledged, 0);
  assert.equal(await serverCount(runId), v.found);
  // The count, held against the acknowledged new documents, is exact too: a load key whose
  // insert failed and that an acknowledged upsert later created is a new document.
  assert.deepEqual([v.lost, v.unexpected, v.count_ok], [0, 0, true], explain(r));
  assert.equal(v.found, v.acknowledged_new);
  await fetch(`${arango.url}/_api/database/k6wp_${runId}`, { method: 'DELETE', headers: { Authorization: basic } });
});
