// RavenDB target over plain k6/http (no client library): one database k6wp_<RUN_ID> per run,
// documents in RAVEN_COLLECTION with ids "K<n>". Wire facts: shared/reference/ravendb.md.
//   bulk    GET operations/next-operation-id, then POST bulk_insert?id=<id> with ONE complete
//           JSON array of {"Id","Type":"PUT","Document"} commands. Always overwrites. NOT one
//           transaction: the server commits in internal batches (16 MB / 8192 ops / 5 ms idle),
//           so after a failure part of the array may be stored; the operation state says how much.
//   upsert  POST bulk_docs {"Commands":[{…,"ChangeVector":null,…}]}: replace or create.
//   insert  the same with "ChangeVector":"" (must be new). bulk_docs is one transaction: one
//           duplicate id fails the whole batch with 409 ConcurrencyException, nothing is stored.
// Batch time is the write request's res.timings.duration (the operation-id request of a bulk
// insert is not included: it is a tiny GET that official clients also make once per bulk insert).
import http from 'k6/http';
import exec from 'k6/execution';
import { sleep } from 'k6';
import { durationMs } from '../config.js';
import { bodyBytes, createDocs, INDEX_FIELDS } from '../docs.js';
import { keyName } from '../keys.js';
import { asciiBuffer, maxKeyOf, writingVu } from '../bytes.js';

export const MARKER = 'k6-writepath';
export const MARKER_ID = 'k6wp/marker';
export const MARKER_COLLECTION = 'K6wpMarkers';
export const INDEX_NAME = 'K6wp/ByFields';
export const REASONS = ['conflict', 'connection', 'timeout', 'http_400', 'http_402', 'http_403', 'http_404', 'http_408',
  'http_413', 'http_429', 'http_500', 'http_502', 'http_503', 'http_other'];
const STATUS_REASONS = new Set(REASONS.filter((r) => r.startsWith('http_')).map((r) => Number(r.slice(5))));
const READ_CHUNK = 100; // ids per GET /docs (the URL stays a few KB)

// waitForIndexesTimeout is a .NET TimeSpan: [d.]hh:mm:ss[.fffffff].
export function timeSpan(ms) {
  const two = (n) => String(n).padStart(2, '0');
  const whole = Math.floor(ms / 1000);
  const frac = ms - whole * 1000;
  const days = Math.floor(whole / 86400);
  const hms = `${two(Math.floor(whole / 3600) % 24)}:${two(Math.floor(whole / 60) % 60)}:${two(whole % 60)}`;
  return `${days > 0 ? `${days}.` : ''}${hms}${frac > 0 ? `.${String(Math.round(frac * 10000)).padStart(7, '0')}` : ''}`;
}

export function classify(res) {
  if (res.status === 409) return 'conflict';
  if (res.status === 0) return /timeout|deadline/i.test(String(res.error)) || res.error_code === 1050 ? 'timeout' : 'connection';
  return STATUS_REASONS.has(res.status) ? `http_${res.status}` : 'http_other';
}

// The server's JSON error {"Url","Type","Message","Error"}, or the transport error.
function errorText(res) {
  if (res.status === 0) return String(res.error || 'no response');
  try {
    const e = JSON.parse(res.body);
    if (e && e.Message) return `${res.status} ${e.Type}: ${e.Message}`;
  } catch (_) { /* not JSON: show the start of the body */ }
  return `${res.status} ${String(res.body || '').slice(0, 300)}`;
}

function dbMissing(res) {
  if (res.status < 400) return false;
  if (res.headers['Database-Missing']) return true;
  return typeof res.body === 'string' && res.body.indexOf('DatabaseDoesNotExistException') >= 0;
}

function range(from, to) {
  const out = new Array(Math.max(0, to - from));
  for (let i = 0; i < out.length; i++) out[i] = from + i;
  return out;
}

