// scripts/compare end to end: real runs on PostgreSQL and on the ArangoDB test endpoint, the
// E3-shaped table, the chart, re-comparing result folders, and refusing different workloads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot } from '../helpers/testserver.mjs';

const small = ['-e', 'DOCS=2000', '-e', 'BATCH_SIZE=250', '-e', 'OVERWRITE_BATCHES=4', '-e', 'MIXED_BATCHES=2'];
const pgScenario = 'scenarios/postgres/insert-vs-overwrite.js';
const arangoScenario = 'scenarios/arangodb/insert-vs-overwrite.js';

function compare(args, resultsDir) {
  const r = spawnSync(path.join(repoRoot, 'scripts', 'compare'), args, {
    cwd: repoRoot, encoding: 'utf8', timeout: 240000,
    env: { ...process.env, RESULTS_DIR: resultsDir, K6_NO_USAGE_REPORT: 'true' },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function tableRows(stdout) {
  return stdout.split('\n').filter((l) => /^(load|overwrite|mixed)\s+\|/.test(l)).map((l) => l.split('|').map((c) => c.trim()));
}

test('PostgreSQL vs PostgreSQL: E3-shaped table, chart, and the same figures again from the result folders', { timeout: 240000 }, () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-cmp-'));
  const r = compare([...small, '--label', 'A=pg-a', '--label', 'B=pg-b', '--out', path.join(dir, 'cmp1'), pgScenario, pgScenario], dir);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^phase\s+\| metric \|\s+A \|\s+B \|\s+A\/B$/m);
  const rows = tableRows(r.stdout);
  assert.deepEqual(rows.map((x) => `${x[0]} ${x[1]}`), ['load p50 ms', 'load p99 ms', 'load docs/s', 'overwrite p50 ms', 'overwrite p99 ms', 'overwrite docs/s', 'mixed p50 ms', 'mixed p99 ms', 'mixed docs/s']);
  const json = JSON.parse(readFileSync(path.join(dir, 'cmp1', 'compare.json'), 'utf8'));
  const [a, b] = json.runs;
  assert.deepEqual([a.label, b.label, a.test_endpoint, b.test_endpoint], ['pg-a', 'pg-b', false, false]);
  // The table is the summaries' figures, and A/B is their ratio.
  const sa = JSON.parse(readFileSync(path.join(a.source, 'summary.json'), 'utf8'));
  const sb = JSON.parse(readFileSync(path.join(b.source, 'summary.json'), 'utf8'));
  const load = rows[0];
  assert.equal(load[2], sa.phases[0].batch_ms.median.toFixed(1));
  assert.equal(load[3], sb.phases[0].batch_ms.median.toFixed(1));
  assert.equal(load[4], (sa.phases[0].batch_ms.median / sb.phases[0].batch_ms.median).toFixed(2));
  const svg = readFileSync(path.join(dir, 'cmp1', 'compare.svg'), 'utf8');
  assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  assert.equal((svg.match(/<rect x=/g) || []).length, 3 * 4 + 3 * 2 + 4, 'bars: 3 phases × (2 runs × p50,p99) + 3 × 2 docs/s, plus 2 + 2 legend swatches');
  // One colour per run across all groups (E3's charts): A's bars share one fill, B's another.
  const fills = (letter) => new Set([...svg.matchAll(/<rect x="[^"]*" y="[^"]*" width="[^"]*" height="[^"]*" fill="([^"]+)"><title>[^<]* · ([AB]): /g)].filter((m) => m[2] === letter).map((m) => m[1]));
  assert.equal(fills('A').size, 1); assert.equal(fills('B').size, 1);
  assert.notDeepEqual([...fills('A')], [...fills('B')]);

  // Existing result folders compare without running anything, with the same numbers.
  const again = compare(['--label', 'A=pg-a', '--label', 'B=pg-b', '--out', path.join(dir, 'cmp2'), a.source, b.source], dir);
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(tableRows(again.stdout), rows);
  assert.equal(readdirSync(dir).filter((f) => f.startsWith('cmp_')).length, 2, 'no new runs');
});

test('different workload settings are refused with one line naming them', { timeout: 240000 }, () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-cmp-'));
  const r = compare([...small, '-e', 'B:SEED=7', '-e', 'B:BATCH_SIZE=200', pgScenario, pgScenario], dir);
  assert.equal(r.code, 2, r.stdout);
  const last = r.stderr.trim().split('\n').pop();
  assert.equal(last, 'scripts/compare: refusing to compare runs with different workload settings: BATCH_SIZE A=250 B=200; SEED A=1 B=7');
  assert.equal(r.stdout, '');
  const bad = compare(['results/does-not-exist', pgScenario], dir);
  assert.equal(bad.code, 2);
  assert.equal(bad.stderr.trim(), 'scripts/compare: results/does-not-exist: neither a scenario file (*.js) nor a result folder with summary.json');
});

test('PostgreSQL vs the ArangoDB test endpoint: labelled TEST ENDPOINT everywhere', { timeout: 240000, skip: !existsSync(path.join(repoRoot, arangoScenario)) && 'no ArangoDB scenario yet' }, () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-cmp-'));
  const r = compare([...small, '--arango-testserver', '--out', path.join(dir, 'cmp'), pgScenario, arangoScenario], dir);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^A: postgres · postgres · /m);
  assert.match(r.stdout, /^B: arangodb \(TEST ENDPOINT\) · arangodb · TEST ENDPOINT: arangodb-testserver, .*\(it reports ArangoDB /m);
  assert.match(r.stdout, /^TEST ENDPOINT: an API test server of this project/m);
  assert.equal(tableRows(r.stdout).length, 9);
  assert.match(readFileSync(path.join(dir, 'cmp', 'compare.svg'), 'utf8'), /B: arangodb \(TEST ENDPOINT\)/);
  const json = JSON.parse(readFileSync(path.join(dir, 'cmp', 'compare.json'), 'utf8'));
  assert.equal(json.runs[1].test_endpoint, true);
  // The label travels with the result folder: the run itself recorded that a test server
  // answered (summary.json server.testEndpoint), with or without the compare marker file.
  assert.equal(JSON.parse(readFileSync(path.join(json.runs[1].source, 'summary.json'), 'utf8')).test_endpoint, true);
  rmSync(path.join(json.runs[1].source, 'TEST-ENDPOINT'), { force: true });
  const again = compare([json.runs[0].source, json.runs[1].source, '--out', path.join(dir, 'cmp2')], dir);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /^B: arangodb \(TEST ENDPOINT\)/m);
});

