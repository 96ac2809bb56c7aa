// A mongod of a test's own, for what must not touch the shared one of `make up`: fault
// injection (kill -9, SIGSTOP, restart) and the server's test commands (failCommand fail
// points need --setParameter enableTestCommands=1). scripts/lib/mongo-private.mjs (over
// scripts/mongo-private.sh, the helper scripts/services.sh uses too); data under
// .run/test/<name>, a port the OS hands out.
import { MongoServer } from '../../scripts/lib/mongo-private.mjs';
import { freePort } from '../../scripts/lib/kit.mjs';

export { freePort };

// startPrivateMongo({ name, testCommands }) -> { url, port, pid(), start(), stop(), signal(sig) }
export async function startPrivateMongo({ name, testCommands = false, password = 'k6wp-private-mongo-pw' } = {}) {
  const port = await freePort();
  const server = new MongoServer(`test/${name}`, port, { password, cacheGB: 0.25 }).init();
  const options = testCommands ? ['--setParameter', 'enableTestCommands=1'] : [];
  if (server.running()) server.stop(10); // left over by an interrupted earlier run
  server.start(options);
  return {
    url: server.url(), port, dir: server.dir, log: server.log,
    pid: () => server.running(),
    start: () => server.start(options),
    stop: (seconds = 30) => server.stop(seconds),
    signal(sig) { const pid = server.running(); if (pid) process.kill(pid, sig); return pid; },
  };
}
