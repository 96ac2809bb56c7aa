// .run/env for the Node scripts, experiments and tests: the values the one reader
// (scripts/common.sh wp_env_lines, bash because scripts/run must run without Node) accepts.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { repoRoot as root } from './lib/kit.mjs';

export const RUN_ENV_FILE = path.join(root, '.run', 'env');

// -> { PG_URL, INFLUX_URL, … } ({} when `make up` never ran)
export function readRunEnv(file = RUN_ENV_FILE) {
  const out = execFileSync('bash', [path.join(root, 'scripts', 'common.sh'), '--print-env', file], { encoding: 'utf8' });
  const env = {};
  for (const line of out.split('\n')) if (line) env[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1);
  return env;
}
