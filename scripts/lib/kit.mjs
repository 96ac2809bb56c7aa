// The tool kit of everything that runs outside k6 (scripts/, bench/, experiments/, test/helpers/):
// the repository root, a free port, the API test servers, bin/k6 with its private gateway,
// CPU counters from /proc, and the tools' own knobs (lib/knobs.js TOOL_KNOBS) read with the
// pack's parser. One home for each; the callers import it.
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync } from 'node:fs';
import dns from 'node:dns/promises';
import net from 'node:net';
import path from 'node:path';
import readline from 'node:readline';
import { KNOBS } from '../../lib/config.js';
import { parseKnob } from '../../lib/parse.js';
import { hostPort, urlParts } from '../../lib/urls.js';
import { repoRoot } from './base.mjs';
import { needsGateway, startGateway } from './gateway.mjs';

export { HZ, procStat, repoRoot } from './base.mjs';

// The pack's exit codes (docs/reliability.md "Exit codes"): bad input, interrupted, aborted.
export const EXIT_BAD_INPUT = 107;
export const EXIT_INTERRUPTED = 105;
export const EXIT_ABORTED = 108;

// SIGINT/SIGTERM/SIGHUP to a tool that runs one child at a time (scripts/compare,
// scripts/capacity.mjs): the tool stays up, passes each signal on to the running child (a
// scripts/run, which stops its k6 the pack's way: teardown, summaries, 105) and, once the child
// has ended, stops with what it has. The child must be spawned detached: a Ctrl-C to the
// whole process group would otherwise reach it twice, and a second signal stops k6 at once.
// -> { signal: null | 'SIGTERM' …, child: set by the tool while a child runs }
export function stopOnSignals() {
  const st = { signal: null, child: null };
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(sig, () => {
      st.signal ||= sig;
      if (st.child && st.child.exitCode === null && st.child.signalCode === null) {
        try { st.child.kill(sig === 'SIGHUP' ? 'SIGTERM' : sig); } catch { /* gone meanwhile */ }
      }
    });
  }
  return st;
}

// Whether a database URL's server accepts a TCP connection (nothing is sent): every host of a
// seed list is tried (one answering is enough), a mongodb+srv:// name is resolved the way its
// driver does. -> null (reachable, or not known here: a Unix socket, a host given in the query)
// or why not, in words that name hosts and ports only (never the user info).
export async function unreachable(raw, { defaultPort, withinMs = 5000 } = {}) {
  const parts = urlParts(raw);
  if (!parts || !parts.hostport || /[?&]host=/.test(parts.query || '')) return null;
  const { scheme } = parts;
  let addrs = parts.hostport.split(',').map((hp) => {
    const x = hostPort(hp) || { host: '' };
    return { host: x.host.replace(/^\[|\]$/g, ''), port: Number(x.port || defaultPort) };
  });
  if (scheme.toLowerCase() === 'mongodb+srv') {
    try {
      addrs = (await dns.resolveSrv(`_mongodb._tcp.${addrs[0].host}`)).map((r) => ({ host: r.name, port: r.port }));
    } catch (e) {
      return `${addrs[0].host} does not resolve to MongoDB servers (DNS SRV _mongodb._tcp: ${e.code || e.message})`;
    }
  }
  const one = ({ host, port }) => new Promise((resolve) => {
    const s = net.connect({ host, port });
    const done = (why) => { clearTimeout(timer); s.destroy(); resolve(why); };
    const timer = setTimeout(() => done(`${host}:${port} did not accept a connection within ${withinMs / 1000} s`), withinMs);
    s.once('connect', () => done(null));
    s.once('error', (e) => done(`${host}:${port} ${e.code === 'ECONNREFUSED' ? 'refused the connection' : `cannot be reached (${e.code || e.message})`}`));
  });
  const whys = await Promise.all(addrs.map(one));
  return whys.some((w) => w === null) ? null : whys.join('; ');
}

// A TCP port on 127.0.0.1 that was free a moment ago (the OS picks it).
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

