// MongoDB target: one database k6wp_<RUN_ID> per run, documents in its collection `docs` with
// _id "K<n>", the marker in `k6wp_meta`, written through the pack's gateway (lib/gateway.js;
// gateway/mongo on the official Go driver; docs/gateway.md), which holds MONGO_URL.
// docs/mongodb.md says what is sent and what comes back.
//   insert  insertMany, unordered unless MONGO_ORDERED: a duplicate _id fails that document
//           (11000), the others are written
//   upsert  bulkWrite of ReplaceOne({_id}, doc, upsert)
//   merge   bulkWrite of UpdateOne({_id}, {$set: doc}, upsert)
//   ignore  bulkWrite of UpdateOne({_id}, {$setOnInsert: doc}, upsert)
//   bulk    (E4) unordered insertMany of a key range
// The gateway converts the pack's byte image (lib/docs.js body()) to BSON and answers per
// operation; this file counts per document.
import { connectMongo, requireGateway } from '../../gateway.js';
import { durationMs, InputRefusal } from '../../parse.js';
import { redact } from '../../urls.js';
import { stop } from '../../abort.js';
import { MONGODB } from './mongodb-knobs.js';
import { withCapabilities } from '../../capabilities.js';
import { lifecycle, probeTimeout } from '../lifecycle.js';
import { ACKNOWLEDGED, maybeArrived, request } from '../outcome.js';
import { COUNTER_FIELD } from '../increments.js';
import { createDocs, INDEX_FIELDS } from '../../docs.js';
import { keyName } from '../../keys.js';
import { stampsInChunks } from '../../readback.js';
import { asciiBuffer, writingVu } from '../../bytes.js';

export const COLLECTION = 'docs';
export const META = 'k6wp_meta';
export const MARKER_ID = 'owner';
// The declaration of this target (knobs, reasons, capabilities): lib/targets/mongodb/mongodb-knobs.js.
export const declaration = MONGODB;
const REASONS = MONGODB.reasons;
// The module's operation for each of the pack's.
const OPS = { insert: 'insert', bulk: 'insert', upsert: 'replace', merge: 'merge', ignore: 'ignore' };
const READ_CHUNK = 5000;

// A failed operation's reason, from the server's code (mongodb/mongo src/mongo/base/error_codes.yml).
// The collection is gone: 361 CollectionUUIDMismatch for the operations after a drop (every
// write carries the collection's UUID), or 175 QueryPlanKilled "collection dropped. UUID …" for
// the upsert whose plan was running when the drop came (recorded on mongod 6.0.5; raised in
// mongodb/mongo src/mongo/db/exec/requires_collection_stage.cpp when the plan restores).
export function writeErrorReason(code) {
  if (code === 11000) return 'e11000';
  if (code === 112) return 'write_conflict';
  if (code === 361 || code === 175) return 'collection_gone';
  return 'write_error';
}

// The reason of a whole batch the server did not answer per operation (the module's error kinds).
export function errorReason(e) {
  if (!e) return null;
  if (e.kind === 'auth' || e.kind === 'unauthorized') return 'auth';
  if (e.kind === 'timeout' || e.kind === 'cancelled') return 'timeout';
  if (e.kind === 'connection') return 'connection';
  if (e.kind === 'server') return e.code === 112 ? 'write_conflict' : e.code === 361 || e.code === 175 || e.code === 26 ? 'collection_gone' : 'server_error';
  return 'other';
}

const FATAL = {
  auth: 'MONGO_URL: the server refused the credentials or the permission',
  collection_gone: 'the run\'s collection disappeared during the run (dropped, or dropped and recreated by someone else); nothing was written into a collection the run did not create',
};

// The write concern the knobs ask for, as the module takes it ({} = the server's default).
export function writeConcern(cfg) {
  const wc = {};
  if (cfg.MONGO_W !== 'default') wc.w = /^\d+$/.test(cfg.MONGO_W) ? Number(cfg.MONGO_W) : cfg.MONGO_W;
  if (cfg.MONGO_J !== 'default') wc.j = cfg.MONGO_J === 'true';
  return wc;
}

function wcText(wc) {
  const parts = [];
  if (wc.w !== undefined) parts.push(`w:${typeof wc.w === 'string' ? `"${wc.w}"` : wc.w}`);
  if (wc.j !== undefined) parts.push(`j:${wc.j}`);
  if (wc.wtimeout !== undefined) parts.push(`wtimeout:${wc.wtimeout}`);
  return `{${parts.join(', ')}}`;
}

