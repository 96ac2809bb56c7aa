import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BatchPicker, OwnedKeys, Zipfian, keyArray, keyRange, loadBatchCount, loadBatchKeys, makePicker, pickDistinct, vuBatchCount } from '../../lib/keys.js';
import { Rng } from '../../lib/rand.js';

test('load batches of all VUs cover [0, DOCS) exactly once', () => {
  for (const [docs, batch, vus] of [[20000, 1000, 2], [10007, 1000, 3], [5, 2, 3], [1, 1, 1]]) {
    const L = loadBatchCount(docs, batch);
    const seen = new Uint8Array(docs);
    let batches = 0;
    for (let v = 0; v < vus; v++) {
      const n = vuBatchCount(L, vus, v);
      batches += n;
      for (let i = 0; i < n; i++) for (const k of keyArray(loadBatchKeys(v + vus * i, docs, batch))) seen[k]++;
    }
    assert.equal(batches, L);
    assert.ok(seen.every((c) => c === 1), `gap or overlap for ${docs}/${batch}/${vus}`);
  }
});

test('the keys a VU owns are exactly the keys it loaded', () => {
  const docs = 10007; const batch = 1000; const vus = 3;
  const L = loadBatchCount(docs, batch);
  for (let v = 0; v < vus; v++) {
    const loaded = [];
    for (let i = 0; i < vuBatchCount(L, vus, v); i++) loaded.push(...keyArray(loadBatchKeys(v + vus * i, docs, batch)));
    const owned = new OwnedKeys(docs, batch, vus, v);
    assert.equal(owned.size, loaded.length);
    for (let r = 0; r < owned.size; r++) assert.equal(owned.at(r), loaded[r]);
  }
});

test('picks are distinct within a batch, seeded and reproducible', () => {
  const pick = makePicker({ KEY_DIST: 'uniform' }, 5000);
  const a = pickDistinct(1000, 5000, pick, new Rng(7, 'overwrite', 3));
  const b = pickDistinct(1000, 5000, pick, new Rng(7, 'overwrite', 3));
  const c = pickDistinct(1000, 5000, pick, new Rng(8, 'overwrite', 3));
  assert.equal(new Set(a).size, 1000);
  assert.deepEqual(a, b);
  assert.notDeepEqual(a, c);
  assert.ok(a.every((r) => r >= 0 && r < 5000));
  // A batch as large as the space is a permutation of it, even under heavy skew.
  const zp = makePicker({ KEY_DIST: 'zipfian', ZIPF_THETA: 0.99 }, 300);
  assert.equal(new Set(pickDistinct(300, 300, zp, new Rng(1))).size, 300);
  assert.throws(() => pickDistinct(11, 10, pick, new Rng(1)));
});

test('uniform picks spread evenly over the space', () => {
  const n = 10000; const draws = 200000;
  const pick = makePicker({ KEY_DIST: 'uniform' }, n);
  const rng = new Rng(1);
  const deciles = new Array(10).fill(0);
  for (let i = 0; i < draws; i++) deciles[Math.floor(pick(rng) / (n / 10))]++;
  for (const d of deciles) assert.ok(Math.abs(d - draws / 10) < draws / 10 * 0.05, `decile ${d}`);
});

test('zipfian concentrates on few keys, hotspot sends the configured share to hot keys', () => {
  const n = 100000; const draws = 100000;
  const z = makePicker({ KEY_DIST: 'zipfian', ZIPF_THETA: 0.99 }, n);
  const counts = new Map();
  const rng = new Rng(3);
  for (let i = 0; i < draws; i++) { const r = z(rng); counts.set(r, (counts.get(r) || 0) + 1); }
  const top = [...counts.values()].sort((a, b) => b - a);
  const top1pct = top.slice(0, n / 100).reduce((s, c) => s + c, 0);
  assert.ok(top1pct / draws > 0.4, `top 1% of keys got ${top1pct / draws}`);
  assert.ok(new Zipfian(n, 0.99).rank(0.999999) < n);

  const h = makePicker({ KEY_DIST: 'hotspot', HOTSPOT_DATA_PERCENT: 20, HOTSPOT_OPS_PERCENT: 80 }, n);
  const hits = new Map();
  const rng2 = new Rng(4);
  for (let i = 0; i < draws; i++) { const r = h(rng2); hits.set(r, (hits.get(r) || 0) + 1); }
  // The hot set is 20% of the keys; the 20% most-hit keys must hold about 80% of the picks.
  const sorted = [...hits.values()].sort((a, b) => b - a);
  const hot = sorted.slice(0, n * 0.2).reduce((s, c) => s + c, 0) / draws;
  assert.ok(hot > 0.78 && hot < 0.86, `hot share ${hot}`);
});

test('load batches are key ranges, one ascending run of keys (the adapters then use rangeBody)', async () => {
  const { isConsecutive, rangeStart } = await import('../../lib/keys.js');
  for (const [j, docs, b, start, n] of [[0, 1000, 250, 0, 250], [3, 1000, 250, 750, 250], [7, 7500, 1000, 7000, 500], [2, 2100, 1000, 2000, 100]]) {
    const keys = loadBatchKeys(j, docs, b);
    assert.ok(isConsecutive(keys));
    assert.deepEqual([rangeStart(keys), keys.length], [start, n]);
    assert.deepEqual(keyArray(keys), Array.from({ length: n }, (_, i) => start + i), 'listed when needed');
  }
  const arr = [4, 9, 2];
  assert.equal(keyArray(arr), arr, 'an array is used as it is');
  assert.deepEqual(keyArray(keyRange(10, 3)), [10, 11, 12]);
  assert.equal(isConsecutive([5, 6, 7]), false, 'an unmarked array is never taken for a run');
  assert.equal(isConsecutive(keyRange(5, 0)), false, 'an empty batch has no run');
});

