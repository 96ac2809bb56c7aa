// Micro-benchmark of the client work per PostgreSQL overwrite batch (bench/README.md), in k6
// itself (its JavaScript runtime has no JIT: node's numbers say nothing about it). No database:
// one VU, one iteration, each step timed over many batches with Date.now():
//   keys      batchKeys() of an overwrite batch (pick BATCH_SIZE distinct owned keys)
//   keys-zipf the same with KEY_DIST=zipfian
//   body      docs.batch() of those keys (the JSON text: the string path, PostgreSQL's fallback)
//   bytes     docs.body() of those keys as the PostgreSQL adapter sends them (binary jsonb:
//             keysBody patches the image, lead byte 1): the default path
//   bytes-load docs.body() of a load batch (consecutive keys: rangeBody)
//   loop      an empty JavaScript loop of BATCH_SIZE iterations with one array store: the
//             interpreter's per-iteration floor, to read the others against
//   verify    verify()'s key recomputation for the read-back (fake target: no I/O)
//   pool      createDocs() (the per-VU payload pool, init work)
//   bin/k6 run -q bench/micro-keys.js      (knobs: MICRO_BATCHES=300, DOCS=100000, VUS=2)
import { loadConfig } from '../lib/config.js';
import { createDocs } from '../lib/docs.js';
import { asciiBuffer } from '../lib/bytes.js';
import { loadBatchKeys } from '../lib/keys.js';
import { plan, batchKeys, verify, PHASES } from '../lib/workloads/insert-vs-overwrite.js';

const N = Number(__ENV.MICRO_BATCHES || 300);
const env = Object.assign({ DOCS: '100000', VUS: '2', OVERWRITE_BATCHES: String(N), PHASES: 'load,overwrite', READBACK: '200' }, __ENV);
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

export const options = { scenarios: { micro: { executor: 'shared-iterations', vus: 1, iterations: 1 } }, summaryTrendStats: ['med'] };

function perBatch(f) {
  f(0); // warm-up (caches, slot arrays)
  const t = Date.now();
  for (let j = 0; j < N; j++) f(j);
  return (Date.now() - t) / N;
}

export default function () {
  const out = { batches: N, docs: cfg.DOCS, vus: p.V, batch: p.B, pool_ms: poolMs, prepare_ms: prepareMs };
  const st = {}; const zst = {};
  out.keys_ms = perBatch((j) => batchKeys(cfg, p, 'overwrite', j, st));
  out.keys_zipf_ms = perBatch((j) => batchKeys(zcfg, zp, 'overwrite', j, zst));
  const fixed = batchKeys(cfg, p, 'overwrite', 1, st).keys;
  out.body_ms = perBatch((j) => docs.batch(fixed, `o${j}`));
  out.bytes_ms = perBatch((j) => docs.body(fixed, `o${j}`, { lead: '\u0001' }));
  const load = loadBatchKeys(1, cfg.DOCS, p.B);
  out.bytes_load_ms = perBatch((j) => docs.body(load, 'l', { lead: '\u0001' }));
  const arr = new Array(p.B);
  out.loop_ms = perBatch((j) => { for (let i = 0; i < arr.length; i++) arr[i] = j; });
  const fake = { count: () => p.expectedDocs, readStamps: (ks) => new Map(ks.map((k) => [k, 'x'])) };
  t0 = Date.now();
  const r = verify(fake, cfg, p);
  out.verify_ms = Date.now() - t0;
  out.verify_checked = r.readback.checked;
  console.log(JSON.stringify(out));
}
