// make experiment-ram: E1 (insert vs. insert-with-overwrite) on a private PostgreSQL, once
// with a memory budget larger than the data ("fits") and once with data several times the
// budget ("exceeds"), for 0 and N secondary indexes. docs/experiment-ram.md explains it.
//
// Each (indexes, regime) cell is one fresh cgroup with the budget as its memory limit, one
// server start inside it (page cache counts against the limit, so the kernel must evict the
// table's pages to stay under it), and one k6 run of PHASES=load,overwrite with VUS=1 (E1's
// single client, overwrite keys uniform over the whole loaded range). Read I/O per phase is
// the cgroup's block-I/O counters, polled by this driver every POLL_MS and cut at the phase
// boundaries that k6 records (writepath_phase_clock: epoch ms at each batch start and end,
// taken from k6's JSON output). One k6 run per cell, not one per phase, because a separate
// load run would end with the pack's verification (count(*) reads the whole table) and that
// would both pollute the I/O figures and warm the cache before the overwrite phase.
import { spawn } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync, readFileSync, writeFileSync, createWriteStream, unlinkSync } from 'node:fs';
import net from 'node:net';
import { cpus, totalmem, release } from 'node:os';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCgroup } from './cgroup.mjs';
import { PgServer } from '../../scripts/pg-private.mjs';
import { renderMarkdown } from './report.mjs';
import { KNOBS as PACK_KNOBS } from '../../lib/config.js';
import { readRunEnv } from '../../scripts/run-env.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const POLL_MS = 100;
const MB = 1024 * 1024;

// The driver's knobs. DOCS, DOC_BYTES, BATCH_SIZE, OVERWRITE_BATCHES and SEED are the
// pack's own k6 knobs: their ranges come from lib/config.js (the one home), with larger
// defaults here, and OVERWRITE_BATCHES at least 1 (the experiment measures the overwrite
// phase). The RAM_* knobs belong to this driver only, so they live here.
const pack = (name, def, doc, min = PACK_KNOBS[name].min) => ({ min, max: PACK_KNOBS[name].max, def, doc });
const KNOBS = {
  DOCS:              pack('DOCS', 1000000, 'documents loaded per cell'),
  DOC_BYTES:         pack('DOC_BYTES', 1200, 'approximate document size (E1: ~1200)'),
  BATCH_SIZE:        pack('BATCH_SIZE', 1000, 'documents per statement (E1: 10000)'),
  OVERWRITE_BATCHES: pack('OVERWRITE_BATCHES', 50, 'overwrite batches per cell', 1),
  SEED:              pack('SEED', 1, 'seed of keys and payloads'),
  RAM_SMALL_MB:      { min: 32, max: 1048576, def: 256, doc: 'memory budget of the "exceeds" regime, MiB' },
  RAM_LARGE_MB:      { min: 64, max: 1048576, def: 4096, doc: 'memory budget of the "fits" regime, MiB' },
  RAM_SHARED_BUFFERS_MB: { min: 1, max: 65536, def: 32, doc: 'PostgreSQL shared_buffers in both regimes, MiB' },
  RAM_MIN_RATIO:     { min: 1, max: 1000, def: 3, doc: 'the estimated data must be at least this many times RAM_SMALL_MB' },
  RAM_PG_PORT:       { min: 1024, max: 65533, def: 55532, doc: 'port of the experiment\'s own PostgreSQL on 127.0.0.1' },
};

function die(msg) {
  console.error(`experiment-ram: ${msg}`);
  process.exit(2);
}

