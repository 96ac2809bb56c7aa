// Contention on RavenDB (docs/contention.md): many VUs increment HOT_KEYS counters through PATCH
// commands with an increment script in bulk_docs (the script the official clients send for
// session.advanced.increment).
// Every counter is verified against the VUs' ledgers.
//   scripts/run scenarios/ravendb/contention.js -e RAVEN_URL=http://127.0.0.1:8080 -e HOT_KEYS=1,10,100,10000
// Knobs: docs/configuration.md. Thresholds: thresholds/ravendb/contention.json.
import { experiment } from '../../lib/experiment.js';
import { KNOBS } from '../../lib/config.js';
import * as workload from '../../lib/workloads/contention.js';
import { createTarget } from '../../lib/targets/ravendb.js';

const e = experiment(workload, createTarget, __ENV, {
  target: 'ravendb',
  configure(cfg) {
    // This scenario's own defaults live with the knobs (KNOBS.<knob>.defaults).
    if (!__ENV.BATCH_SIZE) cfg.BATCH_SIZE = KNOBS.BATCH_SIZE.defaults['ravendb/contention'];
  },
});

export const options = e.options;
export const setup = e.setup;
export default e.run;
export const teardown = e.teardown;
export const handleSummary = e.handleSummary;
