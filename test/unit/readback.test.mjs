// lib/readback.js: each key judged against its last ACKNOWLEDGED writer (issue: failed batches
// must not count as writers, and an acknowledged write that is gone must still show as stale).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ackOf, judge, noteOutcome, unappliedMaybe } from '../../lib/readback.js';

const w = (stamp, ack = 'ack', ignore = false) => ({ stamp, ack, ignore });

test('every writer acknowledged: the last one must be found', () => {
  assert.equal(judge([w('l'), w('o0'), w('m3')], 'm3'), 'ok');
  assert.equal(judge([w('l'), w('o0'), w('m3')], 'o0'), 'stale');
  assert.equal(judge([w('l'), w('o0'), w('m3')], 'l'), 'stale');
  assert.equal(judge([w('l'), w('o0'), w('m3')], undefined), 'missing');
  assert.equal(judge([w('l'), w('o0')], 'o9'), 'stale', 'a version no writer of this key wrote');
});

test('a later batch that failed is not a writer: its key at the previous acknowledged version is excused', () => {
  // "holds o0, written by o0,m0" with m0 failed (MIXED_OP=insert on an existing key)
  assert.equal(judge([w('l'), w('o0'), w('m0', 'failed')], 'o0'), 'excused');
  assert.equal(judge([w('l'), w('o0', 'failed'), w('o4', 'failed')], 'l'), 'excused');
  // ... but an older version than the last acknowledged one is still a lost write
  assert.equal(judge([w('l'), w('o0'), w('m0', 'failed')], 'l'), 'stale');
  // a failure before an acknowledged write excuses nothing
  assert.equal(judge([w('l'), w('o0', 'failed'), w('o4')], 'l'), 'stale');
  assert.equal(judge([w('l'), w('o0', 'failed'), w('o4')], 'o4'), 'ok');
});

test('a batch reported failed whose write landed anyway (commit before the connection died) is unacknowledged, not stale', () => {
  assert.equal(judge([w('l'), w('o0'), w('o5', 'failed')], 'o5'), 'unacknowledged');
  assert.equal(judge([w('l'), w('o0', 'failed'), w('o5', 'failed')], 'o0'), 'unacknowledged');
});

test('no acknowledged writer: the key may be absent', () => {
  assert.equal(judge([w('m2', 'failed')], undefined), 'excused');
  assert.equal(judge([w('m2', 'failed')], 'm2'), 'unacknowledged');
  assert.equal(judge([w('l', 'failed'), w('o1')], 'o1'), 'ok', 'an upsert creates the key the load failed to insert');
});

test('a partial failure without named documents leaves the key undetermined, never ok or excused', () => {
  assert.equal(judge([w('l'), w('o0'), w('o2', 'unknown')], 'o0'), 'undetermined');
  assert.equal(judge([w('l'), w('o0'), w('o2', 'unknown')], 'o2'), 'undetermined');
  assert.equal(judge([w('l'), w('o0'), w('o2', 'unknown')], 'l'), 'stale');
});

test('overwriteMode=ignore writes a key only when it does not exist', () => {
  assert.equal(judge([w('l'), w('o0', 'ack', true), w('o3', 'ack', true)], 'l'), 'ok');
  assert.equal(judge([w('l'), w('o0', 'ack', true)], 'o0'), 'stale');
  assert.equal(judge([w('m1', 'ack', true), w('m5', 'ack', true)], 'm1'), 'ok', 'a fresh key: its first writer creates it');
  assert.equal(judge([w('l', 'failed'), w('o0', 'ack', true)], 'o0'), 'ok', 'the load failed, so ignore created it');
});

