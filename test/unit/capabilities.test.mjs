// Workloads ask for capabilities, never for a database (lib/capabilities.js): the refusal is
// one line naming the workload, what is missing and what the target offers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { refusal, withCapabilities } from '../../lib/capabilities.js';

const postgres = { batch: ['insert', 'upsert'], count: true, readback: true };
const arangodb = { batch: ['insert', 'upsert', 'merge', 'ignore'], single: true, transactions: true, collections: Infinity, planIndexes: true, count: true, readback: true };

test('a target that offers every need is not refused', () => {
  assert.equal(refusal('insert-vs-overwrite', ['count', 'batch:insert', 'batch:upsert', 'readback'], 'postgres', postgres), null);
  assert.equal(refusal('arangobench', ['count', 'transactions', 'collections:2'], 'arangodb', arangodb), null);
});

test('a missing capability gives one line naming the workload, the missing needs and the offer', () => {
  assert.equal(refusal('arangobench', ['count', 'single'], 'postgres', postgres),
    'arangobench needs single-document operations (insert, read, update, delete one document), which the postgres target does not offer (it offers: batch insert, batch upsert, count, readback)');
  assert.equal(refusal('bulk-insert', ['batch:bulk', 'count'], 'arangodb', arangodb).split('\n').length, 1);
  assert.match(refusal('bulk-insert', ['batch:bulk', 'count'], 'arangodb', arangodb), /^bulk-insert needs batch operation bulk, which the arangodb target/);
  assert.match(refusal('arangobench', ['transactions', 'collections:2'], 'x', { transactions: true, collections: 1 }), /needs 2 collections/);
  assert.match(refusal('w', ['count'], 'x', undefined), /offers: nothing/);
});

// A group of functions (documents, increments) is a sub-object of the target; its flag is
// derived from it (withCapabilities), so a flag cannot claim a function the target lacks.
test('a group\'s flag is offered exactly when the target carries the group\'s functions', () => {
  const fn = () => ({ n: 1, bytes: 0, send: () => ({}) });
  const increments = { increment: fn, createCounters: fn, readCounters: fn, putLedger: fn, readLedgers: fn };
  // Flags a declaration still states, without the functions: not offered.
  const bare = withCapabilities({ batch: ['insert'], count: true, increment: true, single: true, transactions: true, serverConflicts: 'stats' }, { name: 'x' });
  assert.deepEqual(bare.capabilities, { batch: ['insert'], count: true });
  const full = withCapabilities({ batch: ['insert'], serverConflicts: 'stats' }, { name: 'x', documents: { single: fn, transaction: fn }, increments: { ...increments, serverConflicts: fn } });
  assert.deepEqual(full.capabilities, { batch: ['insert'], single: true, transactions: true, increment: true, serverConflicts: 'stats' });
  assert.equal(full.name, 'x');
  // Single-document operations without transactions; a group that lacks one of its functions.
  assert.deepEqual(withCapabilities({ batch: [] }, { documents: { single: fn }, increments: { ...increments, readLedgers: undefined } }).capabilities, { batch: [], single: true });
  // The refusal reads the derived flags: the same line as before.
  assert.equal(refusal('arangobench', ['count', 'single'], 'postgres', withCapabilities({ batch: ['insert', 'upsert'], count: true, readback: true }, { increments }).capabilities),
    'arangobench needs single-document operations (insert, read, update, delete one document), which the postgres target does not offer (it offers: batch insert, batch upsert, count, readback, increment)');
  // The server's count without the declared text the report names it by: an adapter error, at once.
  assert.throws(() => withCapabilities({ batch: [] }, { increments: { ...increments, serverConflicts: fn } }), /serverConflicts/);
});
