// Contention on MongoDB (docs/contention.md): many VUs increment HOT_KEYS counters through
// UpdateOne({_id}, {$inc: {n: 1}}, {upsert: true}) in one bulk write per operation; every
// counter is verified against the VUs' ledgers. Needs the pack's gateway (bin/wp-gateway,
// docs/gateway.md; scripts/run starts one).
//   scripts/run scenarios/mongodb/contention.js -e HOT_KEYS=1,10,100,10000 -e STAGES=10s:1,10s:8,10s:32
// Knobs: docs/configuration.md. Thresholds: thresholds/mongodb/contention.json.
import { scenario } from '../../lib/scenario.js';
import * as workload from '../../lib/workloads/contention.js';
import * as target from '../../lib/targets/mongodb/mongodb.js';

// BATCH_SIZE defaults to 1 here (lib/knobs.js defaults['mongodb/contention']).
const s = scenario(workload, target, __ENV);

export const options = s.options;
export const setup = s.setup;
export default s.run;
export const teardown = s.teardown;
export const handleSummary = s.handleSummary;