// The per-document outcome of one batch from the module's result: reasons by count, and the
// indexes of the failed documents in the batch.
export function account(r, n) {
  const e = r.error ? errorReason(r.error) : r.writeConcernError ? 'write_concern' : null;
  if (e) return { failed: n, byReason: { [e]: n }, failedIndexes: null, reason: e };
  if (!r.errors || r.errors.length === 0) return { failed: 0, byReason: {}, failedIndexes: null, reason: null };
  const byReason = {};
  const failedIndexes = [];
  for (const we of r.errors) {
    const reason = writeErrorReason(we.code);
    byReason[reason] = (byReason[reason] || 0) + 1;
    failedIndexes.push(we.index);
  }
  if (r.notAttempted > 0) {
    byReason.not_attempted = r.notAttempted;
    for (let i = n - r.notAttempted; i < n; i++) failedIndexes.push(i);
  }
  return { failed: failedIndexes.length, byReason, failedIndexes, reason: writeErrorReason(r.errors[0].code) };
}

// A refused command: its message is the whole text (lifecycle.js shows String(e)).
class CommandError extends Error {
  constructor(message, code, kind) {
    super(message);
    this.code = code;
    this.kind = kind;
  }

  toString() { return this.message; }
}

function parse(text) {
  return text ? JSON.parse(text) : null;
}

// One command; throws a one-line string (redacted) when the server refuses it.
function command(t, database, cmd, ms = t.timeoutMs) {
  const r = t.client.command(database, cmd, { timeoutMs: ms });
  if (r.error && r.error.gateway && (r.error.unreachable || r.error.kind === 'config')) throw gatewayRefusal(t.cfg, r.error);
  if (r.error) throw new CommandError(redact(r.error.message), r.error.code, r.error.kind);
  return parse(r.reply);
}

// A command whose refusal is reported instead of stopping the run (facts for the report
// that a user without the privilege cannot read).
function fact(t, cmd) {
  try {
    return command(t, 'admin', cmd, t.probeMs);
  } catch (e) {
    return { unreadable: `${e.message}` };
  }
}

// No gateway at GATEWAY_URL, or one without a usable MONGO_URL: bad input (exit 107).
function gatewayRefusal(cfg, e) {
  if (e.unreachable) {
    return new InputRefusal(`GATEWAY_URL=${cfg.GATEWAY_URL}: ${e.message}: start one with  MONGO_URL='mongodb://…' bin/wp-gateway -ready-file .run/gateway.url  and give k6 -e GATEWAY_URL=$(cat .run/gateway.url) (scripts/run does both; docs/gateway.md)`);
  }
  return new InputRefusal(String(e.message).replace(/^gateway: /, ''));
}

