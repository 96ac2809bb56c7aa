// How to read ArangoDB's answers to array writes, as pure functions (no k6 modules) so
// the unit tests run them in Node. A 201/202 answer to an array can hold failed elements:
// {"error":true,"errorNum":N,"errorMessage":…} in input order, and an X-Arango-Error-Codes
// header that is a JSON object {"1210":3} (recorded example RestDocumentHandlerPostBadJsonMulti
// of the ArangoDB docs, arangodb/docs-hugo site/data/3.12/cache.json; the header is built in
// RestVocbaseBaseHandler::generate20x, arangodb/arangodb arangod/RestHandler/RestVocbaseBaseHandler.cpp).
// With silent=true the answer is {} when every element succeeded; otherwise it is the array
// the server built, which holds the failed elements AND, with overwriteMode=ignore, the
// identity {_id,_key,_rev} of every element that met an existing document (written elements
// have no entry): arangod/Transaction/Methods.cpp, ReplicatedProcessorBase::execute and
// InsertProcessor::processValue. Only the elements with "error":true are failures.

const ELEMENT_OK = '"_rev":"';

function countOccurrences(text, needle) {
  let n = 0;
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) n++;
  return n;
}

export function parseJson(text) {
  try { return JSON.parse(text); } catch (_) { return null; }
}

// Adds `add` (a {reason: count} map) into `into`.
function addReasons(into, add) {
  for (const r in add) into[r] = (into[r] || 0) + add[r];
}

// An answer that cannot be read: every element counted as failed, reason unconfirmed.
function unconfirmed(out, n, note) {
  return Object.assign(out, { failed: n, byReason: { unconfirmed: n }, note });
}

// What one batch answer says about its n elements. Exported for the unit tests.
//   status, body, errorCodesHeader: the HTTP answer; silent: whether silent=true was sent.
export function accountBatch(n, status, body, errorCodesHeader, silent) {
  const out = { failed: 0, byReason: {}, failedIndexes: null, note: null };
  const fromHeader = {};
  let headerTotal = 0;
  if (errorCodesHeader) {
    const h = parseJson(errorCodesHeader);
    if (h && typeof h === 'object') {
      for (const num in h) { fromHeader[`e${num}`] = Number(h[num]); headerTotal += Number(h[num]); }
    } else {
      out.note = `unreadable X-Arango-Error-Codes header ${errorCodesHeader}`;
    }
  }
  if (silent) {
    // Written elements have no entry, so the failed ones cannot be mapped to keys: the
    // header is the count, the error entries a cross-check ("{}" = everything succeeded).
    const entries = body === '{}' || body === '[]' ? [] : parseJson(body);
    if (!Array.isArray(entries)) return unconfirmed(out, n, 'silent answer is neither {} nor an array');
    // Ignored documents (overwriteMode=ignore) are listed with their identity: not failures.
    const errs = entries.filter((e) => e && e.error === true);
    const listed = errs.length;
    const failed = Math.max(listed, headerTotal);
    if (failed === 0) return out;
    out.failed = Math.min(n, failed);
    if (headerTotal >= listed) addReasons(out.byReason, fromHeader);
    else for (const e of errs) addReasons(out.byReason, { [`e${e.errorNum}`]: 1 });
    if (listed !== headerTotal) out.note = `silent answer lists ${listed} errors, X-Arango-Error-Codes ${headerTotal}`;
    return out;
  }
  // Fast path: no header and no inline error: n identities, each with its _rev.
  if (!errorCodesHeader && body.indexOf('"error":true') === -1) {
    const ok = body.charCodeAt(0) === 91 ? countOccurrences(body, ELEMENT_OK) : 0;
    if (ok === n) return out;
    out.failed = n - Math.min(ok, n);
    out.byReason = { unconfirmed: out.failed };
    out.note = `answer confirms ${ok} of ${n} elements`;
    return out;
  }
  const arr = parseJson(body);
  if (!Array.isArray(arr)) return unconfirmed(out, n, 'answer is not a JSON array');
  out.failedIndexes = [];
  for (let i = 0; i < n; i++) {
    const e = arr[i];
    if (e && e.error === true) {
      out.failedIndexes.push(i);
      addReasons(out.byReason, { [`e${e.errorNum}`]: 1 });
    } else if (!e || typeof e._rev !== 'string') {
      out.failedIndexes.push(i);
      addReasons(out.byReason, { unconfirmed: 1 });
    }
  }
  out.failed = out.failedIndexes.length;
  if (arr.length !== n) out.note = `answer has ${arr.length} elements for ${n} documents`;
  else if (out.failed - (out.byReason.unconfirmed || 0) !== headerTotal) out.note = `inline errors ${out.failed} but X-Arango-Error-Codes ${headerTotal}`;
  return out;
}

// "Not now": ArangoDB refused the request before any handler ran, so it did nothing and may be
// sent again (lib/targets/lifecycle.js patiently). arangod answers 503 with errorNum 503
// "service unavailable due to startup or maintenance mode" from CommTask::prepareExecution
// (arangodb/arangodb arangod/GeneralServer/CommTask.cpp), before the request reaches a handler.
// Another 503 (a coordinator that lost a DB server, errorNum 1478, …) may come after part of
// the work was done: not "not now". body: the parsed answer. Returns the reason, or null.
export function notNowReason(status, body) {
  return status === 503 && Boolean(body) && body.errorNum === 503 ? 'http_503' : null;
}
