// A deliberately hidden failure on PostgreSQL: a trigger silently skips the rows of one
// overwrite batch (the statement succeeds, as with E1's patched ArangoDB that skipped the old
// revision). The client sees success; the read-back must still report exactly the keys that
// do not hold their last write, and the run must fail.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { localEnv, psql, runK6, uniqueRunId } from '../helpers/k6.mjs';

const scenario = 'scenarios/postgres/insert-vs-overwrite.js';
const { PG_URL } = localEnv();

test('writes silently dropped by the database are reported as stale, exactly, and fail the run', async () => {
  const runId = uniqueRunId('hf');
  const table = `k6wp_${runId}`;
  const env = { PG_URL, DOCS: '4000', BATCH_SIZE: '200', OVERWRITE_BATCHES: '10', MIXED_BATCHES: '4', READBACK: '100000000' };
  const first = await runK6(scenario, { ...env, PHASES: 'load', KEEP: '1' }, { runId });
  assert.equal(first.code, 0, first.stdout + first.stderr);
  await psql(PG_URL, `CREATE TABLE dropped_${runId} (key text);
    CREATE FUNCTION dropped_${runId}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.doc->>'w' = 'o3' THEN INSERT INTO dropped_${runId} VALUES (NEW.key); RETURN NULL; END IF; RETURN NEW; END $$;
    CREATE TRIGGER drop_o3 BEFORE UPDATE ON ${table} FOR EACH ROW EXECUTE FUNCTION dropped_${runId}();`);
  try {
    const r = await runK6(scenario, { ...env, REUSE: '1', KEEP: '1' }, { runId });
    const ow = r.summary.phases.find((p) => p.phase === 'overwrite');
    assert.equal(ow.docs_failed, 0, 'the client was told every batch succeeded');
    assert.equal(await psql(PG_URL, `SELECT count(*) FROM dropped_${runId}`), '200', 'the trigger dropped batch o3 whole');
    // Stale = dropped keys that no later batch rewrote: they still hold the load version or
    // an earlier overwrite (o0..o2); keys of one VU are written in increasing batch order.
    const expectedStale = Number(await psql(PG_URL, `SELECT count(*) FROM ${table} t JOIN dropped_${runId} d USING (key)
      WHERE t.doc->>'w' IN ('l', 'o0', 'o1', 'o2')`));
    assert.ok(expectedStale > 0);
    assert.equal(r.summary.verification.readback_stale_or_missing, expectedStale, r.stdout + r.stderr);
    assert.equal(r.summary.verification.found, r.summary.verification.expected, 'counts alone cannot see it');
    assert.equal(r.summary.verification.readback_ok, false);
    assert.equal(r.code, 99, 'the verification threshold fails the run');
    assert.match(r.stdout, new RegExp(`read-back: \\d+ overwritten keys checked, ${expectedStale} stale or missing — FAILED`));
    assert.match(r.stderr, /key \d+ holds version (l|o[0-2]); the plan's writers of it: .*o3/);
  } finally {
    await psql(PG_URL, `DROP TABLE IF EXISTS ${table}; DROP TABLE IF EXISTS dropped_${runId}; DROP FUNCTION IF EXISTS dropped_${runId}()`);
  }
});
