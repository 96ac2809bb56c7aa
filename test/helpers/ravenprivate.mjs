// A RavenDB 4.1 server of a test's own (scripts/lib/raven-private.mjs over scripts/raven-private.sh,
// the helper `make up` uses too), for what must not touch the shared one: kill -9 and restart,
// a database deleted under a run. Data under .run/test/<name>/data (kept by restart()), a port
// the OS hands out.
import { spawn } from 'node:child_process';
import { RavenServer, RAVEN_PRIVATE } from '../../scripts/lib/raven-private.mjs';
import { freePort } from './mongoprivate.mjs';

// startPrivateRaven({ name }) -> { url, port, dir, log, pid(), restart(), kill(sig), stop() }
export async function startPrivateRaven({ name }) {
  const port = await freePort();
  const server = new RavenServer(`test/${name}`, port);
  if (server.running()) server.stop(10); // left over by an interrupted earlier run
  server.start();
  return {
    url: server.url, port, dir: server.dir, log: server.log,
    pid: () => server.running(),
    // After kill(): the same data directory and port, as a restarted server would have.
    restart: () => server.start(),
    // The same, without blocking the event loop, so a test can poll the server while it
    // starts; resolves once it answers GET /build/version (scripts/raven-private.sh start).
    restartAsync: () => new Promise((resolve, reject) => {
      const p = spawn('bash', [RAVEN_PRIVATE, 'start', server.dir, String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
      let err = '';
      p.stderr.on('data', (d) => { err += d; });
      p.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`raven-private.sh start: ${err.trim()}`))));
    }),
    kill(sig = 'SIGKILL') {
      const pid = server.running();
      if (pid) process.kill(pid, sig);
      return pid;
    },
    stop: (seconds = 30) => server.stop(seconds),
  };
}

// The URL of the RavenDB 4.1 that `make up` started (RAVEN_URL in .run/env), or null.
export { RavenServer };
