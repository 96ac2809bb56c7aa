// Issue 27, classes 8 (set-up that fails by chance), 5 and 2 (the wrappers' part): tried as a
// hostile user would. Ports that cannot collide by chance, and one line naming what holds one
// when it does; compose targets without an engine; a bounded RavenDB test server that fails
// loudly and loses nothing; secrets given with -e refused before anything runs; a wrong K6, a
// refused reporter module and a bad INFLUX_URL each one line, exit 107, nothing of theirs left.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { KNOBS } from '../../lib/config.js';
import { PG_PRIVATE, PgServer } from '../../scripts/pg-private.mjs';
import { influxQuery, runK6, localEnv } from '../helpers/k6.mjs';
import { freePort } from '../helpers/pgprivate.mjs';
import { repoRoot, startTestServer } from '../helpers/testserver.mjs';

const scenario = 'scenarios/postgres/insert-vs-overwrite.js';
const common = path.join(repoRoot, 'scripts', 'common.sh');
const bash = (script, env = {}) => spawnSync('bash', ['-c', `. '${common}'; ${script}`], { encoding: 'utf8', env: { ...process.env, ...env } });
const [ephLo, ephHi] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);

// A socket in TIME-WAIT on 127.0.0.1:<port>, as any outgoing connection leaves one: Python's
// socket module (no SO_REUSEADDR, unlike Node's), client side closing first. Returns the port.
function timeWaitOn(port = 0) {
  const py = `import socket
srv = socket.socket(); srv.bind(('127.0.0.1', 0)); srv.listen()
c = socket.socket(); c.bind(('127.0.0.1', ${port})); c.connect(srv.getsockname())
a, _ = srv.accept(); p = c.getsockname()[1]; c.close(); a.close(); srv.close(); print(p)`;
  const r = spawnSync('python3', ['-c', py], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return Number(r.stdout.trim());
}

test('default private ports lie below the ephemeral range, where no outgoing connection can hold them', () => {
  const services = readFileSync(path.join(repoRoot, 'scripts/services.sh'), 'utf8');
  const pg = Number(/pg_port=\$\{WP_PG_PORT:-(\d+)\}/.exec(services)[1]);
  const influx = Number(/influx_port=\$\{WP_INFLUX_PORT:-(\d+)\}/.exec(services)[1]);
  assert.deepEqual([KNOBS.WP_PG_PORT.default, KNOBS.WP_INFLUX_PORT.default], [pg, influx], 'lib/config.js documents the ports services.sh uses');
  const compose = readFileSync(path.join(repoRoot, 'docker-compose.yml'), 'utf8');
  assert.match(compose, new RegExp(`\\$\\{WP_PG_PORT:-${pg}\\}:5432`));
  assert.match(compose, new RegExp(`\\$\\{WP_INFLUX_PORT:-${influx}\\}:8086`));
  // The experiments' and benchmarks' ports are tool knobs (lib/knobs.js, scope tool:…).
  const defaults = { pg, influx, influxRpc: influx + 2 };
  for (const [name, spec] of Object.entries(KNOBS)) if (/_PORT$/.test(name) && String(spec.scope).startsWith('tool:')) defaults[name] = spec.default;
  for (const k of ['RAM_PG_PORT', 'E2_MONGO_PORT', 'BENCH_PG_PORT', 'BENCH_GATE_PG_PORT']) assert.ok(k in defaults, k);
  for (const [what, port] of Object.entries(defaults)) {
    assert.ok(port >= 1024 && port < 32768, `${what}: ${port} is below Linux's default ephemeral range 32768-60999`);
    if (ephLo <= 32768) assert.ok(port < ephLo || port > ephHi, `${what}: ${port} is outside this machine's ephemeral range ${ephLo}-${ephHi}`);
  }
});

test('a port held by a TIME-WAIT socket or a listener: PostgreSQL does not start and one line says what holds it and which knob to change', { timeout: 120000 }, async () => {
  const server = new PgServer('reliability/pg-port-held', 1, { password: 'k6wp-private-pw', initdbArgs: ['--no-sync'] }).init();
  const start = (port) => spawnSync('bash', [PG_PRIVATE, 'start', server.dir, String(port)], { encoding: 'utf8', env: { ...process.env, PG_PRIVATE_PORT_KNOB: 'WP_PG_PORT' } });
  // A connect test (what services.sh's pre-check does) sees nothing on a TIME-WAIT port.
  const tw = timeWaitOn();
  const r = start(tw);
  assert.equal(r.status, 1);
  assert.equal(r.stdout, '', 'pg_ctl says nothing of its own');
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0], new RegExp(`^pg-private: WP_PG_PORT=${tw} cannot be used: 1 connection that used it as its local port is in TIME-WAIT \\(the kernel frees the port within 60 s\\)`));
  if (tw >= ephLo && tw <= ephHi) assert.match(lines[0], new RegExp(`it lies in the ephemeral port range ${ephLo}-${ephHi} of this machine`));
  assert.match(lines[0], /; choose another port: export WP_PG_PORT=<a free port below 32768>$/);
  assert.equal(server.running(), null);
  // A listener: the same line, naming it.
  const srv = http.createServer();
  await new Promise((res) => srv.listen(0, '127.0.0.1', res));
  const held = srv.address().port;
  try {
    const l = start(held);
    assert.equal(l.status, 1);
    assert.match(l.stderr.trim(), new RegExp(`^pg-private: WP_PG_PORT=${held} cannot be used: a program listens on it;[^\\n]*$`));
  } finally { srv.close(); }
  // And a free port works: the refusals above were about the port only.
  const free = await freePort();
  const ok = start(free);
  try { assert.equal(ok.status, 0, ok.stderr); } finally { server.stop(); }
});

