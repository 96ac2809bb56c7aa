// Bad input, table-driven: every knob of KNOBS (iterated, so a new knob is covered the day it
// is added) with values of the wrong kind, contradictory combinations, and broken threshold
// files. Each must stop k6 before anything is written, with ONE error line that names the
// knob, the bad value and what is allowed, and exit code 107 (108 when k6 aborts at run time).
// An unreachable database must be reported within 10 seconds without printing the password.
import { shown } from '../../lib/parse.js';
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { KNOBS } from '../../lib/config.js';
import { durationMs } from '../../lib/parse.js';
import { urlProblem } from '../../lib/urls.js';
import { localEnv, psql, runK6, uniqueRunId, runWrapper } from '../helpers/k6.mjs';
import { repoRoot, startTestServer } from '../helpers/testserver.mjs';

const scenario = 'scenarios/postgres/insert-vs-overwrite.js';
const TARGET = 'postgres';
const { PG_URL } = localEnv();
const runIds = [];

// k6 prints a thrown string as  level=error msg="k6-writepath: …\n" hint="script exception"
// (escaped as k6 writes it: messageOf below reads it); the wrappers' refusals are plain lines.
function errorLines(stderr) {
  return stderr.split('\n').filter((l) => /level=error/.test(l) || /^(k6-writepath|scripts\/[a-z-]+): /.test(l));
}
function messageOf(line) {
  const m = /msg="((?:[^"\\]|\\.)*)"/.exec(line);
  return m ? m[1].replace(/\\n$/, '').replace(/\\"/g, '"').replace(/\\\\/g, '\\') : line;
}

// Wrong values for a knob, derived from its spec; values the spec would accept are dropped.
export function badValues(name, spec) {
  const v = [];
  switch (spec.type) {
    case 'int':
      v.push('abc', '1.5', '12abc', String(spec.min - 1), String(spec.max + 1), '99999999999999999999');
      if (spec.min > 0) v.push('0');
      if (spec.min >= 0) v.push('-1');
      break;
    case 'number':
      v.push('abc', '0.5.5', String(spec.min - 1), String(spec.max + 1), '-1');
      break;
    case 'enum':
      v.push('bogus', spec.values[0].toUpperCase(), ` ${spec.values[0]}`);
      break;
    case 'bool':
      v.push('maybe', '2');
      break;
    case 'duration':
      v.push('10', '-5s', '0s', 'fast', '5 s', '10000000h');
      if (spec.min && durationMs(spec.min) > 1) v.push('1ms');
      break;
    case 'url':
      v.push('notaurl', 'ftp://h:1/k6', 'http://h:99999/k6', 'http://h:port/k6', 'http://[::1/k6', 'http://[1::2::3]:1/k6', 'http://h:1/k6#x');
      break;
    case 'string':
      v.push('Bad Name!', 'x'.repeat(100), 'ÄÖÜ', 'a;drop');
      break;
    case 'stages':
      // the syntax, a target above the cap, and stages that hold no work
      v.push('Bad Name!', 'x'.repeat(100), 'a;drop', `10s:${spec.max + 1}`, '0s:1');
      break;
    case 'list':
      v.push(...(spec.itemPattern ? ['bad name', '1X,Y'] : ['bogus', ',']));
      break;
    case 'secret':
      break; // PG_URL is tested below (missing, malformed, unreachable)
    default:
      assert.fail(`bad-input.test.mjs does not know knob type ${spec.type} of ${name}: add wrong values for it`);
  }
  return [...new Set(v)].filter((x) => {
    if (spec.type === 'int') return !(/^-?\d+$/.test(x) && Number(x) >= spec.min && Number(x) <= spec.max);
    if (spec.type === 'number') return !(/^-?\d+(\.\d+)?$/.test(x) && Number(x) >= spec.min && Number(x) <= spec.max);
    if (spec.type === 'enum') return !spec.values.includes(x);
    if (spec.type === 'string') return !spec.pattern.test(x);
    if (spec.type === 'url') return urlProblem(x, spec) !== null;
    return true;
  });
}

