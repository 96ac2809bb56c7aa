// The pack's custom k6 metrics (names in metric-names.js). One Trend sample per batch,
// never per document: k6 keeps every Trend sample in memory for the summary.
import { Counter, Gauge, Rate, Trend } from 'k6/metrics';
import { M } from './metric-names.js';

export const batchDuration = new Trend(M.batchDuration, true);
export const docsOk = new Counter(M.docsOk);
export const docsNew = new Counter(M.docsNew);
export const docsFailed = new Counter(M.docsFailed);
export const docsUndetermined = new Counter(M.docsUndetermined);
// What failed_docs_max limits (docs/configuration.md, "What each threshold counts"): documents
// the server said it did not write, or that never reached it; an undetermined document is not
// known to have failed (the verification resolves it) and has its own counter above.
export const docsFailedKnown = new Counter(M.docsFailedKnown);
// Once the count has resolved the undetermined documents, those it does not find are failed
// too: known failed + new documents acknowledged or undetermined (per batch) - found
// (teardown, lib/run-modes.js), held against the run's whole failed_docs_max (lib/thresholds.js).
export const docsFailedResolved = new Counter(M.docsFailedResolved);
export const batchFailed = new Rate(M.batchFailed);
export const bytes = new Counter(M.bytes);
export const phaseClock = new Gauge(M.phaseClock);
// Acknowledged new documents minus the documents teardown finds: 0 when nothing acknowledged
// was lost. It is the verification of workloads whose document count cannot be planned
// (bulk-insert runs as many batches as the server takes in the stages' time).
export const verifyUnaccounted = new Counter(M.verifyUnaccounted);
// The upper bound of the same: when a batch's failures name no document (ArangoDB silent=true)
// docs_new assumes the failed ones were new keys, a lower bound; this counter adds what they may
// have written after all (the count is held against a range, not a false exact figure).
export const verifyUnaccountedMax = new Counter(M.verifyUnaccountedMax);
// A ramped overwrite (lib/workloads/e1-ramp.js): acknowledged overwrites minus the keys
// teardown finds holding their batch's version; batches that found no unused key.
export const overwritesUnaccounted = new Counter(M.overwritesUnaccounted);
export const rampKeysExhausted = new Counter(M.rampKeysExhausted);
// Teardown's verification gauges, registered here so that the verification thresholds are
// valid for every workload (k6 rejects a threshold on a metric the script never defined).
export const verifyExpected = new Gauge(M.verifyExpected);
export const verifyFound = new Gauge(M.verifyFound);
export const verifyMismatch = new Gauge(M.verifyMismatch);
export const verifyError = new Gauge(M.verifyError);
// Batches of the plan not run: setup adds the plan's count (lib/scenario.js), every batch -1.
export const planRemaining = new Counter(M.planRemaining);
// The read-back (lib/readback.js): Counters, since every writing VU adds its own keys.
export const readbackChecked = new Counter(M.readbackChecked);
export const readbackStale = new Counter(M.readbackStale);
export const readbackExcused = new Counter(M.readbackExcused);
export const readbackUnacknowledged = new Counter(M.readbackUnacknowledged);
export const readbackUndetermined = new Counter(M.readbackUndetermined);
export const readbackResolved = new Counter(M.readbackResolved);
export const readbackJudged = new Counter(M.readbackJudged);
// The contention workload's retries and ledger verification (lib/workloads/contention.js).
export const incrementsRetried = new Counter(M.retries);
export const serverConflicts = new Counter(M.serverConflicts);
export const serverSamples = new Counter(M.serverSamples);
export const counterLost = new Counter(M.counterLost);
export const counterPhantom = new Counter(M.counterPhantom);
export const countersChecked = new Gauge(M.countersChecked);
export const ledgerUnstored = new Counter(M.ledgerUnstored);
export const ledgerAcked = new Counter(M.ledgerAcked);
export const ledgerFailed = new Counter(M.ledgerFailed);
export const ledgerUndetermined = new Counter(M.ledgerUndetermined);
export const countersSum = new Gauge(M.countersSum);
export const setupBegan = new Counter(M.setupBegan);
export const packStopped = new Counter(M.packStopped);


// A verification that counts and reads nothing back (bulk insert, a ramped load or
// arangobench): the summary holds the count against the acknowledged documents.
export function countOnly(found) {
  verifyFound.add(found);
  readbackChecked.add(0);
  readbackStale.add(0);
  return { expected: null, found, readback: { checked: 0, stale: 0, missing: 0, examples: [] } };
}

// res: what the batch runner recorded (lib/targets/outcome.js): { n, ms, bytes, failed, byReason, failedIndexes }.
// newCount: the first newCount documents of the batch had keys that did not exist before;
// recreated: acknowledged documents of the others whose key did not exist either (its insert
// had failed), so they are new documents too.
export function recordBatch(tags, res, newCount, startedAt, recreated = 0) {
  phaseClock.add(startedAt, tags);
  phaseClock.add(startedAt + res.ms, tags);
  batchDuration.add(res.ms, tags);
  planRemaining.add(-1);
  bytes.add(res.bytes, tags);
  const ok = res.n - res.failed;
  // Also 0: a phase in which every batch failed must show 0 documents/s in Grafana, not nothing.
  docsOk.add(ok, tags);
  let newFailed = 0;
  let unknown = 0; // new documents the failures may have spared after all (unmapped failures)
  if (res.failed > 0) {
    for (const [reason, count] of Object.entries(res.byReason)) {
      docsFailed.add(count, Object.assign({}, tags, { reason }));
    }
    if (res.undetermined) docsUndetermined.add(res.failed, tags);
    if (res.failedIndexes) {
      for (const i of res.failedIndexes) if (i < newCount) newFailed++;
      // Failed documents that may be stored after all: their new keys raise the most the
      // database may hold, never the acknowledged count.
      if (res.undetermined) unknown = newFailed;
    } else if (res.failed < res.n) {
      // Failures that cannot be mapped to documents (ArangoDB silent=true lists only the
      // errors): assume the worst for new keys, so docs_new is a lower bound. At best they all
      // hit existing keys; and the keys of a failed all-new (load) batch stay absent until a
      // later acknowledged write creates them, which no VU can tell either.
      newFailed = Math.min(newCount, res.failed);
      unknown = newFailed - Math.max(0, res.failed - (res.n - newCount)) + (newCount === res.n ? res.failed : 0);
    } else {
      newFailed = newCount; // the whole batch failed
      if (res.undetermined) unknown = newCount;
    }
  }
  const known = res.failed > 0 && !res.undetermined ? res.failed : 0;
  docsFailedResolved.add(known + newCount - newFailed + recreated + (res.undetermined ? unknown : 0), tags);
  if (newCount - newFailed + recreated > 0) {
    docsNew.add(newCount - newFailed + recreated, tags);
    verifyUnaccounted.add(newCount - newFailed + recreated, tags);
  }
  docsFailedKnown.add(known, tags);
  if (newCount - newFailed + recreated + unknown > 0) verifyUnaccountedMax.add(newCount - newFailed + recreated + unknown, tags);
  batchFailed.add(res.failed > 0, tags);
}
