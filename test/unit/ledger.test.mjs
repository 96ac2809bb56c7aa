// The contention ledger (lib/ledger.js): write-ahead accounting per counter and the exact
// verification acked <= n <= acked + undetermined, with lost and phantom increments per counter.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Ledger, countersJudged, countersLine, ledgerLine, sumLedgers, verifyCounters } from '../../lib/ledger.js';

const roundTrip = (l) => JSON.parse(JSON.stringify(l));

test('write-ahead: begun increments are undetermined until settled; an unsettled operation stays undetermined', () => {
  const l = new Ledger(4);
  l.begin([0, 2]); l.settle([0, 2], 'acked');
  l.begin([2]); l.settle([2], 'failed');
  l.begin([1, 3]); l.settle([1, 3], ['acked', 'failed']);
  l.begin([3]); // cut short: never settled
  assert.deepEqual([...l.acked], [1, 1, 1, 0]);
  assert.deepEqual([...l.failed], [0, 0, 1, 1]);
  assert.deepEqual([...l.undetermined], [0, 0, 0, 1]);
  assert.equal(l.ops, 6);
  assert.deepEqual(roundTrip(l), { v: 1, size: 4, ops: 6, c: [0, 1, 2, 3], a: [1, 1, 1, 0], f: [0, 0, 1, 1], u: [0, 0, 0, 1] });
});

test('the ledgers of all VUs add up; counters within [acked, acked + undetermined] pass', () => {
  const a = new Ledger(3); const b = new Ledger(3);
  for (let i = 0; i < 5; i++) { a.begin([0]); a.settle([0], 'acked'); }
  b.begin([0, 1]); b.settle([0, 1], 'acked');
  b.begin([1]); // undetermined: applied or not, both fine
  const t = sumLedgers([roundTrip(a), roundTrip(b)], 3);
  assert.equal(t.ledgers, 2); assert.equal(t.ops, 8);
  for (const n1 of [1, 2]) {
    const v = verifyCounters(t, new Map([[0, 6], [1, n1], [2, 0]]), 3);
    assert.deepEqual([v.checked, v.lost, v.phantom, v.missing, v.bad.length], [3, 0, 0, 0, 0]);
  }
});

test('lost and phantom increments are named per counter, largest first', () => {
  const a = new Ledger(3);
  for (let i = 0; i < 10; i++) { a.begin([0, 1]); a.settle([0, 1], 'acked'); }
  a.begin([2]); a.settle([2], 'failed');
  const t = sumLedgers([roundTrip(a)], 3);
  const v = verifyCounters(t, new Map([[0, 7], [1, 9], [2, 1]]), 3);
  assert.equal(v.lost, 4); assert.equal(v.phantom, 1);
  assert.deepEqual(v.bad, [
    { counter: 0, n: 7, acked: 10, undetermined: 0, lost: 3, phantom: 0 },
    { counter: 1, n: 9, acked: 10, undetermined: 0, lost: 1, phantom: 0 },
    { counter: 2, n: 1, acked: 0, undetermined: 0, lost: 0, phantom: 1 },
  ]);
});

test('a counter that vanished is missing and its acknowledged increments lost', () => {
  const a = new Ledger(2);
  a.begin([1]); a.settle([1], 'acked');
  const v = verifyCounters(sumLedgers([roundTrip(a)], 2), new Map([[0, 0]]), 2);
  assert.deepEqual([v.missing, v.lost], [1, 1]);
});

test('a foreign document under a ledger key is refused, not summed', () => {
  assert.throws(() => sumLedgers([{ n: 5 }], 3), /not in the pack's format/);
  assert.throws(() => sumLedgers([{ v: 1, size: 3, ops: 1, c: [7], a: [1], f: [0], u: [0] }], 3), /outside 0…2/);
});

test('the ledgers\' line: undetermined increments split into applied and not only when every counter held', () => {
  const v = { increments_acknowledged: 48, increments_failed: 2, increments_undetermined: 28, counters_sum: 51, increments_lost: 0, increments_phantom: 0, ledger_unstored: 0 };
  assert.equal(ledgerLine(v), 'increments in the ledgers: 48 acknowledged, 2 failed (not applied), 28 undetermined (no answer) — 3 of them applied, 25 not');
  // A counter off, or a ledger missing: the sum says nothing about the undetermined ones.
  assert.equal(ledgerLine({ ...v, increments_lost: 4 }), 'increments in the ledgers: 48 acknowledged, 2 failed (not applied), 28 undetermined (no answer)');
  assert.equal(ledgerLine({ ...v, ledger_unstored: 7 }), 'increments in the ledgers: 48 acknowledged, 2 failed (not applied), 28 undetermined (no answer)');
  assert.equal(ledgerLine({ ...v, increments_undetermined: 0, counters_sum: 48 }), 'increments in the ledgers: 48 acknowledged, 2 failed (not applied), 0 undetermined (no answer)');
});

test('countersLine: lost and phantom figures only against complete ledgers', () => {
  const v = { counters_checked: 10, counters_sum: 51, increments_acknowledged: 48, increments_lost: 0, increments_phantom: 0, ledger_unstored: 0 };
  assert.equal(countersJudged(v), true);
  assert.equal(countersLine(v), 'counters: 10 read back against the VUs\' ledgers: lost 0, phantom 0 — OK');
  assert.equal(countersLine({ ...v, increments_phantom: 3 }), 'counters: 10 read back against the VUs\' ledgers: lost 0, phantom 3 — FAILED');
  const stopped = { ...v, increments_acknowledged: null, ledger_unstored: 40 };
  assert.equal(countersJudged(stopped), false);
  assert.equal(countersLine(stopped), 'counters: 10 read back, holding 51; the VUs\' ledgers are incomplete (40 increments begun are in no stored ledger): no lost or phantom judgement is possible — NOT VERIFIED');
  assert.equal(countersJudged({ ...v, counters_checked: null }), null);
  assert.equal(countersLine({ ...v, counters_checked: null }), 'counters: not verified (teardown did not run)');
});
