import { test } from 'node:test';
import assert from 'node:assert/strict';
import { k6Thresholds, parseThresholds } from '../../lib/thresholds.js';
import { buildReport } from '../../lib/report.js';

const phases = ['load', 'overwrite', 'mixed'];
const opts = { path: 'thresholds/x.json', phases };

function errorOf(fn) {
  try { fn(); } catch (e) { return String(e); }
  return null;
}

test('a threshold file becomes k6 thresholds on per-phase sub-metrics', () => {
  const parsed = parseThresholds(JSON.stringify({
    phases: {
      load: { batch_p95_ms: 2000, batch_p99_ms: 5000, failed_docs_max: 0 },
      overwrite: { batch_avg_ms: 100, failed_batches_rate_max: 0.01, abort_on_fail: true },
    },
  }), opts);
  const t = k6Thresholds(parsed, ['load', 'overwrite'], ['unique_violation']);
  assert.deepEqual(t['writepath_batch_duration{phase:load}'], ['p(95)<=2000', 'p(99)<=5000']);
  // failed_docs_max limits the documents known to have failed; the undetermined ones have their
  // own sub-metric and no limit (docs/configuration.md, "What each threshold counts").
  assert.deepEqual(t['writepath_docs_failed_known{phase:load}'], ['count<=0']);
  assert.deepEqual(t['writepath_docs_failed{phase:load}'], []);
  assert.deepEqual(t['writepath_docs_undetermined{phase:load}'], []);
  const und = k6Thresholds(parseThresholds('{"phases":{"load":{"undetermined_docs_max":5}}}', opts), ['load']);
  assert.deepEqual(und['writepath_docs_undetermined{phase:load}'], ['count<=5']);
  assert.deepEqual(und['writepath_docs_failed_known{phase:load}'], []);
  // Undetermined new documents the count does not find are failed too, run-wide: with the known
  // ones, held against the sum of the phases' failed_docs_max, when every phase has one.
  const ranged = { count: 'acknowledged', ranged: true, readback: true };
  const both = parseThresholds('{"phases":{"load":{"failed_docs_max":2},"overwrite":{"failed_docs_max":3}}}', opts);
  assert.deepEqual(k6Thresholds(both, ['load', 'overwrite'], [], 0, ranged).writepath_docs_failed_resolved, ['count<=5']);
  assert.equal(k6Thresholds(both, ['load', 'overwrite', 'mixed'], [], 0, ranged).writepath_docs_failed_resolved, undefined, 'mixed has no limit');
  assert.equal(k6Thresholds(both, ['load', 'overwrite'], [], 0, { count: 'plan' }).writepath_docs_failed_resolved, undefined, 'no count of acknowledged documents');
  assert.deepEqual(t['writepath_batch_duration{phase:overwrite}'], ['avg<=100']);
  assert.deepEqual(t['writepath_batch_failed{phase:overwrite}'], [{ threshold: 'rate<=0.01', abortOnFail: true, delayAbortEval: '5s' }]);
  assert.deepEqual(t['writepath_docs_failed{phase:load,reason:unique_violation}'], []);
  assert.deepEqual(t.writepath_verify_mismatch, ['value==0']);
  assert.equal(t['writepath_batch_duration{phase:mixed}'], undefined, 'phases that do not run get no sub-metrics');
  const noVerify = k6Thresholds(parseThresholds('{"phases":{"load":{"failed_docs_max":0}},"verify":false}', opts), ['load']);
  assert.equal(noVerify.writepath_verify_mismatch, undefined);
});

