// A private mongod for Node callers (the tests' own servers, the experiments'): a thin wrapper
// over scripts/mongo-private.sh, the one helper that also serves scripts/services.sh. Data in
// .run/<name>.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { repoRoot as root } from './kit.mjs';

export const MONGO_PRIVATE = path.join(root, 'scripts', 'mongo-private.sh');

function helper(args, { env = {}, timeout = 180000 } = {}) {
  const r = spawnSync('bash', [MONGO_PRIVATE, ...args.map(String)], { encoding: 'utf8', timeout, env: { ...process.env, ...env } });
  if (r.status !== 0) throw new Error(`scripts/mongo-private.sh ${args[0]}: ${(r.stderr || r.stdout || `exit ${r.status}`).trim()}`);
  return r.stdout.trim();
}

// The server version of the pinned binary (without fetching it).
export function mongoVersion() {
  return helper(['version']);
}

export class MongoServer {
  // name: the data directory under .run/ (e.g. 'test/mongo-faults'); password: fixed (tests)
  // or random (default); cacheGB: --wiredTigerCacheSizeGB.
  constructor(name, port, { password = null, cacheGB = 0.25 } = {}) {
    this.port = port;
    this.cacheGB = cacheGB;
    this.dir = helper(['dir', name]);
    this.data = path.join(this.dir, 'data');
    this.log = path.join(this.dir, 'mongod.log');
    this.password = password;
  }

  static fetch() {
    return helper(['fetch'], { timeout: 600000 });
  }

  init() {
    helper(['init', this.dir], { env: this.password ? { MONGO_PRIVATE_PASSWORD: this.password } : {} });
    return this;
  }

  url() {
    return helper(['url', this.dir, this.port]);
  }

  // pid of the running mongod of this data directory, or null.
  running() {
    const out = helper(['pid', this.dir]);
    return out ? Number(out) : null;
  }

  // options: more mongod options as words (e.g. ['--setParameter', 'enableTestCommands=1']);
  // procsFiles: cgroup.procs files joined before the start. Returns mongod's pid.
  start(options = [], procsFiles = []) {
    for (const o of options) if (!/^[A-Za-z0-9_.=:,/-]+$/.test(o)) throw new Error(`mongod option ${JSON.stringify(o)} is not a plain word`);
    const pid = this.running();
    if (pid) throw new Error(`a mongod already runs on ${this.data} (pid ${pid}): stop it with scripts/mongo-private.sh stop ${this.dir}`);
    helper(['start', this.dir, this.port, this.cacheGB, options.join(' '), ...procsFiles]);
    return this.running();
  }

  // The sizes of <db>.docs in bytes: { size, storage, indexes, count } (collStats).
  stats(db) {
    const out = helper(['admin', this.dir, this.port, 'stats', db]);
    return Object.fromEntries(out.replace(/^stats /, '').split(' ').map((kv) => kv.split('=')).map(([k, v]) => [k, Number(v)]));
  }

  dropDatabase(db) {
    helper(['admin', this.dir, this.port, 'drop', db]);
  }

  stop(seconds = 60) {
    helper(['stop', this.dir, seconds], { timeout: (seconds + 20) * 1000 });
  }
}
