// bench/plain-pg.js, the PostgreSQL reference of bench/memory.mjs's memory-per-VU table, runs on
// stock k6 (bin/k6) through a private gateway: every batch the database stored whole, its table
// dropped at the end; a batch the database stored short, or a gateway refusal, ends the run
// with exit 108 and the reason (k6 would exit 0 on a mere exception).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startGateway } from '../helpers/gateway.mjs';
import { k6Bin, localEnv, psql } from '../helpers/k6.mjs';
import { repoRoot } from '../helpers/testserver.mjs';

const { PG_URL } = localEnv();
const gw = startGateway({ PG_URL });
const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-plainpg-'));
after(() => { gw.stop(); rmSync(dir, { recursive: true, force: true }); });

// A binary jsonb batch of n documents (the version byte 1, then the JSON text).
function body(n) {
  const file = path.join(dir, `body-${n}.jsonb`);
  const docs = Array.from({ length: n }, (_, i) => ({ key: `k${i}`, v: i }));
  writeFileSync(file, Buffer.concat([Buffer.from([1]), Buffer.from(JSON.stringify(docs))]));
  return file;
}

function plain(env) {
  const id = `t${process.pid}_${Math.floor(Math.random() * 1e9)}`;
  const r = spawnSync(k6Bin, ['run', '--quiet', '--address=', 'bench/plain-pg.js'], { cwd: repoRoot, encoding: 'utf8', timeout: 240000,
    // a token given here replaces the gateway's (gw.env sets its own)
    env: { ...gw.env({ PATH: process.env.PATH, K6_NO_USAGE_REPORT: 'true', VUS: '2', ITERATIONS: '2', PLAIN_ID: id, ...env }), ...(env.WP_GATEWAY_TOKEN ? { WP_GATEWAY_TOKEN: env.WP_GATEWAY_TOKEN } : {}) } });
  return { ...r, table: `k6wp_plain_${id}` };
}

const tableExists = async (t) => (await psql(PG_URL, `SELECT count(*) FROM pg_class WHERE relname = '${t}'`)).trim();

for (const as of ['string', 'bytes']) {
  test(`bench/plain-pg.js (${as} body) upserts its batches through the gateway and drops its table`, async () => {
    const r = plain({ BODY_FILE: body(1000), BODY_AS: as });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(await tableExists(r.table), '0', 'teardown dropped the table');
  });
}

test('bench/plain-pg.js: a batch stored short or a refused token ends the run with exit 108 and why', async () => {
  const short = plain({ BODY_FILE: body(999), BODY_AS: 'bytes' });
  assert.equal(short.status, 108, short.stderr);
  assert.match(short.stderr, /a batch stored 999 rows, not 1000/);
  assert.equal(await tableExists(short.table), '0', 'teardown ran after the abort');
  const refused = plain({ BODY_FILE: body(1000), WP_GATEWAY_TOKEN: 'not-the-token' });
  assert.equal(refused.status, 108, refused.stderr);
  assert.match(refused.stderr, /\/pg\/open answered 401/);
});
