// make experiment-ram: E1 (insert vs. insert-with-overwrite) on a private PostgreSQL (or, with
// RAM_TARGET=mongodb, a private mongod: scripts/mongo-private.sh), once
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
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { totalmem } from 'node:os';
import path from 'node:path';
import { capText, createCgroup, readCapProblem } from './cgroup.mjs';
import { PgServer } from '../../scripts/pg-private.mjs';
import { MongoServer } from '../../scripts/lib/mongo-private.mjs';
import { renderMarkdown } from './report.mjs';
import { KNOBS as PACK_KNOBS } from '../../lib/config.js';
import { RUN_ID_MAX } from '../../lib/knobs.js';
import { toolKnob } from '../../scripts/lib/kit.mjs';
import { MB, counterAt, finishCampaign, signalsBetweenCells, dieWith, load1, machineFacts, packIntKnob, phaseWindows, toolIntKnob, portBusy, readIntKnobs, readPackKnob, repoRoot, runScenario, stampNow, takeLock } from '../common.mjs';

const POLL_MS = 100;
const TOOL = 'experiment-ram';

// The driver's knobs. DOCS, DOC_BYTES, BATCH_SIZE, OVERWRITE_BATCHES and SEED are the
// pack's own k6 knobs: their ranges come from lib/config.js (the one home), with larger
// defaults here, and OVERWRITE_BATCHES at least 1 (the experiment measures the overwrite
// phase). The RAM_* knobs are declared in lib/knobs.js (scope tool:ram) with the others.
const KNOBS = {
  DOCS:              packIntKnob('DOCS', 1000000, 'documents loaded per cell'),
  DOC_BYTES:         packIntKnob('DOC_BYTES', 1200, 'approximate document size (E1: ~1200)'),
  BATCH_SIZE:        packIntKnob('BATCH_SIZE', 1000, 'documents per statement (E1: 10000)'),
  OVERWRITE_BATCHES: packIntKnob('OVERWRITE_BATCHES', 50, 'overwrite batches per cell', 1),
  SEED:              packIntKnob('SEED', 1, 'seed of keys and payloads'),
  RAM_SMALL_MB:      toolIntKnob('RAM_SMALL_MB'),
  RAM_LARGE_MB:      toolIntKnob('RAM_LARGE_MB'),
  RAM_SHARED_BUFFERS_MB: toolIntKnob('RAM_SHARED_BUFFERS_MB'),
  RAM_MIN_RATIO:     toolIntKnob('RAM_MIN_RATIO'),
  RAM_PG_PORT:       toolIntKnob('RAM_PG_PORT'),
  RAM_MONGO_PORT:    toolIntKnob('RAM_MONGO_PORT'),
  RAM_WT_CACHE_MB:   toolIntKnob('RAM_WT_CACHE_MB'),
  RAM_READ_IOPS:     toolIntKnob('RAM_READ_IOPS'),
  RAM_READ_MBPS:     toolIntKnob('RAM_READ_MBPS'),
};

const die = dieWith(TOOL);

// The target's own parts: its server, its knobs, what must fit inside the budget next to the
// data (PostgreSQL: shared_buffers and the backends; mongod: its WiredTiger cache and its own
// memory, ~200 MiB measured on 6.0.5 with a 256 MiB cache).
const TARGETS = {
  postgres: { port: 'RAM_PG_PORT', cache: 'RAM_SHARED_BUFFERS_MB', base: 48, scenario: 'scenarios/postgres/insert-vs-overwrite.js', indexKnob: 'PG_INDEXES' },
  mongodb: { port: 'RAM_MONGO_PORT', cache: 'RAM_WT_CACHE_MB', base: 200, scenario: 'scenarios/mongodb/insert-vs-overwrite.js', indexKnob: 'MONGO_INDEXES' },
};

