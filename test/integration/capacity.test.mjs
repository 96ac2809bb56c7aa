// Capacity search (scripts/capacity.mjs, docs/capacity.md) end to end with the real k6:
// against the API test servers with a load-dependent latency (-load-knee-rps: latency flat up
// to the configured write rate, then a wall), the knee found must be the configured one
// within one step of the ladder; against the real PostgreSQL, every step must be verified
// and accounted for (its speed is never asserted). Test servers are test doubles, never
// something to benchmark.
//
// Never a test of the machine's speed: the SLO (2 s) and the wall past the configured knee
// (4 s and more) are far from anything a busy machine adds to a 5–10 ms test-server answer
// (p99 of 0.3 s seen at load 16 on 2 cores); with the former 200 ms SLO a step far below the
// knee failed on such a machine. What holds whatever the load is asserted for every step: a
// step above the knee never passes, the knee is never above the configured one, every step is
// verified and accounted for, and every output says TEST ENDPOINT.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { localEnv } from '../helpers/k6.mjs';
import { repoRoot, startTestServer } from '../helpers/testserver.mjs';

function capacity(args, env = {}) {
  const child = spawn(process.execPath, [path.join(repoRoot, 'scripts', 'capacity.mjs'), ...args], {
    cwd: repoRoot, env: { ...process.env, WP_INFLUX: '0', K6_NO_USAGE_REPORT: 'true', ...env },
  });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { out += d; });
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, out })));
}

const KNEE = 22; // batches/s the test servers are configured for
const SLO_MS = 2000; // the p99 SLO of the searches below (their threshold file)
const OVER_MS = 4000; // a write just past the knee waits this long (and longer further up): twice the SLO
// 6, 12, 24 (past the knee), then bisection: 18, 21, 23 → stops when the last pass and the
// first failure are at most 15 % of the rate apart.
// Then the knee, the first failing rate and the lowest rate that never passed run twice.
const LADDER = { CAPACITY_START: '6', CAPACITY_FACTOR: '2', CAPACITY_MAX: '48', CAPACITY_RESOLUTION: '0.15', CAPACITY_WARMUP: '1s', CAPACITY_HOLD: '3s', CAPACITY_REPEAT: '2' };

