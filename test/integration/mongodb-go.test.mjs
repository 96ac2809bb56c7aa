// The Go tests of the MongoDB module (xk6/modules/mongodb: the JSON-to-BSON conversion held
// against the driver's own reader, and every write path against a real mongod: duplicate keys
// in ordered and unordered batches, replace/merge/ignore/$inc, a collection dropped under the
// run, server errors of a whole batch, timeouts, refused credentials) on a mongod of their own
// with the server's fail points enabled. None may be skipped. (-trimpath: the same build flags
// as bin/k6, so the packages compiled for it are reused.)
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '../helpers/testserver.mjs';
import { startPrivateMongo } from '../helpers/mongoprivate.mjs';

let mongo = null;
after(() => { if (mongo) mongo.stop(); });

test('go test ./modules/mongodb passes against a real mongod, nothing skipped', async () => {
  mongo = await startPrivateMongo({ name: 'mongo-go', testCommands: true });
  const r = spawnSync('go', ['test', '-trimpath', '-count=1', '-v', './modules/mongodb/'], {
    cwd: path.join(repoRoot, 'xk6'), encoding: 'utf8', timeout: 600000, env: { ...process.env, MONGO_URL: mongo.url },
  });
  const out = `${r.stdout}\n${r.stderr}`;
  assert.equal(r.status, 0, out.slice(-4000));
  assert.doesNotMatch(out, /--- SKIP/);
  const passed = out.match(/^--- PASS: \w+/gm) || [];
  for (const name of ['TestUnorderedDuplicatesCountedPerDocument', 'TestOrderedStopsAtTheFirstDuplicate', 'TestReplaceMergeIgnoreAndInc',
    'TestCollectionUUIDRefusesAGoneCollection', 'TestServerErrorsOfAWholeBatch', 'TestTimeoutBoundsABatch', 'TestAuthRefusedWithoutShowingThePassword',
    'TestUnreachableServerIsAConnectionFailure', 'TestParseMatchesDriver', 'TestParseRandomDocuments', 'TestParseRefusesMalformedBatches', 'TestSecretsNeverInErrors']) {
    assert.ok(passed.includes(`--- PASS: ${name}`), `${name} did not pass:\n${out.slice(-3000)}`);
  }
});
