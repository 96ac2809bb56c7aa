// The HTML report of a real run, rendered by headless Chromium: every phase shows with the
// figures of summary.json, the verdict and the charts are there. Chromium comes from
// `make test-deps-results` (a prerequisite of `make test`); this test installs nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { localEnv, runK6 } from '../helpers/k6.mjs';
import { repoRoot } from '../helpers/testserver.mjs';

const env = localEnv();
const chromium = process.env.CHROMIUM || 'chromium';

function dumpDom(file) {
  const profile = mkdtempSync(path.join(tmpdir(), 'k6wp-chromium-'));
  try {
    const r = spawnSync(chromium, ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', `--user-data-dir=${profile}`, '--dump-dom', `file://${file}`], { encoding: 'utf8', timeout: 60000 });
    if (r.error && r.error.code === 'ENOENT') throw new Error(`${chromium} is not installed: run "make test-deps-results" (make test does it)`);
    assert.equal(r.status, 0, `chromium failed: ${r.stderr}`);
    return r.stdout;
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}

function phaseRows(dom) {
  const rows = {};
  for (const m of dom.matchAll(/<tr data-phase="([^"]+)">(.*?)<\/tr>/gs)) {
    rows[m[1]] = [...m[2].matchAll(/<t[hd][^>]*>(.*?)<\/t[hd]>/g)].map((c) => c[1]);
  }
  return rows;
}

test('report.html of a passing run shows each phase with the figures of summary.json', { timeout: 180000 }, async () => {
  const r = await runK6('scenarios/postgres/insert-vs-overwrite.js', { PG_URL: env.PG_URL, DOCS: '3000', BATCH_SIZE: '300', OVERWRITE_BATCHES: '4', MIXED_BATCHES: '2' });
  assert.equal(r.code, 0, r.stderr);
  const file = path.join(r.dir, 'report.html');
  assert.ok(existsSync(file), 'report.html is in the result folder');
  const dom = dumpDom(file);
  const rows = phaseRows(dom);
  assert.deepEqual(Object.keys(rows), ['load', 'overwrite', 'mixed']);
  for (const p of r.summary.phases) {
    const [name, op, batches, ok, failed] = rows[p.phase];
    assert.deepEqual([name, op, Number(batches), Number(ok), Number(failed)], [p.phase, r.summary.ops[p.phase], p.batches, p.docs_ok, p.docs_failed]);
  }
  assert.match(dom, /id="verdict">PASSED: all \d+ thresholds passed/);
  assert.match(dom, /documents: expected 3300, found 3300 — OK/);
  assert.equal((dom.match(/<svg /g) || []).length, 2, 'latency and docs/s charts');
  assert.match(dom, /overwrite\/load<\/th>/);
  // The experiment's answer comes first, before the phase table and the charts, with its n.
  assert.ok(dom.indexOf('id="ratios"') < dom.indexOf('id="phases"') && dom.indexOf('id="ratios"') < dom.indexOf('<svg '), 'the answer first');
  assert.match(dom, /<th scope="row">overwrite\/load<\/th>(<td>[\d.]+×<\/td>){3}<td>overwrite 4, load 10<\/td>/);
});

test('report.html of a failing run says FAILED and names the failed documents', { timeout: 180000 }, async () => {
  const r = await runK6('scenarios/postgres/insert-vs-overwrite.js', { PG_URL: env.PG_URL, DOCS: '2000', BATCH_SIZE: '250', OVERWRITE_BATCHES: '2', MIXED_BATCHES: '2', MIXED_OP: 'insert' });
  assert.equal(r.code, 99, r.stderr);
  const dom = dumpDom(path.join(r.dir, 'report.html'));
  // The first line names the limit that failed and what was observed.
  // (the run-wide resolved check counts the same known failures: it fails beside the phase's limit)
  assert.match(dom, /id="verdict">FAILED: 2 of \d+ thresholds failed — writepath_docs_failed_known\{phase:mixed\} count&lt;=0 \(observed 500 documents\); writepath_docs_failed_resolved count&lt;=0 \(observed 500 documents\)<\/p>/);
  assert.match(dom, /mixed: 500 documents failed — unique_violation 500/);
  assert.equal(phaseRows(dom).mixed[4], '500');
});

test('scripts/run WEB_DASHBOARD=1 exports k6\'s web dashboard next to report.html; a bad value is one line', { timeout: 180000 }, () => {
  const resultsDir = mkdtempSync(path.join(tmpdir(), 'k6wp-wd-'));
  const runId = `wd${process.pid}_${Date.now().toString(36)}`;
  // Long enough for k6 to keep the export (it skips runs shorter than ~3 sampling periods).
  const r = spawnSync(path.join(repoRoot, 'scripts', 'run'),
    // Given with -e, like every knob (the environment works too: the bad value below).
    ['scenarios/postgres/insert-vs-overwrite.js', '-q', '-e', 'DOCS=150000', '-e', 'OVERWRITE_BATCHES=40', '-e', `RUN_ID=${runId}`,
      '-e', 'WEB_DASHBOARD=1', '--env', 'WEB_DASHBOARD_PERIOD=1s', '-e', 'WP_INFLUX=0'],
    { cwd: repoRoot, encoding: 'utf8', timeout: 170000,
      env: { ...process.env, RESULTS_DIR: resultsDir, WEB_DASHBOARD: '0', PG_URL: env.PG_URL, K6_NO_USAGE_REPORT: 'true' } });
  assert.equal(r.status, 0, r.stderr);
  const exported = path.join(resultsDir, runId, 'k6-dashboard.html');
  assert.ok(existsSync(exported), `k6-dashboard.html exported: ${r.stderr.slice(-500)}`);
  assert.ok(existsSync(path.join(resultsDir, runId, 'report.html')));
  const bad = spawnSync(path.join(repoRoot, 'scripts', 'run'), ['scenarios/postgres/insert-vs-overwrite.js'],
    { cwd: repoRoot, encoding: 'utf8', env: { ...process.env, RESULTS_DIR: resultsDir, WEB_DASHBOARD: 'maybe' } });
  assert.equal(bad.status, 107, 'bad input');
  assert.equal(bad.stderr.trim(), 'scripts/run: WEB_DASHBOARD="maybe" is not allowed: one of 1, 0, true, false');
  const badE = spawnSync(path.join(repoRoot, 'scripts', 'run'), ['scenarios/postgres/insert-vs-overwrite.js', '-e', 'WEB_DASHBOARD=maybe'],
    { cwd: repoRoot, encoding: 'utf8', env: { ...process.env, RESULTS_DIR: resultsDir, WEB_DASHBOARD: '1' } });
  assert.equal(badE.status, 107, '-e wins over the environment');
  assert.equal(badE.stderr.trim(), 'scripts/run: WEB_DASHBOARD="maybe" is not allowed: one of 1, 0, true, false');
});