// The server as the report shows it (lifecycle.js probe): version, topology, write concern.
function probe(t) {
  const { cfg, client, wc, probeMs } = t;
  let build;
  try {
    build = command(t, 'admin', { buildInfo: 1 }, probeMs);
  } catch (e) {
    if (e instanceof InputRefusal) throw e;
    throw e.kind === 'auth' ? `MONGO_URL: authentication failed: ${e.message}` : `MONGO_URL: cannot reach MongoDB: ${e.message}`;
  }
  // The write concern MONGO_URL itself sets (the gateway reads it from the URL k6 never sees).
  const urlConcern = (client.info() || {}).url || {};
  const fromUrl = {};
  if (urlConcern.w !== null && urlConcern.w !== undefined) fromUrl.w = urlConcern.w;
  if (urlConcern.j !== null && urlConcern.j !== undefined) fromUrl.j = urlConcern.j;
  if (urlConcern.wtimeoutMs !== null && urlConcern.wtimeoutMs !== undefined) fromUrl.wtimeout = urlConcern.wtimeoutMs;
  // w:0 from wherever it comes: unacknowledged writes would be counted as acknowledged.
  const effectiveW = Object.keys(wc).length ? wc.w : fromUrl.w;
  if (effectiveW === 0 || effectiveW === '0') {
    throw new InputRefusal('MONGO_URL (value not shown) sets w=0: the server would acknowledge nothing and no write could be counted; remove w=0 from it, or set MONGO_W=1 (or majority) to replace its write concern');
  }
  const hello = fact(t, { hello: 1 });
  const status = fact(t, { serverStatus: 1, repl: 0, metrics: 0, locks: 0, opcounters: 0, network: 0, connections: 0 });
  const opts = fact(t, { getCmdLineOpts: 1 });
  const rw = fact(t, { getDefaultRWConcern: 1 });
  const topology = hello.unreadable ? `unknown (${hello.unreadable})` : hello.msg === 'isdbgrid' ? 'sharded (mongos)' : hello.setName ? `replica set ${hello.setName}` : 'standalone';
  const storage = status.storageEngine || {};
  const cache = status.wiredTiger && status.wiredTiger.cache ? status.wiredTiger.cache['maximum bytes configured'] : undefined;
  const journal = opts.parsed && opts.parsed.storage && opts.parsed.storage.journal ? opts.parsed.storage.journal.commitIntervalMs : undefined;
  // A standalone answers getDefaultRWConcern with 51300 "not supported on standalone nodes"
  // (mongod 6.0.5); its default is then the implicit {w:1} ("Implicit Default Write Concern",
  // https://www.mongodb.com/docs/manual/reference/write-concern/).
  const serverDefault = rw.unreadable
    ? (topology === 'standalone' && /51300|not supported on standalone/.test(rw.unreadable) ? '{w:1} (implicit: a standalone)' : `unreadable (${rw.unreadable})`)
    : `${wcText(rw.defaultWriteConcern || {})} (${rw.defaultWriteConcernSource || 'implicit'})`;
  return {
    version: `MongoDB ${build.version} (git ${String(build.gitVersion || '').slice(0, 12)}; ${build.allocator || '?'}; ${topology})`,
    serverVersion: `${build.version} (MongoDB ${(build.modules || []).includes('enterprise') ? 'Enterprise' : 'Community'}, ${topology})`,
    settings: {
      topology,
      storage_engine: storage.name ? `${storage.name}${storage.persistent === false ? ' (in memory)' : ''}` : `unreadable (${status.unreadable || 'no storageEngine'})`,
      wiredtiger_cache: cache !== undefined ? `${Math.round(Number(cache) / 1048576)}MB` : '(not reported)',
      journal_commit_interval_ms: journal !== undefined ? String(journal) : opts.unreadable ? `unreadable (${opts.unreadable})` : '100 (default)',
      server_default_write_concern: serverDefault,
      // What an acknowledgement of this run means: the knobs' concern (it replaces the URL's
      // whole: the gateway sets it on the collection), else MONGO_URL's, else the server's default.
      write_concern: Object.keys(wc).length ? `${wcText(wc)} (MONGO_W/MONGO_J${Object.keys(fromUrl).length ? `; replaces MONGO_URL's ${wcText(fromUrl)}` : ''})`
        : Object.keys(fromUrl).length ? `${wcText(fromUrl)} (MONGO_URL)` : `server default ${serverDefault}`,
      ...(urlConcern.retryWrites === true ? { retry_writes: 'true (MONGO_URL): the driver may send a batch again after a network error; the server applies it once (retryable writes)' } : {}),
      ordered: String(cfg.MONGO_ORDERED),
    },
  };
}

// The primitives of lib/targets/lifecycle.js on the run's database t.db.
function databasePrimitives(t) {
  return Object.assign({}, creation(t), databaseReads(t), claimedChanges(t));
}

// The collections of the run's database as listCollections describes them (setup reads the
// docs collection's UUID there too).
function collections(t) {
  const r = command(t, t.db, { listCollections: 1, nameOnly: false });
  return r.cursor.firstBatch;
}

function dropDatabase(t) {
  command(t, t.db, { dropDatabase: 1 });
}