function readKnobs(env) {
  const k = {};
  for (const [name, spec] of Object.entries(KNOBS)) {
    const raw = env[name];
    if (raw === undefined || raw === '') { k[name] = spec.def; continue; }
    if (!/^\d+$/.test(raw) || Number(raw) < spec.min || Number(raw) > spec.max) {
      die(`${name}=${JSON.stringify(raw)} is not allowed: a whole number from ${spec.min} to ${spec.max} (${spec.doc})`);
    }
    k[name] = Number(raw);
  }
  const idx = env.RAM_INDEXES === undefined || env.RAM_INDEXES === '' ? '0,3' : env.RAM_INDEXES;
  k.RAM_INDEXES = idx.split(',').map((s) => s.trim());
  if (k.RAM_INDEXES.some((s) => !/^[0-9]$/.test(s)) || new Set(k.RAM_INDEXES).size !== k.RAM_INDEXES.length) {
    die(`RAM_INDEXES=${JSON.stringify(idx)} is not allowed: a comma-separated list of distinct PG_INDEXES values from 0 to 9, e.g. 0,3`);
  }
  k.RAM_INDEXES = k.RAM_INDEXES.map(Number);
  const regimes = env.RAM_REGIMES === undefined || env.RAM_REGIMES === '' ? 'fits,exceeds' : env.RAM_REGIMES;
  k.RAM_REGIMES = regimes.split(',').map((s) => s.trim());
  if (k.RAM_REGIMES.some((r) => !['fits', 'exceeds'].includes(r)) || new Set(k.RAM_REGIMES).size !== k.RAM_REGIMES.length) {
    die(`RAM_REGIMES=${JSON.stringify(regimes)} is not allowed: fits, exceeds or fits,exceeds`);
  }
  if (k.BATCH_SIZE > k.DOCS) die(`BATCH_SIZE=${k.BATCH_SIZE} is not allowed with DOCS=${k.DOCS}: an overwrite batch picks distinct keys among the loaded ones; use at most ${k.DOCS}`);
  // Rough size of the table with its primary key (measured: ~1570 bytes a document of
  // DOC_BYTES=1200 with the primary key only),
  // enough to refuse budgets that would not make the regimes what they claim to be; the
  // report shows the real size measured after the load.
  k.estimatedDataMb = Math.ceil(k.DOCS * (k.DOC_BYTES + 380) / MB);
  const headroom = k.RAM_SHARED_BUFFERS_MB + 48;
  if (k.RAM_SMALL_MB < headroom) {
    die(`RAM_SMALL_MB=${k.RAM_SMALL_MB} is not allowed: at least RAM_SHARED_BUFFERS_MB + 48 = ${headroom} (shared_buffers and the backends must fit, or the kernel OOM-kills the server)`);
  }
  if (k.estimatedDataMb < k.RAM_MIN_RATIO * k.RAM_SMALL_MB) {
    die(`RAM_SMALL_MB=${k.RAM_SMALL_MB} is not allowed with DOCS=${k.DOCS} and DOC_BYTES=${k.DOC_BYTES}: the data (~${k.estimatedDataMb} MiB) must be at least RAM_MIN_RATIO=${k.RAM_MIN_RATIO} times the budget; use at most ${Math.floor(k.estimatedDataMb / k.RAM_MIN_RATIO)} or raise DOCS`);
  }
  const fitsNeed = 2 * k.estimatedDataMb + k.RAM_SHARED_BUFFERS_MB + 256;
  if (k.RAM_LARGE_MB < fitsNeed) {
    die(`RAM_LARGE_MB=${k.RAM_LARGE_MB} is not allowed with DOCS=${k.DOCS} and DOC_BYTES=${k.DOC_BYTES}: at least ${fitsNeed} (twice the ~${k.estimatedDataMb} MiB of data for table + WAL in page cache, shared_buffers, 256 MiB for the server)`);
  }
  if (k.RAM_LARGE_MB * MB > totalmem() * 0.8) {
    die(`RAM_LARGE_MB=${k.RAM_LARGE_MB} is not allowed: this machine has ${Math.floor(totalmem() / MB)} MiB; at most 80% of it (${Math.floor(totalmem() * 0.8 / MB)}), or lower DOCS`);
  }
  const out = env.RAM_OUT || path.join('results', 'experiment-ram', new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '').replace('T', '_'));
  k.RAM_OUT = path.resolve(repoRoot, out);
  k.RAM_REPORT = env.RAM_REPORT ? path.resolve(repoRoot, env.RAM_REPORT) : path.join(k.RAM_OUT, 'report.md');
  return k;
}