async function expectRejected(env, { code = 107, mentions = [], runId = uniqueRunId('bad') } = {}) {
  runIds.push(runId);
  const r = await runK6(scenario, { PG_URL, ...env }, { runId, timeoutMs: 60000 });
  const lines = errorLines(r.stderr);
  const why = `env ${JSON.stringify(env)}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;
  assert.equal(r.code, code, `exit code ${code}: ${why}`);
  assert.equal(lines.length, 1, `exactly one error line: ${why}`);
  const msg = messageOf(lines[0]);
  for (const m of mentions) {
    if (m instanceof RegExp) assert.match(msg, m, why); else assert.ok(msg.includes(m), `"${m}" in: ${msg}`);
  }
  assert.equal(r.summary, null, 'no summary.json: the run never started');
  return msg;
}

// Nothing was written: none of the runs above left a k6wp_<run id> table behind.
after(async () => {
  const list = runIds.map((id) => `'k6wp_${id}'`).join(',');
  const left = await psql(PG_URL, `SELECT string_agg(relname, ',') FROM pg_class WHERE relname IN (${list})`);
  assert.equal(left, '', `tables written by rejected runs: ${left}`);
});

// Knobs declared wrapper: true are read by scripts/run or make, not by k6 (test/integration/run-knobs.test.mjs).
const knobs = Object.entries(KNOBS).filter(([, spec]) => (!spec.target || spec.target === TARGET) && !spec.wrapper);

test('the table covers every knob of this target', () => {
  const covered = knobs.filter(([name, spec]) => badValues(name, spec).length > 0 || spec.type === 'secret').map(([n]) => n);
  const notCoverable = knobs.filter(([name, spec]) => !covered.includes(name)).map(([n]) => n);
  // THRESHOLDS and RESULTS_DIR accept any path: their bad input is a bad file, tested below.
  assert.deepEqual(notCoverable.sort(), ['RESULTS_DIR', 'THRESHOLDS']);
});

for (const [name, spec] of knobs) {
  const values = badValues(name, spec);
  if (values.length === 0) continue;
  test(`${name}: wrong values are refused with one line naming ${name}, the value and what is allowed`, async () => {
    for (const value of values) {
      const env = { [name]: value };
      // A bad RUN_ID cannot be a run id: let the helper name its result folder.
      const runId = name === 'RUN_ID' ? uniqueRunId('bad') : undefined;
      // The value as refusals show it (lib/parse.js shown: quoted, escaped, a long one cut).
      const msg = await expectRejected(env, { runId, mentions: [`${name}=`, shown(value)] });
      if (spec.type !== 'list') {
        assert.match(msg, /is not allowed: \S/, `allowed values named: ${msg}`);
        if (spec.type === 'enum') for (const a of spec.values) assert.ok(msg.includes(a), `allowed value ${a} in: ${msg}`);
        if (spec.type === 'int' || spec.type === 'number') assert.ok(msg.includes(String(spec.min)) && msg.includes(String(spec.max)), msg);
      }
    }
  });
}

test('contradictory combinations are refused before anything is written', async () => {
  const rows = [
    [{ PHASES: 'overwrite,load' }, ['PHASES="overwrite,load"', 'load, overwrite, mixed']],
    [{ PHASES: 'load,bogus' }, ['PHASES="load,bogus"', 'load, overwrite, mixed']],
    [{ PHASES: 'load,load' }, ['PHASES="load,load"', 'at most once']],
    [{ PHASES: ',' }, ['PHASES=', 'without blank items']],
    [{ PHASES: 'overwrite' }, ['PHASES=overwrite', 'need the load phase']],
    [{ PHASES: 'mixed' }, ['PHASES=mixed', 'need the load phase']],
    [{ DOCS: '1000', BATCH_SIZE: '500', VUS: '3' }, ['VUS=3', 'at most 2']],
    [{ DOCS: '1500', BATCH_SIZE: '1000', VUS: '2' }, ['BATCH_SIZE=1000', 'DOCS=1500', 'VUS=2']],
    [{ DOCS: '1500', BATCH_SIZE: '1000', VUS: '2', OVERWRITE_BATCHES: '0', MIXED_NEW_PERCENT: '10' }, ['MIXED_NEW_PERCENT=10', 'only 500']],
    [{ MIXED_NEW_PERCENT: '101' }, ['MIXED_NEW_PERCENT="101"', 'from 0 to 100']],
  ];
  for (const [env, mentions] of rows) await expectRejected(env, { mentions });
  // Without RUN_ID the run would make up a new name, so there is nothing to reuse.
  await expectRejected({ REUSE: '1', RUN_ID: undefined }, { mentions: ['REUSE=1', 'RUN_ID'] });
});

test('malformed or missing threshold files are refused with the file and the fault named', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-thresholds-'));
  const file = (n, text) => { const p = path.join(dir, n); writeFileSync(p, text); return p; };
  const rows = [
    [file('invalid.json', '{"phases": {'), ['is not valid JSON']],
    [file('array.json', '[]'), ['must hold a JSON object']],
    [file('unknown-phase.json', '{"phases": {"warmup": {}}}'), ['unknown phase "warmup"', 'load, overwrite, mixed']],
    [file('unknown-key.json', '{"phases": {"load": {"p95": 5}}}'), ['phases.load.p95 is unknown', 'batch_p95_ms']],
    [file('unknown-top.json', '{"phases": {}, "limits": 1}'), ['unknown key "limits"', 'phases, stages, verify']],
    [file('negative.json', '{"phases": {"load": {"batch_p95_ms": -1}}}'), ['batch_p95_ms=-1', '>= 0']],
    [file('wrong-type.json', '{"phases": {"load": {"failed_docs_max": "0"}}}'), ['failed_docs_max="0"', '>= 0']],
    [file('rate.json', '{"phases": {"load": {"failed_batches_rate_max": 2}}}'), ['failed_batches_rate_max=2', 'from 0 to 1']],
    [file('abort.json', '{"phases": {"load": {"abort_on_fail": "yes"}}}'), ['abort_on_fail="yes"', 'true or false']],
    [file('verify.json', '{"phases": {}, "verify": "no"}'), ['"verify" must be true or false']],
    [path.join(dir, 'missing.json'), ['cannot read the file', 'no such file']],
  ];
  for (const [p, mentions] of rows) await expectRejected({ THRESHOLDS: p }, { mentions: [`THRESHOLDS=${p}`, ...mentions] });
});

test('PG_URL missing or malformed: one line, password never printed', async () => {
  await expectRejected({ PG_URL: undefined }, { mentions: ['PG_URL is not set'] });
  const msg = await expectRejected({ PG_URL: 'postgres://k6wp:Canary-Pw-4711@127.0.0.1:notaport/x' }, { mentions: ['PG_URL (value not shown) is not allowed', 'port must be a number from 1 to 65535'] });
  assert.doesNotMatch(msg, /Canary-Pw-4711/);
});

// The probe is bounded by the driver's connect_timeout (5 s, gateway/pg ConnectionURL, held by
// its Go test); these tests judge the outcome (the line, the code), the time is the machine's.
async function unreachableLine(url, t) {
  const t0 = Date.now();
  const msg = await expectRejected({ PG_URL: url }, { code: 108, mentions: ['PG_URL: cannot reach PostgreSQL'] });
  t.diagnostic(`reported after ${Date.now() - t0} ms: ${msg}`);
  assert.doesNotMatch(msg, /Canary-Pw-4711/);
  return msg;
}

test('an unreachable database (closed port) is reported in one line, 108', async (t) => {
  const closed = await new Promise((resolve) => { const s = net.createServer().listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); }); });
  const msg = await unreachableLine(`postgres://k6wp:Canary-Pw-4711@127.0.0.1:${closed}/writepath?sslmode=disable`, t);
  assert.match(msg, /connection refused/);
});