// create() of the run's database: the docs collection, its indexes, the marker last.
function creation(t) {
  const { cfg, client, timeoutMs, wc } = t;
  function markerDoc(marker) {
    return JSON.stringify([Object.assign({ _id: MARKER_ID }, marker, { createdAt: new Date().toISOString() })]);
  }

  // Writes the marker with the run's own write concern: a concern the server cannot satisfy
  // stops the run here, before any document.
  function writeMarker(marker, op) {
    const r = client.write(op, t.db, META, markerDoc(marker), Object.assign({ ordered: true, timeoutMs }, wc));
    const why = r.error || r.writeConcernError || (r.errors && r.errors[0]);
    if (why) throw `the marker document was not acknowledged with write concern ${wcText(wc)}: ${redact(why.message)}`;
  }

  // The name is taken when the database holds any collection; else `create` of docs
  // (48 NamespaceExists: someone was faster). Then indexes, and the marker last.
  function create(marker) {
    if (collections(t).length > 0) return 'exists';
    try {
      command(t, t.db, { create: COLLECTION });
    } catch (e) {
      if (e.code === 48) return 'exists';
      throw `${e.message} (the user needs the right to create databases)`;
    }
    try {
      if (cfg.MONGO_INDEXES > 0) {
        command(t, t.db, { createIndexes: COLLECTION, indexes: INDEX_FIELDS.slice(0, cfg.MONGO_INDEXES).map((f) => ({ key: { [f]: 1 }, name: `${f}_1` })) });
      }
      writeMarker(marker, 'insert');
    } catch (e) {
      try { dropDatabase(t); } catch (_) { /* the error below says what matters */ }
      throw String(e);
    }
    return 'created';
  }
  return { create };
}

// What the run's database holds and is: its marker, the docs collection's shape, the shape
// the plan asks for.
function databaseReads(t) {
  const { cfg, client, timeoutMs } = t;
  // undefined: no such database (no collection in it); null: no marker document.
  function readMarker() {
    if (collections(t).length === 0) return undefined;
    const r = client.find(t.db, META, { _id: MARKER_ID }, { timeoutMs, projection: { _id: 0, createdAt: 0 } });
    if (r.error) throw `cannot read the marker of database ${t.db}: ${redact(r.error.message)}`;
    const found = parse(r.docs);
    return found.length ? found[0] : null;
  }

  // The docs collection as it is: kind and options, the secondary indexes by field.
  function shape() {
    const c = collections(t).find((x) => x.name === COLLECTION);
    if (!c) return {};
    const options = Object.assign({}, c.options || {});
    const idx = command(t, t.db, { listIndexes: COLLECTION }).cursor.firstBatch;
    const fields = idx.filter((i) => i.name !== '_id_').map((i) => {
      const keys = Object.keys(i.key || {});
      const plain = keys.length === 1 && i.key[keys[0]] === 1 && !i.unique && !i.sparse && !i.partialFilterExpression && INDEX_FIELDS.includes(keys[0]);
      return plain ? keys[0] : `other index: ${i.name} ${JSON.stringify(i.key)}`;
    }).sort();
    return {
      kind: c.type === 'collection' ? 'collection' : String(c.type),
      options: Object.keys(options).length ? JSON.stringify(options) : '(none)',
      MONGO_INDEXES: fields.length ? fields.join('+') : '0',
    };
  }

  function planned() {
    return {
      kind: 'collection',
      options: '(none)',
      MONGO_INDEXES: cfg.MONGO_INDEXES ? INDEX_FIELDS.slice(0, cfg.MONGO_INDEXES).slice().sort().join('+') : '0',
    };
  }
  return { readMarker, shape, planned };
}

