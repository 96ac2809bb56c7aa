// Contention on PostgreSQL (docs/contention.md): many VUs increment HOT_KEYS counters through
// INSERT … ON CONFLICT (key) DO UPDATE; every counter is verified against the VUs' ledgers.
//   scripts/run scenarios/postgres/contention.js -e HOT_KEYS=1,10,100,10000 -e STAGES=10s:1,10s:8,10s:32
// Knobs: docs/configuration.md. Thresholds: thresholds/postgres/contention.json.
import { experiment } from '../../lib/experiment.js';
import { KNOBS } from '../../lib/config.js';
import * as workload from '../../lib/workloads/contention.js';
import { createTarget } from '../../lib/targets/postgres.js';

const e = experiment(workload, createTarget, __ENV, {
  target: 'postgres',
  required: ['PG_URL'],
  configure(cfg) {
    // This scenario's own defaults live with the knobs (KNOBS.<knob>.defaults).
    if (!__ENV.BATCH_SIZE) cfg.BATCH_SIZE = KNOBS.BATCH_SIZE.defaults['postgres/contention'];
  },
});

export const options = e.options;
export const setup = e.setup;
export default e.run;
export const teardown = e.teardown;
export const handleSummary = e.handleSummary;
