// scripts/run and scripts/compare take every knob both ways, `-e KNOB=value` (wins) and the
// environment; the k6-reporter path works offline with a local module (K6_REPORTER_URL=file:///…);
// every exit path leaves junit.xml saying why (bad input 107 before k6 starts or inside k6, abort
// 108 in setup, failed thresholds 99 with the observed value).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { localEnv } from '../helpers/k6.mjs';
import { repoRoot } from '../helpers/testserver.mjs';

const env = localEnv();
const scenario = 'scenarios/postgres/insert-vs-overwrite.js';
const small = ['-e', 'DOCS=2000', '-e', 'BATCH_SIZE=500', '-e', 'OVERWRITE_BATCHES=2', '-e', 'MIXED_BATCHES=2'];
let n = 0;
const runId = (p) => `${p}${process.pid}_${Date.now().toString(36)}_${++n}`.slice(0, 32);

function run(args, extraEnv = {}, script = 'run') {
  const r = spawnSync(path.join(repoRoot, 'scripts', script), args, {
    cwd: repoRoot, encoding: 'utf8', timeout: 170000,
    env: { ...process.env, PG_URL: env.PG_URL, WP_INFLUX: '0', K6_NO_USAGE_REPORT: 'true', ...extraEnv },
  });
  return r;
}
const file = (dir, f) => (existsSync(path.join(dir, f)) ? readFileSync(path.join(dir, f), 'utf8') : null);
const unxml = (s) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');
const cases = (xml) => [...xml.matchAll(/<testcase classname="([^"]*)" name="([^"]*)"(?:\/>|><failure message="([^"]*)"\/><\/testcase>)/g)]
  .map((m) => ({ classname: unxml(m[1]), name: unxml(m[2]), failure: m[3] === undefined ? null : unxml(m[3]) }));
function counts(xml) {
  const m = /<testsuites tests="(\d+)" failures="(\d+)">/.exec(xml);
  return { tests: Number(m[1]), failures: Number(m[2]) };
}

test('RESULTS_DIR given with -e: scripts/run puts the run folder where k6 writes (not in the default results/)', { timeout: 180000 }, () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-knobs-'));
  const id = runId('rd');
  const r = run([scenario, '-q', ...small, '-e', `RESULTS_DIR=${dir}`, '-e', `RUN_ID=${id}`], { RESULTS_DIR: 'results' });
  assert.equal(r.status, 0, r.stderr);
  assert.ok(file(path.join(dir, id), 'summary.json'), 'summary.json in RESULTS_DIR from -e');
  assert.ok(!existsSync(path.join(repoRoot, 'results', id)), 'no empty folder left in results/');
  assert.equal(readFileSync(path.join(dir, 'latest', 'summary.json'), 'utf8'), file(path.join(dir, id), 'summary.json'));
  // scripts/compare too: its output folder follows -e RESULTS_DIR, not the environment.
  const cmpDir = mkdtempSync(path.join(tmpdir(), 'k6wp-knobs-cmp-'));
  const c = run(['-e', `RESULTS_DIR=${cmpDir}`, path.join(dir, id), path.join(dir, id)], { RESULTS_DIR: 'results' }, 'compare');
  assert.equal(c.status, 0, c.stderr);
  const made = readdirSync(cmpDir);
  assert.equal(made.length, 1); assert.match(made[0], /^cmp_\d{14}_[0-9a-f]{4}$/);
  assert.ok(existsSync(path.join(cmpDir, made[0], 'compare.txt')));
  assert.match(c.stdout, new RegExp(`chart: ${cmpDir}/cmp_`));
});

