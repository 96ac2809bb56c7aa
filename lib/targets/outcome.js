// The one batch runner (go-ycsb's DbWrapper, pkg/client/dbwrapper.go, in k6): every write of
// every workload on every target goes through run() below, which builds the request, sends
// it, takes the batch's time, logs each failure reason once per VU, pauses after a connection
// failure, records the batch (lib/metrics.js recordBatch) and, once the batch is counted,
// stops the run when the target said that going on is pointless. Workloads call the runner's
// write/single/transaction; targets only build requests and say what the server answered.
//
// The time of a batch (docs/design.md, "The time of a batch") is the write on the wire:
//   HTTP targets   k6's own timing of the batch's write request(s), timings.duration
//                  (sending + waiting + receiving; connection set-up is not in it), summed
//                  over the requests of one operation (a stream transaction's begin, inserts
//                  and commit); when a request got no answer (refused, reset, timed out) k6
//                  has no timing for it, and the runner's clock around send() counts instead
//   PostgreSQL     the runner's clock around send(), which is the one statement call
//                  (xk6-sql reports no timings)
// Never in it: building the body (prepare, before the clock), a RavenDB bulk insert's
// operation-id request (prepare), reading how much of a failed bulk insert was committed
// (settle, after the clock), the pause after a failure, logging.
//
// A request, as a target's batch()/single()/transaction() builds it:
//   { n, bytes, send(tags) -> answer }           n documents, bytes of the request body
// An answer, as send() (or its settle()) returns it; ACKNOWLEDGED when everything was written:
//   responses      the k6 responses whose timings are the batch's time (HTTP targets)
//   reason         why documents failed (a name of the target's REASONS); absent: none failed
//   failed         how many documents failed (default: all n when there is a reason)
//   byReason       { reason: count } when a batch failed for several reasons
//   failedIndexes  which documents failed (indexes into the batch's keys), when known
//   bytes          the bytes actually sent, when not the whole body (a request not sent)
//   log            the line printed the first time this VU meets the reason
//   notes          [[key, line], …] more lines printed once per VU and key
//   undetermined   true: the failed documents may be stored after all (the request reached the
//                  server whole and its answer never came, or the server answered "committed,
//                  but a wait after the commit failed"): they are counted failed (not
//                  acknowledged) and undetermined, never "none stored"; the count then holds
//                  them as a range and the read-back resolves their keys (lib/readback.js)
//   notNow         a reason name: the server refused the request before doing anything
//                  ("not now": a database unloading or loading, a node still passive after a
//                  restart); the runner waits and sends it again, within GIVE_UP, each resend
//                  counted in writepath_retries{reason}; after GIVE_UP the answer counts as is
//   fatal          a one-line reason to stop the whole run once this batch is counted
//   answered       the server itself answered a connection failure (PostgreSQL "too many
//                  clients", "starting up"): it is there, so the give-up clock starts again
//   settle(ms)     -> the answer's accounting, read after the clock stopped (ms: the batch's time)
//
// A database that answers no batch of a VU for GIVE_UP (every attempt failed with reason
// connection) ends the run (issue 27): one line naming what was acknowledged before, that
// verification did not run, and what is left on the server with the command that removes it
// (the target's leftBehind()). A database back within GIVE_UP lets the run go on.
//
// A k6 VU has its own copy of this module, so the state below is per VU.
import { sleep } from 'k6';
import exec from 'k6/execution';
import { incrementsRetried, recordBatch } from '../metrics.js';
import { bodyBytes } from '../docs.js';
import { durationMs } from '../parse.js';
import { stop } from '../abort.js';

// A refused connection fails in well under a millisecond: without a pause a VU would burn
// through its share of the phase (and print a line per request) while the server restarts
// or stays down. The pause doubles while connections keep failing, up to MAX, and is reset
// by the first batch that gets an answer. It is outside the timed batch, which still counts
// as failed.
const BACKOFF_MIN_S = 0.5;
const BACKOFF_MAX_S = 4;
// The pause (seconds) after one of prev: the back-off of every wait here.
function nextPause(prev) {
  return prev === 0 ? BACKOFF_MIN_S : Math.min(BACKOFF_MAX_S, prev * 2);
}

// The one wait for a "not now" answer (the server refused before doing anything): attempt()
// again after the back-off pause until its answer is not "not now" or giveUpMs have passed
// since the first refusal; onRetry(answer) runs before each pause. Used by the batches (below)
// and by the untimed requests (lifecycle.js patiently, postgres.js patient and probe).
// attempt() -> { notNow: a reason or falsy, … }; -> the last answer (still notNow: gave up).
export function untilNotNowEnds(giveUpMs, attempt, onRetry) {
  let since = null;
  let pause = 0;
  for (;;) {
    const a = attempt();
    if (!a.notNow) return a;
    if (since === null) since = Date.now();
    const left = giveUpMs - (Date.now() - since);
    if (left <= 0) return a;
    onRetry(a);
    pause = nextPause(pause);
    sleep(Math.min(pause, left / 1000));
  }
}
// Reasons that mean "no answer from the server" and so pause the VU.
const PAUSING = new Set(['connection']);
// How long a VU that stops the run waits first (seconds): far longer than recording a batch.
const ABORT_GRACE_S = 0.5;

export const ACKNOWLEDGED = Object.freeze({});

