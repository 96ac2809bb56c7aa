// Contention on RavenDB (docs/contention.md): many VUs increment HOT_KEYS counters through PATCH
// commands with an increment script in bulk_docs (the script the official clients send for
// session.advanced.increment).
// Every counter is verified against the VUs' ledgers.
//   scripts/run scenarios/ravendb/contention.js -e RAVEN_URL=http://127.0.0.1:8080 -e HOT_KEYS=1,10,100,10000
// Knobs: docs/configuration.md. Thresholds: thresholds/ravendb/contention.json.
import { experiment } from '../../lib/experiment.js';
import * as workload from '../../lib/workloads/contention.js';
import * as target from '../../lib/targets/ravendb/ravendb.js';

// BATCH_SIZE defaults to 1 here (lib/knobs.js defaults['ravendb/contention']).
const e = experiment(workload, target, __ENV);

export const options = e.options;
export const setup = e.setup;
export default e.run;
export const teardown = e.teardown;
export const handleSummary = e.handleSummary;
