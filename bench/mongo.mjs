// The MongoDB rows of `make bench` (bench/README.md), also runnable alone:
//   node bench/mongo.mjs          (prints its section of RESULTS.md; writes nothing)
// On the benchmark's own mongod (scripts/mongo-private.sh, port BENCH_MONGO_PORT, default 17496,
// data in .run/bench/mongo, started and stopped here), interleaved per repetition:
//   1. the pack: scenarios/mongodb/insert-vs-overwrite.js, PHASES=load,overwrite,mixed, batches
//      of 1000, 2 VUs, BENCH_MONGO_DOCS loaded, BENCH_MONGO_BATCHES overwrite batches (uniform
//      random existing keys) and as many mixed batches with 50 % new keys (E2's upsert workload);
//   2. the floor: bench/mongo-floor.js, the same gateway call with constant pre-built batches.
// Each k6 run reaches mongod through its own private gateway (bin/wp-gateway, docs/gateway.md),
// and the client's CPU is k6's plus that gateway's.
// Measured: overwrite docs/s vs. the floor's (goal ≥ 0.8, per repetition); the CPU of k6 and of
// mongod sampled from /proc every 100 ms and cut at the phases' first batch start and last
// batch end (writepath_phase_clock): k6's share in the mixed (E2 upsert) phase (goal ≤ 20 %).
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MongoServer } from '../scripts/lib/mongo-private.mjs';
import { startGateway } from '../scripts/lib/gateway.mjs';
import { knob, spread } from './lib.mjs';
import { HZ, counterAt, procStat, repoRoot as root } from '../scripts/lib/kit.mjs';

const env = process.env;
const k6 = path.join(root, 'bin', 'k6');
const log = (s) => process.stderr.write(`${s}\n`);

const fmt = (x, d = 0) => (x === null || x === undefined || Number.isNaN(x) ? '-' : Number(x).toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }));
const ms = (sp, d = 0, scale = 1) => (Number.isFinite(sp.med) ? `${fmt(sp.med * scale, d)} (${fmt(sp.min * scale, d)}–${fmt(sp.max * scale, d)})` : '-');

// utime + stime of a process and its threads (and its reaped children), in seconds.
function cpuOf(pid) {
  const st = procStat(pid);
  return st ? (st.own + st.children) / HZ : null;
}

// Runs k6 with `args` through a private gateway holding MONGO_URL (extraEnv.MONGO_URL); samples
// the client's CPU (k6 + the gateway) and mongod's every 100 ms. Returns { code, out, err, samples }.
function k6Run(args, extraEnv, mongod) {
  const gw = startGateway({ MONGO_URL: extraEnv.MONGO_URL });
  return new Promise((resolve) => {
    const child = spawn(k6, args, { cwd: root, env: gw.env({ ...env, K6_NO_USAGE_REPORT: 'true', K6_AUTO_EXTENSION_RESOLUTION: 'false', ...extraEnv }) });
    const samples = [];
    const timer = setInterval(() => {
      const a = cpuOf(child.pid); const g = cpuOf(gw.process.pid); const b = cpuOf(mongod);
      if (a !== null && g !== null && b !== null) samples.push({ t: Date.now(), k6: a + g, server: b });
    }, 100);
    let out = ''; let err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    child.on('close', (code) => { clearInterval(timer); gw.stop(); resolve({ code, out, err, samples }); });
  });
}

function windowShare(samples, clock) {
  if (!clock || samples.length < 2 || !(clock.max > clock.min)) return { share: NaN, k6: NaN, server: NaN, seconds: NaN };
  const k = counterAt(samples, clock.max, 'k6') - counterAt(samples, clock.min, 'k6');
  const s = counterAt(samples, clock.max, 'server') - counterAt(samples, clock.min, 'server');
  return { share: k / (k + s), k6: k, server: s, seconds: (clock.max - clock.min) / 1000 };
}

