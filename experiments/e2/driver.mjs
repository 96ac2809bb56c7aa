// make experiment-e2: E2's tuning matrix (PostgreSQL upserts tuned for throughput) on a
// private PostgreSQL that this driver starts with each cell's server settings, through the
// pack's own scenario (scenarios/postgres/insert-vs-overwrite.js), and the baseline the post is
// named after, MongoDB, on a private mongod (scenarios/mongodb/insert-vs-overwrite.js), side by
// side, E2_REPS times interleaved. docs/experiment-e2.md.
//
// One cell = one configuration of experiments/e2/cells.mjs × one batch size: a fresh server
// start with the cell's settings inside a cgroup that only counts (CPU time, block I/O; no
// memory limit), one k6 run inside a CPU-accounting cgroup of its own, PHASES=load,mixed:
// E2_DOCS rows loaded, then E2_UPSERTS rows upserted (INSERT … ON CONFLICT DO UPDATE, a share
// E2_NEW_PERCENT of them new keys) by E2_VUS clients. The figure is upserts/s of the mixed phase,
// cut at its first batch start and last batch end (writepath_phase_clock); server and client
// CPU over the same window come from the cgroups, polled every POLL_MS.
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { cpus } from 'node:os';
import { createCgroup, createCpuGroup } from '../ram/cgroup.mjs';
import { PgServer } from '../../scripts/pg-private.mjs';
import { MongoServer } from '../../scripts/lib/mongo-private.mjs';
import { ALL_CELLS, CELL_NAMES } from './cells.mjs';
import { renderE2 } from './report.mjs';
import { KNOBS as PACK_KNOBS } from '../../lib/config.js';
import { RUN_ID_MAX } from '../../lib/knobs.js';
import { toolKnob } from '../../scripts/lib/kit.mjs';
import { counterAt, finishCampaign, signalsBetweenCells, dieWith, load1, machineCpu, machineFacts, packIntKnob, phaseWindows, toolIntKnob, portBusy, readIntKnobs, repoRoot, runScenario, stampNow, takeLock } from '../common.mjs';

const TOOL = 'experiment-e2';
const POLL_MS = 100;
const die = dieWith(TOOL);

const KNOBS = {
  E2_DOCS:        toolIntKnob('E2_DOCS'),
  E2_UPSERTS:     toolIntKnob('E2_UPSERTS'),
  E2_NEW_PERCENT: toolIntKnob('E2_NEW_PERCENT'),
  E2_VUS:         toolIntKnob('E2_VUS'),
  E2_SHARED_BUFFERS_MB: toolIntKnob('E2_SHARED_BUFFERS_MB'),
  DOC_BYTES:      packIntKnob('DOC_BYTES', 1200, 'approximate size of one row\'s jsonb document'),
  SEED:           packIntKnob('SEED', 1, 'seed of keys and payloads'),
  E2_PG_PORT:     toolIntKnob('E2_PG_PORT'),
  E2_MONGO_PORT:  toolIntKnob('E2_MONGO_PORT'),
  E2_MONGO_CACHE_MB: toolIntKnob('E2_MONGO_CACHE_MB'),
  E2_REPS:        toolIntKnob('E2_REPS'),
};