test('malformed threshold files are refused with one line naming the file and the problem', () => {
  const cases = [
    ['{', /THRESHOLDS=thresholds\/x.json is not valid JSON/],
    ['[]', /must hold a JSON object with "phases"/],
    ['{"phases":{},"extra":1}', /unknown key "extra"/],
    ['{"phases":[]}', /"phases" must be an object/],
    ['{"phases":{"delete":{}}}', /unknown phase "delete"; this experiment has load, overwrite, mixed/],
    ['{"phases":{"load":{"p95":1}}}', /phases.load.p95 is unknown; allowed: batch_avg_ms/],
    ['{"phases":{"load":{"batch_p95_ms":-1}}}', /phases.load.batch_p95_ms=-1 must be a number >= 0/],
    ['{"phases":{"load":{"batch_p95_ms":"100"}}}', /phases.load.batch_p95_ms="100" must be a number >= 0/],
    ['{"phases":{"load":{"failed_batches_rate_max":2}}}', /must be a number from 0 to 1/],
    ['{"phases":{"load":{"abort_on_fail":"yes"}}}', /abort_on_fail="yes" must be true or false/],
    ['{"phases":{},"verify":"no"}', /"verify" must be true or false/],
  ];
  for (const [text, re] of cases) {
    const msg = errorOf(() => parseThresholds(text, opts));
    assert.ok(msg, `accepted: ${text}`);
    assert.match(msg, re);
    assert.equal(msg.split('\n').length, 1);
  }
});

function fakeSummary({ thresholdOk = true, found = 3000 } = {}) {
  const trend = (avg) => ({ type: 'trend', values: { min: avg / 2, med: avg, avg, 'p(90)': avg * 1.5, 'p(95)': avg * 1.7, 'p(99)': avg * 2, max: avg * 3, count: 2 } });
  const counter = (count) => ({ type: 'counter', values: { count, rate: 1 } });
  const m = {
    'writepath_batch_duration{phase:load}': { ...trend(10), thresholds: { 'p(95)<=2000': { ok: thresholdOk } } },
    'writepath_batch_duration{phase:overwrite}': trend(40),
    'writepath_docs_ok{phase:load}': counter(2000),
    'writepath_docs_new{phase:load}': counter(2000),
    'writepath_docs_ok{phase:overwrite}': counter(1500),
    'writepath_docs_failed{phase:overwrite}': counter(500),
    'writepath_docs_failed{phase:overwrite,reason:connection}': counter(500),
    'writepath_phase_clock{phase:load}': { type: 'gauge', values: { min: 1000, max: 2000, value: 2000 } },
    'writepath_phase_clock{phase:overwrite}': { type: 'gauge', values: { min: 2000, max: 4000, value: 4000 } },
    writepath_verify_expected: { type: 'gauge', values: { value: 2000 } },
    writepath_verify_found: { type: 'gauge', values: { value: found } },
    writepath_verify_mismatch: { type: 'gauge', values: { value: Math.abs(found - 2000) }, thresholds: { 'value==0': { ok: found === 2000 } } },
    writepath_readback_checked: { type: 'counter', values: { count: 100 } },
    writepath_readback_stale: { type: 'counter', values: { count: 0 } },
  };
  return { metrics: m, setup_data: { runId: 'r1', target: { serverVersion: '15.18', settings: { synchronous_commit: 'on' } } } };
}

const meta = { cfg: { RESULTS_DIR: 'results', DOC_SHAPE: 'e1', KEY_DIST: 'uniform', SEED: 1 }, description: {
  line: 'workload: 2 VUs · batches of 1000 · e1 documents · keys uniform · seed 1',
  plan: { vus: 2, batch_size: 1000, load_batches: 2, overwrite_batches: 2, mixed_batches: 0, new_keys_per_mixed_batch: 0, expected_docs: 2000 },
  plannedBatches: 4,
}, phases: ['load', 'overwrite'], target: 'postgres', experiment: 'insert-vs-overwrite', reasons: ['connection'], ops: { load: 'insert', overwrite: 'upsert' } };

test('the report has E1\'s table, ratios, verification and failure reasons', () => {
  const r = buildReport(fakeSummary({ found: 2000 }), meta);
  assert.match(r.text, /load\s+insert\s+2\s+2000\s+0\s+2000 /);
  assert.match(r.text, /overwrite\s+upsert\s+2\s+1500\s+500\s+750 /);
  assert.match(r.text, /overwrite\/load ratio \(this run, n=1\): average 4.00x · median 4.00x · p99 4.00x/);
  assert.match(r.text, /overwrite: 500 documents failed: connection 500/);
  assert.match(r.text, /verification: expected 2000, found 2000 — OK/);
  assert.equal(r.json.phases[1].docs_per_s, 750);
  assert.equal(r.json.phases[0].batch_ms.p99, 20);
  assert.equal(r.json.verification.count_ok, true);
  assert.equal(r.json.passed, true);
  assert.match(r.junit, /<testsuite name="k6-writepath postgres insert-vs-overwrite" tests="4" failures="0">/);
});

