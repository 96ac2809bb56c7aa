// Contention on PostgreSQL (docs/contention.md): many VUs increment HOT_KEYS counters through
// INSERT … ON CONFLICT (key) DO UPDATE; every counter is verified against the VUs' ledgers.
//   scripts/run scenarios/postgres/contention.js -e HOT_KEYS=1,10,100,10000 -e STAGES=10s:1,10s:8,10s:32
// Knobs: docs/configuration.md. Thresholds: thresholds/postgres/contention.json.
import { scenario } from '../../lib/scenario.js';
import * as workload from '../../lib/workloads/contention.js';
import * as target from '../../lib/targets/postgres/postgres.js';

// BATCH_SIZE defaults to 1 here (lib/knobs.js defaults['postgres/contention']).
const s = scenario(workload, target, __ENV);

export const options = s.options;
export const setup = s.setup;
export default s.run;
export const teardown = s.teardown;
export const handleSummary = s.handleSummary;
