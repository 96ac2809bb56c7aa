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
// answerOf() counts every element from the answer itself; an element is ok only when the
// answer shows it succeeded.
import http from 'k6/http';
import { stop } from '../../abort.js';
import encoding from 'k6/encoding';
import { redact } from '../../urls.js';
import { ARANGODB } from './arangodb-knobs.js';
import { withCapabilities } from '../../capabilities.js';
import { completeOrUndo, lifecycle, patiently, probeTimeout } from '../lifecycle.js';
import { bodyBytes, createDocs, INDEX_FIELDS } from '../../docs.js';
import { keyName } from '../../keys.js';
import { stampsInChunks } from '../../readback.js';
import { asciiBuffer, writingVu } from '../../bytes.js';
import { accountBatch, notNowReason, parseJson } from './arangodb-answers.js';
import { request, maybeArrived } from '../outcome.js';
import { markTestEndpoint } from '../../test-endpoint.js';
import { arangoIncrementBody, arangoIncrementOutcome, COUNTER_FIELD } from '../increments.js';

const META = 'k6wp_meta';
// A JWT is renewed this long before its exp (less for short-lived tokens, see jwtRenewal()).
const JWT_RENEW_MARGIN_MS = 300000;

const REASONS = ARANGODB.reasons;

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
function jwtRenewal(token, nowMs = Date.now()) {
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

// The declaration of this target (knobs, reasons, capabilities): lib/targets/arangodb/arangodb-knobs.js.
export const declaration = ARANGODB;

// The connection to ArangoDB: its base URL, the Authorization of every request (basic, or a
// JWT renewed before it expires), the request params of the timed path, and how an answer
// is described in a line.
function connection(cfg) {
  const base = cfg.ARANGO_URL.replace(/\/$/, '');
  const timeout = cfg.TIMEOUT;
  // Setup's first requests (and token requests) answer within this bound or the run stops.
  const probeWithin = probeTimeout(cfg);
  let auth = null; // { header, renewAt }
  let params = null;
  // Set-up, teardown and verification requests (never timed): "not now" waited out within GIVE_UP.
  const patient = patiently(cfg, 'ArangoDB', (res) => (res.status === 0 ? null : notNowReason(res.status, parseJson(res.body))), describe);

  function basicHeader() {
    return `Basic ${encoding.b64encode(`${cfg.ARANGO_USER}:${cfg.ARANGO_PASSWORD || ''}`)}`;
  }

  // The Authorization header, renewing a JWT 5 minutes (at most a quarter of its lifetime)
  // before it expires, with a new POST /_open/auth. Each VU (and setup/teardown) holds its
  // own token: tokens never travel through setup data, which ends up in summary.json.
  function authorization() {
    if (cfg.ARANGO_AUTH === 'basic') return basicHeader();
    if (auth && Date.now() < auth.renewAt) return auth.header;
    const res = patient('POST /_open/auth', () => http.post(`${base}/_open/auth`, JSON.stringify({ username: cfg.ARANGO_USER, password: cfg.ARANGO_PASSWORD || '' }),
      { headers: { 'Content-Type': 'application/json' }, timeout: probeWithin, tags: { name: 'POST /_open/auth' } }));
    if (res.status === 200) {
      const jwt = (parseJson(res.body) || {}).jwt;
      if (!jwt) stop('ArangoDB /_open/auth answered 200 without a jwt');
      auth = { header: `Bearer ${jwt}`, renewAt: jwtRenewal(jwt).renewAt };
    } else if (res.status === 404) {
      auth = { header: null, renewAt: Infinity }; // authentication is off on the server
    } else if (res.status === 401) {
      stop(`ARANGO_USER=${cfg.ARANGO_USER}: /_open/auth refused the credentials (401); check ARANGO_PASSWORD`);
    } else if (res.status === 0) {
      stop(`ARANGO_URL=${base}: cannot reach ArangoDB within ${probeWithin}: ${redact(res.error)}`);
    } else {
      stop(`ArangoDB /_open/auth answered ${res.status}: ${String(res.body).slice(0, 200)}`);
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
    return patient(name, () => http.request(method, url, body === undefined ? null : body, { headers: headers(), timeout, tags: { name } }));
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

  return { base, probeWithin, headers, requestParams, call, patient, errorNum, describe };
}

// The primitives of lib/targets/lifecycle.js for the run's database (run: its names, set by
// the target's bind()).
function databasePrimitives(cfg, conn, run, indexFields) {
  const { base, probeWithin, headers, call, patient, errorNum, describe } = conn;
  const probeParams = { headers: {}, timeout: probeWithin, tags: { name: 'GET /_api/version' } };
  function probe() {
    const h = headers();
    const vres = patient('GET /_api/version', () => http.get(`${base}/_db/_system/_api/version`, Object.assign({}, probeParams, { headers: h })));
    if (vres.status === 0) throw `ARANGO_URL=${base}: cannot reach ArangoDB within ${probeParams.timeout}: ${redact(vres.error)}`;
    if (vres.status === 401) throw `ARANGO_USER=${cfg.ARANGO_USER}: ArangoDB refused the credentials (401); check ARANGO_PASSWORD and ARANGO_AUTH`;
    const version = parseJson(vres.body);
    if (vres.status !== 200 || !version || !version.version) throw `ARANGO_URL=${base} does not look like ArangoDB: /_api/version answered ${describe(vres)}`;
    return markTestEndpoint({
      version: `ArangoDB ${version.version} (${version.server || 'arango'}, license ${version.license || 'unknown'})`,
      serverVersion: `ArangoDB ${version.version}`,
    }, vres.headers);
  }

  function must(res, what, codes = [200, 201, 202]) {
    if (!codes.includes(res.status)) throw `${what}: ${describe(res)}`;
    return parseJson(res.body);
  }

  function dropDatabase() {
    return call('DELETE', `${base}/_db/_system/_api/database/${run.db}`, undefined, 'DELETE /_api/database');
  }

  // POST /_api/database: 201 = this call made it; 409 errorNum 1207 = the name is taken.
  // Then the collections, their indexes, and the marker last (a joining instance waits for
  // it). Whatever fails after the 201 drops the database this call made.
  function create(marker) {
    const created = call('POST', `${base}/_db/_system/_api/database`, JSON.stringify({ name: run.db }), 'POST /_api/database');
    if (created.status === 409 && errorNum(created) === 1207) return 'exists';
    if (created.status !== 201) throw `${describe(created)} (needs rights on _system)`;
    return completeOrUndo(() => {
      for (const c of run.colls) {
        must(call('POST', `${run.prefix}/_api/collection`, JSON.stringify({ name: c, waitForSync: cfg.ARANGO_WAIT_FOR_SYNC }), 'POST /_api/collection'), `create collection ${c}`);
        for (const f of indexFields) {
          must(call('POST', `${run.prefix}/_api/index?collection=${c}`, JSON.stringify({ type: 'persistent', fields: [f], unique: false, sparse: false }), 'POST /_api/index'), `create a persistent index on ${c}.${f}`);
        }
      }
      must(call('POST', `${run.prefix}/_api/collection`, JSON.stringify({ name: META }), 'POST /_api/collection'), `create collection ${META}`);
      writeMarker(marker, 'POST');
    }, dropDatabase);
  }

  function writeMarker(marker, method = 'PUT') {
    const doc = Object.assign({ _key: 'owner', createdAt: new Date().toISOString() }, marker);
    must(call(method, `${run.prefix}/_api/document/${META}${method === 'PUT' ? '/owner' : ''}`, JSON.stringify(doc), `${method} marker`), 'write the marker document');
  }

  // undefined: no such database (404 errorNum 1228); null: no marker collection or document.
  function readMarker() {
    const res = call('GET', `${run.prefix}/_api/document/${META}/owner`, undefined, 'GET marker');
    if (res.status === 200) return parseJson(res.body) || null;
    if (res.status === 404) return errorNum(res) === 1228 ? undefined : null;
    throw `cannot read the marker of database ${run.db}: ${describe(res)}`;
  }

  // The run's collections as they are: which exist, their waitForSync, their persistent
  // index fields (the primary and edge indexes every collection has are left out).
  function shape() {
    const sync = [];
    const idx = [];
    const missing = [];
    for (const c of run.colls) {
      const p = call('GET', `${run.prefix}/_api/collection/${c}/properties`, undefined, 'GET properties');
      if (p.status === 404) { missing.push(c); continue; }
      const props = must(p, `read the properties of ${c}`) || {};
      sync.push(String(Boolean(props.waitForSync)));
      const ix = must(call('GET', `${run.prefix}/_api/index?collection=${c}`, undefined, 'GET /_api/index'), `read the indexes of ${c}`) || {};
      idx.push((ix.indexes || []).filter((i) => i.type !== 'primary' && i.type !== 'edge')
        .map((i) => (i.type === 'persistent' && !i.unique && !i.sparse && (i.fields || []).length === 1 ? i.fields[0] : `${i.type}(${(i.fields || []).join(',')})${i.unique ? ' unique' : ''}${i.sparse ? ' sparse' : ''}`)).sort().join('+') || '0');
    }
    return {
      collections: missing.length ? `missing ${missing.join(', ')}` : run.colls.join(', '),
      ARANGO_WAIT_FOR_SYNC: Array.from(new Set(sync)).join('/') || '(none)',
      ARANGO_INDEXES: Array.from(new Set(idx)).join('/') || '(none)',
    };
  }

  function planned() {
    return {
      collections: run.colls.join(', '),
      ARANGO_WAIT_FOR_SYNC: String(cfg.ARANGO_WAIT_FOR_SYNC),
      ARANGO_INDEXES: indexFields.length ? indexFields.slice().sort().join('+') : '0',
    };
  }

  // Empty = truncate every collection of the run; then this run's marker.
  function empty(marker) {
    for (const c of run.colls) must(call('PUT', `${run.prefix}/_api/collection/${c}/truncate`, undefined, 'PUT truncate'), `truncate ${c}`);
    writeMarker(marker);
  }

  // The marker document replaced (lifecycle.js read it just before: HTTP has no transaction
  // spanning the check and the write).
  function mark(marker) {
    writeMarker(marker);
  }

  // The whole database only when it holds nothing but the run's collections and its marker: a
  // collection someone else created in it stays, and so does the database.
  function drop() {
    const list = must(call('GET', `${run.prefix}/_api/collection?excludeSystem=true`, undefined, 'GET /_api/collection'), `list the collections of ${run.db}`) || {};
    const foreign = (list.result || []).map((c) => c.name).filter((n) => !run.colls.includes(n) && n !== META);
    if (foreign.length === 0) {
      must(dropDatabase(), `drop database ${run.db}`);
      return undefined;
    }
    const own = [...run.colls, META].filter((n) => (list.result || []).some((c) => c.name === n));
    for (const c of own) must(call('DELETE', `${run.prefix}/_api/collection/${c}`, undefined, 'DELETE /_api/collection'), `drop collection ${c}`);
    return `the run's collections dropped (${own.join(', ')}); database ${run.db} left in place: it also holds collections the run did not create (${foreign.join(', ')})`;
  }

  return { probe, create, readMarker, shape, planned, empty, mark, drop };
}

// The requests of the batch runner (lib/targets/outcome.js): batches and increments, and how
// their answers are counted (documentRequests below: single documents, stream transactions).
function requests(cfg, conn, run, docs) {
  const { requestParams, errorNum, describe } = conn;
  // A 401, or a missing database/collection mid-run: hammering on is pointless. Returns the
  // one-line reason to abort (or null); the workload aborts once it has counted the failed
  // operation (result field `abort`), so the batch that revealed the fault is in the results.
  function fatal(res, what) {
    if (res.status === 401) return `ArangoDB answered 401 to ${what}: credentials refused or token expired (ARANGO_USER=${cfg.ARANGO_USER}, ARANGO_AUTH=${cfg.ARANGO_AUTH})`;
    if (res.status === 404) {
      const num = errorNum(res);
      if (num === 1228) return `database ${run.db} disappeared during the run (404, errorNum 1228) at ${what}`;
      if (num === 1203) return `a collection of database ${run.db} disappeared during the run (404, errorNum 1203) at ${what}`;
    }
    return null;
  }

  // The answer to one request of a batch (lib/targets/outcome.js): the k6 response is the
  // batch's time. Writes answer 201/202 and deletes 200/202, also when elements failed
  // (accountBatch reads them).
  function answerOf(res, method, path, n, tags, ok) {
    if (res.status === 0) {
      const reason = transportReason(res);
      // sent whole and never answered: stored or not (the verification resolves it)
      if (maybeArrived(res)) return { responses: [res], reason, undetermined: true, log: `[${tags.phase}] batch of ${n} got no answer (${reason}): stored or not, counted failed and undetermined (the verification resolves it): ${redact(res.error)}` };
      return { responses: [res], reason, log: `[${tags.phase}] batch of ${n} failed (${reason}), none sent: ${redact(res.error)}` };
    }
    if (!ok.includes(res.status)) {
      // refused before any handler ran (startup, maintenance): the runner sends it again
      const notNow = notNowReason(res.status, parseJson(res.body));
      if (notNow) return { responses: [res], reason: notNow, notNow, log: `[${tags.phase}] batch of ${n} refused (${notNow}): ${describe(res)}` };
      return { responses: [res], reason: httpReason(res.status), log: `[${tags.phase}] batch of ${n} failed: ${describe(res)}`, fatal: fatal(res, `${method} ${path.split('?')[0]}`) };
    }
    const a = accountBatch(n, res.status, res.body, res.headers['X-Arango-Error-Codes'], cfg.ARANGO_SILENT);
    const notes = Object.keys(a.byReason).map((r) => [r, `[${tags.phase}] ${a.byReason[r]} of ${n} documents failed with ${r} (answer ${res.status}); later failures are counted, not logged`]);
    if (a.note) notes.unshift([`note:${a.note.slice(0, 20)}`, `[${tags.phase}] ${a.note}`]);
    if (a.failed === 0) return notes.length ? { responses: [res], notes } : { responses: [res] };
    return { responses: [res], reason: Object.keys(a.byReason)[0], failed: a.failed, byReason: a.byReason, failedIndexes: a.failedIndexes, notes };
  }

  // The JSON array of the documents of nums, in the order of nums (so failed elements map to
  // indexes of nums): an ArrayBuffer patched by docs.body() (a run of consecutive keys:
  // rangeBody; random keys of overwrite/mixed batches: keysBody), the string of docs.batch()
  // only where no byte path applies. It is reused by the next call: a request is sent before
  // the next is built. Exported for bench/http-generation.js, which measures it.
  function batchBody(nums, stamp) {
    return docs.body(nums, stamp);
  }

  // A batch: one request with the whole array.
  function batch(op, nums, stamp) {
    const path = `/_api/document/${run.colls[0]}?${overwriteQuery(op, cfg)}`;
    const url = cfg.ARANGO_SILENT ? `${run.prefix}${path}&silent=true` : `${run.prefix}${path}`;
    const body = batchBody(nums, stamp);
    const p = requestParams();
    const n = nums.length;
    return request(n, body, (tags) => {
      p.tags = { name: `POST /_api/document ${tags.op}`, phase: tags.phase, op: tags.op };
      return answerOf(http.request('POST', url, body, p), 'POST', path, n, tags, [201, 202]);
    });
  }

  // The contention workload (lib/workloads/contention.js; lib/targets/increments.js): one
  // operation = one AQL query (one transaction) incrementing distinct counters.
  function increment(nums) {
    const n = nums.length;
    const body = arangoIncrementBody(nums.map(keyName), run.colls[0]);
    const p = requestParams();
    return request(n, body, (tags) => {
      p.tags = { name: 'POST /_api/cursor increment', phase: tags.phase, op: tags.op };
      const res = http.request('POST', `${run.prefix}/_api/cursor`, body, p);
      const o = arangoIncrementOutcome(n, res.status, res.body, res.status === 0 ? transportReason(res) : 'connection');
      if (o.acked === n) return { responses: [res] };
      // errorNum 1200 (conflict) and the other declared errorNums keep their own reason; an
      // envelope with an undeclared one counts by its HTTP status.
      const reason = REASONS.includes(o.reason) || res.status === 0 ? o.reason : httpReason(res.status);
      return { responses: [res], reason, failed: n,
        log: `[${tags.phase}] increment of ${n} counters ${o.undetermined ? 'undetermined' : 'failed'} (${reason}): ${describe(res)}`,
        notes: reason === 'e1200' ? [['e1200-later', `[${tags.phase}] write-write conflicts (errorNum 1200) are retried up to CONFLICT_RETRIES and counted by reason; later ones are not logged`]] : null,
        fatal: res.status === 0 ? null : fatal(res, 'POST /_api/cursor') };
    });
  }

  return { batch, batchBody, fatal, increment };
}

// arangobench's single-document operations and stream transactions (lib/workloads/arangobench.js);
// fatal: requests() says when going on is pointless.
function documentRequests(conn, run, fatal) {
  const { requestParams, errorNum, describe } = conn;
  // One single-document request (arangobench's cases): op insert | read | update | delete.
  const SINGLE = {
    insert: ['POST', (c) => `/_api/document/${c}?silent=true`, [201, 202]],
    read: ['GET', (c, key) => `/_api/document/${c}/${key}`, [200]],
    update: ['PATCH', (c, key) => `/_api/document/${c}/${key}?silent=true`, [201, 202]],
    delete: ['DELETE', (c, key) => `/_api/document/${c}/${key}?silent=true`, [200, 202]],
  };
  function single(op, c, key, body) {
    if (!SINGLE[op]) throw new Error(`arangodb target: unknown single-document operation ${op}`);
    const [method, pathOf, ok] = SINGLE[op];
    const path = pathOf(run.colls[c], key);
    const p = requestParams();
    return request(1, body, (tags) => {
      p.tags = { name: `${method} /_api/document ${tags.op}`, phase: tags.phase, op: tags.op };
      const res = http.request(method, `${run.prefix}${path}`, body, p);
      if (ok.includes(res.status)) return { responses: [res] };
      const notNow = res.status === 0 ? null : notNowReason(res.status, parseJson(res.body));
      if (notNow) return { responses: [res], reason: notNow, notNow, log: `[${tags.op}] ${method} ${path.split('?')[0]} refused (${notNow}): ${describe(res)}` };
      return { responses: [res], reason: singleReason(res), log: `[${tags.op}] ${method} ${path.split('?')[0]} failed (${singleReason(res)}): ${describe(res)}`,
        fatal: res.status === 0 ? null : fatal(res, `${method} ${path.split('?')[0]}`) };
    });
  }

  function singleReason(res) {
    if (res.status === 0) return transportReason(res);
    const num = errorNum(res);
    return num !== null && REASONS.includes(`e${num}`) ? `e${num}` : httpReason(res.status);
  }

  // Two documents into two collections in one stream transaction: begin, one insert per
  // collection with x-arango-trx-id, commit; abort when anything failed. The whole
  // sequence is one operation of 2 documents; its time is that of its requests.
  function transaction(bodies) {
    const p = requestParams();
    const n = bodies.length;
    return {
      n,
      bytes: bodies.reduce((s, b) => s + bodyBytes(b), 0),
      send(tags) {
        const tagged = (name) => Object.assign({}, p, { tags: { name, phase: tags.phase, op: tags.op } });
        const responses = [];
        let bytes = 0;
        const failAll = (res, what) => {
          const reason = singleReason(res);
          return { responses, bytes, reason, log: `[${tags.op}] stream transaction failed at ${what} (${reason}): ${describe(res)}`,
            fatal: res.status === 0 ? null : fatal(res, `transaction ${what}`) };
        };
        const begin = http.post(`${run.prefix}/_api/transaction/begin`, JSON.stringify({ collections: { write: run.colls.slice(0, n) } }), tagged('POST /_api/transaction/begin'));
        responses.push(begin);
        const id = begin.status === 201 ? ((parseJson(begin.body) || {}).result || {}).id : null;
        if (!id) return failAll(begin, 'begin');
        const inTrx = Object.assign({}, tagged('POST /_api/document trx'), { headers: Object.assign({}, p.headers, { 'x-arango-trx-id': String(id) }) });
        let failedRes = null;
        for (let i = 0; i < n && !failedRes; i++) {
          const res = http.post(`${run.prefix}/_api/document/${run.colls[i]}?silent=true`, bodies[i], inTrx);
          responses.push(res);
          bytes += bodyBytes(bodies[i]);
          if (res.status !== 201 && res.status !== 202) failedRes = res;
        }
        if (failedRes) {
          responses.push(http.del(`${run.prefix}/_api/transaction/${id}`, null, tagged('DELETE /_api/transaction')));
          return failAll(failedRes, 'insert');
        }
        const commit = http.put(`${run.prefix}/_api/transaction/${id}`, null, tagged('PUT /_api/transaction'));
        responses.push(commit);
        if (commit.status !== 200) return failAll(commit, 'commit');
        return { responses };
      },
    };
  }

  return { single, transaction };
}

// prepared: what the plan asks of the target (lib/workloads/*.js plan().target): batches to
// prepare bodies for, collections, indexes on the workload's own fields.
/**
 * @param {any} cfg
 * @param {import('../../../types/targets').Workload} [prepared]
 * @returns {import('../../../types/targets').Target}
 */
export function createTarget(cfg, prepared = {}) {
  const docs = createDocs(cfg, { keyField: '_key', toBytes: asciiBuffer });
  // Body images built here, in the init context, not by the first timed batch of a VU.
  if (writingVu()) docs.prepareFor(prepared);
  // Collections the workload needs (arangobench multi-collection writes to two).
  const collectionCount = prepared.collections || 1;
  const indexFields = prepared.indexFields || INDEX_FIELDS.slice(0, cfg.ARANGO_INDEXES);
  const conn = connection(cfg);
  const { call, describe } = conn;
  // The run's database and collections, named by bind().
  const run = { db: null, prefix: null, colls: null };

  function bind(runId) {
    if (run.db) return;
    run.db = `k6wp_${runId}`;
    run.prefix = `${conn.base}/_db/${run.db}`;
    run.colls = [`k6wp_${runId}`];
    for (let i = 2; i <= collectionCount; i++) run.colls.push(`k6wp_${runId}_${i}`);
  }

  const { setup, teardown, leftBehind } = lifecycle(cfg, {
    bind,
    get what() { return `database ${run.db}`; },
    get objects() { return [`database ${run.db}`, ...run.colls.map((c) => `collection ${run.db}/${c}`)]; },
    get runId() { return run.db.slice(5); },
    get dropHint() { return `curl -u "$ARANGO_USER:$ARANGO_PASSWORD" -X DELETE ${conn.base}/_db/_system/_api/database/${run.db}`; },
    ...databasePrimitives(cfg, conn, run, indexFields),
    settings: () => ({ silent: cfg.ARANGO_SILENT, keepNull: cfg.ARANGO_KEEP_NULL, auth: cfg.ARANGO_AUTH }),
  });

  const { batch, batchBody, fatal, increment } = requests(cfg, conn, run, docs);
  const { single, transaction } = documentRequests(conn, run, fatal);

  function countOf(c) {
    const res = call('GET', `${run.prefix}/_api/collection/${c}/count`, undefined, 'GET count');
    if (res.status !== 200) throw `k6-writepath: cannot count ${run.db}/${c}: ${describe(res)}`;
    return Number(parseJson(res.body).count);
  }

  function count() {
    return countOf(run.colls[0]);
  }

  function countAll() {
    return run.colls.map(countOf);
  }

  // key number -> stamp ("w") of the stored document, via batch reads (missing keys come
  // back as inline 1202 errors and are simply absent from the map).
  function readStamps(nums) {
    return stampsInChunks(nums, 1000, (chunk, out) => {
      const res = call('PUT', `${run.prefix}/_api/document/${run.colls[0]}?onlyget=true`, JSON.stringify(chunk.map(keyName)), 'PUT onlyget');
      if (res.status !== 200) throw `k6-writepath: cannot read back documents of ${run.db}/${run.colls[0]}: ${describe(res)}`;
      for (const d of parseJson(res.body) || []) {
        if (d && !d.error && typeof d._key === 'string') out.set(Number(d._key.slice(1)), String(d.w));
      }
    });
  }

  // --- the contention workload's set-up and read-back (lib/workloads/contention.js) --------
  // setup(): the counters K0 … K{size-1}, {"n": 0}, in arrays of 10 000.
  function createCounters(size) {
    for (let i = 0; i < size; i += 10000) {
      const body = [];
      for (let k = i; k < Math.min(size, i + 10000); k++) body.push(`{"_key":"${keyName(k)}","${COUNTER_FIELD}":0}`);
      const res = call('POST', `${run.prefix}/_api/document/${run.colls[0]}?overwriteMode=replace`, `[${body.join(',')}]`, 'POST counters');
      const a = res.status === 201 || res.status === 202 ? accountBatch(body.length, res.status, res.body, res.headers['X-Arango-Error-Codes'], false) : null;
      if (!a || a.failed > 0) throw `k6-writepath: cannot create the counters in ${run.db}/${run.colls[0]}: ${a ? `${a.failed} failed (${Object.keys(a.byReason).join(', ')})` : describe(res)}`;
    }
  }

  // Documents by key, batch reads (missing keys are inline 1202 errors and stay absent).
  function readByKey(keys, each) {
    for (let i = 0; i < keys.length; i += 1000) {
      const res = call('PUT', `${run.prefix}/_api/document/${run.colls[0]}?onlyget=true`, JSON.stringify(keys.slice(i, i + 1000)), 'PUT onlyget');
      if (res.status !== 200) throw `k6-writepath: cannot read documents of ${run.db}/${run.colls[0]}: ${describe(res)}`;
      for (const d of parseJson(res.body) || []) if (d && !d.error && typeof d._key === 'string') each(d);
    }
  }

  function readCounters(nums) {
    const out = new Map();
    readByKey(nums.map(keyName), (d) => out.set(Number(d._key.slice(1)), Number(d[COUNTER_FIELD])));
    return out;
  }

  function putLedger(id, ledger) {
    const res = call('POST', `${run.prefix}/_api/document/${run.colls[0]}?overwriteMode=replace`, JSON.stringify(Object.assign({ _key: id }, ledger)), 'POST ledger');
    if (res.status !== 201 && res.status !== 202) throw new Error(`POST ledger ${id}: ${describe(res)}`);
  }

  function readLedgers(ids) {
    const out = [];
    readByKey(ids, (d) => out.push(d));
    return out;
  }

  // keyField: the key attribute of a single-document body.
  return withCapabilities(ARANGODB.capabilities(cfg), { name: ARANGODB.name, reasons: REASONS, distributed: ARANGODB.distributed, keyField: '_key', bind, setup, batch, batchBody, count, countAll, readStamps, teardown, leftBehind,
    documents: { single, transaction }, increments: { increment, createCounters, readCounters, putLedger, readLedgers } });
}
