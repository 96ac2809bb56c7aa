// The verification's verdict (lib/verdict.js), the one rule the report and the distributed
// merge share: count bases, ranges, undetermined documents, unjudged read-backs, runs that
// stopped early, parts of a distributed run, and the merge judging summed counts alike.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countBasis, plannedBatchesOf, verificationVerdict } from '../../lib/verdict.js';
import { mergedVerification } from '../../scripts/merge-results.mjs';
import { M } from '../../lib/metric-names.js';

const rb = (o = {}) => ({ checked: 100, stale: 0, excused: 0, unacknowledged: 0, undetermined: 0, resolved: 0, ...o });
const counts = (o = {}) => ({ found: 4000, error: false, expectedByPlan: 4500, mismatch: 500, acknowledged: 4000, acknowledgedMax: null,
  deletes: null, undetermined: 0, batches: 14, readback: rb(), ...o });
const e1 = (o = {}) => ({ distributed: '0', started: true, plannedBatches: 14, readback: 'up to 1000 overwritten keys', ...o });

test('count basis: a whole run that plans batches or no count is held against the acknowledged documents, the rest against the plan', () => {
  assert.equal(countBasis('0', 14, true), 'acknowledged');
  assert.equal(countBasis(undefined, null, false), 'acknowledged');
  assert.equal(countBasis('0', null, true), 'plan');
  assert.equal(countBasis('1', 14, true), 'plan');
  assert.equal(countBasis('verify', 14, true), 'plan');
  assert.equal(plannedBatchesOf('0', 14), 14);
  assert.equal(plannedBatchesOf('verify', 14), null);
  assert.equal(plannedBatchesOf('0', undefined), null);
});

test('a finished E1 with failed documents: held against the acknowledged ones, OK; lost and unexpected documents fail the count', () => {
  const v = verificationVerdict(counts(), e1());
  assert.deepEqual([v.ran, v.expected, v.expected_max, v.lost, v.unexpected, v.count_ok, v.readback_ok, v.ok], [true, 4000, undefined, 0, 0, true, true, true]);
  const lost = verificationVerdict(counts({ found: 3990 }), e1());
  assert.deepEqual([lost.lost, lost.count_ok, lost.ok], [10, false, false]);
  const extra = verificationVerdict(counts({ found: 4001 }), e1());
  assert.deepEqual([extra.unexpected, extra.count_ok, extra.ok], [1, false, false]);
});

test('failures that may have stored documents make the count a range: anything within it is OK, beyond it unexpected', () => {
  const v = verificationVerdict(counts({ found: 4100, undetermined: 200, acknowledgedMax: 4400 }), e1());
  assert.deepEqual([v.expected, v.expected_max, v.count_ok, v.undetermined, v.ok], [4000, 4400, true, 200, true]);
  const over = verificationVerdict(counts({ found: 4450, undetermined: 200, acknowledgedMax: 4400 }), e1());
  assert.deepEqual([over.unexpected, over.count_ok, over.ok], [50, false, false]);
});

test('read-back: a stale key fails it, every key undetermined is not judged (not OK), none planned is said and does not fail', () => {
  assert.deepEqual((({ readback_ok: r, ok }) => [r, ok])(verificationVerdict(counts({ readback: rb({ stale: 1 }) }), e1())), [false, false]);
  const unjudged = verificationVerdict(counts({ readback: rb({ undetermined: 100 }) }), e1());
  assert.deepEqual([unjudged.readback_ok, unjudged.readback_unjudged, unjudged.ok], [null, true, false]);
  const none = verificationVerdict(counts({ readback: rb({ checked: 0 }) }), e1({ readback: null }));
  assert.deepEqual([none.readback_ok, none.readback_none, none.ok], [null, true, true]);
});

test('a run stopped before its plan finished is never OK, and its read-back is skipped unless a key is stale', () => {
  const v = verificationVerdict(counts({ batches: 7, found: 4000 }), e1());
  assert.deepEqual([v.partial, v.readback_skipped, v.readback_ok, v.count_ok, v.ok], [true, true, null, true, false]);
});

test('parts of a distributed run: an instance does not verify; the verify step holds the plan and leaves the read-back to the instances', () => {
  assert.deepEqual(verificationVerdict(counts({ found: null }), e1({ distributed: '1' })), { ran: false, why: 'not this instance\'s job (DISTRIBUTED=1): scripts/verify-distributed verifies the union of all instances' });
  const v = verificationVerdict(counts({ found: 4500, mismatch: 0, acknowledged: 0, batches: 0, readback: rb({ checked: 0 }) }), e1({ distributed: 'verify' }));
  assert.deepEqual([v.expected, v.partial, v.readback_by_instances, v.readback_ok, v.ok], [4500, false, true, null, true]);
});

test('did not run: said why, never OK; a workload\'s own failed checks fail it', () => {
  assert.equal(verificationVerdict(counts({ error: true }), e1()).why, 'failed before its end (the "test aborted" line says why)');
  assert.equal(verificationVerdict(counts({ found: null }), e1({ started: false })).why, 'the run did not start');
  assert.equal(verificationVerdict(counts({ found: null }), e1()).why, 'teardown did not finish');
  assert.equal(verificationVerdict(counts(), e1({ holds: false })).ok, false);
});

test('acknowledged deletes come off what the database must hold', () => {
  const v = verificationVerdict(counts({ found: 0, acknowledged: 2829, deletes: 2829, expectedByPlan: null, mismatch: null, readback: rb({ checked: 0 }) }), e1({ plannedBatches: null, readback: null }));
  assert.deepEqual([v.expected, v.acknowledged_deletes, v.count_ok, v.ok], [0, 2829, true, true]);
});

test('the merge judges the instances\' summed counts by the same rule: ranges, undetermined keys, stale keys, a verify step that failed', () => {
  const rows = [{ docs_new: 600, batches: 6 }, { docs_new: 400, batches: 4 }];
  const plan = { [M.verifyFound]: 1000, [M.verifyExpected]: 1000, [M.readbackChecked]: 50, [M.readbackStale]: 0 };
  assert.deepEqual(mergedVerification(plan, rows), { basis: 'plan', expected: 1000, found: 1000, readback_checked: 50, readback_stale: 0, readback_excused: 0, ok: true });
  assert.equal(mergedVerification({ ...plan, [M.verifyFound]: 999 }, rows).ok, false);
  assert.equal(mergedVerification({ ...plan, [M.readbackStale]: 1 }, rows).ok, false);
  const unjudged = mergedVerification({ ...plan, [M.readbackUndetermined]: 50 }, rows);
  assert.deepEqual([unjudged.readback_unjudged, unjudged.ok], [true, false]);
  // bulk-insert: no planned count, held against the acknowledged new documents, a range with undetermined ones
  const bulk = { [M.verifyFound]: 1050, [M.docsUndetermined]: 100, [M.verifyUnaccountedMax]: 1100 };
  assert.deepEqual(mergedVerification(bulk, rows), { basis: 'acknowledged new documents of all instances', expected: 1000, found: 1050, expected_max: 1100, readback_checked: 0, readback_stale: 0, readback_excused: 0, ok: true });
  assert.equal(mergedVerification({ ...bulk, [M.verifyFound]: 1101 }, rows).ok, false);
  const failed = mergedVerification({ ...plan, [M.verifyError]: 1 }, rows);
  assert.deepEqual([failed.ok, failed.why], [false, 'failed before its end (the "test aborted" line says why)']);
});
