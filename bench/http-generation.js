// HTTP generation ceiling (bench/README.md). One VU posts batches of unique documents to
// bench-sink (a null sink that drains the body) for BENCH_SECONDS, building each body with
// the pack's own code path, and reports docs/s. MODE picks the body:
//   ceiling        one fixed pre-built body (ArrayBuffer), the same size as an arangodb batch:
//                  what this k6 can post at all; the others are measured against it
//   arangodb       docs.rangeBody() with _key: the byte-patched fast path for a load batch
//   ravendb        docs.rangeBody() with a PUT-command envelope and @metadata: a RavenDB
//                  bulk-insert body
//   arangodb-slots load-batch keys + docs.batch() (string, slot join): the path for keys
//                  that are not one consecutive range (overwrite batches)
//   arangodb-join  load-batch keys + one string per document + join (docs.batchJoin): the
//                  approach measurements.md found at 0.14 of the ceiling
// Document knobs are the pack's own (DOC_BYTES, DOC_POOL, BATCH_SIZE, SEED, DOC_SHAPE).
//   bin/k6 run -e SINK=127.0.0.1:PORT -e MODE=arangodb bench/http-generation.js
import http from 'k6/http';
import { loadConfig } from '../lib/config.js';
import { createDocs } from '../lib/docs.js';
import { loadBatchKeys } from '../lib/keys.js';

const MODES = ['ceiling', 'arangodb', 'ravendb', 'arangodb-slots', 'arangodb-join'];
const mode = __ENV.MODE || 'arangodb';
if (!MODES.includes(mode)) throw `MODE=${mode} is not allowed: one of ${MODES.join(', ')}`;
if (!__ENV.SINK) throw 'SINK is not set: host:port of bench-sink';
const seconds = Number(__ENV.BENCH_SECONDS || 5);
// DOCS is only the key space here: large enough that keys never repeat in a run.
const cfg = loadConfig(Object.assign({ DOCS: '1000000000' }, __ENV), { target: 'bench', experiment: 'http-generation', phases: ['bench'] });
const B = cfg.BATCH_SIZE;
const url = `http://${__ENV.SINK}/bench`;
const params = { headers: { 'Content-Type': 'application/json' }, responseType: 'none' };

const arango = createDocs(cfg, { keyField: '_key' });
const raven = createDocs(cfg, { keyField: null, extra: ',"@metadata":{"@collection":"Users"}' });
const PUT = { open: '{"Id":"', mid: '","Type":"PUT","Document":', close: '}' };

let fixed = null;
if (mode === 'ceiling') {
  const text = arango.batch(loadBatchKeys(1, cfg.DOCS, B), 'l');
  const u8 = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) u8[i] = text.charCodeAt(i);
  fixed = u8.buffer;
}

// First calls convert the payload pool to bytes and build the key-width images: init work,
// as in a scenario's setup, not per batch.
if (mode === 'arangodb') arango.rangeBody(B, B, 'l');
if (mode === 'ravendb') raven.rangeBody(B, B, 'l', PUT);

export const options = {
  scenarios: { bench: { executor: 'constant-vus', vus: 1, duration: `${seconds}s`, gracefulStop: '10s' } },
  summaryTrendStats: ['med'],
};

let j = 0;
let failed = 0;
export default function () {
  let body;
  if (mode === 'ceiling') {
    body = fixed;
  } else {
    // Batch j holds keys B*(j+1) … : unique in the run, and never below 1000 (narrow keys
    // take the string path, see lib/docs.js).
    const start = B * (1 + j++);
    if (mode === 'arangodb') body = arango.rangeBody(start, B, 'l');
    else if (mode === 'ravendb') body = raven.rangeBody(start, B, 'l', PUT);
    else if (mode === 'arangodb-slots') body = arango.batch(loadBatchKeys(1 + j, cfg.DOCS, B), 'l');
    else body = arango.batchJoin(loadBatchKeys(1 + j, cfg.DOCS, B), 'l');
  }
  const res = http.post(url, body, params);
  if (res.status !== 202 && failed++ === 0) console.error(`bench-sink answered ${res.status}: ${res.error}`);
}

export function handleSummary(data) {
  const iterations = data.metrics.iterations ? data.metrics.iterations.values.count : 0;
  const ok = data.metrics.http_req_failed ? data.metrics.http_req_failed.values.fails : 0;
  const s = data.state.testRunDurationMs / 1000;
  const bytes = data.metrics.data_sent ? data.metrics.data_sent.values.count : 0;
  const out = { mode, batch: B, iterations, ok_requests: ok, seconds: s, docs_per_s: (ok * B) / s, bytes_per_request: iterations ? bytes / iterations : 0 };
  return { stdout: `${JSON.stringify(out)}\n` };
}