// The changes lifecycle.js makes to a database it found, each behind a claim of its marker.
function claimedChanges(t) {
  const { wc } = t;
  // Replace the marker document `found` by `marker` in one step: an update whose filter is the
  // whole expected marker matches only while the document still carries it (a single-document
  // write is atomic in MongoDB). Fields a marker lacks (proof, state of an old marker) match
  // only where the document lacks them too ({field: null}). Throws unless it matched.
  function claim(marker, found) {
    const q = { _id: MARKER_ID };
    for (const k of ['tool', 'run', 'token', 'plan', 'proof', 'state']) q[k] = found[k] === undefined ? null : found[k];
    const u = Object.assign({ _id: MARKER_ID }, marker, { createdAt: new Date().toISOString() });
    const r = command(t, t.db, { update: META, updates: [{ q, u }], ordered: true, ...(Object.keys(wc).length ? { writeConcern: wc } : {}) });
    if (r.writeErrors && r.writeErrors.length) throw `cannot replace the marker: ${r.writeErrors[0].errmsg}`;
    if (Number(r.n) !== 1) throw 'the database no longer carries the expected marker';
  }

  // Empty: the marker claimed first (only while it is the one found), then every document deleted.
  function empty(marker, found) {
    claim(marker, found);
    command(t, t.db, { delete: COLLECTION, deletes: [{ q: {}, limit: 0 }] });
  }

  function mark(marker, found) {
    claim(marker, found);
  }

  // Drop: the marker claimed as "dropping" (only while it is this run's), then the database.
  // The whole database only when it holds nothing but what the run made: a collection someone
  // created in it, or a docs collection that is not the run's own (its UUID changed: dropped and
  // recreated by someone else), stays, and so does the database.
  function drop(marker) {
    claim(Object.assign({}, marker, { state: 'dropping' }), marker);
    const colls = collections(t);
    const foreign = colls.map((c) => c.name).filter((n) => n !== COLLECTION && n !== META);
    const own = colls.find((c) => c.name === COLLECTION);
    const ownUuid = own && own.info && own.info.uuid && own.info.uuid.$binary ? own.info.uuid.$binary.base64 : null;
    const swapped = Boolean(t.uuid && ownUuid && ownUuid !== t.uuid);
    if (foreign.length === 0 && !swapped) {
      dropDatabase(t);
      return undefined;
    }
    const removed = [];
    if (own && !swapped) { command(t, t.db, { drop: COLLECTION }); removed.push(COLLECTION); }
    command(t, t.db, { drop: META });
    removed.push(META);
    const why = [foreign.length ? `collections the run did not create (${foreign.join(', ')})` : null,
      swapped ? `a collection ${COLLECTION} that is not the one the run created (another UUID)` : null].filter(Boolean).join(' and ');
    return `the run's collections dropped (${removed.join(', ')}); database ${t.db} left in place: it also holds ${why}`;
  }
  return { empty, mark, drop };
}

// The requests of the batch runner (lib/targets/outcome.js) and the reads of verification.
function requests(t, docs) {
  const { client, timeoutMs } = t;
  // What batch() sends: a recipe the gateway renders into the pack's byte image of the documents
  // (lib/docs.js recipe(); docs/gateway.md), or the bytes of body() where no recipe applies; the
  // gateway turns them into BSON.
  function batchBody(nums, stamp) {
    return docs.recipe(nums, stamp) || docs.body(nums, stamp);
  }

  // One batch = one module call (lib/targets/outcome.js runs it and times it with its clock
  // around send(): the call converts the body to BSON in Go, ~1 ms per 1000 documents, and
  // sends one bulk write). What failed is worked out in settle(), after the clock.
  function batch(op, nums, stamp) {
    const mop = OPS[op];
    if (!mop) throw new Error(`mongodb target: unknown operation ${op}`);
    const body = batchBody(nums, stamp);
    const n = nums.length;
    return request(n, body, (tags) => {
      const r = client.write(mop, t.db, COLLECTION, body, t.wopts, tags);
      const responses = r.res ? [r.res] : undefined;
      if (!r.error && !r.writeConcernError && !r.errors) return { responses };
      return { responses, settle: () => failure(r, n, tags) };
    });
  }

  function failure(r, n, tags) {
    const a = account(r, n);
    const why = r.error || r.writeConcernError || r.errors[0];
    const fatal = Object.keys(a.byReason).find((x) => FATAL[x]);
    // Stored or not, nobody knows: the bulk write got no answer once sent (a timeout, a lost
    // connection: not a failed server selection, which sent nothing; or no answer from the
    // gateway after the whole request), or the server applied it and reported its write concern
    // unmet.
    const e = r.error;
    const unknown = e ? (e.unreachable ? !e.opening && maybeArrived(e.res) : ['timeout', 'connection', 'cancelled'].includes(e.kind) && !/server selection/i.test(e.message)) : Boolean(r.writeConcernError);
    return { reason: a.reason, failed: a.failed, byReason: a.byReason, failedIndexes: a.failedIndexes, undetermined: unknown || undefined,
      log: `[${tags.phase}] batch of ${n}: ${a.failed} failed (${Object.entries(a.byReason).map(([k, v]) => `${k} ${v}`).join(', ')})${unknown ? ', stored or not: counted undetermined (the verification resolves it)' : ''}: ${redact(why.message)}`,
      fatal: fatal ? `${FATAL[fatal]}: ${redact(why.message)}` : null };
  }

  function count() {
    const r = client.count(t.db, COLLECTION, {}, { timeoutMs });
    if (r.error) throw `cannot count the documents of ${t.db}.${COLLECTION}: ${redact(r.error.message)}`;
    return Number(r.count);
  }

  // key number -> stamp ("w") of the stored document.
  function readStamps(nums) {
    return stampsInChunks(nums, READ_CHUNK, (chunk, out) => {
      const r = client.find(t.db, COLLECTION, { _id: { $in: chunk.map(keyName) } }, { projection: { w: 1 }, timeoutMs });
      if (r.error) throw `cannot read back ${t.db}.${COLLECTION}: ${redact(r.error.message)}`;
      for (const d of parse(r.docs)) out.set(Number(String(d._id).slice(1)), String(d.w));
    });
  }

  // --- the contention workload (lib/workloads/contention.js; docs/contention.md) ------------
  // One operation = one bulk write of UpdateOne({_id: "K<n>"}, {$inc: {n: 1}}, upsert) per
  // counter (the module's update(); distinct counters, ascending), with the run's write concern
  // and the collection's UUID. Each UpdateOne is atomic on its document; outside a
  // multi-document transaction the server retries a WiredTiger write conflict itself until it
  // succeeds (docs/operations.md), so a conflict reaches the client only as time.
  const INC = { $inc: { [COUNTER_FIELD]: 1 } };
  function increment(nums) {
    const n = nums.length;
    return request(n, null, (tags) => {
      const r = client.update(t.db, COLLECTION, nums, INC, Object.assign({}, t.wopts, { upsert: true, prefix: 'K' }));
      if (!r.error && !r.writeConcernError && !r.errors && Number(r.matched) + Number(r.upserted) === n) return ACKNOWLEDGED;
      return { settle: () => incrementFailure(r, n, tags) };
    });
  }

  // What the ledger learns from a bulk write that did not acknowledge every increment: the
  // refused UpdateOnes (write errors, by index) were not applied; a whole-command error, a
  // write concern error (applied on this server, the concern not met) or fewer matched +
  // upserted than sent leave the increments undetermined (lib/targets/increments.js).
  function incrementFailure(r, n, tags) {
    if (!r.error && !r.writeConcernError && !r.errors) {
      return { reason: 'unconfirmed', failed: n, log: `[${tags.phase}] ${n} increments: the server matched ${r.matched} and upserted ${r.upserted}: counted undetermined` };
    }
    return failure(r, n, tags);
  }
  return { batchBody, batch, count, readStamps, increment };
}

