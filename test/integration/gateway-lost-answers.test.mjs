// Case 5 of issue 38 on the PostgreSQL and MongoDB paths: the database commits a batch and its
// answer never reaches k6. Staged deterministically on a busy machine: an HTTP relay between k6
// and the gateway passes every request on, waits for the gateway's whole answer (the statement
// or bulk write is committed by then), and for every CUT_EVERY-th batch write resets k6's
// connection (RST) instead of passing the answer back. What k6 sees is what a gateway killed, or
// a connection lost, between the commit and the answer leaves: a request sent whole, no answer.
// Such a batch is undetermined, never "none stored"; the count holds it as a range whose top the
// database reaches (every cut batch was committed), the read-back resolves its keys, and no
// failed-documents threshold counts it (docs/configuration.md, "What each threshold counts"): verification OK, exit 0.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { localEnv, psql, runK6, uniqueRunId } from '../helpers/k6.mjs';
import { startGateway } from '../helpers/gateway.mjs';
import { closeMongo, dropDatabase } from '../helpers/mongo.mjs';
import { expectCarriedOn } from '../helpers/raven-expect.mjs';

const { PG_URL, MONGO_URL } = localEnv();
const CUT_EVERY = 5;
const explain = (r) => `exit ${r.code}\n${r.stdout}\n${r.stderr.slice(-4000)}`;
const sum = (s, f) => s.phases.reduce((a, p) => a + (p[f] || 0), 0);

after(closeMongo);

// A relay on a free loopback port in front of gateUrl; isBatch(url) picks the batch writes.
async function lossyRelay(gateUrl, isBatch) {
  const agent = new http.Agent({ keepAlive: true });
  const relay = { cut: 0, batches: 0 };
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const batch = isBatch(req.url);
      const cut = batch && ++relay.batches % CUT_EVERY === 0;
      const up = http.request(`${gateUrl}${req.url}`, { method: req.method, headers: req.headers, agent }, (ur) => {
        const body = [];
        ur.on('data', (c) => body.push(c));
        ur.on('end', () => {
          if (cut) {
            // The gateway answered: the database has done the write. k6 gets a reset, no answer.
            relay.cut++;
            req.socket.resetAndDestroy();
            return;
          }
          res.writeHead(ur.statusCode, ur.headers);
          res.end(Buffer.concat(body));
        });
      });
      up.on('error', () => req.socket.destroy());
      up.end(Buffer.concat(chunks));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  relay.url = `http://127.0.0.1:${server.address().port}`;
  relay.close = () => { agent.destroy(); server.closeAllConnections(); return new Promise((resolve) => server.close(resolve)); };
  return relay;
}

// E1 through the relay: cut batches are undetermined, stored, resolved; nothing else failed.
async function runCut(scenario, dbEnv, isBatch, plan) {
  const gateway = startGateway(dbEnv);
  const relay = await lossyRelay(gateway.url, isBatch);
  const runId = uniqueRunId('la');
  try {
    // k6 reaches the gateway through the relay only; the database URLs stay with the gateway.
    const env = { ...gateway.env({ ...dbEnv, ...plan, RUN_ID: runId }), GATEWAY_URL: relay.url, PG_URL: undefined, MONGO_URL: undefined, INFLUX_URL: undefined };
    const r = await runK6(scenario, env, { runId });
    return { r, relay, runId };
  } finally {
    await relay.close();
    gateway.stop();
  }
}

function expectResolved({ r, relay }, docsPerBatch, expected) {
  const s = r.summary;
  assert.ok(s, explain(r));
  assert.ok(relay.cut > 0, `the relay cut no answer: ${relay.batches} batches`);
  // Every cut batch, and nothing else, is undetermined: all of its documents, none known failed.
  assert.equal(sum(s, 'docs_undetermined'), relay.cut * docsPerBatch, explain(r));
  for (const p of s.phases) {
    assert.equal(p.docs_failed, p.docs_undetermined, `${p.phase}: every failure is a lost answer: ${JSON.stringify(p.failed_by_reason)}`);
    assert.equal(p.docs_failed_known, 0, p.phase);
  }
  const v = s.verification;
  assert.equal(v.found, expected, `every document of the plan is stored, the cut batches' too: ${explain(r)}`);
  assert.equal(v.expected_max, v.found, 'the count reaches the top of its range: every undetermined new document was committed');
  assert.ok(v.readback_resolved > 0, `keys holding a cut batch's version are resolved, stored: ${explain(r)}`);
  expectCarriedOn(r);
  assert.deepEqual(s.thresholds.filter((t) => !t.ok), [], explain(r));
  assert.equal(r.code, 0, explain(r));
}

const PLAN = { DOCS: '4000', BATCH_SIZE: '200', VUS: '2', OVERWRITE_BATCHES: '10', MIXED_BATCHES: '6', MIXED_NEW_PERCENT: '50' };

test('PostgreSQL: statements committed whose answers never reach k6 (connection reset after the commit) are undetermined, never "none stored", resolved stored: verification OK, exit 0', { timeout: 180000 }, async () => {
  const out = await runCut('scenarios/postgres/insert-vs-overwrite.js', { PG_URL }, (url) => url.startsWith('/pg/exec') && url.includes('&sql='), PLAN);
  try {
    assert.match(out.r.stderr, /batch of 200 got no answer \(connection\): stored or not, counted failed and undetermined \(the verification resolves it\)/);
    expectResolved(out, 200, 4000 + 6 * 100);
  } finally {
    await psql(PG_URL, `DROP TABLE IF EXISTS k6wp_${out.runId}`);
  }
});

test('MongoDB: bulk writes committed whose answers never reach k6 (connection reset after the commit) are undetermined, never "none stored", resolved stored: verification OK, exit 0', { timeout: 180000 }, async () => {
  const out = await runCut('scenarios/mongodb/insert-vs-overwrite.js', { MONGO_URL }, (url) => url.startsWith('/mongo/write'), PLAN);
  try {
    assert.match(out.r.stderr, /batch of 200: 200 failed \(connection 200\), stored or not: counted undetermined \(the verification resolves it\)/);
    expectResolved(out, 200, 4000 + 6 * 100);
  } finally {
    await dropDatabase(MONGO_URL, `k6wp_${out.runId}`);
  }
});
