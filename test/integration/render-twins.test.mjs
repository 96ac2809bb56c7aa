// The gateway's rendered bodies (gateway/render) are the exact twins of the JavaScript ones:
// for the same recipe, POST /render/body answers byte for byte what lib/docs.js body() makes
// from keyArray() of the same keys (drawn in JavaScript by lib/keys.js). Keys drawn by the
// gateway (uniform overwrite and mixed batches), key ranges and key lists; 12- and 20-byte key
// regions; short and long stamps; bodies shorter than the one the builder made.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startGateway } from '../../scripts/lib/gateway.mjs';
import { createDocs } from '../../lib/docs.js';
import { BatchPicker, DrawnKeys, OwnedKeys, keyArray, keyRange } from '../../lib/keys.js';
import { Rng } from '../../lib/rand.js';

const gw = startGateway({});
after(() => gw.stop());

async function post(path, body, type) {
  const res = await fetch(`${gw.url}${path}`, { method: 'POST', body, headers: { 'Content-Type': type, 'X-WP-Token': gw.token } });
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
}

// The gateway's body for a recipe (its image uploaded first, as lib/gateway.js does).
async function rendered(recipe) {
  const up = await post('/render/image', Buffer.from(recipe.image.bytes), 'application/octet-stream');
  assert.equal(up.status, 200, up.bytes.toString());
  const { image: _img, byteLength: _n, ...rest } = recipe;
  const res = await post('/render/body', JSON.stringify({ ...rest, image: JSON.parse(up.bytes).id }), 'application/json');
  assert.equal(res.status, 200, res.bytes.toString());
  assert.equal(res.bytes.length, recipe.byteLength, 'byteLength is the rendered body\'s size');
  return res.bytes;
}

const bytesOf = (b) => Buffer.from(b instanceof ArrayBuffer ? new Uint8Array(b) : b);
const cfg = (over = {}) => ({ DOC_SHAPE: 'e1', DOC_BYTES: 1200, COMPLEXITY: 10, DOC_POOL: 1024, SEED: 1, KEY_DIST: 'uniform', ZIPF_THETA: 0.99, HOTSPOT_DATA_PERCENT: 20, HOTSPOT_OPS_PERCENT: 80, ...over });
const PG = { lead: '\u0001' };

// One body of each kind, gateway against JavaScript; returns the recipe's keys (what crossed).
async function twin(docs, keys, stamp, opts = PG) {
  const recipe = docs.recipe(keys, stamp, opts);
  assert.ok(recipe, 'a byte path exists');
  const got = await rendered(recipe); // (the image is uploaded before body() patches it)
  const want = bytesOf(docs.body(keyArray(keys).slice(), stamp, opts));
  assert.equal(got.length, want.length);
  assert.ok(got.equals(want), `bodies differ at byte ${got.findIndex((b, i) => b !== want[i])}`);
  return recipe.keys;
}

test('uniform overwrite and mixed batches drawn by the gateway equal the JavaScript draw', async () => {
  for (const [docsN, B, V, seed] of [[20000, 1000, 2, 1], [100000, 1000, 4, 7], [5000, 500, 1, 42], [3000, 1000, 3, 3]]) {
    const c = cfg({ SEED: seed });
    const docs = createDocs(c, { keyField: 'key' });
    docs.prepare({ count: B, maxKey: docsN + 20 * 100, maxStamp: 3, ...PG });
    for (let v = 0; v < V; v++) {
      const picker = new BatchPicker(c, new OwnedKeys(docsN, B, V, v));
      for (const [phase, j, fresh] of [['overwrite', v, 0], ['overwrite', v + 7 * V, 0], ['mixed', v + V, 100]]) {
        const drawn = new DrawnKeys(picker, new Rng(seed, phase, j), fresh, docsN + j * 100, B);
        const sent = await twin(docs, drawn, `${phase[0]}${j}`);
        assert.ok(sent.draw, 'the keys crossed as a draw, not a list');
        assert.equal(new Set(keyArray(drawn)).size, B, 'distinct keys');
      }
    }
  }
});

test('key ranges, key lists, wide keys, long stamps and short bodies', async () => {
  const c = cfg();
  const docs = createDocs(c, { keyField: 'key' });
  docs.prepare({ count: 1000, maxKey: 200000, maxStamp: 5, ...PG });
  assert.ok((await twin(docs, keyRange(12000, 1000), 'l')).range);
  assert.ok((await twin(docs, keyRange(0, 1000), 'l')).range, 'keys below 1000 (widths vary)');
  assert.ok((await twin(docs, keyRange(5000, 10), 'o3')).range, 'a body shorter than the one made');
  assert.ok((await twin(docs, [5, 3, 999999, 0, 12, 1024, 2048, 123456789], 'm12345')).list);
  assert.ok((await twin(docs, [7, 9007199254740991, 1e9, 999999999, 42], 'o123456789012')).list, 'keys that need 20-byte regions, a stamp of 13 characters');
  // A skewed distribution has no twin in the gateway: its keys cross as a list.
  const z = cfg({ KEY_DIST: 'zipfian' });
  const zd = new DrawnKeys(new BatchPicker(z, new OwnedKeys(20000, 1000, 2, 1)), new Rng(1, 'overwrite', 5), 0, 0, 1000);
  assert.equal(zd.draw(), null);
  assert.ok((await twin(createDocs(z, { keyField: 'key' }), zd, 'o5')).list);
  // MongoDB's and ArangoDB's key fields and no lead byte
  assert.ok((await twin(createDocs(c, { keyField: '_id' }), new DrawnKeys(new BatchPicker(c, new OwnedKeys(20000, 1000, 2, 0)), new Rng(1, 'overwrite', 4), 0, 0, 1000), 'o4', {})).draw);
});

test('the gateway refuses a recipe that does not fit its image, a key too wide for its region, and an unknown image', async () => {
  const docs = createDocs(cfg(), { keyField: 'key' });
  docs.prepare({ count: 100, maxKey: 1000, maxStamp: 3, ...PG });
  const recipe = docs.recipe(keyRange(100, 100), 'l', PG);
  const up = await post('/render/image', Buffer.from(recipe.image.bytes), 'application/octet-stream');
  const id = JSON.parse(up.bytes).id;
  const { image: _i, byteLength: _n, ...rest } = recipe;
  const send = (over) => post('/render/body', JSON.stringify({ ...rest, image: id, ...over }), 'application/json');
  let r = await send({ count: 101 });
  assert.equal(r.status, 400);
  assert.match(r.bytes.toString(), /layout does not fit its image/);
  r = await send({ keys: { list: [1e10, ...Array(99).fill(1)] } });
  assert.equal(r.status, 400);
  assert.match(r.bytes.toString(), /key 10000000000 of document 0 does not fit a key region of 12 bytes/);
  r = await send({ keys: { range: [0, 100], list: [1] } });
  assert.match(r.bytes.toString(), /exactly one of range, list, draw/);
  r = await send({ image: 'f'.repeat(32) });
  assert.equal(r.status, 400);
  assert.match(r.bytes.toString(), /"kind":"image"/);
});
