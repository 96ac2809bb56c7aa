// Contention on RavenDB (docs/contention.md): many VUs increment HOT_KEYS counters through PATCH
// commands with an increment script in bulk_docs (the script the official clients send for
// session.advanced.increment).
// Every counter is verified against the VUs' ledgers.
//   scripts/run scenarios/ravendb/contention.js -e RAVEN_URL=http://127.0.0.1:8080 -e HOT_KEYS=1,10,100,10000
// Knobs: docs/configuration.md. Thresholds: thresholds/ravendb/contention.json.
import { scenario } from '../../lib/scenario.js';
import * as workload from '../../lib/workloads/contention.js';
import * as target from '../../lib/targets/ravendb/ravendb.js';

// BATCH_SIZE defaults to 1 here (lib/knobs.js defaults['ravendb/contention']).
const s = scenario(workload, target, __ENV);

export const options = s.options;
export const setup = s.setup;
export default s.run;
export const teardown = s.teardown;
export const handleSummary = s.handleSummary;
