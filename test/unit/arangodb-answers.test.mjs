// How the ArangoDB target reads answers to array writes (lib/targets/arangodb/arangodb-answers.js).
// Bodies and headers have the shapes of ArangoDB's recorded examples (arangodb/docs-hugo
// site/data/3.12/cache.json, RestDocumentHandlerPostBadJsonMulti, recorded on 3.12.10) and of
// the answers arangod/Transaction/Methods.cpp builds (silent + overwriteMode=ignore).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { accountBatch, notNowReason } from '../../lib/targets/arangodb/arangodb-answers.js';

const ok = (k) => `{"_id":"c/${k}","_key":"${k}","_rev":"_l6zhVVS---"}`;
const err = (n) => `{"error":true,"errorNum":${n},"errorMessage":"x"}`;

test('an all-success array answer needs one identity with _rev per document', () => {
  assert.deepEqual(accountBatch(3, 202, `[${ok('a')},${ok('b')},${ok('c')}]`, undefined, false),
    { failed: 0, byReason: {}, failedIndexes: null, note: null });
  const short = accountBatch(3, 202, `[${ok('a')},${ok('b')}]`, undefined, false);
  assert.equal(short.failed, 1);
  assert.deepEqual(short.byReason, { unconfirmed: 1 });
  const notArray = accountBatch(2, 201, '{}', undefined, false);
  assert.deepEqual([notArray.failed, notArray.byReason], [2, { unconfirmed: 2 }]);
});

test('a 202 with inline errors counts exactly the failed elements, by errorNum, with their indexes', () => {
  const a = accountBatch(4, 202, `[${err(1221)},${ok('b')},${err(1210)},${err(1210)}]`, '{"1221":1,"1210":2}', false);
  assert.deepEqual(a, { failed: 3, byReason: { e1221: 1, e1210: 2 }, failedIndexes: [0, 2, 3], note: null });
});

test('inline errors without the header (or disagreeing with it) are still counted, with a note', () => {
  const a = accountBatch(2, 202, `[${ok('a')},${err(1200)}]`, undefined, false);
  assert.deepEqual([a.failed, a.byReason, a.failedIndexes], [1, { e1200: 1 }, [1]]);
  assert.match(a.note, /inline errors 1 but X-Arango-Error-Codes 0/);
});

test('an element without _rev is never counted as ok', () => {
  const a = accountBatch(2, 202, `[${ok('a')},{"_key":"b"}]`, '{"1200":0}', false);
  assert.deepEqual([a.failed, a.byReason, a.failedIndexes], [1, { unconfirmed: 1 }, [1]]);
});

test('silent=true: {} or [] means all succeeded; otherwise the header counts the failures', () => {
  assert.equal(accountBatch(5, 202, '{}', undefined, true).failed, 0);
  assert.equal(accountBatch(5, 202, '[]', undefined, true).failed, 0);
  const a = accountBatch(5, 201, `[${err(1210)},${err(1210)}]`, '{"1210":2}', true);
  assert.deepEqual([a.failed, a.byReason, a.failedIndexes, a.note], [2, { e1210: 2 }, null, null]);
  const noHeader = accountBatch(5, 201, `[${err(1221)}]`, undefined, true);
  assert.deepEqual([noHeader.failed, noHeader.byReason], [1, { e1221: 1 }]);
  const garbage = accountBatch(5, 201, 'oops', undefined, true);
  assert.deepEqual([garbage.failed, garbage.byReason], [5, { unconfirmed: 5 }]);
});

test('silent=true with overwriteMode=ignore: identities of ignored documents in the answer are not failures', () => {
  // The real server keeps the identity of every ignored (existing) document in the silent
  // answer once any element failed (arangod/Transaction/Methods.cpp); written documents have
  // no entry. 4 documents: k1 ignored, k2 written, k3 bad key, k4 ignored.
  const body = `[${ok('k1')},${err(1221)},${ok('k4')}]`;
  const a = accountBatch(4, 202, body, '{"1221":1}', true);
  assert.deepEqual(a, { failed: 1, byReason: { e1221: 1 }, failedIndexes: null, note: null });
  // without the header the error entries alone still count, identities never do
  const noHeader = accountBatch(4, 202, body, undefined, true);
  assert.deepEqual([noHeader.failed, noHeader.byReason], [1, { e1221: 1 }]);
  assert.ok(!('eundefined' in noHeader.byReason));
});

test('"not now" is only the 503 arangod answers before any handler (errorNum 503, startup or maintenance mode)', () => {
  const maintenance = { error: true, errorNum: 503, errorMessage: 'service unavailable due to startup or maintenance mode', code: 503 };
  assert.equal(notNowReason(503, maintenance), 'http_503');
  // a coordinator that lost a DB server may have done part of the work: not "not now"
  assert.equal(notNowReason(503, { error: true, errorNum: 1478, errorMessage: 'cluster backend unavailable', code: 503 }), null);
  assert.equal(notNowReason(500, maintenance), null);
  assert.equal(notNowReason(503, null), null);
});
