// Small report details users rely on: the settings line has one order whatever order the target
// found the settings in; a threshold's observed value is the aggregate its expression names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { observedValue, settingsText } from '../../lib/report.js';
import { withoutEmptyMetrics } from '../../lib/report-html.js';

test('settings print in alphabetical order, whatever order they were found in', () => {
  const a = settingsText({ synchronous_commit: 'on', fsync: 'on', shared_buffers: '128MB', table: 'logged', secondary_indexes: 0 });
  const b = settingsText({ table: 'logged', secondary_indexes: 0, fsync: 'on', shared_buffers: '128MB', synchronous_commit: 'on' });
  assert.equal(a, 'fsync=on · secondary_indexes=0 · shared_buffers=128MB · synchronous_commit=on · table=logged');
  assert.equal(b, a);
});

test('the observed value of a threshold is the aggregate its expression names (k6 summary value names)', () => {
  const trend = { min: 1, med: 5, avg: 6, 'p(90)': 9, 'p(95)': 9.5, 'p(99)': 12.25, max: 13, count: 40 };
  assert.equal(observedValue(trend, 'p(99)<=10'), 12.25);
  assert.equal(observedValue(trend, 'p(99.9) < 10'), null, 'not in the summary: unknown, not 0');
  assert.equal(observedValue(trend, 'med<=3'), 5);
  assert.equal(observedValue({ count: 1000, rate: 3 }, 'count<=0'), 1000);
  assert.equal(observedValue({ rate: 0.25, passes: 1, fails: 3 }, 'rate<=0.01'), 0.25);
  assert.equal(observedValue({ value: 500 }, 'value==0'), 500);
});

test('k6-reporter gets no all-zero metrics without a threshold; thresholded and non-zero ones stay', () => {
  const data = { metrics: {
    'writepath_docs_failed{phase:load,reason:timeout}': { type: 'counter', values: { count: 0, rate: 0 } },
    'writepath_docs_failed{phase:load}': { type: 'counter', values: { count: 0, rate: 0 }, thresholds: { 'count<=0': { ok: true } } },
    'writepath_docs_ok{phase:load}': { type: 'counter', values: { count: 2000, rate: 100 } },
    'writepath_batch_duration{phase:mixed}': { type: 'trend', values: { min: 0, med: 0, avg: 0, max: 0, 'p(90)': 0 } },
  }, root_group: {} };
  const out = withoutEmptyMetrics(data);
  assert.deepEqual(Object.keys(out.metrics).sort(), ['writepath_docs_failed{phase:load}', 'writepath_docs_ok{phase:load}']);
  assert.equal(out.root_group, data.root_group);
  assert.equal(Object.keys(data.metrics).length, 4, 'the input is not changed');
});
