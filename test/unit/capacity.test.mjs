// The pure part of the capacity search (lib/capacity.js) and of the load models
// (lib/load-model.js): step verdicts, the knee of recorded steps, the adaptive ladder, the
// per-stage rows from k6 summary data, and per-stage thresholds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { capacityChart, capacityHtml, capacityText, compareText, kneeOf, nextRate, stepFromSummary, testEndpointOf, stepVerdict } from '../../lib/capacity.js';
import { loadModel, rampScenario, stageRows } from '../../lib/load-model.js';
import { k6Thresholds, parseThresholds } from '../../lib/thresholds.js';

const step = (rate, p99, extra = {}) => ({ n: 0, rate, docs_per_s: rate * 100, batch_ms: { median: p99 / 2, p90: p99, p99, max: p99 }, docs_failed: 0, dropped_iterations: 0, verified: true, client_cpu_cores: 0.3, cores: 2, ...extra });
const judged = (steps, slo = 200) => steps.map((s) => ({ ...s, verdict: stepVerdict(s, slo) }));

test('verdicts: SLO, failures, dropped iterations with the server in time = vus (too few VUs), client only when k6\'s CPU was measured at the limit, unverified first', () => {
  assert.equal(stepVerdict(step(10, 150), 200), 'pass');
  assert.equal(stepVerdict(step(10, 200), 200), 'pass', 'the SLO is inclusive');
  assert.equal(stepVerdict(step(10, 201), 200), 'slo');
  assert.equal(stepVerdict(step(10, 50, { docs_failed: 3 }), 200), 'failed');
  assert.equal(stepVerdict(step(10, 50, { dropped_iterations: 2 }), 200), 'vus', 'k6 at 0.3 of 2 cores: not a saturated client');
  assert.equal(stepVerdict(step(10, 50, { dropped_iterations: 2, client_cpu_cores: null }), 200), 'vus', 'not measured: never called a saturated client');
  assert.equal(stepVerdict(step(10, 50, { dropped_iterations: 2, client_cpu_cores: 1.9 }), 200), 'client');
  assert.equal(stepVerdict(step(10, 900, { dropped_iterations: 2 }), 200), 'slo', 'a slow server also leaves VUs busy');
  assert.equal(stepVerdict(step(10, 900, { client_cpu_cores: 1.9 }), 200), 'client', 'k6 on every core');
  // The client rule holds on every step, not only once p99 is past the SLO: a step whose k6
  // used the whole machine is never a pass that could be taken for the database's knee.
  assert.equal(stepVerdict(step(10, 50, { client_cpu_cores: 1.97 }), 200), 'client');
  assert.equal(stepVerdict(step(10, 50, { client_cpu_cores: 1.79 }), 200), 'pass', 'below 90 % of the cores');
  assert.equal(stepVerdict(step(10, 50, { client_cpu_cores: null }), 200), 'pass', 'not measured');
  assert.equal(stepVerdict(step(10, 50, { verified: false, docs_failed: 1 }), 200), 'unverified');
});

test('k6\'s CPU of a step is its peak inside the measured stage: setup\'s pre-load and the warm-up do not count', () => {
  const summary = { plan: { batch_size: 100 }, verification: { ran: true, ok: true }, thresholds: [], phases: [{ phase: 'overwrite', docs_failed: 0 }], dropped_iterations: 0,
    stages: [{ stage: 1, started_ms: 10000, ended_ms: 12000 }, { stage: 2, started_ms: 12000, ended_ms: 17000, batches: 50, docs_ok: 5000, docs_per_s: 1000, batch_ms: { median: 5, p90: 8, p99: 9, max: 10 } }] };
  const samples = [{ t: 5000, cores: 1.99 }, { t: 9000, cores: 1.95 }, { t: 11000, cores: 1.9 }, { t: 14000, cores: 0.4 }, { t: 16000, cores: 0.6 }, { t: 17000, cores: 0.5 }, { t: 30000, cores: 1.99 }];
  const st = stepFromSummary({ n: 1, rate: 10, runId: 'x', exit: 0, summary, phase: 'overwrite', sloMs: 200, cpuSamples: samples, cores: 2 });
  assert.equal(st.client_cpu_cores, 0.6);
  assert.equal(st.verdict, 'pass');
  const busy = stepFromSummary({ n: 1, rate: 10, runId: 'x', exit: 0, summary, phase: 'overwrite', sloMs: 200, cpuSamples: [...samples, { t: 15000, cores: 1.85 }], cores: 2 });
  assert.equal(busy.verdict, 'client');
});

