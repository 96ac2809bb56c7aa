// The one outcome layer of every target adapter: what a written batch returns to the workload
// (lib/metrics.js recordBatch reads it), one log line per failure reason and VU, the pause
// after a connection failure, and the abort that waits until the batch that revealed a fatal
// condition (credentials refused, the run's object gone) has been counted.
//
// A k6 VU has its own copy of this module, so the state below is per VU.
import { sleep } from 'k6';
import exec from 'k6/execution';

// A refused connection fails in well under a millisecond: without a pause a VU would burn
// through its share of the phase (and print a line per request) while the server restarts
// or stays down. The pause doubles while connections keep failing, up to MAX, and is reset
// by the first batch that gets an answer. It is outside the timed batch, which still counts
// as failed.
export const BACKOFF_MIN_S = 0.5;
export const BACKOFF_MAX_S = 4;
// Reasons that mean "no answer from the server" and so pause the VU.
const PAUSING = new Set(['connection']);

// The clock of a batch: sub-millisecond, unlike Date.now().
export function now() {
  return exec.instance.currentTestRunDuration;
}

export function outcomes() {
  const logged = {};
  let pause = 0;

  function logOnce(key, text) {
    if (logged[key]) return;
    logged[key] = true;
    console.error(text);
  }

  // Every document of the batch was written.
  function ok(n, ms, bytes) {
    pause = 0;
    return { n, ms, bytes, failed: 0, byReason: {}, failedIndexes: null };
  }

  // Some or all documents failed. reason: the reason of the whole batch (or of the first
  // failure when byReason is given); failed: how many documents (default n); failedIndexes:
  // which ones, when known (indexes into the batch's keys); log: the line printed the first
  // time this VU meets the reason; fatal: a one-line reason to stop the whole test once this
  // batch is counted.
  function failed({ n, ms, bytes, reason, failed = n, byReason = null, failedIndexes = null, log = null, fatal = null }) {
    if (log) logOnce(fatal ? `fatal:${reason}` : reason, log);
    if (PAUSING.has(reason)) {
      pause = pause === 0 ? BACKOFF_MIN_S : Math.min(BACKOFF_MAX_S, pause * 2);
      sleep(pause);
    } else {
      pause = 0;
    }
    return { n, ms, bytes, failed, byReason: byReason || { [reason]: failed }, failedIndexes, abort: fatal };
  }

  return { logOnce, ok, failed };
}