export async function mongoBench({ reps = knob('BENCH_REPS'), seconds = knob('BENCH_PGBENCH_SECONDS') } = {}) {
  const DOCS = knob('BENCH_MONGO_DOCS');
  const BATCHES = knob('BENCH_MONGO_BATCHES');
  const server = new MongoServer('bench/mongo', knob('BENCH_MONGO_PORT'), { cacheGB: 0.5 });
  server.init();
  if (server.running()) server.stop(30);
  const mongod = server.start();
  const stop = () => { try { server.stop(); log(`bench: stopped its mongod on 127.0.0.1:${server.port}`); } catch (e) { log(`bench: could not stop its mongod: ${e.message}`); } };
  const onSignal = (sig) => { stop(); process.exit(128 + { SIGINT: 2, SIGTERM: 15, SIGHUP: 1 }[sig]); };
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, onSignal);
  const url = server.url();
  const rows = [];
  let version = null;
  try {
    for (let rep = 0; rep < reps; rep++) {
      const row = {};
      // 1. The pack.
      const resultsDir = mkdtempSync(path.join(tmpdir(), 'k6wp-bench-'));
      const runId = `benchmongo${process.pid}_${rep}`;
      mkdirSync(path.join(resultsDir, runId));
      const exportFile = path.join(resultsDir, 'export.json');
      const r = await k6Run(['run', '--quiet', '--address=', `--summary-export=${exportFile}`, 'scenarios/mongodb/insert-vs-overwrite.js'], {
        MONGO_URL: url, RUN_ID: runId, RESULTS_DIR: resultsDir, PWD: root, PHASES: 'load,overwrite,mixed', DOCS: String(DOCS),
        BATCH_SIZE: '1000', VUS: '2', OVERWRITE_BATCHES: String(BATCHES), MIXED_BATCHES: String(BATCHES), MIXED_NEW_PERCENT: '50', READBACK: '200' }, mongod);
      if (r.code !== 0) throw new Error(`the pack's MongoDB run failed (${r.code}):\n${r.err.slice(-2000)}`);
      const summary = JSON.parse(readFileSync(path.join(resultsDir, runId, 'summary.json'), 'utf8'));
      if (!summary.verification || summary.verification.ok !== true) throw new Error(`verification of the k6 run failed: ${JSON.stringify(summary.verification)}`);
      version = summary.server.serverVersion;
      const metrics = JSON.parse(readFileSync(exportFile, 'utf8')).metrics || {};
      const phase = (p) => summary.phases.find((x) => x.phase === p);
      row.pack = phase('overwrite').docs_per_s;
      row.mixed = phase('mixed').docs_per_s;
      const ow = windowShare(r.samples, metrics['writepath_phase_clock{phase:overwrite}']);
      const mx = windowShare(r.samples, metrics['writepath_phase_clock{phase:mixed}']);
      row.overwriteShare = ow.share;
      row.mixedShare = mx.share;
      row.packMsPerBatch = ow.k6 * 1000 / BATCHES;
      row.serverMsPerBatch = ow.server * 1000 / BATCHES;
      row.mixedServerMsPerDoc = mx.server * 1000 / (BATCHES * 1000);
      log(`mongo pack rep ${rep + 1}: overwrite ${fmt(row.pack)} docs/s (k6 + gateway ${(ow.share * 100).toFixed(1)} % of CPU), mixed ${fmt(row.mixed)} docs/s (k6 + gateway ${(mx.share * 100).toFixed(1)} %)`);
      // 2. The floor: the same call with constant pre-built batches.
      const f = await k6Run(['run', '--quiet', '--address=', 'bench/mongo-floor.js'], {
        MONGO_URL: url, DOCS: String(DOCS), BENCH_VUS: '2', BENCH_SECONDS: String(seconds) }, mongod);
      const line = f.out.trim().split('\n').filter((l) => l.startsWith('{')).pop();
      if (f.code !== 0 || !line) throw new Error(`bench/mongo-floor.js failed (${f.code}):\n${f.err.slice(-2000)}`);
      const fj = JSON.parse(line);
      // Every floor write must change its document (a no-op replace costs mongod next to nothing).
      if (fj.modified !== fj.rows) throw new Error(`bench/mongo-floor.js: ${fj.modified} of ${fj.rows} documents modified: the floor wrote no-op replaces`);
      row.floor = fj.rows_per_s;
      // Cut at the floor's batches (its prefill in setup() excluded).
      const fw = windowShare(f.samples, fj.t0 && fj.t1 ? { min: fj.t0, max: fj.t1 } : null);
      row.floorShare = fw.share;
      row.floorServerMsPerBatch = fw.server * 1000 / (fj.rows / 1000);
      log(`mongo floor rep ${rep + 1}: ${fmt(row.floor)} rows/s (k6 + gateway ${(fw.share * 100).toFixed(1)} % of CPU, mongod ${fmt(row.floorServerMsPerBatch, 1)} ms per batch)`);
      row.packVsFloor = row.pack / row.floor;
      rows.push(row);
    }
  } finally {
    stop();
    for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.removeListener(sig, onSignal);
  }
  const col = (k) => spread(rows.map((x) => x[k]));
  return {
    version, reps: rows, docs: DOCS, batches: BATCHES, seconds,
    pack: col('pack'), mixed: col('mixed'), floor: col('floor'), packVsFloor: col('packVsFloor'),
    overwriteShare: col('overwriteShare'), mixedShare: col('mixedShare'), floorShare: col('floorShare'),
    packMsPerBatch: col('packMsPerBatch'), serverMsPerBatch: col('serverMsPerBatch'), floorServerMsPerBatch: col('floorServerMsPerBatch'), mixedServerMsPerDoc: col('mixedServerMsPerDoc'),
  };
}

