// The MongoDB floor (bench/README.md): what k6 + the pack's gateway (docs/gateway.md) + the Go
// driver cost when the generator costs nothing. 2 VUs (BENCH_VUS) send the pack's own overwrite call
// (client.write('replace', …): a bulkWrite of ReplaceOne upserts, the collection's UUID on every
// command, as lib/targets/mongodb/mongodb.js sends it) for BENCH_SECONDS, each batch one of
// FLOOR_BATCHES byte bodies pre-built in the init context (1000 scattered existing keys each, of
// the VU's own block of keys,
// e1 documents of ~1.2 KB, built by lib/docs.js as the pack builds them), cycled: no JavaScript
// work per batch but picking the next one. setup() fills its own database k6wp_bench_floor with
// DOCS documents (not timed); teardown drops it. Prints rows/s over the batches' own window.
// It reaches MongoDB as the pack does, through lib/gateway.js (the gateway holds MONGO_URL).
//   MONGO_URL=mongodb://… bin/wp-gateway -ready-file /tmp/gw.url &
//   GATEWAY_URL=$(cat /tmp/gw.url) DOCS=100000 bin/k6 run bench/mongo-floor.js
import { connectMongo } from '../lib/gateway.js';
import { Counter, Gauge } from 'k6/metrics';
import { loadConfig } from '../lib/config.js';
import { createDocs } from '../lib/docs.js';
import { asciiBuffer } from '../lib/bytes.js';
import { keyRange } from '../lib/keys.js';

if (!__ENV.GATEWAY_URL) throw 'GATEWAY_URL is not set: start bin/wp-gateway with MONGO_URL in its environment (docs/gateway.md)';
const ndocs = Number(__ENV.DOCS || 100000);
const vus = Number(__ENV.BENCH_VUS || 2);
const seconds = Number(__ENV.BENCH_SECONDS || 10);
const nBatches = Number(__ENV.FLOOR_BATCHES || 20);
const B = 1000;
const DB = 'k6wp_bench_floor';
const rows = new Counter('floor_rows');
const modified = new Counter('floor_modified');
const clock = new Gauge('floor_clock');

const cfg = loadConfig(Object.assign({ DOCS: String(ndocs) }, __ENV), { target: 'mongodb', experiment: 'mongo-floor', phases: ['bench'] });
const client = connectMongo({ GATEWAY_URL: __ENV.GATEWAY_URL, WP_GATEWAY_TOKEN: __ENV.WP_GATEWAY_TOKEN, TIMEOUT: '60s' }, { appName: 'k6-writepath-floor' });
const docs = createDocs(cfg, { keyField: '_id', toBytes: asciiBuffer });

// Pre-built bodies: VU v (of vus) owns its own block of keys, [(v-1)·ndocs/vus, v·ndocs/vus),
// as the pack's overwrite phase writes only keys the VU loaded itself: two VUs never update the
// same document (a floor whose VUs collide on documents is slower than the pack, not a floor).
// Batch b holds keys (start + g·stride) mod block, distinct within a batch (stride coprime
// with the block), scattered like the pack's uniform picks. Every batch is built twice, with
// the stamps 'f' and 'g', and the cycle runs all 'f' bodies, then all 'g' ones: each replace
// changes its document. Replacing a document by an identical one is a no-op for mongod (no
// write, nModified 0): a floor cycling one stamp measured mongod at 25 ms of CPU per batch
// against the pack's 111 ms, a floor of no-op writes, not of the same work.
const bodies = [];
if (__VU > 0) {
  const block = Math.floor(ndocs / vus);
  const base = ((__VU - 1) % vus) * block;
  const stride = [7919, 7927, 7933].find((p) => block % p !== 0);
  for (const stamp of ['f', 'g']) {
    for (let b = 0; b < nBatches; b++) {
      const start = (b * 15485863) % block;
      const keys = new Array(B);
      for (let g = 0; g < B; g++) keys[g] = base + ((start + g * stride) % block);
      bodies.push(docs.body(keys, stamp).slice(0));
    }
  }
}

export const options = {
  scenarios: { floor: { executor: 'constant-vus', vus, duration: `${seconds}s`, gracefulStop: '30s' } },
  summaryTrendStats: ['med'],
  setupTimeout: '300s',
};

function must(r, what) {
  if (r.error) throw `${what}: ${r.error.message}`;
  return r;
}

export function setup() {
  must(client.command(DB, { dropDatabase: 1 }), 'dropDatabase');
  must(client.command(DB, { create: 'docs' }), 'create');
  for (let s = 0; s < ndocs; s += B) {
    const r = client.write('insert', DB, 'docs', docs.body(keyRange(s, Math.min(B, ndocs - s)), 'l'), { timeoutMs: 60000 });
    if (r.error || r.errors) throw `prefill: ${JSON.stringify(r.error || r.errors[0])}`;
  }
  const info = JSON.parse(must(client.command(DB, { listCollections: 1, filter: { name: 'docs' } }), 'listCollections').reply);
  return { uuid: info.cursor.firstBatch[0].info.uuid.$binary.base64 };
}

let i = 0;
let opts = null;
export default function (data) {
  if (!opts) opts = { ordered: false, timeoutMs: 60000, collectionUUID: data.uuid };
  clock.add(Date.now());
  const r = client.write('replace', DB, 'docs', bodies[i++ % bodies.length], opts);
  clock.add(Date.now());
  if (r.error || r.errors) throw `floor batch failed: ${JSON.stringify(r.error || r.errors[0])}`;
  rows.add(B);
  modified.add(r.modified);
}

export function teardown() {
  client.command(DB, { dropDatabase: 1 });
}

export function handleSummary(data) {
  const n = data.metrics.floor_rows ? data.metrics.floor_rows.values.count : 0;
  const m = data.metrics.floor_modified ? data.metrics.floor_modified.values.count : 0;
  const c = data.metrics.floor_clock ? data.metrics.floor_clock.values : null;
  const s = c ? (c.max - c.min) / 1000 : seconds;
  // t0/t1: the batches' window (epoch ms), where bench/mongo.mjs cuts the CPU samples.
  return { stdout: `${JSON.stringify({ rows: n, modified: m, seconds: s, rows_per_s: n / s, t0: c ? c.min : null, t1: c ? c.max : null })}\n` };
}
