// The database URLs a private gateway gets (PG_URL, MONGO_URL) checked with the knobs' own
// rules (lib/parse.js parseKnob) before the gateway starts: the same one line as any bad knob,
// exit 107, the value never shown. Reads them from the environment only.
//   node scripts/gateway-check.mjs
import { KNOBS } from '../lib/config.js';
import { parseKnob } from '../lib/parse.js';

for (const name of ['PG_URL', 'MONGO_URL']) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') continue;
  try {
    parseKnob(name, raw, KNOBS[name]);
  } catch (e) {
    console.error(String(e));
    process.exit(107);
  }
}
