// Starts one of the project's API test servers (test/servers/<name>) for a test.
// The servers print "listening on http://127.0.0.1:<port>" as their first stdout line;
// we wait for it so tests never race the listener.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import readline from 'node:readline';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export function testServerBinary(name) {
  const bin = path.join(repoRoot, 'bin', `${name}-testserver`);
  if (!existsSync(bin)) {
    throw new Error(`${bin} is missing: run "make testservers" (make test does it for you)`);
  }
  return bin;
}

// startTestServer('arangodb', ['-root-password', 'x']) -> { url, proc, stop() }
export async function startTestServer(name, args = [], { env = {} } = {}) {
  const proc = spawn(testServerBinary(name), ['-addr', '127.0.0.1:0', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr += d; });
  const rl = readline.createInterface({ input: proc.stdout });
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} test server did not start in 10 s: ${stderr}`)), 10000);
    rl.once('line', (line) => {
      clearTimeout(timer);
      const m = /listening on (http:\/\/\S+)/.exec(line);
      if (m) resolve(m[1]); else reject(new Error(`unexpected first line from ${name} test server: ${line}`));
    });
    proc.once('exit', (code) => { clearTimeout(timer); reject(new Error(`${name} test server exited with ${code}: ${stderr}`)); });
  });
  rl.on('line', () => {}); // keep draining stdout
  return {
    url,
    proc,
    stderr: () => stderr,
    stop: () => new Promise((resolve) => {
      if (proc.exitCode !== null) return resolve();
      proc.once('exit', () => resolve());
      proc.kill('SIGTERM');
    }),
  };
}
