// What the Node tools need beyond Node itself, installed on first use: a fresh clone that ran
// `make demo` (or only scripts/run) has no node_modules, and every verdict tool, the history
// append of scripts/run and the REPEAT aggregate import the statistics (jstat). The pinned
// packages (package.json, package-lock.json) are installed once with npm, with one line saying
// so; where that cannot be done, one line says what to run, and the tool exits 108.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { repoRoot as root } from './base.mjs';

const require = createRequire(path.join(root, 'package.json'));

export const NPM_INSTALL = ['install', '--no-audit', '--no-fund', '--loglevel=error'];

function fail(line) {
  process.stderr.write(`k6-writepath: ${line}\n`);
  process.exit(108);
}

// The same `npm install` as `make node-deps`, so both leave one state (its stamp included).
export function installNodeDeps(why) {
  process.stderr.write(`k6-writepath: installing the pinned Node packages once (npm ${NPM_INSTALL[0]} into ${path.join(root, 'node_modules')}/: ${why})\n`);
  const npm = process.env.NPM || 'npm';
  const r = spawnSync(npm, NPM_INSTALL, { cwd: root, stdio: ['ignore', 2, 2], env: process.env });
  if (r.error && r.error.code === 'ENOENT') fail(`${why} needs npm, which is not installed here: install Node.js with npm (>= 20), then run \`make node-deps\` in ${root}`);
  if (r.status !== 0) fail(`npm install failed (exit ${r.status ?? r.signal}; its lines above say why): ${why} cannot run until \`make node-deps\` in ${root} succeeds`);
}

// require() of a pinned package, installing the packages first when it is missing.
export function requirePinned(name, why) {
  try {
    return require(name);
  } catch (e) {
    if (e.code !== 'MODULE_NOT_FOUND') throw e;
  }
  installNodeDeps(why);
  try {
    return require(name);
  } catch (e) {
    if (e.code !== 'MODULE_NOT_FOUND') throw e;
    return fail(`npm install finished but ${name} is still missing from ${path.join(root, 'node_modules')}: run \`make node-deps\``);
  }
}

export const nodeModulesPresent = () => existsSync(path.join(root, 'node_modules'));