function readKnobs(env) {
  const k = readIntKnobs(TOOL, KNOBS, env);
  // The cells' names are this experiment's own (cells.mjs); the rest of the rule is E2_CELLS's declaration.
  k.E2_CELLS = toolKnob(TOOL, env, 'E2_CELLS', { def: CELL_NAMES, spec: { ...PACK_KNOBS.E2_CELLS, values: CELL_NAMES, allowed: `a comma-separated list of distinct cells from ${CELL_NAMES.join(', ')}` } });
  k.E2_BATCH_SIZES = toolKnob(TOOL, env, 'E2_BATCH_SIZES').map(Number);
  for (const b of k.E2_BATCH_SIZES) {
    if (k.E2_UPSERTS % b !== 0) die(`E2_UPSERTS=${k.E2_UPSERTS} is not allowed with E2_BATCH_SIZES=${k.E2_BATCH_SIZES.join(',')}: a multiple of every batch size (${b} does not divide it), so every cell upserts exactly E2_UPSERTS rows`);
    const newPer = Math.round(b * k.E2_NEW_PERCENT / 100);
    // The pack's plan: the existing keys of a mixed batch are drawn among the keys one VU loaded.
    if (b - newPer > Math.floor(k.E2_DOCS / k.E2_VUS / b) * b) die(`E2_DOCS=${k.E2_DOCS} is not allowed with batch size ${b}, E2_VUS=${k.E2_VUS} and E2_NEW_PERCENT=${k.E2_NEW_PERCENT}: each client must have loaded at least the ${b - newPer} existing keys of one upsert batch; raise E2_DOCS`);
  }
  const out = toolKnob(TOOL, env, 'E2_OUT') || path.join('results', 'experiment-e2', new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '').replace('T', '_'));
  k.E2_OUT = path.resolve(repoRoot, out);
  const report = toolKnob(TOOL, env, 'E2_REPORT');
  k.E2_REPORT = report ? path.resolve(repoRoot, report) : path.join(k.E2_OUT, 'report.md');
  k.E2_COMMAND = toolKnob(TOOL, env, 'E2_COMMAND', { def: 'make experiment-e2' });
  if (k.E2_MONGO_PORT === k.E2_PG_PORT) die(`E2_MONGO_PORT=${k.E2_MONGO_PORT} is not allowed: another port than E2_PG_PORT`);
  return k;
}

// The phases of one cell's run, with CPU cut at each phase's window (server cgroup, k6 cgroup,
// the whole machine), from the polled samples.
async function phasesOf(summary, samples, jsonOut) {
  const windows = await phaseWindows(jsonOut);
  const ncpu = cpus().length;
  return summary.phases.map((ph) => {
    const w = windows[ph.phase];
    const d = (f) => (w ? counterAt(samples, w.end, f) - counterAt(samples, w.start, f) : null);
    const wallS = w ? (w.end - w.start) / 1000 : null;
    const serverS = d('cpuNs') / 1e9;
    const clientS = d('clientNs') / 1e9;
    const machineJ = d('machineTotal');
    // /proc/stat jiffies of all CPUs: busy share × CPUs × wall = CPU-seconds used by anyone.
    const machineS = machineJ ? d('machineBusy') / machineJ * ncpu * wallS : null;
    return {
      phase: ph.phase, batches: ph.batches, docs_ok: ph.docs_ok, docs_failed: ph.docs_failed, batch_ms: ph.batch_ms,
      wall_s: wallS, rows_per_s: wallS ? ph.docs_ok / wallS : null,
      server_cpu_s: serverS, client_cpu_s: clientS,
      server_cores: wallS ? serverS / wallS : null, client_cores: wallS ? clientS / wallS : null,
      client_share: serverS + clientS > 0 ? clientS / (serverS + clientS) : null,
      others_cores: machineS === null ? null : Math.max(0, machineS - serverS - clientS) / wallS,
      sync_write_mib: d('writeBytes') / (1024 * 1024),
    };
  });
}

// The knobs every cell's k6 run gets (E2's workload), plus the cell's own.
function workloadKnobs(k, batch, def) {
  return {
    PHASES: 'load,mixed',
    VUS: String(k.E2_VUS),
    DOCS: String(k.E2_DOCS), DOC_BYTES: String(k.DOC_BYTES), BATCH_SIZE: String(batch), SEED: String(k.SEED),
    MIXED_BATCHES: String(k.E2_UPSERTS / batch), MIXED_NEW_PERCENT: String(k.E2_NEW_PERCENT), MIXED_OP: 'upsert',
    ...Object.fromEntries(Object.entries(def.pack).map(([n, v]) => [n, String(v)])),
    THRESHOLDS: `thresholds/${def.target}/experiment-e2.json`,
  };
}

