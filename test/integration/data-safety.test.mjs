// Data safety on PostgreSQL: what a run creates carries the k6wp_ prefix and its run id,
// teardown removes only that, existing tables are refused (unless REUSE=1 and they carry the
// pack's marker; never when they lack it), and the password is never printed or saved.
// The runs write into a database of this test's own on the shared server, so that "every
// object in it" means "every object the run created".
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { localEnv, psql, runK6, uniqueRunId } from '../helpers/k6.mjs';

const scenario = 'scenarios/postgres/insert-vs-overwrite.js';
const shared = localEnv().PG_URL;
const dbName = `k6wp_safety_${process.pid}`;
const dbUrl = (() => { const u = new URL(shared); u.pathname = `/${dbName}`; return u.toString(); })();
const small = { PG_URL: dbUrl, DOCS: '2000', BATCH_SIZE: '250', OVERWRITE_BATCHES: '4', MIXED_BATCHES: '2' };
const q = (sql) => psql(dbUrl, sql);

// Every relation, type and function outside the system schemas, as schema.name.
const userObjects = async () => (await q(`
  SELECT n.nspname || '.' || c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'
  UNION ALL
  SELECT n.nspname || '.' || t.typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
   WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'
  UNION ALL
  SELECT n.nspname || '.' || p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
   WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')
  ORDER BY 1`)).split('\n').filter(Boolean);

before(async () => {
  await psql(shared, `DROP DATABASE IF EXISTS ${dbName}`);
  await psql(shared, `CREATE DATABASE ${dbName}`);
  // Data the pack did not create: a user's table, and a table of another (kept) pack run.
  await q(`CREATE TABLE users_data (id int PRIMARY KEY, name text);
    INSERT INTO users_data SELECT g, 'user ' || g FROM generate_series(1, 50) g;
    CREATE TABLE k6wp_other_run (key text PRIMARY KEY, doc jsonb NOT NULL);
    COMMENT ON TABLE k6wp_other_run IS '{"tool":"k6-writepath","run":"other_run","token":"0000000000000000","plan":"insert-vs-overwrite-00000000"}';
    INSERT INTO k6wp_other_run SELECT 'K' || g, '{}' FROM generate_series(1, 7) g;`);
});
after(async () => { await psql(shared, `DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`); });

const untouched = async () => {
  assert.equal(await q('SELECT count(*) FROM users_data'), '50', 'users_data rows intact');
  assert.equal(await q(`SELECT md5(string_agg(id || name, ',' ORDER BY id)) FROM users_data`), await q(`SELECT md5(string_agg(g || 'user ' || g, ',' ORDER BY g)) FROM generate_series(1, 50) g`));
  assert.equal(await q('SELECT count(*) FROM k6wp_other_run'), '7', 'the other run\'s table intact');
};

test('every object a run creates is named k6wp_<RUN_ID>…; teardown removes exactly those', async () => {
  const before = await userObjects();
  const runId = uniqueRunId('ds');
  const kept = await runK6(scenario, { ...small, PG_INDEXES: '3', KEEP: '1' }, { runId });
  assert.equal(kept.code, 0, kept.stdout + kept.stderr);
  const created = (await userObjects()).filter((o) => !before.includes(o));
  assert.ok(created.length >= 5, `table, its row type, primary key and 3 indexes: ${created}`);
  for (const o of created) assert.ok(o.startsWith(`public.k6wp_${runId}`) || o.startsWith(`public._k6wp_${runId}`), `${o} carries k6wp_${runId}`);
  const marker = JSON.parse(await q(`SELECT obj_description('k6wp_${runId}'::regclass, 'pg_class')`));
  assert.deepEqual([marker.tool, marker.run], ['k6-writepath', runId], 'the marker names the pack and the run');
  assert.match(marker.token, /^[0-9a-f]{16}$/, 'and the process that made it');
  assert.equal(kept.summary.server.owned.token, marker.token);
  assert.match(kept.stderr, /kept \(KEEP=1\)/);
  await untouched();

  // A second run with the same RUN_ID and REUSE=1 empties the kept table, then drops it.
  const reused = await runK6(scenario, { ...small, PG_INDEXES: '3', REUSE: '1' }, { runId });
  assert.equal(reused.code, 0, reused.stdout + reused.stderr);
  assert.equal(reused.summary.verification.found, 2250, 'the reused table was emptied first (2000 loaded + 2 x 125 new)');
  assert.equal(reused.summary.verification.expected, 2250);
  assert.deepEqual(await userObjects(), before, 'teardown removed everything the run created, and nothing else');
  await untouched();
});

