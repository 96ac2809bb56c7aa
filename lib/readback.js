// The read-back of overwritten keys, judged against what the database ACKNOWLEDGED
// (docs/reliability.md, "Verification"). E1's fixed plan gives every key exactly one writer
// VU (lib/keys.js rule 2: VU v = j % V writes the keys of batch j, in increasing j), and only
// that VU knows which of its batches the database answered with a failure: k6 offers no
// channel from the VUs to teardown. So each VU keeps a ledger of its failed batches and,
// after its last batch, reads back a sample of its own keys and judges each one here:
//
//   ok              the key holds the version of its last acknowledged writer
//   excused         the same, but later batches of the plan wrote it and FAILED (the client
//                   was told so): not a lost write, and not counted as stale
//   unacknowledged  the key holds the version of a later batch that was reported failed,
//                   yet applied (a commit whose answer the outage swallowed): nothing lost
//   resolved        the key holds the version of a batch whose outcome was undetermined (its
//                   request reached the server whole and no answer came, or "committed, but a
//                   wait failed"): that batch was stored (also when applied late, after a later
//                   acknowledged write of the key); nothing the database lost
//   undetermined    a later batch failed in part without naming its failed documents
//                   (ArangoDB silent=true): whether this key's write was acknowledged is unknown
//   missing         an acknowledged version exists, the key does not
//   stale           anything else: an older version than the last acknowledged writer wrote,
//                   or a version no writer of this key wrote: a lost write
//
// Failed batches are rare, so the ledger costs nothing on the timed path of a healthy run.

const ALL = 'all';

// key number -> stamp of the stored document (missing keys absent), read `size` keys at a
// time: readChunk(chunk, out) adds what one request found. The targets' readStamps().
export function stampsInChunks(nums, size, readChunk) {
  const out = new Map();
  for (let i = 0; i < nums.length; i += size) readChunk(nums.slice(i, i + size), out);
  return out;
}
const UNKNOWN = 'unknown';
// Not acknowledged, stored or not (res.undetermined of lib/targets/outcome.js).
const MAYBE = 'maybe';

// ledger: Map; call after every batch with what the target's write() returned.
export function noteOutcome(ledger, phase, j, res) {
  if (res.failed === 0) return;
  if (res.undetermined) {
    ledger.set(`${phase}:${j}`, res.failed >= res.n ? MAYBE : { maybe: new Set(res.failedIndexes || []) });
    return;
  }
  ledger.set(`${phase}:${j}`, res.failed >= res.n ? ALL : res.failedIndexes ? new Set(res.failedIndexes) : UNKNOWN);
}

// 'ack' | 'failed' | 'maybe' | 'unknown' for document t (index into the batch's keys) of batch (phase, j).
export function ackOf(ledger, phase, j, t) {
  const f = ledger.get(`${phase}:${j}`);
  if (f === undefined) return 'ack';
  if (f === ALL) return 'failed';
  if (f === UNKNOWN) return 'unknown';
  if (f === MAYBE) return MAYBE;
  if (f.maybe) return f.maybe.has(t) ? MAYBE : 'ack';
  return f.has(t) ? 'failed' : 'ack';
}

// The undetermined writes of one key that the stored version shows were not applied: the key
// holds its last acknowledged version (or nothing, as before any), so no later write took.
// existed: the key held an acknowledged version (a write to it adds no document, so only the
// read-back can tell; a new key's is told by the count too).
export function unappliedMaybe(writers, found) {
  let expected;
  let after = [];
  for (const w of writers) {
    if (w.ignore && expected !== undefined) continue;
    if (w.ack === 'ack') {
      expected = w.stamp;
      after = [];
    } else after.push(w);
  }
  return { writes: found === expected ? after.filter((w) => w.ack === MAYBE) : [], existed: expected !== undefined };
}

// writers: the plan's writes of one key in the order they happened, each { stamp, ack, ignore }
// (ignore: ArangoDB overwriteMode=ignore, which writes a key only when it does not exist).
// found: the stamp the database holds (undefined = no document). Returns a category above.
export function judge(writers, found) {
  let expected;        // the last acknowledged version (undefined: none, no document)
  let maybe = [];      // writes after `expected` that were not acknowledged: [stamp, ack]
  let laterFailed = false;
  for (const w of writers) {
    // An ignore write changes nothing when the key exists (as far as acknowledged writes say).
    if (w.ignore && expected !== undefined) continue;
    if (w.ack === 'ack') {
      expected = w.stamp;
      maybe = [];
      laterFailed = false;
    } else {
      maybe.push([w.stamp, w.ack]);
      laterFailed = true;
    }
  }
  if (found === expected) {
    if (maybe.some(([, a]) => a === 'unknown')) return 'undetermined';
    return laterFailed ? 'excused' : 'ok';
  }
  // The last of the not-acknowledged writes that holds the stored version.
  const late = maybe.slice().reverse().find(([s]) => s === found);
  if (late) return late[1] === 'unknown' ? 'undetermined' : late[1] === MAYBE ? 'resolved' : 'unacknowledged';
  if (found === undefined) return 'missing';
  // An undetermined write of this key from BEFORE the last acknowledged one: the server got it
  // whole, the client gave up on it (a frozen server), and it was applied late, after the later
  // write. That batch was stored after all (resolved), not a write the database lost.
  if (writers.some((w) => w.ack === MAYBE && w.stamp === found)) return 'resolved';
  return 'stale';
}
