// The regression gate end to end (scripts/compare --gate): real runs against two ArangoDB API
// test servers, one with a far larger injected latency (a regression the gate must report:
// exit 99, a failing JUnit case per gated figure); the same baseline folders against
// themselves (identical sets: exit 0); a stored baseline whose spread cannot show the
// tolerance refused with one line before any run (exit 107). Correctness only: the figures
// asserted are the gate's own reading of the runs, never a speed. The candidate's injected
// 500 ms per request is far above what a busy machine adds to a 10 ms answer (tenths of a
// second at load 16 on 2 cores), so every candidate run is slower than every baseline run on
// any machine, and the gate's p is the smallest one of 5 + 5 runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot, startTestServer } from '../helpers/testserver.mjs';

const scenario = 'scenarios/arangodb/insert-vs-overwrite.js';
const small = ['-e', 'DOCS=1000', '-e', 'BATCH_SIZE=100', '-e', 'OVERWRITE_BATCHES=5', '-e', 'MIXED_BATCHES=5', '-e', 'WP_INFLUX=0', '-e', 'READBACK=50'];
const compare = (args) => spawnSync(path.join(repoRoot, 'scripts', 'compare'), args, { cwd: repoRoot, encoding: 'utf8', timeout: 400000, env: { ...process.env, K6_NO_USAGE_REPORT: 'true' } });
const readJson = (f) => JSON.parse(readFileSync(f, 'utf8'));
const cases = (xml) => [...xml.matchAll(/<testcase classname="k6-writepath.gate" name="([^"]*)">(?:<failure message="([^"]*)"\/>|<system-out>([^<]*)<\/system-out>)<\/testcase>/g)].map((m) => ({ name: m[1], failure: m[2] || null, out: m[3] || null }));

test('a slower candidate (10 ms vs 500 ms per request) fails the gate: exit 99, one JUnit case per gated figure; the baseline against itself passes', { timeout: 600000 }, async () => {
  const fast = await startTestServer('arangodb', ['-no-auth', '-latency-ms', '10']);
  const slow = await startTestServer('arangodb', ['-no-auth', '-latency-ms', '500']);
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-gate-'));
  try {
    const r = compare([...small, '-e', `A:ARANGO_URL=${fast.url}`, '-e', `B:ARANGO_URL=${slow.url}`, '--gate', '--baseline', scenario, '--repeat', '5',
      '--metrics', 'docs/s,p50', '--max-regression', '50%', '--out', path.join(dir, 'g1'), scenario]);
    assert.equal(r.status, 99, `${r.stdout}\n${r.stderr}`);
    const gate = readJson(path.join(dir, 'g1', 'gate.json'));
    assert.equal(gate.design, 'unpaired');
    assert.equal(gate.k, 6, 'docs/s and p50 of three phases');
    assert.deepEqual(gate.order, ['A#1', 'B#2', 'B#3', 'A#4', 'A#5', 'B#6', 'B#7', 'A#8', 'A#9', 'B#10']);
    for (const row of gate.rows) {
      assert.equal(row.verdict, 'REGRESSION', `${row.phase} ${row.label}`);
      assert.equal(row.p, 1 / 252, 'every candidate run worse than every baseline run: the smallest one-sided p of 5 + 5');
      assert.ok(row.p_adjusted < 0.05 && row.p_adjusted >= row.p);
      assert.ok(row.regression > 0.5 && row.ci.lo > 0.5, 'the whole interval beyond the tolerance');
    }
    // Both servers are test doubles: every output says so.
    assert.match(r.stdout, /^TEST ENDPOINT: an API test server of this project/m);
    assert.match(r.stdout, /^verdict: FAILED \(exit 99\): regression beyond the tolerance: load docs\/s -\d/m);
    const junit = readFileSync(path.join(dir, 'g1', 'junit.xml'), 'utf8');
    assert.match(junit, /<testsuite name="k6-writepath gate TEST ENDPOINT arangodb insert-vs-overwrite" tests="8" failures="6">/);
    const cs = cases(junit);
    assert.deepEqual(cs.map((c) => c.name), ['load docs/s', 'load p50 ms', 'overwrite docs/s', 'overwrite p50 ms', 'mixed docs/s', 'mixed p50 ms'].map((f) => `${f}: regression at most 50 %`)
      .concat(['baseline runs: thresholds and verification (5 runs)', 'candidate runs: thresholds and verification (5 runs)']));
    for (const c of cs.slice(0, 6)) assert.match(c.failure, /^REGRESSION: delta [+-][\d.]+ %; 90 % CI of the regression [\d.]+ % … [\d.]+ %; p 0\.0040 \(adjusted over 6 figures 0\.0\d+\); detects ≥ [\d.]+ % \(90 %\); verdict REGRESSION$/);
    assert.equal(cs[6].failure, null); assert.equal(cs[7].failure, null);

    // The workflow keeps a passing main build's counted candidate runs as the next stored
    // baseline by a glob over the run folders' names: it selects exactly side B's 5 counted runs.
    const wf = readFileSync(path.join(repoRoot, '.github', 'workflows', 'k6-writepath.yml'), 'utf8');
    const glob = /for d in results\/gate\/(\S+); do cp -r/.exec(wf)[1];
    const re = new RegExp(`^${glob.replace(/\*/g, '.*').replace(/\[0-9\]/g, '\\d')}$`);
    assert.deepEqual(readdirSync(path.join(dir, 'g1')).filter((f) => re.test(f)).sort(), gate.sides[1].runs.map((x) => path.basename(x.source)).sort());
    // The baseline's own runs as baseline and candidate (identical sets): nothing to report, exit 0.
    const baseRuns = gate.sides[0].runs.map((x) => x.source).join(',');
    const same = compare(['--gate', '--baseline', baseRuns, '--metrics', 'docs/s,p50', '--max-regression', '500%', '--out', path.join(dir, 'g2'), baseRuns]);
    assert.equal(same.status, 0, `${same.stdout}\n${same.stderr}`);
    const g2 = readJson(path.join(dir, 'g2', 'gate.json'));
    for (const row of g2.rows) assert.deepEqual([row.verdict, row.delta], ['ok', 0]);
    assert.equal(cases(readFileSync(path.join(dir, 'g2', 'junit.xml'), 'utf8')).filter((c) => c.failure).length, 0);
    assert.equal(readdirSync(path.join(dir, 'g2')).filter((f) => f.startsWith('gate_')).length, 0, 'folders only: no run made');
  } finally {
    await fast.stop(); await slow.stop();
  }
});