function machine(dataDir, cg) {
  const meminfo = readFileSync('/proc/meminfo', 'utf8');
  const disk = cg.disk.name;
  let rotational = '?';
  try { rotational = readFileSync(`/sys/block/${disk}/queue/rotational`, 'utf8').trim() === '1' ? 'rotational' : 'non-rotational'; } catch (_) { /* partition or unknown */ }
  return {
    cpus: cpus().length,
    cpu_model: cpus()[0] ? cpus()[0].model : '?',
    mem_total_mib: Math.round(Number(/MemTotal:\s+(\d+)/.exec(meminfo)[1]) / 1024),
    kernel: release(),
    disk: `${disk} (${cg.disk.dev}, ${rotational} as reported by the kernel)`,
    cgroup: `v${cg.version}`,
    io_source: cg.ioSource,
    data_dir: dataDir,
  };
}

// Counter value at time t (epoch ms), linearly interpolated between the polled samples.
export function counterAt(samples, t, field) {
  if (samples.length === 0) return NaN;
  if (t <= samples[0].t) return samples[0][field];
  for (let i = 1; i < samples.length; i++) {
    const a = samples[i - 1]; const b = samples[i];
    if (t <= b.t) return b.t === a.t ? b[field] : a[field] + (b[field] - a[field]) * (t - a.t) / (b.t - a.t);
  }
  return samples[samples.length - 1][field];
}

async function phaseWindows(jsonOut) {
  const win = {};
  const rl = createInterface({ input: createReadStream(jsonOut) });
  for await (const line of rl) {
    if (!line.includes('"writepath_phase_clock"') || !line.includes('"Point"')) continue;
    const p = JSON.parse(line);
    const phase = p.data.tags.phase;
    const v = p.data.value;
    if (!win[phase]) win[phase] = { start: v, end: v };
    win[phase].start = Math.min(win[phase].start, v);
    win[phase].end = Math.max(win[phase].end, v);
  }
  return win;
}

// bin/k6 directly rather than scripts/run: the driver picks RUN_ID and the result folder
// itself, and needs k6's JSON output next to InfluxDB's (when .run/env names one).
function runK6(env, args, logFile) {
  return new Promise((resolve) => {
    const log = createWriteStream(logFile);
    const child = spawn(path.join(repoRoot, 'bin', 'k6'), ['run', ...args], { cwd: repoRoot, env });
    child.stdout.pipe(log, { end: false });
    child.stderr.pipe(log, { end: false });
    child.on('exit', (code) => { log.end(); resolve(code); });
  });
}

function influxUrl() {
  if (process.env.WP_INFLUX === '0') return null;
  return process.env.INFLUX_URL || readRunEnv().INFLUX_URL || null;
}

