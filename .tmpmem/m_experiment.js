import { experiment } from '../lib/experiment.js'; import * as w from '../lib/workloads/insert-vs-overwrite.js';
export const options = { scenarios: { x: { executor: 'per-vu-iterations', vus: Number(__ENV.NVU), iterations: 1 } } };
export default function () {}