export function testServerBinary(name) {
  const bin = path.join(repoRoot, 'bin', `${name}-testserver`);
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run "make testservers" (make test does it for you)`);
  return bin;
}

// An API test server of the project (test/servers/<name>) on a port the OS picks; it prints
// "listening on http://127.0.0.1:<port>" as its first line, which is awaited so that nobody
// races the listener. startTestServer('arangodb', ['-no-auth']) -> { url, proc, stderr(), stop() }
// ownGroup: in a process group of its own, so that a Ctrl-C to the caller's group does not take
// it away from a run still in its teardown (the caller stops it; it dies with the caller's exit).
export async function startTestServer(name, args = [], { env = {}, ownGroup = false } = {}) {
  const proc = spawn(testServerBinary(name), ['-addr', '127.0.0.1:0', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: ownGroup,
  });
  if (ownGroup) process.once('exit', () => { if (proc.exitCode === null) proc.kill('SIGKILL'); });
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

// `bin/k6 run <args…>` in the repository, with a private gateway (scripts/lib/gateway.mjs)
// holding the database URLs when the scenario (the last argument) is a PostgreSQL or MongoDB one
// and env has no GATEWAY_URL; the gateway stops when k6 exits. With procsFiles, k6 starts from a
// shell that first joined those cgroups, and the gateway joins them too (the client's CPU is
// k6's plus the gateway's). -> { child, gateway }
export function spawnK6(args, env, { k6 = path.join(repoRoot, 'bin', 'k6'), procsFiles = [], gateway: withGateway = true } = {}) {
  const scenario = args[args.length - 1];
  const gateway = withGateway && !env.GATEWAY_URL && needsGateway(scenario) ? startGateway(env) : null;
  if (gateway) {
    env = gateway.env(env);
    for (const f of procsFiles) appendFileSync(f, `${gateway.process.pid}\n`);
  }
  const q = (s) => `'${String(s).replace(/'/g, "'\\''")}'`;
  const child = procsFiles.length === 0
    ? spawn(k6, ['run', ...args], { cwd: repoRoot, env })
    : spawn('bash', ['-c', `${procsFiles.map((f) => `echo $$ > ${q(f)}`).join(' && ')} && exec ${[k6, 'run', ...args].map(q).join(' ')}`], { cwd: repoRoot, env });
  if (gateway) child.on('exit', () => gateway.stop());
  return { child, gateway };
}

// A sampled counter [{ t: epoch ms, <field> }] at time t, linearly interpolated between the
// samples around it (the first or last sample outside them; NaN without samples).
export function counterAt(samples, t, field) {
  if (samples.length === 0) return NaN;
  if (t <= samples[0].t) return samples[0][field];
  for (let i = 1; i < samples.length; i++) {
    const a = samples[i - 1]; const b = samples[i];
    if (t <= b.t) return b.t === a.t ? b[field] : a[field] + (b[field] - a[field]) * (t - a.t) / (b.t - a.t);
  }
  return samples[samples.length - 1][field];
}

// One line on stderr, then exit (107 unless said otherwise).
export function dieWith(tool, code = EXIT_BAD_INPUT) {
  return (msg) => {
    console.error(`${tool}: ${msg}`);
    process.exit(code);
  };
}

// A knob read by a tool (its own, scope tool:<name>, or one of the pack's), from env, with the
// pack's parser (lib/parse.js) and its declaration in lib/knobs.js (or `spec`, a narrower copy):
// the value (the declared default, or `def`, when unset or empty), or one line
// "<tool>: NAME=… is not allowed: …" (then spec.say in brackets, when given) and exit 107 — or,
// given fail, fail(line) without the tool's name (a tool that throws its own refusals).
export function toolKnob(tool, env, name, { def, spec = KNOBS[name], fail = dieWith(tool) } = {}) {
  if (!spec) throw new Error(`${name} is not declared in lib/knobs.js`);
  const raw = env[name];
  if (raw === undefined || raw === '') return def !== undefined ? def : spec.default;
  const refuse = (line) => fail(spec.say ? `${line} (${spec.say})` : line);
  // spec.above: an exclusive lower bound, what is allowed said in words.
  const above = () => refuse(`${name}=${JSON.stringify(raw)} is not allowed: ${spec.above}`);
  let v;
  try {
    v = parseKnob(name, String(raw), spec);
  } catch (e) {
    if (typeof e !== 'string') throw e;
    if (spec.above) above();
    refuse(e.replace(/^k6-writepath: /, ''));
  }
  if (spec.above && !(v > spec.min)) above();
  return v;
}

// RESULTS_DIR as a run takes it: -e RESULTS_DIR=… among a tool's -e values wins over the
// environment, and its declaration checks it (toolKnob).
export function resultsDirOf(tool, eValues, env, fail) {
  const fromE = eValues.filter((e) => e.startsWith('RESULTS_DIR=')).pop()?.slice('RESULTS_DIR='.length);
  return toolKnob(tool, fromE ? { RESULTS_DIR: fromE } : env, 'RESULTS_DIR', { fail });
}

// Every knob of a tool's scope (lib/knobs.js, scope tool:<scope>) read with toolKnob.
export function toolKnobs(tool, scope, env) {
  const out = {};
  for (const [name, spec] of Object.entries(KNOBS)) if (spec.scope === `tool:${scope}`) out[name] = toolKnob(tool, env, name);
  return out;
}