for (const [name, urlKnob] of [['arangodb', 'ARANGO_URL'], ['ravendb', 'RAVEN_URL']]) {
  test(`${name} test server with its knee at ${KNEE} writes/s: the search finds it within one step`, { timeout: 300000 }, async () => {
    const knee = ['-load-knee-rps', String(KNEE), '-load-over-ms', String(OVER_MS)];
    const srv = await startTestServer(name, name === 'arangodb' ? ['-no-auth', ...knee] : knee);
    const out = mkdtempSync(path.join(tmpdir(), 'k6wp-cap-'));
    const thresholds = path.join(out, 'slo.json');
    writeFileSync(thresholds, JSON.stringify({ phases: { load: { batch_p99_ms: SLO_MS, failed_docs_max: 0, dropped_iterations_max: 0 } }, verify: true }));
    try {
      const r = await capacity(['-e', `${urlKnob}=${srv.url}`, '-e', 'BATCH_SIZE=50', '-e', 'DOC_POOL=100', '-e', `THRESHOLDS=${thresholds}`],
        { ...LADDER, CAPACITY_TARGET: name, CAPACITY_OP: 'insert', CAPACITY_OUT: out, CAPACITY_ID: `t${name.slice(0, 3)}${process.pid}` });
      assert.equal(r.code, 0, r.out);
      const c = JSON.parse(readFileSync(path.join(out, 'capacity.json'), 'utf8'));
      const k = c.knee;
      // The configured knee lies in the span the search reports: the knee found is never above
      // it, and the lowest rate where no step passed is at or above it. (Steps near the knee may
      // go either way — the server counts arrivals over 2 s, edges included, and a busy machine
      // delays batches — which is what the repeats show: "how sure".)
      const step = Math.max(1, Math.floor(0.15 * KNEE));
      assert.equal(k.limited_by, 'slo', r.out);
      assert.ok(k.rate <= KNEE && k.first_failing_rate > k.rate && k.boundary.to >= KNEE, `knee ${k.rate}, first failure ${k.first_failing_rate}, boundary ${JSON.stringify(k.boundary)}\n${r.out}`);
      assert.ok(k.p99_ms < c.slo_ms);
      // Accounting: every step verified, nothing failed or dropped at or below the knee, and
      // the measured stage of each passing step ran its rate x hold batches (±1 at the edges).
      for (const s of c.steps) {
        assert.equal(s.verified, true, `step ${s.n}`);
        assert.equal(s.docs_failed, 0);
        assert.equal(s.docs_ok, s.batches * 50);
        if (s.verdict === 'pass') {
          assert.equal(s.dropped_iterations, 0);
          // The measured stage ran at its rate for its hold (k6 starts rate x hold iterations;
          // one may fall to either side of the edge, a few more on a stalled machine).
          assert.ok(s.batches <= s.rate * 3 + 1 && s.batches >= Math.floor(s.rate * 3 * 0.8), `step ${s.n}: ${s.batches} batches at ${s.rate}/s`);
        }
        // Past the knee the wall (>= 4 s) is far above the SLO: such a step never passes,
        // however fast or slow the machine. Well below it, a step passes unless the machine
        // stalled the client for seconds.
        if (s.rate > KNEE + 1) assert.equal(s.verdict, 'slo', `step ${s.n} at ${s.rate}/s`);
        if (s.rate < KNEE - 2 * step) assert.equal(s.verdict, 'pass', `step ${s.n} at ${s.rate}/s: p99 ${s.batch_ms.p99} ms`);
        // Each step's own summary.json is kept next to capacity.json.
        assert.ok(existsSync(path.join(out, 'steps', s.run_id, 'summary.json')));
      }
      // Ladder: coarse ×2, then bisection, then the rates around the knee again until each ran twice.
      const rates = c.steps.map((s) => s.rate);
      assert.deepEqual(rates.slice(0, 3), [6, 12, 24]);
      assert.equal(rates.filter((x) => x === k.rate).length, 2, 'the knee ran twice');
      assert.equal(rates.filter((x) => x === k.first_failing_rate).length, 2, 'the first failure ran twice');
      assert.equal(k.knee_runs.passed, 2);
      assert.match(r.out, new RegExp(`knee \\(the highest rate every step of which passed\\): ${k.rate} batches/s = \\d+ docs/s at p99 [\\d.]+ ms \\(SLO ${SLO_MS} ms\\)`));
      assert.match(r.out, new RegExp(`^  how sure: ${k.rate}/s passed 2 of 2, ${k.first_failing_rate}/s passed ${k.failing_runs.passed} of 2.*; the boundary lies between ${k.rate} and ${k.boundary.to} batches/s$`, 'm'));
      // A test server answered: every output of the search says so.
      assert.equal(c.test_endpoint, true);
      assert.match(r.out, new RegExp(`^k6-writepath capacity · TEST ENDPOINT · ${name} · insert · `, 'm'));
      assert.match(readFileSync(path.join(out, 'capacity.txt'), 'utf8'), /^TEST ENDPOINT: a k6-writepath API test server answered, not a database/m);
      assert.match(readFileSync(path.join(out, 'capacity.html'), 'utf8'), /<title>k6-writepath capacity · TEST ENDPOINT · /);
      const svg = readFileSync(path.join(out, 'capacity.svg'), 'utf8');
      assert.match(svg, /^<svg /);
      // One point per rate tried (the median of its steps), for p50 and p99.
      const ratesTried = new Set(c.steps.map((st) => st.rate)).size;
      assert.equal((svg.match(/<circle /g) || []).length >= 2 * ratesTried, true, 'a point per rate for p50 and p99');
      assert.match(readFileSync(path.join(out, 'capacity.html'), 'utf8'), /<figure id="curve"><svg/);
      // Reproducible: the knee recomputed from the recorded steps is the same.
      const again = await capacity(['knee', out]);
      assert.equal(again.code, 0, again.out);
      assert.match(again.out, new RegExp(`knee \\(the highest rate every step of which passed\\): ${k.rate} batches/s`));
    } finally {
      await srv.stop();
    }
  });
}

