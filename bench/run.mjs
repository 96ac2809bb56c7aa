// make bench: load-generator efficiency benchmarks (bench/README.md). Runs each measurement
// BENCH_REPS times, interleaved (A, B, C, A, B, C, …) so machine noise hits all sides alike;
// every ratio is computed within one repetition and then summarised, every figure is shown as
// median (min–max) over the repetitions, and the load average is recorded before and after,
// because the project machines are shared. Writes bench/RESULTS.md. Knobs (environment):
//   BENCH_REPS=3  BENCH_SECONDS=5 (HTTP run length)  BENCH_PG_DOCS=100000 (table size)
//   BENCH_PG_BATCHES=300 (k6 overwrite batches)  BENCH_PGBENCH_SECONDS=10
//   BENCH_MEM_SMALL=200000  BENCH_MEM_LARGE=2000000 (documents of the memory runs)
//   (memory per VU, where it goes, the estimate: bench/memory.mjs, its own section; make bench runs both)
//   BENCH_PG_PORT=17499 (the benchmark's own PostgreSQL, started and stopped by this script)
//   BENCH_MONGO_PORT=17496 BENCH_MONGO_DOCS=100000 BENCH_MONGO_BATCHES=300 (the MongoDB floor: bench/mongo.mjs)
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { tmpdir, cpus, totalmem, loadavg } from 'node:os';
import path from 'node:path';

import { PgServer } from '../scripts/pg-private.mjs';
import { keepSections } from './memory.mjs';
import { knob, median, spread } from './lib.mjs';
import { HZ, counterAt, procStat, repoRoot as root } from '../scripts/lib/kit.mjs';
import { mongoBench, mongoSection } from './mongo.mjs';
import { startGateway } from '../scripts/lib/gateway.mjs';

const env = process.env;
const REPS = knob('BENCH_REPS');
const SECONDS = knob('BENCH_SECONDS');
const PG_DOCS = knob('BENCH_PG_DOCS');
const PG_BATCHES = knob('BENCH_PG_BATCHES');
const PGBENCH_SECONDS = knob('BENCH_PGBENCH_SECONDS');
const MEM = [knob('BENCH_MEM_SMALL'), knob('BENCH_MEM_LARGE')];
const k6 = path.join(root, 'bin', 'k6');
const k6env = { ...env, K6_NO_USAGE_REPORT: 'true', K6_AUTO_EXTENSION_RESOLUTION: 'false' };

const fmt = (x, d = 0) => (x === null || x === undefined || Number.isNaN(x) ? '-' : Number(x).toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }));
const log = (s) => process.stderr.write(`${s}\n`);
// "median (min–max)" of a spread, with d decimals; scale multiplies (100 for percent).
const ms = (sp, d = 0, scale = 1) => (Number.isFinite(sp.med) ? `${fmt(sp.med * scale, d)} (${fmt(sp.min * scale, d)}–${fmt(sp.max * scale, d)})` : '-');

function run(cmd, args, opts = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, env: opts.env || k6env });
    const timer = opts.sample ? setInterval(() => opts.sample(child), 100) : null;
    let out = ''; let err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    child.on('close', (code) => { if (timer) clearInterval(timer); resolve({ code, out, err }); });
  });
}

// k6 under /usr/bin/time: user+system CPU seconds and peak RSS (KB) of the k6 process.
// sample(child): called every 100 ms with the ChildProcess of /usr/bin/time while it runs.
async function timedK6(args, extraEnv, sample = null) {
  const r = await run('/usr/bin/time', ['-f', 'TIME %U %S %M', k6, ...args], { env: { ...k6env, ...extraEnv }, sample });
  const m = /TIME ([\d.]+) ([\d.]+) (\d+)\s*$/.exec(r.err);
  if (r.code !== 0 || !m) throw new Error(`k6 ${args.join(' ')} failed (${r.code}):\n${r.err.slice(-2000)}\n${r.out.slice(-2000)}`);
  return { ...r, cpu: Number(m[1]) + Number(m[2]), rssKb: Number(m[3]) };
}

