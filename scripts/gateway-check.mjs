// The database URL a private gateway gets (PG_URL for a PostgreSQL scenario, MONGO_URL for a
// MongoDB one) checked with the knobs' own rules (lib/parse.js parseKnob) before the gateway
// starts: not set, empty or malformed is the same one line as any bad knob, exit 107, the value
// never shown. Reads the environment only.
//   node scripts/gateway-check.mjs <scenario.js>
import { readFileSync } from 'node:fs';
import { KNOBS } from '../lib/config.js';
import { parseKnob } from '../lib/parse.js';

const URL_OF = { postgres: 'PG_URL', mongodb: 'MONGO_URL' };
let text = '';
try { text = readFileSync(process.argv[2] || '', 'utf8'); } catch { /* no scenario: check what is set */ }
const needed = [...text.matchAll(/lib\/targets\/(postgres|mongodb)(?:\.js|\/)/g)].map((m) => URL_OF[m[1]]);

try {
  for (const name of Object.values(URL_OF)) {
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