// The contention workload's counters and ledgers, and the server's own conflict count.
function contentionStore(t) {
  const { client, timeoutMs, probeMs } = t;
  // The write conflicts the server retried itself since it started (serverStatus
  // metrics.operation.writeConflicts; server-wide: every client's).
  function serverConflicts() {
    const r = command(t, 'admin', { serverStatus: 1, repl: 0, locks: 0, opcounters: 0, network: 0, connections: 0, wiredTiger: 0 }, probeMs);
    const n = r && r.metrics && r.metrics.operation ? Number(r.metrics.operation.writeConflicts) : NaN;
    if (!Number.isFinite(n)) throw 'serverStatus has no metrics.operation.writeConflicts';
    return n;
  }

  // setup(): the counters K0 … K{size-1}, {n: 0}, unordered inserts of 10 000.
  function createCounters(size) {
    for (let i = 0; i < size; i += 10000) {
      const docs = [];
      for (let k = i; k < Math.min(size, i + 10000); k++) docs.push(`{"_id":"${keyName(k)}","${COUNTER_FIELD}":0}`);
      const r = client.write('insert', t.db, COLLECTION, `[${docs.join(',')}]`, t.wopts);
      const why = r.error || r.writeConcernError || (r.errors && r.errors[0]);
      if (why) throw `k6-writepath: cannot create the counters in ${t.db}.${COLLECTION}: ${redact(why.message)}`;
    }
  }

  function findByIds(ids, projection, each) {
    for (let i = 0; i < ids.length; i += READ_CHUNK) {
      const r = client.find(t.db, COLLECTION, { _id: { $in: ids.slice(i, i + READ_CHUNK) } }, { projection, timeoutMs });
      if (r.error) throw `k6-writepath: cannot read documents of ${t.db}.${COLLECTION}: ${redact(r.error.message)}`;
      for (const d of parse(r.docs)) each(d);
    }
  }

  // key number -> n of the counter, for the counters that exist.
  function readCounters(nums) {
    const out = new Map();
    findByIds(nums.map(keyName), { [COUNTER_FIELD]: 1 }, (d) => out.set(Number(String(d._id).slice(1)), Number(d[COUNTER_FIELD])));
    return out;
  }

  // A VU's ledger (lib/ledger.js toJSON()) as the document L<vu> (ReplaceOne upsert).
  function putLedger(id, ledger) {
    const r = client.write('replace', t.db, COLLECTION, JSON.stringify([Object.assign({ _id: id }, ledger)]), t.wopts);
    const why = r.error || r.writeConcernError || (r.errors && r.errors[0]);
    if (why) throw new Error(`ledger ${id}: ${redact(why.message)}`);
  }

  function readLedgers(ids) {
    const out = [];
    findByIds(ids, null, (d) => { delete d._id; out.push(d); });
    return out;
  }
  return { serverConflicts, createCounters, readCounters, putLedger, readLedgers };
}

