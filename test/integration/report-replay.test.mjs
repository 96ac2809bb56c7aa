// A ramped run describes itself to the report through describe() and sections() only
// (lib/run-init.js refuses a workload that still exports report()): the summary data k6
// handed to handleSummary at the end of real ramped runs (test/integration/fixtures/
// *.summary-data.json) is fed to the scenarios' own handleSummary by the real k6, and the
// text, summary.json, junit.xml and report.html must say what the recorded figures say.
// REPLAY_SET changes recorded figures to reach the failure paths (the recorded threshold
// verdicts stay as k6 gave them, so `passed` there depends on the verification only).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runK6 } from '../helpers/k6.mjs';

// PostgreSQL is reached through the pack's gateway, which a replay never calls: a URL is enough.
const GATEWAY_URL = 'http://127.0.0.1:1';
const arangobench = (set = '') => runK6('test/integration/fixtures/replay-summary-arangobench.js',
  { ARANGO_URL: 'http://127.0.0.1:1', ARANGOBENCH_CASE: 'crud', VUS: '3', STAGES: '1s:1,1s:3', RUN_ID: 'replay_ab_crud', REPLAY_SET: set });
const e1 = (set = '') => runK6('test/integration/fixtures/replay-summary-e1.js',
  { PG_URL: 'postgres://k6:unused@127.0.0.1:1/none?sslmode=disable', GATEWAY_URL, RATE_STAGES: '1s:10,2s:20', PHASES: 'load,overwrite', DOCS: '12000', BATCH_SIZE: '100', VUS: '4', RUN_ID: 'replay_e1_ow', REPLAY_SET: set });
const lines = (r) => r.stdout.split('\n');
const file = (r, name) => readFileSync(path.join(r.dir, name), 'utf8');

test('ramped arangobench crud: its own header line, E3 table before, stages after, held against inserts minus acknowledged deletes', async () => {
  const r = await arangobench();
  assert.equal(r.code, 0, r.stderr);
  const l = lines(r);
  assert.equal(l[0], 'arangobench case crud (E3 shape): one operation = one single-document request');
  assert.deepEqual(l.filter((x) => x.startsWith('workload: ')), ['workload: ramping VUs 1s:1,1s:3 (one iteration = one cycle of 5 operations) · case crud · complexity 10']);
  assert.ok(l.includes('verification: expected 0, found 0 — OK (acknowledged: 2829 new documents, 2829 deletes)'), r.stdout);
  // The per-stage section follows the common report (after its results line).
  const head = l.indexOf('per stage (batches of 1, rows are operations, one per request; ramping VUs 1s:1,1s:3):');
  assert.ok(head > l.findIndex((x) => x.startsWith('results: ')), r.stdout);
  assert.match(l[head + 2], /^1 +1 +6165 +6165 +0 /);
  assert.match(l[head + 3], /^2 +3 +7980 +7980 +0 /);
  assert.equal(file(r, 'summary.txt'), r.stdout);
  const s = r.summary;
  const v = s.verification;
  assert.deepEqual([v.expected, v.acknowledged_new, v.acknowledged_deletes, v.found, v.lost, v.unexpected, v.count_ok], [0, 2829, 2829, 0, 0, 0, true]);
  assert.equal(s.passed, true);
  assert.deepEqual(s.load_model, { model: 'closed', stages: '1s:1,1s:3', vus: 3, max_vus: 3 });
  assert.deepEqual(s.stages.map((x) => [x.stage, x.target_vus, x.batches, x.docs_ok]), [[1, 1, 6165, 6165], [2, 3, 7980, 7980]]);
  assert.equal(s.e3.requests_done, 14145);
  assert.deepEqual(Object.keys(s).slice(-4), ['passed', 'e3', 'load_model', 'stages']);
  // junit.xml judges the count as the text does (before, it held a passing crud run against its inserts).
  // (8: thresholds and the count; arangobench reads nothing back, and the report says so
  // instead of "0 keys checked — OK".)
  assert.match(r.junit, /<testsuites tests="8" failures="0">/);
  assert.ok(l.includes('read-back: not part of this run'), r.stdout);
  assert.match(r.junit, /<testcase classname="arangodb.arangobench" name="verification: document count"\/>/);
  const html = file(r, 'report.html');
  assert.match(html, /<h2>Stages \(closed model: VUs 1s:1,1s:3\)<\/h2>/);
});

