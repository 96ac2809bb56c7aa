// E4 on RavenDB: bulk insert of realistic user documents by ramping VUs; docs/s and MB/s per
// stage. Documents come from a pool generated once per VU (DOC_POOL, default 10000 here, as in
// E4), sent over and over with fresh ids. docs/ravendb.md.
//   RAVEN_URL=http://127.0.0.1:8080 scripts/run scenarios/ravendb/bulk-insert.js
//   scripts/run scenarios/ravendb/bulk-insert.js -e STAGES=30s:4,30s:8,30s:16 -e BATCH_SIZE=5000 -e RAVEN_GZIP=1
// Knobs: docs/configuration.md. Thresholds: thresholds/ravendb/bulk-insert.json.
import { scenario } from '../../lib/scenario.js';
import * as workload from '../../lib/workloads/bulk-insert.js';
import * as target from '../../lib/targets/ravendb/ravendb.js';

// This scenario's own defaults (DOC_SHAPE=user, DOC_POOL=10000) live with the knobs
// (lib/knobs.js defaults['ravendb/bulk-insert']); lib/config.js applies them.
const s = scenario(workload, target, __ENV);

export const options = s.options;
export const setup = s.setup;
export default s.run;
export const teardown = s.teardown;
export const handleSummary = s.handleSummary;
