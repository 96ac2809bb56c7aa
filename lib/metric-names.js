// Names of the pack's custom metrics, in one place for the scripts, the report, the
// Grafana dashboards and the tests. Every write metric is tagged phase, target and op.
export const M = {
  batchDuration: 'writepath_batch_duration', // Trend, ms per batch request/statement
  docsOk: 'writepath_docs_ok',               // Counter, documents the database acknowledged
  docsNew: 'writepath_docs_new',             // Counter, acknowledged documents with a new key
  docsFailed: 'writepath_docs_failed',       // Counter, documents not written; tag reason
  batchFailed: 'writepath_batch_failed',     // Rate, share of batches with >= 1 failed document
  bytes: 'writepath_bytes',                  // Counter, request payload bytes
  phaseClock: 'writepath_phase_clock',       // Gauge, epoch ms at batch start/end: min..max = phase wall time
  verifyExpected: 'writepath_verify_expected', // Gauge (teardown)
  verifyFound: 'writepath_verify_found',       // Gauge (teardown)
  verifyMismatch: 'writepath_verify_mismatch', // Gauge (teardown), |found - expected|
  readbackChecked: 'writepath_readback_checked', // Gauge (teardown)
  readbackStale: 'writepath_readback_stale',     // Gauge (teardown), keys not holding a version their batches wrote
  verifyError: 'writepath_verify_error',         // Gauge (teardown): 1 = the verification failed to run to its end
  verifyUnaccounted: 'writepath_verify_unaccounted', // Counter: + new documents acknowledged (per batch), - documents found (teardown)
  overwritesUnaccounted: 'writepath_verify_overwrites_unaccounted', // Counter (ramped overwrite): + acknowledged overwrites, - keys found with their batch's version (teardown)
  rampKeysExhausted: 'writepath_ramp_keys_exhausted', // Counter (ramped overwrite): batches that found no key left to overwrite
};
