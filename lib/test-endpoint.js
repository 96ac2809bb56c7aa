// Runs against the project's own API test servers (test/servers/*, test doubles used by the
// tests) must never pass for database results. The test servers send TEST_ENDPOINT_HEADER on
// every answer, a header neither ArangoDB nor RavenDB sends; an adapter's setup passes the
// headers of its version request to markTestEndpoint(), which sets `testEndpoint` in the setup
// info and puts TEST ENDPOINT in front of the reported server version. From there the label
// reaches every output: the text table (lib/report.js), summary.json (`test_endpoint`,
// `server.testEndpoint`), junit.xml, report.html, the InfluxDB tag `test_endpoint=true`
// (lib/scenario.js) and scripts/compare (which reads `server.testEndpoint`).
// Pure module (no k6 imports): the unit tests run it in Node.

export const TEST_ENDPOINT_HEADER = 'X-K6wp-Test-Endpoint';
export const TEST_ENDPOINT = 'TEST ENDPOINT';

// k6 gives header names in canonical form; compare without case anyway.
export function testEndpointOf(headers) {
  for (const name of Object.keys(headers || {})) {
    if (name.toLowerCase() === TEST_ENDPOINT_HEADER.toLowerCase()) return String(headers[name]) || 'yes';
  }
  return null;
}

// info: the object an adapter's setup() returns. Returns it with testEndpoint set (and the
// version strings labelled when a test server answered).
export function markTestEndpoint(info, headers) {
  const who = testEndpointOf(headers);
  if (!who) return Object.assign(info, { testEndpoint: false });
  const label = (v) => (v ? `${TEST_ENDPOINT}: ${who}, a k6-writepath API test server, not a database (it reports ${v})` : v);
  return Object.assign(info, { testEndpoint: true, version: label(info.version), serverVersion: label(info.serverVersion) });
}
