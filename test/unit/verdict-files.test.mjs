// The verdict tools (scripts/compare, --gate, scripts/calibrate, scripts/aggregate.mjs,
// scripts/capacity.mjs knee, scripts/history) on the files a user or a crash leaves behind:
// truncated, empty or phase-less summaries, a corrupted capacity file, a directory or a device
// as history file, an output folder under /proc or behind a planted link, a stray quote in
// history.csv, a negative figure — each refused in one line, exit 107, no stack trace, no hang;
// and what their outputs say: what differs between A and B, which estimator a delta is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot } from '../helpers/testserver.mjs';
import { COLUMNS, csvLine } from '../../scripts/history.mjs';

const STACK = /(^|\n)\s+at \S+ \(|file:\/\/\/\S+:\d+:\d+|node:internal/;

function summary({ runId, docs = 50000, p50 = 20, p99 = 40, settings = { fsync: 'on', synchronous_commit: 'on' }, knobs = {}, version = '15.18' } = {}) {
  return {
    tool: 'k6-writepath', run_id: runId, target: 'postgres', experiment: 'insert-vs-overwrite', passed: true, started_at: '2026-11-25T10:00:00.000Z', test_endpoint: false,
    server: { serverVersion: version, settings }, config: { DOCS: 20000, BATCH_SIZE: 1000, SEED: 1, VUS: 2, DOC_SHAPE: 'e1', KEY_DIST: 'uniform', RUN_ID: runId, PG_URL: '(set, not shown)', ...knobs },
    verification: { ran: true, ok: true }, ops: { load: 'insert', overwrite: 'upsert' },
    phases: ['load', 'overwrite'].map((phase) => ({ phase, batches: 20, docs_ok: 20000, docs_failed: 0, docs_per_s: docs, mb_per_s: docs * 0.001, batch_ms: { min: p50 / 2, median: p50, average: p50 * 1.1, p90: p99 * 0.9, p95: p99 * 0.95, p99, max: p99 * 1.2 } })),
    ratios: {},
  };
}

const work = () => mkdtempSync(path.join(tmpdir(), 'k6wp-files-'));
function folder(base, name, content) {
  const d = path.join(base, name);
  mkdirSync(d, { recursive: true });
  writeFileSync(path.join(d, 'summary.json'), typeof content === 'string' ? content : `${JSON.stringify(content, null, 2)}\n`);
  return d;
}
function tool(args, { cwd, env = {} } = {}) {
  const r = spawnSync(args[0], args.slice(1), { cwd: cwd || repoRoot, encoding: 'utf8', timeout: 30000, env: { ...process.env, WP_INFLUX: '0', ...env } });
  return { code: r.status, signal: r.signal, out: r.stdout || '', err: r.stderr || '' };
}
// One line on stderr, exit 107, no stack, and it did not hang.
function refused(r, mention) {
  assert.equal(r.signal, null, `hung (killed by ${r.signal})`);
  assert.doesNotMatch(r.err + r.out, STACK, 'no stack trace');
  assert.equal(r.code, 107, `exit 107, got ${r.code}: ${r.err}`);
  assert.equal(r.err.trim().split('\n').length, 1, `one line: ${r.err}`);
  if (mention) assert.match(r.err, mention);
}

const COMPARE = path.join(repoRoot, 'scripts', 'compare.mjs');
const CALIBRATE = path.join(repoRoot, 'scripts', 'calibrate.mjs');
const HISTORY = path.join(repoRoot, 'scripts', 'history.mjs');
const AGGREGATE = path.join(repoRoot, 'scripts', 'aggregate.mjs');
const CAPACITY = path.join(repoRoot, 'scripts', 'capacity.mjs');

test('compare, gate and calibrate refuse a truncated, an empty and a phase-less summary.json in one line (107)', () => {
  const w = work();
  const good = folder(w, 'good', summary({ runId: 'g1' }));
  const cases = [
    ['truncated', JSON.stringify(summary({ runId: 't1' })).slice(0, 200), /truncated/],
    ['empty', '', /is empty/],
    ['nophases', { ...summary({ runId: 'n1' }), phases: [] }, /has no phases/],
    ['notjson', 'hello', /not valid JSON/],
  ];
  for (const [name, content, msg] of cases) {
    const bad = folder(w, name, content);
    refused(tool(['node', COMPARE, '--out', path.join(w, `out-${name}`), good, bad]), msg);
    refused(tool(['node', COMPARE, '--gate', '--baseline', bad, '--out', path.join(w, `gate-${name}`), good]), msg);
    refused(tool(['node', CALIBRATE, '--out', path.join(w, `cal-${name}.json`), [good, bad, good, good, good].join(',')]), msg);
  }
});

test('a negative docs/s is refused, never taken into a baseline', () => {
  const w = work();
  const runs = [1, 2, 3, 4, 5].map((i) => folder(w, `b${i}`, summary({ runId: `b${i}`, docs: i === 3 ? -50000 : 50000 })));
  const cand = [1, 2, 3, 4, 5].map((i) => folder(w, `c${i}`, summary({ runId: `c${i}` })));
  refused(tool(['node', COMPARE, '--gate', '--baseline', runs.join(','), '--out', path.join(w, 'g'), cand.join(',')]), /docs_per_s = -50000 is not allowed/);
  refused(tool(['node', HISTORY, 'append', runs[2], '--file', path.join(w, 'h.csv')]), /docs_per_s = -50000/);
});

test('a REPEAT folder whose repetition left a truncated summary.json: scripts/aggregate.mjs refuses it in one line', () => {
  const w = work();
  const dir = path.join(w, 'rep1');
  folder(dir, 'rep1_r01', summary({ runId: 'rep1_r01' }));
  folder(dir, 'rep1_r02', '{"tool":"k6-writepath","phases":[{"pha');
  refused(tool(['node', AGGREGATE, dir]), /rep1_r02.*truncated/);
});

test('history: a directory or a device as history file, and a stray quote, are refused in one line; nothing hangs, no row is dropped silently', () => {
  const w = work();
  const run = folder(w, 'r1', summary({ runId: 'r1' }));
  refused(tool(['node', HISTORY, 'append', run, '--file', w]), /is a directory/);
  refused(tool(['node', HISTORY, 'list', '--file', '/dev/full']), /not a regular file/);
  refused(tool(['node', HISTORY, 'analyze', '--file', '/dev/full']), /not a regular file/);
  // A stray quote in one cell: every later row would vanish into it.
  const file = path.join(w, 'history.csv');
  const row = (id, series) => csvLine(COLUMNS.map((c) => ({ time: '2026-11-25T10:00:00Z', run_id: id, series, experiment: 'e', target: 'postgres', phase: 'load', test_endpoint: 'false', docs_per_s: 1, p50_ms: 1, p99_ms: 1, server: '', settings: '', knobs: '' })[c]));
  writeFileSync(file, `${csvLine(COLUMNS)}\n${row('a', 's1')}\n${row('b', 's2').replace(',s2,', ',"s2,')}\n${row('c', 's3')}\n`);
  refused(tool(['node', HISTORY, 'list', '--file', file]), /line 3: a quote opens a cell that never closes/);
  const before = readFileSync(file, 'utf8');
  refused(tool(['node', HISTORY, 'append', run, '--file', file]), /line 3/);
  assert.equal(readFileSync(file, 'utf8'), before, 'the history is left as it was');
  // A row with a cell too many is named, not skipped.
  writeFileSync(file, `${csvLine(COLUMNS)}\n${row('a', 's1')}\n${row('b', 's2')},extra\n`);
  refused(tool(['node', HISTORY, 'list', '--file', file]), /line 3: 14 cells, a row has 13/);
});

test('output folders: under /proc (Node\'s recursive mkdir would spin) and behind a planted symbolic link are refused before anything is written', () => {
  const w = work();
  const a = folder(w, 'a', summary({ runId: 'a1' }));
  const b = folder(w, 'b', summary({ runId: 'b1' }));
  refused(tool(['node', COMPARE, '--out', '/proc/self/x', a, b]), /--out \/proc\/self\/x is not allowed: .*cannot be created/);
  const victim = path.join(w, 'victim');
  mkdirSync(victim);
  writeFileSync(path.join(victim, 'compare.txt'), 'keep me\n');
  const link = path.join(w, 'planted');
  symlinkSync(victim, link);
  refused(tool(['node', COMPARE, '--out', link, a, b]), /is a symbolic link/);
  assert.equal(readFileSync(path.join(victim, 'compare.txt'), 'utf8'), 'keep me\n');
  refused(tool(['node', CALIBRATE, '--out', path.join(link, 't.json'), [a, a, a, a, a].join(',')]), /symbolic link/);
  // A folder of its own: written whole, no temporary file left.
  const out = path.join(w, 'out');
  const r = tool(['node', COMPARE, '--out', out, a, b]);
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(readdirSync(out).sort(), ['compare.json', 'compare.svg', 'compare.txt']);
});

test('scripts/capacity.mjs knee on a corrupted or truncated capacity file: one line, 107', () => {
  const w = work();
  const d = path.join(w, 'cap');
  mkdirSync(d);
  writeFileSync(path.join(d, 'capacity.json'), JSON.stringify({ kind: 'capacity', slo_ms: 200, ladder: {}, steps: [{ rate: 10, batch_ms: { p99: 'fast' } }] }));
  refused(tool(['node', CAPACITY, 'knee', d]), /step 1: p99 "fast" is not allowed/);
  writeFileSync(path.join(d, 'capacity.json'), '{"kind":"capacity","steps":[{"rate":1');
  refused(tool(['node', CAPACITY, 'knee', d]), /truncated/);
});

test('compare and gate name what differs between A and B, and which estimator their delta is', () => {
  const w = work();
  const A = [1, 2, 3, 4, 5, 6].map((i) => folder(w, `a${i}`, summary({ runId: `a${i}`, docs: 50000 + i * 300, p50: 20 + i / 10, p99: 40 + i / 5 })));
  const B = [1, 2, 3, 4, 5, 6].map((i) => folder(w, `b${i}`, summary({ runId: `b${i}`, docs: 52000 + i * 300, p50: 19 + i / 10, p99: 39 + i / 5, settings: { fsync: 'on', synchronous_commit: 'off' }, knobs: { PG_SYNC_COMMIT: 'off' } })));
  const r = tool(['node', COMPARE, '--out', path.join(w, 'cmp'), A.join(','), B.join(',')]);
  assert.equal(r.code, 0, r.err);
  const text = readFileSync(path.join(w, 'cmp', 'compare.txt'), 'utf8');
  assert.match(text, /^differs between A and B: server setting synchronous_commit A=on B=off · PG_SYNC_COMMIT A=on B=off$/m);
  assert.match(text, /delta B \(HL\)/);
  assert.match(text, /Hodges–Lehmann estimate .* not the ratio of the two medians/);
  const json = JSON.parse(readFileSync(path.join(w, 'cmp', 'compare.json'), 'utf8'));
  assert.deepEqual(json.differences.map((d) => d.what), ['server setting synchronous_commit', 'PG_SYNC_COMMIT']);
  assert.match(json.delta_estimator, /Hodges–Lehmann/);
  // The gate: same naming, and its legend no longer calls the Hodges–Lehmann figure candidate/baseline − 1 plain.
  const g = tool(['node', COMPARE, '--gate', '--baseline', A.join(','), '--metrics', 'docs/s,p50', '--max-regression', '50%', '--out', path.join(w, 'gate'), B.join(',')]);
  const gate = readFileSync(path.join(w, 'gate', 'gate.txt'), 'utf8');
  assert.match(gate, /^differs between A and B: server setting synchronous_commit A=on B=off/m);
  assert.match(gate, /\| delta \(HL\) \|/);
  assert.match(gate, /^delta \(HL\): candidate\/baseline − 1 as the Hodges–Lehmann estimate/m);
  assert.doesNotMatch(gate, /^delta: candidate\/baseline − 1;/m);
  assert.ok([0, 99, 107].includes(g.code));
  assert.match(JSON.parse(readFileSync(path.join(w, 'gate', 'gate.json'), 'utf8')).delta_estimator, /Hodges–Lehmann/);
  // Two copies of one run: an A/A comparison, said as such.
  const aa = tool(['node', COMPARE, '--out', path.join(w, 'aa'), A.join(','), A.join(',')]);
  assert.match(aa.out, /^differs between A and B: nothing recorded .*an A\/A comparison$/m);
});

test('a workload knob for one side only is refused before any run; a gate more runs cannot rescue does not ask for more runs', () => {
  const r = tool(['node', COMPARE, '-e', 'B:BATCH_SIZE=500', 'scenarios/postgres/insert-vs-overwrite.js', 'scenarios/postgres/insert-vs-overwrite.js'], { env: { PG_URL: 'postgres://u@127.0.0.1:9/x' } });
  refused(r, /-e B:BATCH_SIZE=500 is not allowed: BATCH_SIZE sets the workload.*-e BATCH_SIZE=500/);
  // A stored baseline of wildly spread p99s: not even 64 runs would see 10 %.
  const w = work();
  const base = [1, 2, 3, 4, 5].map((i) => folder(w, `s${i}`, summary({ runId: `s${i}`, p99: [10, 400, 30, 900, 60][i - 1] })));
  const g = tool(['node', COMPARE, '--gate', '--baseline', base.join(','), '--repeat', '5', '--metrics', 'p99', 'scenarios/postgres/insert-vs-overwrite.js'], { env: { PG_URL: 'postgres://u@127.0.0.1:9/x' } });
  refused(g, /not even 64 runs per side would at this spread, so more runs do not help/);
  assert.doesNotMatch(g.err, /raise --repeat/);
});

test('a fresh clone without node_modules: the history append scripts/run makes installs the pinned packages once, with one line, and works', () => {
  const w = work();
  const clone = path.join(w, 'clone');
  for (const d of ['scripts', 'lib']) cpSync(path.join(repoRoot, d), path.join(clone, d), { recursive: true });
  for (const f of ['package.json', 'package-lock.json']) cpSync(path.join(repoRoot, f), path.join(clone, f));
  // A stand-in for npm that installs exactly what the real one would put there (from this checkout).
  const bin = path.join(w, 'bin');
  mkdirSync(bin);
  writeFileSync(path.join(bin, 'npm'), `#!/bin/sh\necho "npm $*" >> "${path.join(w, 'npm.log')}"\nmkdir -p node_modules && cp -r "${path.join(repoRoot, 'node_modules', 'jstat')}" node_modules/jstat\n`, { mode: 0o755 });
  const run = folder(w, 'r1', summary({ runId: 'r1' }));
  const env = { PATH: `${bin}:${process.env.PATH}` };
  const r = tool(['node', path.join(clone, 'scripts', 'history.mjs'), 'append', run, '--file', path.join(w, 'h.csv')], { cwd: w, env });
  assert.doesNotMatch(r.err, STACK);
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /^k6-writepath: installing the pinned Node packages once \(npm install into .*node_modules\/: the statistics/m);
  assert.match(r.err, /2 rows added/);
  assert.equal(readFileSync(path.join(w, 'npm.log'), 'utf8'), 'npm install --no-audit --no-fund --loglevel=error\n');
  // Once: the second tool finds them.
  const again = tool(['node', path.join(clone, 'scripts', 'compare.mjs'), '--out', path.join(w, 'c'), run, run], { cwd: w, env });
  assert.equal(again.code, 0, again.err);
  assert.doesNotMatch(again.err, /installing/);
  // No npm at all: one line saying what to run, no stack.
  const bare = path.join(w, 'bare');
  for (const d of ['scripts', 'lib']) cpSync(path.join(repoRoot, d), path.join(bare, d), { recursive: true });
  cpSync(path.join(repoRoot, 'package.json'), path.join(bare, 'package.json'));
  const none = tool(['node', path.join(bare, 'scripts', 'compare.mjs'), run, run], { cwd: w, env: { NPM: path.join(w, 'no-such-npm') } });
  assert.doesNotMatch(none.err, STACK);
  assert.equal(none.code, 108);
  assert.match(none.err, /needs npm, which is not installed here: .*make node-deps/);
  assert.ok(!existsSync(path.join(bare, 'node_modules', 'jstat')));
});

test('make test-unit installs what its tests need: Apache Otava (.run/otava) is a prerequisite', () => {
  const r = spawnSync('make', ['-s', '-p', '-n', '-f', 'Makefile', 'test-unit'], { cwd: repoRoot, encoding: 'utf8' });
  const rule = r.stdout.split('\n').find((l) => /^test-unit:/.test(l));
  assert.ok(rule, 'the test-unit rule');
  assert.match(rule, /\bnode-deps\b/);
  assert.match(rule, /\botava-deps\b/);
});

// scripts/run gives every run a private gateway on a free port: its URL differs per run by
// design and is no difference between A and B (an A/A of scripts/compare listed every port).
test('compare: the per-run GATEWAY_URL is not named as a difference between A and B', () => {
  const w = work();
  const side = (l) => [1, 2, 3].map((i) => folder(w, `${l}${i}`, summary({ runId: `${l}${i}`, docs: 50000 + i * 300, p50: 20 + i / 10, p99: 40 + i / 5, knobs: { GATEWAY_URL: `http://127.0.0.1:${l === 'g' ? 34000 + i : 45000 + i}` } })));
  const r = tool(['node', COMPARE, '--out', path.join(w, 'cmp'), side('g').join(','), side('h').join(',')]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^differs between A and B: nothing recorded .*an A\/A comparison$/m);
  assert.doesNotMatch(r.out, /GATEWAY_URL/);
});

test('scripts/aggregate.mjs runs as docs/results.md gives it (the file itself, no node in front) and aggregates a REPEAT folder', () => {
  const w = work();
  const dir = path.join(w, 'rep2');
  folder(dir, 'rep2_r01', summary({ runId: 'rep2_r01', docs: 40000 }));
  folder(dir, 'rep2_r02', summary({ runId: 'rep2_r02', docs: 60000 }));
  const r = tool([AGGREGATE, dir]);
  assert.equal(r.code, 0, `exit 0, got ${r.code}: ${r.err}`);
  assert.doesNotMatch(r.err + r.out, STACK, 'no stack trace');
  const agg = JSON.parse(readFileSync(path.join(dir, 'summary.json'), 'utf8'));
  assert.deepEqual(agg.phases.find((p) => p.phase === 'load').metrics.docs_per_s.values, [40000, 60000]);
});

test('a gate on a stored baseline too small for its tolerance asks for a larger baseline too, and no figures it already gates', () => {
  const w = work();
  const base = [1, 2, 3, 4, 5].map((i) => folder(w, `m${i}`, summary({ runId: `m${i}`, docs: [40000, 50000, 60000, 45000, 55000][i - 1], p50: [16, 20, 24, 18, 22][i - 1] })));
  const g = tool(['node', COMPARE, '--gate', '--baseline', base.join(','), '--repeat', '5', '--metrics', 'docs/s,p50', '--max-regression', '10%', 'scenarios/postgres/insert-vs-overwrite.js'], { env: { PG_URL: 'postgres://u@127.0.0.1:9/x' } });
  refused(g, /at least (\d+) runs per side would\); a baseline of \1 runs \(REPEAT=\1\) and --repeat \1, or allow more/);
  assert.doesNotMatch(g.err, /--metrics docs\/s,p50/);
});
