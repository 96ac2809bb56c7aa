// RavenDB target over plain k6/http (no client library): one database k6wp_<RUN_ID> per run,
// documents in RAVEN_COLLECTION with ids "K<n>". Wire facts from the server source
// (ravendb/ravendb, src/Raven.Server/Documents/Handlers/BulkInsert/BulkInsertHandler.cs, the batch
// handler, src/Raven.Server/Web/Operations/OperationsHandler.cs) and the official clients
// (npm/PyPI package ravendb 7.2); docs/ravendb.md says what the pack sends.
//   bulk    GET operations/next-operation-id, then POST bulk_insert?id=<id> with ONE complete
//           JSON array of {"Id","Type":"PUT","Document"} commands. Always overwrites. NOT one
//           transaction: the server commits in internal batches (16 MB / 8192 ops / 5 ms idle),
//           so after a failure part of the array may be stored; the operation state says how much.
//   upsert  POST bulk_docs {"Commands":[{…,"ChangeVector":null,…}]}: replace or create.
//   insert  the same with "ChangeVector":"" (must be new). bulk_docs is one transaction: one
//           duplicate id fails the whole batch with 409 ConcurrencyException, nothing is stored.
import http from 'k6/http';
import { sleep } from 'k6';
import { durationMs } from '../../parse.js';
import { RAVENDB } from './ravendb-knobs.js';
import { withCapabilities } from '../../capabilities.js';
import { completeOrUndo, lifecycle, patiently, probeTimeout } from '../lifecycle.js';
import { committedButIndexWaitFailed, committedFromState, notNowReason, placementProblem } from './ravendb-answers.js';
import { request, maybeArrived } from '../outcome.js';
import { markTestEndpoint } from '../../test-endpoint.js';
import { COUNTER_FIELD, ravenIncrementBody, ravenIncrementOutcome } from '../increments.js';
import { createDocs, INDEX_FIELDS } from '../../docs.js';
import { keyName } from '../../keys.js';
import { stampsInChunks } from '../../readback.js';
import { asciiBuffer, writingVu } from '../../bytes.js';

const MARKER_ID = 'k6wp/marker';
const MARKER_COLLECTION = 'K6wpMarkers';
// The contention workload's ledgers (one document per VU), apart from the counters.
const LEDGER_COLLECTION = 'K6wpLedgers';
const INDEX_NAME = 'K6wp/ByFields';
const REASONS = RAVENDB.reasons;
const STATUS_REASONS = new Set(REASONS.filter((r) => r.startsWith('http_')).map((r) => Number(r.slice(5))));
const READ_CHUNK = 100; // ids per GET /docs (the URL stays a few KB)

