// E1 on ArangoDB: array insert (overwrite=false) vs. insert with overwrite
// (overwriteMode=replace, or update/ignore with OVERWRITE_OP) over REST.
//   scripts/run scenarios/arangodb/insert-vs-overwrite.js -e ARANGO_URL=http://127.0.0.1:8529
//   ARANGO_PASSWORD=… bin/k6 run -e DOCS=100000 scenarios/arangodb/insert-vs-overwrite.js
// Knobs: docs/configuration.md, docs/arangodb.md. Thresholds: thresholds/arangodb/insert-vs-overwrite.json.
import { scenario } from '../../lib/scenario.js';
import * as workload from '../../lib/workloads/insert-vs-overwrite.js';
import * as target from '../../lib/targets/arangodb/arangodb.js';

const s = scenario(workload, target, __ENV);

export const options = s.options;
export const setup = s.setup;
export default s.run;
export const teardown = s.teardown;
export const handleSummary = s.handleSummary;
