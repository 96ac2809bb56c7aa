// Runs bin/k6 on a scenario for an integration test and collects what the run left behind:
// exit code, output, and the result folder's summary.json / junit.xml.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot } from './testserver.mjs';

export const k6Bin = path.join(repoRoot, 'bin', 'k6');

// The local services' URLs written by `make up` (scripts/services.sh).
export function localEnv() {
  const file = path.join(repoRoot, '.run', 'env');
  if (!existsSync(file)) throw new Error('.run/env is missing: run "make up" (make test does it for you)');
  const env = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^([A-Z_]+)=(.*)$/.exec(line);
    if (m) env[m[1]] = m[2];
  }
  return env;
}

let counter = 0;
export function uniqueRunId(prefix = 't') {
  counter += 1;
  return `${prefix}${process.pid}_${Date.now().toString(36)}_${counter}`.toLowerCase().replace(/[^a-z0-9_]/g, '_').slice(0, 32);
}

// runK6('scenarios/postgres/insert-vs-overwrite.js', { DOCS: '2000' }, { args: ['--out', …] })
// -> { code, stdout, stderr, runId, dir, summary, junit }
// --address= : no REST API listener, so parallel runs do not fight over port 6565.
// k6: another binary (bin/k6-stock for the stock-k6 test).
export async function runK6(scenario, env = {}, { args = [], timeoutMs = 300000, runId = env.RUN_ID || uniqueRunId(), k6 = k6Bin } = {}) {
  const resultsDir = mkdtempSync(path.join(tmpdir(), 'k6wp-results-'));
  const dir = path.join(resultsDir, runId);
  const { mkdirSync } = await import('node:fs');
  mkdirSync(dir, { recursive: true });
  const fullEnv = {
    ...process.env,
    K6_NO_USAGE_REPORT: 'true',
    K6_AUTO_EXTENSION_RESOLUTION: 'false',
    RESULTS_DIR: resultsDir,
    RUN_ID: runId,
    PWD: repoRoot,
    ...env,
  };
  for (const [k, v] of Object.entries(fullEnv)) if (v === undefined || v === null) delete fullEnv[k];
  const child = spawn(k6, ['run', '--quiet', '--address=', ...args, path.join(repoRoot, scenario)], { cwd: repoRoot, env: fullEnv });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  const code = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`k6 did not finish in ${timeoutMs} ms:\n${stdout}\n${stderr}`)); }, timeoutMs);
    child.on('exit', (c) => { clearTimeout(timer); resolve(c); });
  });
  const read = (f) => (existsSync(path.join(dir, f)) ? readFileSync(path.join(dir, f), 'utf8') : null);
  const summaryText = read('summary.json');
  return {
    code, stdout, stderr, runId, dir,
    summary: summaryText ? JSON.parse(summaryText) : null,
    junit: read('junit.xml'),
  };
}

// Minimal InfluxQL query against the local InfluxDB (INFLUX_URL=http://host:port/db).
export async function influxQuery(influxUrl, q) {
  const u = new URL(influxUrl);
  const db = u.pathname.replace(/^\//, '') || 'k6';
  const res = await fetch(`${u.origin}/query?db=${encodeURIComponent(db)}&q=${encodeURIComponent(q)}`);
  if (!res.ok) throw new Error(`InfluxDB ${res.status}: ${await res.text()}`);
  return res.json();
}

// psql against the local PostgreSQL, for assertions on the database's own view.
export async function psql(pgUrl, query) {
  const u = new URL(pgUrl);
  const child = spawn('psql', ['-h', u.hostname, '-p', u.port, '-U', decodeURIComponent(u.username), '-d', u.pathname.slice(1), '-Atqc', query],
    { env: { ...process.env, PGPASSWORD: decodeURIComponent(u.password) } });
  let out = ''; let err = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { err += d; });
  const code = await new Promise((r) => child.on('exit', r));
  if (code !== 0) throw new Error(`psql failed: ${err}`);
  return out.trim();
}
