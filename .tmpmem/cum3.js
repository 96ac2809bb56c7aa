import * as m0 from '../lib/knobs.js';
import * as m1 from '../lib/targets/postgres-knobs.js';
import * as m2 from '../lib/targets/arangodb-knobs.js';
import * as m3 from '../lib/targets/ravendb-knobs.js';
export const options = { scenarios: { x: { executor: 'per-vu-iterations', vus: Number(__ENV.NVU), iterations: 1 } } };
export default function () { return [m0,m1,m2,m3]; }