test('a database that accepts the connection and never answers: the driver\'s connect timeout ends the wait, one line, 108', async (t) => {
  const held = [];
  const silent = net.createServer((s) => { held.push(s); s.on('error', () => {}); });
  await new Promise((r) => silent.listen(0, '127.0.0.1', r));
  try {
    const msg = await unreachableLine(`postgres://k6wp:Canary-Pw-4711@127.0.0.1:${silent.address().port}/writepath?sslmode=disable`, t);
    assert.match(msg, /cannot reach PostgreSQL: read tcp [^ ]+: i\/o timeout/, "the driver's own timeout, not k6's setup timeout");
  } finally {
    for (const s of held) s.destroy();
    silent.close();
  }
});

// ---- Misspelt knobs, URLs, bounds, secrets (issue 14) ----

test('misspelt knobs stop the run with "did you mean …", the value never shown', async () => {
  const rows = [['BATCHSIZE', 'BATCH_SIZE'], ['docs', 'DOCS'], ['PG_INDEX', 'PG_INDEXES'], ['TIME_OUT', 'TIMEOUT'], ['ARANGO_PASS', 'ARANGO_PASSWORD']];
  for (const [name, meant] of rows) {
    const msg = await expectRejected({ [name]: 'Canary-Pw-4711' }, { mentions: [`${name} is not a knob of k6-writepath: did you mean ${meant}?`, 'IGNORE_ENV'] });
    assert.doesNotMatch(msg, /Canary-Pw-4711/);
  }
  await expectRejected({ PG_HOST: 'db' }, { mentions: ['PG_HOST is not a knob of k6-writepath: the PG_ knobs are PG_URL'] });
});

