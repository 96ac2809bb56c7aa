// Runs bin/k6 on a scenario for an integration test and collects what the run left behind:
// exit code, output, and the result folder's summary.json / junit.xml.
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot } from './testserver.mjs';
import { RUN_ENV_FILE, readRunEnv } from '../../scripts/run-env.mjs';
import { checkGatewayEnv, needsGateway } from './gateway.mjs';
import { spawnK6 } from '../../scripts/lib/kit.mjs';

export const k6Bin = path.join(repoRoot, 'bin', 'k6');

// The local services' URLs written by `make up` (scripts/services.sh).
export function localEnv() {
  if (!existsSync(RUN_ENV_FILE)) throw new Error('.run/env is missing: run "make up" (make test does it for you)');
  return readRunEnv();
}

// The RUN_SECRET of the tests' runs (lib/targets/lifecycle.js: markers carry an HMAC made with
// it), so that a run may REUSE what an earlier one kept; tests that play a bystander forge
// markers with and without it (markerFor).
export const TEST_RUN_SECRET = 'k6wp-tests-run-secret-2c9e51';

// A marker as lib/targets/lifecycle.js writes it for the object `what` (e.g. 'table public.k6wp_x'),
// its proof made with `secret` (a bystander's guess, or the tests' own secret).
export function markerFor(what, { run, token = '0123456789abcdef', plan = 'insert-vs-overwrite-00000000', state = 'kept', secret = TEST_RUN_SECRET } = {}) {
  const m = { tool: 'k6-writepath', run, token, plan };
  const proof = createHmac('sha256', secret).update([m.tool, m.run, m.token, m.plan, what].join('\n')).digest('hex');
  return { ...m, proof, state };
}

// The error lines a user sees: k6's level=error lines (its message unescaped) and the wrappers'
// own one-line refusals (scripts/run, the private gateway's URL check), which k6 never printed.
export function errorLines(r) {
  const text = typeof r === 'string' ? r : r.stderr;
  return text.split('\n').filter((l) => /level=error/.test(l) || /^(k6-writepath|scripts\/[a-z-]+): /.test(l)).map((l) => l.replace(/\\"/g, '"'));
}

// An abort line as scripts/run shows it (its cut_frame): stock k6's test.abort() adds the
// JavaScript frame it was called from ("… at stop (file:///…/lib/abort.js:…)").
export function cutFrame(line) {
  return line.replace(/^(.*level=error msg="test aborted: .*) at [^ ]+ \(file:\/\/[^ ]*\)"$/, '$1"');
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
export async function runK6(scenario, env = {}, opts = {}) {
  return startK6(scenario, env, opts).done;
}

// startK6(…) -> { runId, dir, waitFor(regex, ms), done }: the same run, for tests that act
// while it is under way (waitFor resolves with the first output line matching regex).
// gatewayFor: false = no private gateway even for a PostgreSQL/MongoDB scenario.
export function startK6(scenario, env = {}, { args = [], timeoutMs = 300000, runId = env.RUN_ID || uniqueRunId(), k6 = k6Bin, gatewayFor = true } = {}) {
  const resultsDir = mkdtempSync(path.join(tmpdir(), 'k6wp-results-'));
  const dir = path.join(resultsDir, runId);
  mkdirSync(dir, { recursive: true });
  const fullEnv = {
    ...process.env,
    K6_NO_USAGE_REPORT: 'true',
    K6_AUTO_EXTENSION_RESOLUTION: 'false',
    RESULTS_DIR: resultsDir,
    RUN_ID: runId,
    RUN_SECRET: TEST_RUN_SECRET,
    PWD: repoRoot,
    ...env,
  };
  for (const [k, v] of Object.entries(fullEnv)) if (v === undefined || v === null) delete fullEnv[k];
  // PostgreSQL and MongoDB scenarios: a private gateway holds the database URLs (as scripts/run
  // does it); a bad URL ends the run with scripts/run's one line and 107, before k6 starts.
  const withGateway = !env.GATEWAY_URL && gatewayFor !== false && needsGateway(scenario);
  if (withGateway) {
    const refused = checkGatewayEnv(fullEnv, scenario);
    if (refused) {
      return { runId, dir, child: null, waitFor: () => Promise.reject(new Error(refused.stderr)), done: Promise.resolve({ code: refused.code, stdout: '', stderr: refused.stderr, runId, dir, summary: null, junit: null }) };
    }
  }
  let child; let gateway;
  try {
    ({ child, gateway } = spawnK6(['--quiet', '--address=', ...args, path.join(repoRoot, scenario)], fullEnv, { k6, gateway: withGateway }));
  } catch (e) {
    if (!e.refused) throw e;
    // the gateway's own refusal of a URL its driver cannot take: its one line, 107
    return { runId, dir, child: null, waitFor: () => Promise.reject(e), done: Promise.resolve({ code: 107, stdout: '', stderr: e.stderr, runId, dir, summary: null, junit: null }) };
  }
  let stdout = '';
  let stderr = '';
  const waiters = [];
  const check = () => {
    for (const w of waiters.slice()) {
      const m = w.re.exec(stdout + stderr);
      if (m) { waiters.splice(waiters.indexOf(w), 1); clearTimeout(w.timer); w.resolve(m[0]); }
    }
  };
  child.stdout.on('data', (d) => { stdout += d; check(); });
  child.stderr.on('data', (d) => { stderr += d; check(); });
  const done = new Promise((resolve, reject) => {
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`k6 did not finish in ${timeoutMs} ms:\n${stdout}\n${stderr}`)); }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      for (const w of waiters) { clearTimeout(w.timer); w.reject(new Error(`k6 exited (${code}) before printing ${w.re}:\n${stdout}\n${stderr}`)); }
      const read = (f) => (existsSync(path.join(dir, f)) ? readFileSync(path.join(dir, f), 'utf8') : null);
      const summaryText = read('summary.json');
      resolve({ code, stdout, stderr, runId, dir, summary: summaryText ? JSON.parse(summaryText) : null, junit: read('junit.xml') });
    });
  });
  const waitFor = (re, ms = 120000) => new Promise((resolve, reject) => {
    const w = { re, resolve, reject, timer: setTimeout(() => { waiters.splice(waiters.indexOf(w), 1); reject(new Error(`k6 did not print ${re} in ${ms} ms:\n${stdout}\n${stderr}`)); }, ms) };
    waiters.push(w);
    check();
  });
  return { runId, dir, child, gateway, waitFor, done };
}

