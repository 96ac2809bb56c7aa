// A PostgreSQL server of a test's own, for faults that must not touch the shared one of
// `make up` (other tests and engineers use it): the restart test stops and starts this one.
// Same approach as scripts/services.sh: Debian's binaries, run as the `postgres` user
// (PostgreSQL refuses root), data under .run/reliability/ or, when `postgres` cannot
// traverse the repo path, under /var/tmp with a link.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync, chmodSync, chownSync, lstatSync } from 'node:fs';
import { createHash } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import { repoRoot } from './testserver.mjs';

const isRoot = process.getuid && process.getuid() === 0;

function pgBindir() {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) throw new Error('PostgreSQL binaries are missing (/usr/lib/postgresql): run "make up" first');
  const v = readdirSync(base).filter((d) => existsSync(path.join(base, d, 'bin', 'pg_ctl'))).sort((a, b) => Number(a) - Number(b)).pop();
  if (!v) throw new Error('no pg_ctl under /usr/lib/postgresql');
  return path.join(base, v, 'bin');
}

function asPg(cmd, args, opts = {}) {
  const [c, a] = isRoot ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
  return spawnSync(c, a, { encoding: 'utf8', timeout: 60000, ...opts });
}

function dataRoot(name) {
  const dir = path.join(repoRoot, '.run', 'reliability');
  mkdirSync(dir, { recursive: true });
  const want = path.join(dir, name);
  if (existsSync(want) || (() => { try { lstatSync(want); return true; } catch { return false; } })()) return want;
  const traversable = !isRoot || spawnSync('runuser', ['-u', 'postgres', '--', 'test', '-x', dir]).status === 0;
  if (traversable) {
    mkdirSync(want);
  } else {
    const alt = path.join('/var/tmp', `k6-writepath-${createHash('md5').update(repoRoot).digest('hex').slice(0, 12)}`, name);
    mkdirSync(alt, { recursive: true });
    symlinkSync(alt, want);
  }
  if (isRoot) execFileSync('chown', ['postgres:postgres', want]);
  return want;
}

export function portOpen(port, host = '127.0.0.1') {
  return new Promise((resolve) => {
    const s = net.connect({ port, host });
    s.once('connect', () => { s.destroy(); resolve(true); });
    s.once('error', () => resolve(false));
  });
}

// startPrivatePg({ port: 55632, name: 'pg-restart', password }) -> { url, port, stop(), start(), dir }
export async function startPrivatePg({ port = 55632, name = `pg-${port}`, password = 'k6wp-private-pw' } = {}) {
  const bin = pgBindir();
  const dir = dataRoot(name);
  const data = path.join(dir, 'data');
  if (!existsSync(path.join(data, 'PG_VERSION'))) {
    const pwfile = path.join(dir, 'password');
    writeFileSync(pwfile, password, { mode: 0o600 });
    if (isRoot) chownSync(pwfile, ...uidGid());
    const r = asPg(path.join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth-host=scram-sha-256', '--auth-local=trust', `--pwfile=${pwfile}`, '-E', 'UTF8', '--no-sync']);
    if (r.status !== 0) throw new Error(`initdb failed: ${r.stderr || r.stdout}`);
  }
  const url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres?sslmode=disable`;
  const srv = {
    url, port, dir,
    async start() {
      if (await portOpen(port)) return;
      // fsync off: this server exists to be stopped and started, not to keep data through a crash.
      const r = asPg(path.join(bin, 'pg_ctl'), ['-D', data, '-l', path.join(dir, 'server.log'), '-w', '-t', '60',
        '-o', `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories= -c max_connections=50 -c fsync=off -c shared_buffers=32MB`, 'start']);
      if (r.status !== 0) throw new Error(`private PostgreSQL did not start on ${port}: ${r.stderr || r.stdout} (see ${dir}/server.log)`);
    },
    // Synchronous on purpose: the restart test calls it from a timer while k6 runs.
    stop(mode = 'fast') {
      const r = asPg(path.join(bin, 'pg_ctl'), ['-D', data, '-m', mode, '-w', '-t', '60', 'stop']);
      if (r.status !== 0 && !/Is server running/.test(r.stderr)) throw new Error(`pg_ctl stop failed: ${r.stderr}`);
    },
  };
  await srv.start();
  return srv;
}

function uidGid() {
  const out = execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim();
  const g = execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim();
  return [Number(out), Number(g)];
}
