// A PostgreSQL server of a test's own, for faults that must not touch the shared one of
// `make up` (other tests and engineers use it): the restart test stops and starts this one.
// scripts/pg-private.mjs (over scripts/pg-private.sh, the helper scripts/services.sh uses
// too); data under .run/reliability/<name>.
import net from 'node:net';
import { PgServer } from '../../scripts/pg-private.mjs';

export function portOpen(port, host = '127.0.0.1') {
  return new Promise((resolve) => {
    const s = net.connect({ port, host });
    s.once('connect', () => { s.destroy(); resolve(true); });
    s.once('error', () => resolve(false));
  });
}

// startPrivatePg({ port: 55632, name: 'pg-restart', password }) -> { url, port, stop(), start(), dir }
export async function startPrivatePg({ port = 55632, name = `pg-${port}`, password = 'k6wp-private-pw' } = {}) {
  const server = new PgServer(`reliability/${name}`, port, { password, initdbArgs: ['--no-sync'] }).init();
  const srv = {
    url: server.url(), port, dir: server.dir,
    async start() {
      if (await portOpen(port)) return;
      // fsync off: this server exists to be stopped and started, not to keep data through a crash.
      server.start(['max_connections=50', 'fsync=off', 'shared_buffers=32MB']);
    },
    // Synchronous on purpose: the restart test calls it from a timer while k6 runs.
    stop(mode = 'fast') {
      server.stop(mode);
    },
  };
  await srv.start();
  return srv;
}
