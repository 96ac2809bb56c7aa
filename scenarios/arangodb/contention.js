// Contention on ArangoDB (docs/contention.md): many VUs increment HOT_KEYS counters through an AQL
// UPSERT … UPDATE { n: OLD.n + 1 } per operation (POST /_api/cursor); write-write conflicts
// (errorNum 1200) are retried up to CONFLICT_RETRIES and counted by reason.
// Every counter is verified against the VUs' ledgers.
//   scripts/run scenarios/arangodb/contention.js -e ARANGO_URL=http://127.0.0.1:8529 -e HOT_KEYS=1,10,100,10000
// Knobs: docs/configuration.md. Thresholds: thresholds/arangodb/contention.json.
import { scenario } from '../../lib/scenario.js';
import * as workload from '../../lib/workloads/contention.js';
import * as target from '../../lib/targets/arangodb/arangodb.js';

// BATCH_SIZE defaults to 1 here (lib/knobs.js defaults['arangodb/contention']).
const s = scenario(workload, target, __ENV);

export const options = s.options;
export const setup = s.setup;
export default s.run;
export const teardown = s.teardown;
export const handleSummary = s.handleSummary;