test('a step whose lost answers were all committed passes; undetermined ones not stored fail it, as the thresholds judge', () => {
  const stages = [{ stage: 1, started_ms: 0, ended_ms: 1000 }, { stage: 2, started_ms: 1000, ended_ms: 3000, batches: 20, docs_ok: 1800, docs_per_s: 900, batch_ms: { median: 5, p90: 8, p99: 9, max: 10 } }];
  const summary = (observed, extra = {}) => ({ plan: { batch_size: 100 }, verification: { ran: true, ok: true }, dropped_iterations: 0, stages,
    phases: [{ phase: 'overwrite', docs_failed: 200, docs_undetermined: 200, docs_failed_known: 0, ...extra }],
    thresholds: observed === null ? [] : [{ metric: 'writepath_docs_failed_resolved', threshold: 'count<=0', ok: observed <= 0, observed }] });
  const at = (s) => stepFromSummary({ n: 3, rate: 10, runId: 'x', exit: s.thresholds.some((t) => !t.ok) ? 99 : 0, summary: s, phase: 'overwrite', sloMs: 200 });
  const stored = at(summary(0));
  assert.deepEqual([stored.verdict, stored.docs_failed, stored.docs_undetermined, stored.undetermined_stored, stored.undetermined_not_stored, stored.docs_failed_known], ['pass', 200, 200, 200, 0, 0]);
  const half = at(summary(100));
  assert.deepEqual([half.verdict, half.undetermined_stored, half.undetermined_not_stored, half.docs_failed_known], ['failed', 100, 100, 100]);
  // Known failures when answered fail a step whatever the undetermined ones did.
  const known = at(summary(50, { docs_failed: 250, docs_failed_known: 50 }));
  assert.deepEqual([known.verdict, known.undetermined_stored, known.undetermined_not_stored, known.docs_failed_known], ['failed', 200, 0, 50]);
  // Not resolved (no run-wide check): counted by no failure limit, and said so.
  const open = at(summary(null));
  assert.deepEqual([open.verdict, open.undetermined_stored, open.docs_failed_known], ['pass', null, 0]);
  // A step recorded before these fields: every failed document counts.
  assert.equal(stepVerdict({ ...stored, docs_failed_known: undefined }, 200), 'failed');
  const text = capacityText({ id: 'c', target: 'arangodb', op: 'upsert', slo_ms: 200, batch_size: 100, ladder: { start: 10, factor: 2, max: 20, resolution: 0.1, warmup: '1s', hold: '2s' }, steps: [stored, { ...half, n: 4, rate: 20 }], knee: kneeOf([stored, { ...half, n: 4, rate: 20 }]) });
  assert.match(text, /\n  step 3: 200 documents undetermined \(no answer after the whole batch was sent, or "committed, but a wait failed"\): 200 resolved stored, 0 not stored \(counted failed: 0 in all\)\n/);
  assert.match(text, /\n  step 4: 200 documents undetermined .*: 100 resolved stored, 100 not stored \(counted failed: 100 in all\)\n/);
  assert.match(text, /knee \(the highest rate every step of which passed\): 10 batches\/s .*; 20\/s had failed writes/);
  assert.match(capacityText({ id: 'c', target: 'arangodb', op: 'upsert', slo_ms: 200, batch_size: 100, ladder: { start: 10, factor: 2, max: 20, resolution: 0.1, warmup: '1s', hold: '2s' }, steps: [open], knee: kneeOf([open]) }), /step 3: 200 documents undetermined .*: not resolved \(the run held no writepath_docs_failed_resolved\), not counted failed/);
});

test('the knee: highest pass below the lowest non-pass; a pass above a failure is reported, not believed', () => {
  const k = kneeOf(judged([step(10, 20), step(20, 30), step(40, 900), step(30, 150), step(35, 250), step(50, 100)]));
  assert.equal(k.rate, 30);
  assert.equal(k.first_failing_rate, 35);
  assert.equal(k.limited_by, 'slo');
  assert.equal(k.step, 5);
  assert.deepEqual(k.passes_above_failure, [50]);
  const none = kneeOf(judged([step(10, 500)]));
  assert.equal(none.rate, null);
  const notReached = kneeOf(judged([step(10, 20), step(20, 30)]));
  assert.equal(notReached.rate, 20);
  assert.equal(notReached.first_failing_rate, null);
});