test('make up: a WP_INFLUX_PORT whose RPC port (+2) is taken is one line naming both, before anything starts', async () => {
  const srv = http.createServer();
  await new Promise((res) => srv.listen(0, '127.0.0.1', res));
  const rpc = srv.address().port;
  try {
    const r = bash(`wp_port_unusable WP_INFLUX_PORT ${rpc - 2} ${rpc}`);
    assert.equal(r.stdout, `WP_INFLUX_PORT=${rpc - 2} cannot be used: port ${rpc} (WP_INFLUX_PORT + 2): a program listens on it${rpc >= ephLo && rpc <= ephHi ? `; it lies in the ephemeral port range ${ephLo}-${ephHi} of this machine, from which outgoing connections take their ports` : ''}; choose another port: export WP_INFLUX_PORT=<a free port below 32768>\n`);
  } finally { srv.close(); }
});

test('make compose-up / compose-down without a container engine: one line, no traceback, nothing written', { skip: spawnSync('docker', ['info'], { stdio: 'ignore' }).status === 0 && 'a Docker engine answers here' }, () => {
  const hadEnv = existsSync(path.join(repoRoot, '.env'));
  for (const target of ['compose-up', 'compose-down']) {
    const r = spawnSync('make', ['--no-print-directory', target], { cwd: repoRoot, encoding: 'utf8' });
    assert.notEqual(r.status, 0);
    assert.doesNotMatch(r.stderr + r.stdout, /Traceback|docker\.errors/);
    const ours = r.stderr.split('\n').filter((l) => l && !/^make(\[\d+\])?: \*\*\*/.test(l));
    assert.deepEqual(ours, [`make ${target}: no Docker engine answers (docker info): the compose stack needs one; without Docker use make up and scripts/run, or make compose-run`]);
  }
  assert.equal(existsSync(path.join(repoRoot, '.env')), hadEnv, 'compose-up wrote no .env without an engine');
});

