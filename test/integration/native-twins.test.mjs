// bin/k6 runs the per-key loops of random-key batches in Go (xk6/modules/writepath, lib/native.js);
// the JavaScript loops stay the rule and the path on stock k6. Same SEED, same keys and the
// same bytes on both paths (PostgreSQL bodies rendered in Go for the driver too): the fixture runs both on the same inputs and lists every
// difference; the Go side must really have answered (calls counted).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runK6 } from '../helpers/k6.mjs';

test('the Go twins draw the same keys, patch the same bytes and find the same positions as the JavaScript loops', async () => {
  const r = await runK6('test/integration/fixtures/native-twins.js', {});
  assert.equal(r.code, 0, r.stderr);
  const m = /TWINS (\{.*\})/.exec(r.stderr.replace(/\\"/g, '"'));
  assert.ok(m, r.stderr);
  const t = JSON.parse(m[1]);
  assert.deepEqual(t.diffs, []);
  assert.equal(t.draws, 773); // every (VU, batch) of the fixture's draw cases
  assert.equal(t.calls.fillUniform, t.draws);
  assert.equal(t.bodies, 192);
  // stamps of 32 characters take the string path on both sides (keys of up to 16 digits fit a body)
  assert.ok(t.byteBodies >= 150 && t.byteBodies < t.bodies, JSON.stringify(t));
  assert.ok(t.calls.patchKeys >= t.byteBodies, JSON.stringify(t));
  assert.equal(t.matches, 40);
  assert.equal(t.calls.matchKeys, t.matches);
  assert.ok(t.calls.image >= 3, JSON.stringify(t)); // the Go side's bodies come from the process-wide images
  assert.ok(t.matched > 1000, JSON.stringify(t)); // the samples hold keys of the batches
  // PostgreSQL bodies rendered in Go for the driver: the JavaScript body's bytes (stamps of 32
  // characters take the string path on both sides)
  assert.equal(t.renders, 55);
  assert.equal(t.rendered, 44, JSON.stringify(t));
  assert.ok(t.calls.render >= t.rendered, JSON.stringify(t));
});