test('a stored baseline whose spread cannot show the tolerance is refused with one line before any run (exit 107)', { timeout: 300000 }, async () => {
  const srv = await startTestServer('arangodb', ['-no-auth']);
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-gate-'));
  try {
    // Five baseline runs, made now; then their docs/s spread far apart by hand (a stored
    // baseline from a noisy machine).
    const r = compare([...small, '-e', `ARANGO_URL=${srv.url}`, '--repeat', '5', '--out', path.join(dir, 'c'), scenario, scenario]);
    assert.equal(r.status, 0, r.stderr);
    const runs = readJson(path.join(dir, 'c', 'compare.json')).sides[0].runs.map((x) => x.source);
    const stored = runs.map((src, i) => {
      const to = path.join(dir, 'stored', path.basename(src));
      cpSync(src, to, { recursive: true });
      const s = readJson(path.join(to, 'summary.json'));
      for (const p of s.phases) p.docs_per_s *= [1, 2, 0.5, 1.6, 0.7][i];
      writeFileSync(path.join(to, 'summary.json'), JSON.stringify(s));
      return to;
    });
    const refused = compare([...small, '-e', `ARANGO_URL=${srv.url}`, '--gate', '--baseline', stored.join(','), '--repeat', '5', '--metrics', 'docs/s', '--max-regression', '10%', '--out', path.join(dir, 'g'), scenario]);
    assert.equal(refused.status, 107, refused.stdout);
    const lines = refused.stderr.trim().split('\n');
    assert.equal(lines.length, 1, refused.stderr);
    assert.match(lines[0], /^scripts\/compare: --max-regression is not allowed for this gate: with 5 baseline runs of the measured spread and 5 candidate runs, load docs\/s detects ≥ \d+ % but is allowed 10 %; overwrite docs\/s detects/);
    assert.ok(!existsSync(path.join(dir, 'g')), 'nothing ran, nothing written');
    // Too few runs for the figures: refused whatever the spread.
    const few = compare(['--gate', '--baseline', stored.slice(0, 2).join(','), '--max-regression', '10%', '--out', path.join(dir, 'g3'), stored.slice(2, 4).join(',')]);
    assert.equal(few.status, 107);
    assert.match(few.stderr, /^scripts\/compare: --repeat 1 is not allowed for this gate: 2 baseline and 2 candidate runs cannot reach significance at α = 0\.05 \(the smallest p-value is 1\/C\(4,2\)\)/);
  } finally {
    await srv.stop();
  }
});
