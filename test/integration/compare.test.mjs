// scripts/compare end to end: real runs on PostgreSQL and on the ArangoDB test endpoint, the
// E3-shaped table, the chart, re-comparing result folders, and refusing different workloads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot } from '../helpers/testserver.mjs';
import { contrast } from '../../scripts/lib/verdict.mjs';
import { sideDifferences } from '../../scripts/compare.mjs';
import { freePort } from '../../scripts/lib/kit.mjs';

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
  return stdout.split('\n').filter((l) => /^(load|overwrite|mixed|run)\s+\|/.test(l)).map((l) => l.split('|').map((c) => c.trim()));
}
const values = (summaries, phase, get) => summaries.map((s) => get(s.phases.find((p) => p.phase === phase)));
const readJson = (f) => JSON.parse(readFileSync(f, 'utf8'));

test('PostgreSQL vs PostgreSQL, 2 runs each, interleaved: medians with n, delta and p from the runs, every run in the chart; the same again from the folders', { timeout: 300000 }, () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-cmp-'));
  const r = compare([...small, '--repeat', '2', '--label', 'A=pg-a', '--label', 'B=pg-b', '--out', path.join(dir, 'cmp1'), pgScenario, pgScenario], dir);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^phase\s+\| figure \| A median \(n\) \| B median \(n\) \|\s+delta B \(HL\) \|\s+95 % CI \|\s+p \|$/m);
  const rows = tableRows(r.stdout);
  assert.deepEqual(rows.map((x) => `${x[0]} ${x[1]}`), ['load', 'overwrite', 'mixed'].flatMap((p) => ['docs/s', 'MB/s', 'p50 ms', 'p90 ms', 'p99 ms', 'avg ms'].map((f) => `${p} ${f}`)));
  const json = readJson(path.join(dir, 'cmp1', 'compare.json'));
  assert.deepEqual(json.order, ['A#1', 'B#2', 'B#3', 'A#4'], 'interleaved and counterbalanced: A B B A');
  const [a, b] = json.sides;
  assert.deepEqual([a.label, b.label, a.runs.length, b.runs.length, a.made_now], ['pg-a', 'pg-b', 2, 2, true]);
  for (const run of [...a.runs, ...b.runs]) assert.ok(run.source.startsWith(path.join(dir, 'cmp1')), 'runs made now live in the comparison\'s folder');
  // Every cell comes from the runs' own summaries.
  const sa = a.runs.map((x) => readJson(path.join(x.source, 'summary.json')));
  const sb = b.runs.map((x) => readJson(path.join(x.source, 'summary.json')));
  const va = values(sa, 'overwrite', (p) => p.docs_per_s); const vb = values(sb, 'overwrite', (p) => p.docs_per_s);
  const row = rows.find((x) => x[0] === 'overwrite' && x[1] === 'docs/s');
  assert.equal(row[2], `${((va[0] + va[1]) / 2).toFixed(0)} (2)`);
  assert.equal(row[3], `${((vb[0] + vb[1]) / 2).toFixed(0)} (2)`);
  const c = contrast(va, vb);
  assert.equal(row[4], `${c.delta >= 0 ? '+' : ''}${(c.delta * 100).toFixed(1)} %`);
  assert.equal(row[6], c.p.toFixed(3));
  assert.equal(row[5], '-', '2 + 2 runs: no 95 % interval');
  assert.equal(row[7], '~', '2 + 2 runs can never be significant');
  assert.match(r.stdout, /with 2 \+ 2 runs the smallest possible p-value is 0\.333: no difference between A and B can be significant at α = 0\.05/);
  // The chart shows every run: one spread mark per phase and side in each of its three charts, a dot per run.
  const svg = readFileSync(path.join(dir, 'cmp1', 'compare.svg'), 'utf8');
  assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  assert.equal((svg.match(/<g class="spread">/g) || []).length, 3 * 3 * 2);
  assert.equal((svg.match(/<circle class="run"/g) || []).length, 3 * 3 * 2 * 2);
  assert.match(svg, /A: pg-a \(n=2\)/);

  // Existing result folders (several per side, joined with commas) compare without running anything, with the same numbers.
  const again = compare(['--label', 'A=pg-a', '--label', 'B=pg-b', '--out', path.join(dir, 'cmp2'), a.runs.map((x) => x.source).join(','), b.runs.map((x) => x.source).join(',')], dir);
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(tableRows(again.stdout), rows);
  assert.equal(readdirSync(dir).filter((f) => f.startsWith('cmp_')).length, 0, 'no new runs');
  assert.deepEqual(readdirSync(path.join(dir, 'cmp2')).sort(), ['compare.json', 'compare.svg', 'compare.txt']);
});

