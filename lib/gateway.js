// The pack's gateway (bin/wp-gateway, gateway/; docs/gateway.md) seen from k6: PostgreSQL
// statements and MongoDB operations over k6/http, in the shapes the targets used before the
// gateway existed (xk6-sql's execWithTimeout/queryWithTimeout, the MongoDB client's
// write/update/command/find/count), so lib/targets/postgres/postgres.js and mongodb.js keep reading as
// statements and operations. Batch bodies go out as the bytes lib/docs.js made, never re-encoded.
//
// Nothing here knows a database URL or password: the gateway has them in its environment.
// A handle is opened by the first call of a VU (k6 sends no request from the init context).
import http from 'k6/http';
import { Trend } from 'k6/metrics';
import { durationMs, fail } from './parse.js';
import { M } from './metric-names.js';

export const GATEWAY_API = 1;

// The database's own time per batch, from the gateway's Server-Timing (db), and the gateway's
// handling around it (gw): the report puts them beside the batch time, so the hop is measured,
// not assumed free. Other calls (setup, counts, read-back) are not recorded.
const dbTime = new Trend(M.gatewayDb, true);
const gwTime = new Trend(M.gatewayOwn, true);

// An error the database (or the gateway) gave: String(e) is its text alone, as the targets
// classify and print it.
export class GatewayError extends Error {
  /** @param {string} message @param {Record<string, any>} fields */
  constructor(message, fields = {}) {
    super(message);
    /** @type {boolean} */ this.unreachable = false;
    /** @type {string} */ this.kind = 'gateway';
    /** @type {any} */ this.res = null;
    /** @type {number} */ this.code = 0;
    /** @type {boolean} */ this.opening = false;
    // A database's error (answer()): its SQLSTATE ('' when none), and false when not a byte of
    // the statement left the gateway (e.g. refused at connection time).
    /** @type {string} */ this.sqlstate = '';
    /** @type {boolean} */ this.sent = true;
    Object.assign(this, fields);
  }

  toString() { return this.message; }
}

// A request that reached no gateway (refused, reset, k6's own timeout): the batch's fate is
// the gateway's to know, so the target reports it as a connection failure.
export function unreachable(res) {
  return res.status === 0;
}

// "db;dur=<ms>, gw;dur=<ms>" (gateway/internal/wire): read with indexOf, not a regular
// expression (String.matchAll compiles its expression anew on every call in k6's runtime).
function recordTiming(res, tags) {
  const h = res.headers['Server-Timing'];
  if (!h || !tags) return;
  timing(h, 'db;dur=', dbTime, tags);
  timing(h, 'gw;dur=', gwTime, tags);
}
/** @param {string} h @param {string} name @param {Trend} trend @param {object} tags */
function timing(h, name, trend, tags) {
  const at = h.indexOf(name);
  if (at < 0) return;
  const end = h.indexOf(',', at);
  const v = Number(h.slice(at + name.length, end < 0 ? h.length : end));
  if (v >= 0) trend.add(v, tags);
}

// The target's check in the init context: without GATEWAY_URL the run cannot start (exit 107),
// and a database URL handed to k6 instead is named (k6 never reads it).
export function requireGateway(cfg, urlKnob, example) {
  if (cfg.GATEWAY_URL) return;
  const given = typeof __ENV === 'object' && __ENV[urlKnob] ? ` (${urlKnob} is read by the gateway, from its own environment, never by k6)` : '';
  fail(`GATEWAY_URL is not set${given}: start the pack's gateway with  ${urlKnob}='${example}' bin/wp-gateway -ready-file .run/gateway.url &  then  k6 run -e GATEWAY_URL=$(cat .run/gateway.url) …  (scripts/run does both; docs/gateway.md)`);
}

// Opening a handle writes nothing: its failure is marked so that no batch is called
// undetermined for it (the request that failed was an open, not a write).
function opening(fn) {
  try {
    return fn();
  } catch (e) {
    if (e instanceof GatewayError) e.opening = true;
    throw e;
  }
}