// A request that got no answer, yet may have reached the server whole: anything but a failure
// to connect (k6 error codes: 1020 invalid URL, 11xx DNS, 1210-1213 dial; grafana/k6
// lib/netext/httpext/error_codes.go). A reset or EOF after the last byte was written, or the
// client's own TIMEOUT, leaves what the server did unknown: the batch may be committed. A fact
// of HTTP, so every HTTP target (and the gateway's, for PostgreSQL and MongoDB) applies it.
export function maybeArrived(res) {
  const c = res.error_code;
  return res.status === 0 && !(c === 1020 || (c >= 1100 && c < 1200) || (c >= 1210 && c <= 1213));
}

// A request of n documents whose body is built: what a target's batch() returns.
/** @returns {import('../../types/targets').Request} */
export function request(n, body, send) {
  return { n, bytes: bodyBytes(body), body, send };
}

// The runner's clock: sub-millisecond, unlike Date.now().
function now() {
  return exec.instance.currentTestRunDuration;
}

// k6's time of the requests on the wire, or null when one of them got no answer.
function wireTime(responses) {
  let ms = 0;
  for (const r of responses) {
    if (!r || r.status === 0) return null;
    ms += r.timings.duration;
  }
  return ms;
}

// The runner of one VU over one target. Returns the operations workloads call, each
// returning what recordBatch recorded: { n, ms, bytes, failed, byReason, failedIndexes, abort }.
/** @param {import('../../types/targets').Target} target @param {any} [cfg] */
export function batchRunner(target, cfg = {}) {
  const logged = {};
  let pause = 0;
  const giveUpMs = cfg.GIVE_UP ? durationMs(cfg.GIVE_UP) : Infinity;
  let downSince = null; // when the current run of unanswered batches began (epoch ms)
  let acknowledged = 0; // documents this VU had acknowledged

  function logOnce(key, text) {
    if (logged[key]) return;
    logged[key] = true;
    console.error(text);
  }

  // tags: the batch's metric tags; fresh: how many of its first documents have new keys;
  // recreated(res): acknowledged documents among the others whose keys did not exist either
  // (lib/metrics.js recordBatch); prepare() -> a request of the target.
  function run(tags, { fresh = 0, recreated = null } = {}, prepare) {
    const startedAt = Date.now();
    const req = prepare();
    let ms = 0;
    const a = untilNotNowEnds(giveUpMs, () => {
      const t0 = now();
      const sent = req.send(tags);
      const clock = now() - t0;
      const wire = sent.responses ? wireTime(sent.responses) : null;
      // A resent request's time is the last attempt's: the refused ones did no work.
      ms = wire === null ? clock : wire;
      return sent.settle ? sent.settle(ms) : sent;
    }, (refused) => {
      if (refused.log) logOnce(`notnow:${refused.notNow}`, `${refused.log}; nothing was done: sent again after a pause (within GIVE_UP=${cfg.GIVE_UP})`);
      incrementsRetried.add(1, Object.assign({}, tags, { reason: refused.notNow }));
    });
    const n = req.n;
    if (a.log) logOnce(a.fatal ? `fatal:${a.reason}` : a.reason, a.log);
    if (a.notes) for (const [key, line] of a.notes) logOnce(key, line);
    const failed = a.reason === undefined ? 0 : a.failed === undefined ? n : a.failed;
    let giveUp = null;
    if (failed > 0 && PAUSING.has(a.reason)) {
      // An answer restarts the clock from now: a "not now" batch resent for GIVE_UP began that long ago.
      if (a.answered) downSince = Date.now();
      else if (downSince === null) downSince = startedAt;
      const left = giveUpMs - (Date.now() - downSince);
      if (left <= 0) giveUp = givingUp(a);
      else {
        pause = nextPause(pause);
        sleep(Math.min(pause, left / 1000));
      }
    } else {
      pause = 0;
      downSince = null;
    }
    acknowledged += n - failed;
    const res = {
      n,
      ms,
      bytes: a.bytes === undefined ? req.bytes : a.bytes,
      failed,
      byReason: failed === 0 ? {} : a.byReason || { [a.reason]: failed },
      failedIndexes: failed === 0 ? null : a.failedIndexes || null,
      undetermined: failed > 0 && a.undetermined === true,
      abort: a.fatal || giveUp,
    };
    recordBatch(tags, res, fresh, startedAt, recreated ? recreated(res) : 0);
    // The batch that revealed the fault is counted first. Other VUs' batches that met the same
    // fault at the same moment are being recorded too, and k6 drops every sample pushed after
    // the abort: without this pause one of them could keep its ok documents and lose its failed
    // ones (seen in CI: a database dropped under two VUs).
    if (res.abort) {
      sleep(ABORT_GRACE_S);
      stop(res.abort);
    }
    return res;
  }

  // The line that ends a run whose database stopped answering.
  function givingUp(a) {
    const last = a.log ? a.log.replace(/^\[[^\]]*\] /, '') : a.reason;
    return `${target.name} answered no batch of this VU for ${cfg.GIVE_UP} (GIVE_UP; last: ${last}): the run stops. `
      + `Acknowledged before: ${acknowledged} documents by this VU, every VU's in the table above (docs ok); verification did not run; `
      + `${target.leftBehind ? target.leftBehind() : 'the run\'s objects may be left on the server'}`;
  }

  return {
    target,
    // A batch of documents: keys (a key range or a list), the stamp they carry, the operation.
    write: (op, keys, stamp, tags, opts) => run(tags, opts, () => target.batch(op, keys, stamp)),
    // One single-document operation (capability single): op insert|read|update|delete.
    single: (op, collection, key, body, tags, opts) => run(tags, opts, () => target.documents.single(op, collection, key, body)),
    // One document into each of several collections, atomically (capability transactions).
    transaction: (bodies, tags, opts) => run(tags, opts, () => target.documents.transaction(bodies)),
    run,
  };
}
