import * as m0 from '../lib/config.js';
import * as m1 from '../lib/guards.js';
import * as m2 from '../lib/metric-names.js';
export const options = { scenarios: { x: { executor: 'per-vu-iterations', vus: Number(__ENV.NVU), iterations: 1 } } };
export default function () { return [m0,m1,m2]; }
