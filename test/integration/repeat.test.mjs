// REPEAT=N through scripts/run on the real PostgreSQL: each repetition a run of its own (own
// RUN_ID, table and folder), the aggregate folder exact (summary.json, summary.txt, junit.xml,
// report.html), and bad REPEAT values refused with one line before anything runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { summarize } from '../../scripts/lib/stats.mjs';
import { localEnv, psql, uniqueRunId } from '../helpers/k6.mjs';
import { repoRoot } from '../helpers/testserver.mjs';

const scenario = 'scenarios/postgres/insert-vs-overwrite.js';
const small = ['-e', 'DOCS=2000', '-e', 'BATCH_SIZE=250', '-e', 'OVERWRITE_BATCHES=4', '-e', 'MIXED_BATCHES=2', '-e', 'WP_INFLUX=0'];
const run = (args, env = {}) => spawnSync(path.join(repoRoot, 'scripts', 'run'), [scenario, '-q', ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 240000, env: { ...process.env, K6_NO_USAGE_REPORT: 'true', ...env } });
const readJson = (f) => JSON.parse(readFileSync(f, 'utf8'));
const { PG_URL } = localEnv();

test('REPEAT=3: three runs of their own in results/<RUN_ID>/<RUN_ID>_rNN/, and the aggregate of exactly their figures', { timeout: 300000 }, () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-rep-'));
  const id = uniqueRunId('rep').slice(0, 28);
  const r = run([...small, '-e', 'REPEAT=3', '-e', `RUN_ID=${id}`, '-e', `RESULTS_DIR=${dir}`]);
  assert.equal(r.status, 0, r.stderr);
  const top = path.join(dir, id);
  const reps = [1, 2, 3].map((i) => `${id}_r0${i}`);
  assert.deepEqual(readdirSync(top).sort(), [...reps, 'junit.xml', 'report.html', 'summary.json', 'summary.txt'].sort());
  assert.equal(realpathSync(path.join(dir, 'latest')), realpathSync(top), 'results/latest points at the aggregate');
  const own = reps.map((rep) => readJson(path.join(top, rep, 'summary.json')));
  // Each repetition is a run of its own: its RUN_ID, its own table, verified on its own.
  assert.deepEqual(own.map((s) => s.run_id), reps);
  assert.deepEqual(own.map((s) => s.server.objects[0]), reps.map((rep) => `table public.k6wp_${rep}`));
  for (const s of own) assert.equal(s.verification.ok, true);
  const agg = readJson(path.join(top, 'summary.json'));
  assert.deepEqual([agg.kind, agg.run_id, agg.n, agg.n_with_results, agg.passed, agg.confidence], ['repeat', id, 3, 3, true, 0.95]);
  assert.deepEqual(agg.repetitions.map((x) => [x.run_id, x.exit, x.passed]), reps.map((rep) => [rep, 0, true]));
  for (const [pi, p] of agg.phases.entries()) {
    assert.equal(p.phase, own[0].phases[pi].phase);
    const pairs = [['docs_per_s', (q) => q.docs_per_s], ['mb_per_s', (q) => q.mb_per_s], ['batch_p50_ms', (q) => q.batch_ms.median], ['batch_p90_ms', (q) => q.batch_ms.p90], ['batch_p99_ms', (q) => q.batch_ms.p99], ['batch_avg_ms', (q) => q.batch_ms.average]];
    for (const [key, get] of pairs) {
      const v = own.map((s) => get(s.phases[pi]));
      assert.deepEqual(p.metrics[key], { values: v, ...summarize(v) }, `${p.phase} ${key}`);
      assert.equal(p.metrics[key].ci, null, 'three runs: no 95 % interval');
    }
  }
  assert.deepEqual(agg.ratios['overwrite/load'].average.values, own.map((s) => s.ratios['overwrite/load'].average));
  const text = readFileSync(path.join(top, 'summary.txt'), 'utf8');
  assert.equal(r.stdout, text, 'the aggregate table is what scripts/run prints');
  assert.match(text, new RegExp(`^k6-writepath · postgres · insert-vs-overwrite · 3 repetitions · run ${id}$`, 'm'));
  assert.match(text, /^overwrite\s+upsert\s+docs\/s\s+3\s+\d+\s+\d+ – \d+\s+need ≥ 6 runs$/m);
  assert.match(text, /^overwrite\/load ratio, median of the 3 repetitions' own ratios \(n=3\): average [\d.]+x \(min – max [\d.]+ – [\d.]+, need ≥ 6 runs\)/m);
  assert.doesNotMatch(text, /^overwrite\/load ratio: /m, 'no single run\'s ratio as the result');
  const junit = readFileSync(path.join(top, 'junit.xml'), 'utf8');
  assert.match(junit, /<testsuites tests="3" failures="0">/);
  for (const [i, rep] of reps.entries()) assert.ok(junit.includes(`name="repetition ${i + 1} of 3 (run ${rep}): thresholds and verification"/>`));
  const html = readFileSync(path.join(top, 'report.html'), 'utf8');
  assert.match(html, /<p class="verdict ok" id="verdict">PASSED: 3 of 3 repetitions passed/);
  assert.equal((html.match(/<circle class="run"/g) || []).length, 3 * 3 + 3 * 3 * 2, 'every repetition as a dot: docs/s chart, p50 and p99 chart');
  for (const rep of reps) assert.ok(html.includes(`href="${rep}/report.html"`));
});

