// Reasons that say what happened, and lines that are one line (issue 27, classes 2 and 3), on
// the shared PostgreSQL of `make up`:
//   - a statement the server cancels before TIMEOUT (pg_cancel_backend, SQLSTATE 57014) is
//     reason cancelled, not timeout;
//   - a user's relation holding a name the run's table needs (an index name) is refused
//     naming it, and left alone — not "existed a moment ago and is gone now";
//   - a PG_URL whose driver options lib/pq rejects is the knob's line, exit 107, no Go stack;
//   - refusals of command-line flags in setup are one line without a stack;
//   - an abort in a VU's iteration (the run's table dropped) is one line without a frame.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { localEnv, psql, psqlSession, runK6, startK6, uniqueRunId, errorLines, runWrapper } from '../helpers/k6.mjs';

const { PG_URL } = localEnv();
const E1 = 'scenarios/postgres/insert-vs-overwrite.js';
const explain = (r) => `exit ${r.code}\n${r.stdout}\n${r.stderr}`;
const noStack = (text) => assert.doesNotMatch(text, /\\n\\tat |\bat \S+ \(file:|\(native\)/, 'no stack frame');

test('a statement cancelled by someone else (pg_cancel_backend, 57014) before TIMEOUT is reason cancelled, not timeout', { timeout: 180000 }, async () => {
  const runId = uniqueRunId('cx');
  const run = startK6(E1, { PG_URL, DOCS: '2000', BATCH_SIZE: '100', OVERWRITE_BATCHES: '40', MIXED_BATCHES: '0', TIMEOUT: '60s', VUS: '1' }, { runId, timeoutMs: 150000 });
  await run.waitFor(/writing to table/);
  // Hold the table: the next batch waits on the lock; cancel the waiting statement.
  const s = psqlSession(PG_URL);
  await s.run(`BEGIN; LOCK TABLE k6wp_${runId} IN ACCESS EXCLUSIVE MODE;`, 'locked');
  let cancelled = '0';
  for (let i = 0; i < 200 && cancelled !== '1'; i++) {
    await delay(50);
    cancelled = await psql(PG_URL, `SELECT count(*) FROM (SELECT pg_cancel_backend(pid) FROM pg_stat_activity
      WHERE application_name = 'k6-writepath' AND wait_event_type = 'Lock' AND query LIKE 'INSERT INTO%k6wp_${runId}%') c`);
  }
  await s.run('ROLLBACK;', 'released');
  await s.close();
  const r = await run.done;
  assert.equal(cancelled, '1', 'a batch waited on the lock and was cancelled');
  assert.equal(r.code, 99, explain(r));
  const reasons = Object.assign({}, ...r.summary.phases.map((p) => p.failed_by_reason));
  assert.deepEqual(reasons, { cancelled: 100 }, JSON.stringify(r.summary.phases));
  assert.match(r.stderr, /batch of 100 failed \(cancelled\): [^\n]*canceling statement due to user request/);
});

test('a user\'s index whose name the run\'s table needs is refused naming it, and left alone', async () => {
  const runId = uniqueRunId('ix');
  const mine = `mine_${runId}`;
  await psql(PG_URL, `CREATE TABLE ${mine} (a int); CREATE INDEX k6wp_${runId}_f1 ON ${mine} (a);`);
  try {
    const r = await runK6(E1, { PG_URL, DOCS: '400', BATCH_SIZE: '100', PG_INDEXES: '2' }, { runId });
    assert.equal(r.code, 108, explain(r));
    const lines = errorLines(r);
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0], new RegExp(`test aborted: cannot create table public\\.k6wp_${runId}: public\\.k6wp_${runId}_f1 already exists and was not created by this run \\(the run's table needs it for its index on f1 \\(PG_INDEXES\\)\\): refusing to touch it; choose another RUN_ID"$`));
    noStack(lines[0]);
    assert.equal(await psql(PG_URL, `SELECT count(*) FROM pg_class WHERE relname = 'k6wp_${runId}'`), '0', 'no table made');
    assert.equal(await psql(PG_URL, `SELECT indrelid::regclass::text FROM pg_index WHERE indexrelid = 'k6wp_${runId}_f1'::regclass`), mine, 'the user\'s index untouched');
  } finally {
    await psql(PG_URL, `DROP TABLE IF EXISTS ${mine}`);
  }
});

