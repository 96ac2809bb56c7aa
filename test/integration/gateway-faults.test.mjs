// The gateway between k6 and PostgreSQL is one more thing that can die or freeze (docs/gateway.md).
// A request the gateway got whole and never answered may have been committed: such batches are
// undetermined, never "none stored", and the count holds them as a range. Killed for good: the
// run gives up after GIVE_UP (exit 108) and what the table holds lies between the acknowledged
// new documents and those plus the undetermined ones. Frozen past k6's own timeout, then woken:
// the statements it held run after k6 gave up on them, and the verification resolves them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { localEnv, psql, startK6, uniqueRunId } from '../helpers/k6.mjs';

const { PG_URL } = localEnv();
const E1 = 'scenarios/postgres/insert-vs-overwrite.js';
const explain = (r) => `exit ${r.code}\n${r.stdout}\n${r.stderr}`;
const sum = (r, f) => r.summary.phases.reduce((s, p) => s + (p[f] || 0), 0);
const count = async (runId) => Number(await psql(PG_URL, `SELECT count(*) FROM k6wp_${runId}`));

test('the gateway killed for good mid-run: exit 108 after GIVE_UP, no batch it may have committed called "none stored", the table within acknowledged … acknowledged + undetermined', { timeout: 180000 }, async () => {
  const runId = uniqueRunId('gk');
  // A plan no machine finishes before the kill (the run ends by GIVE_UP, not by its plan).
  const run = startK6(E1, { PG_URL, DOCS: '40000', BATCH_SIZE: '200', OVERWRITE_BATCHES: '100000', MIXED_BATCHES: '0', READBACK: '0', VUS: '4', GIVE_UP: '3s', TIMEOUT: '5s' },
    { runId, timeoutMs: 150000 });
  try {
    await run.waitFor(/writing to table/);
    await delay(1000);
    run.gateway.process.kill('SIGKILL');
    const r = await run.done;
    assert.equal(r.code, 108, explain(r));
    assert.match(r.stderr, /answered no batch of this VU for 3s \(GIVE_UP/);
    // Refused connections sent nothing; anything else after the kill was in flight.
    assert.doesNotMatch(r.stderr, /none stored/);
    assert.ok(r.summary, explain(r));
    const acknowledged = sum(r, 'docs_new');
    const undetermined = sum(r, 'docs_undetermined');
    const found = await count(runId);
    assert.ok(found >= acknowledged, `lost: found ${found} < acknowledged ${acknowledged}`);
    assert.ok(found <= acknowledged + undetermined, `found ${found} > acknowledged ${acknowledged} + undetermined ${undetermined}: a batch reported failed was stored`);
  } finally {
    await psql(PG_URL, `DROP TABLE IF EXISTS k6wp_${runId}`);
  }
});

test('the gateway frozen past k6\'s timeout, then woken: the statements it held are undetermined, the verification resolves them (count OK, no key stale)', { timeout: 180000 }, async () => {
  const runId = uniqueRunId('gf');
  // TIMEOUT 1s: k6 gives up on a request after TIMEOUT + 10 s (lib/gateway.js).
  // Frozen once both VUs write (their handles open: an open that never came back wrote nothing
  // and is no undetermined batch), early in a load phase of 500 batches.
  const run = startK6(E1, { PG_URL, DOCS: '100000', BATCH_SIZE: '200', OVERWRITE_BATCHES: '60', MIXED_BATCHES: '0', VUS: '2', TIMEOUT: '1s', GIVE_UP: '60s' },
    { runId, timeoutMs: 150000 });
  try {
    await run.waitFor(/writing to table/);
    for (let i = 0; i < 400 && (await count(runId)) < 2000; i++) await delay(25);
    run.gateway.process.kill('SIGSTOP');
    await delay(13000);
    run.gateway.process.kill('SIGCONT');
    const r = await run.done;
    assert.ok(r.summary, explain(r));
    const undetermined = sum(r, 'docs_undetermined');
    assert.ok(undetermined > 0, `the frozen requests are undetermined: ${explain(r)}`);
    assert.match(r.stderr, /got no answer \(timeout\): stored or not, counted failed and undetermined/);
    const v = r.summary.verification;
    assert.equal(v.count_ok, true, explain(r));
    assert.equal(v.readback_stale_or_missing, 0, explain(r));
    assert.match(r.stdout, /^verification: expected \d+[^\n]*, found \d+ — OK; \d+ documents were undetermined/m);
  } finally {
    await psql(PG_URL, `DROP TABLE IF EXISTS k6wp_${runId}`);
  }
});