test('arangobench A/B: E3 table (Complexity | Requests | Concurrency | Time A | Time B | A/B, ops/s), its workload line, refusals', { timeout: 240000 }, () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-cmp-'));
  const e3 = 'scenarios/arangodb/arangobench.js';
  const knobs = ['-e', 'ARANGOBENCH_CASE=crud', '-e', 'REQUESTS=200', '-e', 'COMPLEXITY=20', '-e', 'VUS=2'];
  const r = compare([...knobs, '--arango-testserver', '--out', path.join(dir, 'e3'), e3, e3], dir);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^workload: arangobench case crud · complexity 20 · 200 operations · 2 VUs · seed 1 \(identical in every run\)$/m);
  const lines = r.stdout.split('\n');
  const at = lines.findIndex((l) => /^Complexity \| Requests \| Concurrency \| Time A \(s\) \| Time B \(s\) \|\s+A\/B \| ops\/s A \| ops\/s B$/.test(l));
  assert.ok(at >= 0, r.stdout);
  const cells = lines[at + 2].split('|').map((c) => c.trim());
  assert.deepEqual(cells.slice(0, 3), ['20', '200', '2']);
  const json = JSON.parse(readFileSync(path.join(dir, 'e3', 'compare.json'), 'utf8'));
  const [ta, tb] = [json.e3.time_s.A, json.e3.time_s.B];
  assert.ok(ta > 0 && tb > 0);
  assert.equal(cells[3], ta.toFixed(2));
  assert.equal(cells[5], (ta / tb).toFixed(2), 'A/B is the ratio of the total times');
  assert.equal(Math.round(json.e3.ops_per_s.A), Math.round(200 / ta), 'ops/s = requests / total time');
  for (const run of json.runs) {
    const s = JSON.parse(readFileSync(path.join(run.source, 'summary.json'), 'utf8'));
    assert.equal(s.e3.time_s, json.e3.time_s[run.letter], 'Time is the run\'s own E3 total time');
  }
  // Runs whose REQUESTS, COMPLEXITY or case differ are refused.
  const [a, b] = json.runs.map((x) => x.source);
  const other = compare(['-e', 'ARANGOBENCH_CASE=document', '-e', 'REQUESTS=100', '-e', 'COMPLEXITY=20', '-e', 'VUS=2', '--arango-testserver', '--out', path.join(dir, 'e3b'), e3, a], dir);
  assert.equal(other.code, 2, other.stdout);
  assert.equal(other.stderr.trim().split('\n').pop(), 'scripts/compare: refusing to compare runs with different workload settings: ARANGOBENCH_CASE A="document" B="crud"; REQUESTS A=100 B=200; ops A={"run":"document"} B={"run":"crud"}');
  assert.equal(compare([a, b, '--out', path.join(dir, 'e3c')], dir).code, 0, 'the same two folders compare again');
});

// The same E1 workload on all four targets: PostgreSQL and MongoDB for real, ArangoDB and
// RavenDB on the project's API test servers (labelled TEST ENDPOINT), one column each.
test('all four targets side by side: PostgreSQL, MongoDB, and the ArangoDB and RavenDB test endpoints', { timeout: 300000 }, () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-cmp-'));
  const scen = (db) => `scenarios/${db}/insert-vs-overwrite.js`;
  const r = compare([...small, '--arango-testserver', '--raven-testserver', '--out', path.join(dir, 'four'), scen('postgres'), scen('mongodb'), scen('arangodb'), scen('ravendb')], dir);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^phase\s+\| metric \|\s+A \|\s+B \|\s+C \|\s+D \|/m);
  assert.match(r.stdout, /^A: postgres · postgres · /m);
  assert.match(r.stdout, /^B: mongodb · mongodb · 6\.0\.5 \(MongoDB Community, standalone\)/m);
  assert.match(r.stdout, /^C: arangodb \(TEST ENDPOINT\)/m);
  assert.match(r.stdout, /^D: ravendb \(TEST ENDPOINT\)/m);
  assert.equal(tableRows(r.stdout).length, 9);
  const json = JSON.parse(readFileSync(path.join(dir, 'four', 'compare.json'), 'utf8'));
  assert.deepEqual(json.runs.map((x) => [x.target, x.test_endpoint]), [['postgres', false], ['mongodb', false], ['arangodb', true], ['ravendb', true]]);
  for (const run of json.runs) {
    const s = JSON.parse(readFileSync(path.join(run.source, 'summary.json'), 'utf8'));
    assert.equal(s.verification.ok, true, `${run.label}: verified`);
    assert.equal(s.verification.found, 2000 + 2 * 125, `${run.label}: the same documents on every target`);
  }
});
