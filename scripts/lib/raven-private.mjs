// A private RavenDB 4.1 for Node callers (the tests' own servers): a thin wrapper over
// scripts/raven-private.sh, the one helper that also serves scripts/services.sh. Data in
// .run/<name>/data, kept across restarts.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { repoRoot as root } from './kit.mjs';

export const RAVEN_PRIVATE = path.join(root, 'scripts', 'raven-private.sh');

function helper(args, { timeout = 180000 } = {}) {
  const r = spawnSync('bash', [RAVEN_PRIVATE, ...args.map(String)], { encoding: 'utf8', timeout });
  if (r.status !== 0) throw new Error(`scripts/raven-private.sh ${args[0]}: ${(r.stderr || r.stdout || `exit ${r.status}`).trim()}`);
  return r.stdout.trim();
}

// The version the pinned server reports (without fetching it).
export function ravenVersion() {
  return helper(['version']);
}

export class RavenServer {
  // name: the directory under .run/ (e.g. 'test/raven-faults').
  constructor(name, port) {
    this.port = port;
    this.dir = helper(['dir', name]);
    this.data = path.join(this.dir, 'data');
    this.log = path.join(this.dir, 'raven.log');
    this.url = `http://127.0.0.1:${port}`;
  }

  static fetch() {
    return helper(['fetch'], { timeout: 600000 });
  }

  // pid of the running server of this directory, or null.
  running() {
    const out = helper(['pid', this.dir]);
    return out ? Number(out) : null;
  }

  // Starts it and waits until it answers with the pinned version; returns its pid.
  start() {
    const pid = this.running();
    if (pid) throw new Error(`a RavenDB server already runs on ${this.data} (pid ${pid})`);
    return Number(helper(['start', this.dir, this.port], { timeout: 300000 }));
  }

  stop(seconds = 60) {
    helper(['stop', this.dir, seconds], { timeout: (seconds + 20) * 1000 });
  }
}