test('ramped arangobench crud with documents left over: FAILED in text, summary.json and junit.xml, counted against inserts minus deletes', async () => {
  const r = await arangobench('writepath_verify_found=5');
  assert.equal(r.code, 0, r.stderr); // handleSummary's exit code is k6's (thresholds), the verdict is in the report
  assert.ok(lines(r).includes('verification: expected 0, found 5 — FAILED (acknowledged: 2829 new documents, 2829 deletes)'), r.stdout);
  const v = r.summary.verification;
  assert.deepEqual([v.expected, v.found, v.lost, v.unexpected, v.count_ok], [0, 5, 0, 5, false]);
  assert.equal(r.summary.passed, false);
  assert.match(r.junit, /name="verification: document count"><failure message="expected 0, found 5"\/>/);
});

test('ramped E1 overwrite: its own header line, stages after, overwrites_unaccounted and ramp_keys_exhausted in the verification', async () => {
  const r = await e1();
  assert.equal(r.code, 0, r.stderr);
  const l = lines(r);
  assert.deepEqual(l.filter((x) => x.startsWith('workload: ')), ['workload: open model, arrival rate 1s:10,2s:20 batches/s (VUs 4…100) · overwrite phase ramps · batches of 100 · e1 documents · overwrites random keys of 12000 pre-loaded · seed 1']);
  assert.ok(l.includes('verification: expected 12000, found 12000 — OK (acknowledged new documents; lost 0, unexpected 0)'), r.stdout);
  const head = l.indexOf('per stage (batches of 100, phase overwrite; open model, arrival rate 1s:10,2s:20 batches/s (VUs 4…100)):');
  assert.ok(head > 0, r.stdout);
  assert.match(l[head + 2], /^1 +10\/s +10 +1000 +0 .* 0$/);
  assert.match(l[head + 3], /^2 +20\/s +41 +4100 +0 .* 0$/);
  assert.deepEqual(l.slice(head + 4), ['']);
  const s = r.summary;
  assert.deepEqual([s.verification.count_ok, s.verification.overwrites_unaccounted, s.verification.ramp_keys_exhausted], [true, 0, 0]);
  assert.deepEqual(s.load_model, { model: 'open', stages: '1s:10,2s:20', vus: 4, max_vus: 100 });
  assert.deepEqual(s.stages.map((x) => [x.target_rate, x.batches, x.dropped_iterations]), [[10, 10, 0], [20, 41, 0]]);
  assert.equal(s.passed, true);
  assert.match(file(r, 'report.html'), /<h2>Stages \(open model: batches\/s 1s:10,2s:20\)<\/h2>/);
});

test('ramped E1 overwrite failure paths: unaccounted overwrites (either sign), exhausted keys, verification that did not run', async () => {
  const lost = await e1('writepath_verify_overwrites_unaccounted=3,writepath_ramp_keys_exhausted=2');
  assert.deepEqual(lines(lost).slice(-3), [
    'overwrites: 3 acknowledged overwrites not found in the database — FAILED',
    'overwrite ramp: 2 batches found no unused keys (raise DOCS or shorten the stages) — FAILED',
    '',
  ]);
  assert.deepEqual([lost.summary.verification.overwrites_unaccounted, lost.summary.verification.ramp_keys_exhausted], [3, 2]);
  const extra = await e1('writepath_verify_overwrites_unaccounted=-4');
  // More keys at a ramp batch's version than were acknowledged, none undetermined: batches
  // reported failed that were applied after all; nothing lost (lib/readback.js 'unacknowledged').
  assert.equal(lines(extra).at(-2), 'overwrites: 4 keys hold the version of a batch reported failed (applied after all: nothing lost)');
  assert.equal(extra.summary.verification.overwrites_unaccounted, -4);
  assert.equal(extra.summary.verification.overwrites_unacknowledged, 4);
  const none = await e1('writepath_verify_found=absent');
  assert.ok(lines(none).includes('verification: did not run: teardown did not finish'), none.stdout);
  assert.deepEqual(none.summary.verification, { ran: false, why: 'teardown did not finish', overwrites_unaccounted: 0, ramp_keys_exhausted: 0, overwrites_undetermined: 0, overwrites_undetermined_stored: 0, overwrites_unacknowledged: 0 });
  assert.equal(none.summary.passed, false);
});

