// How to read RavenDB's answers on the failure paths, as pure functions (no k6 modules) so
// the unit tests run them in Node with text in the real server's format.
//
// After a failed bulk insert (POST /databases/<db>/bulk_insert) the pack asks
// GET /databases/<db>/operations/state?id=<operation id> how much of the array was committed.
// What the real server (ravendb/ravendb, 6.x/7.x) answers there:
//   - Completed: Result is a BulkOperationResult {Total, DocumentsProcessed, …}: everything was
//     stored (the POST failed after the server had finished, e.g. the answer was lost).
//   - Faulted: Progress is null and Result an OperationExceptionResult {Type, Message, Error,
//     StatusCode} (src/Raven.Server/Documents/Operations/AbstractOperations.cs) of the
//     InvalidOperationException the bulk-insert processor throws for ANY failure
//     (src/Raven.Server/Documents/Handlers/Processors/BulkInsert/AbstractBulkInsertHandlerProcessor.cs):
//       "Failed to process bulk insert. " + BulkInsertProgress.ToString()
//     and BulkInsertProgress.ToString() (src/Raven.Client/Documents/Operations/IOperationProgress.cs) is
//       $"Inserted {Total:#,#;;0} items in {BatchCount:#,#;;0} batches."
//       + (LastProcessedId != null ? $" Last document ID: '{LastProcessedId}'" : "")
//     Total grows only after a batch was committed, so it is the committed count (the
//     processor's DocumentsProcessed counts commands read, committed or not, and is NOT used).
//     "#,#" prints thousands separators ("1,234,567"; another server culture may use "." or a
//     space), ";;0" prints "0" for zero.
//   - InProgress: still running (the caller polls); anything else tells nothing.
// RavenDB 4.x words it otherwise: the handler (src/Raven.Server/Documents/Handlers/BulkInsertHandler.cs,
// 4.x) throws "Failed to process bulk insert " + progress, and 4.x's BulkInsertProgress.ToString()
// (src/Raven.Client/Documents/Operations/IOperationProgress.cs, 4.x) is
//       $"Inserted {Processed} documents in {BatchCount} batches." + $" Last document id: '{…}'"
// where Processed grows after each awaited TxMerger commit: again the committed count. Recorded
// from 4.1.0: "Failed to process bulk insert Inserted 19558 documents in 32 batches. Last
// document id: 'K119557'".

// The committed count and batches of a BulkInsertProgress text (either form), or null when the
// text is in neither. Separators of any culture (",", ".", spaces, apostrophe) are accepted.
const PROGRESS = /Inserted ([0-9][0-9,.'\u00a0\u202f ]*) (?:items|documents) in ([0-9][0-9,.'\u00a0\u202f ]*) batches\.(?: Last document (?:ID|id): '(.*)')?/;

function digits(s) {
  return Number(s.replace(/[^0-9]/g, ''));
}

export function parseBulkInsertProgress(text) {
  const m = PROGRESS.exec(String(text || ''));
  if (!m) return null;
  return { total: digits(m[1]), batches: digits(m[2]), lastId: m[3] === undefined ? null : m[3] };
}

// What an operation state (the parsed JSON of operations/state) says about a failed bulk
// insert: { known, processed, text }. known=false: the committed part cannot be told (the
// caller then counts every document of the array as failed and verification shows the truth).
export function committedFromState(st) {
  if (!st || typeof st !== 'object') return { known: false, processed: 0, text: 'unreadable operation state' };
  const result = st.Result || {};
  if (st.Status === 'Completed') {
    const n = typeof result.Total === 'number' ? result.Total : result.DocumentsProcessed;
    if (typeof n === 'number') return { known: true, processed: n, text: `Completed, Total=${n}` };
    return { known: false, processed: 0, text: 'Completed without a Total' };
  }
  if (st.Status === 'Faulted') {
    const p = parseBulkInsertProgress(result.Message);
    if (p) return { known: true, processed: p.total, text: `Faulted: ${result.Message}` };
    return { known: false, processed: 0, text: `Faulted${result.Message ? `: ${result.Message}` : ''}` };
  }
  return { known: false, processed: 0, text: String(st.Status || 'no Status') };
}

