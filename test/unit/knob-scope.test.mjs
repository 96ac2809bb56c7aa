// Knob scopes (lib/config.js knobScope) are the one home of "which knobs decide what is
// written": the plan signature of distributed runs, compare's same-workload check, the README
// table and the experiment driver's ranges are all derived from them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../../scripts/lib/kit.mjs';
import { KNOBS, PLAN_KNOBS, knobScope, loadConfig, planSignature } from '../../lib/config.js';
import { parseKnob } from '../../lib/parse.js';
import { checkSameWorkload, workloadSettings } from '../../scripts/compare.mjs';

const bulk = { target: 'ravendb', experiment: 'bulk-insert', phases: ['bulk'] };
const e3 = { target: 'arangodb', experiment: 'arangobench', phases: ['run'] };

test('every knob has exactly one scope, and the plan knobs are derived from the scopes', () => {
  for (const name of Object.keys(KNOBS)) {
    const s = knobScope(name);
    assert.match(s.scope, /^(run|workload|target:(postgres|arangodb|ravendb|mongodb)|tool:(capacity|capacity-demo|e2|ram|bench))$/, name);
    if (s.scope.startsWith('tool:')) assert.equal(s.plan, false, `${name}: a tool's knob is not part of a run's plan`);
    if (s.scope === 'workload') assert.equal(s.plan, true, `${name}: a workload knob is part of the plan`);
    if (s.scope === 'run') assert.equal(s.plan, false, `${name}: a run knob is not`);
  }
  assert.equal(knobScope('timeoutMs'), null, 'derived values are no knobs');
  // The knobs the hand-kept list forgot (issue 19): instances with other rates joined one database.
  for (const k of ['RATE_STAGES', 'MAX_VUS', 'STAGES', 'REQUESTS', 'ARANGOBENCH_CASE']) assert.ok(PLAN_KNOBS.includes(k), k);
  for (const k of ['RUN_ID', 'TIMEOUT', 'KEEP', 'DISTRIBUTED', 'PG_URL', 'ARANGO_PASSWORD', 'RAVEN_GZIP']) assert.ok(!PLAN_KNOBS.includes(k), k);
  assert.deepEqual(knobScope('PG_INDEXES'), { scope: 'target:postgres', plan: true });
  assert.deepEqual(knobScope('REQUESTS'), { scope: 'workload', plan: true });
  // What scripts/run and make read, and where reports go, decide nothing written (issue 25:
  // they were counted as workload knobs, so a k6 binary's path was part of the plan).
  for (const k of ['K6', 'K6_REPORTER_URL', 'WP_INFLUX', 'WP_PG_PORT', 'WP_INFLUX_PORT']) assert.deepEqual(knobScope(k), { scope: 'run', plan: false }, k);
});

test('the plan signature changes with the arrival rate and the VU ceiling, not with run knobs', () => {
  const sig = (env) => planSignature(loadConfig({ RUN_ID: 'x1', ...env }, bulk));
  const base = sig({ RATE_STAGES: '2s:10' });
  assert.match(base, /^bulk-insert-[0-9a-f]{8}$/);
  assert.notEqual(sig({ RATE_STAGES: '2s:20' }), base, 'RATE_STAGES is part of the plan');
  assert.notEqual(sig({ RATE_STAGES: '2s:10', MAX_VUS: '7' }), base, 'MAX_VUS is part of the plan');
  assert.notEqual(sig({}), base, 'closed vs open model');
  assert.equal(sig({ RATE_STAGES: '2s:10', TIMEOUT: '5s', KEEP: '1', RAVEN_GZIP: '1' }), base, 'run and transport knobs are not');
});

test('workload knobs first built for one database are read on every target', () => {
  const cfg = loadConfig({ PG_URL: 'postgres://u:p@127.0.0.1:5432/db', REQUESTS: '1000' }, { target: 'postgres', experiment: 'arangobench', phases: ['run'] });
  assert.equal(cfg.REQUESTS, 1000);
  assert.equal(cfg.ARANGOBENCH_CASE, 'document');
  assert.equal(cfg.ARANGO_INDEXES, undefined, 'target knobs of other databases are not');
});

// summary.json as buildReport writes it: config is publicConfig(cfg).
const summary = (env, meta = e3) => ({ experiment: meta.experiment, target: meta.target, ops: { run: 'document' }, config: loadConfig({ RUN_ID: 'x1', ...env }, meta) });

