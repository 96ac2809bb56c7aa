// Every way a run started by scripts/run can end leaves junit.xml and the summaries (or one line
// saying why not), stops its private gateway (exactly that pid) and exits with a code of
// docs/reliability.md "Exit codes": a SIGTERM to the wrapper (what `timeout` and CI send), a
// Ctrl-C (SIGINT to the whole process group), a second signal, a results folder on a full disk.
// Real k6, real PostgreSQL (make up), real gateway.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { localEnv, psql, startK6, uniqueRunId, TEST_RUN_SECRET } from '../helpers/k6.mjs';
import { startGateway } from '../helpers/gateway.mjs';
import { repoRoot } from '../helpers/testserver.mjs';

const { PG_URL } = localEnv();
const scenario = 'scenarios/postgres/contention.js';

// scripts/run in a process group of its own (as a shell starts a command), long enough to be
// interrupted: 60 s of contention, stopped by the test once the table exists.
function startRun(runId, { env = {}, args = [] } = {}) {
  const results = env.RESULTS_DIR || mkdtempSync(path.join(tmpdir(), 'k6wp-exit-'));
  const child = spawn(path.join(repoRoot, 'scripts', 'run'), [scenario, '--quiet', '-e', 'STAGES=60s:2', '-e', 'HOT_KEYS=10', ...args], {
    cwd: repoRoot, detached: true,
    env: { ...process.env, K6_NO_USAGE_REPORT: 'true', RESULTS_DIR: results, RUN_ID: runId, RUN_SECRET: TEST_RUN_SECRET, HISTORY: '0', WP_INFLUX: '0', ...env },
  });
  let stderr = '';
  const waiters = [];
  child.stderr.on('data', (d) => {
    stderr += d;
    for (const w of waiters.slice()) if (w.re.test(stderr)) { waiters.splice(waiters.indexOf(w), 1); w.resolve(); }
  });
  child.stdout.resume();
  const done = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stderr })));
  const waitFor = (re) => new Promise((resolve, reject) => {
    if (re.test(stderr)) { resolve(); return; }
    waiters.push({ re, resolve });
    done.then(() => reject(new Error(`scripts/run ended before printing ${re}:\n${stderr}`)));
  });
  return { child, dir: path.join(results, runId), results, done, waitFor };
}

// The private gateway scripts/run started: the wp-gateway process whose parent is the wrapper.
function gatewayPidOf(wrapperPid) {
  for (const p of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === wrapperPid && readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('wp-gateway')) return Number(p);
    } catch { /* gone meanwhile */ }
  }
  return null;
}
const alive = (pid) => { try { process.kill(pid, 0); return true; } catch { return false; } };

// The VUs increment (setup is over): the signal lands where these tests mean it to. A signal
// inside setup is another case (its own tests below).
async function incrementing(runId) {
  for (let i = 0; i < 600; i++) {
    const n = await psql(PG_URL, `SELECT coalesce(sum((doc->>'n')::bigint), 0) FROM public.k6wp_${runId}`).catch(() => '0');
    if (Number(String(n).trim()) > 0) return;
    await new Promise((res) => setTimeout(res, 100));
  }
}

async function tableOf(runId) {
  return (await psql(PG_URL, `SELECT count(*) FROM pg_tables WHERE tablename = 'k6wp_${runId}'`)).trim();
}

