// ArangoDB target over plain k6/http (no driver): one database k6wp_<RUN_ID> per run,
// created through _system, holding the run's collection(s) and a marker collection that
// says the database was created by this pack. Every request goes to /_db/<db>/….
//   insert  POST /_api/document/<c>?overwrite=false         a duplicate is element error 1210
//   upsert  …?overwriteMode=replace                          replace the whole document
//   merge   …?overwriteMode=update&keepNull=<explicit>       patch (docs and source disagree
//                                                            on keepNull's default)
//   ignore  …?overwriteMode=ignore                           an existing key is left alone
// ArangoDB answers 201/202 to an array even when elements failed: failures are inline
// {"error":true,"errorNum":N} objects plus an X-Arango-Error-Codes header ({"1210":3}).
// write() counts every element from the answer itself; an element is ok only when the
// answer shows it succeeded.
import http from 'k6/http';
import { sleep } from 'k6';
import exec from 'k6/execution';
import encoding from 'k6/encoding';
import { redact } from '../config.js';
import { bodyBytes, createDocs, INDEX_FIELDS } from '../docs.js';
import { keyName } from '../keys.js';
import { asciiBuffer, maxKeyOf, writingVu } from '../bytes.js';
import { accountBatch, parseJson } from './arangodb-answers.js';

export const MARKER = 'k6-writepath';
const META = 'k6wp_meta';
// Pause of a VU after an operation failed for lack of a connection (see backoff()).
const CONNECTION_BACKOFF_S = 0.5;
// A JWT is renewed this long before its exp (less for short-lived tokens, see jwtRenewal()).
const JWT_RENEW_MARGIN_MS = 300000;
// How long a joining instance of a distributed run waits for the creator's marker.
const JOIN_WAIT_S = 10;

// Failure reasons declared to k6 (one sub-metric each): the element errorNums a write can
// carry (errors.yaml), whole-request HTTP failures, and transport failures. A reason not
// listed still counts in docs_failed and shows as "unlisted" in the table.
export const REASONS = [
  'e4', 'e18', 'e21', 'e32', 'e1004', 'e1200', 'e1202', 'e1203', 'e1210', 'e1221', 'e1222', 'e1227', 'e1228', 'e1233', 'e1655',
  'http_400', 'http_401', 'http_404', 'http_409', 'http_410', 'http_412', 'http_500', 'http_503', 'http_other',
  'timeout', 'connection', 'unconfirmed',
];

function overwriteQuery(op, cfg) {
  switch (op) {
    case 'insert': return 'overwrite=false';
    case 'upsert': return 'overwriteMode=replace';
    case 'merge': return `overwriteMode=update&keepNull=${cfg.ARANGO_KEEP_NULL}&mergeObjects=true`;
    case 'ignore': return 'overwriteMode=ignore';
    default: throw new Error(`arangodb target: unknown operation ${op}`);
  }
}



// When to renew a JWT: { expiresAt, renewAt } in ms. The margin is 5 minutes, or a quarter
// of the token's lifetime (exp - iat) when that is shorter: a server with a short
// --server.session-timeout (or the test server's -session-timeout 3s) still gets a token
// used for 3/4 of its life, and a request never starts with an expired one. An opaque
// token (no readable exp) is assumed to last 1 h from now.
export function jwtRenewal(token, nowMs = Date.now()) {
  let exp = null;
  let iat = null;
  try {
    const claims = JSON.parse(encoding.b64decode(token.split('.')[1], 'rawurl', 's'));
    if (typeof claims.exp === 'number') exp = claims.exp * 1000;
    if (typeof claims.iat === 'number') iat = claims.iat * 1000;
  } catch (_) { /* an opaque token: assume the default lifetime */ }
  if (exp === null) exp = nowMs + 3600 * 1000;
  const lifetime = exp - (iat !== null && iat <= nowMs ? iat : nowMs);
  const margin = Math.min(JWT_RENEW_MARGIN_MS, Math.max(0, lifetime / 4));
  return { expiresAt: exp, renewAt: exp - margin };
}

// k6 status 0: no HTTP answer. error_code 1050 is k6's request timeout.
function transportReason(res) {
  return res.error_code === 1050 || /timeout/i.test(res.error || '') ? 'timeout' : 'connection';
}

function httpReason(status) {
  return REASONS.includes(`http_${status}`) ? `http_${status}` : 'http_other';
}

