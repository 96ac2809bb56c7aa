// The tests start the project's API test servers (test/servers/<name>) with the tool kit's
// launcher (scripts/lib/kit.mjs), which awaits their "listening on" line.
import { startTestServer } from '../../scripts/lib/kit.mjs';

export { repoRoot, startTestServer, testServerBinary } from '../../scripts/lib/kit.mjs';

// An API test server of kind for the length of fn(srv), stopped whatever fn does.
export async function withTestServer(kind, args, fn) {
  const srv = await startTestServer(kind, args);
  try {
    return await fn(srv);
  } finally {
    await srv.stop();
  }
}

// Sets a test server's fault configuration (POST /_testserver/faults); 200 or the test fails.
export async function setTestServerFaults(url, body) {
  const r = await fetch(`${url}/_testserver/faults`, { method: 'POST', body: JSON.stringify(body) });
  if (r.status !== 200) throw new Error(`faults not set (${r.status}): ${await r.text()}`);
}