test('compare refuses REQUESTS 1000 vs 100000 as different workloads', () => {
  const runs = [summary({ REQUESTS: '1000' }), summary({ REQUESTS: '100000' })].map((s, i) => ({ letter: 'AB'[i], summary: s }));
  assert.throws(() => checkSameWorkload(runs), { message: 'refusing to compare runs with different workload settings: REQUESTS A=1000 B=100000' });
  const cases = [summary({ ARANGOBENCH_CASE: 'crud' }), summary({})].map((s, i) => ({ letter: 'AB'[i], summary: s }));
  assert.throws(() => checkSameWorkload(cases), /ARANGOBENCH_CASE A="crud" B="document"/);
});

test('compare accepts runs that differ only in run and target knobs', () => {
  const a = summary({ REQUESTS: '1000', TIMEOUT: '5s', ARANGO_INDEXES: '2', RUN_ID: 'a1' });
  const b = summary({ REQUESTS: '1000', KEEP: '1', ARANGO_WAIT_FOR_SYNC: '1', RUN_ID: 'b1' });
  assert.doesNotThrow(() => checkSameWorkload([{ letter: 'A', summary: a }, { letter: 'B', summary: b }]));
  // A summary written before REQUESTS was read on its target had the default.
  const old = summary({});
  delete old.config.REQUESTS;
  assert.equal(workloadSettings(old).REQUESTS, 10000);
  assert.throws(() => checkSameWorkload([{ letter: 'A', summary: old }, { letter: 'B', summary: a }]), /REQUESTS A=10000 B=1000/);
});

const TOOLS = ['bench/run.mjs', 'bench/mongo.mjs', 'bench/gate.mjs', 'bench/gateway.mjs', 'bench/lib.mjs', 'bench/memory.mjs', 'experiments/e2/driver.mjs', 'experiments/ram/driver.mjs', 'scripts/capacity-demo'];