test('the RavenDB test server past its storage limit: writes refused loudly, counted by the pack (exit 99), nothing acknowledged lost, memory bounded', { timeout: 180000 }, async () => {
  const srv = await startTestServer('ravendb', ['-max-stored-mb', '8']);
  try {
    // The README's bulk-insert example, shortened: without the limit it grows the server by
    // ~1 KB per document for as long as it runs.
    const r = await runK6('scenarios/ravendb/bulk-insert.js', { RAVEN_URL: srv.url, STAGES: '6s:2', BATCH_SIZE: '2000' }, { timeoutMs: 120000 });
    assert.equal(r.code, 99, r.stderr);
    const bulk = r.summary.phases.find((p) => p.phase === 'bulk');
    assert.ok(bulk.docs_failed > 0 && bulk.docs_ok > 0, JSON.stringify(bulk));
    assert.deepEqual(Object.keys(bulk.failed_by_reason), ['http_500'], JSON.stringify(bulk));
    assert.equal(r.summary.verification.found, r.summary.verification.expected, 'every acknowledged document is there');
    assert.equal(r.summary.verification.found, bulk.docs_ok);
    assert.match(srv.stderr(), /TEST-SERVER LIMIT REACHED: ravendb-testserver keeps documents in memory and holds \d+ MB, its limit -max-stored-mb=8/);
    // What it kept: at most the limit (documents of ~400 bytes + 160 counted each).
    assert.ok(bulk.docs_ok * 400 < 8 << 20, `${bulk.docs_ok} documents kept`);
    const rss = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${srv.proc.pid}/status`, 'utf8'))[1]);
    assert.ok(rss < 256 * 1024, `peak RSS ${rss} kB for an 8 MB limit`);
  } finally { await srv.stop(); }
});

// ---------------------------------------------------------------- scripts/run, hostile inputs
function scriptsRun(args, env = {}) {
  const results = mkdtempSync(path.join(tmpdir(), 'k6wp-hostile-'));
  const r = spawnSync(path.join(repoRoot, 'scripts', 'run'), [scenario, ...args], {
    cwd: repoRoot, encoding: 'utf8', timeout: 120000,
    env: { ...process.env, K6_NO_USAGE_REPORT: 'true', WP_INFLUX: '0', RESULTS_DIR: results, ...env },
  });
  // Run folders only (results/ also gets latest -> the last run, and history.csv).
  const runs = readdirSync(results, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
  const dir = runs.length === 1 ? path.join(results, runs[0]) : null;
  return { ...r, dir, files: dir ? readdirSync(dir).sort() : runs };
}

test('scripts/run: a secret given with -e is refused before k6 starts (107, one line, value never shown)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-fakek6-'));
  const marker = path.join(dir, 'started');
  const fake = path.join(dir, 'k6');
  writeFileSync(fake, `#!/bin/sh\ntouch '${marker}'\nexit 0\n`);
  chmodSync(fake, 0o755);
  const canary = 'Canary-Secret-7f3a';
  for (const [args, name] of [
    [['-e', `PG_URL=postgres://u:${canary}@127.0.0.1:1/x`], 'PG_URL'],
    [[`-ePG_URL=postgres://${canary}@127.0.0.1:1/x`], 'PG_URL'],
    [['--env', `ARANGO_PASSWORD=${canary}`], 'ARANGO_PASSWORD'],
    [[`--env=RAVEN_URL=http://${canary}@127.0.0.1:1`], 'RAVEN_URL'],
    [['-e', 'DOCS=400', '-e', `K6_INFLUXDB_PASSWORD=${canary}`], 'K6_INFLUXDB_PASSWORD'],
  ]) {
    const r = scriptsRun(args, { K6: fake });
    assert.equal(r.status, 107, `${args}: ${r.stderr}`);
    assert.equal(r.stderr, `scripts/run: ${name} given with -e is not allowed: a secret on the command line is visible to every local user in the process list for the whole run; export ${name}=… in the environment (or keep it in .run/env) and run again without -e ${name}\n`);
    assert.doesNotMatch(r.stdout + r.stderr + readFileSync(path.join(r.dir, 'junit.xml'), 'utf8'), new RegExp(canary));
    assert.deepEqual(r.files, ['junit.xml']);
    assert.equal(existsSync(marker), false, 'k6 never started');
  }
  const d = spawnSync(path.join(repoRoot, 'scripts', 'run-distributed'), ['2', scenario, '-e', `PG_URL=postgres://u:${canary}@h/x`], { cwd: repoRoot, encoding: 'utf8', env: { ...process.env, K6: fake } });
  assert.equal(d.status, 107);
  assert.match(d.stderr, /^scripts\/run-distributed: PG_URL given with -e is not allowed: .*\n$/);
  assert.equal(existsSync(marker), false);
});

test('scripts/run: a K6 that is not an executable is one line and exit 107 (not a shell error and 127)', () => {
  for (const k6 of ['/nonexistent/k6', 'no-such-k6-command', repoRoot]) {
    const r = scriptsRun([], { K6: k6 });
    assert.equal(r.status, 107, r.stderr);
    assert.equal(r.stderr, `scripts/run: K6="${k6}" is not allowed: an executable k6 binary (make k6 installs the pinned official one as bin/k6, the default)\n`);
    assert.deepEqual(r.files, ['junit.xml']);
  }
});

// A scenario file that does not exist is bad input like any other: one line naming it and the
// scenarios there are, 107 (scripts/run said so with exit 2; run-distributed left it to k6: 255).
test('scripts/run, run-distributed, verify-distributed: a scenario that does not exist is one line and exit 107', () => {
  for (const [cmd, pre] of [['run', []], ['run-distributed', ['2']], ['verify-distributed', []]]) {
    const r = spawnSync(path.join(repoRoot, 'scripts', cmd), [...pre, 'scenarios/postgres/no-such.js', '-e', 'RUN_ID=abc'], { cwd: repoRoot, encoding: 'utf8', env: { ...process.env, WP_INFLUX: '0' } });
    assert.equal(r.status, 107, r.stderr);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, new RegExp(`^scripts/${cmd}: scenario "scenarios/postgres/no-such\\.js" is not allowed: no such file; one of scenarios/\\S+\\.js( scenarios/\\S+\\.js)*\n$`));
    assert.ok(r.stderr.includes('scenarios/postgres/insert-vs-overwrite.js'), r.stderr);
  }
});

