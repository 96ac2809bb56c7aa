// The fast body builders of lib/docs.js must produce what the simple per-document path
// produces: valid JSON, the requested keys (unique), the stamp, seeded payloads of the
// requested size. Speed is measured in bench/, never here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createDocs } from '../../lib/docs.js';

const cfg = (over = {}) => ({ DOC_SHAPE: 'e1', DOC_BYTES: 1200, COMPLEXITY: 10, DOC_POOL: 1024, SEED: 1, ...over });
const range = (a, n) => Array.from({ length: n }, (_, i) => a + i);
const text = (body) => (typeof body === 'string' ? body : Buffer.from(body).toString('latin1'));
const PUT = { open: '{"Id":"', mid: '","Type":"PUT","Document":', close: '}' };
const META = ',"@metadata":{"@collection":"Users"}';

test('batch() is byte-identical to the per-document join for every pooled shape and key field', () => {
  const keys = [5, 3, 999999, 0, 12, 1024, 2048, 123456789];
  for (const shape of ['e1', 'user', 'complexity']) {
    for (const keyField of ['key', '_key']) {
      const d = createDocs(cfg({ DOC_SHAPE: shape }), { keyField });
      for (const stamp of ['l', 'o17', 'm3']) {
        assert.equal(d.batch(keys, stamp), d.batchJoin(keys, stamp), `${shape}/${keyField}/${stamp}`);
        assert.equal(d.batch(keys.slice(0, 3), stamp), d.batchJoin(keys.slice(0, 3), stamp), 'another batch size');
      }
    }
  }
  assert.equal(createDocs(cfg()).batch([], 'l'), '[]');
});

test('commands() wraps each document in a RavenDB PUT command with its id', () => {
  const d = createDocs(cfg(), { keyField: null, extra: META });
  const arr = JSON.parse(d.commands([7, 1001, 42], 'o2', PUT));
  assert.deepEqual(arr.map((c) => c.Id), ['K7', 'K1001', 'K42']);
  for (const [i, c] of arr.entries()) {
    assert.equal(c.Type, 'PUT');
    assert.deepEqual(c.Document, JSON.parse(d.doc([7, 1001, 42][i], 'o2')));
    assert.equal(c.Document['@metadata']['@collection'], 'Users');
  }
});

test('rangeBody() holds exactly the keys start..start+count-1, valid JSON, for every key width', () => {
  const d = createDocs(cfg(), { keyField: '_key' });
  const cases = [[1000, 1000], [1234567, 2500], [999500, 1000], [99999999000, 1000], [5, 10], [1000, 1], [123456789012, 3], [4000, 0]];
  for (const [start, count] of cases) {
    const arr = JSON.parse(text(d.rangeBody(start, count, 'l')));
    assert.equal(arr.length, count, `start ${start}`);
    assert.deepEqual(arr.map((x) => x._key), range(start, count).map((n) => `K${n}`));
    assert.ok(arr.every((x) => x.w === 'l' && typeof x.s === 'string' && typeof x.f8 === 'number'));
  }
  // Fast path (ArrayBuffer) for keys of 4..11 digits; a reused buffer must not leak an older batch.
  assert.ok(d.rangeBody(5000, 1000, 'l') instanceof ArrayBuffer);
  const first = text(d.rangeBody(5000, 1000, 'l'));
  text(d.rangeBody(88000, 1000, 'l'));
  assert.equal(text(d.rangeBody(5000, 1000, 'l')), first);
});

test('rangeBody() documents are the batch() documents up to whitespace and payload pairing', () => {
  const d = createDocs(cfg(), { keyField: 'key' });
  const pool = new Set(JSON.parse(d.batchJoin(range(0, 1024), 'l')).map((x) => x.s));
  const arr = JSON.parse(text(d.rangeBody(31000, 2000, 'o9')));
  const ref = JSON.parse(d.batchJoin([31000], 'o9'))[0];
  assert.deepEqual(Object.keys(arr[0]), Object.keys(ref), 'same fields in the same order');
  assert.ok(arr.every((x) => pool.has(x.s)), 'payloads come from the seeded pool');
  assert.equal(new Set(arr.slice(0, 1000).map((x) => x.s)).size, 1000, 'no payload repeats within 1000 consecutive keys');
  const size = text(d.rangeBody(31000, 2000, 'o9')).length / 2000;
  assert.ok(Math.abs(size - 1200) <= 60, `${size} bytes per document for DOC_BYTES=1200`);
});

test('rangeBody() is deterministic per seed and differs between seeds', () => {
  const a = text(createDocs(cfg(), { keyField: '_key' }).rangeBody(7000, 500, 'l'));
  assert.equal(text(createDocs(cfg(), { keyField: '_key' }).rangeBody(7000, 500, 'l')), a);
  assert.notEqual(text(createDocs(cfg({ SEED: 2 }), { keyField: '_key' }).rangeBody(7000, 500, 'l')), a);
});

test('rangeBody() with a PUT envelope is a RavenDB bulk-insert command array', () => {
  for (const shape of ['e1', 'user', 'complexity']) {
    const d = createDocs(cfg({ DOC_SHAPE: shape }), { keyField: null, extra: META });
    const arr = JSON.parse(text(d.rangeBody(77000, 1500, 'l', PUT)));
    assert.equal(arr.length, 1500);
    assert.equal(new Set(arr.map((c) => c.Id)).size, 1500, 'ids unique');
    for (const [i, c] of arr.entries()) {
      assert.equal(c.Id, `K${77000 + i}`);
      assert.equal(c.Type, 'PUT');
      assert.equal(c.Document.w, 'l');
      assert.equal(c.Document['@metadata']['@collection'], 'Users');
    }
  }
});

test('random-shapes has no pool: rangeBody() falls back to the per-document strings', () => {
  const d = createDocs(cfg({ DOC_SHAPE: 'random-shapes', COMPLEXITY: 5 }), { keyField: '_key' });
  const body = d.rangeBody(2000, 3, 'l');
  assert.equal(body, d.batchJoin([2000, 2001, 2002], 'l'));
});
