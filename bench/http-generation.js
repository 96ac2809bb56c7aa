// HTTP generation ceiling (bench/README.md). One VU posts batches of unique documents to
// bench-sink (a null sink that drains the body) for BENCH_SECONDS, building each body with
// the ADAPTERS' own code (lib/targets/*.js batchBody(), the function their batch() calls,
// with the key arrays the workloads build), and reports docs/s. MODE picks the body:
//   ceiling         one fixed pre-built body (ArrayBuffer): what this k6 can post at all; the
//                   others are measured against the ceiling of their request format. It is the
//                   adapter's own body of one load batch (keys of 7 digits, as most batches of a
//                   run have) with the JSON whitespace the byte bodies pad with removed: the
//                   minimal text of the same request, so the padding counts against the adapter
//   ceiling-ravendb the same for RavenDB's bulk_docs body ({"Commands":[…]}, insert commands):
//                   the ravendb and ravendb-random rows are measured against it (an upsert
//                   command is 1 byte longer: "ChangeVector":null instead of "")
//   ceiling-ravendb-bulk  the same for the bulk-insert command array (the ravendb-bulk row)
//   arangodb        ArangoDB adapter, E1 load batch: loadBatchKeys() (consecutive keys) ->
//                   target.batchBody() -> docs.rangeBody() (byte-patched ArrayBuffer)
//   arangodb-write  the same batch through the batch runner (lib/targets/outcome.js) and the
//                   ArangoDB target (URL, params, request, per-element accounting of the
//                   answer, the batch's metrics) with ARANGO_SILENT=1, whose answer
//                   to a fully successful batch is the sink's 202 {}
//   ravendb         RavenDB adapter, E1 load batch (LOAD_OP=insert): {"Commands":[…]} for
//                   POST bulk_docs from target.batchBody('insert', loadBatchKeys(…))
//   ravendb-bulk    RavenDB adapter, E4 bulk-insert batch: the command array for POST
//                   bulk_insert from target.batchBody('bulk', ids) with the ids array of
//                   lib/workloads/bulk-insert.js (refilled per batch, marked consecutive)
//   arangodb-random ArangoDB adapter, E1 overwrite batch keys (random, as batchKeys() draws
//                   them: uniform among the keys one VU loaded of BENCH_RANDOM_DOCS, default
//                   2 000 000), drawn in the init context (64 batches, cycled, a new stamp
//                   each) -> target.batchBody() -> docs.keysBody() (patched ArrayBuffer)
//   ravendb-random  RavenDB adapter, the same keys: {"Commands":[…]} upsert body for bulk_docs
//   arangodb-string the same keys through the string docs.batch() (slot join): the path
//                   random keys took before keysBody
//   arangodb-overwrite  what an E1 overwrite iteration does before sending: batchKeys()
//                   (BatchPicker) inside the timed loop, then target.batchBody()
//   arangodb-overwrite-write  the same through the batch runner (overwriteMode=replace)
//   arangodb-join   load-batch keys + one string per document + join (one docs.doc() per key): the
//                   old path, once measured at 0.14 of the ceiling (bench/RESULTS.md)
// Document knobs are the pack's own (DOC_BYTES, DOC_POOL, BATCH_SIZE, SEED, DOC_SHAPE); e1
// documents for every mode, so all bodies are ~1.2 MB and docs/s compare directly.
//   bin/k6 run -e SINK=127.0.0.1:PORT -e MODE=arangodb bench/http-generation.js
import http from 'k6/http';
import { loadConfig } from '../lib/config.js';
import { createDocs } from '../lib/docs.js';
import { keyArray, keyRange, loadBatchKeys } from '../lib/keys.js';
import { batchKeys } from '../lib/workloads/insert-vs-overwrite.js';
import { createTarget as arangoTarget } from '../lib/targets/arangodb/arangodb.js';
import { createTarget as ravenTarget } from '../lib/targets/ravendb/ravendb.js';
import { batchRunner } from '../lib/targets/outcome.js';

const MODES = ['ceiling', 'ceiling-ravendb', 'ceiling-ravendb-bulk', 'arangodb', 'arangodb-write', 'ravendb', 'ravendb-bulk', 'arangodb-random', 'ravendb-random', 'arangodb-string', 'arangodb-overwrite', 'arangodb-overwrite-write', 'arangodb-join'];
const mode = __ENV.MODE || 'arangodb';
if (!MODES.includes(mode)) throw `MODE=${mode} is not allowed: one of ${MODES.join(', ')}`;
if (!__ENV.SINK) throw 'SINK is not set: host:port of bench-sink';
const seconds = Number(__ENV.BENCH_SECONDS || 5);
const sinkUrl = `http://${__ENV.SINK}`;
// DOCS is only the key space here: large enough that keys never repeat in a run.
const env = Object.assign({ DOCS: '1000000000' }, __ENV, { ARANGO_URL: sinkUrl, ARANGO_AUTH: 'basic', ARANGO_SILENT: '1', RAVEN_URL: sinkUrl });
const phases = { phases: ['bench'], experiment: 'http-generation' };
const cfg = loadConfig(env, Object.assign({ target: 'bench' }, phases));
const B = cfg.BATCH_SIZE;
const url = `${sinkUrl}/bench`;
const params = { headers: { 'Content-Type': 'application/json' }, responseType: 'none' };

