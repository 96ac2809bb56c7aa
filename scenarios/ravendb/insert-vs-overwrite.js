// E1 on RavenDB: load (bulk_docs with ChangeVector "" = insert, or bulk insert with LOAD_OP=bulk),
// then overwrite and mixed phases as bulk_docs upserts (ChangeVector null). docs/ravendb.md.
//   RAVEN_URL=http://127.0.0.1:8080 scripts/run scenarios/ravendb/insert-vs-overwrite.js
//   scripts/run scenarios/ravendb/insert-vs-overwrite.js -e LOAD_OP=bulk -e RAVEN_INDEXES=3
// Knobs: docs/configuration.md. Thresholds: thresholds/ravendb/insert-vs-overwrite.json.
import { scenario } from '../../lib/scenario.js';
import * as workload from '../../lib/workloads/insert-vs-overwrite.js';
import * as target from '../../lib/targets/ravendb/ravendb.js';

const s = scenario(workload, target, __ENV);

export const options = s.options;
export const setup = s.setup;
export default s.run;
export const teardown = s.teardown;
export const handleSummary = s.handleSummary;