// prepared: what the plan asks of the target (lib/workloads/*.js plan().target).
/**
 * @param {any} cfg
 * @param {import('../../../types/targets').Workload} [prepared]
 * @returns {import('../../../types/targets').Target}
 */
export function createTarget(cfg, prepared = {}) {
  requireGateway(cfg, 'MONGO_URL', 'mongodb://user:password@host:27017/?authSource=admin');
  const timeoutMs = durationMs(cfg.TIMEOUT);
  const probeMs = durationMs(probeTimeout(cfg));
  // Without a server to send to (down, restarting), a batch waits for one at most probeMs
  // (the driver's default is 30 s), then fails (connection) and the VU backs off.
  const client = connectMongo(cfg, { appName: 'k6-writepath', serverSelectionTimeoutMs: probeMs, connectTimeoutMs: probeMs });
  const docs = createDocs(cfg, { keyField: '_id', toBytes: asciiBuffer });
  // Body images built here, in the init context, not by the first timed batch of a VU.
  if (writingVu()) docs.prepareFor(prepared);
  const wc = writeConcern(cfg);

  // The run's connection and settings, shared by the parts below; bind() sets db, the docs
  // collection's UUID (base64, once setup read it) and the write options.
  const t = { cfg, client, timeoutMs, probeMs, wc, db: null, uuid: null, wopts: null };

  function bind(runId, info) {
    if (!t.db) t.db = `k6wp_${runId}`;
    if (info && info.collectionUUID && t.uuid !== info.collectionUUID) {
      t.uuid = info.collectionUUID;
      t.wopts = null;
    }
    if (!t.wopts) t.wopts = Object.assign({ ordered: cfg.MONGO_ORDERED, timeoutMs, collectionUUID: t.uuid || '' }, wc);
  }

  const lc = lifecycle(cfg, Object.assign({
    bind,
    get what() { return `database ${t.db}`; },
    get objects() { return [`database ${t.db}`, `collection ${t.db}.${COLLECTION}`]; },
    get runId() { return t.db.slice(5); },
    get dropHint() { return `mongosh "$MONGO_URL" --eval 'db.getSiblingDB("${t.db}").dropDatabase()'`; },
    probe: () => probe(t),
  }, databasePrimitives(t)));

  // The lifecycle's setup, plus the docs collection's UUID for every write (docs/mongodb.md:
  // a dropped collection is never recreated by a write).
  function setup(runId, signature, mode) {
    const info = lc.setup(runId, signature, mode);
    const c = collections(t).find((x) => x.name === COLLECTION);
    const u = c && c.info && c.info.uuid && c.info.uuid.$binary ? c.info.uuid.$binary.base64 : null;
    if (!u) stop(`database ${t.db}: the server did not report the UUID of collection ${COLLECTION}`);
    info.collectionUUID = u;
    return info;
  }

  const { batchBody, batch, count, readStamps, increment } = requests(t, docs);
  const { serverConflicts, createCounters, readCounters, putLedger, readLedgers } = contentionStore(t);
  return withCapabilities(MONGODB.capabilities(cfg), { name: MONGODB.name, reasons: REASONS, distributed: MONGODB.distributed, lazyKeys: true, bind, setup, batch, batchBody,
    count, readStamps, teardown: lc.teardown, leftBehind: lc.leftBehind, client, database: () => t.db,
    increments: { increment, createCounters, readCounters, putLedger, readLedgers, serverConflicts } });
}
