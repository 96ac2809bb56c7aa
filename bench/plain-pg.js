// The PostgreSQL reference of the memory-per-VU table (bench/README.md "Memory per VU"): a
// plain k6 + xk6-sql script, none of the pack's code, in which every VU upserts the same
// pre-built batch with the pack's statement (jsonb_array_elements of one parameter, ON CONFLICT
// DO UPDATE). BODY_AS=string: the JSON text read with open() and sent as a text parameter (what
// a user would write); BODY_AS=bytes: open(…, 'b') of the binary jsonb (version byte 1 and the
// text, as the pack sends it) as a Uint8Array. Each VU writes its own keys (the key gets
// "_<VU>"), so no VU waits for another's row locks.
//   bin/k6 run -e PG_URL=… -e BODY_FILE=/abs/body.json -e VUS=10 -e ITERATIONS=8 bench/plain-pg.js
import sql from 'k6/x/sql';
import driver from 'k6/x/sql/driver/postgres';

const url = __ENV.PG_URL;
if (!url || !__ENV.BODY_FILE) throw 'PG_URL and BODY_FILE (absolute path) must be set';
const bytes = __ENV.BODY_AS === 'bytes';
const body = bytes ? new Uint8Array(open(__ENV.BODY_FILE, 'b')) : open(__ENV.BODY_FILE);
const table = `k6wp_plain_${__ENV.PLAIN_ID || 'mem'}`;
const db = sql.open(driver, `${url}${url.includes('?') ? '&' : '?'}binary_parameters=${bytes ? 'yes' : 'no'}&application_name=k6-writepath-plain`, { max_open_conns: 1, max_idle_conns: 1 });
const upsert = `INSERT INTO ${table} (key, doc) SELECT (e->>'key') || '_' || $2, e FROM jsonb_array_elements($1::jsonb) AS e ON CONFLICT (key) DO UPDATE SET doc = EXCLUDED.doc`;

export const options = {
  scenarios: { plain: { executor: 'per-vu-iterations', vus: Number(__ENV.VUS || 1), iterations: Number(__ENV.ITERATIONS || 8), maxDuration: '30m' } },
  summaryTrendStats: ['med'],
};

export function setup() {
  db.exec(`DROP TABLE IF EXISTS ${table}`);
  db.exec(`CREATE TABLE ${table} (key text PRIMARY KEY, doc jsonb NOT NULL)`);
}

export default function () {
  db.exec(upsert, body, String(__VU));
}

export function teardown() {
  db.exec(`DROP TABLE IF EXISTS ${table}`);
}