test('PostgreSQL upsert on a pre-loaded table: every step verified key by key, knee or "not reached" printed, curve drawn', { timeout: 300000 }, async () => {
  const env = localEnv();
  const out = mkdtempSync(path.join(tmpdir(), 'k6wp-cap-'));
  const r = await capacity(['-e', 'DOCS=20000', '-e', 'BATCH_SIZE=100'],
    { PG_URL: env.PG_URL, CAPACITY_TARGET: 'postgres', CAPACITY_OP: 'upsert', CAPACITY_START: '10', CAPACITY_MAX: '20', CAPACITY_WARMUP: '1s', CAPACITY_HOLD: '3s', CAPACITY_OUT: out, CAPACITY_ID: `tpg${process.pid}` });
  assert.equal(r.code, 0, r.out);
  const c = JSON.parse(readFileSync(path.join(out, 'capacity.json'), 'utf8'));
  assert.equal(c.op, 'upsert');
  assert.ok(c.steps.length >= 1);
  for (const s of c.steps) {
    assert.equal(s.verified, true, `step ${s.n}`);
    const sum = JSON.parse(readFileSync(path.join(out, 'steps', s.run_id, 'summary.json'), 'utf8'));
    // The pre-load, then the ramped overwrite; every one of the 20000 keys read back.
    assert.equal(sum.phases[0].docs_ok, 20000);
    assert.equal(sum.verification.found, 20000);
    assert.equal(sum.verification.readback_checked, 20000);
    assert.equal(sum.verification.readback_stale_or_missing, 0);
    assert.equal(sum.verification.overwrites_unaccounted, 0);
    assert.equal(sum.stages.length, 2);
    assert.equal(sum.stages[1].docs_ok, s.docs_ok);
  }
  assert.match(r.out, /knee(?: \(the highest rate every step of which passed\))?: (\d+ batches\/s = [\d,]+ docs\/s|not reached|none)/);
  assert.ok(existsSync(path.join(out, 'capacity.svg')));
});

test('MongoDB upsert on a pre-loaded collection: the capacity ladder on a real mongod, every step verified key by key', { timeout: 300000 }, async () => {
  const env = localEnv();
  const out = mkdtempSync(path.join(tmpdir(), 'k6wp-cap-'));
  const r = await capacity(['-e', 'DOCS=20000', '-e', 'BATCH_SIZE=100'],
    { MONGO_URL: env.MONGO_URL, CAPACITY_TARGET: 'mongodb', CAPACITY_OP: 'upsert', CAPACITY_START: '10', CAPACITY_MAX: '20', CAPACITY_WARMUP: '1s', CAPACITY_HOLD: '3s', CAPACITY_OUT: out, CAPACITY_ID: `tmg${process.pid}` });
  assert.equal(r.code, 0, r.out);
  const c = JSON.parse(readFileSync(path.join(out, 'capacity.json'), 'utf8'));
  assert.equal(c.target, 'mongodb');
  assert.ok(c.steps.length >= 1);
  for (const s of c.steps) {
    assert.equal(s.verified, true, `step ${s.n}`);
    const sum = JSON.parse(readFileSync(path.join(out, 'steps', s.run_id, 'summary.json'), 'utf8'));
    assert.equal(sum.target, 'mongodb');
    assert.equal(sum.verification.found, 20000);
    assert.equal(sum.verification.readback_checked, 20000);
    assert.equal(sum.verification.readback_stale_or_missing, 0);
  }
  assert.match(r.out, /knee(?: \(the highest rate every step of which passed\))?: (\d+ batches\/s = [\d,]+ docs\/s|not reached|none)/);
});