export function createTarget(cfg) {
  const base = cfg.RAVEN_URL.replace(/\/$/, '');
  const collection = cfg.RAVEN_COLLECTION;
  const docs = createDocs(cfg, { keyField: null, extra: `,"@metadata":{"@collection":"${collection}"}`, toBytes: asciiBuffer });
  const json = { 'Content-Type': 'application/json' };
  const bulkParams = { headers: json, timeout: cfg.TIMEOUT, tags: { name: 'bulk_insert' } };
  if (cfg.RAVEN_GZIP) bulkParams.compression = 'gzip'; // never deflate: RavenDB would parse the bytes as JSON
  const batchParams = { headers: json, timeout: cfg.TIMEOUT, tags: { name: 'bulk_docs' } };
  const opIdParams = { timeout: cfg.TIMEOUT, tags: { name: 'next-operation-id' } };
  const adminParams = { headers: json, timeout: '60s' };
  // How each operation writes the "ChangeVector" of a command.
  const changeVector = { bulk: '', upsert: '"ChangeVector":null,', insert: '"ChangeVector":"",' };
  const logged = {};
  let db = null;
  let dbUrl = null;
  let batchQuery = '';

  function bind(runId) {
    if (db) return;
    db = `k6wp_${runId}`;
    dbUrl = `${base}/databases/${db}`;
    if (cfg.RAVEN_WAIT_FOR_INDEXES) batchQuery = `?waitForIndexesTimeout=${timeSpan(durationMs(cfg.RAVEN_WAIT_FOR_INDEXES))}`;
  }

  function abortIfGone(res) {
    if (dbMissing(res)) exec.test.abort(`RavenDB database ${db} does not exist any more (deleted during the run?): ${errorText(res)}`);
  }

  // One command per document, {"Id":"K7",<cv>"Type":"PUT","Document":{…}}, as the envelope
  // of docs.commands()/rangeBody().
  const envelopes = {};
  for (const op in changeVector) envelopes[op] = { open: '{"Id":"', mid: `",${changeVector[op]}"Type":"PUT","Document":`, close: '}' };
  const COMMANDS = { open: '{"Commands":', close: '}' }; // the bulk_docs body around the array

  // The request body write() sends for op, in the order of nums: the command array itself for
  // a bulk insert, {"Commands":[…]} for bulk_docs. An ArrayBuffer patched by docs.body() (a run
  // of consecutive keys, as E1 load and every E4 bulk batch: rangeBody; random keys of
  // overwrite/mixed batches: keysBody), a string only where no byte path applies. Exported for
  // bench/http-generation.js, which measures this function. The ArrayBuffer is reused by the
  // next call: send it before building another body. The byte bodies pad with JSON whitespace
  // between tokens (`{"Id":   "K123", "ChangeVector":…`); RavenDB's parser skips it
  // (ravendb/ravendb src/Sparrow/Json/Parsing/UnmanagedJsonParser.cs, commit 00d1b2cc,
  // Read() -> ReadUnlikely: ' ', '\t', '\v', '\f' "white space, we can safely ignore").
  function batchBody(op, nums, stamp) {
    if (!envelopes[op]) throw new Error(`ravendb target: unknown operation ${op}`);
    return docs.body(nums, stamp, op === 'bulk' ? { envelope: envelopes[op] } : { envelope: envelopes[op], wrap: COMMANDS });
  }

  // Body images built here, in the init context, not by the first timed batch of a VU: bulk
  // insert (E4, E1 with LOAD_OP=bulk), E1's load with LOAD_OP=insert, and the upserts of E1's
  // overwrite and mixed batches.
  if (writingVu()) {
    const count = cfg.BATCH_SIZE;
    const maxKey = maxKeyOf(cfg);
    docs.prepare({ count, maxKey, envelope: envelopes.bulk, stamps: cfg.LOAD_OP === 'bulk' ? ['b', 'l'] : ['b'] });
    if (cfg.LOAD_OP !== 'bulk') docs.prepare({ count, maxKey, envelope: envelopes.insert, wrap: COMMANDS, stamps: ['l'] });
    docs.prepare({ count, maxKey, envelope: envelopes.upsert, wrap: COMMANDS });
  }

  function logOnce(reason, text) {
    if (logged[reason]) return;
    logged[reason] = true;
    console.error(text);
  }

  function failedAll(n, ms, bytes, reason) {
    return { n, ms, bytes, failed: n, byReason: { [reason]: n }, failedIndexes: null };
  }

  // After a failed bulk insert: how many documents of the array did the server commit? Polls
  // while the operation is still running (a dropped connection cancels it asynchronously).
  function committedByOperation(opId) {
    let st = null;
    for (let t = 0; t < 30; t++) {
      const r = http.get(`${dbUrl}/operations/state?id=${opId}`, { timeout: '10s', tags: { name: 'operations/state' } });
      if (r.status === 404) return { known: true, processed: 0, text: 'operation not found (the server never started it)' };
      if (r.status !== 200) return { known: false, processed: 0, text: `state not readable: ${errorText(r)}` };
      st = JSON.parse(r.body);
      if (st.Status !== 'InProgress') break;
      sleep(0.1);
    }
    const result = st.Result || {};
    if (typeof result.DocumentsProcessed === 'number') {
      return { known: true, processed: result.DocumentsProcessed, text: `${st.Status}, DocumentsProcessed=${result.DocumentsProcessed}` };
    }
    // A faulted bulk insert's message carries its progress: "Failed to process bulk insert.
    // Inserted N documents, …" (BulkInsertProgress.ToString on the server).
    const m = /Inserted (\d+) documents/.exec(String(result.Message || ''));
    if (m) return { known: true, processed: Number(m[1]), text: `${st.Status}: ${result.Message}` };
    return { known: false, processed: 0, text: `${st.Status}${result.Message ? `: ${result.Message}` : ''}` };
  }

  function bulkInsert(nums, stamp, tags) {
    const n = nums.length;
    const idRes = http.get(`${dbUrl}/operations/next-operation-id`, opIdParams);
    if (idRes.status !== 200) {
      abortIfGone(idRes);
      const reason = classify(idRes);
      logOnce(reason, `[${tags.phase}] bulk insert of ${n} documents not sent (${reason}): next-operation-id: ${errorText(idRes)}`);
      return failedAll(n, idRes.timings.duration, 0, reason);
    }
    const opId = JSON.parse(idRes.body).Id;
    const body = batchBody('bulk', nums, stamp);
    const t0 = Date.now();
    const res = http.post(`${dbUrl}/bulk_insert?id=${opId}`, body, bulkParams);
    const ms = res.timings.duration > 0 ? res.timings.duration : Date.now() - t0;
    if (res.status === 201) return { n, ms, bytes: bodyBytes(body), failed: 0, byReason: {}, failedIndexes: null };
    abortIfGone(res);
    const reason = classify(res);
    // The server commits the array in order, in internal batches: the first `processed`
    // documents are stored, the rest are not. When the state cannot tell, every document is
    // counted as failed — verification then shows how many were stored after all.
    const state = committedByOperation(opId);
    const processed = Math.min(n, state.processed);
    logOnce(reason, `[${tags.phase}] bulk insert of ${n} documents failed (${reason}): ${errorText(res)}; operation ${opId}: ${state.text}; ` +
      (state.known ? `${processed} committed, ${n - processed} counted as failed` : `committed part unknown, all ${n} counted as failed`));
    if (processed === n) return { n, ms, bytes: bodyBytes(body), failed: 0, byReason: {}, failedIndexes: null };
    return { n, ms, bytes: bodyBytes(body), failed: n - processed, byReason: { [reason]: n - processed }, failedIndexes: range(processed, n) };
  }

  function batchCommands(op, nums, stamp, tags) {
    const n = nums.length;
    const body = batchBody(op, nums, stamp);
    const t0 = Date.now();
    const res = http.post(`${dbUrl}/bulk_docs${batchQuery}`, body, batchParams);
    const ms = res.timings.duration > 0 ? res.timings.duration : Date.now() - t0;
    if (res.status === 201) return { n, ms, bytes: bodyBytes(body), failed: 0, byReason: {}, failedIndexes: null };
    abortIfGone(res);
    const reason = classify(res);
    // One transaction: whatever went wrong, nothing of this batch is stored.
    logOnce(reason, `[${tags.phase}] ${op} batch of ${n} documents failed (${reason}), none stored: ${errorText(res)}`);
    return failedAll(n, ms, bodyBytes(body), reason);
  }

  function write(op, nums, stamp, tags) {
    if (op === 'bulk') return bulkInsert(nums, stamp, tags);
    if (op === 'insert' || op === 'upsert') return batchCommands(op, nums, stamp, tags);
    throw new Error(`ravendb target: unknown operation ${op}`);
  }

  function getJson(url, what) {
    const r = http.get(url, { timeout: '60s' });
    if (r.status !== 200) {
      abortIfGone(r);
      throw new Error(`${what}: ${errorText(r)}`);
    }
    return JSON.parse(r.body);
  }

  // 'ours' | 'foreign' | 'absent' (the database does not exist).
  function ownership() {
    const r = http.get(`${dbUrl}/docs?id=${encodeURIComponent(MARKER_ID)}`, { timeout: '60s' });
    if (r.status === 200) {
      const doc = (JSON.parse(r.body).Results || [])[0];
      return doc && doc.tool === MARKER ? 'ours' : 'foreign';
    }
    if (r.status === 404) return 'foreign';
    if (dbMissing(r)) return 'absent';
    throw new Error(`cannot read ${MARKER_ID} in ${db}: ${errorText(r)}`);
  }

  function createDatabase() {
    return http.put(`${base}/admin/databases?name=${db}&replicationFactor=1`, JSON.stringify({ DatabaseName: db }), adminParams);
  }

  function deleteDatabase() {
    const body = JSON.stringify({ DatabaseNames: [db], HardDelete: true, FromNodes: null, TimeToWaitForConfirmation: null });
    return http.request('DELETE', `${base}/admin/databases`, body, adminParams);
  }

  function markerDoc() {
    const r = http.get(`${dbUrl}/docs?id=${encodeURIComponent(MARKER_ID)}`, { timeout: '60s' });
    if (r.status === 200) return (JSON.parse(r.body).Results || [])[0] || null;
    if (r.status === 404 || dbMissing(r)) return null;
    throw new Error(`cannot read ${MARKER_ID} in ${db}: ${errorText(r)}`);
  }

  function createIndex() {
    if (cfg.RAVEN_INDEXES === 0) return;
    const fields = INDEX_FIELDS.slice(0, cfg.RAVEN_INDEXES).map((f) => `d.${f}`).join(', ');
    const def = { Indexes: [{ Name: INDEX_NAME, Maps: [`from d in docs.${collection} select new { ${fields} }`] }] };
    const ix = http.put(`${dbUrl}/admin/indexes`, JSON.stringify(def), adminParams);
    if (ix.status !== 201 && ix.status !== 200) {
      deleteDatabase();
      exec.test.abort(`cannot create index ${INDEX_NAME} in RavenDB database ${db}: ${errorText(ix)}`);
    }
  }

  // DISTRIBUTED (docs/scale-out.md): the first instance creates the database, its marker
  // (with the run and the hash of the plan knobs) and the index; the others get 409 and join
  // once the marker is there and matches. mode verify: the database must exist already.
  function createOrJoin(runId, { mode, signature }) {
    if (mode === 'join') {
      const created = createDatabase();
      if (created.status === 201) {
        const marker = JSON.stringify({ tool: MARKER, run: runId, distributed: signature, createdAt: new Date().toISOString(), '@metadata': { '@collection': MARKER_COLLECTION } });
        const m = http.put(`${dbUrl}/docs?id=${encodeURIComponent(MARKER_ID)}`, marker, adminParams);
        if (m.status !== 201) exec.test.abort(`cannot write the marker document to RavenDB database ${db}: ${errorText(m)}`);
        createIndex();
        return;
      }
      if (created.status !== 409) exec.test.abort(`cannot create RavenDB database ${db}: ${errorText(created)}`);
    }
    // The creating instance may not have written the marker yet.
    let doc = null;
    for (let t = 0; t < 40 && !(doc = markerDoc()); t++) sleep(0.25);
    if (!doc) exec.test.abort(`RavenDB database ${db} has no k6-writepath marker${mode === 'verify' ? ` or does not exist: nothing to verify for RUN_ID=${runId}` : ': refusing to touch it; choose another RUN_ID'}`);
    if (doc.tool !== MARKER || doc.run !== runId || doc.distributed !== signature) {
      exec.test.abort(`RavenDB database ${db} belongs to another run or to instances with other workload knobs (marker ${JSON.stringify({ tool: doc.tool, run: doc.run, distributed: doc.distributed })}, this instance ${signature}): use the same knobs everywhere, or a new RUN_ID`);
    }
  }

  function setup(runId, distributed = null) {
    bind(runId);
    const v = http.get(`${base}/build/version`, { timeout: '10s' });
    if (v.status === 0) exec.test.abort(`RAVEN_URL=${base}: cannot reach RavenDB: ${v.error}`);
    if (v.status !== 200) exec.test.abort(`RAVEN_URL=${base}: GET /build/version answered ${errorText(v)} (an unsecured server needs RAVEN_Security_UnsecuredAccessAllowed, docs/ravendb.md)`);
    const build = JSON.parse(v.body);

    let reused = false;
    if (distributed) {
      createOrJoin(runId, distributed);
    } else {
      let created = createDatabase();
      if (created.status === 409) {
        const owner = ownership();
        if (owner !== 'ours') exec.test.abort(`RavenDB database ${db} exists and was not created by k6-writepath: refusing to touch it; choose another RUN_ID`);
        if (!cfg.REUSE) exec.test.abort(`RavenDB database ${db} already exists (an earlier k6-writepath run): set REUSE=1 to empty and reuse it, or choose another RUN_ID`);
        // Emptying = dropping and re-creating: the marker proved it is ours. The deletion may
        // still be pending on the server for a moment, hence the retries.
        const d = deleteDatabase();
        if (d.status !== 200) exec.test.abort(`cannot drop RavenDB database ${db} for REUSE: ${errorText(d)}`);
        for (let t = 0; t < 20 && (created = createDatabase()).status === 409; t++) sleep(0.5);
        reused = true;
      }
      if (created.status !== 201) exec.test.abort(`cannot create RavenDB database ${db}: ${errorText(created)}`);

      const marker = JSON.stringify({ tool: MARKER, run: runId, createdAt: new Date().toISOString(), '@metadata': { '@collection': MARKER_COLLECTION } });
      const m = http.put(`${dbUrl}/docs?id=${encodeURIComponent(MARKER_ID)}`, marker, adminParams);
      if (m.status !== 201) {
        deleteDatabase();
        exec.test.abort(`cannot write the marker document to RavenDB database ${db}: ${errorText(m)}`);
      }
      createIndex();
    }
    return {
      version: `RavenDB ${build.FullVersion || build.ProductVersion}`,
      serverVersion: `RavenDB ${build.FullVersion || build.ProductVersion} (build ${build.BuildVersion}, ${build.CommitHash})`,
      objects: [`database ${db}`],
      reused,
      settings: {
        collection,
        bulk_insert_gzip: cfg.RAVEN_GZIP,
        static_index_fields: cfg.RAVEN_INDEXES,
        waitForIndexesTimeout: cfg.RAVEN_WAIT_FOR_INDEXES ? timeSpan(durationMs(cfg.RAVEN_WAIT_FOR_INDEXES)) : 'none',
        load_op: cfg.LOAD_OP,
        replicationFactor: 1,
      },
    };
  }

  // Documents of the run's collection (the marker lives in another collection).
  function count() {
    const stats = getJson(`${dbUrl}/collections/stats`, 'collections/stats');
    return Number((stats.Collections || {})[collection] || 0);
  }

  // key number -> stamp ("w") of the stored document; missing keys are absent from the map.
  function readStamps(nums) {
    const out = new Map();
    for (let i = 0; i < nums.length; i += READ_CHUNK) {
      const chunk = nums.slice(i, i + READ_CHUNK);
      const r = http.get(`${dbUrl}/docs?${chunk.map((n) => `id=${keyName(n)}`).join('&')}`, { timeout: '60s' });
      if (r.status === 404 && chunk.length === 1) continue; // one missing id answers 404
      if (r.status !== 200) {
        abortIfGone(r);
        throw new Error(`read-back GET /docs: ${errorText(r)}`);
      }
      const results = JSON.parse(r.body).Results || [];
      for (let k = 0; k < chunk.length; k++) if (results[k]) out.set(chunk[k], String(results[k].w));
    }
    return out;
  }

  function teardown(runId, keep) {
    bind(runId);
    const owner = ownership();
    if (owner === 'absent') return 'absent';
    if (owner !== 'ours') return 'not ours, left alone';
    if (keep) return 'kept (KEEP=1)';
    const d = deleteDatabase();
    return d.status === 200 ? 'dropped' : `NOT dropped: ${errorText(d)}`;
  }

  return { name: 'ravendb', reasons: REASONS, distributed: true, bind, setup, write, batchBody, count, readStamps, teardown };
}