test('a PG_URL whose driver options lib/pq rejects is bad input: the knob\'s line, exit 107, no Go stack, no password', async () => {
  const u = new URL(PG_URL);
  u.password = 'Canary-Pg-Pw-77';
  u.searchParams.set('sslmode', 'bogus');
  const runId = uniqueRunId('sm');
  const r = await runK6(E1, { PG_URL: u.toString(), DOCS: '400', BATCH_SIZE: '100' }, { runId });
  assert.equal(r.code, 107, explain(r));
  const lines = errorLines(r);
  assert.equal(lines.length, 1, r.stderr);
  // the private gateway refuses the URL before it listens: the option's name shown, the
  // parser's other quoted parts (the value) hidden
  assert.match(lines[0], /^k6-writepath: PG_URL \(value not shown\) is not allowed: pq: wrong value for "sslmode": \(…\) is not supported; supported values are /);
  noStack(r.stderr);
  assert.ok(!(r.stdout + r.stderr).includes('Canary-Pg-Pw-77'));
  assert.equal(await psql(PG_URL, `SELECT count(*) FROM pg_class WHERE relname = 'k6wp_${runId}'`), '0');
});

// scripts/run refuses the k6 options the knobs own before k6 starts: one line, exit 107, like
// every bad input, in every spelling k6's own flag parser accepts (scripts/common.sh
// wp_k6_args). --vus alone too: k6 would drop it without a word and run the knobs' VUs.
// (A plain `k6 run` still meets the setup refusal, exit 108: bad-input.test.mjs.)
test('scripts/run: flags that override the plan (--vus, -i, --duration, -u with -i, --stage, K6_ITERATIONS, in every spelling k6 reads) are refused before k6 starts: one line, 107, nothing created', async () => {
  for (const [args, env, says] of [
    [['--vus', '5'], {}, '--vus is not allowed: the knobs plan the run and k6 would replace or ignore that plan; use -e VUS=… (or STAGES, MAX_VUS) instead'],
    [['-i', '3'], {}, '--iterations is not allowed'],
    [['--duration', '2s'], {}, '--duration is not allowed: the knobs plan the run and k6 would replace or ignore that plan; use -e MAX_DURATION=… or -e STAGES=… instead'],
    [['-u', '5', '-i', '5'], {}, '--vus is not allowed'],
    [['-qu', '5'], {}, '--vus is not allowed'],
    [['-u5'], {}, '--vus is not allowed'],
    [['--vus=5'], {}, '--vus is not allowed'],
    [['--stage', '5s:2'], {}, '--stage is not allowed'],
    [[], { K6_ITERATIONS: '3' }, 'K6_ITERATIONS="3" is not allowed (k6\'s --iterations)'],
  ]) {
    const runId = uniqueRunId('fl');
    const r = await runWrapper(E1, { PG_URL, DOCS: '400', BATCH_SIZE: '100', ...env }, { runId, args });
    assert.equal(r.code, 107, explain(r));
    assert.equal(r.stdout, '');
    assert.equal(r.stderr.split('\n').filter(Boolean).length, 1, r.stderr);
    assert.ok(r.stderr.startsWith(`scripts/run: ${says}`), r.stderr);
    assert.equal(await psql(PG_URL, `SELECT count(*) FROM pg_class WHERE relname = 'k6wp_${runId}'`), '0');
  }
});

test('the run\'s table dropped mid-run: through scripts/run the abort is one line, without a JavaScript frame', { timeout: 120000 }, async () => {
  const runId = uniqueRunId('dx');
  const done = runWrapper(E1, { PG_URL, DOCS: '2000', BATCH_SIZE: '100', OVERWRITE_BATCHES: '100000', MIXED_BATCHES: '0', READBACK: '0' }, { runId, timeoutMs: 100000 });
  for (let i = 0; i < 100 && (await psql(PG_URL, `SELECT count(*) FROM pg_class WHERE relname = 'k6wp_${runId}'`)) === '0'; i++) await delay(200);
  await delay(1000);
  await psql(PG_URL, `DROP TABLE k6wp_${runId}`);
  const r = await done;
  assert.equal(r.code, 108, explain(r));
  const aborted = errorLines(r).filter((l) => /test aborted/.test(l));
  assert.equal(aborted.length, 1, r.stderr);
  assert.match(aborted[0], new RegExp(`msg="test aborted: the run's table disappeared during the run: pq: relation "public\\.k6wp_${runId}" does not exist[^"]*"$`));
  noStack(aborted[0]);
});