test('different workload settings are refused with one line naming them (exit 107)', { timeout: 240000 }, () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-cmp-'));
  const r = compare([...small, '-e', 'B:SEED=7', '-e', 'B:BATCH_SIZE=200', pgScenario, pgScenario], dir);
  assert.equal(r.code, 107, r.stdout);
  const last = r.stderr.trim().split('\n').pop();
  // A workload knob for one side only is refused before either side runs.
  assert.equal(last, 'scripts/compare: -e B:SEED=7 is not allowed: SEED sets the workload, and runs of different workloads are not compared; give it to every run (-e SEED=7), or compare target settings (-e B:PG_SYNC_COMMIT=off …)');
  assert.equal(r.stdout, '');
  const bad = compare(['results/does-not-exist', pgScenario], dir);
  assert.equal(bad.code, 107);
  assert.equal(bad.stderr.trim(), 'scripts/compare: results/does-not-exist: neither a scenario file (*.js) nor a result folder with summary.json');
});

test('PostgreSQL vs the ArangoDB test endpoint: labelled TEST ENDPOINT everywhere', { timeout: 240000, skip: !existsSync(path.join(repoRoot, arangoScenario)) && 'no ArangoDB scenario yet' }, () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-cmp-'));
  const r = compare([...small, '--arango-testserver', '--out', path.join(dir, 'cmp'), pgScenario, arangoScenario], dir);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^A: postgres · postgres · /m);
  assert.match(r.stdout, /^B: arangodb \(TEST ENDPOINT\) · arangodb · TEST ENDPOINT: arangodb-testserver, .*\(it reports ArangoDB /m);
  assert.match(r.stdout, /^TEST ENDPOINT: an API test server of this project/m);
  const rows = tableRows(r.stdout);
  assert.equal(rows.length, 18);
  for (const row of rows) assert.deepEqual(row.slice(5), ['-', '-', 'n=1: no significance'], 'one run per side: a delta, no test');
  assert.match(r.stdout, /^n=1: one run per side says nothing about significance/m);
  assert.match(readFileSync(path.join(dir, 'cmp', 'compare.svg'), 'utf8'), /B: arangodb \(TEST ENDPOINT\) \(n=1\)/);
  const json = JSON.parse(readFileSync(path.join(dir, 'cmp', 'compare.json'), 'utf8'));
  json.runs = json.sides.map((x) => ({ ...x, source: x.runs[0].source }));
  assert.equal(json.runs[1].test_endpoint, true);
  // The label travels with the result folder: the run itself recorded that a test server
  // answered (summary.json server.testEndpoint), with or without the compare marker file.
  assert.equal(JSON.parse(readFileSync(path.join(json.runs[1].source, 'summary.json'), 'utf8')).test_endpoint, true);
  rmSync(path.join(json.runs[1].source, 'TEST-ENDPOINT'), { force: true });
  const again = compare([json.runs[0].source, json.runs[1].source, '--out', path.join(dir, 'cmp2')], dir);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /^B: arangodb \(TEST ENDPOINT\)/m);
});

