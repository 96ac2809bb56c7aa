// A private PostgreSQL server for Node callers (the tests' own servers, the RAM experiment's):
// a thin wrapper over scripts/pg-private.sh, the one helper that also serves
// scripts/services.sh. Data in .run/<name>.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const PG_PRIVATE = path.join(root, 'scripts', 'pg-private.sh');

function helper(args, { env = {}, timeout = 120000 } = {}) {
  const r = spawnSync('bash', [PG_PRIVATE, ...args.map(String)], { encoding: 'utf8', timeout, env: { ...process.env, ...env } });
  if (r.status !== 0) throw new Error(`scripts/pg-private.sh ${args[0]}: ${(r.stderr || r.stdout || `exit ${r.status}`).trim()}`);
  return r.stdout.trim();
}

export class PgServer {
  // name: the data directory under .run/ (e.g. 'reliability/pg-restart'); password: fixed
  // (tests) or random (default); initdbArgs: e.g. ['--no-sync'].
  constructor(name, port, { password = null, initdbArgs = [], db = 'postgres' } = {}) {
    this.port = port;
    this.dbName = db;
    this.dir = helper(['dir', name]);
    this.data = path.join(this.dir, 'data');
    this.log = path.join(this.dir, 'server.log');
    this.password = password;
    this.initdbArgs = initdbArgs;
  }

  init() {
    helper(['init', this.dir, ...this.initdbArgs], { env: this.password ? { PG_PRIVATE_PASSWORD: this.password } : {} });
    return this;
  }

  url(db = this.dbName) {
    return helper(['url', this.dir, this.port, db]);
  }

  // pid of the running postmaster, or null.
  running() {
    const pidFile = path.join(this.data, 'postmaster.pid');
    if (!existsSync(pidFile)) return null;
    const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
    try { process.kill(pid, 0); return pid; } catch (_) { return null; }
  }

  // opts: more server options ("-c shared_buffers=32MB …"). procsFiles: cgroup.procs files the
  // starting shell joins first, so the postmaster and every backend are charged to that cgroup.
  start(opts = '', procsFiles = []) {
    if (procsFiles.length === 0) {
      helper(['start', this.dir, this.port, opts]);
    } else {
      const join = procsFiles.map((f) => `echo $$ > '${f}'`).join(' && ');
      const q = (s) => `'${String(s).replace(/'/g, "'\\''")}'`;
      execFileSync('bash', ['-c', `${join} && exec bash ${[PG_PRIVATE, 'start', this.dir, this.port, opts].map(q).join(' ')}`], { encoding: 'utf8', timeout: 120000, stdio: ['ignore', 'pipe', 'pipe'] });
    }
    return this.running();
  }

  stop(mode = 'fast', seconds = 60) {
    helper(['stop', this.dir, mode, seconds], { timeout: (seconds + 10) * 1000 });
  }

  ensureDatabase(db = this.dbName) {
    helper(['ensure-db', this.dir, this.port, db]);
  }

  psql(query, db = this.dbName) {
    return helper(['psql', this.dir, this.port, db, query], { timeout: 600000 });
  }
}