// The adapters as a scenario creates them (init context); no request is made until a batch is sent.
// What a plan would ask of them (lib/workloads/*.js plan().target): batches of B keys up to the
// largest key a run of BENCH_SECONDS reaches (below 10^8: the keys of an E1 run of that size,
// not of the whole 10^9 key space, which would prepare bodies for wider keys than any run here writes).
const prepared = (writes) => ({ batchSize: B, maxKey: 1e8 - 1, writes });
const arango = arangoTarget(loadConfig(env, Object.assign({ target: 'arangodb' }, phases)), prepared({ insert: ['l'], upsert: [] }));
const runner = batchRunner(arango);
const raven = ravenTarget(loadConfig(env, Object.assign({ target: 'ravendb' }, phases)), prepared({ insert: ['l'], upsert: [], bulk: ['b'] }));
const arangoDocs = createDocs(cfg, { keyField: '_key' });
if (mode === 'arangodb-write' || mode === 'arangodb-overwrite-write') arango.bind('bench');
// Overwrite batches as E1 draws them: one VU that loaded BENCH_RANDOM_DOCS keys.
const randomCfg = loadConfig(Object.assign({}, env, { DOCS: __ENV.BENCH_RANDOM_DOCS || '2000000' }), Object.assign({ target: 'bench' }, phases));
const randomPlan = { vus: 1, batchSize: B, newPerMixed: 0 };
const pickers = {};
const drawn = [];
if (['arangodb-random', 'ravendb-random', 'arangodb-string'].includes(mode)) {
  for (let j = 0; j < 64; j++) drawn.push(batchKeys(randomCfg, randomPlan, 'overwrite', j, pickers).keys);
}

// A JSON text without the whitespace between its tokens (strings kept as they are).
function minimal(bytes) {
  const src = new Uint8Array(bytes); // an ArrayBuffer, or the Uint8Array of a shorter batch
  const out = new Uint8Array(src.length);
  let n = 0;
  let inString = false;
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (inString) {
      out[n++] = c;
      if (c === 92) out[n++] = src[++i]; // a backslash and the character it escapes
      else if (c === 34) inString = false;
    } else if (c !== 32 && c !== 9 && c !== 10 && c !== 13) {
      out[n++] = c;
      if (c === 34) inString = true;
    }
  }
  return out.slice(0, n).buffer;
}

// The ceilings: made from the adapters' own bodies (in a function, so that nothing but the
// body outlives it: a ceiling holds no more memory than the modes measured against it, whose
// garbage collection it would otherwise run less often).
const CEILING_BATCH = 2000; // keys of 7 digits, as most batches of a BENCH_SECONDS run have
function ceilingBody(m) {
  const keys = loadBatchKeys(CEILING_BATCH, cfg.DOCS, B);
  const body = m === 'ceiling' ? arango.batchBody(keys, 'l')
    : m === 'ceiling-ravendb' ? raven.batchBody('insert', keys, 'l') : raven.batchBody('bulk', keyRange(CEILING_BATCH * B, B), 'b');
  const min = minimal(body);
  // the same request: the same JSON value, fewer bytes
  const text = (b) => { const u = new Uint8Array(b); const parts = []; for (let i = 0; i < u.length; i += 8192) parts.push(String.fromCharCode.apply(null, u.subarray(i, i + 8192))); return parts.join(''); };
  if (JSON.stringify(JSON.parse(text(min))) !== JSON.stringify(JSON.parse(text(body))) || min.byteLength >= body.byteLength) throw `${m}: the minimal body is not the adapter's request`;
  return min;
}
const fixed = mode.startsWith('ceiling') ? ceilingBody(mode) : null;

// The adapters build their body images in createTarget() (init context), as in a scenario.

export const options = {
  scenarios: { bench: { executor: 'constant-vus', vus: 1, duration: `${seconds}s`, gracefulStop: '10s' } },
  summaryTrendStats: ['med'],
};

let j = 0;
let failed = 0;
const tags = { phase: 'load', op: 'insert', target: 'arangodb' };
export default function () {
  // Batch j holds keys B*(j+1) … : unique in the run, and never below 1000 (narrow keys
  // take the string path, see lib/docs.js).
  j++;
  let body;
  if (fixed !== null) body = fixed;
  else if (mode === 'arangodb') body = arango.batchBody(loadBatchKeys(j, cfg.DOCS, B), 'l');
  else if (mode === 'arangodb-write') {
    const r = runner.write('insert', loadBatchKeys(j, cfg.DOCS, B), 'l', tags, { fresh: B });
    if (r.failed > 0 && failed++ === 0) console.error(`the runner counted ${r.failed} failed: ${JSON.stringify(r.byReason)}`);
    return;
  } else if (mode === 'ravendb') body = raven.batchBody('insert', loadBatchKeys(j, cfg.DOCS, B), 'l');
  else if (mode === 'ravendb-bulk') {
    body = raven.batchBody('bulk', keyRange(j * B, B), 'b'); // lib/workloads/bulk-insert.js
  } else if (mode === 'arangodb-random') body = arango.batchBody(drawn[j % 64], `o${j}`);
  else if (mode === 'ravendb-random') body = raven.batchBody('upsert', drawn[j % 64], `o${j}`);
  else if (mode === 'arangodb-string') body = arangoDocs.batch(drawn[j % 64], `o${j}`);
  else if (mode === 'arangodb-overwrite') body = arango.batchBody(batchKeys(randomCfg, randomPlan, 'overwrite', j, pickers).keys, `o${j}`);
  else if (mode === 'arangodb-overwrite-write') {
    const r = runner.write('upsert', batchKeys(randomCfg, randomPlan, 'overwrite', j, pickers).keys, `o${j}`, tags);
    if (r.failed > 0 && failed++ === 0) console.error(`the runner counted ${r.failed} failed: ${JSON.stringify(r.byReason)}`);
    return;
  }
  else body = `[${keyArray(loadBatchKeys(j, cfg.DOCS, B)).map((n) => arangoDocs.doc(n, 'l')).join(',')}]`;
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