// A gateway client for cfg.GATEWAY_URL. k6's own timeout is TIMEOUT plus a margin: the gateway
// answers at TIMEOUT itself (its deadline), so k6's timeout only ends a gateway that hangs.
function client(cfg) {
  const base = String(cfg.GATEWAY_URL).replace(/\/+$/, '');
  const token = cfg.WP_GATEWAY_TOKEN || '';
  const httpTimeout = `${durationMs(cfg.TIMEOUT) + 10000}ms`;
  const jsonHeaders = token ? { 'Content-Type': 'application/json', 'X-WP-Token': token } : { 'Content-Type': 'application/json' };
  const byteHeaders = token ? { 'Content-Type': 'application/octet-stream', 'X-WP-Token': token } : { 'Content-Type': 'application/octet-stream' };
  // -> { res, body } ; throws GatewayError on a refusal of the gateway itself (non-200)
  // bytes: true (octet-stream), 'json' (body is JSON text already) or false (JSON.stringify(body))
  /** @param {string} path @param {any} body @param {{bytes?: boolean|string, name?: string, tags?: any}} [o] */
  function post(path, body, { bytes = false, name = path, tags = null } = {}) {
    /** @type {any} */
    const params = { headers: bytes === true ? byteHeaders : jsonHeaders, timeout: httpTimeout, tags: Object.assign({ name: `gateway ${name}` }, tags || {}), responseType: 'text' };
    const res = http.post(`${base}${path}`, bytes ? body : JSON.stringify(body), params);
    if (unreachable(res)) {
      throw new GatewayError(`gateway at ${base} does not answer (${res.error || 'no answer'})`, { kind: 'gateway', unreachable: true, code: res.error_code, res });
    }
    let parsed = null;
    try {
      parsed = JSON.parse(String(res.body));
    } catch (_e) {
      throw new GatewayError(`gateway at ${base} answered ${res.status} with no JSON: ${String(res.body).slice(0, 200)}`, { kind: 'gateway' });
    }
    if (res.status !== 200) {
      const e = (parsed && parsed.error) || {};
      throw new GatewayError(`gateway: ${e.message || `HTTP ${res.status}`}`, { kind: e.kind || 'gateway', status: res.status });
    }
    recordTiming(res, tags);
    return { res, body: parsed };
  }
  return { base, post };
}

// A body the gateway renders (gateway/render) from a recipe (lib/docs.js recipe()): a few hundred
// bytes cross instead of the body. send(payload) posts the recipe's JSON; the image is uploaded
// once per body, and again when the gateway answers that it does not hold it (a restarted
// gateway: nothing reached the database).
function rendered(gw, recipe, send) {
  const img = recipe.image;
  for (let attempt = 0; ; attempt++) {
    if (!img.id) img.id = opening(() => gw.post('/render/image', img.bytes, { bytes: true, name: '/render/image' })).body.id;
    const payload = `{"image":"${img.id}","count":${recipe.count},"base":${recipe.base},"stride":${recipe.stride},"key0":${recipe.key0},"width":${recipe.width},"stamp0":${recipe.stamp0},"stamp":${JSON.stringify(recipe.stamp)},"prefix":${JSON.stringify(recipe.prefix)},"close":${JSON.stringify(recipe.close)},"keys":${JSON.stringify(recipe.keys)}}`;
    try {
      return send(payload);
    } catch (e) {
      if (!(e instanceof GatewayError && e.kind === 'image' && attempt === 0)) throw e;
      img.id = null;
    }
  }
}

