import * as m0 from '../lib/config.js';
import * as m1 from '../lib/guards.js';
import * as m2 from '../lib/metric-names.js';
import * as m3 from '../lib/thresholds.js';
import * as m4 from '../lib/test-endpoint.js';
import * as m5 from '../lib/format.js';
export const options = { scenarios: { x: { executor: 'per-vu-iterations', vus: Number(__ENV.NVU), iterations: 1 } } };
export default function () { return [m0,m1,m2,m3,m4,m5]; }