test('arangobench A/B, 3 runs each: E3 table (Complexity | Requests | Concurrency | Time A | Time B | A/B) with medians and n, the test, refusals', { timeout: 300000 }, () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-cmp-'));
  const e3 = 'scenarios/arangodb/arangobench.js';
  const knobs = ['-e', 'ARANGOBENCH_CASE=crud', '-e', 'REQUESTS=200', '-e', 'COMPLEXITY=20', '-e', 'VUS=2'];
  const r = compare([...knobs, '--repeat', '3', '--arango-testserver', '--out', path.join(dir, 'e3'), e3, e3], dir);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^workload: arangobench case crud · complexity 20 · 200 operations · 2 VUs · seed 1 \(identical in every run\)$/m);
  const lines = r.stdout.split('\n');
  const at = lines.findIndex((l) => /^Complexity \| Requests \| Concurrency \|\s+Time A \(s\) \|\s+Time B \(s\) \|\s+A\/B \|\s+delta B \(HL\) \|\s+95 % CI \|\s+p \|\s+\|\s+ops\/s A \|\s+ops\/s B$/.test(l));
  assert.ok(at >= 0, r.stdout);
  const cells = lines[at + 2].split('|').map((c) => c.trim());
  assert.deepEqual(cells.slice(0, 3), ['20', '200', '2']);
  const json = readJson(path.join(dir, 'e3', 'compare.json'));
  const times = json.sides.map((x) => x.runs.map((run) => readJson(path.join(run.source, 'summary.json')).e3.time_s));
  const med = (v) => [...v].sort((p, q) => p - q)[1];
  assert.equal(cells[3], `${med(times[0]).toFixed(2)} (n=3)`, 'Time A: the median of the three runs\' own E3 total times');
  assert.equal(cells[4], `${med(times[1]).toFixed(2)} (n=3)`);
  assert.equal(cells[5], (med(times[0]) / med(times[1])).toFixed(2), 'A/B is the ratio of the median total times');
  const c = contrast(times[0], times[1]);
  assert.equal(cells[6], `${c.delta >= 0 ? '+' : ''}${(c.delta * 100).toFixed(1)} %`, 'delta: the Hodges–Lehmann ratio of the total times');
  assert.equal(cells[7], '-', '3 + 3 runs: no 95 % interval');
  assert.equal(cells[8], c.p.toFixed(3), 'p: exact Mann–Whitney of the total times');
  assert.equal(cells[9], c.significant ? (c.delta > 0 ? 'B slower' : 'B faster') : '~');
  // Runs whose REQUESTS, COMPLEXITY or case differ are refused.
  const a = json.sides[0].runs[0].source; const b = json.sides[1].runs[0].source;
  const other = compare(['-e', 'ARANGOBENCH_CASE=document', '-e', 'REQUESTS=100', '-e', 'COMPLEXITY=20', '-e', 'VUS=2', '--arango-testserver', '--out', path.join(dir, 'e3b'), e3, a], dir);
  assert.equal(other.code, 107, other.stdout);
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
  assert.match(r.stdout, /^phase\s+\| figure \| A median \(n\) \| B median \(n\) \| C median \(n\) \| D median \(n\) \|/m);
  assert.match(r.stdout, /^A: postgres · postgres · /m);
  assert.match(r.stdout, /^B: mongodb · mongodb · 6\.0\.5 \(MongoDB Community, standalone\)/m);
  assert.match(r.stdout, /^C: arangodb \(TEST ENDPOINT\)/m);
  assert.match(r.stdout, /^D: ravendb \(TEST ENDPOINT\)/m);
  assert.equal(tableRows(r.stdout).length, 18, 'six figures of three phases');
  const json = readJson(path.join(dir, 'four', 'compare.json'));
  assert.deepEqual(json.sides.map((x) => [x.target, x.test_endpoint]), [['postgres', false], ['mongodb', false], ['arangodb', true], ['ravendb', true]]);
  for (const side of json.sides) {
    const s = readJson(path.join(side.runs[0].source, 'summary.json'));
    assert.equal(s.verification.ok, true, `${side.label}: verified`);
    assert.equal(s.verification.found, 2000 + 2 * 125, `${side.label}: the same documents on every target`);
  }
});

// Found by running the docs as written: a side that cannot run is refused before the first
// run, the "differs" line names only the sides' targets' knobs, and a signal to compare's own
// pid stops it the pack's way.
test('a side whose database does not answer, or whose knob is bad, is refused before any run: one line naming the side, 108 / 107, nothing made', { timeout: 120000 }, async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-cmp-'));
  const dead = await freePort(); // nothing listens there
  const out = path.join(dir, 'cmp');
  const r = compare([...small, '-e', `B:ARANGO_URL=http://127.0.0.1:${dead}`, '--out', out, pgScenario, arangoScenario], dir);
  assert.equal(r.code, 108, r.stderr);
  assert.equal(r.stderr.trim(), `scripts/compare: side B (${arangoScenario}): ARANGO_URL: 127.0.0.1:${dead} refused the connection; nothing was run`);
  assert.equal(existsSync(out), false, 'side A did not run: no folder made');
  const bad = compare([...small, '-e', 'B:PG_SYNC_COMMIT=maybe', '--out', out, pgScenario, pgScenario], dir);
  assert.equal(bad.code, 107, bad.stderr);
  assert.equal(bad.stderr.trim(), `scripts/compare: side B (${pgScenario}): k6-writepath: PG_SYNC_COMMIT="maybe" is not allowed: one of on, off, local, remote_write, remote_apply; nothing was run`);
  assert.equal(existsSync(out), false);
  // A PostgreSQL side's own URL (COMPARE_B_PG_URL) is probed through no gateway; its password is never shown.
  const pg = spawnSync(path.join(repoRoot, 'scripts', 'compare'), [...small, '--out', out, pgScenario, pgScenario], {
    cwd: repoRoot, encoding: 'utf8', env: { ...process.env, RESULTS_DIR: dir, COMPARE_B_PG_URL: `postgres://u:sekrit-pw-1@127.0.0.1:${dead}/x?sslmode=disable` },
  });
  assert.equal(pg.status, 108, pg.stderr);
  assert.equal(pg.stderr.trim(), `scripts/compare: side B (${pgScenario}): PG_URL: 127.0.0.1:${dead} refused the connection; nothing was run`);
  assert.equal(existsSync(out), false);
  assert.ok(!readdirSync(dir).some((f) => f.startsWith('cmp_')), readdirSync(dir).join(' '));
});

