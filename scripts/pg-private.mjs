// A private PostgreSQL server for Node callers (the tests' own servers, the experiments' in
// experiments/ram and experiments/e2): a thin wrapper over scripts/pg-private.sh, the one
// helper that also serves scripts/services.sh. Data in .run/<name>.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot as root } from './lib/kit.mjs';

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

  // settings: server settings as 'name=value' (pg_ctl hands them to a shell: plain words only,
  // checked here). procsFiles: cgroup.procs files the helper joins before it starts the server,
  // so the postmaster and every backend are charged to those cgroups. Refuses a data directory
  // whose server already runs (the same settings could not take). Returns the postmaster's pid.
  start(settings = [], procsFiles = []) {
    for (const s of settings) if (!/^[a-z_]+=[A-Za-z0-9.]+$/.test(s)) throw new Error(`server setting ${JSON.stringify(s)} is not name=value`);
    const pid = this.running();
    if (pid) throw new Error(`a server already runs on ${this.data} (pid ${pid}): a driver or test still running, or one that was killed: stop it with scripts/pg-private.sh stop ${this.dir}`);
    helper(['start', this.dir, this.port, settings.map((s) => `-c ${s}`).join(' '), ...procsFiles]);
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
