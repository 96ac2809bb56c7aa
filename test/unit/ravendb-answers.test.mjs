// How the RavenDB target reads a failed bulk insert's operation state
// (lib/targets/ravendb/ravendb-answers.js), with text in the real server's format:
// "Failed to process bulk insert. " + BulkInsertProgress.ToString(), where ToString() is
// $"Inserted {Total:#,#;;0} items in {BatchCount:#,#;;0} batches." + " Last document ID: '…'"
// (ravendb/ravendb src/Raven.Client/Documents/Operations/IOperationProgress.cs and
// src/Raven.Server/Documents/Handlers/Processors/BulkInsert/AbstractBulkInsertHandlerProcessor.cs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { committedButIndexWaitFailed, committedFromState, notNowReason, parseBulkInsertProgress, placementProblem } from '../../lib/targets/ravendb/ravendb-answers.js';

const faulted = (message) => ({
  Status: 'Faulted',
  Progress: null,
  Result: {
    $type: 'Raven.Client.Documents.Operations.OperationExceptionResult, Raven.Client',
    Type: 'System.InvalidOperationException',
    Message: message,
    Error: `System.InvalidOperationException: ${message}\n ---> System.IO.IOException: The request stream was aborted.`,
    StatusCode: 500,
  },
});

test('the progress text: thousands separators, zero, with and without the last id', () => {
  assert.deepEqual(parseBulkInsertProgress("Inserted 1,234,567 items in 151 batches. Last document ID: 'K1234566'"),
    { total: 1234567, batches: 151, lastId: 'K1234566' });
  // .NET "#,#;;0": zero is "0"; nothing committed yet means no last id
  assert.deepEqual(parseBulkInsertProgress('Inserted 0 items in 0 batches.'), { total: 0, batches: 0, lastId: null });
  assert.deepEqual(parseBulkInsertProgress("Inserted 999 items in 1 batches. Last document ID: 'users/999'"),
    { total: 999, batches: 1, lastId: 'users/999' });
  // another server culture: "." or a (narrow) no-break space as the group separator
  assert.equal(parseBulkInsertProgress('Inserted 16.384 items in 2 batches.').total, 16384);
  assert.equal(parseBulkInsertProgress('Inserted 16\u202f384 items in 2 batches.').total, 16384);
  assert.equal(parseBulkInsertProgress('Inserted 16\u00a0384 items in 2 batches.').total, 16384);
});

test('a text in another format is not guessed at', () => {
  assert.equal(parseBulkInsertProgress('Inserted 1000 documents, 0 attachments, 0 counters and 0 time series entries.'), null);
  assert.equal(parseBulkInsertProgress(''), null);
  assert.equal(parseBulkInsertProgress(undefined), null);
});

test('a Faulted state: committed = Total of the progress in the message (never the documents read)', () => {
  const st = faulted("Failed to process bulk insert. Inserted 8,192 items in 1 batches. Last document ID: 'K8191'");
  const c = committedFromState(st);
  assert.equal(c.known, true);
  assert.equal(c.processed, 8192);
  assert.match(c.text, /^Faulted: Failed to process bulk insert\. Inserted 8,192 items/);
  const none = committedFromState(faulted('Failed to process bulk insert. Inserted 0 items in 0 batches.'));
  assert.deepEqual([none.known, none.processed], [true, 0]);
});

test('a Faulted state whose message has no progress: unknown, every document is counted as failed by the caller', () => {
  const c = committedFromState(faulted('Database k6wp_x is disabled'));
  assert.deepEqual([c.known, c.processed], [false, 0]);
  assert.match(c.text, /^Faulted: Database k6wp_x is disabled$/);
});

test('a Completed state (the answer was lost after the server finished): Total of the BulkOperationResult', () => {
  const c = committedFromState({
    Status: 'Completed',
    Progress: null,
    Result: { $type: 'Raven.Client.Documents.Operations.BulkOperationResult, Raven.Client', Total: 5000, DocumentsProcessed: 5000, AttachmentsProcessed: 0, CountersProcessed: 0, TimeSeriesProcessed: 0 },
  });
  assert.deepEqual([c.known, c.processed], [true, 5000]);
});

test('InProgress or an unreadable state tells nothing', () => {
  assert.equal(committedFromState({ Status: 'InProgress', Result: null, Progress: { Total: 1000 } }).known, false);
  assert.equal(committedFromState(null).known, false);
});