// CPU seconds of the PostgreSQL server: the postmaster (with its reaped children) plus its
// live children, from /proc/<pid>/stat (utime, stime, cutime, cstime in clock ticks).
// CPU seconds of k6 itself while it runs: the child of /usr/bin/time (pid `time`).
function k6Cpu(time) {
  try {
    const kids = readFileSync(`/proc/${time}/task/${time}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
    const st = kids.length ? procStat(kids[0]) : null;
    return st ? st.own / HZ : null;
  } catch { return null; }
}
function serverCpu(postmaster) {
  const pm = procStat(postmaster);
  let ticks = pm.own + pm.children;
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    const st = procStat(d);
    if (st && st.ppid === postmaster) ticks += st.own;
  }
  return ticks / HZ;
}

async function httpBench() {
  const addrFile = path.join(mkdtempSync(path.join(tmpdir(), 'k6wp-sink-')), 'addr');
  const sink = spawn(path.join(root, 'bin', 'bench-sink'), ['-addr-file', addrFile], { stdio: 'ignore' });
  for (let i = 0; i < 50 && !existsSync(addrFile); i++) await new Promise((r) => setTimeout(r, 100));
  const addr = readFileSync(addrFile, 'utf8');
  const modes = ['ceiling', 'ceiling-ravendb', 'ceiling-ravendb-bulk', 'arangodb', 'arangodb-write', 'ravendb', 'ravendb-bulk', 'arangodb-random', 'ravendb-random', 'arangodb-string', 'arangodb-overwrite', 'arangodb-overwrite-write', 'arangodb-join'];
  const res = Object.fromEntries(modes.map((m) => [m, []]));
  try {
    for (let rep = 0; rep < REPS; rep++) {
      for (const mode of modes) {
        const r = await run(k6, ['run', '--quiet', '--address=', '-e', `SINK=${addr}`, '-e', `MODE=${mode}`, '-e', `BENCH_SECONDS=${SECONDS}`, 'bench/http-generation.js']);
        const line = r.out.trim().split('\n').filter((l) => l.startsWith('{')).pop();
        if (r.code !== 0 || !line) throw new Error(`http bench ${mode} failed:\n${r.err.slice(-1500)}`);
        const j = JSON.parse(line);
        res[mode].push(j);
        log(`http ${mode} rep ${rep + 1}: ${fmt(j.docs_per_s)} docs/s`);
      }
    }
  } finally { sink.kill(); }
  // Each body against the ceiling of its request format (bench/http-generation.js), within a repetition.
  const ceilingOf = (m) => (m.startsWith('ceiling') ? m : m === 'ravendb-bulk' ? 'ceiling-ravendb-bulk' : m.startsWith('ravendb') ? 'ceiling-ravendb' : 'ceiling');
  return modes.map((m) => {
    const v = res[m].map((j) => j.docs_per_s);
    const ceil = res[ceilingOf(m)].map((j) => j.docs_per_s);
    return { mode: m, ceiling: ceilingOf(m), docs: spread(v), ratio: spread(v.map((x, i) => x / ceil[i])), bytes: median(res[m].map((j) => j.bytes_per_request)) / 1000 };
  });
}

// CPU seconds of a command under /usr/bin/time, and of the PostgreSQL server over the same span.
async function timedWithServer(cmd, args, extraEnv, postmaster, sample = null) {
  const before = serverCpu(postmaster);
  const r = await run('/usr/bin/time', ['-f', 'TIME %U %S %M', cmd, ...args], { env: { ...k6env, ...extraEnv }, sample });
  const server = serverCpu(postmaster) - before;
  const m = /TIME ([\d.]+) ([\d.]+) (\d+)\s*$/.exec(r.err);
  if (r.code !== 0 || !m) throw new Error(`${cmd} ${args.join(' ')} failed (${r.code}):\n${r.err.slice(-2000)}\n${r.out.slice(-2000)}`);
  const cpu = Number(m[1]) + Number(m[2]);
  return { ...r, cpu, server, share: cpu / (cpu + server), rssKb: Number(m[3]) };
}

// The benchmark's own PostgreSQL (so the CPU it attributes to "the server" is only this one's;
// the shared instance of `make up` also serves other runs): scripts/pg-private.sh, defaults,
// 127.0.0.1 only, a random password (.run/bench/postgres/password, mode 600). Started by
// pgBench, stopped when this script ends, whichever way it ends.
const pgServer = new PgServer('bench/postgres', knob('BENCH_PG_PORT'), { db: 'bench' });
let pgStarted = false;
function stopPg() {
  if (!pgStarted) return;
  pgStarted = false;
  try { pgServer.stop(); log(`bench: stopped its PostgreSQL on 127.0.0.1:${pgServer.port}`); } catch (e) { log(`bench: could not stop its PostgreSQL (${e.message}): scripts/pg-private.sh stop ${pgServer.dir}`); }
}
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => { stopPg(); process.exit(128 + { SIGINT: 2, SIGTERM: 15, SIGHUP: 1 }[sig]); });

// A private gateway holding PG_URL for one k6 run (docs/gateway.md): fn(gwEnv, gwCpu) gets
// k6's part of the environment (GATEWAY_URL and the token, never PG_URL) and a function giving
// the gateway's CPU seconds so far, which counts as the client's like k6's.
async function viaGateway(url, fn) {
  const gw = startGateway({ PG_URL: url });
  const gwCpu = () => { const st = procStat(gw.process.pid); return st ? st.own / HZ : 0; };
  try { return await fn(gw.env({}), gwCpu); } finally { gw.stop(); }
}
// A timedWithServer() result with the gateway's CPU (seconds) added to the client's.
const plusGateway = (r, g) => ({ ...r, cpu: r.cpu + g, share: (r.cpu + g) / (r.cpu + g + r.server) });

async function pgBench() {
  pgServer.init();
  pgStarted = true;
  pgServer.start();
  pgServer.ensureDatabase('bench');
  const url = pgServer.url('bench');
  const postmaster = pgServer.running();
  // psql and pgbench get the password in the environment, not in their arguments (the process list).
  const bare = new URL(url); bare.password = '';
  const pgEnv = { PGPASSWORD: decodeURIComponent(new URL(url).password) };
  const pgCli = (args, opts = {}) => execFileSync('psql', [bare.href, ...args], { ...opts, env: { ...env, ...pgEnv } });
  const version = pgCli(['-Atc', 'show server_version']).toString().trim();
  const slen = 1046; // the s field of an e1 document of DOC_BYTES=1200 (lib/docs.js), so both sides write ~1.2 KB
  const stride = [7919, 7927, 7933].find((p) => PG_DOCS % p !== 0);
  pgCli(['-q', '-v', 'tbl=k6wp_bench_pgbench', '-v', `ndocs=${PG_DOCS}`, '-v', `slen=${slen}`, '-f', 'bench/pg-prefill.sql'], { cwd: root, stdio: ['ignore', 'ignore', 'ignore'] });
  const reps = [];
  for (let rep = 0; rep < REPS; rep++) {
    const row = {};
    // 1. The pack: E1 load + overwrite on its own table.
    const resultsDir = mkdtempSync(path.join(tmpdir(), 'k6wp-bench-'));
    const runId = `bench${process.pid}_${rep}`;
    execFileSync('mkdir', ['-p', path.join(resultsDir, runId)]);
    // Samples of both CPU counters every 100 ms, for the overwrite phase's window: from its
    // first batch start to its last batch end (the writepath_phase_clock gauge, epoch ms,
    // from --summary-export).
    const samples = [];
    const base = serverCpu(postmaster);
    // The client's counter is k6's plus its gateway's.
    const exportFile = path.join(resultsDir, 'export.json');
    const r = await viaGateway(url, async (gwEnv, gwCpu) => {
      const sample = (child) => {
        const k = k6Cpu(child.pid);
        if (k !== null) samples.push({ t: Date.now(), k6: k + gwCpu(), server: serverCpu(postmaster) - base });
      };
      const g0 = gwCpu();
      const x = await timedWithServer(k6, ['run', '--quiet', '--address=', `--summary-export=${exportFile}`, 'scenarios/postgres/insert-vs-overwrite.js'], {
        ...gwEnv, RUN_ID: runId, RESULTS_DIR: resultsDir, PWD: root, PHASES: 'load,overwrite', DOCS: String(PG_DOCS),
        BATCH_SIZE: '1000', VUS: '2', OVERWRITE_BATCHES: String(PG_BATCHES), READBACK: '200' }, postmaster, sample);
      return plusGateway(x, gwCpu() - g0);
    });
    const summary = JSON.parse(readFileSync(path.join(resultsDir, runId, 'summary.json'), 'utf8'));
    const ow = summary.phases.find((p) => p.phase === 'overwrite');
    const load = summary.phases.find((p) => p.phase === 'load');
    if (!summary.verification || summary.verification.readback_ok === false || summary.verification.found !== summary.verification.expected) throw new Error(`verification of the k6 run failed: ${JSON.stringify(summary.verification)}`);
    row.pack = ow.docs_per_s;
    row.packShare = r.share;
    // Load phase: docs/s over the phase's wall time vs. what its batch times allow (2 VUs back
    // to back): 1.0 = no time outside the batches; the one-off warm-up used to push it down.
    row.loadAgreement = load.docs_per_s / (2 * 1000 / (load.batch_ms.average / 1000));
    const clock = (JSON.parse(readFileSync(exportFile, 'utf8')).metrics || {})['writepath_phase_clock{phase:overwrite}'];
    row.packPhaseShare = NaN;
    if (clock && samples.length > 1 && clock.max > clock.min) {
      const wk6 = counterAt(samples, clock.max, 'k6') - counterAt(samples, clock.min, 'k6');
      const wsrv = counterAt(samples, clock.max, 'server') - counterAt(samples, clock.min, 'server');
      row.packPhaseShare = wk6 / (wk6 + wsrv);
      row.packMsPerBatch = wk6 * 1000 / PG_BATCHES;
      row.serverMsPerBatch = wsrv * 1000 / PG_BATCHES;
    }
    log(`pg pack rep ${rep + 1}: overwrite ${fmt(row.pack)} docs/s; k6 + gateway share whole run ${(r.share * 100).toFixed(1)} %, overwrite window ${(row.packPhaseShare * 100).toFixed(1)} %; load docs/s / batch-time docs/s ${row.loadAgreement.toFixed(2)}`);
    // 2. The gateway floor: the same statement through the same client call with constant
    // pre-built parameters (bench/gateway-floor.js).
    const f = await viaGateway(url, async (gwEnv, gwCpu) => {
      const g0 = gwCpu();
      const x = await timedWithServer(k6, ['run', '--quiet', '--address=', 'bench/gateway-floor.js'], {
        ...gwEnv, TABLE: 'k6wp_bench_pgbench', DOCS: String(PG_DOCS), BENCH_VUS: '2', BENCH_SECONDS: String(PGBENCH_SECONDS) }, postmaster);
      return plusGateway(x, gwCpu() - g0);
    });
    const fj = JSON.parse(f.out.trim().split('\n').filter((l) => l.startsWith('{')).pop());
    row.floor = fj.rows_per_s;
    row.floorShare = f.share;
    row.floorMsPerBatch = f.cpu * 1000 / (fj.rows / 1000); // incl. its init (pre-building 20 batches per VU)
    log(`pg floor rep ${rep + 1}: ${fmt(row.floor)} rows/s; k6 + gateway share ${(f.share * 100).toFixed(1)} %`);
    // 3. pgbench, rows generated server-side.
    const p = await timedWithServer('pgbench', ['-n', '-c', '2', '-j', '2', '-T', String(PGBENCH_SECONDS), '-D', `ndocs=${PG_DOCS}`, '-D', 'batch=1000',
      '-D', `stride=${stride}`, '-D', `slen=${slen}`, '-D', 'tbl=k6wp_bench_pgbench', '-f', 'bench/pg-upsert.sql', bare.href], pgEnv, postmaster);
    row.pgbench = Number((/tps = ([\d.]+)/.exec(p.out) || [])[1]) * 1000;
    row.pgbenchShare = p.share;
    log(`pg pgbench rep ${rep + 1}: ${fmt(row.pgbench)} rows/s; client share ${(p.share * 100).toFixed(1)} %`);
    reps.push(row);
  }
  const col = (k) => spread(reps.map((x) => x[k]));
  return {
    version, url, reps,
    pack: col('pack'), floor: col('floor'), pgbench: col('pgbench'),
    packShare: col('packShare'), packPhaseShare: col('packPhaseShare'), floorShare: col('floorShare'), pgbenchShare: col('pgbenchShare'),
    loadAgreement: col('loadAgreement'),
    packMsPerBatch: col('packMsPerBatch'), serverMsPerBatch: col('serverMsPerBatch'), floorMsPerBatch: col('floorMsPerBatch'),
    packVsPgbench: spread(reps.map((x) => x.pack / x.pgbench)),
    floorVsPgbench: spread(reps.map((x) => x.floor / x.pgbench)),
    packVsFloor: spread(reps.map((x) => x.pack / x.floor)),
  };
}

// Where k6's CPU per batch goes (bench/micro-keys.js), once per repetition.
async function microBench() {
  const runs = [];
  for (let rep = 0; rep < REPS; rep++) {
    const r = await run(k6, ['run', '--quiet', '--address=', 'bench/micro-keys.js']);
    const m = /(\{"batches".*\})/.exec(r.out + r.err.replace(/\\"/g, '"'));
    if (r.code !== 0 || !m) throw new Error(`micro-keys failed:\n${r.err.slice(-1500)}`);
    runs.push(JSON.parse(m[1]));
    log(`micro rep ${rep + 1}: ${m[1]}`);
  }
  const keys = ['keys_ms', 'keys_zipf_ms', 'sfc32_ms', 'load_keys_ms', 'bytes_ms', 'bytes_load_ms', 'body_ms', 'loop_ms', 'verify_ms', 'pool_ms', 'prepare_ms', 'shared_ms'];
  return Object.fromEntries(keys.map((k) => [k, spread(runs.map((x) => x[k]))]));
}

// The same E1 run with MEM's document counts, interleaved REPS times (every count once per
// repetition); the ratio large ÷ small is taken within a repetition, so the machine's load at
// that moment cancels out as far as it can.
async function memBench(url) {
  const runs = [];
  for (let rep = 0; rep < REPS; rep++) {
    for (const docs of MEM) {
      const resultsDir = mkdtempSync(path.join(tmpdir(), 'k6wp-bench-'));
      const load = loadavg()[0];
      const r = await viaGateway(url, (gwEnv) => timedK6(['run', '--quiet', '--address=', 'scenarios/postgres/insert-vs-overwrite.js'], {
        ...gwEnv, RUN_ID: `benchmem${process.pid}_${rep}_${docs}`, RESULTS_DIR: resultsDir, PWD: root, DOCS: String(docs),
        BATCH_SIZE: '10000', VUS: '2', OVERWRITE_BATCHES: '20', MIXED_BATCHES: '10', READBACK: '1000' }));
      runs.push({ rep, docs, mb: r.rssKb / 1024, load });
      log(`memory ${docs} docs rep ${rep + 1}: peak RSS ${(r.rssKb / 1024).toFixed(0)} MB (load ${load.toFixed(2)})`);
    }
  }
  const of = (docs) => runs.filter((x) => x.docs === docs);
  const small = of(MEM[0]); const large = of(MEM[1]);
  return {
    rows: MEM.map((docs) => ({ docs, mb: spread(of(docs).map((x) => x.mb)), load: spread(of(docs).map((x) => x.load)) })),
    ratio: spread(large.map((x) => x.mb / (small.find((y) => y.rep === x.rep) || {}).mb)),
  };
}

const started = new Date();
const loadBefore = loadavg();
const http = await httpBench();
let pg, mem;
try {
  pg = await pgBench();
  mem = await memBench(pg.url);
} finally {
  stopPg();
}
const mongo = await mongoBench({ reps: REPS, seconds: PGBENCH_SECONDS });
const micro = await microBench();
const loadAfter = loadavg();

const k6v = execFileSync(k6, ['version']).toString().split('\n')[0].trim();
const pgbv = execFileSync('pgbench', ['--version']).toString().trim();
const la = (l) => l.map((x) => x.toFixed(2)).join(' ');
const machine = `${cpus().length} × ${cpus()[0].model.trim()}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM (shared machine: load average ${la(loadBefore)} before, ${la(loadAfter)} after; 1, 5, 15 min)`;
const ok = (cond) => (cond ? 'met' : '**missed**');
const get = (m) => http.find((h) => h.mode === m);
const by = (have, goal) => (have >= goal ? '' : `, short by ${fmt((goal - have) / goal * 100, 1)} %`);
const over = (have, goal) => (have <= goal ? '' : `, over by ${fmt((have - goal) * 100, 1)} points`);
const goalRows = [
  ['load and bulk batches ≥ 0.80 of the ceiling', [['ArangoDB load', get('arangodb').ratio.med], ['RavenDB E1 load (bulk_docs)', get('ravendb').ratio.med], ['RavenDB E4 bulk insert', get('ravendb-bulk').ratio.med]], 0.8],
  // The issue's measure when the goal was set (0.19–0.23 then): the body of random keys given
  // to the adapter, as arangodb-random measured it; the key draw is shown beside it.
  ['overwrite and mixed batches (random keys) ≥ 0.50 of the ceiling, body of the batch\'s keys', [['ArangoDB', get('arangodb-random').ratio.med], ['RavenDB', get('ravendb-random').ratio.med]], 0.5],
];
const lines = [
  '# Benchmark results', '',
  `Generated by \`make bench\` (bench/run.mjs) on ${started.toISOString()}; do not edit by hand.`, '',
  `- Machine: ${machine}`,
  `- ${k6v}; PostgreSQL ${pg.version} (private instance, defaults, scripts/pg-private.sh); ${pgbv}; node ${process.version}`,
  `- ${REPS} repetitions of each measurement, interleaved (every row of a table once, then again). Figures are median (min–max) over the repetitions; a ratio is computed within each repetition (so the machine's load at that moment cancels out) and then summarised the same way.`, '',
  '## HTTP generation ceiling (1 VU, batches of 1000 e1 documents of ~1.2 KB, null sink)', '',
  'Ceilings: one pre-built body posted over and over, what this k6 can post at all, one per request format: `ceiling` = the ArangoDB load batch, `ceiling-ravendb` = the RavenDB bulk_docs load batch, `ceiling-ravendb-bulk` = the RavenDB bulk-insert batch, each the adapter\'s own body of one batch with the JSON whitespace its byte body pads with removed (the minimal text of the same request: the padding counts against the adapter, the format\'s own envelope does not). Each row\'s ratio is to the ceiling of its format (in brackets where it is not `ceiling`).', '',
  'Bodies built by the adapters\' own `batchBody()` (the function their `batch()` calls) from the key arrays the workloads build: `arangodb` = E1 load batch on ArangoDB, `arangodb-write` = the same through the batch runner and the whole ArangoDB target (ARANGO_SILENT=1, the sink answers `{}`), `ravendb` = E1 load batch on RavenDB (bulk_docs, LOAD_OP=insert), `ravendb-bulk` = E4 bulk-insert batch; random keys as E1 overwrite batches draw them (`batchKeys()`, uniform among 2,000,000 loaded keys): `arangodb-random` and `ravendb-random` (bulk_docs upsert) = the body of keys drawn beforehand, `arangodb-string` = the same keys through the string `docs.batch()` (the path random keys took before), `arangodb-overwrite` = the keys drawn inside the timed loop, then the body (what an overwrite iteration does), `arangodb-overwrite-write` = the same through the batch runner (overwriteMode=replace); `arangodb-join` = one string per document (the first path).', '',
  '| body | docs/s | KB/request | ratio to its ceiling |', '|---|---:|---:|---:|',
  ...http.map((h) => `| ${h.mode} | ${ms(h.docs)} | ${fmt(h.bytes)} | ${ms(h.ratio, 2)}${h.ceiling === 'ceiling' || h.ceiling === h.mode ? '' : ` (${h.ceiling})`} |`), '',
  ...goalRows.map(([goal, items, g]) => `Goal: ${goal}: ${items.map(([n, v]) => `${n} ${fmt(v, 2)} (${ok(v >= g)}${by(v, g)})`).join('; ')}.`), '',
  `With the key draw inside the timed loop, as an overwrite iteration of the ArangoDB and RavenDB scenarios does it on stock k6: ${fmt(get('arangodb-overwrite').ratio.med, 2)} (whole \`write()\` ${fmt(get('arangodb-overwrite-write').ratio.med, 2)}), ${fmt(100 * (1 - get('arangodb-overwrite').ratio.med / 0.5), 0)} % below 0.50: in k6's interpreter the draw of exactly these keys costs about what the body does (its sfc32 words alone ${fmt(micro.sfc32_ms.med, 2)} ms per batch, "Where the time goes" below), and stock k6 runs no Go code of the pack: the HTTP targets draw and patch in JavaScript (PostgreSQL and MongoDB leave it to the gateway).`, '',
  `## PostgreSQL upsert (batches of 1000, 2 connections, table of ${fmt(PG_DOCS)} documents)`, '',
  '| client | rows/s | ratio to pgbench | client share of CPU, whole run | client share of CPU, overwrite phase window |', '|---|---:|---:|---:|---:|',
  `| k6-writepath overwrite phase (scenarios/postgres/insert-vs-overwrite.js, ${PG_BATCHES} batches, binary jsonb, bodies rendered by the gateway from a recipe: docs/gateway.md) | ${ms(pg.pack)} | ${ms(pg.packVsPgbench, 2)} | ${ms(pg.packShare, 1, 100)} % | ${ms(pg.packPhaseShare, 1, 100)} % |`,
  `| gateway floor: the same statement through the same client call, constant pre-built parameters (bench/gateway-floor.js, ${PGBENCH_SECONDS} s) | ${ms(pg.floor)} | ${ms(pg.floorVsPgbench, 2)} | ${ms(pg.floorShare, 1, 100)} % | (whole run = the upsert) |`,
  `| pgbench, rows generated server-side (bench/pg-upsert.sql, ${PGBENCH_SECONDS} s) | ${ms(pg.pgbench)} | 1.00 | ${ms(pg.pgbenchShare, 1, 100)} % | (whole run = the upsert) |`, '',
  `The pack against its floor (per repetition): ${ms(pg.packVsFloor, 2)} of the floor's rows/s.`, '',
  'Client share = client CPU / (client + PostgreSQL server processes) CPU; for the pack and the floor the client is k6 plus its private gateway (bin/wp-gateway, /proc/<pid>/stat). **Whole run**: the client process from start to exit (`/usr/bin/time`; for the pack: init incl. payload pools and body images, setup, load phase, overwrite phase in which each VU reads its keys back after its last batch, teardown with the count) against the server over the same span. **Overwrite phase window**: both counters sampled from /proc every 100 ms and interpolated at the overwrite phase\'s first batch start and last batch end (`writepath_phase_clock`).', '',
  `Goals: overwrite docs/s ≥ 0.95 of pgbench: ${fmt(pg.packVsPgbench.med, 2)} (${ok(pg.packVsPgbench.med >= 0.95)}${by(pg.packVsPgbench.med, 0.95)}). k6 + gateway ≤ 15 % of the CPU in the overwrite phase: ${fmt(pg.packPhaseShare.med * 100, 1)} % (${ok(pg.packPhaseShare.med <= 0.15)}${over(pg.packPhaseShare.med, 0.15)}). k6 + gateway ≤ 20 % over the whole run: ${fmt(pg.packShare.med * 100, 1)} % (${ok(pg.packShare.med <= 0.2)}${over(pg.packShare.med, 0.2)}).`, '',
  `CPU per overwrite batch of 1000 documents in the phase window: k6 + gateway ${ms(pg.packMsPerBatch, 1)} ms, PostgreSQL ${ms(pg.serverMsPerBatch, 1)} ms; the floor's k6 + gateway ${ms(pg.floorMsPerBatch, 1)} ms per batch (whole run, including its init). The difference is the pack's own work per batch; the next section splits it.`, '',
  `Load phase of the same runs: docs/s over the phase's wall time ÷ docs/s its batch times allow (2 VUs back to back) = ${ms(pg.loadAgreement, 2)} (1.00 = no time outside the batches; the remainder is the client's work between batches).`, '',
  ...mongoSection(mongo),
  '## Memory (PostgreSQL E1: load, 20 overwrite and 10 mixed batches, BATCH_SIZE=10000, 2 VUs)', '',
  `${REPS} repetitions, interleaved (each document count once per repetition); median (min–max); the ratio within a repetition.`, '',
  '| documents | load (1 min) | k6 peak RSS (its gateway not counted) |', '|---:|---:|---:|',
  ...mem.rows.map((m) => `| ${fmt(m.docs)} | ${ms(m.load, 2)} | ${ms(m.mb)} MB |`), '',
  `Goal flat within 20 %: ${ms(mem.ratio, 2)}× (${ok(Math.abs(mem.ratio.med - 1) <= 0.2)}; judged on the median, ${mem.ratio.n} repetitions).`, '',
  '## Where the time goes (bench/micro-keys.js: 1 VU, no database, ms of k6 per batch of 1000, DOCS=100000)', '',
  'The per-key loops of random-key batches run in JavaScript for the ArangoDB and RavenDB targets; for PostgreSQL and MongoDB the gateway draws uniform keys and patches the body (gateway/render), and JavaScript draws them only when it needs the keys (a failed batch, the read-back).', '',
  '| step | JavaScript |', '|---|---:|',
  `| key draw of an overwrite batch, uniform (\`batchKeys()\`: BatchPicker) | ${ms(micro.keys_ms, 2)} |`,
  `| byte body of those keys as PostgreSQL gets it (\`keysBody\`, binary jsonb) | ${ms(micro.bytes_ms, 2)} |`,
  `| the read-back's key recomputation (300 batches, all VUs' shares, each after its last batch; ms in all) | ${ms(micro.verify_ms, 0)} |`,
  `| key draw, zipfian | ${ms(micro.keys_zipf_ms, 2)} |`,
  `| of the uniform draw: the sfc32 words alone (inlined, no distinctness, no owned-key mapping): the floor of drawing exactly these keys in JavaScript | ${ms(micro.sfc32_ms, 2)} |`,
  `| keys of a load batch (\`loadBatchKeys()\`: a key range, no array of 1000 numbers; it was 0.2 ms with one) | ${ms(micro.load_keys_ms, 2)} |`,
  `| byte body of a load batch (\`rangeBody\`) | ${ms(micro.bytes_load_ms, 2)} |`,
  `| string body of the same keys (\`docs.batch()\`, the path before) | ${ms(micro.body_ms, 2)} |`,
  `| empty loop of 1000 iterations with one array store (the interpreter's floor) | ${ms(micro.loop_ms, 2)} |`,
  `| payload pool (1024 e1 payloads) / body images (\`prepare()\`), once per writing VU (ms) | ${ms(micro.pool_ms, 0)} / ${ms(micro.prepare_ms, 0)} |`,
  `| reading one body image's text (1.2 MB) from a k6 SharedArray, per read (the once-per-process alternative to the line above; not used; ms) | ${ms(micro.shared_ms, 0)} |`, '',
  `Reading: micro-keys times with the wall clock, so on a loaded machine every line is inflated by waiting for a CPU; compare the lines with each other (and the CPU per batch above for absolute cost). In JavaScript an overwrite batch costs k6 the key draw plus the byte body plus the statement; the key draw is ${fmt(micro.keys_ms.med / micro.bytes_ms.med, 1)}× the byte body, and ${fmt(100 * micro.sfc32_ms.med / micro.keys_ms.med, 0)} % of it is the sfc32 arithmetic alone, which no exact draw can skip in the interpreter (the keys must stay those recorded runs were verified with, bench/README.md). A load batch's keys alone (${fmt(micro.load_keys_ms.med, 2)} ms) cost about as much as its byte body (${fmt(micro.bytes_load_ms.med, 2)} ms). The whole-run share adds the init of each writing VU (payload pool, images) and the read-back's key recomputation.`, '',
];
// The sections bench/gateway.mjs, bench/memory.mjs and make bench-gate (bench/gate.mjs) write stay as they are.
const resultsFile = path.join(root, 'bench', 'RESULTS.md');
lines.push(...keepSections(existsSync(resultsFile) ? readFileSync(resultsFile, 'utf8') : '', ['bench-gateway', 'bench-memory', 'bench-gate']));
writeFileSync(resultsFile, lines.join('\n'));
process.stdout.write(lines.join('\n'));
