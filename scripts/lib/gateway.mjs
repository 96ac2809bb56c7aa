// A private gateway (bin/wp-gateway, docs/gateway.md) for one k6 run started from Node (the
// tests, the experiments, the bench), as scripts/run starts one (scripts/gateway.sh): the
// database URLs go to the gateway's environment, k6 gets only GATEWAY_URL and the token.
// Started synchronously, so callers that spawn k6 synchronously stay so.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot } from './base.mjs';
import { TARGETS } from '../../lib/targets/index.js';

export const gatewayBin = path.join(repoRoot, 'bin', 'wp-gateway');
const DB_URLS = TARGETS.filter((t) => t.gateway).map(gatewayUrlKnob);
const live = new Set();
process.on('exit', () => { for (const g of live) g.kill('SIGKILL'); });

// The targets a scenario writes to: the declarations (lib/targets/index.js) of the adapters it
// imports (lib/targets/<db>/<db>.js). The one home of this rule in Node; scripts/gateway.sh
// wp_gateway_needed mirrors it in bash for the k6 image, which has no Node
// (test/unit/gateway-rule.test.mjs holds the two together). A file that cannot be read: none.
export function scenarioTargets(scenario) {
  const file = path.isAbsolute(scenario) ? scenario : path.join(repoRoot, scenario);
  let text = '';
  try { text = readFileSync(file, 'utf8'); } catch { return []; }
  const names = new Set([...text.matchAll(/lib\/targets\/(\w+)\/\1\.js/g)].map((m) => m[1]));
  return TARGETS.filter((t) => names.has(t.name));
}

// The database URL knob of a target reached through the gateway (PG_URL, MONGO_URL): the URL
// knob k6 never sees (wrapper: true).
export function gatewayUrlKnob(target) {
  return Object.keys(target.knobs).find((k) => target.knobs[k].wrapper && target.knobs[k].url);
}

// Whether a scenario writes through the gateway.
export function needsGateway(scenario) {
  return scenarioTargets(scenario).some((t) => t.gateway);
}

// The URL check scripts/run makes before it starts a gateway: null, or { code, stderr }.
export function checkGatewayEnv(env, scenario = '') {
  const file = !scenario || path.isAbsolute(scenario) ? scenario : path.join(repoRoot, scenario);
  const r = spawnSync(process.execPath, [path.join(repoRoot, 'scripts', 'gateway-check.mjs'), file], { env, encoding: 'utf8' });
  return r.status === 0 ? null : { code: r.status, stderr: r.stderr };
}

function sleepSync(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

// Whether a child has exited (a zombie until Node reaps it, which a blocked event loop does not).
function exited(pid) {
  try {
    return / [ZX] /.test(readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\)/, ' '));
  } catch {
    return true;
  }
}

// startGateway({ PG_URL, MONGO_URL, … }) -> { url, token, env(k6Env), stop(), process };
// a URL the gateway refuses: throws an Error with refused: true and its one line as stderr.
export function startGateway(env = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-gw-'));
  const ready = path.join(dir, 'url');
  const logFile = path.join(dir, 'log');
  const token = randomBytes(16).toString('hex');
  const genv = { PATH: process.env.PATH, WP_GATEWAY_TOKEN: token };
  for (const k of DB_URLS) if (env[k] !== undefined && env[k] !== null) genv[k] = env[k];
  const logFd = openSync(logFile, 'w');
  const child = spawn(gatewayBin, ['-addr', '127.0.0.1:0', '-ready-file', ready], { env: genv, stdio: ['ignore', 'ignore', logFd] });
  closeSync(logFd);
  live.add(child);
  child.on('exit', () => live.delete(child));
  for (let i = 0; i < 1000 && !existsSync(ready) && !exited(child.pid); i++) sleepSync(10);
  if (!existsSync(ready)) {
    child.kill('SIGKILL');
    const log = readFileSync(logFile, 'utf8');
    rmSync(dir, { recursive: true, force: true });
    throw Object.assign(new Error(`bin/wp-gateway did not start: ${log}`), { stderr: log, refused: /^k6-writepath: /m.test(log) });
  }
  const url = readFileSync(ready, 'utf8').trim();
  rmSync(dir, { recursive: true, force: true });
  return {
    url,
    token,
    process: child,
    // k6's environment: the gateway's URL and token, never the database URLs
    env(k6Env) {
      const out = { ...k6Env, GATEWAY_URL: url, WP_GATEWAY_TOKEN: token };
      for (const k of DB_URLS) delete out[k];
      return out;
    },
    stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    },
  };
}
