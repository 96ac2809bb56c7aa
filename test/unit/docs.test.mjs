import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { createDocs, stampFor } from '../../lib/docs.js';

const cfg = (over = {}) => ({ DOC_SHAPE: 'e1', DOC_BYTES: 1200, COMPLEXITY: 10, DOC_POOL: 1024, SEED: 1, ...over });
const range = (a, n) => Array.from({ length: n }, (_, i) => a + i);

test('e1 documents are valid JSON of about DOC_BYTES with the key and stamp', () => {
  for (const bytes of [300, 1200, 5000]) {
    const docs = createDocs(cfg({ DOC_BYTES: bytes }), { keyField: 'key' });
    const text = docs.batch(range(0, 1000), 'o17');
    const arr = JSON.parse(text);
    assert.equal(arr.length, 1000);
    for (const [i, d] of arr.entries()) {
      assert.equal(d.key, `K${i}`);
      assert.equal(d.w, 'o17');
      assert.equal(typeof d.Hallo, 'number');
      assert.equal(typeof d.f8, 'number');
      const size = JSON.stringify(d).length;
      assert.ok(Math.abs(size - bytes) <= bytes * 0.05 + 10, `doc of ${size} bytes for DOC_BYTES=${bytes}`);
    }
    assert.equal(new Set(arr.map((d) => d.key)).size, 1000, 'keys unique within a batch');
  }
});

test('the same seed gives the same documents; another seed other payloads', () => {
  const a = createDocs(cfg()).batch(range(5, 50), 'l');
  assert.equal(createDocs(cfg()).batch(range(5, 50), 'l'), a);
  assert.notEqual(createDocs(cfg({ SEED: 2 })).batch(range(5, 50), 'l'), a);
});

test('e1 payloads resist compression (E1 picked them to defeat it)', () => {
  const text = createDocs(cfg()).batch(range(0, 1000), 'l');
  const ratio = gzipSync(text).length / text.length;
  assert.ok(ratio > 0.4, `gzip shrinks the batch to ${ratio}`);
  // Documents in one batch do not share payloads (pool >= batch).
  const arr = JSON.parse(text);
  assert.equal(new Set(arr.map((d) => d.s)).size, 1000);
});

test('complexity and random-shapes documents', () => {
  const c = JSON.parse(createDocs(cfg({ DOC_SHAPE: 'complexity', COMPLEXITY: 100 }), { keyField: '_key' }).batch([1, 2], 'l'));
  assert.equal(c[0]._key, 'K1');
  assert.equal(Object.keys(c[0]).filter((k) => k.startsWith('test')).length, 100);
  assert.equal(c[0].test100, 'some test value');
  const r = JSON.parse(createDocs(cfg({ DOC_SHAPE: 'random-shapes', COMPLEXITY: 20 })).batch([1, 2, 3], 'l'));
  const shapes = r.map((d) => Object.keys(d).filter((k) => k.startsWith('a')).sort().join(','));
  assert.equal(new Set(shapes).size, 3, 'every document has its own attribute names');
  assert.equal(Object.keys(r[0]).length, 22);
});

test('documents without a key field carry an extra fragment (RavenDB metadata)', () => {
  const d = createDocs(cfg(), { keyField: null, extra: ',"@metadata":{"@collection":"Users"}' });
  const doc = JSON.parse(d.doc(3, 'l'));
  assert.equal(doc.key, undefined);
  assert.equal(doc['@metadata']['@collection'], 'Users');
  assert.equal(doc.w, 'l');
});

test('stamps name the phase and batch', () => {
  assert.equal(stampFor('load', 4), 'l');
  assert.equal(stampFor('overwrite', 4), 'o4');
  assert.equal(stampFor('mixed', 0), 'm0');
});

test('documents stay byte-identical to those of recorded runs (same SEED, same pool)', async () => {
  // SHA-256 of documents 0..1023 (stamp "l") as generated before the pool generation was made
  // cheaper for k6 (lib/docs.js e1Fragment, lib/rand.js u32): a change of the generator would
  // change what recorded runs wrote, so it must show here.
  const { createHash } = await import('node:crypto');
  const want = {
    'e1/1200': '2a7ec9861d3a3b2d01a9e1257ad37b0f312d8c8f20aea01c28af51e95f359e75',
    'e1/300': '465f1803ff070f7d62d754d46041f71174dcd5dc132842143b502c8c04fb72f7',
    'user/0': 'd7ad0ed008b0392440154a425581751375f8a161af1d568bdaadcb6032a93f16',
  };
  for (const [id, hash] of Object.entries(want)) {
    const [shape, bytes] = id.split('/');
    const d = createDocs({ DOC_SHAPE: shape, DOC_POOL: 1024, SEED: 42, DOC_BYTES: Number(bytes), COMPLEXITY: 20 }, { keyField: 'key' });
    let s = '';
    for (let i = 0; i < 1024; i++) s += d.doc(i, 'l');
    assert.equal(createHash('sha256').update(s).digest('hex'), hash, id);
  }
});
