// REPEAT=N through scripts/run on the real PostgreSQL: each repetition a run of its own (own
// RUN_ID, table and folder), the aggregate folder exact (summary.json, summary.txt, junit.xml,
// report.html), and bad REPEAT values refused with one line before anything runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { summarize } from '../../scripts/lib/stats.mjs';
import { uniqueRunId } from '../helpers/k6.mjs';
import { repoRoot } from '../helpers/testserver.mjs';

const scenario = 'scenarios/postgres/insert-vs-overwrite.js';
const small = ['-e', 'DOCS=2000', '-e', 'BATCH_SIZE=250', '-e', 'OVERWRITE_BATCHES=4', '-e', 'MIXED_BATCHES=2', '-e', 'WP_INFLUX=0'];
const run = (args, env = {}) => spawnSync(path.join(repoRoot, 'scripts', 'run'), [scenario, '-q', ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 240000, env: { ...process.env, K6_NO_USAGE_REPORT: 'true', ...env } });
const readJson = (f) => JSON.parse(readFileSync(f, 'utf8'));

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
