// A run against a project API test server is labelled TEST ENDPOINT in every output
// (lib/test-endpoint.js, lib/report.js, lib/report-html.js); a run against a database is not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { markTestEndpoint, testEndpointOf, TEST_ENDPOINT_HEADER } from '../../lib/test-endpoint.js';
import { buildReport } from '../../lib/report.js';
import { renderHtml } from '../../lib/report-html.js';

test('the test servers\' header is recognised in any case; without it nothing is labelled', () => {
  assert.equal(TEST_ENDPOINT_HEADER, 'X-K6wp-Test-Endpoint');
  assert.equal(testEndpointOf({ 'X-K6wp-Test-Endpoint': 'ravendb-testserver' }), 'ravendb-testserver');
  assert.equal(testEndpointOf({ 'x-k6wp-test-endpoint': 'arangodb-testserver' }), 'arangodb-testserver');
  assert.equal(testEndpointOf({ Server: 'ArangoDB', 'Raven-Server-Version': '7.1.2.71' }), null);
  const real = markTestEndpoint({ version: 'RavenDB 7.1.2', serverVersion: 'RavenDB 7.1.2 (build 71, abc)' }, { 'Raven-Server-Version': '7.1.2.71' });
  assert.deepEqual(real, { version: 'RavenDB 7.1.2', serverVersion: 'RavenDB 7.1.2 (build 71, abc)', testEndpoint: false });
  const fake = markTestEndpoint({ version: 'ArangoDB 3.12.4 (arango, license community)', serverVersion: 'ArangoDB 3.12.4' }, { 'X-K6wp-Test-Endpoint': 'arangodb-testserver' });
  assert.equal(fake.testEndpoint, true);
  assert.equal(fake.serverVersion, 'TEST ENDPOINT: arangodb-testserver, a k6-writepath API test server, not a database (it reports ArangoDB 3.12.4)');
  assert.match(fake.version, /^TEST ENDPOINT: arangodb-testserver, .*\(it reports ArangoDB 3\.12\.4 \(arango, license community\)\)$/);
});

function summary(target) {
  const trend = { type: 'trend', values: { min: 1, med: 2, avg: 2, 'p(90)': 3, 'p(95)': 3, 'p(99)': 4, max: 5, count: 2 } };
  return {
    metrics: {
      'writepath_batch_duration{phase:load}': { ...trend, thresholds: { 'p(95)<=2000': { ok: true } } },
      'writepath_docs_ok{phase:load}': { type: 'counter', values: { count: 2000 } },
      'writepath_docs_new{phase:load}': { type: 'counter', values: { count: 2000 } },
      writepath_verify_expected: { type: 'gauge', values: { value: 2000 } },
      writepath_verify_found: { type: 'gauge', values: { value: 2000 } },
      writepath_verify_mismatch: { type: 'gauge', values: { value: 0 } },
      writepath_readback_checked: { type: 'counter', values: { count: 0 } },
      writepath_readback_stale: { type: 'counter', values: { count: 0 } },
    },
    setup_data: { runId: 'r1', target },
  };
}
const meta = { cfg: { DOC_SHAPE: 'e1', KEY_DIST: 'uniform', SEED: 1, VUS: 2, BATCH_SIZE: 1000 }, plan: { vus: 2, batchSize: 1000, loadBatches: 2, overwriteBatches: 0, mixedBatches: 0, newPerMixed: 0, expectedDocs: 2000 }, phases: ['load'], target: 'ravendb', experiment: 'insert-vs-overwrite', reasons: [], ops: { load: 'insert' } };

test('text table, summary.json, junit.xml and report.html of a test-server run all say TEST ENDPOINT', () => {
  const target = markTestEndpoint({ version: 'RavenDB 7.1.2', serverVersion: 'RavenDB 7.1.2 (build 71, k6wpath)', settings: {} }, { 'X-K6wp-Test-Endpoint': 'ravendb-testserver' });
  const r = buildReport(summary(target), meta);
  assert.match(r.text.split('\n')[0], /^k6-writepath · TEST ENDPOINT · ravendb · insert-vs-overwrite · run r1$/);
  assert.match(r.text, /\nserver: TEST ENDPOINT: ravendb-testserver, .*\(it reports RavenDB 7\.1\.2 \(build 71, k6wpath\)\)\n/);
  assert.match(r.text, /\nTEST ENDPOINT: a k6-writepath API test server answered, not a database/);
  assert.equal(r.json.test_endpoint, true);
  assert.equal(r.json.server.testEndpoint, true);
  assert.match(r.junit, /<testsuite name="k6-writepath TEST ENDPOINT · ravendb insert-vs-overwrite"/);
  const html = renderHtml(r.json);
  assert.match(html, /<title>k6-writepath · TEST ENDPOINT · ravendb/);
  assert.match(html, /id="test-endpoint">TEST ENDPOINT: a k6-writepath API test server answered/);
});

test('a database run carries no label anywhere', () => {
  const target = markTestEndpoint({ version: 'RavenDB 7.1.2', serverVersion: 'RavenDB 7.1.2 (build 71, abc)', settings: {} }, {});
  const r = buildReport(summary(target), meta);
  assert.equal(r.json.test_endpoint, false);
  for (const out of [r.text, r.junit, renderHtml(r.json)]) assert.ok(!out.includes('TEST ENDPOINT'), out.slice(0, 200));
});