// waitForIndexesTimeout is a .NET TimeSpan: [d.]hh:mm:ss[.fffffff].
function timeSpan(ms) {
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

// The server's JSON error {"Url","Type","Message","Error"}, or null.
function errorJson(res) {
  if (res.status === 0 || typeof res.body !== 'string' || res.body[0] !== '{') return null;
  try { return JSON.parse(res.body); } catch (_) { return null; }
}


// The server's JSON error {"Url","Type","Message","Error"}, or the transport error.
function errorText(res) {
  if (res.status === 0) return String(res.error || 'no response');
  try {
    const e = JSON.parse(/** @type {string} */ (res.body));
    if (e && e.Message) return `${res.status} ${e.Type}: ${e.Message}`;
  } catch (_) { /* not JSON: show the start of the body */ }
  return `${res.status} ${String(res.body || '').slice(0, 300)}`;
}

// A "not now" answer (ravendb-answers.js notNowReason): the reason to send it again under, or null.
function notNowOf(res) {
  if (res.status === 0) return null;
  return notNowReason(res.status, errorJson(res), { body: typeof res.body === 'string' ? res.body : '', serverVersion: res.headers['Raven-Server-Version'] });
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

// The declaration of this target (knobs, reasons, capabilities): lib/targets/ravendb/ravendb-knobs.js.
export const declaration = RAVENDB;

// The run's database is gone: the run stops once the batch that found out is counted.
function gone(run, res) {
  return dbMissing(res) ? `RavenDB database ${run.db} does not exist any more (deleted during the run?): ${errorText(res)}` : null;
}

// Set-up, teardown and verification requests (never timed): JSON bodies, a generous bound.
const JSON_HEADERS = { 'Content-Type': 'application/json' };
const ADMIN_PARAMS = { headers: JSON_HEADERS, timeout: '60s' };

// One such request, a "not now" answer waited out within GIVE_UP (run.patient: lifecycle.js
// patiently). what: the line's name of it.
/** @param {any} run @param {string} what @param {string} method @param {string} url @param {any} [body] @param {any} [params] */
function admin(run, what, method, url, body = null, params = ADMIN_PARAMS) {
  return run.patient(what, () => http.request(method, url, body, params));
}

// The fields of the run's map index (RAVEN_INDEXES of INDEX_FIELDS).
function indexFields(cfg) {
  return INDEX_FIELDS.slice(0, cfg.RAVEN_INDEXES);
}

// probe(): the server behind RAVEN_URL answers within the probe bound and is RavenDB.
function probeServer(cfg, run) {
  const base = run.base;
  const probeWithin = probeTimeout(cfg);
  const v = admin(run, 'GET /build/version', 'GET', `${base}/build/version`, null, { timeout: probeWithin, tags: { name: 'GET /build/version' } });
  if (v.status === 0) throw `RAVEN_URL=${base}: cannot reach RavenDB within ${probeWithin}: ${v.error}`;
  if (v.status !== 200) throw `RAVEN_URL=${base}: GET /build/version answered ${errorText(v)} (an unsecured server needs RAVEN_Security_UnsecuredAccessAllowed, docs/ravendb.md)`;
  let build;
  try { build = JSON.parse(/** @type {string} */ (v.body)); } catch (_) { build = null; }
  if (!build || !(build.FullVersion || build.ProductVersion)) throw `RAVEN_URL=${base} does not look like RavenDB: GET /build/version answered ${String(v.body).slice(0, 200)}`;
  return markTestEndpoint({
    version: `RavenDB ${build.FullVersion || build.ProductVersion}`,
    serverVersion: `RavenDB ${build.FullVersion || build.ProductVersion} (build ${build.BuildVersion}, ${build.CommitHash})`,
  }, v.headers);
}

// The run's database made, marked and deleted as a whole (run: its names, set by bind()).
function databaseObject(cfg, run) {
  const probeWithin = probeTimeout(cfg);

  function createDatabase() {
    return admin(run, 'PUT /admin/databases', 'PUT', `${run.base}/admin/databases?name=${run.db}&replicationFactor=1`, JSON.stringify({ DatabaseName: run.db }));
  }

  function deleteDatabase() {
    const body = JSON.stringify({ DatabaseNames: [run.db], HardDelete: true, FromNodes: null, TimeToWaitForConfirmation: null });
    return admin(run, 'DELETE /admin/databases', 'DELETE', `${run.base}/admin/databases`, body);
  }

  // PUT /admin/databases: 201 = this call made it; 409 = the name is taken. Then the index
  // and the marker document last; whatever fails after the 201 deletes the database again.
  function create(marker) {
    // A server just started or restarted answers "not now" for a few seconds (a 500 in route
    // handling, then 503 NodeIsPassive on 4.1.0): waited out within GIVE_UP, nothing made.
    const created = createDatabase();
    if (created.status === 409) return 'exists';
    if (created.status !== 201) throw errorText(created);
    return completeOrUndo(() => {
      elsewhere(created);
      if (cfg.RAVEN_INDEXES > 0) {
        const fields = indexFields(cfg).map((f) => `d.${f}`).join(', ');
        const def = { Indexes: [{ Name: INDEX_NAME, Maps: [`from d in docs.${cfg.RAVEN_COLLECTION} select new { ${fields} }`] }] };
        const ix = admin(run, 'PUT admin/indexes', 'PUT', `${run.dbUrl}/admin/indexes`, JSON.stringify(def));
        if (ix.status !== 201 && ix.status !== 200) throw `cannot create index ${INDEX_NAME}: ${errorText(ix)}`;
      }
      writeMarker(marker);
    }, deleteDatabase);
  }

  // A database the cluster placed on another node than RAVEN_URL's is refused (and, since this
  // call made it, deleted again): the pack sends every request to RAVEN_URL and does not follow
  // the topology as the official clients do (docs/ravendb.md, "Clusters").
  function elsewhere(created) {
    let answer = null;
    let tag = null;
    try { answer = JSON.parse(/** @type {string} */ (created.body)); } catch (_) { return; }
    const info = admin(run, 'GET /cluster/node-info', 'GET', `${run.base}/cluster/node-info`, null, { timeout: probeWithin });
    if (info.status === 200) { try { tag = JSON.parse(/** @type {string} */ (info.body)).NodeTag; } catch (_) { return; } }
    const problem = placementProblem(answer, tag);
    if (problem) throw `${problem}. k6-writepath sends every request to RAVEN_URL and does not follow the database topology: point RAVEN_URL at a node of the database group, or run against a single node (docs/ravendb.md)`;
  }

  function writeMarker(marker) {
    const doc = JSON.stringify(Object.assign({ createdAt: new Date().toISOString(), '@metadata': { '@collection': MARKER_COLLECTION } }, marker));
    const m = admin(run, `PUT the marker ${MARKER_ID}`, 'PUT', `${run.dbUrl}/docs?id=${encodeURIComponent(MARKER_ID)}`, doc);
    if (m.status !== 201) throw `cannot write the marker document ${MARKER_ID}: ${errorText(m)}`;
  }

  // undefined: no such database; null: no marker document.
  function readMarker() {
    const r = admin(run, `GET the marker ${MARKER_ID}`, 'GET', `${run.dbUrl}/docs?id=${encodeURIComponent(MARKER_ID)}`);
    if (r.status === 200) return (JSON.parse(/** @type {string} */ (r.body)).Results || [])[0] || null;
    if (dbMissing(r)) return undefined;
    if (r.status === 404) return null;
    throw `cannot read ${MARKER_ID} in ${run.db}: ${errorText(r)}`;
  }

  return { create, deleteDatabase, writeMarker, readMarker };
}

// What the run's database holds: its indexes' shape against the plan's, and what beside the
// run's own collections and index.
function databaseContents(cfg, run) {
  const collection = cfg.RAVEN_COLLECTION;

  // The database's static indexes: our map index's fields, and any other index by name.
  function shape() {
    const r = admin(run, 'GET indexes', 'GET', `${run.dbUrl}/indexes`);
    if (r.status !== 200) throw `cannot read the indexes of ${run.db}: ${errorText(r)}`;
    const out = [];
    for (const ix of JSON.parse(/** @type {string} */ (r.body)).Results || []) {
      const m = ix.Name === INDEX_NAME && (ix.Maps || []).length === 1 ? /^from d in docs\.(\w+) select new \{ (.*) \}$/.exec(ix.Maps[0]) : null;
      if (m) out.push(`${m[2].split(', ').map((f) => f.replace(/^d\./, '')).join('+')} (collection ${m[1]})`);
      else out.push(`index ${ix.Name}`);
    }
    return { RAVEN_INDEXES: out.length ? out.sort().join(', ') : '0' };
  }

  function planned() {
    return { RAVEN_INDEXES: cfg.RAVEN_INDEXES ? `${indexFields(cfg).join('+')} (collection ${collection})` : '0' };
  }

  // What the database holds beside the run's own: collections with documents and indexes the
  // run did not create (collections/stats lists a collection emptied by a deletion with 0).
  const ownCollections = [collection, LEDGER_COLLECTION, MARKER_COLLECTION].map((c) => c.toLowerCase());
  function contents() {
    const st = admin(run, 'GET collections/stats', 'GET', `${run.dbUrl}/collections/stats`);
    if (st.status !== 200) throw `cannot list the collections of ${run.db}: ${errorText(st)}`;
    const counts = JSON.parse(/** @type {string} */ (st.body)).Collections || {};
    const ix = admin(run, 'GET indexes', 'GET', `${run.dbUrl}/indexes`);
    if (ix.status !== 200) throw `cannot read the indexes of ${run.db}: ${errorText(ix)}`;
    const indexes = (JSON.parse(/** @type {string} */ (ix.body)).Results || []).map((i) => i.Name);
    const foreign = Object.keys(counts).filter((c) => counts[c] > 0 && !ownCollections.includes(c.toLowerCase())).map((c) => `${c}: ${counts[c]}`);
    const foreignIndexes = indexes.filter((n) => n !== INDEX_NAME);
    const why = [foreign.length ? `documents the run did not create (${foreign.join(', ')})` : null,
      foreignIndexes.length ? `indexes the run did not create (${foreignIndexes.join(', ')})` : null].filter(Boolean).join(' and ');
    return { counts, ownIndex: indexes.includes(INDEX_NAME), why };
  }

  return { shape, planned, contents, ownCollections };
}

// Every document of one collection, by query (DELETE /queries "from <collection>" answers an
// operation id; its state says Completed with the count, as recorded on 4.1.0).
function deleteCollection(run, c) {
  const r = admin(run, `DELETE queries (from ${c})`, 'DELETE', `${run.dbUrl}/queries`, JSON.stringify({ Query: `from ${c}` }));
  if (r.status !== 200) throw `cannot delete the documents of collection ${c}: ${errorText(r)}`;
  const id = JSON.parse(/** @type {string} */ (r.body)).OperationId;
  for (const until = Date.now() + 60000; Date.now() < until; sleep(0.1)) {
    const st = admin(run, 'GET operations/state', 'GET', `${run.dbUrl}/operations/state?id=${id}`);
    if (st.status !== 200) throw `cannot follow the deletion of collection ${c} (operation ${id}): ${errorText(st)}`;
    const state = JSON.parse(/** @type {string} */ (st.body));
    if (state.Status === 'Completed') return;
    if (state.Status !== 'InProgress') throw `the deletion of collection ${c} (operation ${id}) ended ${state.Status}: ${JSON.stringify(state.Result).slice(0, 300)}`;
  }
  throw `the deletion of collection ${c} (operation ${id}) did not complete within 60 s`;
}

// Teardown and reuse of the run's database: drop and empty (made: databaseObject's,
// held: databaseContents').
function databaseRemoval(run, made, held) {
  // Emptying = deleting and creating the database again (the marker proved it is this
  // run's). The deletion may still be pending on the server for a moment, hence the retries;
  // a database someone else made in between is never taken (create() says 'exists'). A
  // database that holds anything the run did not create is not emptied.
  function empty(marker) {
    const { why } = held.contents();
    if (why) throw `database ${run.db} also holds ${why}: not emptied`;
    if (drop() !== undefined) throw `database ${run.db} changed while it was emptied: not emptied`;
    let done = 'exists';
    for (let t = 0; t < 20 && (done = made.create(marker)) === 'exists'; t++) sleep(0.5);
    if (done !== 'created') throw `database ${run.db} could not be created again after emptying it`;
  }

  // The whole database only when it holds nothing but what the run made; else the run's own
  // documents, its index and (last) its marker go, and the database stays with the rest.
  function drop() {
    const { counts, ownIndex, why } = held.contents();
    if (!why) {
      const d = made.deleteDatabase();
      if (d.status !== 200) throw errorText(d);
      return undefined;
    }
    const removed = [];
    for (const c of Object.keys(counts)) {
      if (counts[c] > 0 && held.ownCollections.includes(c.toLowerCase()) && c.toLowerCase() !== MARKER_COLLECTION.toLowerCase()) {
        deleteCollection(run, c);
        removed.push(`collection ${c}`);
      }
    }
    if (ownIndex) {
      const d = admin(run, `DELETE index ${INDEX_NAME}`, 'DELETE', `${run.dbUrl}/indexes?name=${encodeURIComponent(INDEX_NAME)}`);
      if (d.status !== 204) throw `cannot delete index ${INDEX_NAME}: ${errorText(d)}`;
      removed.push(`index ${INDEX_NAME}`);
    }
    const m = admin(run, `DELETE the marker ${MARKER_ID}`, 'DELETE', `${run.dbUrl}/docs?id=${encodeURIComponent(MARKER_ID)}`);
    if (m.status !== 204) throw `cannot delete the marker document ${MARKER_ID}: ${errorText(m)}`;
    removed.push(`marker ${MARKER_ID}`);
    return `the run's documents deleted (${removed.join(', ')}); database ${run.db} left in place: it also holds ${why}`;
  }

  return { empty, drop };
}

// The primitives of lib/targets/lifecycle.js for the run's database (run: its names, set by
// the target's bind()).
function databasePrimitives(cfg, run) {
  const made = databaseObject(cfg, run);
  const held = databaseContents(cfg, run);
  const { empty, drop } = databaseRemoval(run, made, held);
  return {
    probe: () => probeServer(cfg, run),
    create: made.create,
    readMarker: made.readMarker,
    shape: held.shape,
    planned: held.planned,
    empty,
    // The marker document replaced (lifecycle.js read it just before).
    mark: (marker) => made.writeMarker(marker),
    drop,
  };
}

// The request bodies of batch(): (op, nums, stamp) -> the body of one batch.
function batchBodies(docs, prepared) {
  // How each operation writes the "ChangeVector" of a command.
  const changeVector = { bulk: '', upsert: '"ChangeVector":null,', insert: '"ChangeVector":"",' };

  // One command per document, {"Id":"K7",<cv>"Type":"PUT","Document":{…}}, as the envelope
  // of docs.commands()/rangeBody().
  // bulk_docs' insert and upsert commands differ only there: they share one body (mids: the
  // change vector is rewritten when a VU moves from its load to its overwrite batches).
  const envelopes = {};
  for (const op in changeVector) envelopes[op] = { open: '{"Id":"', mid: `",${changeVector[op]}"Type":"PUT","Document":`, close: '}' };
  envelopes.insert.mids = envelopes.upsert.mids = [envelopes.insert.mid, envelopes.upsert.mid];
  const COMMANDS = { open: '{"Commands":', close: '}' }; // the bulk_docs body around the array

  // The request body batch() sends for op, in the order of nums: the command array itself for
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

  // Body images built here, in the init context, not by the first timed batch of a VU: one
  // set per operation the plan uses (bulk insert: the command array; insert and upsert: the
  // bulk_docs body around it).
  if (writingVu()) {
    for (const op of Object.keys(prepared.writes || {})) {
      docs.prepareFor({ ...prepared, writes: { [op]: prepared.writes[op] } },
        op === 'bulk' ? { envelope: envelopes.bulk } : { envelope: envelopes[op], wrap: COMMANDS });
    }
  }

  return batchBody;
}

// After a failed bulk insert: how many documents of the array did the server commit? Polls
// while the operation is still running (a dropped connection cancels it asynchronously), and,
// for a request that got no answer, while the operation is not found yet: 4.x registers it
// only once its handler runs (Database.Operations.AddOperation in BulkInsert(),
// src/Raven.Server/Documents/Handlers/BulkInsertHandler.cs, ravendb/ravendb v4.1), which a
// busy server may do after the client's TIMEOUT (seen on a 2-core machine: 404 at 150 ms,
// then the documents were stored). Both waits are bounded by GIVE_UP, the user's bound for a
// server that is behind: TIMEOUT bounds one request and may be far shorter than the server's
// queue (a fixed few seconds turned a slow machine's commits into "committed part unknown").
function committedByOperation(cfg, run, opId, answered) {
  let st = null;
  const until = Date.now() + durationMs(cfg.GIVE_UP);
  let pause = 0.1;
  const wait = () => { sleep(pause); pause = Math.min(1, pause * 1.5); };
  for (;;) {
    const r = admin(run, 'GET operations/state', 'GET', `${run.dbUrl}/operations/state?id=${opId}`, null, { timeout: '10s', tags: { name: 'operations/state' } });
    if (r.status === 404 && !answered && Date.now() < until) { wait(); continue; }
    if (r.status === 404) return { known: true, notFound: true, processed: 0, text: answered ? 'operation not found (the server never started it)' : `operation not found within GIVE_UP=${cfg.GIVE_UP} (not started, or not yet)` };
    if (r.status === 0) return { known: false, processed: 0, text: `state not readable: ${errorText(r)}` };
    if (r.status !== 200) return { known: false, processed: 0, text: `state not readable: ${errorText(r)}` };
    st = JSON.parse(/** @type {string} */ (r.body));
    if (st.Status !== 'InProgress' || Date.now() >= until) break;
    wait();
  }
  return committedFromState(st);
}

// The server commits the array in order, in internal batches: the first `processed`
// documents are stored, the rest are not. When the state cannot tell (the server restarted
// and forgot the operation, or cannot be asked), the array is undetermined: part of it may be
// committed whether or not the whole body was sent, and the verification resolves it.
function committedPart(cfg, run, res, reason, opId, n, tags) {
  let state = committedByOperation(cfg, run, opId, res.status !== 0);
  // "Never started" holds only for a request the server answered: without an answer the
  // operation may be gone with the server's memory of it (a restart) after committing.
  if (state.known && state.processed === 0 && state.notFound && res.status === 0) state = { known: false, processed: 0, text: state.text };
  const processed = Math.min(n, state.processed);
  const log = `[${tags.phase}] bulk insert of ${n} documents failed (${reason}): ${errorText(res)}; operation ${opId}: ${state.text}; ` +
    (state.known ? `${processed} committed, ${n - processed} counted as failed` : `committed part unknown: all ${n} counted failed and undetermined (stored or not; the verification resolves them)`);
  if (!state.known) return { reason, undetermined: true, log };
  // Without an answer the count read is a floor: 4.1.0 was seen committing internal batches
  // after the operation had faulted on a client's timeout (docs/ravendb.md), so the rest of the
  // array is undetermined, not failed.
  const rest = processed < n && res.status === 0;
  return { reason, failed: n - processed, failedIndexes: processed === n ? null : range(processed, n), undetermined: rest || undefined,
    log: rest ? log.replace(/counted as failed$/, 'counted failed and undetermined (stored or not; the verification resolves them)') : log };
}

// Bulk inserts: (nums, stamp) -> the request of one.
function bulkInsertRequests(cfg, run, batchBody) {
  const bulkParams = { headers: JSON_HEADERS, timeout: cfg.TIMEOUT, tags: { name: 'bulk_insert' } };
  if (cfg.RAVEN_GZIP) bulkParams.compression = 'gzip'; // never deflate: RavenDB would parse the bytes as JSON
  const opIdParams = { timeout: cfg.TIMEOUT, tags: { name: 'next-operation-id' } };
  const nextOperationId = () => http.get(`${run.dbUrl}/operations/next-operation-id`, opIdParams);

  // A bulk insert: the operation id first (not part of the batch's time, as the official
  // clients also fetch it once per bulk insert), then ONE request with the whole array. A
  // request the server refused before doing anything ("not now") is sent again by the runner
  // with a fresh id (a restarted server has forgotten the ids it handed out). idRes belongs to
  // this one bulk insert: each send() uses it at most once.
  return function bulkInsert(nums, stamp) {
    const n = nums.length;
    let idRes = nextOperationId();
    const body = idRes.status === 200 ? batchBody('bulk', nums, stamp) : null;
    const send = (tags) => {
      if (idRes === null) idRes = nextOperationId();
      if (idRes.status !== 200) {
        // Nothing was sent: the answer to the id request is the batch's.
        const failed = idRes;
        idRes = null;
        const reason = classify(failed);
        return { responses: [failed], reason, notNow: notNowOf(failed), fatal: gone(run, failed),
          log: `[${tags.phase}] bulk insert of ${n} documents not sent (${reason}): next-operation-id: ${errorText(failed)}` };
      }
      const opId = JSON.parse(/** @type {string} */ (idRes.body)).Id;
      idRes = null;
      const res = http.post(`${run.dbUrl}/bulk_insert?id=${opId}`, body || batchBody('bulk', nums, stamp), bulkParams);
      if (res.status === 201) return { responses: [res] };
      const reason = classify(res);
      const fatal = gone(run, res);
      if (fatal) return { responses: [res], reason, fatal, log: `[${tags.phase}] bulk insert of ${n} documents failed (${reason}): ${errorText(res)}` };
      const notNow = notNowOf(res);
      if (notNow) return { responses: [res], reason, notNow, log: `[${tags.phase}] bulk insert of ${n} documents refused (${reason}): ${errorText(res)}` };
      return { responses: [res], settle: () => committedPart(cfg, run, res, reason, opId, n, tags) };
    };
    return body ? request(n, body, send) : { n, bytes: 0, send };
  };
}

// bulk_docs: one transaction, all or nothing. A refusal or error answered before the commit
// stores nothing; a request without an answer that may have reached the server whole, and a
// 408 for the index wait after the commit, leave the batch undetermined (stored or not).
// (op, nums, stamp) -> the request of one insert or upsert batch.
function bulkDocsRequests(cfg, run, batchBody) {
  const batchParams = { headers: JSON_HEADERS, timeout: cfg.TIMEOUT, tags: { name: 'bulk_docs' } };
  return function batchCommands(op, nums, stamp) {
    const n = nums.length;
    const body = batchBody(op, nums, stamp);
    return request(n, body, (tags) => {
      const res = http.post(`${run.dbUrl}/bulk_docs${run.batchQuery}`, body, batchParams);
      if (res.status === 201) return { responses: [res] };
      const reason = classify(res);
      const err = errorJson(res);
      const notNow = notNowOf(res);
      if (notNow) return { responses: [res], reason, notNow, log: `[${tags.phase}] ${op} batch of ${n} documents refused (${reason}): ${errorText(res)}` };
      if (committedButIndexWaitFailed(res.status, err)) {
        return { responses: [res], reason, undetermined: true,
          log: `[${tags.phase}] ${op} batch of ${n} documents committed by the server, then its wait for the indexes timed out (RAVEN_WAIT_FOR_INDEXES): counted failed and undetermined: ${errorText(res)}` };
      }
      if (maybeArrived(res)) {
        return { responses: [res], reason, undetermined: true,
          log: `[${tags.phase}] ${op} batch of ${n} documents got no answer (${reason}): stored or not, counted failed and undetermined (the verification resolves it): ${errorText(res)}` };
      }
      return { responses: [res], reason, fatal: gone(run, res),
        log: `[${tags.phase}] ${op} batch of ${n} documents failed (${reason}), none stored: ${errorText(res)}` };
    });
  };
}

// The contention workload (lib/workloads/contention.js; lib/targets/increments.js): one
// operation = one bulk_docs transaction of PATCH increment commands, one per counter.
// (nums) -> the request of one operation.
function incrementRequests(cfg, run) {
  const incrementParams = { headers: JSON_HEADERS, timeout: cfg.TIMEOUT, tags: { name: 'bulk_docs increment' } };
  return function increment(nums) {
    const n = nums.length;
    const body = ravenIncrementBody(nums.map(keyName));
    return request(n, body, (tags) => {
      const res = http.post(`${run.dbUrl}/bulk_docs`, body, incrementParams);
      const o = ravenIncrementOutcome(n, res.status, res.body, res.status === 0 ? classify(res) : 'connection');
      if (o.acked === n) return { responses: [res] };
      if (res.status === 201) {
        // Per command: which ones were not applied (DocumentDoesNotExist: a counter vanished).
        const results = JSON.parse(/** @type {string} */ (res.body)).Results || [];
        const failedIndexes = [];
        for (let i = 0; i < n; i++) if (!results[i] || results[i].PatchStatus !== 'Patched') failedIndexes.push(i);
        return { responses: [res], reason: Object.keys(o.byReason)[0], failed: failedIndexes.length, byReason: o.byReason, failedIndexes,
          log: `[${tags.phase}] ${failedIndexes.length} of ${n} increments not applied: ${Object.entries(o.byReason).map(([r, c]) => `${r} ${c}`).join(', ')}` };
      }
      const reason = res.status === 0 ? o.reason : classify(res);
      return { responses: [res], reason, fatal: gone(run, res),
        log: `[${tags.phase}] increment of ${n} counters ${o.undetermined ? 'undetermined' : 'failed, none applied'} (${reason}): ${errorText(res)}` };
    });
  };
}

// The requests of the batch runner (lib/targets/outcome.js): bulk inserts and bulk_docs
// batches, their bodies, and how their answers are counted.
function requests(cfg, run, docs, prepared) {
  const batchBody = batchBodies(docs, prepared);
  const bulkInsert = bulkInsertRequests(cfg, run, batchBody);
  const batchCommands = bulkDocsRequests(cfg, run, batchBody);
  const increment = incrementRequests(cfg, run);

  function batch(op, nums, stamp) {
    if (op === 'bulk') return bulkInsert(nums, stamp);
    if (op === 'insert' || op === 'upsert') return batchCommands(op, nums, stamp);
    throw new Error(`ravendb target: unknown operation ${op}`);
  }

  return { batch, batchBody, increment };
}

// prepared: what the plan asks of the target (lib/workloads/*.js plan().target).
/**
 * @param {any} cfg
 * @param {import('../../../types/targets').Workload} [prepared]
 * @returns {import('../../../types/targets').Target}
 */
export function createTarget(cfg, prepared = {}) {
  const base = cfg.RAVEN_URL.replace(/\/$/, '');
  const collection = cfg.RAVEN_COLLECTION;
  const docs = createDocs(cfg, { keyField: null, extra: `,"@metadata":{"@collection":"${collection}"}`, toBytes: asciiBuffer });
  // The server (base) and the run's database, named by bind().
  const run = { base, db: null, dbUrl: null, batchQuery: '', patient: patiently(cfg, 'RavenDB', notNowOf, errorText) };

  function bind(runId) {
    if (run.db) return;
    run.db = `k6wp_${runId}`;
    run.dbUrl = `${base}/databases/${run.db}`;
    if (cfg.RAVEN_WAIT_FOR_INDEXES) run.batchQuery = `?waitForIndexesTimeout=${timeSpan(durationMs(cfg.RAVEN_WAIT_FOR_INDEXES))}`;
  }

  function getJson(url, what) {
    const r = admin(run, `GET ${what}`, 'GET', url);
    if (r.status !== 200) throw new Error(`${what}: ${gone(run, r) || errorText(r)}`);
    return JSON.parse(/** @type {string} */ (r.body));
  }

  const { setup, teardown, leftBehind } = lifecycle(cfg, {
    bind,
    get what() { return `RavenDB database ${run.db}`; },
    get objects() { return [`database ${run.db}`]; },
    get runId() { return run.db.slice(5); },
    get dropHint() { return `curl -X DELETE ${base}/admin/databases -H 'Content-Type: application/json' -d '{"DatabaseNames":["${run.db}"],"HardDelete":true}'`; },
    ...databasePrimitives(cfg, run),
    settings: () => ({
      collection,
      bulk_insert_gzip: cfg.RAVEN_GZIP,
      waitForIndexesTimeout: cfg.RAVEN_WAIT_FOR_INDEXES ? timeSpan(durationMs(cfg.RAVEN_WAIT_FOR_INDEXES)) : 'none',
      load_op: cfg.LOAD_OP,
      replicationFactor: 1,
    }),
  });

  const { batch, batchBody, increment } = requests(cfg, run, docs, prepared);

  // Documents of the run's collection (the marker lives in another collection).
  function count() {
    const stats = getJson(`${run.dbUrl}/collections/stats`, 'collections/stats');
    return Number((stats.Collections || {})[collection] || 0);
  }

  // key number -> stamp ("w") of the stored document; missing keys are absent from the map.
  function readStamps(nums) {
    return stampsInChunks(nums, READ_CHUNK, (chunk, out) => {
      const r = admin(run, 'GET docs (read-back)', 'GET', `${run.dbUrl}/docs?${chunk.map((n) => `id=${keyName(n)}`).join('&')}`);
      if (r.status === 404 && chunk.length === 1) return; // one missing id answers 404
      if (r.status !== 200) throw new Error(`read-back GET /docs: ${gone(run, r) || errorText(r)}`);
      const results = JSON.parse(/** @type {string} */ (r.body)).Results || [];
      for (let k = 0; k < chunk.length; k++) if (results[k]) out.set(chunk[k], String(results[k].w));
    });
  }

  // --- the contention workload's set-up and read-back (lib/workloads/contention.js) --------
  // setup(): the counters K0 … K{size-1}, {"n": 0}, in transactions of 10 000 PUTs.
  function createCounters(size) {
    for (let i = 0; i < size; i += 10000) {
      const cmds = [];
      for (let k = i; k < Math.min(size, i + 10000); k++) cmds.push(`{"Id":"${keyName(k)}","ChangeVector":null,"Type":"PUT","Document":{"${COUNTER_FIELD}":0,"@metadata":{"@collection":"${collection}"}}}`);
      const r = admin(run, 'POST bulk_docs (counters)', 'POST', `${run.dbUrl}/bulk_docs`, `{"Commands":[${cmds.join(',')}]}`);
      if (r.status !== 201) throw new Error(`creating the counters: ${gone(run, r) || errorText(r)}`);
    }
  }

  // Documents by id (missing ones absent), READ_CHUNK ids per GET /docs.
  function readById(ids, each) {
    for (let i = 0; i < ids.length; i += READ_CHUNK) {
      const chunk = ids.slice(i, i + READ_CHUNK);
      const r = admin(run, 'GET docs', 'GET', `${run.dbUrl}/docs?${chunk.map((id) => `id=${encodeURIComponent(id)}`).join('&')}`);
      if (r.status === 404 && chunk.length === 1) continue; // one missing id answers 404
      if (r.status !== 200) throw new Error(`GET /docs: ${gone(run, r) || errorText(r)}`);
      for (const d of JSON.parse(/** @type {string} */ (r.body)).Results || []) if (d) each(d);
    }
  }

  function readCounters(nums) {
    const out = new Map();
    readById(nums.map(keyName), (d) => out.set(Number(String(d['@metadata']['@id']).slice(1)), Number(d[COUNTER_FIELD])));
    return out;
  }

  function putLedger(id, ledger) {
    const doc = Object.assign({}, ledger, { '@metadata': { '@collection': LEDGER_COLLECTION } });
    const r = admin(run, `POST bulk_docs (ledger ${id})`, 'POST', `${run.dbUrl}/bulk_docs`, JSON.stringify({ Commands: [{ Id: id, ChangeVector: null, Type: 'PUT', Document: doc }] }));
    if (r.status !== 201) throw new Error(`PUT ledger ${id}: ${gone(run, r) || errorText(r)}`);
  }

  function readLedgers(ids) {
    const out = [];
    readById(ids, (d) => out.push(d));
    return out;
  }

  return withCapabilities(RAVENDB.capabilities(cfg), { name: RAVENDB.name, reasons: REASONS, distributed: RAVENDB.distributed, bind, setup, batch, batchBody, count, readStamps, teardown, leftBehind,
    increments: { increment, createCounters, readCounters, putLedger, readLedgers } });
}