test('compare: two capacity runs, both knees and the ratio, one chart', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-capcmp-'));
  const mk = (id, target, steps) => ({ tool: 'k6-writepath', kind: 'capacity', id, target, op: 'insert', slo_ms: 200, batch_size: 100, ladder: {}, steps });
  const st = (n, rate, p99, docs) => ({ n, rate, docs_per_s: docs, batch_ms: { median: p99 / 2, p90: p99, p99, max: p99 }, docs_failed: 0, dropped_iterations: 0, verified: true, client_cpu_cores: 0.2, cores: 2 });
  writeFileSync(path.join(dir, 'a.json'), JSON.stringify(mk('a1', 'postgres', [st(1, 10, 20, 1000), st(2, 20, 30, 2000), st(3, 40, 900, 2500)])));
  writeFileSync(path.join(dir, 'b.json'), JSON.stringify(mk('b1', 'arangodb', [st(1, 10, 20, 1000), st(2, 20, 400, 1500)])));
  const r = await capacity(['compare', path.join(dir, 'a.json'), path.join(dir, 'b.json'), '--out', path.join(dir, 'cmp')]);
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, /A postgres insert \(a1\)\s+20\s+2000/);
  assert.match(r.out, /B arangodb insert \(b1\)\s+10\s+1000/);
  assert.match(r.out, /A\/B knee docs\/s: 2\.00x/);
  const svg = readFileSync(path.join(dir, 'cmp', 'compare.svg'), 'utf8');
  assert.match(svg, /postgres insert \(a1\) p99/);
  assert.match(svg, /arangodb insert \(b1\) p99/);
  // The same through scripts/compare.
  const viaCompare = await new Promise((resolve) => {
    const child = spawn(path.join(repoRoot, 'scripts', 'compare'), ['capacity', path.join(dir, 'a.json'), path.join(dir, 'b.json'), '--out', path.join(dir, 'cmp2')], { cwd: repoRoot });
    let o = ''; child.stdout.on('data', (d) => { o += d; }); child.stderr.on('data', (d) => { o += d; });
    child.on('exit', (code) => resolve({ code, o }));
  });
  assert.equal(viaCompare.code, 0, viaCompare.o);
  assert.match(viaCompare.o, /A\/B knee docs\/s: 2\.00x/);
  // Any number of searches in one chart.
  writeFileSync(path.join(dir, 'c.json'), JSON.stringify(mk('c1', 'ravendb', [st(1, 10, 20, 1000), st(2, 20, 30, 2000), st(3, 40, 50, 4000)])));
  const chart = await capacity(['chart', path.join(dir, 'a.json'), path.join(dir, 'b.json'), path.join(dir, 'c.json'), '--out', path.join(dir, 'chart')]);
  assert.equal(chart.code, 0, chart.out);
  assert.match(chart.out, /ravendb insert \(c1\): knee 40 batches\/s = 4000 docs\/s/);
  assert.equal((readFileSync(path.join(dir, 'chart', 'chart.svg'), 'utf8').match(/<polyline /g) || []).length, 6);
});

test('bad ladders and SLOs are bad input: one line, exit 107, nothing run', async () => {
  const cases = [
    [{ CAPACITY_FACTOR: '1' }, /CAPACITY_FACTOR="1" is not allowed: a number above 1/],
    [{ CAPACITY_START: '0' }, /CAPACITY_START="0" is not allowed: a whole number from 1 to 100000/],
    [{ CAPACITY_START: '50', CAPACITY_MAX: '10' }, /CAPACITY_MAX=10 is not allowed with CAPACITY_START=50: at least the start rate/],
    [{ CAPACITY_HOLD: '500ms' }, /CAPACITY_HOLD="500ms" is not allowed: a duration from 1s to 720h/],
    [{ CAPACITY_RESOLUTION: '0' }, /CAPACITY_RESOLUTION="0" is not allowed/],
    [{ CAPACITY_OP: 'merge' }, /CAPACITY_OP="merge" is not allowed with CAPACITY_TARGET=postgres: one of insert, upsert/],
    [{ CAPACITY_TARGET: 'cassandra' }, /CAPACITY_TARGET="cassandra" is not allowed: one of postgres, arangodb, ravendb, mongodb/],
    [{ THRESHOLDS: 'thresholds/postgres/insert-vs-overwrite.json', CAPACITY_OP: 'upsert' }, null],
    [{ CAPACITY_OP: 'upsert', DOCS: '1000', CAPACITY_MAX: '100' }, /DOCS=1000 is not allowed with CAPACITY_MAX=100, BATCH_SIZE=100,/],
    [{ CAPACITY_REPEAT: '0' }, /CAPACITY_REPEAT="0" is not allowed: a whole number from 1 to 20/],
    [{ RATE_STAGES: '1s:5' }, /RATE_STAGES is not allowed with the capacity search/],
  ];
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-capbad-'));
  const noSlo = path.join(dir, 'no-slo.json');
  writeFileSync(noSlo, JSON.stringify({ phases: { overwrite: { failed_docs_max: 0 } } }));
  cases[7] = [{ THRESHOLDS: noSlo, CAPACITY_OP: 'upsert' }, /THRESHOLDS=.*no-slo\.json: phases\.overwrite\.batch_p99_ms is not set: the capacity search needs the p99 SLO/];
  for (const [env, re] of cases) {
    const r = await capacity([], { PG_URL: 'postgres://x@127.0.0.1:1/x', CAPACITY_OUT: path.join(dir, 'out'), ...env });
    assert.equal(r.code, 107, `${JSON.stringify(env)}: ${r.out}`);
    assert.match(r.out, re);
    assert.equal(r.out.trim().split('\n').length, 1, r.out);
  }
  assert.equal(existsSync(path.join(dir, 'out')), false, 'nothing was written');
});

