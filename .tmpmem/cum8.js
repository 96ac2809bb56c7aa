import * as m0 from '../lib/knobs.js';
import * as m1 from '../lib/targets/postgres-knobs.js';
import * as m2 from '../lib/targets/arangodb-knobs.js';
import * as m3 from '../lib/targets/ravendb-knobs.js';
import * as m4 from '../lib/targets/index.js';
import * as m5 from '../lib/urls.js';
import * as m6 from '../lib/parse.js';
import * as m7 from '../lib/env-names.js';
import * as m8 from '../lib/config.js';
export const options = { scenarios: { x: { executor: 'per-vu-iterations', vus: Number(__ENV.NVU), iterations: 1 } } };
export default function () { return [m0,m1,m2,m3,m4,m5,m6,m7,m8]; }