test('BatchPicker (the fast path of overwrite/mixed batches) draws exactly the keys of pickDistinct + OwnedKeys.at', () => {
  const dists = [
    { KEY_DIST: 'uniform' },
    { KEY_DIST: 'zipfian', ZIPF_THETA: 0.99 },
    { KEY_DIST: 'hotspot', HOTSPOT_DATA_PERCENT: 20, HOTSPOT_OPS_PERCENT: 80 },
  ];
  // [docs, batch, vus, count]: ordinary batches, a partial last load batch, and a batch as
  // large as the VU's key space (every retry fails; linear probing fills the rest).
  // The last two: owned spaces above MARK_MAX (4 Mi keys) take the hashed path.
  for (const [docs, batch, vus, count] of [[20000, 1000, 2, 1000], [10007, 1000, 3, 700], [3000, 1000, 3, 1000], [2500, 100, 1, 2500], [10000000, 1000, 2, 1000], [4194305, 1, 1, 300]]) {
    for (const cfg of dists) {
      for (let v = 0; v < vus; v++) {
        const owned = new OwnedKeys(docs, batch, vus, v);
        const picker = new BatchPicker(cfg, owned);
        const pick = makePicker(cfg, owned.size);
        for (let j = v; j < v + 4 * vus; j += vus) {
          const n = Math.min(count, owned.size);
          const rngA = new Rng(5, 'overwrite', j);
          const want = pickDistinct(n, owned.size, pick, rngA).map((r) => owned.at(r));
          const rngB = new Rng(5, 'overwrite', j);
          const got = picker.fill(n, rngB, new Array(n + 3).fill(-7), 3);
          assert.deepEqual(got.slice(3), want, `${cfg.KEY_DIST} ${docs}/${batch}/${vus} v${v} j${j}`);
          assert.deepEqual(got.slice(0, 3), [-7, -7, -7], 'keys before the offset are left alone');
          assert.equal(rngB.u32(), rngA.u32(), 'the generator ends in the same state');
        }
      }
    }
  }
  assert.throws(() => new BatchPicker({ KEY_DIST: 'uniform' }, new OwnedKeys(10, 10, 1, 0)).fill(11, new Rng(1), [], 0));
});

test('BatchPicker keeps drawing the same keys across the wrap of its taken-marks generation (255 batches)', () => {
  // One picker serves a VU's whole phase: its marks carry a generation number that restarts
  // every 255 batches. Large batches right after a restart, with small ones between, so marks
  // left from 255 batches before would be seen as taken if the restart did not clear them.
  for (const cfg of [{ KEY_DIST: 'uniform' }, { KEY_DIST: 'zipfian', ZIPF_THETA: 0.99 }]) {
    const owned = new OwnedKeys(3000, 100, 2, 1);
    const picker = new BatchPicker(cfg, owned);
    const pick = makePicker(cfg, owned.size);
    for (let j = 0; j < 600; j++) {
      const n = j % 255 === 0 ? 500 : 1;
      const want = pickDistinct(n, owned.size, pick, new Rng(9, 'mixed', j)).map((r) => owned.at(r));
      const got = picker.fill(n, new Rng(9, 'mixed', j), new Array(n), 0);
      assert.deepEqual(got, want, `${cfg.KEY_DIST} batch ${j}`);
    }
  }
});

test('scatter without BigInt equals the BigInt formula', async () => {
  const { scatter } = await import('../../lib/keys.js');
  // The rule in BigInt, as written down (the oracle of scatter's exact double arithmetic).
  const scatterBigInt = (rank, n) => Number((BigInt(rank) * 2654435761n + 40503n) % BigInt(n));
  const rng = new Rng(9);
  for (const n of [1, 2, 7, 1000, 65537, 99991, 5000000, 1e9, 4294967295]) {
    for (let i = 0; i < 2000; i++) {
      const rank = i < 5 ? [0, 1, n - 1, Math.max(0, n - 2), n >> 1][i] : rng.int(n);
      assert.equal(scatter(rank, n), scatterBigInt(rank, n), `${rank} mod ${n}`);
    }
  }
});

test('the generator and an overwrite batch stay those of recorded runs (same SEED, same keys)', () => {
  // Values from the implementation before the k6 speed-ups of lib/rand.js and BatchPicker:
  // the read-back of a recorded run recomputes its keys, so these must never change.
  const rng = new Rng(1, 'overwrite', 17);
  assert.deepEqual(Array.from({ length: 6 }, () => rng.u32()), [1346292886, 440760375, 1399653517, 2355614251, 2588669250, 4263189664]);
  const keys = new BatchPicker({ KEY_DIST: 'uniform' }, new OwnedKeys(2000000, 1000, 2, 1)).fill(1000, new Rng(1, 'overwrite', 17), new Array(1000), 0);
  assert.deepEqual(keys.slice(0, 5), [627458, 205622, 651882, 1097459, 1205721]);
  assert.equal(keys.reduce((s, x) => s + x, 0), 981849726);
});
