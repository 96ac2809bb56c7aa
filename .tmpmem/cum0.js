import * as m0 from '../lib/knobs.js';
export const options = { scenarios: { x: { executor: 'per-vu-iterations', vus: Number(__ENV.NVU), iterations: 1 } } };
export default function () { return [m0]; }