test('HTML_REPORTER=k6-reporter with a local module (file:///): -e and the environment both work; all-zero metrics are left out', { timeout: 240000 }, () => {
  const standin = `file://${path.join(repoRoot, 'test/integration/fixtures/k6-reporter-standin.js')}`;
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-rep-'));
  const viaE = runId('repe');
  const a = run([scenario, '-q', ...small, '-e', 'HTML_REPORTER=k6-reporter', '-e', `K6_REPORTER_URL=${standin}`, '-e', `RUN_ID=${viaE}`], { RESULTS_DIR: dir });
  assert.equal(a.status, 0, a.stderr);
  const viaEnv = runId('repv');
  const b = run([scenario, '-q', ...small, '-e', `RUN_ID=${viaEnv}`], { RESULTS_DIR: dir, HTML_REPORTER: 'k6-reporter', K6_REPORTER_URL: standin });
  assert.equal(b.status, 0, b.stderr);
  for (const id of [viaE, viaEnv]) {
    const html = file(path.join(dir, id), 'k6-reporter.html');
    assert.ok(html, `${id}: k6-reporter.html written`);
    assert.ok(file(path.join(dir, id), 'report.html'), 'the builtin report stays');
    assert.match(html, new RegExp(`<title>k6-writepath ${id}</title>`));
    const metrics = [...html.matchAll(/data-metric="([^"]+)"/g)].map((m) => m[1]);
    assert.ok(metrics.includes('writepath_batch_duration{phase:load}'), 'per-phase latency shown');
    assert.ok(metrics.includes('writepath_docs_ok{phase:overwrite}'));
    // Nothing failed: the per-reason sub-metrics (all zero, no threshold) are not shown.
    assert.deepEqual(metrics.filter((m) => /reason:/.test(m)), [], 'all-zero per-reason rows left out');
    for (const row of html.matchAll(/data-metric="([^"]+)"><td>[^<]*<\/td><td>([^<]*)<\/td>/g)) {
      const values = Object.values(JSON.parse(row[2]));
      const summary = JSON.parse(file(path.join(dir, id), 'summary.json'));
      const thresholded = summary.thresholds.some((t) => t.metric === row[1]);
      assert.ok(thresholded || values.some((v) => v !== 0), `${row[1]}: an all-zero row without a threshold is shown`);
    }
  }
  // Not importable by k6 (http://, a relative path): one line, exit 107, junit.xml says so.
  const bad = runId('repb');
  const c = run([scenario, '-e', 'HTML_REPORTER=k6-reporter', '-e', 'K6_REPORTER_URL=http://example.org/bundle.js', '-e', `RUN_ID=${bad}`], { RESULTS_DIR: dir });
  assert.equal(c.status, 107);
  assert.match(c.stderr.trim(), /^scripts\/run: K6_REPORTER_URL="http:\/\/example.org\/bundle.js" is not allowed: an https:\/\/ or file:\/\/\/ URL/);
  assert.equal(c.stderr.trim().split('\n').length, 1);
  assert.match(file(path.join(dir, bad), 'junit.xml'), /K6_REPORTER_URL=&quot;http:\/\/example.org\/bundle.js&quot; is not allowed/);
  // A missing local copy: warned, the run goes on with the builtin report.
  const missing = runId('repm');
  const d = run([scenario, '-q', ...small, '-e', 'HTML_REPORTER=k6-reporter', '-e', 'K6_REPORTER_URL=file:///nonexistent/bundle.js', '-e', `RUN_ID=${missing}`], { RESULTS_DIR: dir });
  assert.equal(d.status, 0, d.stderr);
  assert.match(d.stderr, /file:\/\/\/nonexistent\/bundle.js cannot be had/);
  assert.ok(file(path.join(dir, missing), 'report.html'));
  assert.equal(file(path.join(dir, missing), 'k6-reporter.html'), null);
});

test('bad input inside k6 (exit 107, before handleSummary): junit.xml holds one failing case naming the knob', { timeout: 60000 }, () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-bad-'));
  const id = runId('bad');
  const r = run([scenario, '-e', 'DOCS=12abc', '-e', `RUN_ID=${id}`], { RESULTS_DIR: dir });
  assert.equal(r.status, 107, r.stderr);
  const xml = file(path.join(dir, id), 'junit.xml');
  assert.ok(xml, 'junit.xml written');
  assert.deepEqual(counts(xml), { tests: 1, failures: 1 });
  const [c] = cases(xml);
  assert.equal(c.classname, 'postgres.insert-vs-overwrite');
  assert.equal(c.name, 'k6 exit code 107');
  assert.match(c.failure, /^bad input: the run was refused before anything was written: k6-writepath: DOCS="12abc" is not allowed: a whole number from 1 to/);
  assert.equal(readdirSync(path.join(dir, id)).sort().join(','), 'junit.xml', 'nothing else (no k6 stderr copy) is left');
});

test('abort during setup (exit 108, database unreachable): junit.xml from handleSummary plus the reason', { timeout: 60000 }, async () => {
  const port = await new Promise((resolve) => { const s = net.createServer().listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); }); });
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-abort-'));
  const id = runId('ab');
  const r = run([scenario, '-e', `RUN_ID=${id}`], { RESULTS_DIR: dir, PG_URL: `postgres://u:s3cret@127.0.0.1:${port}/x?sslmode=disable&connect_timeout=2` });
  assert.equal(r.status, 108, r.stderr);
  const xml = file(path.join(dir, id), 'junit.xml');
  assert.ok(xml);
  assert.equal(xml.includes('s3cret'), false, 'no secret in junit.xml');
  const all = cases(xml);
  const exit = all.find((c) => c.name === 'k6 exit code 108');
  assert.ok(exit, xml);
  assert.match(exit.failure, /^aborted: .*PG_URL: cannot reach PostgreSQL/);
  assert.deepEqual(counts(xml), { tests: all.length, failures: all.filter((c) => c.failure).length });
});