test('bad REPEAT or a RUN_ID too long for the repetitions: one line, exit 107, nothing run', { timeout: 120000 }, () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-rep-'));
  for (const [value, line] of [['0', 'REPEAT="0" is not allowed: a whole number from 1 to 99'], ['x', 'REPEAT="x" is not allowed: a whole number from 1 to 99'], ['100', 'REPEAT="100" is not allowed: a whole number from 1 to 99']]) {
    const r = run([...small, '-e', `REPEAT=${value}`, '-e', `RESULTS_DIR=${dir}`, '-e', 'RUN_ID=badrep1'], { K6: '/bin/false' });
    assert.equal(r.status, 107, r.stderr);
    assert.equal(r.stderr, `scripts/run: ${line}\n`);
  }
  const long = 'a'.repeat(29);
  const r = run([...small, '-e', 'REPEAT=2', '-e', `RESULTS_DIR=${dir}`, '-e', `RUN_ID=${long}`], { K6: '/bin/false' });
  assert.equal(r.status, 107);
  assert.equal(r.stderr, `scripts/run: RUN_ID="${long}" is not allowed with REPEAT=2: at most 28 characters (each repetition's RUN_ID adds _rNN)\n`);
  assert.ok(!existsSync(path.join(dir, long, `${long}_r01`)), 'no repetition ran');
});

// A SIGTERM (what `timeout` and CI send) to scripts/run during a REPEAT of the contention
// workload: the repetition's own summary says NOT VERIFIED (its ledgers were
// never stored), and the aggregate says the same of it — interrupted, not verified, no failed
// verification — and shows no MB/s, a figure the counters' increments do not have.
test('REPEAT over contention, interrupted: the aggregate says what the repetition said (interrupted, NOT VERIFIED, no verification FAILED), no MB/s rows', { timeout: 300000 }, async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-rep-'));
  const id = uniqueRunId('repi').slice(0, 28);
  const child = spawn(path.join(repoRoot, 'scripts', 'run'), ['scenarios/postgres/contention.js', '-q', '-e', 'REPEAT=2', '-e', `RUN_ID=${id}`, '-e', `RESULTS_DIR=${dir}`,
    '-e', 'WP_INFLUX=0', '-e', 'STAGES=60s:2', '-e', 'HOT_KEYS=10'], { cwd: repoRoot, detached: true, env: { ...process.env, K6_NO_USAGE_REPORT: 'true', HISTORY: '0' } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  try {
    // The VUs increment (setup is over): a signal inside setup is another case (no summary).
    const table = `public.k6wp_${id}_r01`;
    for (const until = Date.now() + 120000; ; await new Promise((r) => setTimeout(r, 200))) {
      if (Date.now() > until || child.exitCode !== null) throw new Error(`repetition 1 never incremented:\n${stderr}`);
      const n = await psql(PG_URL, `SELECT coalesce(sum((doc->>'n')::bigint), 0) FROM ${table}`).catch(() => '0');
      if (Number(String(n).trim()) > 0) break;
    }
    process.kill(child.pid, 'SIGTERM');
    const code = await exited;
    assert.equal(code, 105, stderr);
    const rep = `${id}_r01`;
    const own = readFileSync(path.join(dir, id, rep, 'summary.txt'), 'utf8');
    assert.match(own, /^counters: .* — NOT VERIFIED$/m, 'the repetition\'s own word');
    const text = readFileSync(path.join(dir, id, 'summary.txt'), 'utf8');
    assert.equal(stdout, text);
    assert.match(text, new RegExp(`^verification: 0 of 1 repetitions verified \\(counters against the VUs' ledgers\\); NOT VERIFIED: ${rep} \\(interrupted\\)$`, 'm'));
    assert.match(text, new RegExp(`^thresholds and verification: 0 of 1 repetitions passed — FAILED: ${rep} \\(interrupted \\(k6 exit 105\\); thresholds failed: .*; NOT VERIFIED: the VUs' ledgers are incomplete\\)$`, 'm'));
    assert.doesNotMatch(text, /verification FAILED|verified \(.*\) — FAILED/);
    assert.doesNotMatch(text, /MB\/s\s+\d/, 'no MB/s row');
    // The spread step never ran: no time per operation either (not 0.0 ms).
    assert.match(text, /^step 2: spread 100000 × 2\s+increment\s+ops\/s\s+0\s+-/m);
    assert.match(text, /^\s+p50 ms\s+0\s+-\s+-\s+-\n\s+p99 ms\s+0\s+-\s+-\s+-\n\n/m);
    const agg = readJson(path.join(dir, id, 'summary.json'));
    assert.deepEqual(agg.repetitions.map((r) => [r.run_id, r.exit, r.interrupted, r.verification, r.verified, r.passed]), [[rep, 105, true, 'not verified', false, false]]);
    assert.deepEqual(agg.phases.map((p) => [p.phase, Object.keys(p.metrics)]), [['contention', ['docs_per_s', 'batch_p50_ms', 'batch_p90_ms', 'batch_p99_ms', 'batch_avg_ms']]]);
    assert.doesNotMatch(readFileSync(path.join(dir, id, 'report.html'), 'utf8'), /data-figure="mb_per_s"/);
  } finally {
    if (child.exitCode === null) { try { process.kill(-child.pid, 'SIGKILL'); } catch (_) { /* gone */ } }
  }
});