function readKnobs(env) {
  const k = readIntKnobs(TOOL, KNOBS, env);
  k.RAM_TARGET = toolKnob(TOOL, env, 'RAM_TARGET');
  const T = TARGETS[k.RAM_TARGET];
  // Each index count is one the target's own knob takes (PG_INDEXES, MONGO_INDEXES): its bounds are that declaration's.
  const ix = PACK_KNOBS[T.indexKnob];
  k.RAM_INDEXES = toolKnob(TOOL, env, 'RAM_INDEXES', { spec: { ...PACK_KNOBS.RAM_INDEXES, item: ix, allowed: `a comma-separated list of distinct index counts (${T.indexKnob}) from ${ix.min} to ${ix.max}, e.g. 0,3` } }).map(Number);
  k.RAM_REGIMES = toolKnob(TOOL, env, 'RAM_REGIMES');
  if (k.BATCH_SIZE > k.DOCS) die(`BATCH_SIZE=${k.BATCH_SIZE} is not allowed with DOCS=${k.DOCS}: an overwrite batch picks distinct keys among the loaded ones; use at most ${k.DOCS}`);
  // Rough size of the table with its primary key (measured: ~1570 bytes a document of
  // DOC_BYTES=1200 with the primary key only),
  // enough to refuse budgets that would not make the regimes what they claim to be; the
  // report shows the real size measured after the load.
  k.estimatedDataMb = Math.ceil(k.DOCS * (k.DOC_BYTES + 380) / MB);
  const headroom = k[T.cache] + T.base;
  if (k.RAM_REGIMES.includes('exceeds') && k.RAM_SMALL_MB < headroom) {
    die(`RAM_SMALL_MB=${k.RAM_SMALL_MB} is not allowed: at least ${T.cache} + ${T.base} = ${headroom} (${k.RAM_TARGET === 'mongodb' ? 'the WiredTiger cache and mongod itself' : 'shared_buffers and the backends'} must fit, or the kernel OOM-kills the server)`);
  }
  if (k.RAM_REGIMES.includes('exceeds') && k.estimatedDataMb < k.RAM_MIN_RATIO * k.RAM_SMALL_MB) {
    die(`RAM_SMALL_MB=${k.RAM_SMALL_MB} is not allowed with DOCS=${k.DOCS} and DOC_BYTES=${k.DOC_BYTES}: the data (~${k.estimatedDataMb} MiB) must be at least RAM_MIN_RATIO=${k.RAM_MIN_RATIO} times the budget; use at most ${Math.floor(k.estimatedDataMb / k.RAM_MIN_RATIO)} or raise DOCS`);
  }
  const fitsNeed = 2 * k.estimatedDataMb + k[T.cache] + 256;
  if (k.RAM_REGIMES.includes('fits') && k.RAM_LARGE_MB < fitsNeed) {
    die(`RAM_LARGE_MB=${k.RAM_LARGE_MB} is not allowed with DOCS=${k.DOCS} and DOC_BYTES=${k.DOC_BYTES}: at least ${fitsNeed} (twice the ~${k.estimatedDataMb} MiB of data for ${k.RAM_TARGET === 'mongodb' ? 'collection + journal' : 'table + WAL'} in page cache, ${T.cache}, 256 MiB for the server)`);
  }
  if (k.RAM_LARGE_MB * MB > totalmem() * 0.8) {
    die(`RAM_LARGE_MB=${k.RAM_LARGE_MB} is not allowed: this machine has ${Math.floor(totalmem() / MB)} MiB; at most 80% of it (${Math.floor(totalmem() * 0.8 / MB)}), or lower DOCS`);
  }
  const out = toolKnob(TOOL, env, 'RAM_OUT') || path.join('results', 'experiment-ram', new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '').replace('T', '_'));
  k.RAM_OUT = path.resolve(repoRoot, out);
  const report = toolKnob(TOOL, env, 'RAM_REPORT');
  k.RAM_REPORT = report ? path.resolve(repoRoot, report) : path.join(k.RAM_OUT, 'report.md');
  k.RAM_COMMAND = toolKnob(TOOL, env, 'RAM_COMMAND', { def: 'make experiment-ram' });
  k.readCap = { iops: k.RAM_READ_IOPS, bps: k.RAM_READ_MBPS * 1e6 };
  return k;
}

