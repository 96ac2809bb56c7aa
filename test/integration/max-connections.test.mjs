// Issue 27 class 7: more VUs than the server's max_connections. The VUs that get no connection
// are refused "not now" (53300) and send their batches again (counted); each VU gives its connection back when its
// plan is done, so teardown — a connection of its own — still verifies and drops the run's
// table. Runs on a PostgreSQL of its own (max_connections=20), never the shared one.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { psql, runK6, uniqueRunId } from '../helpers/k6.mjs';
import { startPrivatePg } from '../helpers/pgprivate.mjs';

let pg;
before(async () => { pg = await startPrivatePg({ name: 'pg-max-connections', settings: ['max_connections=20', 'superuser_reserved_connections=3'] }); });
after(() => { if (pg) pg.stop('fast'); });

test('VUS above max_connections: refused batches sent again, connections released, verification runs, the table is dropped', { timeout: 180000 }, async () => {
  const runId = uniqueRunId('mc');
  // 30 VUs, 17 connections for them: a VU keeps its one connection for its whole plan.
  const r = await runK6('scenarios/postgres/insert-vs-overwrite.js', { PG_URL: pg.url, VUS: '30', DOCS: '6000', BATCH_SIZE: '100', OVERWRITE_BATCHES: '60', MIXED_BATCHES: '30', TIMEOUT: '5s' }, { runId, timeoutMs: 170000 });
  const s = r.summary;
  assert.ok(s, r.stderr);
  // A VU refused with 53300 ("not now", docs/postgres.md) sends its batch again until a slot is free.
  const failed = s.phases.reduce((a, p) => a + p.docs_failed, 0);
  const retries = s.phases.reduce((a, p) => a + p.retries, 0);
  assert.equal(failed, 0, `nothing failed: ${JSON.stringify(s.phases.map((p) => p.failed_by_reason))}`);
  assert.ok(retries > 0, `the refused batches were sent again: ${r.stderr.slice(-1500)}`);
  assert.match(r.stderr, /failed \(connection\): not sent, the server refused the connection [^\n]*53300/);
  assert.equal(s.verification.ran, true, `teardown got a connection and verified: ${r.stderr.slice(-1500)}`);
  assert.equal(s.verification.found, s.verification.acknowledged_new);
  assert.equal(r.code, 0, r.stderr.slice(-1500));
  assert.match(r.stderr, new RegExp(`table public\\.k6wp_${runId}: dropped`));
  assert.equal(await psql(pg.url, `SELECT count(*) FROM pg_class WHERE relname = 'k6wp_${runId}'`), '0');
});