// scripts/k6-preflight runs the scenario's init (all validation) without writing anything.
function preflight(args, env = {}) {
  return spawnSync(path.join(repoRoot, 'scripts', 'k6-preflight'), [scenario, ...args],
    { cwd: repoRoot, encoding: 'utf8', env: { ...process.env, PG_URL, K6_NO_USAGE_REPORT: 'true', ...env } });
}

test('unrelated variables pass: ordinary names, and knob-like names listed in IGNORE_ENV', () => {
  const ok = preflight(['-e', 'IGNORE_ENV=PG_HOST,DOC'], { PG_HOST: 'db', DOC: 'x', HOME: '/root', CI: 'true', GITHUB_ACTIONS: 'true' });
  assert.equal(ok.status, 0, ok.stderr);
  assert.equal(preflight([], { DOC: 'x' }).status, 107);
});

test('PG_URL: foreign scheme, key=value string, port, IPv6, unencoded space: one line, 107, the password never shown nor sent', async () => {
  const seen = [];
  const listener = net.createServer((s) => { seen.push(s); s.destroy(); });
  await new Promise((r) => listener.listen(0, '127.0.0.1', r));
  const port = listener.address().port;
  try {
    const rows = [
      [`mysql://k6wp:Canary-Pw-4711@127.0.0.1:${port}/writepath`, 'scheme mysql:// is not allowed'],
      [`host=127.0.0.1 port=${port} user=k6wp password=Canary-Pw-4711 dbname=writepath`, 'key=value connection string is not accepted'],
      ['postgres://k6wp:Canary-Pw-4711@127.0.0.1:70000/writepath', 'port must be a number from 1 to 65535'],
      ['postgres://k6wp:Canary-Pw-4711@[::1:5432/writepath', 'host is malformed'],
      ['postgres://k6wp:Canary-Pw-4711@[12::34::56]:5432/writepath', 'IPv6 address'],
      [`postgres://k6wp:Canary Pw 4711@127.0.0.1:${port}/writepath`, 'must be percent-encoded'],
    ];
    for (const [url, why] of rows) {
      const msg = await expectRejected({ PG_URL: url }, { mentions: ['PG_URL (value not shown) is not allowed', why] });
      assert.doesNotMatch(msg, /Canary/);
    }
    assert.equal(seen.length, 0, 'nothing connected to the address in the refused URLs');
  } finally {
    listener.close();
  }
});