test('the ladder: coarse ×factor to the first failure, bisection to the resolution, stop at the client limit', () => {
  const L = { start: 6, factor: 2, max: 48, resolution: 0.15 };
  // A server whose knee is 22: the ladder visits 6, 12, 24, 18, 21, then stops (24 - 21 <= 3).
  const p99 = (r) => (r <= 22 ? 20 : 1000);
  const steps = [];
  for (let r = nextRate(steps, L); r !== null; r = nextRate(steps, L)) steps.push(...judged([step(r, p99(r))]));
  assert.deepEqual(steps.map((s) => s.rate), [6, 12, 24, 18, 21]);
  assert.equal(kneeOf(steps).rate, 21);
  // repeat 3: then the knee (21) and the first failing rate (24) run until each has 3 steps.
  const conf = [];
  for (let r = nextRate(conf, { ...L, repeat: 3 }); r !== null; r = nextRate(conf, { ...L, repeat: 3 })) conf.push(...judged([step(r, p99(r))]));
  assert.deepEqual(conf.map((s) => s.rate), [6, 12, 24, 18, 21, 21, 21, 24, 24], '24 is both the first failure and the lowest rate that never passed');
  const k = kneeOf(conf);
  assert.deepEqual([k.rate, k.first_failing_rate, k.knee_runs, k.failing_runs, k.boundary], [21, 24, { steps: 3, passed: 3 }, { steps: 3, passed: 0 }, { from: 21, to: 24 }]);
  // Never past max.
  const fast = [];
  for (let r = nextRate(fast, L); r !== null; r = nextRate(fast, L)) fast.push(...judged([step(r, 10)]));
  assert.deepEqual(fast.map((s) => s.rate), [6, 12, 24, 48]);
  // The client limit ends the search: beyond it the load generator is measured.
  const client = judged([step(6, 10), step(12, 10, { dropped_iterations: 5, client_cpu_cores: 1.95 })]);
  assert.equal(nextRate(client, L), null);
  assert.match(capacityText({ id: 'x', target: 'postgres', op: 'upsert', slo_ms: 200, batch_size: 100, ladder: { ...L, warmup: '1s', hold: '3s' }, steps: client, knee: kneeOf(client) }),
    /the load generator saturated \(measured: k6 used 1\.95 of 2 cores.*this is not the database's knee/);
  // Dropped iterations with k6 at 0.23 of 2 cores: out of VUs, never "the load generator saturated".
  const vus = judged([step(6, 10), step(12, 10, { dropped_iterations: 5, client_cpu_cores: 0.23 })]);
  assert.equal(nextRate(vus, L), null);
  const vt = capacityText({ id: 'x', target: 'postgres', op: 'upsert', slo_ms: 200, batch_size: 100, ladder: { ...L, warmup: '1s', hold: '3s' }, steps: vus, knee: kneeOf(vus) });
  assert.doesNotMatch(vt, /saturated/);
  assert.match(vt, /12\/s ran out of VUs/);
  assert.match(vt, /every VU was busy .*k6 used 0\.23 of 2 cores, not the machine's limit.*raise MAX_VUS/);
  // An unverified step stops everything.
  assert.equal(nextRate(judged([step(6, 10, { verified: false })]), L), null);
});

test('a knee that fails a repeat moves down; the text says how many runs passed at each rate and where the boundary lies', () => {
  const L = { start: 10, factor: 2, max: 40, resolution: 0.1, repeat: 3 };
  // 30/s passes once, then fails: noise at the boundary. The knee moves to 20/s (all passed).
  const outcomes = { 30: [150, 250, 260] };
  const p99 = (r, i) => (outcomes[r] ? outcomes[r][i] : r <= 30 ? 100 : 900);
  const steps = [];
  for (let r = nextRate(steps, L); r !== null; r = nextRate(steps, L)) steps.push(...judged([step(r, p99(r, steps.filter((s) => s.rate === r).length))]));
  // 10 20 40 30 35 33 | 30 fails its repeat: bisection again below it (25, 28) | confirm 28, 30, 33.
  assert.deepEqual(steps.map((s) => s.rate), [10, 20, 40, 30, 35, 33, 30, 25, 28, 28, 28, 30, 33, 33]);
  const k = kneeOf(steps);
  assert.equal(k.rate, 28);
  assert.equal(k.first_failing_rate, 30);
  assert.deepEqual([k.knee_runs, k.failing_runs, k.boundary], [{ steps: 3, passed: 3 }, { steps: 3, passed: 1 }, { from: 28, to: 33 }]);
  const text = capacityText({ id: 'x', target: 'postgres', op: 'upsert', slo_ms: 200, batch_size: 100, ladder: { ...L, warmup: '1s', hold: '3s' }, steps, knee: k });
  assert.match(text, /^knee \(the highest rate every step of which passed\): 28 batches\/s = 2800 docs\/s at p99 100\.0 ms \(SLO 200 ms\); 30\/s passed only 1 of 3 steps \(the others went past the SLO\), so it is not counted as within capacity$/m);
  assert.match(text, /^  how sure: 28\/s passed 3 of 3, 30\/s passed 1 of 3, 33\/s passed 0 of 3; the boundary lies between 28 and 33 batches\/s$/m);
});

test('capacity outputs of a test server say TEST ENDPOINT: text, chart, HTML title, comparison', () => {
  const s = judged([step(10, 20, { test_endpoint: true }), step(20, 300, { test_endpoint: true })]);
  const c = { id: 'te', target: 'arangodb', op: 'insert', slo_ms: 200, batch_size: 50, ladder: { start: 10, factor: 2, max: 20, resolution: 0.1, warmup: '1s', hold: '3s' }, steps: s, knee: kneeOf(s) };
  assert.equal(testEndpointOf(c), true);
  assert.match(capacityText(c), /^k6-writepath capacity · TEST ENDPOINT · arangodb · insert · te\nTEST ENDPOINT: a k6-writepath API test server answered/);
  assert.match(capacityChart([c]), /arangodb insert \(TEST ENDPOINT\) p99/);
  assert.match(capacityHtml([c], 't'), /<title>k6-writepath capacity · TEST ENDPOINT · arangodb · insert<\/title>/);
  const pg = { ...c, id: 'pg', target: 'postgres', steps: judged([step(10, 20), step(20, 300)]) };
  pg.knee = kneeOf(pg.steps);
  assert.match(compareText(c, pg), /^A arangodb insert \(TEST ENDPOINT\)/m);
  assert.match(compareText(c, pg), /^TEST ENDPOINT: an API test server of this project answered for A, not a database/m);
});

test('text, chart and comparison of recorded searches', () => {
  const mk = (id, target, steps) => { const s = judged(steps); return { id, target, op: 'insert', slo_ms: 200, batch_size: 100, ladder: { start: 10, factor: 2, max: 80, resolution: 0.1, warmup: '1s', hold: '3s' }, steps: s, knee: kneeOf(s) }; };
  const a = mk('a', 'postgres', [step(10, 20), step(20, 30), step(40, 300)]);
  const b = mk('b', 'arangodb', [step(10, 20), step(20, 300)]);
  assert.match(capacityText(a), /knee \(the highest rate every step of which passed\): 20 batches\/s = 2000 docs\/s at p99 30\.0 ms \(SLO 200 ms\); 40\/s went past the SLO/);
  assert.match(compareText(a, b), /A\/B knee docs\/s: 2\.00x/);
  const svg = capacityChart([a, b]);
  assert.match(svg, /SLO p99 200 ms/);
  assert.equal((svg.match(/<polyline /g) || []).length, 4, 'p50 and p99 per search');
  assert.match(svg, /knee postgres insert/);
});

test('load models: open = one constant-arrival-rate scenario per stage, batch numbers never overlap', () => {
  const lm = loadModel({ RATE_STAGES: '2s:10,500ms:3', VUS: 2, MAX_VUS: 20, TIMEOUT: '60s' });
  assert.deepEqual(lm.budgets, [21, 3]);
  assert.deepEqual(lm.offsets, [0, 21]);
  assert.equal(lm.maxIterations, 24);
  const sc = rampScenario('x', { TIMEOUT: '60s' }, lm);
  assert.deepEqual(Object.keys(sc), ['x-s1', 'x-s2']);
  assert.equal(sc['x-s2'].startTime, '2000ms');
  assert.equal(sc['x-s2'].rate, 3);
  assert.equal(loadModel({ VUS: 2, MAX_VUS: 100 }), null, 'no knob: the fixed plan');
  const closed = loadModel({ STAGES: '1s:1,1s:4', VUS: 2, MAX_VUS: 100 });
  assert.equal(closed.vus, 4);
  assert.throws(() => loadModel({ STAGES: '1s:1', RATE_STAGES: '1s:2', VUS: 2, MAX_VUS: 100 }), /choose one load model/);
});

test('per-stage rows from k6 summary data', () => {
  const lm = loadModel({ RATE_STAGES: '1s:5,1s:10', VUS: 2, MAX_VUS: 20 });
  const m = (values) => ({ values });
  const data = { metrics: {
    'writepath_batch_duration{stage:2}': m({ count: 10, med: 4, 'p(90)': 8, 'p(99)': 9.5, max: 10 }),
    'writepath_docs_ok{stage:2}': m({ count: 900 }),
    'writepath_docs_failed{stage:2}': m({ count: 100 }),
    'writepath_docs_failed{stage:2,reason:timeout}': m({ count: 100 }),
    'writepath_docs_undetermined{stage:2}': m({ count: 40 }),
    'writepath_docs_failed_known{stage:2}': m({ count: 60 }),
    'writepath_bytes{stage:2}': m({ count: 2e6 }),
    'writepath_phase_clock{stage:2}': m({ min: 1000, max: 3000 }),
    'dropped_iterations{scenario:e-s2}': m({ count: 3 }),
  } };
  const rows = stageRows(data, lm, ['timeout', 'connection'], 'e');
  assert.equal(rows[0].batches, 0);
  assert.equal(rows[0].docs_per_s, null, 'no batch, no rate (never 0 from nothing)');
  assert.deepEqual({ ...rows[1], batch_ms: undefined }, {
    stage: 2, duration: '1s', dropped_iterations: 3, load: '10/s', vus: '10/s', model: 'open', target_rate: 10, target_vus: null,
    batches: 10, docs_ok: 900, docs_failed: 100, failed_by_reason: { timeout: 100 }, docs_undetermined: 40, docs_failed_known: 60, wall_s: 2, docs_per_s: 450, mb_per_s: 1, batches_per_s: 5, started_ms: 1000, ended_ms: 3000,
    batch_ms: undefined, batch_ms_median: 4, batch_ms_p99: 9.5,
  });
  assert.deepEqual(rows[1].batch_ms, { median: 4, p90: 8, p99: 9.5, max: 10 });
});

test('thresholds per stage: parsed, validated, and turned into stage sub-metric thresholds', () => {
  const text = JSON.stringify({ phases: { load: { batch_p99_ms: 50 } }, stages: { 2: { batch_p99_ms: 200, failed_docs_max: 0 } } });
  const parsed = parseThresholds(text, { path: 't.json', phases: ['load'] });
  const t = k6Thresholds(parsed, ['load'], [], 2);
  assert.deepEqual(t['writepath_batch_duration{stage:2}'], ['p(99)<=200']);
  assert.deepEqual(t['writepath_docs_failed_known{stage:2}'], ['count<=0']);
  assert.throws(() => k6Thresholds(parsed, ['load'], [], 1), /THRESHOLDS=t\.json: limits stages\.2, but STAGES\/RATE_STAGES has only 1 stage$/);
  assert.throws(() => parseThresholds(JSON.stringify({ phases: {}, stages: { first: {} } }), { path: 't.json', phases: ['load'] }), /stages\."first" is not a stage number/);
  assert.throws(() => parseThresholds(JSON.stringify({ phases: {}, stages: { 1: { dropped_iterations_max: 0 } } }), { path: 't.json', phases: ['load'] }), /stages\.1\.dropped_iterations_max is unknown/);
});

// Issue 27 (hostile trial): an argument the search does not take (`--help`, a k6 flag) ran a
// whole capacity search and was dropped without a word; it is one line and exit 107 now,
// before any step runs (no database is needed to see it: the refusal comes first).
test('scripts/capacity.mjs refuses an argument it does not take: one line, 107, no search run', async () => {
  const { spawnSync } = await import('node:child_process');
  for (const arg of ['--help', '--vus']) {
    const r = spawnSync(process.execPath, [new URL('../../scripts/capacity.mjs', import.meta.url).pathname, arg, '-e', 'CAPACITY_OP=insert'], { encoding: 'utf8', timeout: 30000, env: { ...process.env, PG_URL: 'postgres://u@127.0.0.1:1/none' } });
    assert.equal(r.status, 107, r.stderr);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, new RegExp(`^k6-writepath capacity: "${arg}" is not allowed: scripts/capacity\\.mjs \\[run\\] \\[-e KNOB=value…\\] \\| plan .*\\n$`));
  }
});

test('the knee line agrees with the steps: a rate that passed 2 of 3 is said to, not called a failure; the curve has one point per rate, in rate order', () => {
  const steps = judged([step(60, 100), step(60, 110), step(60, 120), step(70, 150), step(70, 250), step(70, 160), step(80, 300), step(80, 320), step(80, 310)]).map((s, i) => ({ ...s, n: i + 1 }));
  const c = { id: 'x', target: 'postgres', op: 'upsert', slo_ms: 200, batch_size: 100, ladder: { start: 10, factor: 2, max: 400, resolution: 0.1, warmup: '1s', hold: '3s', repeat: 3 }, steps, knee: kneeOf(steps) };
  const t = capacityText(c);
  assert.match(t, /knee \(the highest rate every step of which passed\): 60 batches\/s/);
  assert.match(t, /70\/s passed only 2 of 3 steps \(the others went past the SLO\), so it is not counted as within capacity/);
  assert.doesNotMatch(t, /70\/s went past the SLO/);
  // Steps recorded out of rate order (bisection, repeats): the p99 line visits 60, 70, 80 once each.
  const shuffled = { ...c, steps: [steps[6], steps[0], steps[3], steps[1], steps[7], steps[4], steps[2], steps[5], steps[8]] };
  const svg = capacityChart([shuffled]);
  const line = /<polyline[^>]*points="([^"]+)"/.exec(svg)[1].split(' ').map((p) => Number(p.split(',')[0]));
  assert.equal(line.length, 3, 'one point per rate');
  assert.deepEqual([...line].sort((a, b) => a - b), line, 'in rate order (x grows with the rate here)');
});