test('the "differs" line names only knobs of the sides\' targets: no ARANGO_URL between two PostgreSQL runs', () => {
  const run = (config) => ({ summary: { target: 'postgres', server: { version: '15' }, config } });
  const sides = [
    { letter: 'A', runs: [run({ ARANGO_URL: 'http://127.0.0.1:8529', RAVEN_URL: 'http://127.0.0.1:8080', PG_SYNC_COMMIT: 'on' })] },
    { letter: 'B', runs: [run({ ARANGO_URL: 'http://10.0.0.9:8529', RAVEN_URL: 'http://10.0.0.9:8080', PG_SYNC_COMMIT: 'off' })] },
  ];
  assert.deepEqual(sideDifferences(sides).map((d) => d.what), ['PG_SYNC_COMMIT']);
  // A knob of one of the sides' targets stays: ArangoDB against PostgreSQL shows ARANGO_URL.
  sides[1].runs[0].summary.target = 'arangodb';
  assert.deepEqual(sideDifferences(sides).map((d) => d.what), ['target', 'ARANGO_URL', 'PG_SYNC_COMMIT']);
});

// SIGTERM to compare alone (what `kill` and a supervisor send), and SIGINT to its whole process
// group (Ctrl-C): either way the running run's k6 gets one signal (teardown, summaries), not two.
for (const [sig, group] of [['SIGTERM', false], ['SIGINT', true]]) test(`${sig} to compare's ${group ? 'process group (Ctrl-C)' : 'own pid'}: the running run is stopped the pack's way, the runs made are kept and named, exit 105`, { timeout: 240000 }, async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-cmp-'));
  const out = path.join(dir, 'cmp');
  const child = spawn(path.join(repoRoot, 'scripts', 'compare'), ['--arango-testserver', '--repeat', '2', '--out', out, arangoScenario, arangoScenario], {
    cwd: repoRoot, env: { ...process.env, RESULTS_DIR: dir, WP_INFLUX: '0', K6_NO_USAGE_REPORT: 'true' }, detached: group,
  });
  let stderr = '';
  let signalled = false;
  child.stdout.resume();
  child.stderr.on('data', (d) => {
    stderr += d;
    // Once run 2's k6 has finished its setup (run 1 is done).
    if (!signalled && /k6-writepath: run cmp_\w+_b01 on /.test(stderr)) { signalled = true; if (group) process.kill(-child.pid, sig); else child.kill(sig); }
  });
  const [code, signal] = await new Promise((resolve) => child.on('exit', (c, s) => resolve([c, s])));
  assert.equal(signal, null, stderr);
  assert.equal(code, 105, stderr);
  const last = stderr.trim().split('\n').pop();
  const m = new RegExp(`^scripts/compare: ${sig}: the comparison stopped with 1 of 4 runs done; the runs are kept in (\\S+): (cmp_\\w+_a01) \\(A, done\\), (cmp_\\w+_b01) \\(B, interrupted: exit 105\\); no comparison written$`).exec(last);
  assert.ok(m, last);
  assert.equal(m[1], out);
  assert.ok(existsSync(path.join(out, m[2], 'summary.json')), 'run 1 is kept');
  // k6 ran teardown and wrote the interrupted run's summaries (scripts/run: exit 105).
  assert.equal(JSON.parse(readFileSync(path.join(out, m[3], 'summary.json'), 'utf8')).run_id, m[3]);
  // The test server outlived the signal: the interrupted run dropped what it made.
  assert.match(stderr, new RegExp(`msg="k6-writepath: database k6wp_${m[3]}, [^"]*: dropped"`));
  assert.equal(existsSync(path.join(out, 'compare.json')), false);
  assert.doesNotMatch(stderr, /run 3 of 4/);
});
