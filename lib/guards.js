// Checks of the run's shape that need k6's resolved options (setup), kept free of k6 imports
// so that the unit tests can run them.
import { durationMs } from './parse.js';

// A k6 archive (k6 archive, k6-operator) freezes the options its init computed: running it
// with other -e knobs would run the archived shape while the plan and the verification
// follow the new knobs. Returns what differs, or null.
export function frozenOptionsDiffer(planned, actual) {
  const names = (o) => Object.keys(o || {}).sort().join(',');
  if (names(planned) !== names(actual)) return `scenarios ${names(actual)} instead of ${names(planned)}`;
  for (const [name, want] of Object.entries(planned)) {
    const got = actual[name];
    for (const k of ['executor', 'vus', 'iterations', 'startVUs', 'startRate', 'rate', 'preAllocatedVUs', 'maxVUs']) {
      if (want[k] !== undefined && String(want[k]) !== String(got[k])) return `${name}.${k}=${got[k]} instead of ${want[k]}`;
    }
    const st = (x) => (x.stages || []).map((g) => `${durationMs(g.duration)}:${g.target}`).join(',');
    if (st(want) !== st(got)) return `${name}.stages differ`;
  }
  return null;
}
