// Micro-benchmark of the client work per PostgreSQL overwrite batch (bench/README.md), in k6
// itself (its JavaScript runtime has no JIT: node's numbers say nothing about it). No database:
// one VU, one iteration, each step timed over many batches with Date.now():
//   keys      batchKeys() of an overwrite batch (pick BATCH_SIZE distinct owned keys)
//   keys-zipf the same with KEY_DIST=zipfian
//   body      docs.batch() of those keys (the JSON text: the string path, PostgreSQL's fallback)
//   bytes     docs.body() of those keys as the PostgreSQL adapter sends them (binary jsonb:
//             keysBody patches the image, lead byte 1): the default path
//   bytes-load docs.body() of a load batch (consecutive keys: rangeBody)
//   sfc32     the sfc32 words of those draws alone, inlined as BatchPicker does (no
//             distinctness, no owned-key mapping): the floor of any draw of exactly these keys
//   load-keys loadBatchKeys() of a load batch (a key range: no array of BATCH_SIZE keys)
//   loop      an empty JavaScript loop of BATCH_SIZE iterations with one array store: the
//             interpreter's per-iteration floor, to read the others against
//   verify    the read-back's key recomputation, all VUs' (readBack(), each VU's after its last
//             batch; fake target: no I/O, every key reads back as stale, 5 warnings per VU)
//   pool      createDocs() (the per-VU payload pool, init work); prepare: the body images
//   shared    reading one 1.2 MB string (a body image's text) from a k6 SharedArray, per read:
//             the way to build the pool and images once per process instead of per VU, which
//             costs more than building them (bench/README.md)
//   bin/k6 run -q bench/micro-keys.js      (knobs: MICRO_BATCHES=300, DOCS=100000, VUS=2)
import { SharedArray } from 'k6/data';
import { loadConfig } from '../lib/config.js';
import { createDocs } from '../lib/docs.js';
import { asciiBuffer } from '../lib/bytes.js';
import { loadBatchKeys } from '../lib/keys.js';
import { plan, batchKeys, readBack, PHASES } from '../lib/workloads/insert-vs-overwrite.js';
import { Rng } from '../lib/rand.js';

const N = Number(__ENV.MICRO_BATCHES || 300);
// PG_URL: the PostgreSQL target's configuration requires one; nothing here connects.
const env = Object.assign({ DOCS: '100000', VUS: '2', OVERWRITE_BATCHES: String(N), PHASES: 'load,overwrite', READBACK: '200', PG_URL: 'postgres://unused@127.0.0.1:1/unused' }, __ENV);
const opts = { target: 'postgres', experiment: 'insert-vs-overwrite', phases: PHASES };
const cfg = loadConfig(env, opts);
const zcfg = loadConfig(Object.assign({}, env, { KEY_DIST: 'zipfian' }), opts);
const p = plan(cfg);
const zp = plan(zcfg);

let t0 = Date.now();
const docs = createDocs(cfg, { keyField: 'key', toBytes: asciiBuffer });
docs.doc(0, 'l'); // the payload pool is generated on first use
const poolMs = Date.now() - t0;
t0 = Date.now();
docs.prepare({ count: cfg.BATCH_SIZE, maxKey: cfg.DOCS, lead: '\u0001', stamps: ['l'] });
const prepareMs = Date.now() - t0;
// A body image's text (~1.2 MB) in a SharedArray (created in the init context, as it must be).
const sharedText = new SharedArray('micro-keys image text', () => [docs.batch(loadBatchKeys(1, cfg.DOCS, p.batchSize), 'l')]);

// The sfc32 words of a uniform batch (lib/keys.js BatchPicker's inlined steps) and nothing else.
function sfc32Only(count, rng, out, size) {
  const scale = size / 4294967296;
  let a = rng.a; let b = rng.b; let c = rng.c; let d = rng.d; let t = 0;
  for (let i = 0; i < count; i++) {
    t = (a + b + d) >>> 0; d++; a = b ^ (b >>> 9); b = c * 9; c = ((c << 21) | (c >>> 11)) + t;
    out[i] = (t * scale) >>> 0;
  }
  return out;
}

export const options = { scenarios: { micro: { executor: 'shared-iterations', vus: 1, iterations: 1 } }, summaryTrendStats: ['med'] };

function perBatch(f) {
  f(0); // warm-up (caches, slot arrays)
  const t = Date.now();
  for (let j = 0; j < N; j++) f(j);
  return (Date.now() - t) / N;
}

export default function () {
  const out = { batches: N, docs: cfg.DOCS, vus: p.vus, batch: p.batchSize, pool_ms: poolMs, prepare_ms: prepareMs };
  const st = {}; const zst = {};
  out.keys_ms = perBatch((j) => batchKeys(cfg, p, 'overwrite', j, st));
  out.keys_zipf_ms = perBatch((j) => batchKeys(zcfg, zp, 'overwrite', j, zst));
  const words = new Array(p.batchSize);
  const ownedSize = Math.floor(cfg.DOCS / p.vus);
  out.sfc32_ms = perBatch((j) => sfc32Only(p.batchSize, new Rng(cfg.SEED, 'overwrite', j), words, ownedSize));
  out.load_keys_ms = perBatch((j) => loadBatchKeys(j % Math.floor(cfg.DOCS / p.batchSize), cfg.DOCS, p.batchSize));
  const fixed = batchKeys(cfg, p, 'overwrite', 1, st).keys;
  out.body_ms = perBatch((j) => docs.batch(fixed, `o${j}`));
  out.bytes_ms = perBatch((j) => docs.body(fixed, `o${j}`, { lead: '\u0001' }));
  const load = loadBatchKeys(1, cfg.DOCS, p.batchSize);
  out.bytes_load_ms = perBatch((j) => docs.body(load, 'l', { lead: '\u0001' }));
  const arr = new Array(p.batchSize);
  out.loop_ms = perBatch((j) => { for (let i = 0; i < arr.length; i++) arr[i] = j; });
  t0 = Date.now();
  for (let r = 0; r < 3; r++) if (sharedText[0].length < 1000) throw new Error('micro-keys: shared text too short');
  out.shared_ms = (Date.now() - t0) / 3;
  out.shared_kb = sharedText[0].length / 1000;
  const fake = { count: () => p.expectedDocs, readStamps: (ks) => new Map(ks.map((k) => [k, 'x'])) };
  t0 = Date.now();
  let checked = 0;
  for (let v = 0; v < p.vus; v++) checked += readBack(fake, cfg, p, v, {}).checked;
  out.verify_ms = Date.now() - t0;
  out.verify_checked = checked;
  console.log(JSON.stringify(out));
}