test('PG_URL with "@" and ":" in the password: the driver\'s error line does not show it', async () => {
  const u = new URL(PG_URL);
  const url = `postgres://${u.username}:Can@ry:Pw@4711@${u.host}${u.pathname}?sslmode=disable`;
  const msg = await expectRejected({ PG_URL: url }, { code: 108, mentions: ['PG_URL'] });
  assert.doesNotMatch(msg, /Can@ry|ry:Pw|Pw@4711|4711/);
});

test('RAVEN_URL / ARANGO_URL with user:password: refused, the password never shown', async () => {
  for (const [sc, knob] of [['scenarios/ravendb/bulk-insert.js', 'RAVEN_URL'], ['scenarios/arangodb/insert-vs-overwrite.js', 'ARANGO_URL']]) {
    const runId = uniqueRunId('bad');
    const r = await runK6(sc, { [knob]: 'http://admin:Canary-Pw-4711@127.0.0.1:8080' }, { runId, timeoutMs: 60000 });
    assert.equal(r.code, 107, r.stderr);
    const lines = errorLines(r.stderr);
    assert.equal(lines.length, 1, r.stderr);
    assert.match(messageOf(lines[0]), new RegExp(`${knob}="http://\\*\\*\\*@127.0.0.1:8080" is not allowed: .*credentials in the URL are not accepted`));
    assert.doesNotMatch(r.stdout + r.stderr, /Canary-Pw-4711/);
  }
});

test('bounds: memory budget, empty ramps and stage targets, durations out of range, a missing RESULTS_DIR', async () => {
  // the plan itself is valid: only the client memory it needs is refused (lib/memory.js)
  await expectRejected({ BATCH_SIZE: '100000', DOC_BYTES: '100000', DOCS: '400000' },
    { mentions: [/^k6-writepath: MEMORY_BUDGET_MB=2048 is too small for this run: VUS=2 with BATCH_SIZE=100000 needs about \d+ MiB \(\d+ MiB for k6 and [\d.]+ MiB per VU; docs\/capacity.md "Memory"\); lower BATCH_SIZE to \d+, or raise MEMORY_BUDGET_MB to \d+ if the machine has it$/] });
  await expectRejected({ TIMEOUT: '1ms' }, { mentions: ['TIMEOUT="1ms" is not allowed: a duration from 100ms to 24h'] });
  await expectRejected({ MAX_DURATION: '10000000h' }, { mentions: ['MAX_DURATION="10000000h" is not allowed: a duration from 1s to 720h'] });
  await expectRejected({ RESULTS_DIR: path.join(tmpdir(), `k6wp-missing-${process.pid}`) }, { mentions: ['RESULTS_DIR=', 'is not allowed: an existing directory'] });
  for (const [stages, why] of [['0s:1', 'at least one stage with a duration above 0'], ['10s:0', 'at least one stage'], ['10s:5000', 'targets up to 1000 VUs']]) {
    const r = await runK6('scenarios/ravendb/bulk-insert.js', { STAGES: stages }, { timeoutMs: 60000 });
    assert.equal(r.code, 107, r.stderr);
    assert.equal(errorLines(r.stderr).length, 1, r.stderr);
    assert.ok(messageOf(errorLines(r.stderr)[0]).includes(`STAGES="${stages}" is not allowed: ${why}`), r.stderr);
  }
});

test('--http-debug (prints Authorization headers and login bodies) is refused without ALLOW_HTTP_DEBUG=1', async () => {
  // scripts/run refuses it before k6 starts (scripts/common.sh wp_cli_plan_flag): one line, 107;
  // K6_HTTP_DEBUG too, and every spelling k6 reads.
  for (const [args, env, shown] of [[['--http-debug=full'], {}, '--http-debug=full'], [['--http-debug'], {}, '--http-debug'], [[], { K6_HTTP_DEBUG: 'headers' }, 'K6_HTTP_DEBUG=headers']]) {
    const runId = uniqueRunId('bad');
    runIds.push(runId);
    const r = await runWrapper(scenario, { PG_URL, DOCS: '400', BATCH_SIZE: '100', ...env }, { runId, args, timeoutMs: 60000 });
    assert.equal(r.code, 107, r.stderr);
    assert.equal(r.stderr, `scripts/run: ${shown} is not allowed: it prints credentials (Authorization headers, login bodies) to the terminal; set ALLOW_HTTP_DEBUG=1 to accept that\n`);
  }
  const allowed = await runWrapper(scenario, { PG_URL, DOCS: '400', BATCH_SIZE: '100', OVERWRITE_BATCHES: '1', MIXED_BATCHES: '1', ALLOW_HTTP_DEBUG: '1' }, { args: ['--http-debug'], timeoutMs: 120000 });
  assert.equal(allowed.code, 0, allowed.stderr);
});

