// The one home of the secret-on-the-command-line rule: secrets never travel on a command line,
// where every local user can read them in the process list for the whole run. The Node wrappers
// (scripts/compare, scripts/capacity) call it; the bash wrappers (scripts/common.sh, which must
// run without Node in the k6 image) read the same data from scripts/lib/rules.sh, generated
// from here (scripts/lib/bash-rules.mjs --write; a unit test fails when they differ).
// Secret are: a knob lib/knobs.js declares secret, a name ending in PASSWORD, PASSWD, SECRET or
// TOKEN, and a URL with credentials (a password typed as the user name is still a password).
import { KNOBS } from '../../lib/config.js';

export const SECRET_KNOBS = Object.keys(KNOBS).filter((k) => KNOBS[k].type === 'secret');
export const SECRET_NAME_RE = /(PASSWORD|PASSWD|SECRET|TOKEN)$/;
export const SECRET_VALUE_RE = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*@/;
// The refusal without its last part, which says where the secret goes instead.
export const CLI_SECRET_WHY = 'given with -e is not allowed: a secret on the command line is visible to every local user in the process list for the whole run;';

export function isCliSecret(name, value = '') {
  return SECRET_KNOBS.includes(name) || SECRET_NAME_RE.test(name) || SECRET_VALUE_RE.test(value);
}

// The refusal (the value is never shown); `instead` says where the secret goes.
export function cliSecretLine(name, instead = `export ${name}=… in the environment`) {
  return `${name} ${CLI_SECRET_WHY} ${instead} and run again without -e ${name}`;
}
