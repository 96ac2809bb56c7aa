// Secrets never travel on a command line, where every local user can read them in the process
// list for the whole run: the Node wrappers' (scripts/compare, scripts/capacity) twin of
// scripts/common.sh wp_cli_secret, the rule scripts/run applies (test/unit/scripts-over-lib.test.mjs
// holds the two to the same answers). Secret are: a knob lib/config.js declares secret, a name
// ending in PASSWORD, PASSWD, SECRET or TOKEN, and a URL with credentials (scheme://user[:pw]@…:
// a password typed as the user name is still a password).
import { KNOBS } from '../../lib/config.js';

export function isCliSecret(name, value = '') {
  return (KNOBS[name] && KNOBS[name].type === 'secret') || /(PASSWORD|PASSWD|SECRET|TOKEN)$/.test(name) || /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*@/.test(value);
}

// The refusal (the value is never shown); `instead` says where the secret goes.
export function cliSecretLine(name, instead = `export ${name}=… in the environment`) {
  return `${name} given with -e is not allowed: a secret on the command line is visible to every local user in the process list for the whole run; ${instead} and run again without -e ${name}`;
}