// Byte for byte: recorded runs of every scenario (fixed plans with failed documents, ramped
// runs, E3's table) replayed through today's code must write exactly the files the code before
// issue 25 wrote from the same data (fixtures/golden/<case>/, written by commit fc0b5e5's
// lib/). The folder of the results is the only part that differs between two replays and is
// replaced by $RESULTS_DIR. A change that means to alter a report rewrites its golden files in
// its own commit (GOLDEN_WRITE=1 node --test test/integration/report-replay.test.mjs) and says
// why; MEANT lists the changes made on purpose since, applied to the recorded files.
const GOLDEN = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures', 'golden');
const OUTPUTS = ['summary.txt', 'summary.json', 'junit.xml', 'report.html'];
const GOLDEN_CASES = {
  'postgres-e1-fixed': ['replay-summary-e1.js', 'fixed-pg-e1', { PG_URL: 'postgres://k6:unused@127.0.0.1:1/none?sslmode=disable', GATEWAY_URL, DOCS: '4000', BATCH_SIZE: '500', VUS: '2', OVERWRITE_BATCHES: '4', MIXED_BATCHES: '2', MIXED_OP: 'insert' }],
  'postgres-e1-ramped': ['replay-summary-e1.js', 'ramped-e1-overwrite-postgres', { PG_URL: 'postgres://k6:unused@127.0.0.1:1/none?sslmode=disable', GATEWAY_URL, RATE_STAGES: '1s:10,2s:20', PHASES: 'load,overwrite', DOCS: '12000', BATCH_SIZE: '100', VUS: '4' }],
  'arangodb-e1-fixed': ['replay-summary-arangodb-e1.js', 'fixed-arango-e1', { ARANGO_URL: 'http://127.0.0.1:1', DOCS: '3000', BATCH_SIZE: '300', VUS: '2', OVERWRITE_BATCHES: '4', MIXED_BATCHES: '2', MIXED_OP: 'insert' }],
  'arangobench-crud-fixed': ['replay-summary-arangobench.js', 'fixed-arangobench-crud', { ARANGO_URL: 'http://127.0.0.1:1', ARANGOBENCH_CASE: 'crud', REQUESTS: '500', VUS: '2' }],
  'arangobench-crud-ramped': ['replay-summary-arangobench.js', 'ramped-arangobench-crud', { ARANGO_URL: 'http://127.0.0.1:1', ARANGOBENCH_CASE: 'crud', VUS: '3', STAGES: '1s:1,1s:3' }],
  'ravendb-e1-fixed': ['replay-summary-ravendb-e1.js', 'fixed-raven-e1', { RAVEN_URL: 'http://127.0.0.1:1', DOCS: '3000', BATCH_SIZE: '300', VUS: '2', OVERWRITE_BATCHES: '4', MIXED_BATCHES: '2' }],
  'ravendb-bulk-ramped': ['replay-summary-ravendb-bulk.js', 'ramped-raven-bulk', { RAVEN_URL: 'http://127.0.0.1:1', STAGES: '1s:1,1s:2', BATCH_SIZE: '200' }],
};
// [case or '*', output file, (text, golden folder) -> text]: what changed on purpose since the
// goldens were written. They were last rewritten (GOLDEN_WRITE=1) with issue 25's describe()
// line in report.html and the targets' knobs after the others in summary.json's config, issue
// 27's GIVE_UP and issue 29's contention knobs (HOT_KEYS, SPREAD_KEYS, CONFLICT_RETRIES) in the
// config; rewritten again (commit before the verdict refactor, from that commit's lib/) with
// the gateway's knobs, undetermined documents, retries and threshold units; and once more for
// docs_failed_known per phase in summary.json (what failed_docs_max limits); nothing since:
const MEANT = [];

for (const [name, [fixture, data, env]] of Object.entries(GOLDEN_CASES)) {
  test(`byte-identical report of a recorded run: ${name}`, async () => {
    const recorded = JSON.parse(readFileSync(path.join(GOLDEN, '..', `${data}.summary-data.json`), 'utf8'));
    const r = await runK6(`test/integration/fixtures/${fixture}`, { ...env, REPLAY_DATA: `${data}.summary-data.json`, RUN_ID: recorded.setup_data.runId });
    assert.equal(r.code, 0, r.stderr);
    const dir = path.join(GOLDEN, name);
    for (const out of OUTPUTS) {
      const got = file(r, out).split(path.dirname(r.dir)).join('$RESULTS_DIR');
      if (process.env.GOLDEN_WRITE === '1') {
        mkdirSync(dir, { recursive: true });
        writeFileSync(path.join(dir, out), got);
        continue;
      }
      let want = readFileSync(path.join(dir, out), 'utf8');
      for (const [c, o, change] of MEANT) if ((c === '*' || c === name) && o === out) want = change(want, dir);
      assert.ok(got === want, `${name}/${out} differs from the recorded output:\n${firstDifference(got, want)}`);
    }
  });
}

function firstDifference(got, want) {
  const g = got.split('\n'); const w = want.split('\n');
  for (let i = 0; i < Math.max(g.length, w.length); i++) {
    if (g[i] !== w[i]) return `line ${i + 1}\n  now:    ${g[i]}\n  before: ${w[i]}`;
  }
  return '(same lines, other bytes)';
}

