// Workloads ask for capabilities, never for a database (lib/capabilities.js): the refusal is
// one line naming the workload, what is missing and what the target offers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { refusal } from '../../lib/capabilities.js';

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
