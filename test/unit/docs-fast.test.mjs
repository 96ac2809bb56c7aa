// The fast body builders of lib/docs.js must produce what the simple per-document path
// produces: valid JSON, the requested keys (unique), the stamp, seeded payloads of the
// requested size. Speed is measured in bench/, never here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createDocs } from '../../lib/docs.js';
import { keyArray } from '../../lib/keys.js';

// The reference every body must equal: one JSON array of docs.doc() per key.
const joined = (d, keys, stamp) => `[${keyArray(keys).map((n) => d.doc(n, stamp)).join(',')}]`;

const cfg = (over = {}) => ({ DOC_SHAPE: 'e1', DOC_BYTES: 1200, COMPLEXITY: 10, DOC_POOL: 1024, SEED: 1, ...over });
const range = (a, n) => Array.from({ length: n }, (_, i) => a + i);
const isBytes = (b) => b instanceof ArrayBuffer || b instanceof Uint8Array;
const text = (body) => (typeof body === 'string' ? body : Buffer.from(body).toString('latin1'));
const PUT = { open: '{"Id":"', mid: '","Type":"PUT","Document":', close: '}' };
const META = ',"@metadata":{"@collection":"Users"}';

test('batch() is byte-identical to the per-document join for every pooled shape and key field', () => {
  const keys = [5, 3, 999999, 0, 12, 1024, 2048, 123456789];
  for (const shape of ['e1', 'user', 'complexity']) {
    for (const keyField of ['key', '_key']) {
      const d = createDocs(cfg({ DOC_SHAPE: shape }), { keyField });
      for (const stamp of ['l', 'o17', 'm3']) {
        assert.equal(d.batch(keys, stamp), joined(d, keys, stamp), `${shape}/${keyField}/${stamp}`);
        assert.equal(d.batch(keys.slice(0, 3), stamp), joined(d, keys.slice(0, 3), stamp), 'another batch size');
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
  const cases = [[1000, 1000], [1234567, 2500], [1000002, 1000], [99999999001, 1001], [999500, 1000], [99999999000, 1000], [5, 10], [1000, 1], [123456789012, 3], [4000, 0]];
  for (const [start, count] of cases) {
    const arr = JSON.parse(text(d.rangeBody(start, count, 'l')));
    assert.equal(arr.length, count, `start ${start}`);
    assert.deepEqual(arr.map((x) => x._key), range(start, count).map((n) => `K${n}`));
    assert.ok(arr.every((x) => x.w === 'l' && typeof x.s === 'string' && typeof x.f8 === 'number'));
  }
  // Byte path for keys of any width (a view of the start of the one body for a batch shorter
  // than the largest so far); a reused body must not leak an older batch.
  assert.ok(isBytes(d.rangeBody(5000, 1000, 'l')));
  const first = text(d.rangeBody(5000, 1000, 'l'));
  text(d.rangeBody(88000, 1000, 'l'));
  assert.equal(text(d.rangeBody(5000, 1000, 'l')), first);
  // same width, same low digits (the image copy is skipped), other low digits (copied again)
  text(d.rangeBody(7000, 1000, 'l'));
  assert.equal(text(d.rangeBody(5000, 1000, 'l')), first);
  assert.deepEqual(JSON.parse(text(d.rangeBody(5500, 1000, 'l'))).map((x) => x._key), range(5500, 1000).map((n) => `K${n}`));
  assert.equal(text(d.rangeBody(5000, 1000, 'l')), first);
  assert.deepEqual(JSON.parse(text(d.rangeBody(8000, 1000, 'l'))).map((x) => x._key), range(8000, 1000).map((n) => `K${n}`));
});

test('rangeBody() documents are the batch() documents up to whitespace and payload pairing', () => {
  const d = createDocs(cfg(), { keyField: 'key' });
  const pool = new Set(JSON.parse(joined(d, range(0, 1024), 'l')).map((x) => x.s));
  const arr = JSON.parse(text(d.rangeBody(31000, 2000, 'o9')));
  const ref = JSON.parse(joined(d, [31000], 'o9'))[0];
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
  assert.equal(body, joined(d, [2000, 2001, 2002], 'l'));
});

// keysBody(): any key list (overwrite and mixed batches draw keys at random) as a patched
// byte image. Widths from 1 to 13 digits share one body; order and stamps must be exact.
const WIDE = [5, 3, 999999, 0, 12, 1024, 2048, 123456789, 1000000, 9999, 10000, 99999999, 100000000, 9999999999, 10000000000, 1234567890123];

test('keysBody() holds exactly the given keys in their order, with the stamp, for every key width and stamp length', () => {
  for (const keyField of ['key', '_key']) {
    const d = createDocs(cfg(), { keyField });
    // narrow keys first (the layout grows when a wider key comes), then wide, then narrow again
    const lists = [[7, 3, 5001, 42], [7, 123456, 99999999, 100000000, 9999999999, 5, 12345], WIDE, [...WIDE].reverse(), [1, 2, 3, 4], range(123456, 1000).reverse()];
    for (const keys of lists) {
      // a fresh builder starts at the narrowest layout this list needs (2, 3 or 4 key words)
      const fresh = JSON.parse(text(createDocs(cfg(), { keyField }).keysBody(keys, 'o9')));
      assert.deepEqual(fresh.map((x) => `${x[keyField]}/${x.w}`), keys.map((n) => `K${n}/o9`));
      for (const stamp of ['l', 'o17', 'm3', 'o1234567', 'm12345678901']) {
        const body = d.keysBody(keys, stamp);
        assert.ok(isBytes(body), `${keyField} ${stamp}`);
        const arr = JSON.parse(text(body));
        assert.deepEqual(arr.map((x) => x[keyField]), keys.map((n) => `K${n}`), `${keyField} ${stamp} keys`);
        assert.ok(arr.every((x) => x.w === stamp), `${keyField} ${stamp} stamps`);
      }
    }
  }
});

test('keysBody() documents are the batch() documents of slot i, up to whitespace', () => {
  const d = createDocs(cfg(), { keyField: 'key' });
  const keys = [88, 123456, 7, 1e9 + 3];
  const arr = JSON.parse(text(d.keysBody(keys, 'o5')));
  for (const [i, x] of arr.entries()) {
    // payload of slot i = pool[i % P], as in the document of key i
    assert.deepEqual(x, { ...JSON.parse(d.doc(i, 'o5')), key: `K${keys[i]}` });
    assert.deepEqual(Object.keys(x), Object.keys(JSON.parse(d.doc(i, 'o5'))), 'fields in the same order');
  }
  const size = text(d.keysBody(range(50000, 1000), 'o5')).length / 1000;
  assert.ok(Math.abs(size - 1200) <= 60, `${size} bytes per document for DOC_BYTES=1200`);
});

test('keysBody() reuses its image: no earlier key or stamp leaks into a later batch', () => {
  const d = createDocs(cfg(), { keyField: '_key' });
  const a = text(d.keysBody([9, 8, 7], 'o1'));
  d.keysBody([123456789, 99999999, 7777777], 'm12345');
  assert.equal(text(d.keysBody([9, 8, 7], 'o1')).replace(/ +/g, ' '), a.replace(/ +/g, ' '));
  assert.deepEqual(JSON.parse(text(d.keysBody([9, 8, 7], 'o1'))), JSON.parse(a));
});

test('keysBody() as RavenDB commands (bulk insert and bulk_docs) and as a PostgreSQL binary jsonb parameter', () => {
  for (const shape of ['e1', 'user', 'complexity']) {
    const d = createDocs(cfg({ DOC_SHAPE: shape }), { keyField: null, extra: META });
    const keys = [77, 1e6 + 1, 31];
    const arr = JSON.parse(text(d.keysBody(keys, 'o2', PUT)));
    assert.deepEqual(arr.map((c) => c.Id), ['K77', 'K1000001', 'K31']);
    assert.ok(arr.every((c) => c.Type === 'PUT' && c.Document.w === 'o2' && c.Document['@metadata']['@collection'] === 'Users'), shape);
    const wrapped = JSON.parse(text(d.body(keys, 'o2', { envelope: PUT, wrap: { open: '{"Commands":', close: '}' } })));
    assert.deepEqual(wrapped.Commands, arr);
  }
  const pg = createDocs(cfg(), { keyField: 'key' });
  const bin = new Uint8Array(pg.body([5, 6], 'o3', { lead: '\u0001' }));
  assert.equal(bin[0], 1, 'jsonb binary format: version byte 1, then the JSON text');
  assert.deepEqual(JSON.parse(Buffer.from(bin.subarray(1)).toString('latin1')).map((x) => x.key), ['K5', 'K6']);
});

test('body() picks the path: consecutive run -> rangeBody, other keys -> keysBody, no pool or keys beyond 2^53 -> the string', () => {
  const d = createDocs(cfg(), { keyField: '_key' });
  const run = range(5000, 1000);
  run.consecutive = true;
  assert.equal(text(d.body(run, 'l')), text(d.rangeBody(5000, 1000, 'l')));
  assert.equal(text(d.body([3, 1, 2], 'o1')), text(d.keysBody([3, 1, 2], 'o1')));
  // a lead byte is never part of a string body
  assert.equal(d.body([2 ** 53 + 2, 2], 'o1', { lead: '\u0001' }), d.batch([2 ** 53 + 2, 2], 'o1'));
  const wrap = { open: '{"Commands":', close: '}' };
  assert.equal(d.body([2 ** 53 + 2], 'o1', { wrap }), `{"Commands":${d.batch([2 ** 53 + 2], 'o1')}}`);
  const rs = createDocs(cfg({ DOC_SHAPE: 'random-shapes', COMPLEXITY: 5 }), { keyField: '_key' });
  assert.equal(rs.body([2000, 7], 'o1'), joined(rs, [2000, 7], 'o1'));
  assert.equal(d.body([], 'o1'), '[]');
});

test('prepare() makes the one body of a format up front: no batch of any key width, stamp or shorter size makes an image', () => {
  const d = createDocs(cfg(), { keyField: '_key' });
  const before = d.builds(); // (counts every builder of the process)
  d.prepare({ count: 1000, maxKey: 25000 });
  assert.equal(d.builds() - before, 1, 'one image for every batch of this format');
  for (const start of [0, 1000, 9000, 10000, 24000]) { // every key width of a load phase
    const load = range(start, 1000);
    load.consecutive = true;
    assert.deepEqual(JSON.parse(text(d.body(load, 'l'))).map((x) => x._key), range(start, 1000).map((n) => `K${n}`));
  }
  d.body(range(3, 1000).reverse(), 'o17');
  d.body(range(24000, 1000).reverse(), 'm3');
  const short = d.body(range(3, 999), 'o18'); // the last, shorter batch: the start of the same body
  assert.ok(short instanceof Uint8Array && short.byteLength < text(d.body(range(3, 1000), 'o18')).length);
  assert.equal(d.builds() - before, 1, 'no image made by a batch');
  // a wider key or a longer stamp than prepared makes a new body (and one image), never a second one kept beside it
  d.body([1e10, 5], 'o1');
  d.body([7, 5], 'o1234567890');
  assert.equal(d.builds() - before, 3);
});

test('one body per format serves ranges and key lists alike: a shorter batch, then a full one, leaves nothing behind', () => {
  for (const [keyField, env, wrap, lead] of [['_key', null, null, ''], ['key', null, null, '\u0001'], [null, PUT, { open: '{"Commands":', close: '}' }, '']]) {
    const d = createDocs(cfg(), { keyField, extra: keyField ? '' : META });
    const before = d.builds();
    const ids = (b) => {
      const s = text(b);
      const arr = JSON.parse(lead ? s.slice(1) : s);
      return (wrap ? arr.Commands : arr).map((x) => (keyField ? x[keyField] : x.Id));
    };
    const opts = { envelope: env, wrap, lead };
    const run = (a, n) => Object.assign(range(a, n), { consecutive: true });
    const seq = [[run(7000, 500), 'l'], [run(7500, 200), 'l'], [[9, 123456789, 5, 42], 'o3'], [run(1000, 500), 'l'], [range(2000, 500).reverse(), 'm12'], [run(123000, 499), 'b']];
    for (const [keys, stamp] of seq) {
      const b = d.body(keys, stamp, opts);
      assert.deepEqual(ids(b), [...keys].map((n) => `K${n}`), `${keyField} ${stamp}`);
      const arr = JSON.parse(lead ? text(b).slice(1) : text(b));
      assert.ok((wrap ? arr.Commands.map((c) => c.Document) : arr).every((x) => x.w === stamp));
    }
    assert.equal(d.builds() - before, 1, 'one image for the whole sequence');
  }
});

test('an image holds min(batch size, DOC_POOL) documents and only that much of the pool is made', () => {
  let made = 0;
  const toBytes = (s) => { made = s.length; return Buffer.from(s, 'latin1').buffer.slice(0); };
  const small = createDocs(cfg({ DOC_POOL: 10 }), { keyField: 'key', toBytes });
  small.prepare({ count: 1000, maxKey: 5000 });
  const perDoc = made / 10;
  const large = createDocs(cfg({ DOC_POOL: 100000 }), { keyField: 'key', toBytes });
  large.prepare({ count: 200, maxKey: 5000 });
  assert.equal(made, perDoc * 200);
  // slot i holds pool entry i % DOC_POOL: with DOC_POOL=10 the 11th document repeats the first payload
  const arr = JSON.parse(text(small.rangeBody(1000, 20, 'l')));
  assert.equal(arr[10].s, arr[0].s);
  assert.notEqual(arr[1].s, arr[0].s);
});

test('RavenDB bulk_docs insert and upsert share one body: the change vector is rewritten when the operation changes', () => {
  const insert = { open: '{"Id":"', mid: '","ChangeVector":"","Type":"PUT","Document":', close: '}' };
  const upsert = { open: '{"Id":"', mid: '","ChangeVector":null,"Type":"PUT","Document":', close: '}' };
  insert.mids = upsert.mids = [insert.mid, upsert.mid];
  const wrap = { open: '{"Commands":', close: '}' };
  const d = createDocs(cfg(), { keyField: null, extra: META });
  const before = d.builds();
  d.prepare({ count: 1000, maxKey: 50000, envelope: insert, wrap });
  d.prepare({ count: 1000, maxKey: 50000, envelope: upsert, wrap });
  const run = (a, n) => Object.assign(range(a, n), { consecutive: true });
  const check = (b, keys, cv, stamp) => {
    const arr = JSON.parse(text(b)).Commands;
    assert.deepEqual(arr.map((c) => c.Id), keys.map((n) => `K${n}`));
    assert.ok(arr.every((c) => c.ChangeVector === cv && c.Type === 'PUT' && c.Document.w === stamp), `${cv} ${stamp}`);
  };
  check(d.body(run(1000, 1000), 'l', { envelope: insert, wrap }), range(1000, 1000), '', 'l');
  check(d.body(run(3000, 400), 'l', { envelope: insert, wrap }), range(3000, 400), '', 'l');
  check(d.body([7, 42000, 123], 'o1', { envelope: upsert, wrap }), [7, 42000, 123], null, 'o1');
  check(d.body(range(10, 1000), 'm2', { envelope: upsert, wrap }), range(10, 1000), null, 'm2');
  check(d.body(run(5000, 1000), 'l', { envelope: insert, wrap }), range(5000, 1000), '', 'l');
  assert.equal(d.builds() - before, 1, 'one image for both operations');
});