test('the ledger records failed batches: whole, by document index, or unknown', () => {
  const ledger = new Map();
  noteOutcome(ledger, 'overwrite', 3, { n: 10, failed: 0 });
  noteOutcome(ledger, 'overwrite', 4, { n: 10, failed: 10, failedIndexes: null });
  noteOutcome(ledger, 'mixed', 1, { n: 10, failed: 2, failedIndexes: [7, 9] });
  noteOutcome(ledger, 'mixed', 2, { n: 10, failed: 2, failedIndexes: null });
  assert.equal(ledger.size, 3, 'a healthy batch leaves no entry');
  assert.equal(ackOf(ledger, 'overwrite', 3, 0), 'ack');
  assert.equal(ackOf(ledger, 'overwrite', 4, 5), 'failed');
  assert.equal(ackOf(ledger, 'mixed', 1, 7), 'failed');
  assert.equal(ackOf(ledger, 'mixed', 1, 8), 'ack');
  assert.equal(ackOf(ledger, 'mixed', 2, 0), 'unknown');
  assert.equal(ackOf(ledger, 'load', 4, 0), 'ack', 'phases are kept apart');
});

test('an undetermined batch (sent whole, no answer) is resolved by the key it left: stored -> resolved, not stored -> excused, never stale', () => {
  const ledger = new Map();
  noteOutcome(ledger, 'overwrite', 3, { n: 10, failed: 10, undetermined: true });
  assert.equal(ackOf(ledger, 'overwrite', 3, 4), 'maybe');
  const writers = [w('l0'), w('o3', 'maybe')];
  assert.equal(judge(writers, 'o3'), 'resolved');
  assert.equal(judge(writers, 'l0'), 'excused');
  assert.equal(judge(writers, undefined), 'missing');
  assert.equal(judge(writers, 'o9'), 'stale');
  // Only its named documents are undetermined when a batch names them.
  noteOutcome(ledger, 'mixed', 1, { n: 10, failed: 3, failedIndexes: [7, 8, 9], undetermined: true });
  assert.equal(ackOf(ledger, 'mixed', 1, 8), 'maybe');
  assert.equal(ackOf(ledger, 'mixed', 1, 2), 'ack');
});

test('the undetermined writes a key shows were not applied: after its last acknowledged version, none took; a superseded or stored one is not counted', () => {
  const names = (u) => u.writes.map((x) => x.stamp);
  // Held at l0: the undetermined o3 and o5 after it did not take (a failed o4 is no write of it).
  const writers = [w('l0'), w('o3', 'maybe'), w('o4', 'failed'), w('o5', 'maybe')];
  assert.deepEqual(names(unappliedMaybe(writers, 'l0')), ['o3', 'o5']);
  assert.equal(unappliedMaybe(writers, 'l0').existed, true);
  // Stored (o5), or something else (a loss the read-back reports): nothing counted here.
  assert.deepEqual(names(unappliedMaybe(writers, 'o5')), []);
  assert.deepEqual(names(unappliedMaybe(writers, 'o9')), []);
  // An undetermined write before a later acknowledged one cannot be told: not counted.
  assert.deepEqual(names(unappliedMaybe([w('l0'), w('o3', 'maybe'), w('o6')], 'o6')), []);
  // A new key (no acknowledged version) left absent: its insert did not take; the count knows it too.
  const fresh = unappliedMaybe([w('m2', 'maybe')], undefined);
  assert.deepEqual([names(fresh), fresh.existed], [['m2'], false]);
});

test('an undetermined write applied late, after a later acknowledged write of the key (a frozen server): resolved, not stale', () => {
  const w = [{ stamp: 'o1', ack: 'ack' }, { stamp: 'o2', ack: 'maybe' }, { stamp: 'o3', ack: 'ack' }];
  assert.equal(judge(w, 'o3'), 'ok');
  assert.equal(judge(w, 'o2'), 'resolved');
  // an older acknowledged version, or one no write of the key made, is still stale
  assert.equal(judge(w, 'o1'), 'stale');
  assert.equal(judge(w, 'x9'), 'stale');
  // a failed (answered) earlier write holding the key is not excused this way
  assert.equal(judge([{ stamp: 'o1', ack: 'ack' }, { stamp: 'o2', ack: 'failed' }, { stamp: 'o3', ack: 'ack' }], 'o2'), 'stale');
});
