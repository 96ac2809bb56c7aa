// The exact increments of the contention workload on each target, and how to read their
// answers, as pure functions (no k6 modules) so that unit and fidelity tests use the same
// text the adapters send. Semantics and sources: docs/operations.md ("Contention") and
// docs/contention.md; the answers the API test servers give: docs/fidelity.md A14-A17, R12-R14.
//
// A counter is a document {"n": <count>} under its key; one operation increments one counter
// or a batch of distinct counters by one, in ONE request/statement that the database applies
// atomically (all or nothing). An operation's outcome for the ledger (lib/ledger.js):
//   acked         the database said it applied every increment;
//   failed        it said it applied none (an error answer of an atomic request);
//   undetermined  no answer (timeout, connection lost after sending): applied or not.

// The counter field, in every target.
export const COUNTER_FIELD = 'n';

// Reasons that leave an operation undetermined: the request may have been applied. MongoDB's
// write_concern: applied on the server that answered, the concern not met (it may be rolled
// back); its server_error: the command failed as a whole with a code that does not say
// whether its operations ran (lib/targets/mongodb/mongodb.js errorReason).
const UNDETERMINED = new Set(['timeout', 'connection', 'unconfirmed', 'write_concern', 'server_error']);
export const isUndetermined = (reason) => UNDETERMINED.has(reason);
// Reasons that say the request was not applied and may simply be sent again: ArangoDB's
// write-write conflict / lock timeout (errorNum 1200), PostgreSQL's deadlock (40P01) and
// serialization failure (40001). The contention workload retries them (CONFLICT_RETRIES).
export const RETRYABLE = new Set(['e1200', 'deadlock', 'serialization']);

// ---- PostgreSQL -------------------------------------------------------------------------
// INSERT … ON CONFLICT (key) DO UPDATE on the jsonb document (table of lib/targets/postgres/postgres.js:
// key text primary key, doc jsonb). The keys of a batch are distinct and go in key order
// (ORDER BY key): rows are locked in the order the statement reaches them, and two batches
// that lock the same rows in opposite orders deadlock (40P01; measured in docs/contention.md).
export function pgIncrementSql(table) {
  return `INSERT INTO ${table} AS c (key, doc) SELECT k, '{"${COUNTER_FIELD}":1}'::jsonb FROM unnest($1::text[]) AS k ORDER BY k ` +
    `ON CONFLICT (key) DO UPDATE SET doc = jsonb_set(c.doc, '{${COUNTER_FIELD}}', to_jsonb((c.doc->>'${COUNTER_FIELD}')::bigint + 1))`;
}
// The text[] parameter of a batch (keys are pack key names: letters and digits only).
export const pgKeysParam = (names) => `{${names.join(',')}}`;

// ---- ArangoDB ---------------------------------------------------------------------------
// POST /_db/<db>/_api/cursor {"query": ARANGO_INCREMENT_AQL, "bindVars": {"keys": [...], "@coll": <name>}}
export const ARANGO_INCREMENT_AQL = 'FOR k IN @keys UPSERT { _key: k } INSERT { _key: k, n: 1 } UPDATE { n: OLD.n + 1 } IN @@coll';

export function arangoIncrementBody(names, collection) {
  return JSON.stringify({ query: ARANGO_INCREMENT_AQL, bindVars: { keys: names, '@coll': collection } });
}

function parseJson(text) {
  try { return JSON.parse(text); } catch (_) { return null; }
}

