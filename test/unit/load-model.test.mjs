// lib/load-model.js splitOverStages: a count that grew over an interval, shared among the
// stages it overlaps (the contention workload's server-side conflict samples).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { splitOverStages } from '../../lib/load-model.js';

const lm = { ends: [10000, 20000, 30000] };

test('an interval inside one stage gives that stage the whole count', () => {
  assert.deepEqual(splitOverStages(lm, 10500, 11000, 7), [0, 7, 0]);
  assert.deepEqual(splitOverStages(lm, 0, 500, 3), [3, 0, 0]);
});

test('an interval across a stage end is shared by overlap; whole numbers that add up to the count', () => {
  // 300 ms before the end of stage 1, 100 ms after: 3/4 and 1/4.
  assert.deepEqual(splitOverStages(lm, 9700, 10100, 40), [30, 10, 0]);
  // 10 over three stages in 10/10/5 proportions: 4, 4, 2.
  assert.deepEqual(splitOverStages(lm, 0, 25000, 10), [4, 4, 2]);
  // Remainders go to the largest fractions, the earlier stage on a tie: 0.5, 1, 0.5 of 2.
  assert.deepEqual(splitOverStages(lm, 5000, 25000, 2), [1, 1, 0]);
  assert.deepEqual(splitOverStages(lm, 9000, 11000, 1), [1, 0, 0]);
});

test('time past the last end is the last stage\'s; an empty interval gives the stage at its end', () => {
  assert.deepEqual(splitOverStages(lm, 29000, 31000, 8), [0, 0, 8]);
  assert.deepEqual(splitOverStages(lm, 15000, 15000, 5), [0, 5, 0]);
});
