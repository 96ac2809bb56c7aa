// E4's workload on MongoDB: bulk insert (unordered insertMany) of realistic user documents by
// ramping VUs; docs/s and MB/s per stage (docs/mongodb.md).
//   scripts/run scenarios/mongodb/bulk-insert.js -e STAGES=30s:4,30s:8 -e BATCH_SIZE=5000
// Needs the pack's gateway (bin/wp-gateway, docs/gateway.md; scripts/run starts one).
// Knobs: docs/configuration.md. Thresholds: thresholds/mongodb/bulk-insert.json.
import { scenario } from '../../lib/scenario.js';
import { KNOBS } from '../../lib/config.js';
import * as workload from '../../lib/workloads/bulk-insert.js';
import * as target from '../../lib/targets/mongodb/mongodb.js';

const s = scenario(workload, target, __ENV, {
  configure(cfg) {
    // E4's document shape and pool, as on RavenDB (KNOBS.<knob>.defaults).
    for (const k of ['DOC_SHAPE', 'DOC_POOL']) if (!__ENV[k]) cfg[k] = KNOBS[k].defaults['ravendb/bulk-insert'];
  },
});

export const options = s.options;
export const setup = s.setup;
export default s.run;
export const teardown = s.teardown;
export const handleSummary = s.handleSummary;