test('an existing pack table of an earlier run is refused without REUSE=1, rows intact', async () => {
  const runId = uniqueRunId('ds');
  const first = await runK6(scenario, { ...small, PHASES: 'load', KEEP: '1' }, { runId });
  assert.equal(first.code, 0, first.stdout + first.stderr);
  const second = await runK6(scenario, small, { runId });
  assert.equal(second.code, 108, second.stdout + second.stderr);
  const errors = second.stderr.split('\n').filter((l) => /level=error/.test(l));
  assert.equal(errors.length, 1, second.stderr);
  assert.match(errors[0], new RegExp(`table public.k6wp_${runId} already exists .*set REUSE=1`));
  assert.equal(await q(`SELECT count(*) FROM k6wp_${runId}`), '2000', 'the earlier run\'s rows are intact');
  assert.equal(await q(`SELECT count(*) FROM k6wp_${runId} WHERE doc->>'w' <> 'l'`), '0', 'not one row rewritten');
  await q(`DROP TABLE k6wp_${runId}`);
  await untouched();
});

test('a table named like a run but without the k6-writepath marker is refused even with REUSE=1, untouched', async () => {
  const runId = uniqueRunId('ds');
  await q(`CREATE TABLE k6wp_${runId} (key text PRIMARY KEY, doc jsonb NOT NULL);
    INSERT INTO k6wp_${runId} SELECT 'K' || g, jsonb_build_object('mine', g) FROM generate_series(0, 99) g;`);
  const fingerprint = `SELECT count(*) || ':' || md5(string_agg(key || doc::text, ',' ORDER BY key)) FROM k6wp_${runId}`;
  const before = await q(fingerprint);
  for (const reuse of ['0', '1']) {
    const r = await runK6(scenario, { ...small, REUSE: reuse }, { runId });
    assert.equal(r.code, 108, `REUSE=${reuse}: ${r.stdout}${r.stderr}`);
    const errors = r.stderr.split('\n').filter((l) => /level=error/.test(l));
    assert.equal(errors.length, 1, r.stderr);
    assert.match(errors[0], new RegExp(`table public.k6wp_${runId} exists and was not created by k6-writepath \\(no marker\\): refusing to touch it`));
    assert.equal(await q(fingerprint), before, `REUSE=${reuse}: rows intact`);
  }
  assert.equal(await q(`SELECT count(*) FROM pg_class WHERE relname = 'k6wp_${runId}'`), '1', 'not dropped by teardown');
  await q(`DROP TABLE k6wp_${runId}`);
  await untouched();
});

test('the password is read from PG_URL only and appears in no output and no result file', async () => {
  const password = decodeURIComponent(new URL(shared).password);
  assert.ok(password.length >= 8, 'the shared server has a recognisable password');
  // MIXED_OP=insert makes batches fail, so the error paths print database messages too.
  const r = await runK6(scenario, { ...small, MIXED_OP: 'insert' });
  assert.equal(r.code, 99, r.stdout + r.stderr);
  const files = readdirSync(r.dir);
  for (const f of ['summary.json', 'junit.xml', 'summary.txt']) assert.ok(files.includes(f), `${f} written: ${files}`);
  for (const [where, text] of [['stdout', r.stdout], ['stderr', r.stderr], ...files.map((f) => [f, readFileSync(path.join(r.dir, f), 'utf8')])]) {
    assert.ok(!text.includes(password), `password found in ${where}`);
    assert.ok(!text.includes(encodeURIComponent(password)), `encoded password found in ${where}`);
  }
  // k6 never carries the database URL (the gateway does); its token is hidden like every secret.
  assert.equal(r.summary.config.PG_URL, undefined);
  assert.match(r.summary.config.GATEWAY_URL, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal(r.summary.config.WP_GATEWAY_TOKEN, '(set, not shown)');

  // A wrong password: the failure names the cause, not the secret.
  const wrong = new URL(dbUrl); wrong.password = 'Canary-Pw-4711';
  const denied = await runK6(scenario, { ...small, PG_URL: wrong.toString() });
  assert.equal(denied.code, 108);
  assert.match(denied.stderr, /password authentication failed/);
  assert.ok(!(denied.stdout + denied.stderr).includes('Canary-Pw-4711'), 'wrong password not printed');

  // Nothing but the environment: without PG_URL there is no fallback to .run/env or a file.
  const unset = await runK6(scenario, { ...small, PG_URL: undefined });
  assert.equal(unset.code, 107);
  assert.match(unset.stderr, /PG_URL is not set/);
});