// A PostgreSQL pool of max_conns connections (one per VU, as the pack always had) with the
// given server settings, in xk6-sql's shape.
export function openSql(cfg, { settings = {}, maxConns = 1 } = {}) {
  const gw = client(cfg);
  let handle = null;
  let binary = null;
  function ensure() {
    if (handle) return handle;
    const r = opening(() => gw.post('/pg/open', { settings, max_conns: maxConns }, { name: '/pg/open' }));
    handle = r.body.handle;
    binary = r.body.binary;
    return handle;
  }
  const q = (t) => `?h=${ensure()}&timeout_ms=${Math.max(1, Math.round(durationMs(t)))}`;
  const sqlParams = new Map(); // statement text -> its query parameters (made once)
  function answer(r) {
    if (r.body.error) {
      const e = r.body.error;
      throw new GatewayError(e.message, { sqlstate: e.sqlstate || '', sent: e.sent !== false, res: r.res });
    }
    return r;
  }
  function args(list) {
    return list.map((a) => (a === null || a === undefined ? null : String(a)));
  }
  return {
    // -> { rowsAffected() } ; throws GatewayError (the driver's text)
    execWithTimeout(timeout, sql, ...params) {
      const r = answer(gw.post(`/pg/exec${q(timeout)}`, { sql, args: args(params) }, { name: '/pg/exec' }));
      return { rowsAffected: () => r.body.rows_affected, res: r.res };
    },
    // One statement whose only parameter $1 is `bytes` (sent as they are; binary format when
    // the pool has binary_parameters). tags: the batch's, for the metrics. -> the k6 response
    execBytes(timeout, sql, bytes, tags) {
      const r = answer(gw.post(`/pg/exec${q(timeout)}&sql=${encodeURIComponent(sql)}`, bytes, { bytes: true, name: '/pg/exec batch', tags }));
      return r.res;
    },
    queryWithTimeout(timeout, sql, ...params) {
      return answer(gw.post(`/pg/query${q(timeout)}`, { sql, args: args(params) }, { name: '/pg/query' })).body.rows;
    },
    // execBytes with $1 rendered by the gateway from a recipe (lib/docs.js recipe()).
    execRecipe(timeout, sql, recipe, tags) {
      let sqlq = sqlParams.get(sql);
      if (!sqlq) { sqlq = `&sql=${encodeURIComponent(sql)}&render=1`; sqlParams.set(sql, sqlq); }
      return rendered(gw, recipe, (payload) => answer(gw.post(`/pg/exec${q(timeout)}${sqlq}`, payload, { bytes: 'json', name: '/pg/exec batch', tags })).res);
    },
    // whether an octet-stream $1 travels in binary format (binary_parameters on)
    binary() {
      ensure();
      return binary;
    },
    close() {
      if (!handle) return;
      const h = handle;
      handle = null;
      try { gw.post(`/pg/close?h=${h}`, {}, { name: '/pg/close' }); } catch (_e) { /* a gateway gone has closed it */ }
    },
  };
}

// A MongoDB client (one driver Client per URL and options in the gateway) in the shape of the
// operations the MongoDB target sends.
export function connectMongo(cfg, opts = {}) {
  const gw = client(cfg);
  let handle = null;
  let info = null;
  function ensure() {
    if (handle) return handle;
    const r = opening(() => gw.post('/mongo/connect', opts, { name: '/mongo/connect' }));
    handle = r.body.handle;
    info = r.body;
    return handle;
  }
  // A gateway that does not answer (or refuses the call) is the operation's error, in the
  // shape of a driver error: a batch counts it as a connection failure, setup as bad input.
  function guarded(fn) {
    try {
      return fn();
    } catch (e) {
      if (!(e instanceof GatewayError)) throw e;
      return { error: { kind: e.unreachable ? (e.code === 1050 ? 'timeout' : 'connection') : e.kind === 'config' ? 'config' : 'other', code: 0, name: '', labels: [], message: e.message, gateway: true, unreachable: Boolean(e.unreachable), opening: e.opening, res: e.res } };
    }
  }
  const call = (op, body) => guarded(() => gw.post(`/mongo/${op}?h=${ensure()}`, body, { name: `/mongo/${op}` }).body);
  return {
    // { driverVersion, apiVersion, url: {w, j, wtimeoutMs, retryWrites} } of the gateway's client
    info() {
      ensure();
      return info;
    },
    write(op, db, coll, body, wopts, tags) {
      return guarded(() => {
        const path = `/mongo/write?h=${ensure()}&op=${op}&db=${encodeURIComponent(db)}&coll=${encodeURIComponent(coll)}&opts=${encodeURIComponent(JSON.stringify(wopts || {}))}`;
        // body: bytes, or a recipe the gateway renders (rendered())
        const r = body.image ? rendered(gw, body, (payload) => gw.post(`${path}&render=1`, payload, { bytes: 'json', name: '/mongo/write', tags }))
          : gw.post(path, body, { bytes: true, name: '/mongo/write', tags });
        r.body.res = r.res;
        return r.body;
      });
    },
    update(db, coll, ids, update, uopts) { return call('update', { db, coll, ids, update, opts: uopts || {} }); },
    command(db, command, copts) { return call('command', { db, command, opts: copts || {} }); },
    find(db, coll, filter, fopts) { return call('find', { db, coll, filter: filter || {}, opts: fopts || {} }); },
    count(db, coll, filter, copts) { return call('count', { db, coll, filter: filter || {}, opts: copts || {} }); },
    close() {
      if (!handle) return;
      const h = handle;
      handle = null;
      try { gw.post(`/mongo/close?h=${h}`, {}, { name: '/mongo/close' }); } catch (_e) { /* gone with the gateway */ }
    },
  };
}