test('scripts/run: a reporter module k6 refuses leaves no generated wrapper behind', { timeout: 120000 }, () => {
  const notModule = path.join(mkdtempSync(path.join(tmpdir(), 'k6wp-rep-')), 'bundle.js');
  writeFileSync(notModule, 'this is not javascript (\n');
  const r = scriptsRun(['-q', '-e', 'HTML_REPORTER=k6-reporter', '-e', `K6_REPORTER_URL=file://${notModule}`], { PG_URL: localEnv().PG_URL });
  assert.equal(r.status, 107, r.stderr);
  assert.deepEqual(r.files, ['junit.xml'], 'only the junit.xml saying why');
  const bad = scriptsRun(['-e', 'HTML_REPORTER=k6-reporter', '-e', 'K6_REPORTER_URL=http://insecure.invalid/x.js']);
  assert.equal(bad.status, 107);
  assert.deepEqual(bad.files, ['junit.xml']);
});

test('scripts/run: INFLUX_URL is validated before it is asked anything; credentials in it are never shown', { timeout: 120000 }, async () => {
  let hits = 0;
  const srv = http.createServer((req, res) => { hits += 1; res.writeHead(204); res.end(); });
  await new Promise((res) => srv.listen(0, '127.0.0.1', res));
  const { port } = srv.address();
  try {
    const canary = 'Canary-Influx-Pw-9b1';
    const withPw = scriptsRun(['-e', 'DOCS=400'], { WP_INFLUX: '1', INFLUX_URL: `http://u:${canary}@127.0.0.1:${port}/k6` });
    assert.equal(withPw.status, 107, withPw.stderr);
    assert.equal(withPw.stderr.trim().split('\n').length, 1, withPw.stderr);
    assert.match(withPw.stderr, /INFLUX_URL=\\?"http:\/\/\*\*\*@127\.0\.0\.1:\d+\/k6\\?" is not allowed/);
    assert.doesNotMatch(withPw.stderr + readFileSync(path.join(withPw.dir, 'junit.xml'), 'utf8'), new RegExp(canary));
    const noDb = scriptsRun(['-e', 'DOCS=400'], { WP_INFLUX: '1', INFLUX_URL: `http://127.0.0.1:${port}` });
    assert.equal(noDb.status, 107, noDb.stderr);
    assert.match(noDb.stderr, /INFLUX_URL=\\?"http:\/\/127\.0\.0\.1:\d+\\?" is not allowed: .*the path must name the database/);
    assert.equal(hits, 0, 'nothing was sent to a refused INFLUX_URL');
  } finally { srv.close(); }
});