// The create-database answer is DatabasePutResult {RaftCommandIndex, Name, Topology, NodesAddedTo}
// with Topology = DatabaseTopology.ToJson() (src/Raven.Client/ServerWide/DatabaseTopology.cs).
const created = (members, added = []) => ({
  RaftCommandIndex: 12, Name: 'k6wp_x', NodesAddedTo: added,
  Topology: { Members: members, Promotables: [], Rehabs: [], Stamp: { Index: 12, Term: 1, LeadersTicks: -2 }, PromotablesStatus: {}, DemotionReasons: {}, DynamicNodesDistribution: false, ReplicationFactor: 1, DatabaseTopologyIdBase64: 'AAAAAAAAAAAAAAAAAAAAAA', ClusterTransactionIdBase64: 'AAAAAAAAAAAAAAAAAAAAAA', PriorityOrder: [] },
});

test('cluster placement: a database on RAVEN_URL\'s node is fine, on another node it is explained', () => {
  assert.equal(placementProblem(created(['A']), 'A'), null);
  assert.equal(placementProblem(created(['B', 'A']), 'A'), null);
  assert.equal(placementProblem(created(['B'], ['http://10.0.0.2:8080']), 'A'),
    'the cluster placed it on node B (http://10.0.0.2:8080), but RAVEN_URL reaches node A');
  // cannot tell: no node tag, or an answer without a topology
  assert.equal(placementProblem(created(['B']), null), null);
  assert.equal(placementProblem({ RaftCommandIndex: 1, Name: 'k6wp_x' }, 'A'), null);
});

// Texts and answers recorded from a real RavenDB 4.1.0 (scripts/raven-private.sh).
test('4.x bulk insert failure text: "Inserted N documents in B batches. Last document id: …" gives the committed count', () => {
  const msg = "Failed to process bulk insert Inserted 19558 documents in 32 batches. Last document id: 'K119557'";
  assert.deepEqual(parseBulkInsertProgress(msg), { total: 19558, batches: 32, lastId: 'K119557' });
  assert.deepEqual(committedFromState(faulted(msg)), { known: true, processed: 19558, text: `Faulted: ${msg}` });
  assert.deepEqual(parseBulkInsertProgress('Failed to process bulk insert Inserted 0 documents in 0 batches.'), { total: 0, batches: 0, lastId: null });
});

test('"not now" answers: 503 DatabaseDisabled / NodeIsPassive and the 500 in route handling after a restart; nothing else', () => {
  assert.equal(notNowReason(503, { Type: 'Raven.Client.Exceptions.Database.DatabaseDisabledException', Message: "Database 'k6wp_x' is unloaded and locked by DeleteDatabase" }), 'http_503');
  assert.equal(notNowReason(503, { Type: 'Raven.Client.Exceptions.Cluster.NodeIsPassiveException', Message: 'Cannot execute the request because this node is passive' }), 'http_503');
  assert.equal(notNowReason(500, { Type: 'System.NullReferenceException', Message: 'Object reference not set to an instance of an object.', Error: 'System.NullReferenceException: …\n   at Raven.Server.Routing.RouteInformation.CreateDatabase(RequestHandlerContext context)' }), 'http_500');
  assert.equal(notNowReason(500, { Type: 'System.NullReferenceException', Error: 'at Raven.Server.Documents.Handlers.BatchHandler.BulkDocs()' }), null, 'inside a handler: it may have done something');
  // Kestrel's empty 500 before the server's handler runs (a restart): nothing was done.
  assert.equal(notNowReason(500, null, { body: '', serverVersion: undefined }), 'http_500');
  assert.equal(notNowReason(500, null, { body: '', serverVersion: '4.1.0.41001' }), null, 'the server answered it: it may have done something');
  assert.equal(notNowReason(500, null, { body: 'oops', serverVersion: undefined }), null);
  assert.equal(notNowReason(503, { Type: 'Raven.Client.Exceptions.ClientVersionMismatchException' }), null);
  assert.equal(notNowReason(500, { Type: 'Raven.Client.Exceptions.Database.DatabaseDoesNotExistException' }), null);
  assert.equal(notNowReason(503, null), null);
});

test('408 after the commit: the index wait timed out (4.1.0\'s text); other 408s are not taken for it', () => {
  const e = { Type: 'System.TimeoutException', Message: 'After waiting for 00:00:00.0073570, could not verify that 1 indexes has caught up with the changes as of etag: 601' };
  assert.equal(committedButIndexWaitFailed(408, e), true);
  assert.equal(committedButIndexWaitFailed(408, { Type: 'System.TimeoutException', Message: 'The operation has timed out' }), false);
  assert.equal(committedButIndexWaitFailed(500, e), false);
});