// The section of RESULTS.md.
export function mongoSection(m) {
  const ok = (c) => (c ? 'met' : '**missed**');
  return [
    `## MongoDB floor (batches of 1000, 2 VUs, collection of ${fmt(m.docs)} documents, mongod ${m.version || '?'})`, '',
    '| client | docs/s | ratio to the floor | client share of CPU ((k6 + gateway) ÷ (k6 + gateway + mongod)) |', '|---|---:|---:|---:|',
    `| k6-writepath overwrite phase (scenarios/mongodb/insert-vs-overwrite.js, ${m.batches} batches of ReplaceOne upserts, random existing keys, byte image → BSON in the gateway) | ${ms(m.pack)} | ${ms(m.packVsFloor, 2)} | ${ms(m.overwriteShare, 1, 100)} % (phase window) |`,
    `| the same run's mixed phase = E2's upsert workload (${m.batches} batches, 50 % new keys) | ${ms(m.mixed)} | | ${ms(m.mixedShare, 1, 100)} % (phase window) |`,
    `| MongoDB floor: the same gateway call with constant pre-built batches (bench/mongo-floor.js, ${m.seconds} s) | ${ms(m.floor)} | 1.00 | ${ms(m.floorShare, 1, 100)} % (its batches' window) |`, '',
    `Goals: MongoDB batches ≥ 0.80 of the floor: ${fmt(m.packVsFloor.med, 2)} (${ok(m.packVsFloor.med >= 0.8)}). client (k6 + gateway) ≤ 20 % of the CPU in the E2 upsert phase: ${fmt(m.mixedShare.med * 100, 1)} % (${ok(m.mixedShare.med <= 0.2)}).`, '',
    `CPU per overwrite batch of 1000 documents in the phase window: k6 + gateway ${ms(m.packMsPerBatch, 1)} ms, mongod ${ms(m.serverMsPerBatch, 1)} ms (the floor's batches: mongod ${ms(m.floorServerMsPerBatch, 1)} ms); mongod per upserted document in the E2 phase ${ms(m.mixedServerMsPerDoc, 3)} ms. Each process's CPU from /proc/<pid>/stat (threads included) sampled every 100 ms, interpolated at the phase's first batch start and last batch end (writepath_phase_clock).`, '',
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const m = await mongoBench();
  process.stdout.write(`${mongoSection(m).join('\n')}\n`);
}
