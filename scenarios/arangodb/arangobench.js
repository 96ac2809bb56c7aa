// E3 on ArangoDB: arangobench's test cases over REST, including multi-collection and
// random-shapes (dropped from arangobench in 3.10).
//   scripts/run scenarios/arangodb/arangobench.js -e ARANGOBENCH_CASE=crud -e REQUESTS=100000 -e VUS=4 -e COMPLEXITY=100
// Knobs: docs/configuration.md, docs/arangodb.md. Thresholds: thresholds/arangodb/arangobench.json.
import { scenario } from '../../lib/scenario.js';
import * as workload from '../../lib/workloads/arangobench.js';
import * as target from '../../lib/targets/arangodb/arangodb.js';

const s = scenario(workload, target, __ENV);

export const options = s.options;
export const setup = s.setup;
export default s.run;
export const teardown = s.teardown;
export const handleSummary = s.handleSummary;