test('scripts/run: bad RUN_ID and unwritable RESULTS_DIR are bad input (107, one line, nothing but a failing junit.xml); a silent InfluxDB is said once', () => {
  const run = (args, env) => spawnSync(path.join(repoRoot, 'scripts', 'run'), [scenario, ...args],
    { cwd: repoRoot, encoding: 'utf8', timeout: 120000, env: { ...process.env, K6_NO_USAGE_REPORT: 'true', WP_INFLUX: '0', ...env } });
  const results = mkdtempSync(path.join(tmpdir(), 'k6wp-run-'));
  const badId = run(['-e', 'RUN_ID=Bad-Id'], { RESULTS_DIR: results });
  assert.equal(badId.status, 107, badId.stderr);
  assert.equal(badId.stderr.trim(), 'scripts/run: RUN_ID="Bad-Id" is not allowed: 1-32 characters a-z 0-9 _ (starting with a letter or digit)');
  const knob = run(['-e', 'DOCS=abc'], { RESULTS_DIR: path.join(results, 'fresh') });
  assert.equal(knob.status, 107, knob.stderr);
  assert.equal(knob.stderr.trim().split('\n').length, 1, knob.stderr);
  assert.match(knob.stderr, /DOCS=\\"abc\\" is not allowed/);
  // Nothing is written to any database; the refused run leaves only a failing junit.xml
  // saying why (pipelines show no report otherwise: docs/results.md, "In a pipeline").
  assert.deepEqual(readdirSync(results), ['fresh'], 'no folder for a refused RUN_ID');
  const runs = readdirSync(path.join(results, 'fresh')).filter((f) => f !== 'latest');
  assert.equal(runs.length, 1);
  assert.deepEqual(readdirSync(path.join(results, 'fresh', runs[0])), ['junit.xml']);
  assert.match(readFileSync(path.join(results, 'fresh', runs[0], 'junit.xml'), 'utf8'), /<failure message="bad input[^"]*DOCS=/);
  const file = path.join(results, 'a-file');
  writeFileSync(file, '');
  const unwritable = run(['-e', 'DOCS=400', '-e', 'BATCH_SIZE=100'], { RESULTS_DIR: path.join(file, 'sub') });
  assert.equal(unwritable.status, 107);
  assert.match(unwritable.stderr.trim(), /^scripts\/run: RESULTS_DIR=".*a-file\/sub" is not allowed: a directory this user can write \(mkdir: .*Not a directory\)$/);
  // An InfluxDB that does not answer: one line saying the metrics are not stored, the run goes on.
  const silent = run(['-q', '-e', 'DOCS=400', '-e', 'BATCH_SIZE=100', '-e', 'OVERWRITE_BATCHES=1', '-e', 'MIXED_BATCHES=1'],
    { RESULTS_DIR: results, WP_INFLUX: '1', INFLUX_URL: 'http://127.0.0.1:9/k6' });
  assert.equal(silent.status, 0, silent.stderr);
  assert.equal(silent.stderr.split('\n').filter((l) => /InfluxDB/.test(l)).length, 1, silent.stderr);
  assert.match(silent.stderr, /scripts\/run: InfluxDB at http:\/\/127\.0\.0\.1:9 does not answer .*: this run's metrics are NOT stored in InfluxDB/);
});

