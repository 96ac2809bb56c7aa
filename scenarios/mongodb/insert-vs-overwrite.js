// E1 on MongoDB: insertMany vs. bulkWrite of ReplaceOne upserts (docs/mongodb.md).
//   make up                        (a private mongod 6.0.5; MONGO_URL in .run/env)
//   scripts/run scenarios/mongodb/insert-vs-overwrite.js -e DOCS=100000
//   MONGO_URL=mongodb://… bin/wp-gateway -ready-file .run/gateway.url &
//   k6 run -e GATEWAY_URL=$(cat .run/gateway.url) scenarios/mongodb/insert-vs-overwrite.js
// Needs the pack's gateway (bin/wp-gateway, docs/gateway.md); any k6 runs it (tested: v1.1.0).
// Knobs: docs/configuration.md.
// Thresholds: thresholds/mongodb/insert-vs-overwrite.json.
import { scenario } from '../../lib/scenario.js';
import * as workload from '../../lib/workloads/insert-vs-overwrite.js';
import * as target from '../../lib/targets/mongodb/mongodb.js';

const s = scenario(workload, target, __ENV);

export const options = s.options;
export const setup = s.setup;
export default s.run;
export const teardown = s.teardown;
export const handleSummary = s.handleSummary;