test('SIGTERM to the search\'s own pid: the running step is stopped and not counted, capacity.json keeps the steps done marked interrupted, knee says so, exit 105', { timeout: 240000 }, async () => {
  const srv = await startTestServer('arangodb', ['-no-auth']);
  const out = mkdtempSync(path.join(tmpdir(), 'k6wp-capint-'));
  try {
    const child = spawn(process.execPath, [path.join(repoRoot, 'scripts', 'capacity.mjs'), '-e', `ARANGO_URL=${srv.url}`, '-e', 'BATCH_SIZE=50', '-e', 'DOC_POOL=100'], {
      cwd: repoRoot,
      env: { ...process.env, WP_INFLUX: '0', K6_NO_USAGE_REPORT: 'true', ...LADDER, CAPACITY_HOLD: '20s', CAPACITY_TARGET: 'arangodb', CAPACITY_OP: 'insert', CAPACITY_OUT: out, CAPACITY_ID: `tint${process.pid}` },
    });
    let stdout = ''; let stderr = ''; let signalled = false;
    child.stderr.on('data', (d) => { stderr += d; });
    child.stdout.on('data', (d) => {
      stdout += d;
      // Step 1 done, step 2 starting: the signal goes to the search alone, not its process group.
      if (!signalled && /^ {2}step 1: /m.test(stdout)) { signalled = true; setTimeout(() => child.kill('SIGTERM'), 2000); }
    });
    const [code, signal] = await new Promise((resolve) => child.on('exit', (c, s) => resolve([c, s])));
    assert.equal(signal, null, stdout + stderr);
    assert.equal(code, 105, stdout + stderr);
    assert.equal(stderr.trim(), `k6-writepath capacity: SIGTERM: the search stopped during step 2 at 12/s (not counted; its run: ${path.join(out, 'steps', `tint${process.pid}_s02`)}); ${path.join(out, 'capacity.json')} has the 1 step done, marked interrupted (scripts/capacity.mjs knee ${out})`);
    assert.doesNotMatch(stdout, /step 2: /);
    const c = JSON.parse(readFileSync(path.join(out, 'capacity.json'), 'utf8'));
    assert.equal(c.steps.length, 1);
    assert.equal(c.steps[0].rate, 6);
    // The step's scripts/run got the signal and stopped its k6 the pack's way (105).
    assert.deepEqual(c.interrupted, { signal: 'SIGTERM', step: 2, rate: 12, run_id: `tint${process.pid}_s02`, exit: 105 });
    // knee reads the folder and says what it is.
    const k = await capacity(['knee', out]);
    assert.equal(k.code, 0, k.out);
    assert.match(k.out, /^INTERRUPTED \(SIGTERM\) during step 2 at 12\/s, not counted: the search is incomplete; what follows comes from the 1 step done$/m);
    assert.match(k.out, /^knee: (not reached before the interruption — every step up to 6 batches\/s|none — the first step)/m);
  } finally {
    await srv.stop();
  }
});