// One signal: k6 stops the VUs, runs teardown (the table is dropped) and handleSummary; the
// wrapper says so in one line, adds the 105 case to junit.xml, stops its gateway, exits 105.
async function oneSignal(t, { group, sig }) {
  const runId = uniqueRunId('exit');
  const r = startRun(runId);
  await r.waitFor(/writing to table/);
  await incrementing(runId);
  const gw = gatewayPidOf(r.child.pid);
  assert.ok(gw, 'the private gateway runs under scripts/run');
  process.kill(group ? -r.child.pid : r.child.pid, sig);
  const { code, stderr } = await r.done;
  assert.equal(code, 105, stderr);
  assert.match(stderr, new RegExp(`^scripts/run: ${sig} received: k6 stops the run, runs its teardown \\(if setup had finished\\) and writes the summaries \\(exit 105\\)`, 'm'));
  const junit = readFileSync(path.join(r.dir, 'junit.xml'), 'utf8');
  assert.match(junit, /name="k6 exit code 105"><failure message="interrupted \(SIGINT\/SIGTERM\): test run was aborted because k6 received a '(terminated|interrupt)' signal"/);
  assert.match(junit, /writepath_plan_remaining|writepath_/);
  const summary = JSON.parse(readFileSync(path.join(r.dir, 'summary.json'), 'utf8'));
  assert.equal(summary.run_id, runId);
  assert.ok(statSync(path.join(r.dir, 'summary.txt')).size > 0);
  // The VUs' ledgers were never written (the ledger step comes after the load): the report says
  // so and judges no counter, the run fails for the signal, not for a phantom increment.
  const text = readFileSync(path.join(r.dir, 'summary.txt'), 'utf8');
  assert.match(text, /^counters: 100000 read back, holding \d+; the VUs' ledgers are incomplete \(\d+ increments begun are in no stored ledger\): no lost or phantom judgement is possible — NOT VERIFIED$/m);
  assert.doesNotMatch(text + stderr, /phantom \d|counter_phantom|\d+ phantom/);
  assert.equal(summary.verification.increments_phantom, 0);
  // The HTML report makes no lost/phantom claim either.
  const html = readFileSync(path.join(r.dir, 'report.html'), 'utf8');
  assert.match(html, /the VUs' ledgers are incomplete/);
  assert.doesNotMatch(html, /\d+ increments lost|phantom \d|\d+ phantom/);
  assert.match(stderr, /the run stopped at [\d.]+ s, before the VUs stored their ledgers \(due at [\d.]+ s\): 0 of 2 ledgers found; 100000 counters read, holding \d+; no lost or phantom judgement is possible/);
  assert.match(stderr, new RegExp(`table public\\.k6wp_${runId}: dropped`));
  assert.equal(await tableOf(runId), '0');
  assert.equal(alive(gw), false, `gateway pid ${gw} still runs`);
  assert.deepEqual(readdirSync(r.dir).filter((f) => f.startsWith('.k6-stderr')), [], 'the wrapper\'s copy of k6\'s stderr is removed');
}

test('SIGTERM to scripts/run (as CI sends it): teardown and summaries run, junit.xml says interrupted, gateway stopped, exit 105', async (t) => {
  await oneSignal(t, { group: false, sig: 'SIGTERM' });
});

test('Ctrl-C (SIGINT to the whole process group, as a terminal sends it): k6 gets it once, teardown and summaries run, exit 105', async (t) => {
  await oneSignal(t, { group: true, sig: 'SIGINT' });
});

test('a second signal stops k6 at once: junit.xml still written, one line says the summaries are missing, gateway stopped, exit 105', async () => {
  const runId = uniqueRunId('exit2');
  const r = startRun(runId);
  try {
    await r.waitFor(/writing to table/);
    await incrementing(runId); // setup is over: a signal in setup is another test's case
    const gw = gatewayPidOf(r.child.pid);
    process.kill(r.child.pid, 'SIGTERM');
    await r.waitFor(/SIGTERM received/);
    process.kill(r.child.pid, 'SIGTERM');
    const { code, stderr } = await r.done;
    assert.equal(code, 105, stderr);
    // On a busy machine k6 may finish its teardown and summaries between the two signals; the
    // wrapper then ignores the second one (k6 has ended) and the run is a first-signal run.
    // Two signals close together may reach k6 as one (a pending signal is not queued twice):
    // then k6 finishes its teardown and summaries, and the wrapper has nothing missing to report.
    // A second signal that reaches k6 after its teardown ends it by the signal itself (the next
    // test): the line then says so.
    if (!existsSync(path.join(r.dir, 'summary.json'))) {
      assert.match(stderr, /^scripts\/run: a second signal \(SIGTERM\): passed on to k6, which stops at once unless it took both as one$/m);
      assert.match(stderr, /^scripts\/run: (the second signal stopped k6 before it wrote the summaries \((no |[a-z.]+ (empty|cut short))[^)]*\): teardown may not have finished, the run's objects may be left \(see the lines above\)|SIGTERM ended k6 after its teardown, before it had written the summaries \([^)]*\): k6 no longer takes signals then; the run counts as interrupted \(exit 105\))$/m);
    }
    const junit = readFileSync(path.join(r.dir, 'junit.xml'), 'utf8');
    assert.match(junit, /name="k6 exit code 105"><failure message="interrupted \(SIGINT\/SIGTERM\)/);
    assert.equal(alive(gw), false, `gateway pid ${gw} still runs`);
  } finally {
    // the run was stopped before its teardown: its table is the test's to drop
    await psql(PG_URL, `DROP TABLE IF EXISTS public.k6wp_${runId}`);
  }
});

// A relay between k6 and a real gateway that passes every request on, except the one hold(url,
// body) picks: that one it keeps, unanswered, until k6 goes away (relay.held resolves when it
// arrives). Nothing of it reaches the database. hold() returning 'answer' passes the request on
// and keeps the gateway's answer instead (relay.held resolves once the database has answered).
async function holdingRelay(gateUrl, hold) {
  const agent = new http.Agent({ keepAlive: true });
  let held;
  const relay = { held: new Promise((resolve) => { held = resolve; }) };
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const how = hold(req.url, body.toString());
      if (how === true) { held(); return; }
      const up = http.request(`${gateUrl}${req.url}`, { method: req.method, headers: req.headers, agent }, (ur) => {
        if (how === 'answer') { ur.resume(); ur.on('end', held); return; }
        res.writeHead(ur.statusCode, ur.headers);
        ur.pipe(res);
      });
      up.on('error', () => req.socket.destroy());
      up.end(body);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  relay.url = `http://127.0.0.1:${server.address().port}`;
  relay.close = () => { agent.destroy(); server.closeAllConnections(); return new Promise((resolve) => server.close(resolve)); };
  return relay;
}

// A signal inside the ledger step: VU 1's ledger is stored, VU 2's write is held by the relay
// until the signal ends the run. Teardown then finds one ledger of two: VU 2's acknowledged
// increments are in the counters and in no ledger, which a judgement would call phantom.
test('a signal inside the ledger step (one ledger stored, one not): no lost or phantom judgement, NOT VERIFIED, exit 105', async () => {
  const gateway = startGateway({ PG_URL });
  const relay = await holdingRelay(gateway.url, (url, body) => url.startsWith('/pg/') && body.includes('INSERT INTO') && body.includes('"L2"'));
  const runId = uniqueRunId('exitl');
  try {
    const r = startK6(scenario, { ...gateway.env({ STAGES: '2s:2', HOT_KEYS: '10', SPREAD_KEYS: '0' }), GATEWAY_URL: relay.url, PG_URL: undefined }, { runId });
    await relay.held;
    // VU 1's ledger stored (its write may still be on its way on a busy machine), then the signal.
    for (let i = 0; i < 1200 && (await psql(PG_URL, `SELECT count(*) FROM public.k6wp_${runId} WHERE key = 'L1'`)).trim() !== '1'; i++) await new Promise((res) => setTimeout(res, 50));
    r.child.kill('SIGTERM');
    const d = await r.done;
    assert.equal(d.code, 105, d.stderr);
    const out = d.stdout + d.stderr;
    assert.match(d.stderr, /the VUs' ledgers are incomplete \(the ledger step began at [\d.]+ s; a signal inside it, or a ledger write that failed, leaves the rest unstored\): 1 of 2 ledgers found; 10 counters read, holding \d+; no lost or phantom judgement is possible/);
    assert.match(d.stdout, /^counters: 10 read back, holding \d+; the VUs' ledgers are incomplete \([1-9]\d* increments begun are in no stored ledger\): no lost or phantom judgement is possible — NOT VERIFIED$/m);
    assert.doesNotMatch(out, /phantom [1-9]|[1-9]\d* phantom|lost [1-9]|[1-9]\d* lost/);
    const v = d.summary.verification;
    assert.deepEqual([v.increments_lost, v.increments_phantom, v.counters_ok, v.ok], [0, 0, false, false]);
    assert.ok(v.ledger_unstored > 0, JSON.stringify(v));
    assert.doesNotMatch(d.junit, /writepath_counter_phantom count==0"><failure/);
    assert.equal(await tableOf(runId), '0');
  } finally {
    await relay.close();
    gateway.stop();
    await psql(PG_URL, `DROP TABLE IF EXISTS public.k6wp_${runId}`);
  }
});

// A signal while k6 runs setup(): k6 stops setup, skips teardown and still calls handleSummary,
// without setup's data (grafana/k6 v1.1.0 internal/execution/scheduler.go Run,
// internal/cmd/run.go). The pack wrote no file then, and a table setup had made was named
// nowhere. The relay holds one request of setup (hold: see holdingRelay) until the signal.
async function signalInSetup(hold) {
  const gateway = startGateway({ PG_URL });
  const relay = await holdingRelay(gateway.url, hold);
  const runId = uniqueRunId('exits');
  const r = startRun(runId, { env: { GATEWAY_URL: relay.url, WP_GATEWAY_TOKEN: gateway.token, PG_URL: '' } });
  try {
    await Promise.race([relay.held, r.done]);
    process.kill(r.child.pid, 'SIGTERM');
    return { ...(await r.done), runId, dir: r.dir };
  } finally {
    await relay.close();
    gateway.stop();
  }
}

// What every signal in setup leaves: exit 105, summary.txt and junit.xml saying interrupted in
// setup and nothing measured (no summary.json: nothing to aggregate), and the wrapper's last line
// naming the table that may be left with its drop command. -> that command's SQL
function interruptedInSetup({ code, stderr, runId, dir }) {
  assert.equal(code, 105, stderr);
  const last = stderr.trim().split('\n').pop();
  const m = last.match(new RegExp(`^scripts/run: SIGTERM received: run ${runId} interrupted in setup \\(k6 stopped it from outside: a signal, or setupTimeout ran out; teardown does not run then\\): nothing was measured; table public\\.k6wp_${runId} may be left on the server .*drop it with psql "\\$PG_URL" -c '(DROP TABLE "public"\\.k6wp_${runId})' \\(exit 105\\)$`));
  assert.ok(m, `the last line: ${last}\n${stderr}`);
  const text = readFileSync(path.join(dir, 'summary.txt'), 'utf8');
  assert.match(text, new RegExp(`^k6-writepath · postgres · contention · run ${runId}$`, 'm'));
  assert.match(text, new RegExp(`^run ${runId} interrupted in setup .*: nothing was measured; table public\\.k6wp_${runId} may be left`, 'm'));
  assert.match(text, /^thresholds: not evaluated: the run did not start/m);
  assert.equal(existsSync(path.join(dir, 'summary.json')), false, 'no summary.json: nothing was measured');
  const junit = readFileSync(path.join(dir, 'junit.xml'), 'utf8');
  assert.match(junit, new RegExp(`name="setup"><failure message="run ${runId} interrupted in setup `));
  assert.match(junit, new RegExp(`name="k6 exit code 105"><failure message="interrupted \\(SIGINT/SIGTERM\\): SIGTERM received: run ${runId} interrupted in setup `));
  assert.doesNotMatch(junit, /name="writepath_/, 'no threshold case: nothing was measured');
  assert.doesNotMatch(stderr, /figures are lost|teardown may not have finished/);
  return m[1];
}

test('SIGTERM while setup waits for its first answer: summary.txt and junit.xml say interrupted in setup, the last line names the table that may be left and its drop command; no table made; exit 105 (a setup the pack stops itself is not called interrupted)', async () => {
  let first = true;
  const d = await signalInSetup(() => { const h = first; first = false; return h; });
  try {
    interruptedInSetup(d);
    assert.equal(await tableOf(d.runId), '0', 'the request that would have gone on never reached the database');
  } finally {
    await psql(PG_URL, `DROP TABLE IF EXISTS public.k6wp_${d.runId}`);
  }
  // The counterpart: setup stopped by the pack (an unreachable database): its own line, 108, no summary.
  const u = startRun(uniqueRunId('exitu'), { env: { PG_URL: 'postgres://u:p@127.0.0.1:9/x?sslmode=disable&connect_timeout=2' } });
  const { code, stderr } = await u.done;
  assert.equal(code, 108, stderr);
  assert.match(stderr, /msg="test aborted: PG_URL: cannot reach PostgreSQL/);
  assert.doesNotMatch(stderr, /interrupted in setup/);
  assert.deepEqual(readdirSync(u.dir), ['junit.xml']);
});

test('SIGTERM once setup has created the table and its marker (the answer held): the table is left, the last line names it and its drop command, which drops it; exit 105', async () => {
  let seen = false;
  const d = await signalInSetup((url, body) => { if (seen || !body.includes('CREATE TABLE')) return false; seen = true; return 'answer'; });
  try {
    const drop = interruptedInSetup(d);
    assert.equal(await tableOf(d.runId), '1', 'no teardown ran: the table stays');
    assert.match(await psql(PG_URL, `SELECT obj_description('public.k6wp_${d.runId}'::regclass)`), new RegExp(`"run":"${d.runId}".*"state":"running"`));
    await psql(PG_URL, drop);
    assert.equal(await tableOf(d.runId), '0', 'the command the line gives drops it');
  } finally {
    await psql(PG_URL, `DROP TABLE IF EXISTS public.k6wp_${d.runId}`);
  }
});

// A signal while k6 starts, before it takes signals (it loads the scenario first): k6 ends by the
// signal itself (143). The wrapper said "after its teardown": nothing had run. A K6 that waits
// before it starts the real one pins that moment.
test('a signal while k6 is starting (before it takes signals): exit 105, one line saying setup did not finish and nothing was measured, junit.xml, gateway stopped', async () => {
  const tmp = mkdtempSync(path.join(tmpdir(), 'k6wp-k6start-'));
  const ready = path.join(tmp, 'ready');
  const k6 = path.join(tmp, 'k6');
  writeFileSync(k6, `#!/usr/bin/env bash\n: > '${ready}'\nfor i in $(seq 600); do sleep 0.1; done\nexec '${path.join(repoRoot, 'bin', 'k6')}' "$@"\n`, { mode: 0o755 });
  const runId = uniqueRunId('exitk');
  const r = startRun(runId, { env: { K6: k6 } });
  try {
    for (let i = 0; i < 1200 && !existsSync(ready); i++) await new Promise((res) => setTimeout(res, 50));
    const gw = gatewayPidOf(r.child.pid);
    process.kill(r.child.pid, 'SIGTERM');
    const { code, stderr } = await r.done;
    assert.equal(code, 105, stderr);
    assert.match(stderr, /^scripts\/run: SIGTERM ended k6 at a moment it takes no signals \(while it loads the scenario, before setup; or once its run has ended\), and setup's line is not in its log: nothing was measured, no summary \(no summary\.txt, no summary\.json, no junit\.xml\); the run counts as interrupted \(exit 105\)$/m);
    assert.doesNotMatch(stderr, /after its teardown/);
    assert.match(readFileSync(path.join(r.dir, 'junit.xml'), 'utf8'), /name="k6 exit code 105"><failure message="interrupted \(SIGINT\/SIGTERM\): SIGTERM ended k6 at a moment it takes no signals/);
    assert.equal(alive(gw), false, `gateway pid ${gw} still runs`);
    assert.equal(await tableOf(runId), '0');
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

// A signal in a wrapper's first moments, before its trap was set, ended it by the signal itself
// (143, no line). A dirname on PATH that waits (the wrappers' first command) pins that moment
// (it goes on once the test says so or has removed its folder). only: the first call whose
// shell's command line holds this text waits (REPEAT's repetitions: -e REPEAT=1).
async function signalAtStart(wrapper, args, { only = '' } = {}) {
  const tmp = mkdtempSync(path.join(tmpdir(), 'k6wp-start-'));
  const ready = path.join(tmp, 'ready');
  const go = path.join(tmp, 'go');
  const real = spawnSync('bash', ['-c', 'command -v dirname'], { encoding: 'utf8' }).stdout.trim();
  writeFileSync(path.join(tmp, 'dirname'), `#!/bin/sh\nif [ ! -e '${go}' ] && tr '\\0' ' ' < /proc/$PPID/cmdline | grep -q -- '${only}'; then\n: > '${ready}'\nwhile [ -e '${ready}' ] && [ ! -e '${go}' ]; do sleep 0.05; done\nfi\nexec '${real}' "$@"\n`, { mode: 0o755 });
  const results = mkdtempSync(path.join(tmpdir(), 'k6wp-start-res-'));
  const child = spawn(path.join(repoRoot, 'scripts', wrapper), args, {
    cwd: repoRoot, detached: true,
    env: { ...process.env, PATH: `${tmp}:${process.env.PATH}`, RESULTS_DIR: results, RUN_SECRET: TEST_RUN_SECRET, HISTORY: '0', WP_INFLUX: '0' },
  });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  child.stdout.resume();
  const done = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stderr })));
  try {
    for (let i = 0; i < 1200 && !existsSync(ready); i++) await new Promise((res) => setTimeout(res, 50));
    process.kill(child.pid, 'SIGTERM');
    writeFileSync(go, '');
    const d = await done;
    return { ...d, results };
  } finally {
    writeFileSync(go, '');
    rmSync(tmp, { recursive: true, force: true });
  }
}

test('a signal in scripts/run\'s first moments (its first command): one line and exit 105, not 143; nothing written', async () => {
  const d = await signalAtStart('run', [scenario, '-e', `RUN_ID=${uniqueRunId('exitf')}`]);
  assert.deepEqual([d.code, d.signal], [105, null], d.stderr);
  assert.equal(d.stderr, 'scripts/run: SIGTERM received before k6 started: the run stopped, nothing was written\n');
  assert.deepEqual(readdirSync(d.results), [], 'nothing written');
});

test('a signal while a REPEAT repetition is in its first moments: the repetition ends with its line and 105 (not 143), the next does not start, exit 105', async () => {
  const runId = uniqueRunId('exitrf');
  const d = await signalAtStart('run', [scenario, '-e', `RUN_ID=${runId}`, '-e', 'REPEAT=2'], { only: 'REPEAT=1' });
  assert.deepEqual([d.code, d.signal], [105, null], d.stderr);
  assert.match(d.stderr, /^scripts\/run: SIGTERM received before k6 started: the run stopped, nothing was written$/m);
  assert.match(d.stderr, /^scripts\/run: repetition 1 of 2 ended with exit 105: the remaining repetitions do not run$/m);
  assert.doesNotMatch(d.stderr, /repetition 2 of 2/);
});

test('a signal in scripts/run-distributed\'s first moments, before any instance started: one line and exit 105, not 143; nothing written', async () => {
  const d = await signalAtStart('run-distributed', ['2', 'scenarios/postgres/insert-vs-overwrite.js', '-e', `RUN_ID=${uniqueRunId('exitfd')}`]);
  assert.deepEqual([d.code, d.signal], [105, null], d.stderr);
  assert.equal(d.stderr, 'scripts/run-distributed: SIGTERM received before any instance started: the run stopped, nothing was written\n');
  assert.deepEqual(readdirSync(d.results), [], 'nothing written');
});

// k6 releases its signal trap once teardown is done and only then writes the summaries: a signal
// passed on in that window ends k6 by the signal's default action (143), which scripts/run gave
// as its own exit code (a code docs/reliability.md does not know). Staged exactly: k6's debug
// line "Releasing signal trap..." (-v) is the moment the second SIGTERM is sent.
test('a second signal after k6 released its signal trap (teardown done, summaries not yet written): exit 105, not 143; one line, junit.xml, table dropped', async () => {
  const runId = uniqueRunId('exit3');
  const r = startRun(runId, { args: ['-v'] });
  try {
    await r.waitFor(/writing to table/);
    await incrementing(runId); // setup is over: a signal in setup is another test's case
    process.kill(r.child.pid, 'SIGTERM');
    await r.waitFor(/msg="Releasing signal trap\.\.\."/);
    process.kill(r.child.pid, 'SIGTERM');
    const { code, signal, stderr } = await r.done;
    assert.deepEqual([code, signal], [105, null], stderr);
    // Teardown had run: the table is gone, as after one signal.
    assert.match(stderr, new RegExp(`table public\\.k6wp_${runId}: dropped`));
    assert.equal(await tableOf(runId), '0');
    const junit = readFileSync(path.join(r.dir, 'junit.xml'), 'utf8');
    assert.match(junit, /name="k6 exit code 105"><failure message="interrupted \(SIGINT\/SIGTERM\)/);
    // What the summaries lack is said in one line (k6 may have written some before it ended).
    if (!existsSync(path.join(r.dir, 'summary.json')) || !existsSync(path.join(r.dir, 'summary.txt'))) {
      assert.match(stderr, /^scripts\/run: SIGTERM ended k6 after its teardown, before it had written the summaries \((no |[a-z.]+ (empty|cut short))[^)]*\): k6 no longer takes signals then; the run counts as interrupted \(exit 105\)$/m);
      assert.match(junit, /SIGTERM ended k6 after its teardown/);
    }
    assert.doesNotMatch(stderr, /teardown may not have finished|figures are lost/);
  } finally {
    await psql(PG_URL, `DROP TABLE IF EXISTS public.k6wp_${runId}`);
  }
});

test('SIGTERM to a plain bin/k6 run of a scenario: k6 runs teardown and handleSummary (junit.xml, summary.json), exit 105', async () => {
  const r = startK6(scenario, { ...localEnv(), STAGES: '60s:2', HOT_KEYS: '10' });
  await r.waitFor(/writing to table/);
  await incrementing(r.runId);
  r.child.kill('SIGTERM');
  const d = await r.done;
  assert.equal(d.code, 105, d.stderr);
  assert.match(d.stderr, /level=error msg="test run was aborted because k6 received a 'terminated' signal"/);
  assert.ok(d.summary && d.summary.run_id === d.runId, d.stderr.slice(-3000));
  assert.match(d.junit, /<testsuites /);
  assert.equal(await tableOf(d.runId), '0');
});

// A results folder on a full disk: k6 leaves 0-byte summaries and says nothing; the wrapper
// finds them, says so in one line and exits 108 (an output that could not be written).
test('RESULTS_DIR on a full disk: one line naming the empty summaries, exit 108, never 0', async (t) => {
  const mnt = mkdtempSync(path.join(tmpdir(), 'k6wp-full-'));
  const m = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', mnt], { encoding: 'utf8' });
  if (m.status !== 0) { t.skip(`mount is not permitted here (${(m.stderr || '').trim()}): a full disk cannot be made`); return; }
  try {
    const runId = uniqueRunId('full');
    mkdirSync(path.join(mnt, runId));
    // fill it: the folder exists and is writable, nothing more fits
    spawnSync('dd', ['if=/dev/zero', `of=${path.join(mnt, 'fill')}`, 'bs=4k', 'count=64']);
    const child = spawn(path.join(repoRoot, 'scripts', 'run'), [scenario, '--quiet', '-e', 'STAGES=2s:1', '-e', 'HOT_KEYS=10'], {
      cwd: repoRoot, env: { ...process.env, K6_NO_USAGE_REPORT: 'true', RESULTS_DIR: mnt, RUN_ID: runId, RUN_SECRET: TEST_RUN_SECRET, HISTORY: '0', WP_INFLUX: '0' },
    });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    child.stdout.resume();
    const code = await new Promise((resolve) => child.on('exit', resolve));
    assert.equal(code, 108, stderr);
    const lines = stderr.split('\n').filter((l) => /^scripts\/run: /.test(l));
    assert.match(lines.join('\n'), new RegExp(`^scripts/run: the summaries could not be written to ${mnt}/${runId}/ \\((no|summary\\.txt empty).*writing there now fails: No space left on device\\): this run's figures are lost$`, 'm'));
    assert.match(lines.join('\n'), /junit\.xml could not be written to .* either/);
    assert.equal(await tableOf(runId), '0');
  } finally {
    spawnSync('umount', [mnt]);
    rmSync(mnt, { recursive: true, force: true });
  }
});

// One instance of a distributed run (DISTRIBUTED=1, docs/scale-out.md) names its summaries
// instance-<label>-…, a label k6 computes from the execution segment; the wrapper checked only a
// single run's and the verify step's, so an instance whose summaries were lost exited 0.
// The instance keeps its table for the others: the test drops it.
function runInstance(results, runId, args = []) {
  const child = spawn(path.join(repoRoot, 'scripts', 'run'), ['scenarios/postgres/insert-vs-overwrite.js', '--quiet', ...args,
    '--execution-segment', '0:1/2', '--execution-segment-sequence', '0,1/2,1', '-e', 'DISTRIBUTED=1',
    '-e', 'DOCS=2000', '-e', 'BATCH_SIZE=500', '-e', 'VUS=2', '-e', 'OVERWRITE_BATCHES=2', '-e', 'MIXED_BATCHES=2'], {
    cwd: repoRoot, env: { ...process.env, K6_NO_USAGE_REPORT: 'true', RESULTS_DIR: results, RUN_ID: runId, RUN_SECRET: TEST_RUN_SECRET, HISTORY: '0', WP_INFLUX: '0' },
  });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  child.stdout.resume();
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stderr })));
}

test('a distributed instance whose summary could not be written (a directory in its place): the line names it, exit 108, never 0', async () => {
  const results = mkdtempSync(path.join(tmpdir(), 'k6wp-inst-'));
  const runId = uniqueRunId('inst');
  try {
    // k6 cannot write instance-1-summary.json where a directory of that name stands.
    mkdirSync(path.join(results, runId, 'instance-1-summary.json'), { recursive: true });
    const { code, stderr } = await runInstance(results, runId);
    assert.equal(code, 108, stderr);
    assert.match(stderr, /as instance 1 \(segment 0:1\/2\)/);
    assert.match(stderr, new RegExp(`^scripts/run: the summaries could not be written to ${results}/${runId}/ \\((.*, )?no instance-1-summary\\.json(, .*)?\\): this run's figures are lost$`, 'm'));
    assert.ok(statSync(path.join(results, runId, 'instance-1-summary.txt')).size > 0, 'the summary that could be written is there');
    assert.match(readFileSync(path.join(results, runId, 'junit.xml'), 'utf8'), /name="k6 exit code 108"><failure message="aborted: /);
  } finally {
    await psql(PG_URL, `DROP TABLE IF EXISTS public.k6wp_${runId}`);
    rmSync(results, { recursive: true, force: true });
  }
});

test('a distributed instance on a full disk: its summaries cannot even be named (its log is empty): one line, exit 108, never 0', async (t) => {
  const mnt = mkdtempSync(path.join(tmpdir(), 'k6wp-full-'));
  const m = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', mnt], { encoding: 'utf8' });
  if (m.status !== 0) { t.skip(`mount is not permitted here (${(m.stderr || '').trim()}): a full disk cannot be made`); return; }
  const runId = uniqueRunId('instfull');
  try {
    mkdirSync(path.join(mnt, runId));
    spawnSync('dd', ['if=/dev/zero', `of=${path.join(mnt, 'fill')}`, 'bs=4k', 'count=64']);
    const { code, stderr } = await runInstance(mnt, runId);
    assert.equal(code, 108, stderr);
    assert.match(stderr, new RegExp(`^scripts/run: the summaries could not be written to ${mnt}/${runId}/ \\(this instance's summaries cannot be named: k6's setup line giving its label is not in its log; writing there now fails: No space left on device\\): this run's figures are lost$`, 'm'));
  } finally {
    await psql(PG_URL, `DROP TABLE IF EXISTS public.k6wp_${runId}`);
    spawnSync('umount', [mnt]);
    rmSync(mnt, { recursive: true, force: true });
  }
});

// k6's log sent elsewhere: setup's line never reaches the wrapper, which then cannot name the
// summaries; the folder takes writes, so nothing is called lost (no 108 for a healthy run).
test('a distributed instance whose k6 log goes elsewhere (--log-output=none): its summaries are said unchecked, not lost; exit 0', async () => {
  const results = mkdtempSync(path.join(tmpdir(), 'k6wp-inst-'));
  const runId = uniqueRunId('instlog');
  try {
    const { code, stderr } = await runInstance(results, runId, ['--log-output=none']);
    assert.equal(code, 0, stderr);
    assert.match(stderr, /^scripts\/run: this instance's summaries cannot be named: k6's setup line giving its label is not in its log \(k6's log may go elsewhere: --log-output, --console-output\); the folder takes writes, so they were not checked$/m);
    assert.doesNotMatch(stderr, /figures are lost/);
    assert.ok(statSync(path.join(results, runId, 'instance-1-summary.json')).size > 0);
  } finally {
    await psql(PG_URL, `DROP TABLE IF EXISTS public.k6wp_${runId}`);
    rmSync(results, { recursive: true, force: true });
  }
});

// Hostile names and values through scripts/run: k6 refuses a non-ASCII -e name with its own
// exit 255 before the scenario's unknown-knob check runs; control characters in RUN_ID or K6
// reached the terminal raw. One line each, escaped as lib/parse.js shown() does, exit 107.
test('scripts/run: -e DÖCS=5 is the unknown-knob line and 107 (not k6\'s 255); control characters in RUN_ID and K6 are escaped', () => {
  const results = mkdtempSync(path.join(tmpdir(), 'k6wp-names-'));
  const run = (args, env = {}) => spawnSync(path.join(repoRoot, 'scripts', 'run'), ['scenarios/arangodb/insert-vs-overwrite.js', ...args],
    { cwd: repoRoot, encoding: 'utf8', env: { ...process.env, RESULTS_DIR: results, HISTORY: '0', WP_INFLUX: '0', ...env } });
  const r = run(['-e', 'DÖCS=5', '-e', 'RUN_ID=names1']);
  assert.equal(r.status, 107, r.stderr);
  assert.equal(r.stderr, 'scripts/run: "DÖCS" is not a knob of k6-writepath (a name of ASCII letters, digits and _ is needed: k6 refuses any other, IGNORE_ENV cannot pass it): did you mean DOCS? (knobs: docs/configuration.md)\n');
  assert.match(readFileSync(path.join(results, 'names1', 'junit.xml'), 'utf8'), /name="k6 exit code 107"><failure message="bad input: .*DÖCS/);
  const id = run([], { RUN_ID: 'x\u001b[2J\u0007' });
  assert.equal(id.status, 107);
  assert.equal(id.stderr, 'scripts/run: RUN_ID="x\\u001b[2J\\u0007" is not allowed: 1-32 characters a-z 0-9 _ (starting with a letter or digit)\n');
  const k6 = run(['-e', 'RUN_ID=names2'], { K6: '/nowhere/k6\u001b]0;owned\u0007' });
  assert.equal(k6.status, 107);
  assert.match(k6.stderr, /^scripts\/run: K6="\/nowhere\/k6\\u001b\]0;owned\\u0007" is not allowed: an executable k6 binary/);
  for (const x of [r, id, k6]) assert.doesNotMatch(x.stderr, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/, 'no raw control character');
});

// The driver resolves a mongodb+srv:// name while it parses the URL: a name that does not
// resolve was refused as a bad URL (107) before the run. It is a server out of reach, as any
// host that does not resolve: setup's "cannot reach MongoDB" line, exit 108, password unseen.
test('scripts/run: a mongodb+srv:// name that does not resolve is an unreachable server (108, "cannot reach MongoDB"), not bad input', () => {
  const results = mkdtempSync(path.join(tmpdir(), 'k6wp-srv-'));
  const r = spawnSync(path.join(repoRoot, 'scripts', 'run'), ['scenarios/mongodb/insert-vs-overwrite.js', '--quiet', '-e', 'RUN_ID=srvdns'],
    { cwd: repoRoot, encoding: 'utf8', env: { ...process.env, MONGO_URL: 'mongodb+srv://writer:s3cret-pw-77@nothere.invalid/?authSource=admin', RESULTS_DIR: results, HISTORY: '0', WP_INFLUX: '0' } });
  assert.equal(r.status, 108, r.stderr);
  const errors = r.stderr.split('\n').filter((l) => /level=error/.test(l));
  assert.equal(errors.length, 1, r.stderr);
  assert.match(errors[0], /msg="test aborted: MONGO_URL: cannot reach MongoDB: gateway: the DNS name of MONGO_URL \(value not shown\) does not resolve: .*nothere\.invalid.*"$/);
  assert.doesNotMatch(r.stderr + r.stdout, /s3cret/);
  assert.match(readFileSync(path.join(results, 'srvdns', 'junit.xml'), 'utf8'), /name="k6 exit code 108"><failure message="aborted: test aborted: MONGO_URL: cannot reach MongoDB/);
});

// REPEAT=N: each repetition is a scripts/run of its own, started in the background, which a
// non-interactive bash starts with SIGINT ignored: a Ctrl-C reached none of them and every
// repetition ran to its end (exit 0). The wrapper passes every signal on as TERM.
test('Ctrl-C during REPEAT=2: the running repetition stops (teardown, summaries), the next does not start, the aggregate is written, exit 105', async () => {
  const runId = uniqueRunId('exitr');
  const r = startRun(runId, { args: ['-e', 'REPEAT=2'] });
  await r.waitFor(/repetition 1 of 2/);
  await incrementing(`${runId}_r01`);
  process.kill(-r.child.pid, 'SIGINT');
  const { code, stderr } = await r.done;
  assert.equal(code, 105, stderr);
  assert.match(stderr, /^scripts\/run: repetition 1 of 2 ended with exit 105: the remaining repetitions do not run$/m);
  assert.doesNotMatch(stderr, /repetition 2 of 2/);
  assert.ok(existsSync(path.join(r.dir, `${runId}_r01`, 'junit.xml')));
  assert.equal(existsSync(path.join(r.dir, `${runId}_r02`)), false);
  assert.ok(existsSync(path.join(r.dir, 'summary.txt')), 'the aggregate of what ran');
  assert.equal(await tableOf(`${runId}_r01`), '0');
});

// run-distributed's instances ran in its process group with SIGINT ignored: a Ctrl-C ended the
// script and left them running, unverified, their objects in place.
test('Ctrl-C to scripts/run-distributed: every instance stops (exit 105 each), the verify step still runs (drops the table or says how), one line, exit 105', async () => {
  const runId = uniqueRunId('exitd');
  const results = mkdtempSync(path.join(tmpdir(), 'k6wp-exitd-'));
  const child = spawn(path.join(repoRoot, 'scripts', 'run-distributed'), ['2', 'scenarios/postgres/insert-vs-overwrite.js', '-e', 'VUS=2', '-e', 'DOCS=2000', '-e', 'OVERWRITE_BATCHES=100000', '-e', 'MIXED_BATCHES=0', '-e', `RUN_ID=${runId}`], {
    cwd: repoRoot, detached: true,
    env: { ...process.env, K6_NO_USAGE_REPORT: 'true', RESULTS_DIR: results, RUN_SECRET: TEST_RUN_SECRET, HISTORY: '0', WP_INFLUX: '0' },
  });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  child.stdout.resume();
  const done = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  for (let i = 0; i < 600; i++) {
    const n = await psql(PG_URL, `SELECT count(*) FROM public.k6wp_${runId}`).catch(() => '0');
    if (Number(String(n).trim()) > 0) break;
    await new Promise((res) => setTimeout(res, 100));
  }
  process.kill(-child.pid, 'SIGINT');
  const code = await done;
  assert.equal(code, 105, stderr);
  assert.match(stderr, /^scripts\/run-distributed: SIGINT received: every instance was stopped \(its teardown and summaries ran\); the verify step checks what they wrote and drops the run's objects, or says how to when it cannot vouch for them \(exit 105\)$/m);
  for (const i of [1, 2]) assert.match(stderr, new RegExp(`^scripts/run-distributed: instance ${i} exited 105 `, 'm'));
  assert.match(stderr, new RegExp(`verifying table public\\.k6wp_${runId}`), 'the verify step ran');
  // Stopped mid-plan, the table holds fewer documents than the plan writes: the verify step keeps
  // it and prints the command that drops it; a count that holds drops it.
  const kept = new RegExp(`table public\\.k6wp_${runId}: left in place: .*drop it yourself once you have looked at it: psql .*DROP TABLE`).test(stderr);
  assert.equal(await tableOf(runId), kept ? '1' : '0', stderr);
  if (kept) await psql(PG_URL, `DROP TABLE IF EXISTS public.k6wp_${runId}`);
});
