// E1 on PostgreSQL: plain INSERT vs. INSERT … ON CONFLICT (key) DO UPDATE on a jsonb table.
//   make demo                      (builds bin/k6, starts the local services, runs this)
//   scripts/run scenarios/postgres/insert-vs-overwrite.js -e DOCS=100000
//   PG_URL=postgres://… bin/k6 run scenarios/postgres/insert-vs-overwrite.js
// Knobs: docs/configuration.md. Thresholds: thresholds/postgres/insert-vs-overwrite.json.
import { experiment } from '../../lib/experiment.js';
import * as workload from '../../lib/workloads/insert-vs-overwrite.js';
import * as target from '../../lib/targets/postgres.js';

const e = experiment(workload, target, __ENV);

export const options = e.options;
export const setup = e.setup;
export default e.run;
export const teardown = e.teardown;
export const handleSummary = e.handleSummary;
