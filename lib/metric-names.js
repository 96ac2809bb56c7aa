// Names of the pack's custom metrics, in one place for the scripts, the report, the
// Grafana dashboards and the tests. Every write metric is tagged phase, target and op.
export const M = {
  batchDuration: 'writepath_batch_duration', // Trend, ms per batch request/statement
  gatewayDb: 'writepath_gateway_db_duration', // Trend, ms per batch the database took (the gateway's Server-Timing db; PostgreSQL, MongoDB)
  gatewayOwn: 'writepath_gateway_own_duration', // Trend, ms per batch the gateway spent around the database call (Server-Timing gw)
  docsOk: 'writepath_docs_ok',               // Counter, documents the database acknowledged
  docsNew: 'writepath_docs_new',             // Counter, acknowledged documents with a new key
  docsFailed: 'writepath_docs_failed',       // Counter, documents not written; tag reason
  docsFailedKnown: 'writepath_docs_failed_known', // Counter, failed documents known not written when the batch was answered (docsFailed minus docsUndetermined): what failed_docs_max limits
  docsFailedResolved: 'writepath_docs_failed_resolved', // Counter, run-wide: known failed documents + acknowledged new + undetermined new (per batch), - found (teardown): the known failed plus the undetermined new documents the database does not hold
  docsUndetermined: 'writepath_docs_undetermined', // Counter, failed documents that may be stored after all (request sent whole, no answer; committed but a wait failed)
  batchFailed: 'writepath_batch_failed',     // Rate, share of batches with >= 1 failed document
  bytes: 'writepath_bytes',                  // Counter, request payload bytes
  phaseClock: 'writepath_phase_clock',       // Gauge, epoch ms at batch start/end: min..max = phase wall time
  verifyExpected: 'writepath_verify_expected', // Gauge (teardown)
  verifyFound: 'writepath_verify_found',       // Gauge (teardown)
  verifyMismatch: 'writepath_verify_mismatch', // Gauge (teardown), |found - expected|
  // Read-back (lib/readback.js): Counters, added by the VUs that wrote the keys (fixed plan)
  // or by teardown (ramped overwrite).
  readbackChecked: 'writepath_readback_checked', // Counter, keys read back
  readbackStale: 'writepath_readback_stale',     // Counter, keys stale or missing: an acknowledged write lost
  readbackExcused: 'writepath_readback_excused', // Counter, keys at their last acknowledged version whose later batches failed
  readbackUnacknowledged: 'writepath_readback_unacknowledged', // Counter, keys holding a batch reported failed but applied
  readbackUndetermined: 'writepath_readback_undetermined',     // Counter, keys whose later batch failed in part without naming documents
  readbackResolved: 'writepath_readback_resolved',   // Counter, keys holding the version of a batch whose outcome was undetermined: resolved, stored
  planRemaining: 'writepath_plan_remaining',     // Counter: + the planned batches (setup, single-process fixed plan), -1 per batch run; > 0 = the plan did not finish
  verifyError: 'writepath_verify_error',         // Gauge (teardown): 1 = the verification failed to run to its end
  verifyUnaccounted: 'writepath_verify_unaccounted', // Counter: + new documents acknowledged (per batch), - documents found (teardown)
  verifyUnaccountedMax: 'writepath_verify_unaccounted_max', // Counter: the same with the most new documents a batch whose failures name no document may have written
  readbackJudged: 'writepath_readback_judged',   // Counter, keys read back whose verdict was determined (checked - undetermined)
  overwritesUnaccounted: 'writepath_verify_overwrites_unaccounted', // Counter (ramped overwrite): + acknowledged overwrites, - keys found with their batch's version (teardown)
  rampKeysExhausted: 'writepath_ramp_keys_exhausted', // Counter (ramped overwrite): batches that found no key left to overwrite
  // The contention workload (lib/workloads/contention.js, docs/contention.md)
  retries: 'writepath_retries',                 // Counter: requests resent within an operation after a "not applied, retry" answer; tag reason
  serverConflicts: 'writepath_server_conflicts', // Counter: conflicts the server resolved itself (MongoDB: write conflicts it retried), sampled from its own statistics; tag stage
  serverSamples: 'writepath_server_samples', // Counter: samples of the server's conflict count that were read (0 with the capability = the count is unknown)
  counterLost: 'writepath_counter_lost',        // Counter (teardown): acknowledged increments a counter does not hold; tag counter
  counterPhantom: 'writepath_counter_phantom',  // Counter (teardown): increments a counter holds beyond acknowledged + undetermined; tag counter
  countersChecked: 'writepath_counters_checked', // Gauge (teardown): counters read back against the ledgers
  ledgerAcked: 'writepath_ledger_acknowledged',     // Counter (teardown): increments the stored ledgers hold acknowledged
  ledgerFailed: 'writepath_ledger_failed',          // Counter (teardown): increments the stored ledgers hold reported not applied
  ledgerUndetermined: 'writepath_ledger_undetermined', // Counter (teardown): increments without an answer (timeout, connection): applied or not
  countersSum: 'writepath_counters_sum',            // Gauge (teardown): the sum of the counters read back (all start at 0)
  ledgerUnstored: 'writepath_ledger_unstored',  // Counter: + increments begun (VUs), - increments in the stored ledgers (teardown); > 0 = a VU's ledger is missing
  // How far setup got, for a summary without setup's data (lib/scenario.js): began and not
  // stopped by the pack = k6 stopped it from outside (a signal, setupTimeout).
  setupBegan: 'writepath_setup_began', // Counter: 1 when setup() begins, before it reaches the database
  packStopped: 'writepath_pack_stopped', // Counter: the pack's own stops (lib/abort.js stop()) and refusals thrown in setup
};
