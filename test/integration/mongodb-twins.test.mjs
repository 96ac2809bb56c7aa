// The BSON the gateway makes of the pack's bodies is exactly their JSON, for every document
// shape and body path (test/integration/fixtures/mongodb-twins.js, run in k6 against a gateway).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runK6 } from '../helpers/k6.mjs';
import { startGateway } from '../helpers/gateway.mjs';

test('gateway: the MongoDB documents it makes of every shape and body path are the body\'s JSON, integers typed as int32/int64', async () => {
  const gw = startGateway({});
  let r;
  try {
    r = await runK6('test/integration/fixtures/mongodb-twins.js', { GATEWAY_URL: gw.url, WP_GATEWAY_TOKEN: gw.token });
  } finally {
    gw.stop();
  }
  assert.equal(r.code, 0, r.stderr);
  const m = /TWINS (\{.*\})/.exec(r.stderr.replace(/\\"/g, '"'));
  assert.ok(m, r.stderr);
  const t = JSON.parse(m[1]);
  assert.deepEqual(t.diffs, []);
  assert.equal(t.bodies, 25);
  assert.equal(t.docs, 5 * (250 + 40 + 7 + 6 + 5));
  assert.ok(t.paths.bytes >= 10 && t.paths.string >= 5, `both body paths: ${JSON.stringify(t.paths)}`);
});