test('a failed threshold shows the observed value in junit.xml and report.html', { timeout: 180000 }, () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-thr-'));
  const id = runId('thr');
  const r = run([scenario, '-q', ...small, '-e', 'MIXED_OP=insert', '-e', `RUN_ID=${id}`], { RESULTS_DIR: dir });
  assert.equal(r.status, 99, r.stderr);
  const xml = file(path.join(dir, id), 'junit.xml');
  const failed = cases(xml).filter((c) => c.failure);
  const docs = failed.find((c) => c.name === 'writepath_docs_failed_known{phase:mixed} count<=0');
  assert.ok(docs, xml);
  assert.equal(docs.failure, 'threshold crossed: writepath_docs_failed_known{phase:mixed} count<=0 (observed 1000 documents)');
  assert.ok(!cases(xml).some((c) => /^k6 exit code/.test(c.name)), 'exit 99 is explained by the threshold cases themselves');
  const html = file(path.join(dir, id), 'report.html');
  assert.match(html, /<tr class="bad"><td>writepath_docs_failed_known\{phase:mixed\}<\/td><td>count&lt;=0<\/td><td>1000.000 documents<\/td><td>FAILED<\/td><\/tr>/);
});

test('scripts/run refuses its own bad knobs with one line and exit 107, from -e or the environment', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-own-'));
  const id = runId('own');
  const r1 = run([scenario, '-e', 'WP_INFLUX=maybe', '-e', `RUN_ID=${id}`], { RESULTS_DIR: dir });
  assert.equal(r1.status, 107);
  assert.equal(r1.stderr.trim(), 'scripts/run: WP_INFLUX="maybe" is not allowed: one of 1, 0, true, false');
  assert.equal(cases(file(path.join(dir, id), 'junit.xml'))[0].failure, 'bad input: the run was refused before anything was written: WP_INFLUX="maybe" is not allowed: one of 1, 0, true, false');
  const r2 = run([scenario, '-e', 'RUN_ID=Bad-Id'], { RESULTS_DIR: dir });
  assert.equal(r2.status, 107);
  assert.equal(r2.stderr.trim(), 'scripts/run: RUN_ID="Bad-Id" is not allowed: 1-32 characters a-z 0-9 _ (starting with a letter or digit)');
  const r3 = run([scenario], { RUN_ID: 'Bad-Id', RESULTS_DIR: dir });
  assert.equal(r3.status, 107);
});

test('scripts/run reads the targets\' declared knobs as k6 does: a misspelt target knob is refused (107, value not shown), a declared one reaches the run', { timeout: 180000 }, () => {
  // A misspelling of PG_INDEXES (lib/targets/postgres/postgres-knobs.js), given with -e and from the environment.
  for (const [args, extra] of [[['-e', 'PG_INDEXE=Canary-77'], {}], [[], { PG_INDEXE: 'Canary-77' }]]) {
    const r = run([scenario, '-q', ...small, ...args], extra);
    assert.equal(r.status, 107, r.stdout + r.stderr);
    assert.match(r.stdout + r.stderr, /PG_INDEXE is not a knob of k6-writepath: did you mean PG_INDEXES\?/);
    assert.ok(!(r.stdout + r.stderr).includes('Canary-77'));
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-knobs-'));
  const id = runId('pi');
  const ok = run([scenario, '-q', ...small, '-e', 'PG_INDEXES=2', '-e', `RESULTS_DIR=${dir}`, '-e', `RUN_ID=${id}`]);
  assert.equal(ok.status, 0, ok.stdout + ok.stderr);
  const summary = JSON.parse(file(path.join(dir, id), 'summary.json'));
  assert.equal(summary.config.PG_INDEXES, 2);
  assert.equal(summary.server.settings.PG_INDEXES, 'f0+f1', 'read back from the table');
  // k6 never carries the database URL (the gateway does); its token is hidden like every secret.
  assert.equal(summary.config.PG_URL, undefined);
  assert.match(summary.config.GATEWAY_URL, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal(summary.config.WP_GATEWAY_TOKEN, '(set, not shown)');
});
