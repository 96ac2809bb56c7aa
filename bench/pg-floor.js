// The xk6-sql floor (bench/README.md): what k6 + xk6-sql + lib/pq cost when the generator
// costs nothing. 2 VUs (BENCH_VUS) send the pack's own upsert statement (lib/targets/postgres.js:
// jsonb_array_elements of one binary jsonb parameter, ON CONFLICT DO UPDATE) for BENCH_SECONDS,
// each batch one of FLOOR_BATCHES parameters pre-built in the init context (1000 scattered
// existing keys each, e1 documents of ~1.2 KB, built by lib/docs.js as the pack builds them),
// cycled: no JavaScript work per batch but picking the next one. Prints rows/s as JSON.
//   bin/k6 run -e PG_URL=… -e TABLE=k6wp_bench_pgbench -e DOCS=100000 bench/pg-floor.js
import sql from 'k6/x/sql';
import driver from 'k6/x/sql/driver/postgres';
import { Counter } from 'k6/metrics';
import { loadConfig } from '../lib/config.js';
import { createDocs } from '../lib/docs.js';
import { asciiBuffer } from '../lib/bytes.js';

const url = __ENV.PG_URL;
if (!url) throw 'PG_URL is not set';
const table = __ENV.TABLE || 'k6wp_bench_pgbench';
const ndocs = Number(__ENV.DOCS || 100000); // the pack's own knob (loadConfig rejects look-alikes such as NDOCS)
const vus = Number(__ENV.BENCH_VUS || 2);
const seconds = Number(__ENV.BENCH_SECONDS || 10);
const nBatches = Number(__ENV.FLOOR_BATCHES || 20);
const B = 1000;
const rows = new Counter('floor_rows');

const cfg = loadConfig(Object.assign({ DOCS: String(ndocs) }, __ENV), { target: 'bench', experiment: 'pg-floor', phases: ['bench'] });
const db = sql.open(driver, `${url}${url.includes('?') ? '&' : '?'}binary_parameters=yes&application_name=k6-writepath-floor`, { max_open_conns: 1, max_idle_conns: 1 });
const query = `INSERT INTO ${table} (key, doc) SELECT e->>'key', e FROM jsonb_array_elements($1::jsonb) AS e ON CONFLICT (key) DO UPDATE SET doc = EXCLUDED.doc`;

// Pre-built parameters: batch b of this VU holds keys (start + g*stride) mod ndocs, distinct
// within a batch (stride coprime with ndocs), as bench/pg-upsert.sql picks them.
const params = [];
if (__VU > 0) { // __VU: 0 in the init run that only reads options
  const docs = createDocs(cfg, { keyField: 'key', toBytes: asciiBuffer });
  const stride = [7919, 7927, 7933].find((p) => ndocs % p !== 0);
  for (let b = 0; b < nBatches; b++) {
    const start = ((__VU * 104729) + b * 15485863) % ndocs;
    const keys = new Array(B);
    for (let g = 0; g < B; g++) keys[g] = (start + g * stride) % ndocs;
    params.push(new Uint8Array(docs.body(keys, 'f', { lead: '\u0001' }).slice(0)));
  }
}

export const options = {
  scenarios: { floor: { executor: 'constant-vus', vus, duration: `${seconds}s`, gracefulStop: '30s' } },
  summaryTrendStats: ['med'],
};

let i = 0;
export default function () {
  db.exec(query, params[i++ % params.length]);
  rows.add(B);
}

export function handleSummary(data) {
  const n = data.metrics.floor_rows ? data.metrics.floor_rows.values.count : 0;
  const s = data.state.testRunDurationMs / 1000;
  return { stdout: `${JSON.stringify({ rows: n, seconds: s, rows_per_s: n / s })}\n` };
}