async function runCell(k, server, indexes, regime, stamp) {
  const budgetMb = regime === 'fits' ? k.RAM_LARGE_MB : k.RAM_SMALL_MB;
  const cgName = `k6wp_ram_${k.RAM_PG_PORT}`;
  const cg = createCgroup(cgName, budgetMb * MB, server.dir);
  const runId = `ram_${stamp}_i${indexes}_${regime}`.slice(0, 32);
  const cellDir = path.join(k.RAM_OUT, `i${indexes}-${regime}`);
  mkdirSync(cellDir, { recursive: true });
  const cell = { indexes, regime, budget_mib: budgetMb, run_id: runId };
  let pid = null;
  try {
    if (server.running()) throw new Error(`a server already runs on ${server.data} (pid ${server.running()}): a driver still running, or one that was killed: stop it with scripts/pg-private.sh stop ${server.dir}`);
    pid = server.start(`-c max_connections=20 -c shared_buffers=${k.RAM_SHARED_BUFFERS_MB}MB -c huge_pages=off`, cg.procsFiles());
    if (!cg.contains(pid)) throw new Error(`postmaster ${pid} is not in cgroup ${cgName}`);
    cell.postmaster_in_cgroup = true;
    server.ensureDatabase('writepath');
    cell.machine = machine(server.data, cg);
    const jsonOut = path.join(cellDir, 'k6-points.json');
    const samples = [];
    const poll = () => samples.push({ t: Date.now(), ...cg.sample() });
    poll();
    const timer = setInterval(poll, POLL_MS);
    mkdirSync(path.join(k.RAM_OUT, 'k6', runId), { recursive: true });
    const influx = influxUrl();
    const env = {
      ...process.env,
      PWD: repoRoot,
      K6_INFLUXDB_TAGS_AS_FIELDS: process.env.K6_INFLUXDB_TAGS_AS_FIELDS || 'vu:int,iter:int,url',
      PG_URL: server.url('writepath'),
      RESULTS_DIR: path.join(k.RAM_OUT, 'k6'),
      RUN_ID: runId,
      PHASES: 'load,overwrite',
      VUS: '1',
      KEY_DIST: 'uniform',
      DOCS: String(k.DOCS), DOC_BYTES: String(k.DOC_BYTES), BATCH_SIZE: String(k.BATCH_SIZE),
      OVERWRITE_BATCHES: String(k.OVERWRITE_BATCHES), SEED: String(k.SEED), PG_INDEXES: String(indexes),
      THRESHOLDS: 'thresholds/postgres/experiment-ram.json',
      KEEP: '1', // the driver measures the table's size, then drops it
      K6_NO_USAGE_REPORT: 'true',
    };
    process.stdout.write(`experiment-ram: indexes=${indexes} regime=${regime} budget=${budgetMb} MiB: k6 run ${runId} … `);
    const t0 = Date.now();
    const outs = ['--out', `json=${jsonOut}`, ...(influx ? ['--out', `influxdb=${influx}`] : [])];
    cell.k6_exit = await runK6(env, ['--quiet', ...outs, '--tag', `testid=${runId}`, 'scenarios/postgres/insert-vs-overwrite.js'], path.join(cellDir, 'k6.log'));
    clearInterval(timer);
    poll();
    cell.wall_s = (Date.now() - t0) / 1000;
    console.log(`exit ${cell.k6_exit} in ${cell.wall_s.toFixed(0)} s`);
    const summaryFile = path.join(k.RAM_OUT, 'k6', runId, 'summary.json');
    if (!existsSync(summaryFile)) throw new Error(`k6 left no summary (exit ${cell.k6_exit}); see ${path.join(cellDir, 'k6.log')}`);
    const summary = JSON.parse(readFileSync(summaryFile, 'utf8'));
    cell.server = summary.server;
    cell.verification = summary.verification;
    cell.ratios = summary.ratios;
    const windows = await phaseWindows(jsonOut);
    cell.phases = summary.phases.map((ph) => {
      const w = windows[ph.phase];
      const d = (f) => (w ? counterAt(samples, w.end, f) - counterAt(samples, w.start, f) : null);
      const readBytes = d('readBytes');
      const readOps = d('readOps');
      return {
        phase: ph.phase, batches: ph.batches, docs_ok: ph.docs_ok, docs_failed: ph.docs_failed, batch_ms: ph.batch_ms,
        wall_s: w ? (w.end - w.start) / 1000 : null,
        read_mib: readBytes / MB, read_ops: Math.round(readOps), reads_per_doc: ph.docs_ok ? readOps / ph.docs_ok : null,
        sync_write_mib: d('writeBytes') / MB,
      };
    });
    const mem = cg.peak();
    cell.memory = { peak_mib: mem.peakBytes === null ? null : mem.peakBytes / MB, limit_hits: mem.limitHits,
      cache_mib_at_end: samples[samples.length - 1].cache / MB };
    const table = `public.k6wp_${runId}`;
    const sizes = server.psql(`select pg_relation_size('${table}'), pg_total_relation_size('${table}')`).split('|').map(Number);
    cell.table_mib = sizes[0] / MB;
    cell.table_total_mib = sizes[1] / MB;
    server.psql(`drop table ${table}`);
    writeFileSync(path.join(cellDir, 'io-samples.json'), JSON.stringify(samples));
  } catch (e) {
    cell.error = String(e.message || e);
    console.log(`failed: ${cell.error}`);
  } finally {
    server.stop('fast', 120);
    cell.cgroup_removed = cg.destroy();
  }
  return cell;
}

// One driver per port at a time: the port names the server, its data directory and the
// cgroup, and the tree is shared (another engineer's `make test` runs the scaled-down test).
function takeLock(k) {
  const dir = path.join(repoRoot, '.run', 'experiment-ram');
  mkdirSync(dir, { recursive: true });
  const lock = path.join(dir, `pg-${k.RAM_PG_PORT}.lock`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx' });
      process.on('exit', () => { try { unlinkSync(lock); } catch (_) { /* gone */ } });
      return;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      const pid = Number(readFileSync(lock, 'utf8'));
      let alive = false;
      try { process.kill(pid, 0); alive = true; } catch (_) { /* stale */ }
      if (alive) die(`RAM_PG_PORT=${k.RAM_PG_PORT} is in use by another experiment-ram run (pid ${pid}): wait for it, or choose another RAM_PG_PORT`);
      unlinkSync(lock);
    }
  }
}

