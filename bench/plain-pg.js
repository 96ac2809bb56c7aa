// The PostgreSQL reference of the memory-per-VU table (bench/README.md "Memory per VU"): a
// plain k6 script, none of the pack's code, in which every VU posts the same pre-built batch
// to the pack's gateway (bin/wp-gateway, docs/gateway.md) with k6/http: `POST /pg/open` once,
// then `/pg/exec?h=…&timeout_ms=…&sql=<the pack's upsert>` with the body as octet-stream, the
// statement's one parameter $1. BODY_FILE holds the binary jsonb (version byte 1 and the JSON
// text, as the pack sends it; the gateway opens its pools with binary_parameters). BODY_AS=string:
// read with open() (k6's ordinary idiom: the string becomes bytes per request); BODY_AS=bytes:
// open(…, 'b'), an ArrayBuffer sent as it is. Each VU writes its own keys (the key gets
// "_<VU>"), so no VU waits for another's row locks.
//   bin/k6 run -e GATEWAY_URL=… -e WP_GATEWAY_TOKEN=… -e BODY_FILE=/abs/body.jsonb -e VUS=10 -e ITERATIONS=8 bench/plain-pg.js
import http from 'k6/http';
import execution from 'k6/execution';

const base = __ENV.GATEWAY_URL;
if (!base || !__ENV.BODY_FILE) throw 'GATEWAY_URL and BODY_FILE (absolute path) must be set';
const body = open(__ENV.BODY_FILE, __ENV.BODY_AS === 'bytes' ? 'b' : undefined);
const table = `k6wp_plain_${__ENV.PLAIN_ID || 'mem'}`;
const token = __ENV.WP_GATEWAY_TOKEN ? { 'X-WP-Token': __ENV.WP_GATEWAY_TOKEN } : {};
const json = { headers: { 'Content-Type': 'application/json', ...token } };
const octets = { headers: { 'Content-Type': 'application/octet-stream', ...token }, timeout: '70s' };

export const options = {
  scenarios: { plain: { executor: 'per-vu-iterations', vus: Number(__ENV.VUS || 1), iterations: Number(__ENV.ITERATIONS || 8), maxDuration: '30m' } },
  summaryTrendStats: ['med'],
};

// A gateway answer as JSON; a refusal or a database error aborts the run (exit 108) with its
// text: a thrown error would only end the iteration and k6 would still exit 0.
function call(path, payload, params) {
  const r = http.post(`${base}${path}`, payload, params);
  let b = null;
  try { b = JSON.parse(r.body); } catch (_e) { /* reported below */ }
  if (r.status !== 200 || !b || b.error) execution.test.abort(`${path.split('?')[0]} answered ${r.status}: ${String(r.body).slice(0, 300)}`);
  return b;
}
const open1 = () => call('/pg/open', JSON.stringify({ settings: {}, max_conns: 1 }), json).handle;
const exec = (h, sql) => call(`/pg/exec?h=${h}&timeout_ms=60000`, JSON.stringify({ sql, args: [] }), json);

export function setup() {
  const h = open1();
  exec(h, `DROP TABLE IF EXISTS ${table}`);
  exec(h, `CREATE TABLE ${table} (key text PRIMARY KEY, doc jsonb NOT NULL)`);
  call(`/pg/close?h=${h}`, '{}', json);
}

let url = null; // this VU's exec URL: its own handle (one connection) and its own keys
export default function () {
  if (!url) {
    const upsert = `INSERT INTO ${table} (key, doc) SELECT (e->>'key') || '_${__VU}', e FROM jsonb_array_elements($1::jsonb) AS e ON CONFLICT (key) DO UPDATE SET doc = EXCLUDED.doc`;
    url = `/pg/exec?h=${open1()}&timeout_ms=60000&sql=${encodeURIComponent(upsert)}`;
  }
  const r = call(url, body, octets);
  if (r.rows_affected !== 1000) execution.test.abort(`a batch stored ${r.rows_affected} rows, not 1000`);
}

export function teardown() {
  const h = open1();
  exec(h, `DROP TABLE IF EXISTS ${table}`);
  call(`/pg/close?h=${h}`, '{}', json);
}