// Issue 27 class 6, the wrappers' part: an empty value is not a value. RUN_ID= is unset (the
// wrapper generates one and k6 runs with that very id); a boolean takes exactly the values its
// refusal lists.
test('scripts/run: RUN_ID= is unset: one generated id for the folder, k6 and results/latest; WEB_DASHBOARD=yes is refused with the values it takes', { timeout: 120000 }, () => {
  const r = scriptsRun(['-q', '-e', 'RUN_ID=', '-e', 'DOCS=400', '-e', 'BATCH_SIZE=100', '-e', 'OVERWRITE_BATCHES=1', '-e', 'MIXED_BATCHES=1'], { PG_URL: localEnv().PG_URL });
  assert.equal(r.status, 0, r.stderr);
  const id = path.basename(r.dir);
  assert.match(id, /^\d{14}_[0-9a-f]{4}$/);
  assert.equal(JSON.parse(readFileSync(path.join(r.dir, 'summary.json'), 'utf8')).run_id, id, 'k6 ran with the folder\'s id');
  assert.equal(readFileSync(path.join(path.dirname(r.dir), 'latest', 'summary.json'), 'utf8'), readFileSync(path.join(r.dir, 'summary.json'), 'utf8'));
  for (const v of ['yes', 'no', 'on']) {
    const b = scriptsRun(['-e', `WEB_DASHBOARD=${v}`]);
    assert.equal(b.status, 107);
    assert.equal(b.stderr, `scripts/run: WEB_DASHBOARD="${v}" is not allowed: one of 1, 0, true, false\n`);
  }
});

// The wrappers fill only unset variables from .run/env: exported empty, INFLUX_URL means no
// InfluxDB and PG_URL is refused, as in k6 — not the private services of `make up` behind the
// user's back. The same run with INFLUX_URL unset streams (the check can fail).
test('scripts/run: INFLUX_URL= exported empty streams nowhere (unset streams to .run/env\'s); PG_URL= exported empty is one line "PG_URL is empty"', { timeout: 180000 }, async () => {
  const local = localEnv();
  assert.ok(local.INFLUX_URL, '.run/env names an InfluxDB (make up)');
  const knobs = ['-q', '-e', 'DOCS=400', '-e', 'BATCH_SIZE=100', '-e', 'OVERWRITE_BATCHES=1', '-e', 'MIXED_BATCHES=1'];
  const series = async (id) => (((await influxQuery(local.INFLUX_URL, `SHOW SERIES WHERE "testid" = '${id}'`)).results[0].series || [])[0] || { values: [] }).values.length;
  const empty = scriptsRun(knobs, { PG_URL: local.PG_URL, WP_INFLUX: '1', INFLUX_URL: '' });
  assert.equal(empty.status, 0, empty.stderr);
  assert.equal(await series(path.basename(empty.dir)), 0, 'INFLUX_URL= : nothing streamed');
  const unset = scriptsRun(knobs, { PG_URL: local.PG_URL, WP_INFLUX: '1', INFLUX_URL: undefined });
  assert.equal(unset.status, 0, unset.stderr);
  assert.ok(await series(path.basename(unset.dir)) > 0, 'INFLUX_URL unset: .run/env\'s InfluxDB gets the run');
  const noPg = scriptsRun(knobs, { PG_URL: '' });
  assert.equal(noPg.status, 107, noPg.stderr);
  const lines = noPg.stderr.split('\n').filter((l) => /level=error|k6-writepath:/.test(l));
  assert.equal(lines.length, 1, noPg.stderr);
  assert.match(lines[0], /k6-writepath: PG_URL is empty: /);
  assert.doesNotMatch(noPg.stderr + noPg.stdout, new RegExp(new URL(local.PG_URL).password));
});