test('every knob the benchmarks and capacity-demo read is declared with a tool scope and read through the pack\'s parser', () => {
  for (const f of TOOLS) {
    const text = readFileSync(path.join(repoRoot, f), 'utf8');
    // env.NAME reads by hand: only what is no knob of the pack (PATH) or passed on untouched.
    const byHand = [...text.matchAll(/\benv\.([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]).filter((n) => !['PATH', 'CAPACITY_WARMUP', 'CAPACITY_HOLD'].includes(n));
    assert.deepEqual(byHand, [], `${f} reads knobs by hand`);
    for (const [, name] of text.matchAll(/knob\('([A-Z][A-Z0-9_]*)'/g)) {
      assert.ok(KNOBS[name], `${f}: ${name} is not declared`);
      assert.match(knobScope(name).scope, /^tool:/, `${f}: ${name}`);
    }
  }
  // The demo's PostgreSQL ladder is no PostgreSQL target knob (PG_ is that target's prefix).
  assert.equal(KNOBS.PG_START, undefined);
  assert.equal(KNOBS.DEMO_PG_START.scope, 'tool:capacity-demo');
});

test('make capacity-demo refuses a bad DEMO_KNEE with one line and exit 107, before it starts anything', () => {
  // CAPACITY_TARGET=none: were the knee not checked first, the first search would refuse that instead.
  const r = spawnSync(path.join(repoRoot, 'scripts', 'capacity-demo'), [], { cwd: repoRoot, encoding: 'utf8', timeout: 60000,
    env: { ...process.env, DEMO_KNEE: '22x', CAPACITY_TARGET: 'none' } });
  assert.equal(r.status, 107, r.stdout + r.stderr);
  assert.equal(r.stderr, 'capacity-demo: DEMO_KNEE="22x" is not allowed: a whole number from 1 to 100000\n');
  assert.equal(r.stdout, '');
});

test('bench/memory.mjs refuses a bad knob of its own with one line and exit 107, before it starts anything', () => {
  const cases = [
    [{ BENCH_MEM_VUS: '1,10,5000' }, 'bench-memory: BENCH_MEM_VUS="1,10,5000" is not allowed: a comma-separated list of distinct VU counts from 1 to 1000, e.g. 1,10,50,200\n'],
    [{ BENCH_MEM_GRID_TARGETS: 'postgres,cassandra' }, 'bench-memory: BENCH_MEM_GRID_TARGETS="postgres,cassandra" is not allowed: a comma-separated list of distinct targets from arangodb, postgres, mongodb, ravendb\n'],
    [{ BENCH_MEM_VUS: '10,50' }, 'bench-memory: BENCH_MEM_VUS="10,50" is not allowed: a comma-separated list of distinct VU counts from 1 to 1000, e.g. 1,10,50,200, with 1 among them\n'],
    [{ BENCH_MEM_PG_PORT: '80' }, 'bench-memory: BENCH_MEM_PG_PORT="80" is not allowed: a whole number from 1024 to 65535\n'],
  ];
  for (const [env, line] of cases) {
    // "write" would only read saved parts: a bad knob stops it before that.
    const r = spawnSync(process.execPath, ['bench/memory.mjs', 'write'], { cwd: repoRoot, encoding: 'utf8', timeout: 60000, env: { ...process.env, ...env } });
    assert.equal(r.status, 107, r.stdout + r.stderr);
    assert.equal(r.stderr, line);
    assert.equal(r.stdout, '');
  }
});

test('a list of batch sizes is checked item by item against BATCH_SIZE\'s own declaration, and the RUN_ID rule has one home', () => {
  const spec = KNOBS.E2_BATCH_SIZES;
  assert.equal(spec.item, KNOBS.BATCH_SIZE);
  assert.deepEqual(parseKnob('E2_BATCH_SIZES', `1,${KNOBS.BATCH_SIZE.max}`, spec), [1, KNOBS.BATCH_SIZE.max]);
  for (const raw of [`1,${KNOBS.BATCH_SIZE.max + 1}`, '100,100', '100,x', '0', ' ']) {
    assert.throws(() => parseKnob('E2_BATCH_SIZES', raw, spec), (e) => e === `k6-writepath: E2_BATCH_SIZES="${raw}" is not allowed: ${spec.allowed}`, raw);
  }
  // The drivers copy none of BATCH_SIZE's bounds, nor those of the index knobs.
  assert.doesNotMatch(readFileSync(path.join(repoRoot, 'experiments/e2/driver.mjs'), 'utf8'), /100000/);
  assert.doesNotMatch(readFileSync(path.join(repoRoot, 'experiments/ram/driver.mjs'), 'utf8'), /\[0-9\]|from 0 to 9/);
  // CAPACITY_ID is RUN_ID's rule, shorter by a step's _sNN: the character class is written once.
  assert.equal(readFileSync(path.join(repoRoot, 'lib/knobs.js'), 'utf8').split('[a-z0-9_]').length, 2);
  const longest = 'c'.repeat(KNOBS.RUN_ID.allowed.match(/^1-(\d+)/)[1] - 4);
  assert.match(longest, KNOBS.CAPACITY_ID.pattern);
  assert.doesNotMatch(`${longest}x`, KNOBS.CAPACITY_ID.pattern);
  assert.match(`${longest}_s99`, KNOBS.RUN_ID.pattern);
});

test('the tools read the pack\'s knobs through its parser: no process.env.<KNOB> by hand (but to tell empty from unset)', () => {
  const files = ['scripts', 'scripts/lib', 'experiments', 'bench'].flatMap((d) => readdirSync(path.join(repoRoot, d)).filter((f) => f.endsWith('.mjs')).map((f) => path.join(d, f)));
  assert.ok(files.length > 20);
  for (const f of files) {
    const text = readFileSync(path.join(repoRoot, f), 'utf8');
    for (const m of text.matchAll(/process\.env\.([A-Z][A-Z0-9_]*)( === '')?/g)) {
      if (KNOBS[m[1]]) assert.ok(m[2], `${f} reads ${m[1]} by hand`);
    }
  }
});

test('the tools refuse a bad knob of the pack with its declaration\'s line: experiments (WP_INFLUX, INFLUX_URL), merge-results (INFLUX_URL)', () => {
  const exp = (env) => spawnSync(process.execPath, ['--input-type=module', '-e', "import { influxUrl } from './experiments/common.mjs'; console.log(JSON.stringify(influxUrl()));"],
    { cwd: repoRoot, encoding: 'utf8', timeout: 60000, env: { ...process.env, ...env } });
  let r = exp({ WP_INFLUX: 'maybe' });
  assert.equal(r.status, 107);
  assert.equal(r.stderr, 'experiments: WP_INFLUX="maybe" is not allowed: one of 1, 0, true, false\n');
  for (const off of ['0', 'false']) {
    r = exp({ WP_INFLUX: off, INFLUX_URL: 'http://127.0.0.1:1/db' });
    assert.equal(r.stdout, 'null\n', `WP_INFLUX=${off} turns streaming off`);
  }
  r = exp({ WP_INFLUX: '1', INFLUX_URL: 'http://127.0.0.1:1/db' });
  assert.equal(r.stdout, '"http://127.0.0.1:1/db"\n');
  r = spawnSync(process.execPath, ['scripts/merge-results.mjs', '--testid', 'x'], { cwd: repoRoot, encoding: 'utf8', timeout: 60000, env: { ...process.env, INFLUX_URL: 'http://u:pw@127.0.0.1:1/db' } });
  assert.equal(r.status, 107);
  assert.match(r.stderr, /^merge-results: INFLUX_URL="http:\/\/\*\*\*@127\.0\.0\.1:1\/db" is not allowed: .*credentials/);
  assert.doesNotMatch(r.stderr, /pw/);
});
