// A PostgreSQL server of a test's own, for faults that must not touch the shared one of
// `make up` (other tests and engineers use it): the restart test stops and starts this one.
// scripts/pg-private.mjs (over scripts/pg-private.sh, the helper scripts/services.sh uses
// too); data under .run/reliability/<name>. Its port is one the OS finds free (tests never
// assume a fixed port is free: several checkouts share a machine).
import net from 'node:net';
import { spawnSync } from 'node:child_process';
import { PgServer, PG_PRIVATE } from '../../scripts/pg-private.mjs';
import { freePort } from '../../scripts/lib/kit.mjs';

export { freePort };

export function portOpen(port, host = '127.0.0.1') {
  return new Promise((resolve) => {
    const s = net.connect({ port, host });
    s.once('connect', () => { s.destroy(); resolve(true); });
    s.once('error', () => resolve(false));
  });
}

// A command on the data directory as the user the server runs as (scripts/pg-private.sh's
// wp_as_pg and wp_pg_bindir, sourced: $0 is not the helper, so its command part stays idle).
function asServerUser(dir, script) {
  const r = spawnSync('bash', ['-c', `. "$1" && ${script}`, 'pgprivate', PG_PRIVATE, dir], { encoding: 'utf8', timeout: 90000 });
  if (r.status !== 0) throw new Error(`pgprivate: ${script}: ${(r.stderr || r.stdout || `exit ${r.status}`).trim()}`);
}

// startPrivatePg({ name: 'pg-restart', password, settings })
//   -> { url, port, stop(), start(), startStandby(), promote(), dir }
// settings: server settings 'name=value' replacing the defaults of the same names.
// A port taken between the OS's answer and the server's bind (scripts/pg-private.sh says
// "… cannot be used: …") costs another try on another free port.
export async function startPrivatePg({ port = null, name = 'pg-test', password = 'k6wp-private-pw', settings = [] } = {}) {
  const own = new Set(settings.map((x) => x.split('=')[0]));
  const serverSettings = [...['max_connections=50', 'fsync=off', 'shared_buffers=32MB'].filter((x) => !own.has(x.split('=')[0])), ...settings];
  for (let attempt = 1; ; attempt++) {
    const p = port || await freePort();
    const server = new PgServer(`reliability/${name}`, p, { password, initdbArgs: ['--no-sync'] }).init();
    const srv = {
      url: server.url(), port: p, dir: server.dir,
      async start() {
        if (await portOpen(p)) return;
        // fsync off: this server exists to be stopped and started, not to keep data through a crash.
        server.start(serverSettings);
      },
      // Synchronous on purpose: the restart test calls it from a timer while k6 runs.
      stop(mode = 'fast') {
        server.stop(mode);
      },
      // A server in recovery that refuses every connection with FATAL 57P03 ("the database
      // system is not accepting connections", DETAIL "Hot standby mode is disabled.") until
      // promote() ends recovery; the same data, so the run's table is there again afterwards.
      // https://www.postgresql.org/docs/15/hot-standby.html
      async startStandby() {
        if (await portOpen(p)) throw new Error(`pgprivate: a server answers on port ${p}: stop it before starting it as a standby`);
        asServerUser(server.dir, 'wp_as_pg touch "$2/data/standby.signal"');
        server.start([...serverSettings.filter((x) => !x.startsWith('hot_standby=')), 'hot_standby=off']);
      },
      // Synchronous, as stop(): called from a timer while k6 runs. Waits until the server accepts connections.
      promote() {
        asServerUser(server.dir, 'wp_as_pg "$(wp_pg_bindir)/pg_ctl" -D "$2/data" -w -t 60 promote >/dev/null');
      },
    };
    try {
      await srv.start();
      return srv;
    } catch (e) {
      if (port || attempt >= 3 || !/cannot be used/.test(String(e.message))) throw e;
    }
  }
}