function sharedBuffersOf(k, cell) { return cell.bigBuffers ? k.E2_SHARED_BUFFERS_MB : 128; } // 128 MB: PostgreSQL's default

async function runCell(k, server, def, batch, stamp, rep) {
  const id = `${def.name}-b${batch}${k.E2_REPS > 1 ? `-r${rep}` : ''}`;
  const cellDir = path.join(k.E2_OUT, id);
  mkdirSync(cellDir, { recursive: true });
  const runId = `e2_${stamp}_${def.name.replace(/-/g, '')}_${batch}${k.E2_REPS > 1 ? `_${rep}` : ''}`.slice(0, RUN_ID_MAX);
  const cell = { config: def.name, target: 'postgres', batch_size: batch, rep, run_id: runId, pack: def.pack, server_settings: def.server };
  const cg = createCgroup(`k6wp_e2_${k.E2_PG_PORT}`, null, server.dir);
  const client = createCpuGroup(`k6wp_e2_${k.E2_PG_PORT}_k6`);
  try {
    const pid = server.start(['max_connections=20', `shared_buffers=${sharedBuffersOf(k, def)}MB`, 'huge_pages=off', ...def.server], cg.procsFiles());
    if (!cg.contains(pid)) throw new Error(`postmaster ${pid} is not in cgroup k6wp_e2_${k.E2_PG_PORT}`);
    server.ensureDatabase();
    cell.machine = machineFacts(cg);
    // The settings in force, from the server itself: the report shows these, not the intent.
    const names = ['synchronous_commit', 'shared_buffers', 'max_wal_size', 'min_wal_size', 'commit_delay', 'effective_io_concurrency', 'fsync', 'wal_level'];
    cell.server_in_force = Object.fromEntries(server.psql(`select name || '=' || current_setting(name) from pg_settings where name in (${names.map((n) => `'${n}'`).join(',')}) order by name`)
      .split('\n').map((l) => l.split('=')));
    const jsonOut = path.join(cellDir, 'k6-points.json');
    const samples = [];
    const poll = () => { const m = machineCpu(); samples.push({ t: Date.now(), ...cg.sample(), clientNs: client.cpuNs(), machineBusy: m.busy, machineTotal: m.total }); };
    poll();
    const timer = setInterval(poll, POLL_MS);
    const knobs = {
      PG_URL: server.url(),
      ...workloadKnobs(k, batch, def),
      KEEP: '1', // the driver checks the table's persistence and indexes, then drops it
    };
    process.stdout.write(`${TOOL}: ${def.name} batch=${batch}: k6 run ${runId} … `);
    cell.load1_start = load1();
    const summary = await runScenario(cell, { knobs, runId, resultsDir: path.join(k.E2_OUT, 'k6'), cellDir, jsonOut, procsFiles: client.procsFiles(),
      stopped: () => { clearInterval(timer); poll(); } });
    cell.server = summary.server;
    cell.verification = summary.verification;
    cell.phases = await phasesOf(summary, samples, jsonOut);
    const table = `public.k6wp_${runId}`;
    const [persistence, indexes] = server.psql(`select c.relpersistence, (select count(*) from pg_index i where i.indrelid = c.oid and not i.indisprimary) from pg_class c where c.oid = '${table}'::regclass`).split('|');
    cell.table = { persistence: persistence === 'u' ? 'unlogged' : persistence === 'p' ? 'logged' : persistence, secondary_indexes: Number(indexes) };
    server.psql(`drop table ${table}`);
  } catch (e) {
    cell.error = String(e.message || e);
    console.log(`failed: ${cell.error}`);
  } finally {
    server.stop('fast', 120);
    cell.cgroups_removed = cg.destroy() && client.destroy();
  }
  return cell;
}

