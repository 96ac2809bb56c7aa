// The ArangoDB and RavenDB scenarios use only k6's own modules (k6/http, k6/execution, k6/metrics,
// k6/crypto…): they run unchanged on a stock k6 without extensions. bin/k6-stock is stock k6 v2.2.0
// (k6-stock/go.mod, `make k6-stock`); each scenario runs on it against the API test servers and
// must verify what it wrote. The PostgreSQL scenario imports k6/x/sql: a stock k6 refuses it at
// init with exit 107 (README "The pinned k6 build, and stock k6" says what users need instead).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { runK6 } from '../helpers/k6.mjs';
import { repoRoot, startTestServer } from '../helpers/testserver.mjs';

const stock = path.join(repoRoot, 'bin', 'k6-stock');
let arango; let raven;
before(async () => {
  assert.ok(existsSync(stock), 'bin/k6-stock is missing: make k6-stock (make test builds it)');
  arango = await startTestServer('arangodb', ['-no-auth']);
  raven = await startTestServer('ravendb');
});
after(async () => { if (arango) await arango.stop(); if (raven) await raven.stop(); });

test('bin/k6-stock is k6 v2.x without extensions', () => {
  const v = spawnSync(stock, ['version'], { encoding: 'utf8' });
  assert.equal(v.status, 0, v.stderr);
  assert.match(v.stdout, /^k6\S* v2\.2\.0 \(/);
  assert.doesNotMatch(v.stdout, /Extensions:/);
});

const out = (r) => `${r.stdout}\n${r.stderr}`;
const runs = [
  ['scenarios/arangodb/insert-vs-overwrite.js', () => ({ ARANGO_URL: arango.url, DOCS: '2000', BATCH_SIZE: '250', OVERWRITE_BATCHES: '4', MIXED_BATCHES: '2' }), 2000 + 2 * 125],
  ['scenarios/arangodb/arangobench.js', () => ({ ARANGO_URL: arango.url, ARANGOBENCH_CASE: 'crud', REQUESTS: '200', VUS: '2', COMPLEXITY: '5' }), null],
  ['scenarios/ravendb/insert-vs-overwrite.js', () => ({ RAVEN_URL: raven.url, DOCS: '2000', BATCH_SIZE: '250', OVERWRITE_BATCHES: '4', MIXED_BATCHES: '2' }), 2000 + 2 * 125],
  ['scenarios/ravendb/bulk-insert.js', () => ({ RAVEN_URL: raven.url, STAGES: '1s:1,1s:2', BATCH_SIZE: '500', DOC_POOL: '200' }), null],
];
for (const [scenario, env, expected] of runs) {
  test(`${scenario} runs on stock k6 and verifies what it wrote`, { timeout: 120000 }, async () => {
    const r = await runK6(scenario, { ...env(), INFLUX_URL: undefined }, { k6: stock });
    assert.equal(r.code, 0, out(r));
    assert.equal(r.summary.passed, true, out(r));
    const v = r.summary.verification;
    assert.equal(v.ran, true);
    assert.equal(v.count_ok, true);
    if (expected !== null) assert.equal(v.found, expected);
    assert.ok(r.summary.phases.every((p) => p.docs_failed === 0));
    assert.ok(r.summary.phases.reduce((s, p) => s + p.batches, 0) > 0);
  });
}

test('the PostgreSQL scenario on a stock k6: refused at init (exit 107), naming the extension modules', { timeout: 60000 }, async () => {
  // Automatic extension resolution off: what an offline machine (or K6_AUTO_EXTENSION_RESOLUTION=false) gets.
  const r = await runK6('scenarios/postgres/insert-vs-overwrite.js', { PG_URL: 'postgres://u:p@127.0.0.1:1/x', K6_AUTO_EXTENSION_RESOLUTION: 'false' }, { k6: stock });
  assert.equal(r.code, 107, out(r));
  assert.match(r.stderr, /unknown modules \[\\"k6\/x\/sql\\", \\"k6\/x\/sql\/driver\/postgres\\"\]/);
  assert.equal(r.summary, null, 'nothing ran');
});

test('the MongoDB scenarios on a stock k6: refused at init (exit 107), naming the pack\'s module', { timeout: 60000 }, async () => {
  for (const scenario of ['scenarios/mongodb/insert-vs-overwrite.js', 'scenarios/mongodb/bulk-insert.js']) {
    const r = await runK6(scenario, { MONGO_URL: 'mongodb://u:p@127.0.0.1:1/', K6_AUTO_EXTENSION_RESOLUTION: 'false' }, { k6: stock });
    assert.equal(r.code, 107, out(r));
    assert.match(r.stderr, /unknown modules \[\\"k6\/x\/writepath\/mongodb\\"\]/);
    assert.equal(r.summary, null, 'nothing ran');
  }
});