export function createTarget(cfg, plan = {}) {
  const base = cfg.ARANGO_URL.replace(/\/$/, '');
  const docs = createDocs(cfg, { keyField: '_key', toBytes: asciiBuffer });
  // Body images built here, in the init context, not by the first timed batch of a VU.
  if (writingVu()) docs.prepare({ count: cfg.BATCH_SIZE, maxKey: maxKeyOf(cfg), stamps: ['l'] });
  const timeout = cfg.TIMEOUT;
  // Collections the workload needs (arangobench multi-collection writes to two).
  const collectionCount = plan.collections || 1;
  const indexFields = plan.indexFields || INDEX_FIELDS.slice(0, cfg.ARANGO_INDEXES);
  const logged = {};
  let db = null;
  let prefix = null;
  let colls = null;
  let auth = null; // { header, renewAt }
  let params = null;

  function logOnce(key, message) {
    if (logged[key]) return;
    logged[key] = true;
    console.error(message);
  }

  function basicHeader() {
    return `Basic ${encoding.b64encode(`${cfg.ARANGO_USER}:${cfg.ARANGO_PASSWORD || ''}`)}`;
  }

  // The Authorization header, renewing a JWT 5 minutes (at most a quarter of its lifetime)
  // before it expires, with a new POST /_open/auth. Each VU (and setup/teardown) holds its
  // own token: tokens never travel through setup data, which ends up in summary.json.
  function authorization() {
    if (cfg.ARANGO_AUTH === 'basic') return basicHeader();
    if (auth && Date.now() < auth.renewAt) return auth.header;
    const res = http.post(`${base}/_open/auth`, JSON.stringify({ username: cfg.ARANGO_USER, password: cfg.ARANGO_PASSWORD || '' }),
      { headers: { 'Content-Type': 'application/json' }, timeout, tags: { name: 'POST /_open/auth' } });
    if (res.status === 200) {
      const jwt = (parseJson(res.body) || {}).jwt;
      if (!jwt) exec.test.abort('ArangoDB /_open/auth answered 200 without a jwt');
      auth = { header: `Bearer ${jwt}`, renewAt: jwtRenewal(jwt).renewAt };
    } else if (res.status === 404) {
      auth = { header: null, renewAt: Infinity }; // authentication is off on the server
    } else if (res.status === 401) {
      exec.test.abort(`ARANGO_USER=${cfg.ARANGO_USER}: /_open/auth refused the credentials (401); check ARANGO_PASSWORD`);
    } else if (res.status === 0) {
      exec.test.abort(`ARANGO_URL=${base}: cannot reach ArangoDB: ${redact(res.error)}`);
    } else {
      exec.test.abort(`ArangoDB /_open/auth answered ${res.status}: ${String(res.body).slice(0, 200)}`);
    }
    params = null;
    return auth.header;
  }

  function headers() {
    const h = { 'Content-Type': 'application/json', 'X-Omit-Www-Authenticate': 'true' };
    const a = authorization();
    if (a) h.Authorization = a;
    return h;
  }

  // Request params of the timed path, rebuilt only when the JWT changes.
  function requestParams() {
    if (cfg.ARANGO_AUTH === 'jwt') authorization();
    if (!params) params = { headers: headers(), timeout, tags: {}, responseType: 'text' };
    return params;
  }

  function call(method, url, body, name) {
    return http.request(method, url, body === undefined ? null : body, { headers: headers(), timeout, tags: { name } });
  }

  function errorNum(res) {
    const b = parseJson(res.body);
    return b && b.errorNum !== undefined ? b.errorNum : null;
  }

  function describe(res) {
    if (res.status === 0) return redact(res.error);
    const b = parseJson(res.body);
    return b && b.errorMessage ? `${res.status} errorNum ${b.errorNum}: ${b.errorMessage}` : `${res.status} ${String(res.body).slice(0, 200)}`;
  }

  // A 401, or a missing database/collection mid-run: hammering on is pointless. Returns the
  // one-line reason to abort (or null); the workload aborts once it has counted the failed
  // operation (result field `abort`), so the batch that revealed the fault is in the results.
  function fatal(res, what) {
    if (res.status === 401) return `ArangoDB answered 401 to ${what}: credentials refused or token expired (ARANGO_USER=${cfg.ARANGO_USER}, ARANGO_AUTH=${cfg.ARANGO_AUTH})`;
    if (res.status === 404) {
      const num = errorNum(res);
      if (num === 1228) return `database ${db} disappeared during the run (404, errorNum 1228) at ${what}`;
      if (num === 1203) return `a collection of database ${db} disappeared during the run (404, errorNum 1203) at ${what}`;
    }
    return null;
  }

  // A refused connection fails in well under a millisecond: without a pause a VU would burn
  // through its share of the phase while the server restarts. The pause is outside the timed
  // request, and the operation still counts as failed (same rule as the PostgreSQL target).
  function backoff(reason) {
    if (reason === 'connection') sleep(CONNECTION_BACKOFF_S);
  }

  function bind(runId) {
    if (db) return;
    db = `k6wp_${runId}`;
    prefix = `${base}/_db/${db}`;
    colls = [`k6wp_${runId}`];
    for (let i = 2; i <= collectionCount; i++) colls.push(`k6wp_${runId}_${i}`);
  }

  // A failed setup step: a run of its own undoes its database; an instance of a distributed
  // run never drops the shared one (the other instances may be writing to it).
  let shared = false;
  function mustOk(res, what, codes = [200, 201, 202]) {
    if (codes.includes(res.status)) return parseJson(res.body);
    if (!shared) {
      try { call('DELETE', `${base}/_db/_system/_api/database/${db}`, undefined, 'DELETE /_api/database'); } catch (_) { /* nothing more to undo */ }
    }
    return exec.test.abort(`cannot ${what}: ${describe(res)}`);
  }

  // The marker document, or null when the database, the marker collection or the document is
  // not there (yet). strict: any other answer aborts the test (a distributed setup must
  // not mistake a 503 for "not ours"); else it is null too.
  function marker(strict = true) {
    const res = call('GET', `${prefix}/_api/document/${META}/owner`, undefined, 'GET marker');
    if (res.status === 200) return parseJson(res.body) || {};
    if (res.status === 404 || !strict) return null;
    return exec.test.abort(`cannot read the marker of database ${db}: ${describe(res)}`);
  }

  function isOurs() {
    const b = marker(false);
    return Boolean(b && b.createdBy === MARKER);
  }

  function writeMarker(runId, signature) {
    mustOk(call('POST', `${prefix}/_api/collection`, JSON.stringify({ name: META }), 'POST /_api/collection'), `create collection ${META}`);
    const doc = { _key: 'owner', createdBy: MARKER, runId, createdAt: new Date().toISOString() };
    if (signature) doc.distributed = signature;
    mustOk(call('POST', `${prefix}/_api/document/${META}`, JSON.stringify(doc), 'POST marker'), 'write the marker document');
  }

  // The run's collections and their indexes. joining: a collection another instance created
  // first (409, errorNum 1207) is fine; POST /_api/index answers 200 for an index that exists.
  function createCollections(joining) {
    for (const c of colls) {
      const res = call('POST', `${prefix}/_api/collection`, JSON.stringify({ name: c, waitForSync: cfg.ARANGO_WAIT_FOR_SYNC }), 'POST /_api/collection');
      if (!(joining && res.status === 409 && errorNum(res) === 1207)) mustOk(res, `create collection ${c}`);
      for (const f of indexFields) {
        mustOk(call('POST', `${prefix}/_api/index?collection=${c}`, JSON.stringify({ type: 'persistent', fields: [f], unique: false, sparse: false }), 'POST /_api/index'), `create a persistent index on ${c}.${f}`);
      }
    }
  }

  // DISTRIBUTED (docs/scale-out.md). mode join: every instance POSTs the database; the one
  // that gets 201 writes the marker (run id + hash of the workload knobs) right away, the
  // others get 409 (errorNum 1207), wait for that marker and check it. Then every instance
  // creates the collections (409 1207 = another instance was first) and indexes
  // (idempotent), so whichever instance finishes setup first finds all of them there.
  // mode verify: nothing is created; the database, its marker and collections must exist.
  function createOrJoin(runId, { mode, signature }) {
    shared = true;
    if (mode === 'join') {
      const created = call('POST', `${base}/_db/_system/_api/database`, JSON.stringify({ name: db }), 'POST /_api/database');
      if (created.status === 201) {
        writeMarker(runId, signature);
        createCollections(true);
        return;
      }
      if (!(created.status === 409 && errorNum(created) === 1207)) exec.test.abort(`cannot create database ${db} (needs rights on _system): ${describe(created)}`);
    }
    // The creating instance may not have written the marker yet.
    let doc = marker();
    for (let t = 0; !doc && mode === 'join' && t < JOIN_WAIT_S * 4; t++) {
      sleep(0.25);
      doc = marker();
    }
    if (!doc) exec.test.abort(`database ${db} has no k6-writepath marker${mode === 'verify' ? ` or does not exist: nothing to verify for RUN_ID=${runId}` : ` after ${JOIN_WAIT_S} s: refusing to touch it; choose another RUN_ID`}`);
    if (doc.createdBy !== MARKER) exec.test.abort(`database ${db} exists and was not created by k6-writepath: refusing to touch it; choose another RUN_ID`);
    if (doc.runId !== runId || doc.distributed !== signature) {
      exec.test.abort(`database ${db} belongs to another run or to instances with other workload knobs (marker ${JSON.stringify({ runId: doc.runId, distributed: doc.distributed || null })}, this instance ${signature}): use the same knobs everywhere, or a new RUN_ID`);
    }
    if (mode === 'join') createCollections(true);
  }

  function setup(runId, distributed = null) {
    bind(runId);
    const vres = call('GET', `${base}/_db/_system/_api/version`, undefined, 'GET /_api/version');
    if (vres.status === 0) exec.test.abort(`ARANGO_URL=${base}: cannot reach ArangoDB: ${redact(vres.error)}`);
    if (vres.status === 401) exec.test.abort(`ARANGO_USER=${cfg.ARANGO_USER}: ArangoDB refused the credentials (401); check ARANGO_PASSWORD and ARANGO_AUTH`);
    const version = parseJson(vres.body);
    if (vres.status !== 200 || !version || !version.version) exec.test.abort(`ARANGO_URL=${base} does not look like ArangoDB: /_api/version answered ${describe(vres)}`);

    let reused = false;
    if (distributed) {
      createOrJoin(runId, distributed);
    } else {
      const created = call('POST', `${base}/_db/_system/_api/database`, JSON.stringify({ name: db }), 'POST /_api/database');
      if (created.status === 409) {
        if (!isOurs()) exec.test.abort(`database ${db} exists and was not created by k6-writepath: refusing to touch it; choose another RUN_ID`);
        if (!cfg.REUSE) exec.test.abort(`database ${db} already exists (an earlier k6-writepath run): set REUSE=1 to empty and reuse it, or choose another RUN_ID`);
        // Ours: drop and create it again, the simplest way to empty it with every index.
        const dropped = call('DELETE', `${base}/_db/_system/_api/database/${db}`, undefined, 'DELETE /_api/database');
        if (dropped.status !== 200) exec.test.abort(`cannot drop database ${db} for REUSE=1: ${describe(dropped)}`);
        mustOk(call('POST', `${base}/_db/_system/_api/database`, JSON.stringify({ name: db }), 'POST /_api/database'), `create database ${db}`);
        reused = true;
      } else if (created.status !== 201) {
        exec.test.abort(`cannot create database ${db} (needs rights on _system): ${describe(created)}`);
      }
      writeMarker(runId, null);
      createCollections(false);
    }
    // In verify mode this also proves the collections exist (a 404 aborts, nothing is dropped).
    for (const c of colls.slice(1)) mustOk(call('GET', `${prefix}/_api/collection/${c}/properties`, undefined, 'GET properties'), `read the properties of ${c}`);
    const props = mustOk(call('GET', `${prefix}/_api/collection/${colls[0]}/properties`, undefined, 'GET properties'), `read the properties of ${colls[0]}`) || {};
    return {
      version: `ArangoDB ${version.version} (${version.server || 'arango'}, license ${version.license || 'unknown'})`,
      serverVersion: `ArangoDB ${version.version}`,
      objects: [`database ${db}`, ...colls.map((c) => `collection ${db}/${c}`)],
      reused,
      settings: {
        waitForSync: props.waitForSync === undefined ? cfg.ARANGO_WAIT_FOR_SYNC : props.waitForSync,
        persistent_indexes: indexFields.length ? indexFields.join('+') : 0,
        silent: cfg.ARANGO_SILENT,
        keepNull: cfg.ARANGO_KEEP_NULL,
        auth: cfg.ARANGO_AUTH,
      },
    };
  }

  // One batch: a JSON array in one request, timed with k6's own request timing. Writes
  // answer 201/202 and deletes 200/202, also when elements failed (accountBatch reads them).
  function batchCall(method, path, body, n, tags, ok) {
    const p = requestParams();
    p.tags = { name: `${method} /_api/document ${tags.op}`, phase: tags.phase, op: tags.op };
    const url = cfg.ARANGO_SILENT ? `${prefix}${path}${path.includes('?') ? '&' : '?'}silent=true` : `${prefix}${path}`;
    const res = http.request(method, url, body, p);
    const out = { n, ms: res.timings.duration, bytes: bodyBytes(body), failed: 0, byReason: {}, failedIndexes: null };
    if (res.status === 0) {
      const reason = transportReason(res);
      logOnce(reason, `[${tags.phase}] batch of ${n} failed (${reason}): ${redact(res.error)}`);
      backoff(reason);
      return Object.assign(out, { failed: n, byReason: { [reason]: n } });
    }
    if (!ok.includes(res.status)) {
      const reason = httpReason(res.status);
      logOnce(reason, `[${tags.phase}] batch of ${n} failed: ${describe(res)}`);
      return Object.assign(out, { failed: n, byReason: { [reason]: n }, abort: fatal(res, `${method} ${path.split('?')[0]}`) });
    }
    const a = accountBatch(n, res.status, res.body, res.headers['X-Arango-Error-Codes'], cfg.ARANGO_SILENT);
    if (a.note) logOnce(`note:${a.note.slice(0, 20)}`, `[${tags.phase}] ${a.note}`);
    for (const r in a.byReason) logOnce(r, `[${tags.phase}] ${a.byReason[r]} of ${n} documents failed with ${r} (answer ${res.status}); later failures are counted, not logged`);
    return Object.assign(out, { failed: a.failed, byReason: a.byReason, failedIndexes: a.failedIndexes });
  }

  function writeBody(op, body, n, tags, coll = colls[0]) {
    return batchCall('POST', `/_api/document/${coll}?${overwriteQuery(op, cfg)}`, body, n, Object.assign({}, tags, { op }), [201, 202]);
  }

  // The JSON array of the documents of nums, as write() sends it, in the order of nums (so
  // failed elements map to indexes of nums): an ArrayBuffer patched by docs.body() (a run of
  // consecutive keys: rangeBody; random keys of overwrite/mixed batches: keysBody), the
  // string of docs.batch() only where no byte path applies. Exported for
  // bench/http-generation.js, which measures this function. The ArrayBuffer is reused by the
  // next call: send it before building another body.
  function batchBody(nums, stamp) {
    return docs.body(nums, stamp);
  }

  function write(op, nums, stamp, tags) {
    return writeBody(op, batchBody(nums, stamp), nums.length, tags);
  }

  // PATCH an array of documents (each carries its _key); a missing key is element error 1202.
  function updateBatch(nums, stamp, tags) {
    return batchCall('PATCH', `/_api/document/${colls[0]}?keepNull=${cfg.ARANGO_KEEP_NULL}&mergeObjects=true`, batchBody(nums, stamp), nums.length, tags, [201, 202]);
  }

  // DELETE an array of keys; a missing key is element error 1202.
  function removeBatch(nums, tags) {
    return batchCall('DELETE', `/_api/document/${colls[0]}`, JSON.stringify(nums.map(keyName)), nums.length, tags, [200, 202]);
  }

  // One single-document request (arangobench's cases). ok = statuses that mean success.
  function single(method, path, body, tags, ok) {
    const p = requestParams();
    p.tags = { name: `${method} /_api/document ${tags.op}`, phase: tags.phase, op: tags.op };
    const res = http.request(method, `${prefix}${path}`, body, p);
    const out = { n: 1, ms: res.timings.duration, bytes: bodyBytes(body), failed: 0, byReason: {}, failedIndexes: null };
    if (ok.includes(res.status)) return out;
    let reason;
    if (res.status === 0) reason = transportReason(res);
    else {
      const num = errorNum(res);
      reason = num !== null && REASONS.includes(`e${num}`) ? `e${num}` : httpReason(res.status);
    }
    logOnce(reason, `[${tags.op}] ${method} ${path.split('?')[0]} failed (${reason}): ${describe(res)}`);
    backoff(reason);
    return Object.assign(out, { failed: 1, byReason: { [reason]: 1 }, abort: res.status === 0 ? null : fatal(res, `${method} ${path.split('?')[0]}`) });
  }

  const ops = {
    insertOne: (c, body, tags) => single('POST', `/_api/document/${colls[c]}?silent=true`, body, tags, [201, 202]),
    readOne: (c, key, tags) => single('GET', `/_api/document/${colls[c]}/${key}`, null, tags, [200]),
    updateOne: (c, key, body, tags) => single('PATCH', `/_api/document/${colls[c]}/${key}?silent=true`, body, tags, [201, 202]),
    removeOne: (c, key, tags) => single('DELETE', `/_api/document/${colls[c]}/${key}?silent=true`, null, tags, [200, 202]),
  };

  // Two documents into two collections in one stream transaction: begin, one insert per
  // collection with x-arango-trx-id, commit; abort when anything failed. The whole
  // sequence is one timed operation of 2 documents.
  function transaction(bodies, tags) {
    const p = requestParams();
    const tagged = (name) => Object.assign({}, p, { tags: { name, phase: tags.phase, op: tags.op } });
    const n = bodies.length;
    const out = { n, ms: 0, bytes: 0, failed: 0, byReason: {}, failedIndexes: null };
    const failAll = (res, what) => {
      const reason = res.status === 0 ? transportReason(res) : (REASONS.includes(`e${errorNum(res)}`) ? `e${errorNum(res)}` : httpReason(res.status));
      logOnce(`trx:${reason}`, `[${tags.op}] stream transaction failed at ${what} (${reason}): ${describe(res)}`);
      backoff(reason);
      return Object.assign(out, { failed: n, byReason: { [reason]: n }, abort: res.status === 0 ? null : fatal(res, `transaction ${what}`) });
    };
    const begin = http.post(`${prefix}/_api/transaction/begin`, JSON.stringify({ collections: { write: colls.slice(0, n) } }), tagged('POST /_api/transaction/begin'));
    out.ms += begin.timings.duration;
    const id = begin.status === 201 ? ((parseJson(begin.body) || {}).result || {}).id : null;
    if (!id) return failAll(begin, 'begin');
    const inTrx = Object.assign({}, tagged('POST /_api/document trx'), { headers: Object.assign({}, p.headers, { 'x-arango-trx-id': String(id) }) });
    let failedRes = null;
    for (let i = 0; i < n && !failedRes; i++) {
      const res = http.post(`${prefix}/_api/document/${colls[i]}?silent=true`, bodies[i], inTrx);
      out.ms += res.timings.duration;
      out.bytes += bodyBytes(bodies[i]);
      if (res.status !== 201 && res.status !== 202) failedRes = res;
    }
    if (failedRes) {
      const ab = http.del(`${prefix}/_api/transaction/${id}`, null, tagged('DELETE /_api/transaction'));
      out.ms += ab.timings.duration;
      return failAll(failedRes, 'insert');
    }
    const commit = http.put(`${prefix}/_api/transaction/${id}`, null, tagged('PUT /_api/transaction'));
    out.ms += commit.timings.duration;
    if (commit.status !== 200) return failAll(commit, 'commit');
    return out;
  }

  function countOf(c) {
    const res = call('GET', `${prefix}/_api/collection/${c}/count`, undefined, 'GET count');
    if (res.status !== 200) throw `k6-writepath: cannot count ${db}/${c}: ${describe(res)}`;
    return Number(parseJson(res.body).count);
  }

  function count() {
    return countOf(colls[0]);
  }

  function countAll() {
    return colls.map(countOf);
  }

  // key number -> stamp ("w") of the stored document, via batch reads (missing keys come
  // back as inline 1202 errors and are simply absent from the map).
  function readStamps(nums) {
    const out = new Map();
    for (let i = 0; i < nums.length; i += 1000) {
      const chunk = nums.slice(i, i + 1000);
      const res = call('PUT', `${prefix}/_api/document/${colls[0]}?onlyget=true`, JSON.stringify(chunk.map(keyName)), 'PUT onlyget');
      if (res.status !== 200) throw `k6-writepath: cannot read back documents of ${db}/${colls[0]}: ${describe(res)}`;
      for (const d of parseJson(res.body) || []) {
        if (d && !d.error && typeof d._key === 'string') out.set(Number(d._key.slice(1)), String(d.w));
      }
    }
    return out;
  }

  function teardown(runId, keep) {
    bind(runId);
    const exists = call('GET', `${prefix}/_api/version`, undefined, 'GET /_api/version');
    if (exists.status === 404) return 'absent';
    if (exists.status !== 200) return `left alone: cannot check it (${describe(exists)})`;
    if (!isOurs()) return 'not ours, left alone';
    if (keep) return 'kept (KEEP=1)';
    const res = call('DELETE', `${base}/_db/_system/_api/database/${db}`, undefined, 'DELETE /_api/database');
    return res.status === 200 ? 'dropped' : `not dropped: ${describe(res)}`;
  }

  return { name: 'arangodb', reasons: REASONS, distributed: true, bind, setup, write, batchBody, writeBody, updateBatch, removeBatch, ops, transaction, count, countAll, readStamps, teardown, collections: () => colls };
}