// Cluster placement of a new database. The pack talks to RAVEN_URL only; the official clients
// instead route every request by the database's topology (GET /topology). In a cluster the
// server may place a new database with replicationFactor=1 on ANOTHER node, and a node outside
// the database group does not serve it. The create answer (DatabasePutResult: RaftCommandIndex,
// Name, Topology = DatabaseTopology.ToJson(), NodesAddedTo; ravendb/ravendb
// src/Raven.Client/ServerWide/DatabaseTopology.cs) lists the group's node tags in
// Topology.Members; GET /cluster/node-info names the node RAVEN_URL reaches (NodeTag).
// Returns null when the database is on that node or when either side cannot tell, else the
// one-line explanation.
export function placementProblem(createAnswer, nodeTag) {
  const t = createAnswer && createAnswer.Topology;
  const group = t ? [...(t.Members || []), ...(t.Promotables || []), ...(t.Rehabs || [])] : [];
  if (!nodeTag || group.length === 0 || group.includes(nodeTag)) return null;
  const where = Array.isArray(createAnswer.NodesAddedTo) && createAnswer.NodesAddedTo.length ? ` (${createAnswer.NodesAddedTo.join(', ')})` : '';
  return `the cluster placed it on node ${group.join(', ')}${where}, but RAVEN_URL reaches node ${nodeTag}`;
}

// "Not now" answers: the server refused the request before any handler ran, so it did nothing
// and the same request may be sent again later (lib/targets/outcome.js notNow). Recorded from
// RavenDB 4.1.0 (docs/ravendb.md, "A real server"):
//   503 DatabaseDisabledException   the database is being unloaded (a deletion under way, then
//                                   500 DatabaseDoesNotExistException) or loaded
//   503 NodeIsPassiveException      a restarted server, for some seconds, before it is a node again
//   500 NullReferenceException      the first ~0.4 s after a restart, thrown in route handling
//                                   (RouteInformation.CreateDatabase), before any handler
// The exception types are mapped to status codes in src/Raven.Server/RavenServerStartup.cs
// (MaybeSetExceptionStatusCode). Returns the reason to retry under, or null.
// Before those, a restarted 4.1.0 answers 500 with no body and no Raven-Server-Version header
// for a second or two (recorded: only "Server: Kestrel" and "Content-Length: 0"): Kestrel's
// own answer while the server's request handler (RavenServerStartup.RequestHandler, which sets
// Raven-Server-Version on every answer it gives) does not run yet, so nothing was done.
// raw: { body, serverVersion } of the answer (the body text, the Raven-Server-Version header).
const NOT_NOW_503 = /(DatabaseDisabledException|NodeIsPassiveException|DatabaseLoadTimeoutException|DatabaseConcurrentLoadTimeoutException)/;
export function notNowReason(status, error, raw = null) {
  if (status === 500 && raw && raw.body === '' && !raw.serverVersion) return 'http_500';
  if (!error || typeof error !== 'object') return null;
  const type = String(error.Type || '');
  if (status === 503 && NOT_NOW_503.test(type)) return 'http_503';
  if (status === 500 && /NullReferenceException/.test(type) && /RouteInformation/.test(String(error.Error || ''))) return 'http_500';
  return null;
}

// A bulk_docs batch answered 408 because the wait for indexes after its commit timed out
// (?waitForIndexesTimeout=): committed, though not acknowledged as written and indexed. 4.1.0
// answers "System.TimeoutException: After waiting for 00:00:00.0073570, could not verify that 1
// indexes has caught up with the changes as of etag: 601" (the batch handler waits after the
// merged command ran, src/Raven.Server/Documents/Handlers/BatchHandler.cs, WaitForIndexesAsync).
export function committedButIndexWaitFailed(status, error) {
  return status === 408 && Boolean(error) && /TimeoutException/.test(String(error.Type || ''))
    && /indexes ha(s|ve) caught up/.test(String(error.Message || ''));
}
