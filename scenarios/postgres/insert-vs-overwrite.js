// E1 on PostgreSQL: plain INSERT vs. INSERT … ON CONFLICT (key) DO UPDATE on a jsonb table.
//   make demo                      (installs bin/k6, builds bin/wp-gateway, starts the local services, runs this)
//   scripts/run scenarios/postgres/insert-vs-overwrite.js -e DOCS=100000
//   PG_URL=postgres://… bin/wp-gateway -ready-file .run/gateway.url &
//   k6 run -e GATEWAY_URL=$(cat .run/gateway.url) scenarios/postgres/insert-vs-overwrite.js
// Needs the pack's gateway (bin/wp-gateway, docs/gateway.md); any k6 runs it (tested: v1.1.0).
// Knobs: docs/configuration.md. Thresholds: thresholds/postgres/insert-vs-overwrite.json.
import { scenario } from '../../lib/scenario.js';
import * as workload from '../../lib/workloads/insert-vs-overwrite.js';
import * as target from '../../lib/targets/postgres/postgres.js';

const s = scenario(workload, target, __ENV);

export const options = s.options;
export const setup = s.setup;
export default s.run;
export const teardown = s.teardown;
export const handleSummary = s.handleSummary;