// One MongoDB cell: the driver's mongod started fresh inside the counting cgroup (a cold cache,
// as the PostgreSQL cells get), one k6 run of the MongoDB scenario, the settings as the run
// read them back from the server (indexes, write concern, WiredTiger cache), mongod stopped.
async function runMongoCell(k, server, def, batch, stamp, rep) {
  const id = `${def.name}-b${batch}${k.E2_REPS > 1 ? `-r${rep}` : ''}`;
  const cellDir = path.join(k.E2_OUT, id);
  mkdirSync(cellDir, { recursive: true });
  const runId = `e2_${stamp}_${def.name.replace(/-/g, '')}_${batch}${k.E2_REPS > 1 ? `_${rep}` : ''}`.slice(0, RUN_ID_MAX);
  const cell = { config: def.name, target: 'mongodb', batch_size: batch, rep, run_id: runId, pack: def.pack, server_settings: [`wiredTigerCacheSizeGB=${k.E2_MONGO_CACHE_MB / 1024}`] };
  const cg = createCgroup(`k6wp_e2_${k.E2_MONGO_PORT}`, null, server.dir);
  const client = createCpuGroup(`k6wp_e2_${k.E2_MONGO_PORT}_k6`);
  try {
    const pid = server.start([], cg.procsFiles());
    if (!cg.contains(pid)) throw new Error(`mongod ${pid} is not in cgroup k6wp_e2_${k.E2_MONGO_PORT}`);
    cell.machine = machineFacts(cg);
    const jsonOut = path.join(cellDir, 'k6-points.json');
    const samples = [];
    const poll = () => { const m = machineCpu(); samples.push({ t: Date.now(), ...cg.sample(), clientNs: client.cpuNs(), machineBusy: m.busy, machineTotal: m.total }); };
    poll();
    const timer = setInterval(poll, POLL_MS);
    const knobs = { MONGO_URL: server.url(), ...workloadKnobs(k, batch, def) };
    process.stdout.write(`${TOOL}: ${def.name} batch=${batch}${k.E2_REPS > 1 ? ` rep ${rep}` : ''}: k6 run ${runId} … `);
    cell.load1_start = load1();
    const summary = await runScenario(cell, { knobs, runId, resultsDir: path.join(k.E2_OUT, 'k6'), cellDir, jsonOut, procsFiles: client.procsFiles(),
      scenario: 'scenarios/mongodb/insert-vs-overwrite.js', stopped: () => { clearInterval(timer); poll(); } });
    cell.server = summary.server;
    cell.verification = summary.verification;
    cell.phases = await phasesOf(summary, samples, jsonOut);
    const st = (summary.server && summary.server.settings) || {};
    cell.server_in_force = { wiredtiger_cache: st.wiredtiger_cache, journal_commit_interval_ms: st.journal_commit_interval_ms, server_default_write_concern: st.server_default_write_concern };
    // As the run found them on the server (lib/targets/mongodb/mongodb.js reads them back).
    cell.table = { secondary_indexes: st.MONGO_INDEXES === undefined ? null : st.MONGO_INDEXES === '0' ? 0 : st.MONGO_INDEXES.split('+').length, write_concern: st.write_concern };
  } catch (e) {
    cell.error = String(e.message || e);
    console.log(`failed: ${cell.error}`);
  } finally {
    server.stop(120);
    cell.cgroups_removed = cg.destroy() && client.destroy();
  }
  return cell;
}