test('a run that never started is not reported as passed', () => {
  const r = buildReport({ metrics: { 'writepath_batch_duration{phase:load}': { type: 'trend', values: {}, thresholds: { 'p(95)<=1': { ok: true } } } } }, meta);
  assert.match(r.text, /thresholds: not evaluated: the run did not start/);
  assert.doesNotMatch(r.text, /passed/);
  assert.equal(r.json.passed, false);
  assert.match(r.junit, /name="setup"><failure message="the run did not start/);
});

test('failed thresholds and a wrong count show in the text and as JUnit failures', () => {
  const r = buildReport(fakeSummary({ thresholdOk: false, found: 3000 }), meta);
  assert.match(r.text, /verification: expected 2000, found 3000 — FAILED/);
  assert.match(r.text, /thresholds: 2 of 2 FAILED/);
  assert.equal(r.json.passed, false);
  assert.match(r.junit, /failures="3"/);
  assert.match(r.junit, /<failure message="expected 2000, found 3000"\/>/);
  assert.match(r.junit, /name="writepath_batch_duration\{phase:load\} p\(95\)&lt;=2000"><failure/);
});

// A workload that is not E1 describes itself: no E1 plan fields, its own header line and
// sections, and (with no planned batch count) a verification held against the plan's count.
test('any workload renders from its own description: header line, sections before and after, verification against the plan', () => {
  const data = fakeSummary({ found: 1 });
  data.metrics.writepath_verify_expected.values.value = 1;
  data.metrics.writepath_verify_mismatch = { type: 'gauge', values: { value: 0 }, thresholds: { 'value==0': { ok: true } } };
  const crud = {
    ...meta,
    description: { line: 'workload: 3 VUs · case crud · 52 operations in cycles of 5', plan: { vus: 3, case: 'crud', requests: 52, expected_docs: 1 }, plannedBatches: null },
    sections: (d) => ({ before: ['E3 table', ''], after: ['', 'per stage'], json: { e3: { metrics: Object.keys(d.metrics).length } } }),
  };
  const r = buildReport(data, crud);
  const lines = r.text.split('\n');
  assert.deepEqual(lines.slice(0, 3), ['E3 table', '', 'k6-writepath · postgres · insert-vs-overwrite · run r1']);
  assert.equal(lines.filter((l) => l.startsWith('workload: ')).length, 1);
  assert.ok(lines.includes('workload: 3 VUs · case crud · 52 operations in cycles of 5'));
  assert.deepEqual(lines.slice(-3), ['', 'per stage', '']);
  assert.deepEqual(r.json.plan, crud.description.plan);
  assert.equal(r.json.e3.metrics, Object.keys(data.metrics).length);
  // crud deletes what it inserts: 2000 acknowledged new documents, 1 left by the plan.
  assert.equal(r.json.verification.expected, 1);
  assert.equal(r.json.verification.count_ok, true);
  assert.equal(r.json.verification.partial, false);
  assert.match(r.text, /verification: expected 1, found 1 — OK \(acknowledged new documents: 2000\)/);
});

// A ramped crud run has no planned count: describe() says how many deletes were acknowledged
// and the database must hold the acknowledged inserts minus those; sections() may add its own
// verification figures. Nothing rewrites the report afterwards, so text, JSON and JUnit agree.
test('describe().acknowledgedDeletes and sections().verification: one verdict in text, summary.json and junit.xml', () => {
  for (const [found, ok] of [[500, true], [505, false], [0, false]]) {
    const data = fakeSummary({ found });
    delete data.metrics.writepath_verify_expected;
    delete data.metrics.writepath_verify_mismatch;
    const ramped = {
      ...meta,
      description: { line: 'workload: ramping VUs 1s:1 · case crud', plan: { case: 'crud' }, plannedBatches: null, acknowledgedDeletes: (d) => d.metrics['writepath_docs_ok{op:delete}'].values.count },
      sections: () => ({ after: ['', 'per stage'], verification: { overwrites_unaccounted: 0 } }),
    };
    data.metrics['writepath_docs_ok{op:delete}'] = { type: 'counter', values: { count: 1500, rate: 1 } };
    const r = buildReport(data, ramped);
    const v = r.json.verification;
    assert.deepEqual([v.expected, v.acknowledged_new, v.acknowledged_deletes, v.found, v.count_ok], [500, 2000, 1500, found, ok]);
    assert.deepEqual([v.lost, v.unexpected], [Math.max(0, 500 - found), Math.max(0, found - 500)]);
    assert.equal(v.overwrites_unaccounted, 0);
    assert.equal(r.json.passed, ok);
    assert.match(r.text, new RegExp(`verification: expected 500, found ${found} — ${ok ? 'OK' : 'FAILED'} \\(acknowledged: 2000 new documents, 1500 deletes\\)`));
    assert.equal(r.junit.includes(`<failure message="expected 500, found ${found}"/>`), !ok);
  }
  // Without the hook the same data is held against the acknowledged inserts.
  const data = fakeSummary({ found: 500 });
  delete data.metrics.writepath_verify_expected;
  const r = buildReport(data, { ...meta, description: { line: 'workload: x', plan: {}, plannedBatches: null } });
  assert.deepEqual([r.json.verification.expected, r.json.verification.count_ok, r.json.verification.acknowledged_deletes], [2000, false, undefined]);
});

// The read-back's counts come from the VUs (lib/readback.js): keys whose later batches failed
// are excused and said so; stale keys fail it whatever else is excused.
test('read-back: excused, unacknowledged and undetermined keys are named; only stale or missing keys fail it', () => {
  const data = fakeSummary({ found: 2000 });
  Object.assign(data.metrics, {
    writepath_readback_excused: { type: 'counter', values: { count: 7 } },
    writepath_readback_unacknowledged: { type: 'counter', values: { count: 2 } },
    writepath_readback_undetermined: { type: 'counter', values: { count: 0 } },
  });
  let r = buildReport(data, meta);
  assert.match(r.text, /read-back: 100 overwritten keys checked, 0 stale or missing; 7 at their last acknowledged version because later batches to them failed \(not lost writes\); 2 hold the version of a batch reported failed that was applied anyway — OK\n/);
  assert.deepEqual([r.json.verification.readback_excused, r.json.verification.readback_unacknowledged, r.json.verification.readback_ok], [7, 2, true]);
  data.metrics.writepath_readback_stale = { type: 'counter', values: { count: 3 } };
  r = buildReport(data, meta);
  assert.match(r.text, /read-back: 100 overwritten keys checked, 3 stale or missing; 7 at their last .* — FAILED\n/);
  assert.equal(r.json.verification.readback_ok, false);
  assert.match(r.junit, /<failure message="3 of 100 stale or missing"\/>/);
});

test('a phase that wrote nothing gets no docs/s, MB/s or ratio, and the report says why; threshold figures carry their unit', () => {
  const data = fakeSummary({ thresholdOk: false, found: 2000 });
  data.metrics['writepath_docs_ok{phase:overwrite}'] = { type: 'counter', values: { count: 0, rate: 0 } };
  data.metrics['writepath_docs_failed{phase:overwrite}'] = { type: 'counter', values: { count: 2000, rate: 1 } };
  data.metrics['writepath_docs_failed{phase:overwrite,reason:connection}'] = { type: 'counter', values: { count: 2000, rate: 1 } };
  data.metrics['writepath_bytes{phase:overwrite}'] = { type: 'counter', values: { count: 5e7, rate: 1 } };
  const r = buildReport(data, meta);
  const ow = r.json.phases.find((p) => p.phase === 'overwrite');
  assert.equal(ow.docs_per_s, null);
  assert.equal(ow.mb_per_s, null);
  assert.equal(r.json.ratios['overwrite/load'], undefined, 'no ratio for a phase that wrote nothing');
  assert.doesNotMatch(r.text, /overwrite\/load ratio/);
  assert.match(r.text, /overwrite\s+upsert\s+2\s+0\s+2000\s+- /);
  assert.match(r.text, /^  overwrite: wrote nothing \(all 2000 documents failed\): no docs\/s, MB\/s or ratio for it/m);
  // "(observed 34.000)" said what it is: batch times in ms.
  assert.match(r.text, /writepath_batch_duration\{phase:load\} p\(95\)<=2000 \(observed 17(\.000)? ms\)/);
});