// Issue 40 item 19: CAPACITY_HOLD=99999h passed `plan` and failed at step 1, after the search
// had created its folder. The search's knobs are declared in lib/knobs.js (scope tool:capacity)
// and parsed by the pack's parser: every duration within a RATE_STAGES stage's range, the rates
// within a stage's cap, the top step's pre-load within DOCS's range; `plan` and a run refuse
// alike, in one line, 107, before anything is created.
test('CAPACITY_HOLD and every duration of the search are checked against their range before anything is created', async () => {
  const { spawnSync } = await import('node:child_process');
  const { existsSync, mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const path = (await import('node:path')).default;
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-caphold-'));
  const cases = [
    [{ CAPACITY_HOLD: '99999h' }, /^k6-writepath capacity: CAPACITY_HOLD="99999h" is not allowed: a duration from 1s to 720h/],
    [{ CAPACITY_WARMUP: '99999h', CAPACITY_OP: 'insert' }, /^k6-writepath capacity: CAPACITY_WARMUP="99999h" is not allowed: a duration from 1s to 720h/],
    [{ CAPACITY_HOLD: '500ms' }, /^k6-writepath capacity: CAPACITY_HOLD="500ms" is not allowed: a duration from 1s/],
    [{ CAPACITY_HOLD: '700h' }, /^k6-writepath capacity: CAPACITY_MAX=400 is not allowed with BATCH_SIZE=100, CAPACITY_WARMUP=2s, CAPACITY_HOLD=700h: .* above DOCS's 1000000000/],
    [{ CAPACITY_MAX: '200000', CAPACITY_OP: 'insert' }, /^k6-writepath capacity: CAPACITY_MAX="200000" is not allowed: a whole number from 1 to 100000/],
    [{ CAPACITY_ID: 'Not_Ok' }, /^k6-writepath capacity: CAPACITY_ID="Not_Ok" is not allowed: 1-28 characters/],
  ];
  for (const [env, re] of cases) {
    for (const cmd of ['plan', 'run']) {
      const out = path.join(dir, `out-${cmd}`);
      const r = spawnSync(process.execPath, [new URL('../../scripts/capacity.mjs', import.meta.url).pathname, cmd], { encoding: 'utf8', timeout: 30000, env: { ...process.env, PG_URL: 'postgres://u@127.0.0.1:1/none', CAPACITY_OUT: out, ...env } });
      assert.equal(r.status, 107, `${cmd} ${JSON.stringify(env)}: ${r.stdout}${r.stderr}`);
      assert.equal(r.stdout, '', `${cmd} ${JSON.stringify(env)}`);
      assert.match(r.stderr, re, `${cmd} ${JSON.stringify(env)}`);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.equal(existsSync(out), false, `${cmd} ${JSON.stringify(env)}: nothing created`);
    }
  }
});