test('scripts/run-distributed: fewer VUs than instances is refused up front (107), no instance started', () => {
  const results = mkdtempSync(path.join(tmpdir(), 'k6wp-dist-'));
  const r = spawnSync(path.join(repoRoot, 'scripts', 'run-distributed'), ['3', scenario, '-e', 'DOCS=4000', '-e', 'VUS=2'],
    { cwd: repoRoot, encoding: 'utf8', timeout: 60000, env: { ...process.env, RESULTS_DIR: results, K6_NO_USAGE_REPORT: 'true' } });
  assert.equal(r.status, 107, r.stderr);
  assert.equal(r.stderr.trim(), 'scripts/run-distributed: N=3 is not allowed with this run\'s 2 VUs: every instance needs at least one VU; raise VUS (or the STAGES targets) to 3 or more, or run fewer instances');
  assert.deepEqual(readdirSync(results), []);
});

// What k6's own --http-debug prints (k6 v1.8.1), the reason for the guard: on ArangoDB the
// Authorization header of every request (Basic = user:password in base64), and with =full the
// JWT login body with the password in clear. Refused without ALLOW_HTTP_DEBUG=1.
test('--http-debug on ArangoDB reveals credentials (checked), so it is refused unless allowed', async () => {
  const PASSWORD = 'Canary-Arango-Pw-4711';
  const srv = await startTestServer('arangodb', ['-root-password', PASSWORD]);
  const basic = Buffer.from(`root:${PASSWORD}`).toString('base64');
  const e1 = 'scenarios/arangodb/insert-vs-overwrite.js';
  const knobs = { ARANGO_URL: srv.url, ARANGO_PASSWORD: PASSWORD, INFLUX_URL: undefined, DOCS: '200', BATCH_SIZE: '100', OVERWRITE_BATCHES: '1', MIXED_BATCHES: '1' };
  try {
    const refused = await runWrapper(e1, knobs, { args: ['--http-debug=full'], timeoutMs: 60000 });
    assert.equal(refused.code, 107, refused.stderr);
    assert.match(refused.stderr, /^scripts\/run: --http-debug=full is not allowed: [^\n]*ALLOW_HTTP_DEBUG=1 to accept that\n$/);
    assert.ok(!(refused.stdout + refused.stderr).includes(basic) && !(refused.stdout + refused.stderr).includes(PASSWORD));
    // A plain `k6 run` has no such check before it starts: the scenario refuses in setup (exit
    // 108), the flags that bend the plan as well, before anything is created.
    for (const args of [['--http-debug=full'], ['-i', '3']]) {
      const runId = uniqueRunId('bad');
      const stockRun = await runK6(e1, knobs, { args, runId, timeoutMs: 60000 });
      assert.equal(stockRun.code, 108, stockRun.stderr);
      assert.equal(stockRun.stderr.split('\n').filter((l) => /level=error/.test(l)).length, 1, stockRun.stderr);
      assert.match(stockRun.stderr, args[0] === '-i' ? /msg="test aborted: k6-writepath: the run's scenarios differ from what the knobs plan/ : /msg="test aborted: k6-writepath: --http-debug=full is not allowed/);
      const dbs = await (await fetch(`${srv.url}/_api/database`, { headers: { Authorization: `Basic ${basic}` } })).json();
      assert.ok(!dbs.result.some((n) => n.includes(runId)), 'nothing created');
    }
    const headers = await runK6(e1, { ...knobs, ALLOW_HTTP_DEBUG: '1' }, { args: ['--http-debug'], timeoutMs: 120000 });
    assert.equal(headers.code, 0, headers.stderr);
    assert.ok((headers.stdout + headers.stderr).includes(`Authorization: Basic ${basic}`), 'k6 prints the Basic credentials');
    const full = await runK6(e1, { ...knobs, ALLOW_HTTP_DEBUG: '1', ARANGO_AUTH: 'jwt' }, { args: ['--http-debug=full'], timeoutMs: 120000 });
    assert.equal(full.code, 0, full.stderr);
    assert.ok((full.stdout + full.stderr).includes(PASSWORD), 'k6 prints the login body with the password');
  } finally {
    await srv.stop();
  }
});
