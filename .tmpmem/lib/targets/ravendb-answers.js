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

// The committed count and batches of a BulkInsertProgress text, or null when the text is not
// in that format. Separators of any culture (",", ".", spaces, apostrophe) are accepted.
const PROGRESS = /Inserted ([0-9][0-9,.'\u00a0\u202f ]*) items in ([0-9][0-9,.'\u00a0\u202f ]*) batches\.(?: Last document ID: '(.*)')?/;

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