// The contention workload (docs/contention.md): one row per step, the counters' verdict from
// teardown's metrics, and a lost increment failing the verdict in every output.
const contention = (set = '') => runK6('test/integration/fixtures/replay-summary-contention.js',
  { PG_URL: 'postgres://k6:unused@127.0.0.1:1/none?sslmode=disable', GATEWAY_URL, STAGES: '1s:1,1s:4', HOT_KEYS: '1,10', SPREAD_KEYS: '100', RUN_ID: 'replay_ctn', REPLAY_SET: set });

test('contention: a row per step (hot set × load) with ops, ops/s, p50/p99, vs spread; counters verified in text, summary.json, junit.xml and report.html', async () => {
  const r = await contention();
  assert.equal(r.code, 0, r.stderr);
  const l = lines(r);
  const head = l.indexOf('hot keys        VUs           ops     ops/s   p50 ms   p99 ms  failed  retries  vs spread');
  assert.ok(head > 0, r.stdout);
  assert.deepEqual(l.slice(head + 1, head + 7).map((x) => x.split(/\s{2,}/).slice(0, 3).join('|')),
    ['1|1|312', '1|4|437', '10|1|276', '10|4|700', '100 (spread)|1|358', '100 (spread)|4|719']);
  assert.ok(l.includes('counters: 100 read back against the VUs\' ledgers: lost 0, phantom 0 — OK'), r.stdout);
  assert.ok(l.includes('verification: expected 100, found 100 — OK (counters created before the load; each is read back below against the VUs\' ledgers)'), r.stdout);
  const s = r.summary;
  assert.deepEqual(s.contention.map((x) => [x.step, x.hot_keys, x.spread, x.load, x.ops]), [[1, 1, false, '1', 312], [2, 1, false, '4', 437], [3, 10, false, '1', 276], [4, 10, false, '4', 700], [5, 100, true, '1', 358], [6, 100, true, '4', 719]]);
  assert.equal(s.contention[4].vs_spread, 1);
  assert.equal(s.contention[1].vs_spread, s.contention[1].ops_per_s / s.contention[5].ops_per_s);
  assert.deepEqual([s.verification.counters_checked, s.verification.increments_lost, s.verification.increments_phantom, s.verification.ledger_unstored, s.verification.counters_ok, s.verification.ok, s.passed], [100, 0, 0, 0, true, true, true]);
  assert.match(r.junit, /<testcase classname="postgres.contention" name="writepath_counter_lost count==0"\/>/);
  const html = file(r, 'report.html');
  assert.match(html, /<table id="contention">/);
  // The chart of time per operation: p50 and p99 of every step, the table's figures (bar
  // labels as lib/svg-chart.js writes them: one decimal below 100 ms).
  const fmt = (ms) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));
  for (const x of s.contention) {
    const step = `${x.hot_keys}${x.spread ? ' (spread)' : ''} × ${x.load}`;
    assert.ok(html.includes(`<title>${step} · p50: ${fmt(x.op_ms.median)} ms</title>`), step);
    assert.ok(html.includes(`<title>${step} · p99: ${fmt(x.op_ms.p99)} ms</title>`), step);
  }
});

test('contention with lost increments: FAILED in the counters line, verification.ok and passed false, junit names the threshold', async () => {
  const r = await contention('writepath_counter_lost=3');
  assert.ok(lines(r).includes('counters: 100 read back against the VUs\' ledgers: lost 3, phantom 0 — FAILED'), r.stdout);
  const v = r.summary.verification;
  assert.deepEqual([v.increments_lost, v.counters_ok, v.ok, r.summary.passed], [3, false, false, false]);
  assert.match(file(r, 'report.html'), /lost increments 3, phantom 0 — FAILED/);
  // report.html's first line names what failed: the counters.
  assert.match(file(r, 'report.html'), /id="verdict">FAILED: [^<]*counters: 3 increments lost, 0 phantom</);
  // Ledgers that never reached the database make the verification incomplete: FAILED too.
  const u = await contention('writepath_ledger_unstored=7');
  assert.ok(lines(u).includes('counters: 100 read back against the VUs\' ledgers: lost 0, phantom 0, 7 increments in ledgers that were not stored — FAILED'), u.stdout);
  assert.equal(u.summary.verification.ok, false);
  // Teardown never ran: no counters verdict, said in words.
  const t = await contention('writepath_counters_checked=absent');
  assert.ok(lines(t).includes('counters: not verified (teardown did not run)'), t.stdout);
  assert.equal(t.summary.verification.counters_ok, false);
});