async function main() {
  const k = readKnobs(process.env);
  const refuse = dieWith(TOOL, 1);
  if (process.getuid && process.getuid() !== 0) refuse('needs root: it creates cgroups to count the server\'s and the client\'s CPU time');
  if (!existsSync(path.join(repoRoot, 'bin', 'k6'))) refuse('bin/k6 is missing: run "make k6"');
  const defs = k.E2_CELLS.map((n) => ALL_CELLS.find((c) => c.name === n));
  const pgNeeded = defs.some((d) => d.target === 'postgres');
  const mongoNeeded = defs.some((d) => d.target === 'mongodb');
  if (pgNeeded) {
    takeLock(TOOL, 'E2_PG_PORT', k.E2_PG_PORT);
    if (await portBusy(k.E2_PG_PORT)) refuse(`E2_PG_PORT=${k.E2_PG_PORT} is already in use by another program: choose a free port`);
  }
  if (mongoNeeded) {
    takeLock(TOOL, 'E2_MONGO_PORT', k.E2_MONGO_PORT);
    if (await portBusy(k.E2_MONGO_PORT)) refuse(`E2_MONGO_PORT=${k.E2_MONGO_PORT} is already in use by another program: choose a free port`);
  }
  mkdirSync(k.E2_OUT, { recursive: true });
  const server = pgNeeded ? new PgServer(`${TOOL}/pg-${k.E2_PG_PORT}`, k.E2_PG_PORT, { db: 'writepath' }) : null;
  if (server) server.init();
  const mongoServer = mongoNeeded ? new MongoServer(`${TOOL}/mongo-${k.E2_MONGO_PORT}`, k.E2_MONGO_PORT, { cacheGB: k.E2_MONGO_CACHE_MB / 1024 }) : null;
  if (mongoServer) {
    mongoServer.init();
    if (mongoServer.running()) mongoServer.stop(60); // left by an interrupted earlier run of this port
  }
  const stamp = stampNow();
  console.log(`${TOOL}: cells ${k.E2_CELLS.join(',')} × batch sizes ${k.E2_BATCH_SIZES.join(',')}${k.E2_REPS > 1 ? ` × ${k.E2_REPS} repetitions (interleaved)` : ''}; E2_DOCS=${k.E2_DOCS} loaded, E2_UPSERTS=${k.E2_UPSERTS} upserted (${k.E2_NEW_PERCENT}% new keys) by ${k.E2_VUS} clients; results in ${path.relative(repoRoot, k.E2_OUT)}`);
  const started = new Date();
  const cells = [];
  // The signal that stopped the campaign (the cell it met is cut short: k6 gets it too); the
  // report says so at its top.
  const signals = signalsBetweenCells();
  for (let rep = 1; rep <= k.E2_REPS; rep++) {
    for (const def of defs) {
      for (const batch of k.E2_BATCH_SIZES) {
        if (signals.signal) break;
        cells.push(def.target === 'mongodb' ? await runMongoCell(k, mongoServer, def, batch, stamp, rep) : await runCell(k, server, def, batch, stamp, rep));
      }
    }
  }
  const knobs = Object.fromEntries(Object.keys(KNOBS).map((n) => [n, k[n]]));
  const result = {
    tool: `k6-writepath ${TOOL}`, started_at: started.toISOString(), finished_at: new Date().toISOString(),
    knobs: { ...knobs, E2_CELLS: k.E2_CELLS, E2_BATCH_SIZES: k.E2_BATCH_SIZES, PHASES: ['load', 'mixed'], MIXED_OP: 'upsert' },
    mongo_version: mongoServer ? (cells.find((c) => c.target === 'mongodb' && c.server) || {}).server?.serverVersion || null : null,
    poll_ms: POLL_MS,
    planned_cells: k.E2_CELLS.length * k.E2_BATCH_SIZES.length * k.E2_REPS,
    interrupted: signals.signal,
    machine: (cells.find((c) => c.machine) || {}).machine || null,
    cells: cells.map(({ machine: _m, ...rest }) => rest),
  };
  finishCampaign(TOOL, result, { dataFile: path.join(k.E2_OUT, 'experiment-e2.json'), reportFile: k.E2_REPORT,
    md: renderE2(result, { command: k.E2_COMMAND }), dataBesideReport: Boolean(toolKnob(TOOL, process.env, 'E2_REPORT')) });
}

main().catch((e) => { console.error(`${TOOL}: ${e.stack || e}`); process.exit(1); });