// What a cursor answer says about an increment of n counters: { acked, failed, undetermined,
// reason, message }. status 0 = no answer (k6: timeout or transport error; reason given by
// the caller). An ArangoDB error envelope means the query's transaction was aborted: nothing
// was applied (a single-server query is all or nothing). writesExecuted below n cannot
// happen for this query; it is counted undetermined ("unconfirmed") rather than guessed.
export function arangoIncrementOutcome(n, status, body, transportReason = 'connection') {
  if (status === 0) return { acked: 0, failed: 0, undetermined: n, reason: transportReason, message: null };
  const j = parseJson(body);
  if (status === 201 && j && j.error === false) {
    const w = j.extra && j.extra.stats ? Number(j.extra.stats.writesExecuted) : NaN;
    if (w === n) return { acked: n, failed: 0, undetermined: 0, reason: null, message: null };
    return { acked: 0, failed: 0, undetermined: n, reason: 'unconfirmed', message: `writesExecuted ${j.extra && j.extra.stats ? j.extra.stats.writesExecuted : 'missing'} for ${n} increments` };
  }
  if (j && j.error === true && Number.isInteger(j.errorNum)) {
    return { acked: 0, failed: n, undetermined: 0, reason: `e${j.errorNum}`, message: String(j.errorMessage || '') };
  }
  // An answer without ArangoDB's envelope (a proxy's 502, …): the request did not reach a
  // transaction that committed, but nothing says so for certain.
  return { acked: 0, failed: 0, undetermined: n, reason: `http_${status}`, message: String(body || '').slice(0, 200) };
}

// ---- RavenDB ----------------------------------------------------------------------------
// POST /databases/<db>/bulk_docs {"Commands": [one PATCH per counter]}: the script the official
// clients send for session.advanced.increment(id, "n", 1).
export const RAVEN_INCREMENT_SCRIPT = `this.${COUNTER_FIELD} = this.${COUNTER_FIELD} ? this.${COUNTER_FIELD} + args.val_0 : args.val_0;`;

export function ravenIncrementCommand(id) {
  return { Id: id, ChangeVector: null, Type: 'PATCH', Patch: { Script: RAVEN_INCREMENT_SCRIPT, Values: { val_0: 1 } } };
}

export function ravenIncrementBody(ids) {
  return JSON.stringify({ Commands: ids.map(ravenIncrementCommand) });
}

const RAVEN_STATUS_REASON = { 409: 'conflict' };

// What a bulk_docs answer says about the n PATCH commands of one batch (one transaction):
// 201: per command PatchStatus "Patched" = applied; "DocumentDoesNotExist" (the counter is gone,
// no PatchIfMissing was sent) and anything else = not applied (reason missing / patch_<status>).
// An error answer (RavenDB's {Type, Message, …} envelope, 409/500/503/…) = the transaction
// aborted, none applied. No answer = undetermined.
export function ravenIncrementOutcome(n, status, body, transportReason = 'connection') {
  if (status === 0) return { acked: 0, failed: 0, undetermined: n, reason: transportReason, message: null, byReason: { [transportReason]: n } };
  const j = parseJson(body);
  if (status === 201 && j && Array.isArray(j.Results)) {
    const byReason = {};
    let acked = 0;
    for (let i = 0; i < n; i++) {
      const r = j.Results[i];
      if (r && r.Type === 'PATCH' && r.PatchStatus === 'Patched') { acked++; continue; }
      const reason = !r ? 'unconfirmed' : r.PatchStatus === 'DocumentDoesNotExist' ? 'missing' : `patch_${String(r.PatchStatus || r.Type).toLowerCase()}`;
      byReason[reason] = (byReason[reason] || 0) + 1;
    }
    const undetermined = byReason.unconfirmed || 0;
    const failed = n - acked - undetermined;
    const reason = Object.keys(byReason)[0] || null;
    return { acked, failed, undetermined, reason, message: null, byReason };
  }
  if (j && typeof j.Type === 'string') {
    const reason = RAVEN_STATUS_REASON[status] || `http_${status}`;
    return { acked: 0, failed: n, undetermined: 0, reason, message: `${j.Type}: ${j.Message || ''}`, byReason: { [reason]: n } };
  }
  const reason = `http_${status}`;
  return { acked: 0, failed: 0, undetermined: n, reason, message: String(body || '').slice(0, 200), byReason: { [reason]: n } };
}