// A bare `bin/k6 run` cannot tell -e values from the environment in the scenario (k6 merges
// both into __ENV), so bin/k6 itself refuses a secret given with -e before k6 starts
// (xk6/clisecrets.go). Stock k6 cannot be taught this: docs/reliability.md says so.
// scripts/run reads k6's own flag grammar (scripts/common.sh wp_k6_args): every spelling k6
// accepts for -e is refused the same way; a plain `k6 run` cannot be taught this (docs/reliability.md).
test('scripts/run: a secret given with -e, in every spelling k6 reads, is one line and exit 107 before anything starts; every secret knob of lib/ is on its list', { timeout: 120000 }, () => {
  const canary = 'Canary-Cli-5e1';
  const run = (args) => spawnSync(path.join(repoRoot, 'scripts', 'run'), [args[args.length - 1], ...args.slice(0, -1)], { cwd: repoRoot, encoding: 'utf8', env: { ...process.env, K6_NO_USAGE_REPORT: 'true', WP_INFLUX: '0', HISTORY: '0', RESULTS_DIR: mkdtempSync(path.join(tmpdir(), 'k6wp-sec-')) } });
  const secrets = Object.keys(KNOBS).filter((k) => KNOBS[k].type === 'secret');
  assert.ok(secrets.includes('PG_URL') && secrets.includes('ARANGO_PASSWORD') && secrets.includes('WP_GATEWAY_TOKEN'), secrets.join(','));
  const cases = [
    ...secrets.map((k) => [[`-e`, `${k}=${canary}`, scenario], k]),
    [[`--env=ARANGO_URL=http://root:${canary}@127.0.0.1:1`, 'scenarios/arangodb/insert-vs-overwrite.js'], 'ARANGO_URL'],
    [[`-eRAVEN_URL=http://${canary}@127.0.0.1:1`, 'scenarios/ravendb/bulk-insert.js'], 'RAVEN_URL'],
    [['--env', `MY_API_TOKEN=${canary}`, scenario], 'MY_API_TOKEN'],
    [[`-e=PG_URL=postgres://u:${canary}@h/db`, scenario], 'PG_URL'],
    [['-qe', `PG_URL=postgres://u:${canary}@h/db`, scenario], 'PG_URL'],
    [[`-qePG_URL=postgres://u:${canary}@h/db`, scenario], 'PG_URL'],
    [['--log-output', 'stderr', '-e', `RUN_SECRET=${canary}${canary}`, scenario], 'RUN_SECRET'],
  ];
  for (const [args, name] of cases) {
    const r = run(args);
    assert.equal(r.status, 107, `${args}: ${r.stderr}`);
    assert.equal(r.stderr, `scripts/run: ${name} given with -e is not allowed: a secret on the command line is visible to every local user in the process list for the whole run; export ${name}=… in the environment (or keep it in .run/env) and run again without -e ${name}\n`);
    assert.equal(r.stdout, '');
    assert.doesNotMatch(r.stderr, new RegExp(canary));
  }
  // k6 archive takes placeholders with -e (scripts/k8s-archives); only runs are refused.
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-arch-'));
  const a = spawnSync(path.join(repoRoot, 'bin', 'k6'), ['archive', '--quiet', '-e', 'GATEWAY_URL=http://127.0.0.1:8765', '-O', path.join(dir, 'a.tar'), scenario], { cwd: repoRoot, encoding: 'utf8' });
  assert.equal(a.status, 0, a.stderr);
});

// Issue 27 class 6 in k6 itself (lib/parse.js emptyIs): a target's URL given empty is refused,
// not read as its local default; a boolean takes exactly the values its refusal lists.
test('empty is not a value: ARANGO_URL= and RAVEN_URL= refused before any request, KEEP=yes refused naming 1, 0, true, false', { timeout: 60000 }, async () => {
  for (const [scn, name] of [['scenarios/arangodb/insert-vs-overwrite.js', 'ARANGO_URL'], ['scenarios/ravendb/bulk-insert.js', 'RAVEN_URL']]) {
    const r = await runK6(scn, { [name]: '' }, { timeoutMs: 60000 });
    assert.equal(r.code, 107, r.stderr);
    const lines = r.stderr.split('\n').filter((l) => /level=error/.test(l));
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0], new RegExp(`k6-writepath: ${name} is empty: give the server's URL, e\\.g\\. http://127\\.0\\.0\\.1:\\d+ \\(an empty value is refused, not read as the default`));
  }
  for (const v of ['yes', 'no', 'on', 'TRUE']) {
    const r = await runK6(scenario, { PG_URL: localEnv().PG_URL, KEEP: v }, { timeoutMs: 60000 });
    assert.equal(r.code, 107, r.stderr);
    assert.match(r.stderr, new RegExp(`KEEP=\\\\"${v}\\\\" is not allowed: one of 1, 0, true, false`));
  }
});