function portBusy(port) {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port }, () => { s.destroy(); resolve(true); });
    s.on('error', () => resolve(false));
  });
}

async function main() {
  const k = readKnobs(process.env);
  if (process.getuid && process.getuid() !== 0) die('needs root: it creates a cgroup and writes its memory limit (run as root, or use the compose constrained profile)');
  if (!existsSync(path.join(repoRoot, 'bin', 'k6'))) die('bin/k6 is missing: run "make k6"');
  takeLock(k);
  if (await portBusy(k.RAM_PG_PORT)) die(`RAM_PG_PORT=${k.RAM_PG_PORT} is already in use by another program: choose a free port`);
  mkdirSync(k.RAM_OUT, { recursive: true });
  // The experiment's own server (never the shared one of `make up`): one data directory per port.
  const server = new PgServer(`experiment-ram/pg-${k.RAM_PG_PORT}`, k.RAM_PG_PORT, { db: 'writepath' }).init();
  const stamp = new Date().toISOString().replace(/[-:T]/g, '').slice(4, 12);
  console.log(`experiment-ram: DOCS=${k.DOCS} DOC_BYTES=${k.DOC_BYTES} (~${k.estimatedDataMb} MiB) BATCH_SIZE=${k.BATCH_SIZE} OVERWRITE_BATCHES=${k.OVERWRITE_BATCHES}; budgets fits=${k.RAM_LARGE_MB} MiB exceeds=${k.RAM_SMALL_MB} MiB; shared_buffers=${k.RAM_SHARED_BUFFERS_MB} MiB; indexes ${k.RAM_INDEXES.join(',')}; results in ${path.relative(repoRoot, k.RAM_OUT)}`);
  const started = new Date();
  const cells = [];
  let interrupted = false;
  const onSignal = () => { interrupted = true; };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  for (const indexes of k.RAM_INDEXES) {
    for (const regime of k.RAM_REGIMES) {
      if (interrupted) break;
      cells.push(await runCell(k, server, indexes, regime, stamp));
    }
  }
  const knobs = Object.fromEntries(Object.keys(KNOBS).map((n) => [n, k[n]]));
  const result = {
    tool: 'k6-writepath experiment-ram', started_at: started.toISOString(), finished_at: new Date().toISOString(),
    knobs: { ...knobs, RAM_INDEXES: k.RAM_INDEXES, RAM_REGIMES: k.RAM_REGIMES, VUS: 1, KEY_DIST: 'uniform', PHASES: ['load', 'overwrite'] },
    estimated_data_mib: k.estimatedDataMb, poll_ms: POLL_MS,
    machine: (cells.find((c) => c.machine) || {}).machine || null,
    cells: cells.map(({ machine: _m, ...rest }) => rest),
  };
  writeFileSync(path.join(k.RAM_OUT, 'experiment-ram.json'), JSON.stringify(result, null, 2));
  const md = renderMarkdown(result, { command: process.env.RAM_COMMAND || 'make experiment-ram' });
  mkdirSync(path.dirname(k.RAM_REPORT), { recursive: true });
  writeFileSync(k.RAM_REPORT, md);
  // A report kept outside the results folder (the recorded run in docs/) keeps its data next to it.
  if (process.env.RAM_REPORT) writeFileSync(k.RAM_REPORT.replace(/\.md$/, '') + '.json', JSON.stringify(result, null, 2));
  console.log(md);
  console.log(`experiment-ram: report ${path.relative(repoRoot, k.RAM_REPORT)}, data ${path.relative(repoRoot, path.join(k.RAM_OUT, 'experiment-ram.json'))}`);
  const ok = cells.length === k.RAM_INDEXES.length * k.RAM_REGIMES.length && cells.every((c) => !c.error && c.k6_exit === 0);
  process.exit(ok ? 0 : 1);
}

main().catch((e) => { console.error(`experiment-ram: ${e.stack || e}`); process.exit(1); });
