// The gateway floor (bench/README.md, bench/gateway.mjs): what stock k6 + the pack's gateway
// cost per PostgreSQL batch when the generator costs nothing. BENCH_VUS VUs send the pack's own
// upsert (lib/targets/postgres/postgres.js: jsonb_array_elements of one binary jsonb parameter, ON
// CONFLICT DO UPDATE) through lib/gateway.js execBytes — the call the target makes — for
// BENCH_SECONDS, each batch one of FLOOR_BATCHES byte bodies pre-built in the init context
// (1000 scattered existing keys each, e1 documents of ~1.2 KB, built by lib/docs.js as the pack
// builds them), cycled: no JavaScript work per batch but the call.
// SINK=http://host:port instead of GATEWAY_URL: the same bodies posted to a null HTTP sink
// (bin/bench-sink), so k6's own cost of posting 1.2 MB is measured without the gateway.
// Prints rows/s and the batches' window (epoch ms) as JSON.
//   GATEWAY_URL=… WP_GATEWAY_TOKEN=… bin/k6 run -e TABLE=k6wp_bench_pgbench -e DOCS=100000 bench/gateway-floor.js
import http from 'k6/http';
import { Counter, Gauge } from 'k6/metrics';
import { loadConfig } from '../lib/config.js';
import { createDocs } from '../lib/docs.js';
import { asciiBuffer } from '../lib/bytes.js';
import { openSql } from '../lib/gateway.js';

const sink = __ENV.SINK || '';
const table = __ENV.TABLE || 'k6wp_bench_pgbench';
const ndocs = Number(__ENV.DOCS || 100000);
const vus = Number(__ENV.BENCH_VUS || 2);
const seconds = Number(__ENV.BENCH_SECONDS || 10);
const nBatches = Number(__ENV.FLOOR_BATCHES || 20);
const B = 1000;
const rows = new Counter('floor_rows');
const clock = new Gauge('floor_clock');

const cfg = loadConfig(Object.assign({ DOCS: String(ndocs) }, __ENV), { target: 'bench', experiment: 'gateway-floor', phases: ['bench'] });
const query = `INSERT INTO ${table} (key, doc) SELECT e->>'key', e FROM jsonb_array_elements($1::jsonb) AS e ON CONFLICT (key) DO UPDATE SET doc = EXCLUDED.doc`;
const db = sink ? null : openSql({ GATEWAY_URL: __ENV.GATEWAY_URL, WP_GATEWAY_TOKEN: __ENV.WP_GATEWAY_TOKEN, TIMEOUT: '60s' });

// Pre-built bodies as the xk6-sql floor (bench/pg-floor.js) built them: batch b of this VU holds keys
// (start + g*stride) mod ndocs, distinct within a batch (stride coprime with ndocs).
const bodies = [];
if (__VU > 0) { // __VU: 0 in the init run that only reads options
  const docs = createDocs(cfg, { keyField: 'key', toBytes: asciiBuffer });
  const stride = [7919, 7927, 7933].find((p) => ndocs % p !== 0);
  for (let b = 0; b < nBatches; b++) {
    const start = ((__VU * 104729) + b * 15485863) % ndocs;
    const keys = new Array(B);
    for (let g = 0; g < B; g++) keys[g] = (start + g * stride) % ndocs;
    bodies.push(docs.body(keys, 'f', { lead: '\u0001' }).slice(0));
  }
}

export const options = {
  scenarios: { floor: { executor: 'constant-vus', vus, duration: `${seconds}s`, gracefulStop: '30s' } },
  summaryTrendStats: ['med'],
  discardResponseBodies: false,
};

const sinkParams = { headers: { 'Content-Type': 'application/octet-stream' }, responseType: 'text' };
let i = 0;
export default function () {
  const body = bodies[i++ % bodies.length];
  clock.add(Date.now());
  if (sink) {
    const r = http.post(sink, body, sinkParams);
    if (r.status !== 202) throw `sink answered ${r.status}`;
  } else {
    db.execBytes('60s', query, body, null);
  }
  clock.add(Date.now());
  rows.add(B);
}

export function handleSummary(data) {
  const n = data.metrics.floor_rows ? data.metrics.floor_rows.values.count : 0;
  const c = data.metrics.floor_clock ? data.metrics.floor_clock.values : null;
  const s = c ? (c.max - c.min) / 1000 : seconds;
  return { stdout: `${JSON.stringify({ rows: n, seconds: s, rows_per_s: n / s, t0: c ? c.min : null, t1: c ? c.max : null })}\n` };
}
