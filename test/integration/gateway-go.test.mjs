// The Go tests of the gateway (gateway/: bin/wp-gateway, docs/gateway.md) on servers of their
// own: a private PostgreSQL (test/helpers/pgprivate.mjs; the driver tests terminate and
// SIGSTOP its backends) and a private mongod with the server's fail points enabled
// (test/helpers/mongoprivate.mjs, enableTestCommands). What they hold: a PostgreSQL statement
// is never re-executed behind the pack's back and always ends at its timeout, the HTTP
// exchanges (token, handles, config errors, Server-Timing, a binary jsonb batch, row values,
// no password in any answer), and the MongoDB client ported from the k6 module (the JSON-to-BSON
// conversion held against the driver's own reader, every write path against the real mongod).
// None may be skipped. (-trimpath: the same build flags as bin/wp-gateway.)
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '../helpers/testserver.mjs';
import { startPrivateMongo } from '../helpers/mongoprivate.mjs';
import { startPrivatePg } from '../helpers/pgprivate.mjs';

let mongo = null;
let pg = null;
after(() => {
  if (mongo) mongo.stop();
  if (pg) pg.stop('fast');
});

const EXPECTED = [
  // gateway (main): the program, the token, the mongo-admin subcommand
  'TestTokenIsRequiredButForHealth', 'TestNoTokenConfigured', 'TestProgramReadyFileAndSignal', 'TestMongoAdminSteps',
  // gateway/pg: the driver's guarantees and the HTTP exchanges
  'TestTerminatedStatementIsNotReExecuted', 'TestIdleConnectionClosedIsReplacedWithoutError', 'TestDeadlineEndsALongStatement',
  'TestFrozenBackendEndsAtTheDeadline', 'TestRefusedConnectionSendsNothing', 'TestConnectionURL', 'TestSecretsOf',
  'TestHTTPStatementsAndRows', 'TestHTTPRefusals', 'TestHTTPPasswordNeverInAnswers', 'TestHTTPClientGoneCancelsTheStatement',
  // gateway/mongo: the client of the k6 module, and the HTTP exchanges
  'TestUnorderedDuplicatesCountedPerDocument', 'TestOrderedStopsAtTheFirstDuplicate', 'TestReplaceMergeIgnoreAndInc',
  'TestCollectionUUIDRefusesAGoneCollection', 'TestServerErrorsOfAWholeBatch', 'TestTimeoutBoundsABatch', 'TestAuthRefusedWithoutShowingThePassword',
  'TestUnreachableServerIsAConnectionFailure', 'TestOneClientPerURL', 'TestParseMatchesDriver', 'TestParseRandomDocuments',
  'TestParseRefusesMalformedBatches', 'TestSecretsNeverInErrors',
  'TestHTTPWriteUpdateFindCount', 'TestHTTPConnectReportsTheURLsWriteConcern', 'TestHTTPRefusalsAndSecrets',
  // gateway/internal/wire: the handles every service keeps
  'TestHandlesLifecycle',
];

test('go test ./... in gateway/ passes against a private PostgreSQL and mongod, nothing skipped', { timeout: 900000 }, async () => {
  pg = await startPrivatePg({ name: 'gateway-go' });
  mongo = await startPrivateMongo({ name: 'gateway-go', testCommands: true });
  const r = spawnSync('go', ['test', '-trimpath', '-count=1', '-v', './...'], {
    cwd: path.join(repoRoot, 'gateway'), encoding: 'utf8', timeout: 840000,
    env: { ...process.env, PG_URL: pg.url, MONGO_URL: mongo.url, WP_GATEWAY_TOKEN: '' },
  });
  const out = `${r.stdout}\n${r.stderr}`;
  assert.equal(r.status, 0, out.slice(-4000));
  assert.doesNotMatch(out, /--- SKIP/);
  assert.doesNotMatch(out, /--- FAIL/);
  const passed = out.match(/^--- PASS: \w+/gm) || [];
  for (const name of EXPECTED) {
    assert.ok(passed.includes(`--- PASS: ${name}`), `${name} did not pass:\n${out.slice(-3000)}`);
  }
});