async function runCell(k, server, indexes, regime, stamp) {
  const T = TARGETS[k.RAM_TARGET];
  const mongo = k.RAM_TARGET === 'mongodb';
  const budgetMb = regime === 'fits' ? k.RAM_LARGE_MB : k.RAM_SMALL_MB;
  const cgName = `k6wp_ram_${k[T.port]}`;
  const cg = createCgroup(cgName, budgetMb * MB, server.dir);
  const runId = `ram_${stamp}_i${indexes}_${regime}`.slice(0, RUN_ID_MAX);
  const cellDir = path.join(k.RAM_OUT, `i${indexes}-${regime}`);
  mkdirSync(cellDir, { recursive: true });
  const cell = { indexes, regime, budget_mib: budgetMb, run_id: runId };
  let pid = null;
  try {
    if (k.readCap.iops || k.readCap.bps) {
      // Read back from the kernel: the report states the rule in force, not the one intended.
      const inForce = cg.setReadCap(k.readCap);
      cell.read_cap = { requested: k.readCap, in_force: inForce };
      if (inForce.iops !== k.readCap.iops || inForce.bps !== k.readCap.bps) throw new Error(`the read cap did not take: asked ${JSON.stringify(k.readCap)}, the kernel shows ${JSON.stringify(inForce)}`);
    }
    pid = mongo ? server.start([], cg.procsFiles()) : server.start(['max_connections=20', `shared_buffers=${k.RAM_SHARED_BUFFERS_MB}MB`, 'huge_pages=off'], cg.procsFiles());
    if (!cg.contains(pid)) throw new Error(`${mongo ? 'mongod' : 'postmaster'} ${pid} is not in cgroup ${cgName}`);
    cell.postmaster_in_cgroup = true;
    if (!mongo) server.ensureDatabase();
    cell.machine = { ...machineFacts(cg), data_dir: server.data };
    cell.load1_start = load1();
    const jsonOut = path.join(cellDir, 'k6-points.json');
    const samples = [];
    const poll = () => samples.push({ t: Date.now(), ...cg.sample() });
    poll();
    const timer = setInterval(poll, POLL_MS);
    const knobs = {
      ...(mongo ? { MONGO_URL: server.url() } : { PG_URL: server.url() }),
      PHASES: 'load,overwrite',
      VUS: '1',
      KEY_DIST: 'uniform',
      DOCS: String(k.DOCS), DOC_BYTES: String(k.DOC_BYTES), BATCH_SIZE: String(k.BATCH_SIZE),
      OVERWRITE_BATCHES: String(k.OVERWRITE_BATCHES), SEED: String(k.SEED), [T.indexKnob]: String(indexes),
      TIMEOUT: k.TIMEOUT, MAX_DURATION: k.MAX_DURATION,
      THRESHOLDS: `thresholds/${k.RAM_TARGET}/experiment-ram.json`,
      KEEP: '1', // the driver measures the table's (collection's) size, then drops it
    };
    process.stdout.write(`experiment-ram: indexes=${indexes} regime=${regime} budget=${budgetMb} MiB: k6 run ${runId} … `);
    const summary = await runScenario(cell, { knobs, runId, resultsDir: path.join(k.RAM_OUT, 'k6'), cellDir, jsonOut, scenario: T.scenario,
      stopped: () => { clearInterval(timer); poll(); } });
    cell.server = summary.server;
    cell.verification = summary.verification;
    cell.ratios = summary.ratios;
    const windows = await phaseWindows(jsonOut);
    cell.phases = summary.phases.map((ph) => {
      const w = windows[ph.phase];
      const d = (f) => (w ? counterAt(samples, w.end, f) - counterAt(samples, w.start, f) : null);
      const readBytes = d('readBytes');
      const readOps = d('readOps');
      const wallS = w ? (w.end - w.start) / 1000 : null;
      return {
        phase: ph.phase, batches: ph.batches, docs_ok: ph.docs_ok, docs_failed: ph.docs_failed, batch_ms: ph.batch_ms,
        wall_s: wallS,
        read_mib: readBytes / MB, read_ops: Math.round(readOps), reads_per_doc: ph.docs_ok ? readOps / ph.docs_ok : null,
        // Observed, so that a cap is proven rather than assumed: the group's read operations
        // and bytes over the phase's wall time.
        read_iops: wallS ? readOps / wallS : null, read_mbps: wallS ? readBytes / 1e6 / wallS : null,
        server_cpu_s: d('cpuNs') / 1e9,
        sync_write_mib: d('writeBytes') / MB,
      };
    });
    const mem = cg.peak();
    cell.memory = { peak_mib: mem.peakBytes === null ? null : mem.peakBytes / MB, limit_hits: mem.limitHits,
      cache_mib_at_end: samples[samples.length - 1].cache / MB };
    if (mongo) {
      // The collection as WiredTiger stores it (compressed, snappy by default) and its indexes.
      const st = server.stats(`k6wp_${runId}`);
      cell.table_mib = st.storage / MB;
      cell.table_total_mib = (st.storage + st.indexes) / MB;
      cell.data_uncompressed_mib = st.size / MB;
      server.dropDatabase(`k6wp_${runId}`);
    } else {
      const table = `public.k6wp_${runId}`;
      const sizes = server.psql(`select pg_relation_size('${table}'), pg_total_relation_size('${table}')`).split('|').map(Number);
      cell.table_mib = sizes[0] / MB;
      cell.table_total_mib = sizes[1] / MB;
      server.psql(`drop table ${table}`);
    }
    writeFileSync(path.join(cellDir, 'io-samples.json'), JSON.stringify(samples));
  } catch (e) {
    cell.error = String(e.message || e);
    console.log(`failed: ${cell.error}`);
  } finally {
    if (mongo) server.stop(120); else server.stop('fast', 120);
    if (cell.read_cap) {
      try { cell.read_cap.after_removal = cg.clearReadCap(); } catch (e) { cell.read_cap.after_removal = String(e.message || e); }
    }
    cell.cgroup_removed = cg.destroy();
  }
  return cell;
}