// runWrapper('scenarios/…', env, { args }) -> the same result as runK6, through scripts/run (its
// private gateway, its refusals of flags and secrets, its one-line aborts), as users run it.
export function runWrapper(scenario, env = {}, { args = [], timeoutMs = 300000, runId = env.RUN_ID || uniqueRunId() } = {}) {
  const resultsDir = mkdtempSync(path.join(tmpdir(), 'k6wp-results-'));
  const dir = path.join(resultsDir, runId);
  const fullEnv = { ...process.env, K6_NO_USAGE_REPORT: 'true', RESULTS_DIR: resultsDir, RUN_ID: runId, RUN_SECRET: TEST_RUN_SECRET, HISTORY: '0', WP_INFLUX: '0', ...env };
  for (const [k, v] of Object.entries(fullEnv)) if (v === undefined || v === null) delete fullEnv[k];
  const child = spawn(path.join(repoRoot, 'scripts', 'run'), [scenario, '--quiet', ...args], { cwd: repoRoot, env: fullEnv });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`scripts/run did not finish in ${timeoutMs} ms:\n${stdout}\n${stderr}`)); }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      const read = (f) => (existsSync(path.join(dir, f)) ? readFileSync(path.join(dir, f), 'utf8') : null);
      const summaryText = read('summary.json');
      resolve({ code, stdout, stderr, runId, dir, summary: summaryText ? JSON.parse(summaryText) : null, junit: read('junit.xml'), child });
    });
  });
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

// A psql session that stays open: for holding a lock while a run waits on it.
export function psqlSession(url) {
  const u = new URL(url);
  const child = spawn('psql', ['-h', u.hostname, '-p', u.port, '-U', decodeURIComponent(u.username), '-d', u.pathname.slice(1), '-Atq', '-v', 'ON_ERROR_STOP=1'],
    { env: { ...process.env, PGPASSWORD: decodeURIComponent(u.password) }, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { err += d; });
  const until = (token) => new Promise((resolve, reject) => {
    const t = setInterval(() => {
      if (out.includes(token)) { clearInterval(t); resolve(); }
      if (err || child.exitCode !== null) { clearInterval(t); reject(new Error(`psql: ${err}`)); }
    }, 20);
  });
  return {
    async run(sql, token) { child.stdin.write(`${sql}\nSELECT '${token}';\n`); await until(token); return out; },
    close() { child.stdin.end('\\q\n'); return new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r))); },
  };
}
