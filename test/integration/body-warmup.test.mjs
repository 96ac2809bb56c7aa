// Issue: at demo size the first batch of each VU paid a one-off body-building warm-up inside
// the phase's wall time, so load-phase docs/s read ~5x too low. The adapters now build their
// byte images in the init context; this proves that no batch of an E1 run builds one, for
// the three adapters, at several sizes (key widths 1..7 digits, a shorter last batch), and that
// every batch gets a byte body (no fallback to strings). Counts, not timings.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { localEnv, runK6 } from '../helpers/k6.mjs';

const env = localEnv();

for (const [docs, batch] of [['20000', '1000'], ['2500000', '10000'], ['4500', '1000']]) {
  test(`every E1 body is built from images made in init (DOCS=${docs}, BATCH_SIZE=${batch})`, async () => {
    const r = await runK6('test/integration/fixtures/body-warmup.js', { PG_URL: env.PG_URL, DOCS: docs, BATCH_SIZE: batch, OVERWRITE_BATCHES: '6', MIXED_BATCHES: '4' });
    assert.equal(r.code, 0, r.stderr);
    const m = /WARMUP (\{.*\})/.exec(r.stderr.replace(/\\"/g, '"'));
    assert.ok(m, r.stderr);
    const w = JSON.parse(m[1]);
    assert.ok(w.built_in_init > 0, JSON.stringify(w));
    // also for DOCS=4500: its last load batch of 500 keys reuses the image of its key width
    assert.equal(w.built_in_iteration, 0, JSON.stringify(w));
    assert.deepEqual(w.strings, [], 'every batch took a byte path');
    assert.equal(w.batches, 3 * (Math.ceil(Number(docs) / Number(batch)) + 10));
  });
}