// Issue 27 class 5: a password typed as the user name comes back in the server's own error text
// ('password authentication failed for user "…"'); whatever was typed as a credential is
// hidden in every line the pack writes or relays (lib/urls.js redact, typedCredentials).
// The gateway hides a lone user info (it may be a password typed where the user goes); beside a
// password the user name is no secret and is shown, so the refusal says whose credentials failed.
test('a password typed as the user name of PG_URL never comes back through the server\'s error text; beside a password the user is named', { timeout: 60000 }, async () => {
  const real = new URL(localEnv().PG_URL);
  for (const [typed, user] of [['Canary-AsUser-4d2', '(password)'], ['Canary-User-77b:Canary-Pw-77b', 'Canary-User-77b']]) {
    const u = new URL(real.href);
    [u.username, u.password] = typed.split(':').concat('').slice(0, 2);
    const r = await runK6(scenario, { PG_URL: u.href }, { timeoutMs: 60000 });
    assert.equal(r.code, 108, r.stderr);
    const all = `${r.stdout}${r.stderr}${r.junit || ''}${r.summary ? JSON.stringify(r.summary) : ''}`;
    assert.match(r.stderr, new RegExp(`PG_URL: PostgreSQL refused the credentials: .*password authentication failed for user \\\\"${user.replace(/[()]/g, '\\$&')}\\\\"`));
    assert.doesNotMatch(all, /Canary-AsUser|Canary-Pw/);
  }
});

// k6 ends the line of an abort raised in a VU's iteration with the JavaScript frame it met; bin/k6's
// own abort avoids that, but the HTTP scenarios do not import its module (they run on stock k6
// too). scripts/run cuts the line back to the pack's message on the terminal and in junit.xml.
test('scripts/run: ArangoDB killed for good — the give-up line reaches the terminal and junit.xml as one line without k6\'s JavaScript frame', { timeout: 180000 }, async () => {
  const srv = await startTestServer('arangodb', ['-no-auth']);
  const results = mkdtempSync(path.join(tmpdir(), 'k6wp-hostile-'));
  const child = spawn(path.join(repoRoot, 'scripts', 'run'), ['scenarios/arangodb/insert-vs-overwrite.js', '-q', ...['DOCS=20000', 'BATCH_SIZE=100', 'OVERWRITE_BATCHES=200000', 'MIXED_BATCHES=0', 'READBACK=0', 'GIVE_UP=3s', 'TIMEOUT=2s', 'RUN_ID=hostile_frame'].flatMap((kv) => ['-e', kv])],
    { cwd: repoRoot, env: { ...process.env, K6_NO_USAGE_REPORT: 'true', WP_INFLUX: '0', RESULTS_DIR: results, ARANGO_URL: srv.url } });
  let stderr = '';
  child.stdout.resume();
  child.stderr.on('data', (d) => { stderr += d; });
  const code = new Promise((resolve) => child.on('exit', resolve));
  for (let i = 0; i < 600 && !/writing to database/.test(stderr); i++) await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 1500));
  srv.proc.kill('SIGKILL');
  assert.equal(await code, 108, stderr);
  const aborts = stderr.split('\n').filter((l) => /level=error msg="test aborted: /.test(l));
  assert.equal(aborts.length, 1, stderr);
  assert.match(aborts[0], /msg="test aborted: arangodb answered no batch of this VU for 3s \(GIVE_UP; .*drop it with curl .*k6wp_hostile_frame"$/);
  assert.doesNotMatch(stderr, /file:\/\/\/|\bat stop \(/);
  const junit = readFileSync(path.join(results, 'hostile_frame', 'junit.xml'), 'utf8');
  assert.doesNotMatch(junit, /file:\/\/\//);
});
