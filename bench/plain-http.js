// The reference of the memory-per-VU table (bench/README.md "Memory per VU"): a plain k6
// script, none of the pack's code, in which every VU posts the same pre-built body to the
// ArangoDB document API, as a user would write it: the body read once per VU with open()
// (BODY_AS=string, k6's ordinary idiom: a string is copied into a request buffer per
// request) or as bytes (BODY_AS=bytes: open(…, 'b'), an ArrayBuffer that k6 sends without that
// copy, as the pack sends its bodies). bench/memory.mjs writes BODY_FILE (the bytes of the
// pack's first load batch) and runs this beside the pack, interleaved.
//   bin/k6 run -e ARANGO_URL=http://127.0.0.1:8529 -e BODY_FILE=/abs/body.json -e VUS=10 -e ITERATIONS=8 bench/plain-http.js
import http from 'k6/http';

const base = __ENV.ARANGO_URL;
if (!base || !__ENV.BODY_FILE) throw 'ARANGO_URL and BODY_FILE (absolute path) must be set';
const bytes = __ENV.BODY_AS === 'bytes';
const body = open(__ENV.BODY_FILE, bytes ? 'b' : undefined);
const db = `k6wp_plain_${__ENV.PLAIN_ID || 'mem'}`;
const json = { headers: { 'Content-Type': 'application/json' } };

export const options = {
  scenarios: { plain: { executor: 'per-vu-iterations', vus: Number(__ENV.VUS || 1), iterations: Number(__ENV.ITERATIONS || 8), maxDuration: '30m' } },
  summaryTrendStats: ['med'],
};

export function setup() {
  const a = http.post(`${base}/_db/_system/_api/database`, JSON.stringify({ name: db }), json);
  const b = http.post(`${base}/_db/${db}/_api/collection`, JSON.stringify({ name: 'docs' }), json);
  if (a.status !== 201 || b.status !== 200) throw `setup: database ${a.status}, collection ${b.status}`;
}

// Every VU replaces the same documents: the server's memory stays flat, and k6 does what the
// pack's overwrite batches make it do (send ~1.2 MB, read the per-document answer as text).
export default function () {
  const r = http.post(`${base}/_db/${db}/_api/document/docs?overwriteMode=replace`, body, json);
  if (r.status !== 201 && r.status !== 202) throw `batch answered ${r.status}: ${String(r.body).slice(0, 200)}`;
}

export function teardown() {
  http.del(`${base}/_db/_system/_api/database/${db}`);
}
