// E1 on ArangoDB: array insert (overwrite=false) vs. insert with overwrite
// (overwriteMode=replace, or update/ignore with OVERWRITE_OP) over REST.
//   scripts/run scenarios/arangodb/insert-vs-overwrite.js -e ARANGO_URL=http://127.0.0.1:8529
//   ARANGO_PASSWORD=… bin/k6 run -e DOCS=100000 scenarios/arangodb/insert-vs-overwrite.js
// Knobs: docs/configuration.md, docs/arangodb.md. Thresholds: thresholds/arangodb/insert-vs-overwrite.json.
import { experiment } from '../../lib/experiment.js';
import * as workload from '../../lib/workloads/insert-vs-overwrite.js';
import * as target from '../../lib/targets/arangodb/arangodb.js';

const e = experiment(workload, target, __ENV);

export const options = e.options;
export const setup = e.setup;
export default e.run;
export const teardown = e.teardown;
export const handleSummary = e.handleSummary;
