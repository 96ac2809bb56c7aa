// The experiment's own PostgreSQL server (never the shared one of `make up`): Debian's
// binaries, initdb'd once under .run/<experiment>/pg-<port>, started as the `postgres` user
// (PostgreSQL refuses root) from a shell that first moves itself into the memory-limited
// cgroup, so the postmaster and every backend it forks are charged to that cgroup.
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import path from 'node:path';

const isRoot = process.getuid && process.getuid() === 0;

export function pgBindir() {
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base) ? readdirSync(base).filter((d) => existsSync(path.join(base, d, 'bin', 'pg_ctl'))) : [];
  if (versions.length === 0) throw new Error('PostgreSQL binaries are missing (/usr/lib/postgresql/*/bin): run "make up" once, it installs them');
  return path.join(base, versions.sort((a, b) => Number(a) - Number(b)).pop(), 'bin');
}

function pgIds() {
  const id = (flag) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return [id('-u'), id('-g')];
}

function asPgArgs(cmd, args) {
  return isRoot ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
}

function asPg(cmd, args, opts = {}) {
  const [c, a] = asPgArgs(cmd, args);
  return spawnSync(c, a, { encoding: 'utf8', timeout: 120000, ...opts });
}

// .run/<experiment>/pg-<port>, or /var/tmp/… with a link when `postgres` cannot traverse
// the repo. One directory per port, so the test's scaled-down run and a full run can coexist.
function dataRoot(repoRoot, port, experiment) {
  const parent = path.join(repoRoot, '.run', experiment);
  mkdirSync(parent, { recursive: true });
  const link = path.join(parent, `pg-${port}`);
  if (existsSync(link) || (() => { try { lstatSync(link); return true; } catch (_) { return false; } })()) return link;
  if (isRoot && asPg('test', ['-x', parent]).status !== 0) {
    const alt = `/var/tmp/k6-writepath-${createHash('md5').update(repoRoot).digest('hex').slice(0, 12)}/${experiment}-pg-${port}`;
    mkdirSync(alt, { recursive: true });
    symlinkSync(alt, link);
  } else {
    mkdirSync(link);
  }
  return link;
}

export class PgServer {
  constructor(repoRoot, port, experiment = 'experiment-ram') {
    this.bin = pgBindir();
    this.port = port;
    this.dir = dataRoot(repoRoot, port, experiment);
    this.data = path.join(this.dir, 'data');
    this.log = path.join(this.dir, 'server.log');
  }

  init() {
    if (existsSync(path.join(this.data, 'PG_VERSION'))) return;
    if (isRoot) chownSync(this.dir, ...pgIds());
    const pwfile = path.join(this.dir, 'password');
    writeFileSync(pwfile, randomBytes(18).toString('base64').replace(/[/+=]/g, ''), { mode: 0o600 });
    if (isRoot) chownSync(pwfile, ...pgIds());
    const r = asPg(path.join(this.bin, 'initdb'), ['-D', this.data, '-U', 'postgres', '--auth-host=scram-sha-256',
      '--auth-local=trust', `--pwfile=${pwfile}`, '-E', 'UTF8']);
    if (r.status !== 0) throw new Error(`initdb failed: ${r.stderr || r.stdout}`);
  }

  url() {
    const pw = readFileSync(path.join(this.dir, 'password'), 'utf8').trim();
    return `postgres://postgres:${pw}@127.0.0.1:${this.port}/writepath?sslmode=disable`;
  }

  running() {
    const pidFile = path.join(this.data, 'postmaster.pid');
    if (!existsSync(pidFile)) return null;
    const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
    try { process.kill(pid, 0); return pid; } catch (_) { return null; }
  }

  // Starts the server inside the cgroup(s) whose cgroup.procs files are given. settings:
  // more server settings as 'name=value' (pg_ctl hands -o to a shell: plain words only).
  start(procsFiles, sharedBuffersMb, settings = []) {
    for (const s of settings) if (!/^[a-z_]+=[A-Za-z0-9.]+$/.test(s)) throw new Error(`server setting ${JSON.stringify(s)} is not name=value`);
    if (this.running()) throw new Error(`a server already runs on ${this.data} (pid ${this.running()}): a driver still running, or one that was killed: stop it with ${isRoot ? 'runuser -u postgres -- ' : ''}${path.join(this.bin, 'pg_ctl')} -D ${this.data} stop`);
    const opts = [`-c listen_addresses=127.0.0.1`, `-c port=${this.port}`, '-c unix_socket_directories=', '-c max_connections=20',
      `-c shared_buffers=${sharedBuffersMb}MB`, '-c huge_pages=off', ...settings.map((s) => `-c ${s}`)].join(' ');
    const [c, a] = asPgArgs(path.join(this.bin, 'pg_ctl'), ['-D', this.data, '-l', this.log, '-w', '-t', '90', '-o', opts, 'start']);
    const join = procsFiles.map((f) => `echo $$ > '${f}'`).join(' && ');
    const quoted = [c, ...a].map((s) => `'${s.replace(/'/g, "'\\''")}'`).join(' ');
    const r = spawnSync('bash', ['-c', `${join} && exec ${quoted}`], { encoding: 'utf8', timeout: 120000 });
    if (r.status !== 0) throw new Error(`PostgreSQL did not start (see ${this.log}): ${r.stderr || r.stdout}`);
    return this.running();
  }

  stop() {
    if (!this.running()) return;
    asPg(path.join(this.bin, 'pg_ctl'), ['-D', this.data, '-m', 'fast', '-w', '-t', '120', 'stop']);
  }

  psql(query, db = 'writepath') {
    const pw = readFileSync(path.join(this.dir, 'password'), 'utf8').trim();
    const r = spawnSync('psql', ['-h', '127.0.0.1', '-p', String(this.port), '-U', 'postgres', '-d', db, '-Atqc', query],
      { encoding: 'utf8', env: { ...process.env, PGPASSWORD: pw }, timeout: 600000 });
    if (r.status !== 0) throw new Error(`psql failed: ${r.stderr}`);
    return r.stdout.trim();
  }

  ensureDatabase() {
    if (this.psql("select 1 from pg_database where datname='writepath'", 'postgres') !== '1') this.psql('create database writepath', 'postgres');
  }
}