async function main() {
  const k = readKnobs(process.env);
  // The pack's per-batch timeout and scenario bound, wide by default here: with E1's disk one
  // overwrite batch of 10 000 took up to 125 s in E1, and longer on a slower read path. A batch
  // that still exceeds TIMEOUT is a failed batch in the report, never hidden.
  k.TIMEOUT = await readPackKnob(TOOL, process.env, 'TIMEOUT', '1800s');
  k.MAX_DURATION = await readPackKnob(TOOL, process.env, 'MAX_DURATION', '6h');
  const refuse = dieWith(TOOL, 1);
  if (process.getuid && process.getuid() !== 0) refuse('needs root: it creates a cgroup and writes its memory limit (run as root, or use the compose constrained profile)');
  if (!existsSync(path.join(repoRoot, 'bin', 'k6'))) refuse('bin/k6 is missing: run "make k6"');
  const T = TARGETS[k.RAM_TARGET];
  const port = k[T.port];
  takeLock(TOOL, T.port, port);
  if (await portBusy(port)) refuse(`${T.port}=${port} is already in use by another program: choose a free port`);
  mkdirSync(k.RAM_OUT, { recursive: true });
  const server = k.RAM_TARGET === 'mongodb'
    ? new MongoServer(`${TOOL}/mongo-${port}`, port, { cacheGB: k.RAM_WT_CACHE_MB / 1024 })
    : new PgServer(`${TOOL}/pg-${port}`, port, { db: 'writepath' });
  if (k.readCap.iops || k.readCap.bps) {
    const problem = readCapProblem(server.dir);
    if (problem) refuse(`RAM_READ_IOPS/RAM_READ_MBPS cannot apply: ${problem}`);
  }
  server.init();
  if (k.RAM_TARGET === 'mongodb' && server.running()) server.stop(60); // left by an interrupted earlier run
  const stamp = stampNow();
  const cap = k.readCap.iops || k.readCap.bps ? `; read cap ${capText(k.readCap)} in both regimes` : '';
  console.log(`experiment-ram: DOCS=${k.DOCS} DOC_BYTES=${k.DOC_BYTES} (~${k.estimatedDataMb} MiB) BATCH_SIZE=${k.BATCH_SIZE} OVERWRITE_BATCHES=${k.OVERWRITE_BATCHES}; budgets fits=${k.RAM_LARGE_MB} MiB exceeds=${k.RAM_SMALL_MB} MiB; ${k.RAM_TARGET === 'mongodb' ? `mongod, WiredTiger cache ${k.RAM_WT_CACHE_MB}` : `shared_buffers=${k.RAM_SHARED_BUFFERS_MB}`} MiB; indexes ${k.RAM_INDEXES.join(',')}${cap}; results in ${path.relative(repoRoot, k.RAM_OUT)}`);
  const started = new Date();
  const cells = [];
  // The signal that stopped the campaign (the cell it met is cut short: k6 gets it too); the
  // report says so at its top and leaves that cell out of its tables.
  const signals = signalsBetweenCells();
  for (const indexes of k.RAM_INDEXES) {
    for (const regime of k.RAM_REGIMES) {
      if (signals.signal) break;
      cells.push(await runCell(k, server, indexes, regime, stamp));
    }
  }
  const knobs = Object.fromEntries(Object.keys(KNOBS).map((n) => [n, k[n]]));
  const result = {
    tool: 'k6-writepath experiment-ram', started_at: started.toISOString(), finished_at: new Date().toISOString(),
    knobs: { ...knobs, RAM_TARGET: k.RAM_TARGET, TIMEOUT: k.TIMEOUT, MAX_DURATION: k.MAX_DURATION, RAM_INDEXES: k.RAM_INDEXES, RAM_REGIMES: k.RAM_REGIMES, VUS: 1, KEY_DIST: 'uniform', PHASES: ['load', 'overwrite'] },
    estimated_data_mib: k.estimatedDataMb, poll_ms: POLL_MS,
    planned_cells: k.RAM_INDEXES.length * k.RAM_REGIMES.length,
    interrupted: signals.signal,
    machine: (cells.find((c) => c.machine) || {}).machine || null,
    cells: cells.map(({ machine: _m, ...rest }) => rest),
  };
  finishCampaign(TOOL, result, { dataFile: path.join(k.RAM_OUT, 'experiment-ram.json'), reportFile: k.RAM_REPORT,
    md: renderMarkdown(result, { command: k.RAM_COMMAND }), dataBesideReport: Boolean(toolKnob(TOOL, process.env, 'RAM_REPORT')) });
}

main().catch((e) => { console.error(`experiment-ram: ${e.stack || e}`); process.exit(1); });
