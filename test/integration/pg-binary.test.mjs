// PostgreSQL on bytes: batches go to the server as binary jsonb parameters (lib/pq with
// binary_parameters=yes sends a Uint8Array as binary; jsonb's binary format is version byte 1
// + the JSON text), built from the same patched images as the HTTP bodies. The text path
// stays for a PG_URL that turns binary_parameters off. Both must store exactly the same
// keys with the same stamps (the payload of a key may differ: the byte images pair payloads
// with batch slots), and every stored document must be whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { localEnv, psql, runK6, uniqueRunId } from '../helpers/k6.mjs';

const env = localEnv();
const scenario = 'scenarios/postgres/insert-vs-overwrite.js';
const knobs = { DOCS: '12000', BATCH_SIZE: '1000', VUS: '2', OVERWRITE_BATCHES: '8', MIXED_BATCHES: '4', MIXED_NEW_PERCENT: '30', KEEP: '1' };

async function stored(runId) {
  const t = `k6wp_${runId}`;
  return {
    stamps: await psql(env.PG_URL, `SELECT string_agg(w || ':' || n, ',' ORDER BY w) FROM (SELECT doc->>'w' AS w, count(*) AS n FROM ${t} GROUP BY 1) s`),
    keys: await psql(env.PG_URL, `SELECT md5(string_agg(key || '=' || (doc->>'w'), ',' ORDER BY key)) FROM ${t}`),
    broken: await psql(env.PG_URL, `SELECT count(*) FROM ${t} WHERE doc->>'key' IS DISTINCT FROM key OR NOT (doc ?& array['Hallo','f0','f8','s']) OR length(doc->>'s') < 900`),
    count: await psql(env.PG_URL, `SELECT count(*) FROM ${t}`),
  };
}

test('binary jsonb batches and the text fallback store the same keys and stamps, whole documents', { timeout: 180000 }, async () => {
  const ids = [uniqueRunId('pgbin'), uniqueRunId('pgtxt'), uniqueRunId('pgyes')];
  const urls = [env.PG_URL, `${env.PG_URL}&binary_parameters=no`, `${env.PG_URL}&binary_parameters=on`];
  try {
    const results = [];
    for (let i = 0; i < 3; i++) {
      const r = await runK6(scenario, { ...knobs, PG_URL: urls[i] }, { runId: ids[i] });
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.equal(r.summary.verification.found, 12000 + 4 * 300);
      assert.equal(r.summary.verification.readback_ok, true);
      results.push(await stored(ids[i]));
    }
    const [bin, txt, yes] = results;
    assert.equal(bin.count, '13200');
    assert.equal(bin.broken, '0', 'every document whole, its key field equal to the row key');
    assert.equal(txt.broken, '0');
    assert.equal(bin.stamps, txt.stamps, 'the same number of documents per writing batch');
    assert.equal(bin.keys, txt.keys, 'the same keys, each with the stamp of the same last writer');
    assert.deepEqual(yes, bin, 'binary_parameters=on is the binary path too');
  } finally {
    for (const id of ids) await psql(env.PG_URL, `DROP TABLE IF EXISTS k6wp_${id}`);
  }
});
