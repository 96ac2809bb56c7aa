// The database URL a private gateway gets (PG_URL for a PostgreSQL scenario, MONGO_URL for a
// MongoDB one) checked with the knobs' own rules (lib/parse.js parseKnob) before the gateway
// starts: not set, empty or malformed is the same one line as any bad knob, exit 107, the value
// never shown. Reads the environment only.
//   node scripts/gateway-check.mjs <scenario.js>
import { KNOBS } from '../lib/config.js';
import { parseKnob } from '../lib/parse.js';
import { TARGETS } from '../lib/targets/index.js';
import { gatewayUrlKnob, scenarioTargets } from './lib/gateway.mjs';

// no scenario (or one that cannot be read): only what is set is checked
const needed = process.argv[2] ? scenarioTargets(process.argv[2]).filter((t) => t.gateway).map(gatewayUrlKnob) : [];

try {
  for (const name of TARGETS.filter((t) => t.gateway).map(gatewayUrlKnob)) {
    const raw = process.env[name];
    if (raw === undefined || raw === '') {
      if (needed.includes(name)) throw `k6-writepath: ${name} is ${raw === '' ? 'empty' : 'not set'}: ${KNOBS[name].doc}`;
      continue;
    }
    parseKnob(name, raw, KNOBS[name]);
  }
} catch (e) {
  console.error(String(e));
  process.exit(107);
}
