// Memory per VU (bench/README.md "Memory per VU"): what a virtual user costs beside a plain k6
// script posting the same pre-built body, where that memory goes, and how close the pack's
// estimate (lib/memory.js, the MEMORY_BUDGET_MB guard) comes to the measured peak.
//
//   node bench/memory.mjs                     all four; writes them into bench/RESULTS.md (after
//                                             each part; raw parts in .run/bench/memory-parts.json)
//   node bench/memory.mjs write               the section again from the saved parts
//   node bench/memory.mjs [per-vu] [estimate] [profile] [init]  those named; prints their tables only
// make bench runs it after bench/run.mjs; make bench-memory alone. Its section sits between the
// bench-memory markers of RESULTS.md, which bench/run.mjs keeps.
//
// Every k6 run is timed by /usr/bin/time (peak RSS of the k6 process, %M) with the 1-minute
// load average read just before it, because the project machines are shared. A run of a
// PostgreSQL or MongoDB scenario (and bench/plain-pg.js) gets its own private gateway
// (scripts/lib/gateway.mjs startGateway; k6 gets GATEWAY_URL and the token only), and its memory
// is k6's peak plus the gateway's (VmHWM, read right before the gateway is stopped).
//   per-vu    each target (arangodb: the API test server; postgres: the bench's private
//             instance through the gateway) at each VU count (BENCH_MEM_VUS, default 1,10,50,200):
//             the pack's E1 (batches of 1000 e1 documents: 2 load, 2 overwrite and 1 mixed batch
//             per VU) and the plain script (bench/plain-http.js, bench/plain-pg.js; 5 batches per
//             VU) with the body as a string and as bytes, interleaved: every (VU count, client)
//             once per repetition (BENCH_MEM_REPS, default BENCH_REPS or 3). MiB per VU at V VUs =
//             (peak at V − peak of the same client at 1 VU in the same repetition) / (V − 1);
//             ratios are taken within a repetition, then summarised as median (min–max).
//   estimate  a grid of pack runs over every scenario (BENCH_MEM_GRID_TARGETS: only the cells
//             of those targets), BATCH_SIZE 1000–50000 and VUS 1–200 (GRID below; cells whose
//             estimate exceeds BENCH_MEM_MAX_MB, default 8000, are listed as not run): the
//             estimate beside the measured peak, each cell run BENCH_MEM_GRID_REPS times
//             (default 3; the whole grid once per repetition), its median judged and every
//             run's range shown.
//   profile   the Go heap of k6 (--profiling-enabled, pprof after a forced GC) while 1 and then
//             BENCH_MEM_PROFILE_VUS (20) VUs run E1 against a slow API test server: the live
//             heap each added VU holds, by what allocated it.
//   init      the live heap (after a forced GC) each added VU holds once k6 has initialised it
//             (--paused: init code only, no batch yet), 1 and BENCH_MEM_INIT_VUS (40) VUs: an
//             empty script (k6's own per-VU cost), the plain script, the pack's E1 on each target
//             (the JavaScript runtime of its modules, plus the bodies and tables made in init).
// Knobs: BENCH_MEM_PG_PORT (17497): the memory runs' own PostgreSQL (scripts/pg-private.sh,
// max_connections 300 for 200 VUs with a connection each), started and stopped here;
// BENCH_MEM_MONGO_PORT (17495): the estimate grid's own mongod (scripts/mongo-private.sh).
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDocs } from '../lib/docs.js';
import { keyRange } from '../lib/keys.js';
import { RUN_ID_MAX } from '../lib/knobs.js';
import { PgServer } from '../scripts/pg-private.mjs';
import { MongoServer } from '../scripts/lib/mongo-private.mjs';
import { knob as benchKnob, spread } from './lib.mjs';
import { KNOBS } from '../lib/config.js';
import { dieWith, repoRoot as root, startTestServer, toolKnob } from '../scripts/lib/kit.mjs';
import { needsGateway, startGateway } from '../scripts/lib/gateway.mjs';

const env = process.env;
const k6 = path.join(root, 'bin', 'k6');
// Its knobs (lib/knobs.js, scope tool:bench), read before anything runs.
const knob = (name, spec) => (spec ? toolKnob('bench-memory', env, name, { spec }) : benchKnob(name, 'bench-memory'));
const REPS = knob('BENCH_MEM_REPS') ?? knob('BENCH_REPS');
const VUS = knob('BENCH_MEM_VUS').map(Number);
// MiB per VU is held against the same client at 1 VU.
if (!VUS.includes(1)) dieWith('bench-memory')(`BENCH_MEM_VUS=${JSON.stringify(VUS.join(','))} is not allowed: ${KNOBS.BENCH_MEM_VUS.allowed}, with 1 among them`);
const MAX_MB = knob('BENCH_MEM_MAX_MB');
const PROFILE_VUS = knob('BENCH_MEM_PROFILE_VUS');
const INIT_VUS = knob('BENCH_MEM_INIT_VUS');
const GRID_REPS = knob('BENCH_MEM_GRID_REPS');
const PG_PORT = knob('BENCH_MEM_PG_PORT');
const MONGO_PORT = knob('BENCH_MEM_MONGO_PORT');
const k6env = { ...env, K6_NO_USAGE_REPORT: 'true', K6_AUTO_EXTENSION_RESOLUTION: 'false' };
const log = (s) => process.stderr.write(`${s}\n`);
const load1 = () => loadavg()[0];

function run(cmd, args, fullEnv) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, env: fullEnv });
    let out = ''; let err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    child.on('close', (code) => resolve({ code, out, err, pid: child.pid }));
  });
}

// Peak RSS of a live process in MiB (VmHWM of /proc/<pid>/status).
function vmHwm(pid, what) {
  let text = '';
  try { text = readFileSync(`/proc/${pid}/status`, 'utf8'); } catch { /* gone: below */ }
  const m = /^VmHWM:\s+(\d+) kB/m.exec(text);
  if (!m) throw Object.assign(new Error(`${what} (pid ${pid}) exited before its peak RSS was read`), { short: `${what} exited before its peak RSS was read` });
  return Number(m[1]) / 1024;
}

// One k6 run: peak RSS in MiB (1 MiB = 2^20 bytes), exit code, load average before it.
// db ({ PG_URL, MONGO_URL }): the run gets its own private gateway holding them (k6 gets only
// GATEWAY_URL and the token) and its memory is k6's plus the gateway's, each process's peak
// (k6: /usr/bin/time %M; the gateway: VmHWM read right before it is stopped).
// -> { mb: k6 + gateway, k6Mb, gwMb (null without a gateway), cpu, load, out, err }
async function peak(args, extraEnv, { okCodes = [0], db = null } = {}) {
  const gw = db ? startGateway(db) : null;
  let r; let gwMb = null;
  const load = load1();
  try {
    const full = { ...k6env, ...extraEnv };
    r = await run('/usr/bin/time', ['-f', 'TIME %U %S %M', k6, 'run', '--quiet', '--address=', ...args], gw ? gw.env(full) : full);
    if (gw) gwMb = vmHwm(gw.process.pid, 'bin/wp-gateway');
  } finally {
    if (gw) {
      const gone = new Promise((res) => { if (gw.process.exitCode !== null || gw.process.signalCode !== null) res(); else gw.process.once('exit', res); });
      gw.stop();
      await gone;
    }
  }
  const m = /TIME ([\d.]+) ([\d.]+) (\d+)\s*$/.exec(r.err);
  if (!okCodes.includes(r.code) || !m) {
    const why = r.err.split('\n').filter((l) => l.trim() && !l.startsWith('TIME ')).at(-1) || '';
    throw Object.assign(new Error(`k6 run ${args.join(' ')} failed (${r.code}):\n${r.err.slice(-2000)}\n${r.out.slice(-1000)}`), { short: `exit ${r.code}: ${why.slice(0, 200)}` });
  }
  const k6Mb = Number(m[3]) / 1024;
  return { mb: k6Mb + (gwMb || 0), k6Mb, gwMb, cpu: Number(m[1]) + Number(m[2]), load, out: r.out, err: r.err };
}


// An API test server (no limit on what it stores: every run drops what it wrote).
const testServer = (name, extra = []) => startTestServer(name, ['-max-stored-mb', '0', ...extra]);
// The ArangoDB one for the HTTP runs (-latency-ms for the profile's slow one).
const arangoServer = (extra = []) => testServer('arangodb', ['-no-auth', ...extra]);

// The memory runs' own PostgreSQL: defaults but max_connections (the pack opens one
// connection per VU, the plain script too). Started by pgUp(), stopped by pgDown().
const pgServer = new PgServer('bench/memory-postgres', PG_PORT, { db: 'bench' });
const stopOnSignal = (sig) => { pgDown(); process.exit(128 + { SIGINT: 2, SIGTERM: 15, SIGHUP: 1 }[sig]); };
export function pgUp() {
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) if (!process.listeners(sig).includes(stopOnSignal)) process.on(sig, stopOnSignal);
  pgServer.init();
  if (!pgServer.running()) pgServer.start([`max_connections=${Math.max(...VUS) + 100}`]);
  pgServer.ensureDatabase('bench');
  return pgServer.url('bench');
}
export function pgDown() {
  if (pgServer.running()) pgServer.stop();
}

// The body of the plain scripts: the bytes of one E1 load batch of the pack (keys 1000-1999,
// DOC_BYTES 1200), as the pack's adapters build it; PostgreSQL's is the binary jsonb (the version
// byte 1 and the same text) that the gateway passes on as $1 (docs/gateway.md), read by
// bench/plain-pg.js as a string or as bytes.
function writeBodies(dir) {
  const cfg = { DOC_SHAPE: 'e1', DOC_POOL: 1024, DOC_BYTES: 1200, SEED: 1, COMPLEXITY: 10 };
  const files = {};
  const arango = createDocs(cfg, { keyField: '_key' }).body(keyRange(1000, 1000), 'l');
  const pg = createDocs(cfg, { keyField: 'key' }).body(keyRange(1000, 1000), 'l', { lead: '\u0001' });
  files.arango = path.join(dir, 'arangodb-body.json');
  writeFileSync(files.arango, Buffer.from(arango));
  files.pgBytes = path.join(dir, 'postgres-body.jsonb');
  writeFileSync(files.pgBytes, Buffer.from(pg));
  return files;
}

// E1 of the pack with `vus` VUs: 2 load, 2 overwrite and 1 mixed batch of 1000 per VU.
function packRun(target, vus, url, resultsDir, tag) {
  const scenario = `scenarios/${target}/insert-vs-overwrite.js`;
  const e = { RUN_ID: `mem${process.pid}_${tag}`.slice(0, RUN_ID_MAX), RESULTS_DIR: resultsDir, PWD: root, HTML_REPORTER: 'none', INFLUX_URL: '',
    BATCH_SIZE: '1000', VUS: String(vus), DOCS: String(2000 * vus), OVERWRITE_BATCHES: String(2 * vus), MIXED_BATCHES: String(vus),
    MEMORY_BUDGET_MB: '1048576' };
  if (target === 'arangodb') e.ARANGO_URL = url;
  // exit 99: a latency threshold failed (200 VUs on two cores); the memory figure stands
  return peak([scenario], e, { okCodes: [0, 99], db: target === 'arangodb' ? null : { PG_URL: url } });
}

function plainRun(target, vus, url, files, as, tag) {
  const e = { VUS: String(vus), ITERATIONS: '5', BODY_AS: as, PLAIN_ID: `${process.pid}_${tag}` };
  if (target === 'arangodb') return peak(['bench/plain-http.js'], { ...e, ARANGO_URL: url, BODY_FILE: files.arango });
  return peak(['bench/plain-pg.js'], { ...e, BODY_FILE: files.pgBytes }, { db: { PG_URL: url } });
}

export const CLIENTS = ['pack', 'plain-string', 'plain-bytes'];

export async function perVu({ pgUrl = null } = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-mem-'));
  const files = writeBodies(dir);
  const resultsDir = path.join(dir, 'results');
  mkdirSync(resultsDir);
  const arango = await arangoServer();
  const pg = pgUrl || pgUp();
  const stopPg = !pgUrl;
  const urls = { arangodb: arango.url, postgres: pg };
  const runs = []; // { target, client, vus, rep, mb, load }
  try {
    for (let rep = 0; rep < REPS; rep++) {
      for (const vus of VUS) {
        for (const target of ['arangodb', 'postgres']) {
          for (const client of CLIENTS) {
            const tag = `${rep}_${vus}_${target[0]}${client[6] || 'k'}`;
            const r = client === 'pack' ? await packRun(target, vus, urls[target], resultsDir, tag)
              : await plainRun(target, vus, urls[target], files, client.slice(6), tag);
            runs.push({ target, client, vus, rep, mb: r.mb, k6Mb: r.k6Mb, gwMb: r.gwMb, load: r.load });
            log(`memory ${target} ${client} ${vus} VUs rep ${rep + 1}: peak RSS ${r.mb.toFixed(0)} MiB${r.gwMb === null ? '' : ` (k6 ${r.k6Mb.toFixed(0)} + gateway ${r.gwMb.toFixed(0)})`} (load ${r.load.toFixed(2)})`);
          }
        }
      }
    }
  } finally {
    arango.stop();
    if (stopPg) pgDown();
    rmSync(dir, { recursive: true, force: true });
  }
  return summarisePerVu(runs);
}

// -> rows per (target, vus): peak RSS (k6, the gateway where there is one, their sum) and MiB
// per VU of the sum for each client, and pack ÷ plain ratios computed within each repetition.
export function summarisePerVu(runs) {
  const get = (t, c, v, rep) => runs.find((x) => x.target === t && x.client === c && x.vus === v && x.rep === rep);
  const reps = [...new Set(runs.map((x) => x.rep))];
  const rows = [];
  for (const target of ['arangodb', 'postgres']) {
    for (const vus of [...new Set(runs.map((x) => x.vus))].sort((a, b) => a - b)) {
      const row = { target, vus, load: spread(runs.filter((x) => x.target === target && x.vus === vus).map((x) => x.load)), clients: {} };
      const per = {};
      for (const c of CLIENTS) {
        const at = (k) => spread(reps.map((rep) => (get(target, c, vus, rep) || {})[k]));
        per[c] = reps.map((rep) => {
          const at = get(target, c, vus, rep); const one = get(target, c, 1, rep);
          return at && one && vus > 1 ? (at.mb - one.mb) / (vus - 1) : NaN;
        });
        row.clients[c] = { peak: at('mb'), k6: at('k6Mb'), gw: at('gwMb'), perVu: spread(per[c]) };
      }
      row.ratioString = spread(per.pack.map((x, i) => x / per['plain-string'][i]));
      row.ratioBytes = spread(per.pack.map((x, i) => x / per['plain-bytes'][i]));
      // k6 alone, without the gateways' memory (PostgreSQL; the same as above for ArangoDB)
      const k6Per = (c) => reps.map((rep) => { const at = get(target, c, vus, rep); const one = get(target, c, 1, rep); return at && one && vus > 1 ? (at.k6Mb - one.k6Mb) / (vus - 1) : NaN; });
      const k6Pack = k6Per('pack'); const k6Plain = k6Per('plain-string');
      row.ratioStringK6 = spread(k6Pack.map((x, i) => x / k6Plain[i]));
      rows.push(row);
    }
  }
  return rows;
}

// --- profile: where the live heap of a VU goes ------------------------------------------

// Classes of allocation sites in k6's Go heap (first rule that matches a sample's stack).
export const HEAP_CLASSES = [
  ['request copies', 'k6\'s copy of each request body (response.request.body)', (f) => f.some((x) => x.includes('httpext.MakeRequest')) && f[0].startsWith('bytes.(*Buffer).String')],
  ['opened', 'files read by open() (the plain script\'s body)', (f) => f.some((x) => x.includes('afero.readAll'))],
  ['responses', 'response bodies', (f) => f.some((x) => x.includes('httpext.readResponseBody'))],
  ['images', 'byte images made from text (k6/encoding b64decode)', (f) => f[0].startsWith('encoding/base64.(*Encoding).DecodeString')],
  ['buffers', 'ArrayBuffers and typed arrays made in JavaScript (bodies, key tables)', (f) => f[0].includes('sobek.allocByteSlice')],
  ['strings', 'JavaScript strings (payload pool, text of images)', (f) => f.some((x) => /concatStrings|arrayproto_join|arrayproto_map|EncodeToString|strings\.\(\*Builder\)/.test(x)) || f[0].includes('MakeNoZero')],
  ['runtime', 'JavaScript runtime: objects, functions, module code, and the rest of k6', () => true],
];

const UNIT = { B: 1, kB: 1024, MB: 1048576, GB: 1073741824 };
// `go tool pprof -traces` text -> { class: bytes } of inuse_space.
export function classifyTraces(text) {
  const out = Object.fromEntries(HEAP_CLASSES.map(([k]) => [k, 0]));
  for (const block of text.split(/^-+\+-+$/m).slice(1)) {
    const lines = block.split('\n').filter((l) => l.trim() && !/^\s*bytes:/.test(l));
    if (!lines.length) continue;
    const m = /^\s*([\d.]+)(B|kB|MB|GB)?\s+(.*)$/.exec(lines[0]);
    if (!m) continue;
    const value = Number(m[1]) * (UNIT[m[2]] || 1);
    if (!value) continue;
    const frames = [m[3].trim(), ...lines.slice(1).map((l) => l.trim())];
    const cls = HEAP_CLASSES.find(([, , rule]) => rule(frames));
    out[cls[0]] += value;
  }
  return out;
}

async function waitFor(fn, ms) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    try { if (await fn()) return true; } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

// The live heap (after a forced GC) of k6 running `args` once `vus` VUs are running, by class.
async function liveHeap(args, extraEnv, vus, dir, tag) {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const child = spawn(k6, ['run', '--quiet', '--profiling-enabled', `--address=127.0.0.1:${port}`, ...args], { cwd: root, env: { ...k6env, ...extraEnv }, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = ''; child.stderr.on('data', (d) => { err += d; });
  const exited = new Promise((r) => child.on('exit', r));
  try {
    const base = `http://127.0.0.1:${port}`;
    const up = await waitFor(async () => (await (await fetch(`${base}/v1/status`)).json()).data.attributes.vus >= vus, 300000);
    if (!up) throw new Error(`k6 did not reach ${vus} running VUs:\n${err.slice(-1500)}`);
    await new Promise((r) => setTimeout(r, 2000)); // a few batches per VU
    const stats = await (await fetch(`${base}/debug/pprof/heap?gc=1&debug=1`)).text();
    const live = Number(/^# HeapAlloc = (\d+)/m.exec(stats)[1]);
    const file = path.join(dir, `${tag}.pb`);
    writeFileSync(file, Buffer.from(await (await fetch(`${base}/debug/pprof/heap`)).arrayBuffer()));
    const traces = execFileSync('go', ['tool', 'pprof', '-sample_index=inuse_space', '-traces', file], { maxBuffer: 1 << 28 }).toString();
    return { live, classes: classifyTraces(traces) };
  } finally {
    child.kill('SIGINT');
    await exited;
  }
}

// Per added VU: (live heap at n VUs − at 1 VU) / (n − 1), in all and by class, for the pack's E1
// on a slow API test server (so the VUs are mid-run when the heap is read) and for the plain
// script posting the same body.
export async function profile() {
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-memprof-'));
  const files = writeBodies(dir);
  const resultsDir = path.join(dir, 'results');
  mkdirSync(resultsDir);
  const slow = await arangoServer(['-latency-ms', '300']);
  const out = { vus: PROFILE_VUS, load: load1(), clients: {} };
  try {
    for (const client of CLIENTS) {
      const at = {};
      for (const n of [1, PROFILE_VUS]) {
        const args = client === 'pack' ? ['scenarios/arangodb/insert-vs-overwrite.js'] : ['bench/plain-http.js'];
        const e = client === 'pack'
          ? { ARANGO_URL: slow.url, RUN_ID: `memprof${process.pid}_${n}`, RESULTS_DIR: resultsDir, PWD: root, HTML_REPORTER: 'none', INFLUX_URL: '', BATCH_SIZE: '1000', VUS: String(n), DOCS: String(40000 * n), MEMORY_BUDGET_MB: '1048576' }
          : { ARANGO_URL: slow.url, BODY_FILE: files.arango, BODY_AS: client.slice(6), VUS: String(n), ITERATIONS: '40', PLAIN_ID: `prof${process.pid}_${n}` };
        at[n] = await liveHeap(args, e, n, dir, `${client}-${n}`);
        log(`profile ${client} ${n} VUs: live heap ${(at[n].live / 1048576).toFixed(1)} MB`);
      }
      const per = (a, b) => (b - a) / (PROFILE_VUS - 1) / 1048576;
      out.clients[client] = {
        live: per(at[1].live, at[PROFILE_VUS].live),
        classes: Object.fromEntries(HEAP_CLASSES.map(([k]) => [k, per(at[1].classes[k], at[PROFILE_VUS].classes[k])])),
      };
    }
  } finally {
    slow.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  out.loadAfter = load1();
  return out;
}

// --- estimate: the pack's memory estimate beside the measured peak ------------------------

// Every scenario over BATCH_SIZE 1000-50000 and 1-200 VUs; each cell one run (its load average
// beside it). E1 cells load 2 batches and overwrite 1 per VU; a cell whose estimate is above
// BENCH_MEM_MAX_MB is refused by the pack itself (MEMORY_BUDGET_MB) and listed as not run.
const e1 = (target, B, V, extra = {}) => ({ scenario: `scenarios/${target}/insert-vs-overwrite.js`, target, label: `E1 ${target}`, B, V,
  env: { BATCH_SIZE: String(B), VUS: String(V), DOCS: String(2 * V * B), PHASES: 'load,overwrite', OVERWRITE_BATCHES: String(V), ...extra } });
export const GRID = [
  ...[[1000, 1], [1000, 10], [1000, 50], [1000, 200], [10000, 1], [10000, 10], [10000, 50], [50000, 1], [50000, 10]]
    .flatMap(([B, V]) => [e1('arangodb', B, V), e1('postgres', B, V)]),
  ...[[1000, 1], [1000, 10], [1000, 50], [10000, 1], [10000, 10], [50000, 1]].map(([B, V]) => e1('mongodb', B, V)),
  e1('ravendb', 1000, 50), e1('ravendb', 10000, 10),
  { scenario: 'scenarios/ravendb/bulk-insert.js', target: 'ravendb', label: 'E4 bulk insert', B: 1000, V: 50, env: { BATCH_SIZE: '1000', STAGES: '3s:10,3s:50' } },
  { scenario: 'scenarios/ravendb/bulk-insert.js', target: 'ravendb', label: 'E4 bulk insert', B: 50000, V: 4, env: { BATCH_SIZE: '50000', STAGES: '3s:4' } },
  { scenario: 'scenarios/arangodb/arangobench.js', target: 'arangodb', label: 'E3 crud', B: 1, V: 50, env: { ARANGOBENCH_CASE: 'crud', REQUESTS: '20000', VUS: '50' } },
  { scenario: 'scenarios/arangodb/arangobench.js', target: 'arangodb', label: 'E3 random-shapes 1000', B: 1, V: 20, env: { ARANGOBENCH_CASE: 'random-shapes', COMPLEXITY: '1000', REQUESTS: '4000', VUS: '20' } },
  // (the ramped overwrite must not run out of pre-loaded keys before the 100-VU stage: the run
  // ends with exit 108 when it does; 200000 keys and 3s:20,3s:100 ran out in stage 1 on an idle machine)
  { scenario: 'scenarios/arangodb/insert-vs-overwrite.js', target: 'arangodb', label: 'E1 ramped (STAGES)', B: 1000, V: 100, env: { BATCH_SIZE: '1000', PHASES: 'load,overwrite', DOCS: '400000', STAGES: '1s:20,2s:100' } },
  { scenario: 'scenarios/postgres/insert-vs-overwrite.js', target: 'postgres', label: 'E1 open model (RATE_STAGES)', B: 1000, V: 40, env: { BATCH_SIZE: '1000', PHASES: 'load,overwrite', DOCS: '200000', RATE_STAGES: '4s:40', VUS: '40', MAX_VUS: '40' } },
];

// BENCH_MEM_GRID_TARGETS (default all): run only the cells of those targets, the grid's own.
const gridTargets = [...new Set(GRID.map((c) => c.target))];
const GRID_TARGETS = knob('BENCH_MEM_GRID_TARGETS', { ...KNOBS.BENCH_MEM_GRID_TARGETS, values: gridTargets, allowed: `a comma-separated list of distinct targets from ${gridTargets.join(', ')}` }) || null;
const gridCells = () => GRID.map((cell, i) => ({ cell, i })).filter(({ cell }) => !GRID_TARGETS || GRID_TARGETS.includes(cell.target));

const ESTIMATE = /client memory estimate (\d+) MiB/;
const REFUSED = /MEMORY_BUDGET_MB=\d+ is too small for this run: .* needs about (\d+) MiB/;

// The grid's own mongod (the pack's MongoDB scenarios; its data directory .run/bench/memory-mongo).
function mongoUp() {
  const server = new MongoServer('bench/memory-mongo', MONGO_PORT, { cacheGB: 0.5 });
  server.init();
  if (server.running()) server.stop(30);
  server.start();
  return { url: server.url(), stop: () => server.stop() };
}

export async function estimate({ pgUrl = null } = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-memest-'));
  const resultsDir = path.join(dir, 'results');
  mkdirSync(resultsDir);
  const arango = await arangoServer();
  const raven = await testServer('ravendb');
  const cells = gridCells();
  const pg = pgUrl || pgUp();
  const mongo = cells.some(({ cell }) => cell.target === 'mongodb') ? mongoUp() : null;
  const runs = GRID.map(() => []); // per cell: { load, estimate, measured, k6, gw, failed }
  try {
    // the whole grid once per repetition: a cell's runs meet different moments of a shared machine
    for (let rep = 0; rep < GRID_REPS; rep++) {
      for (const { cell, i } of cells) {
        const e = { ...cell.env, ARANGO_URL: arango.url, RAVEN_URL: raven.url, RUN_ID: `memest${process.pid}_${rep}_${i}`, RESULTS_DIR: resultsDir, PWD: root,
          HTML_REPORTER: 'none', INFLUX_URL: '', MEMORY_BUDGET_MB: String(MAX_MB) };
        // PostgreSQL and MongoDB scenarios: a private gateway per run holds the database URLs
        const db = needsGateway(cell.scenario) ? { PG_URL: pg, MONGO_URL: mongo ? mongo.url : undefined } : null;
        let r;
        try {
          r = await peak([cell.scenario], e, { okCodes: [0, 99, 107], db });
        } catch (err) { // a run that fails is shown as failed, the grid goes on
          runs[i].push({ load: load1(), estimate: null, measured: null, failed: err.short || String(err.message).split('\n')[0] });
          log(`estimate ${cell.label} B=${cell.B} V=${cell.V} rep ${rep + 1}: ${runs[i].at(-1).failed}`);
          continue;
        }
        const refused = REFUSED.exec(r.err);
        const est = ESTIMATE.exec(r.out + r.err);
        runs[i].push({ load: r.load, estimate: Number((est || refused || [])[1]) || null, measured: refused ? null : r.mb, k6: refused ? null : r.k6Mb, gw: refused ? null : r.gwMb });
        const x = runs[i].at(-1);
        log(`estimate ${cell.label} B=${cell.B} V=${cell.V} rep ${rep + 1}: estimate ${x.estimate} MiB, measured ${x.measured === null ? 'not run' : `${x.measured.toFixed(0)} MiB${x.gw === null ? '' : ` (k6 ${x.k6.toFixed(0)} + gateway ${x.gw.toFixed(0)})`}`} (load ${r.load.toFixed(2)})`);
      }
    }
  } finally {
    arango.stop(); raven.stop();
    if (mongo) mongo.stop();
    if (!pgUrl) pgDown();
    rmSync(dir, { recursive: true, force: true });
  }
  return cells.map(({ cell, i }) => summariseCell(cell, runs[i]));
}

// One grid row from a cell's runs: the estimate (the same in every run), the measured peaks
// (median, min–max, n; k6 + the gateway where the run had one, and each alone) and the ratio
// of the estimate to each run's; a run that failed is named.
export function summariseCell(cell, runs) {
  const ok = runs.filter((x) => !x.failed);
  const failed = runs.find((x) => x.failed);
  const measured = ok.filter((x) => x.measured !== null).map((x) => x.measured);
  const estimate = (ok.find((x) => x.estimate !== null) || {}).estimate ?? null;
  return { ...cell, env: undefined, load: spread(runs.map((x) => x.load)), estimate, n: measured.length, runs: runs.length,
    measured: measured.length ? spread(measured) : null, failed: failed ? failed.failed : null,
    k6: spread(ok.map((x) => x.k6 ?? NaN)), gw: spread(ok.map((x) => x.gw ?? NaN)),
    ratios: measured.map((m) => estimate / m) };
}

// --- init: what a VU holds once initialised ---------------------------------------------

// The live heap (after a forced GC) of k6 started --paused with `vus` VUs, once all are
// initialised; db: the run's own gateway holds those database URLs (k6 gets GATEWAY_URL).
async function pausedHeap(args, extraEnv, vus, db = null) {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const gw = db ? startGateway(db) : null;
  const full = { ...k6env, ...extraEnv };
  const child = spawn(k6, ['run', '--quiet', '--paused', '--profiling-enabled', `--address=127.0.0.1:${port}`, ...args], { cwd: root, env: gw ? gw.env(full) : full, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = ''; child.stderr.on('data', (d) => { err += d; });
  const exited = new Promise((r) => child.on('exit', r));
  try {
    const base = `http://127.0.0.1:${port}`;
    const up = await waitFor(async () => (await (await fetch(`${base}/v1/status`)).json()).data.attributes['vus-max'] >= vus, 300000);
    if (!up) throw new Error(`k6 did not initialise ${vus} VUs:\n${err.slice(-1500)}`);
    const stats = await (await fetch(`${base}/debug/pprof/heap?gc=1&debug=1`)).text();
    return Number(/^# HeapAlloc = (\d+)/m.exec(stats)[1]);
  } finally {
    child.kill('SIGINT');
    await exited;
    if (gw) gw.stop();
  }
}

// KiB of live heap per added VU at init: (heap at INIT_VUS − heap at 1 VU) / (INIT_VUS − 1), for
// each script, the two runs back to back. -> { vus, load, rows: [{ label, kib }] }
export async function initCost({ pgUrl = null } = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-meminit-'));
  const files = writeBodies(dir);
  writeFileSync(path.join(dir, 'empty.js'), 'export const options = { scenarios: { s: { executor: \'per-vu-iterations\', vus: Number(__ENV.VUS), iterations: 1 } } };\nexport default function () {}\n');
  const pg = pgUrl || pgUp();
  const out = { vus: INIT_VUS, load: load1(), rows: [] };
  const pack = (target) => (n) => ({ RESULTS_DIR: dir, PWD: root, HTML_REPORTER: 'none', INFLUX_URL: '', BATCH_SIZE: '1000', VUS: String(n), DOCS: String(2000 * n),
    OVERWRITE_BATCHES: String(2 * n), MIXED_BATCHES: String(n), MEMORY_BUDGET_MB: '1048576', ...(target === 'arangodb' ? { ARANGO_URL: 'http://127.0.0.1:9' } : {}) });
  const scripts = [
    ['an empty script (k6 itself)', [path.join(dir, 'empty.js')], (n) => ({ VUS: String(n) })],
    ['the plain script, string body (bench/plain-http.js)', ['bench/plain-http.js'], (n) => ({ ARANGO_URL: 'http://127.0.0.1:9', BODY_FILE: files.arango, VUS: String(n) })],
    ['the pack, E1 on ArangoDB (a body and key tables per VU)', ['scenarios/arangodb/insert-vs-overwrite.js'], pack('arangodb')],
    ['the pack, E1 on PostgreSQL (through a private gateway; k6\'s heap only)', ['scenarios/postgres/insert-vs-overwrite.js'], pack('postgres'), { PG_URL: pg }],
  ];
  try {
    for (const [label, args, e, db] of scripts) {
      const one = await pausedHeap(args, e(1), 1, db);
      const many = await pausedHeap(args, e(INIT_VUS), INIT_VUS, db);
      out.rows.push({ label, kib: (many - one) / (INIT_VUS - 1) / 1024 });
      log(`init ${label}: ${((many - one) / (INIT_VUS - 1) / 1024).toFixed(0)} KiB per VU`);
    }
  } finally {
    if (!pgUrl) pgDown();
    rmSync(dir, { recursive: true, force: true });
  }
  out.loadAfter = load1();
  return out;
}

export function initMarkdown(r) {
  return [`| script (k6 --paused, ${r.vus} VUs vs 1; load ${f1(r.load, 2)} → ${f1(r.loadAfter, 2)}) | live heap per added VU at init, KiB |`, '|---|---:|',
    ...r.rows.map((x) => `| ${x.label} | ${f1(x.kib, 0)} |`)].join('\n');
}

// --- command line ------------------------------------------------------------------------
const f1 = (x, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : '-');
const sp = (s, d = 1) => (Number.isFinite(s.med) ? `${f1(s.med, d)} (${f1(s.min, d)}–${f1(s.max, d)})` : '-');

// Two tables: the peaks (k6, the gateway, their sum, per client), then MiB per VU and the ratios.
export function perVuMarkdown(rows) {
  const names = { pack: 'pack', 'plain-string': 'plain string', 'plain-bytes': 'plain bytes' };
  const lines = [`| target | VUs | load (1 min) | ${CLIENTS.map((c) => `${names[c]}: k6 | gateway | **sum**`).join(' | ')} |`,
    `|---|---:|---:|${CLIENTS.map(() => '---:|---:|---:').join('|')}|`];
  for (const r of rows) {
    lines.push(`| ${r.target} | ${r.vus} | ${sp(r.load, 2)} | ${CLIENTS.map((c) => `${sp(r.clients[c].k6, 0)} | ${sp(r.clients[c].gw, 0)} | **${sp(r.clients[c].peak, 0)}**`).join(' | ')} |`);
  }
  lines.push('', '| target | VUs | pack MiB/VU | plain string MiB/VU | plain bytes MiB/VU | pack ÷ plain string | pack ÷ plain bytes |', '|---|---:|---:|---:|---:|---:|---:|');
  for (const r of rows.filter((x) => x.vus > 1)) {
    const c = r.clients;
    lines.push(`| ${r.target} | ${r.vus} | ${sp(c.pack.perVu)} | ${sp(c['plain-string'].perVu)} | ${sp(c['plain-bytes'].perVu)} | ${sp(r.ratioString, 2)} | ${sp(r.ratioBytes, 2)} |`);
  }
  return lines.join('\n');
}

export function estimateMarkdown(rows) {
  const lines = ['| scenario | BATCH_SIZE | VUs | load (1 min) | estimate MiB | k6 peak RSS MiB | gateway peak RSS MiB | measured (k6 + gateway) MiB, median (min–max) | n | estimate ÷ median | estimate ÷ each run | estimate ÷ k6 alone |', '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|'];
  for (const r of rows) {
    const ratio = r.measured ? r.estimate / r.measured.med : NaN;
    const peakText = r.failed ? `failed: ${r.failed.replace(/\|/g, '/')}${r.measured ? `; others ${sp(r.measured, 0)}` : ''}` : r.measured === null ? `not run (above ${MAX_MB})` : sp(r.measured, 0);
    const k6 = r.k6 || { med: NaN }; const gw = r.gw || { med: NaN };
    lines.push(`| ${r.label} | ${r.B} | ${r.V} | ${sp(r.load, 2)} | ${r.estimate ?? '-'} | ${sp(k6, 0)} | ${sp(gw, 0)} | ${peakText} | ${r.n} of ${r.runs} | ${f1(ratio, 2)} | ${r.ratios.map((x) => f1(x, 2)).join(', ') || '-'} | ${Number.isFinite(gw.med) ? f1(r.estimate / k6.med, 2) : '-'} |`);
  }
  return lines.join('\n');
}

export function profileMarkdown(p) {
  const lines = [`| live heap per added VU, MiB (${p.vus} VUs vs 1; load ${f1(p.load, 2)} → ${f1(p.loadAfter, 2)}) | ${CLIENTS.join(' | ')} |`, `|---|${CLIENTS.map(() => '---:').join('|')}|`];
  for (const [k, label] of HEAP_CLASSES) lines.push(`| ${label} | ${CLIENTS.map((c) => f1(p.clients[c].classes[k], 2)).join(' | ')} |`);
  lines.push(`| **all** | ${CLIENTS.map((c) => `**${f1(p.clients[c].live, 2)}**`).join(' | ')} |`);
  return lines.join('\n');
}

// The section of bench/RESULTS.md (bench/run.mjs keeps it), with the goals of issues 30 and 37;
// a part not run (null) is said so. meta: { started, loadBefore, loadAfter, k6, gridTargets, gridReps }.
export function resultsSection({ perVu: rows, profile: prof, estimate: est, init = null, meta }) {
  const okText = (c) => (c ? 'met' : '**missed**');
  const notRun = (what) => [`${what}: not run in this recording.`, ''];
  const out = [`<!-- ${SECTION} -->`,
    `Generated by \`make bench-memory\` (bench/memory.mjs, part of \`make bench\`) on ${meta.started}; ${meta.k6}; PostgreSQL and MongoDB through bin/wp-gateway (gateway/, one private gateway per k6 run, GOGC=400 as it sets itself); load average ${meta.loadBefore.map((x) => x.toFixed(2)).join(' ')} before, ${meta.loadAfter.map((x) => x.toFixed(2)).join(' ')} after (1, 5, 15 min) on a shared 2-core machine.`, '',
    ...(meta.note ? [meta.note, ''] : [])];
  out.push('## Memory per VU (E1, batches of 1000 e1 documents of ~1.2 KB, beside a plain k6 script posting the same body)', '');
  if (!rows) out.push(...notRun('Memory per VU'));
  else {
    const goal = []; const bytesRef = []; const k6Only = [];
    for (const target of ['arangodb', 'postgres']) {
      for (const vus of [50, 200]) {
        const r = rows.find((x) => x.target === target && x.vus === vus);
        if (!r) continue;
        goal.push(`${target} at ${vus} VUs ${f1(r.ratioString.med, 2)}× (${okText(r.ratioString.med <= 1.2)}; ${r.ratioString.n} repetition${r.ratioString.n === 1 ? '' : 's'}, ${f1(r.ratioString.min, 2)}–${f1(r.ratioString.max, 2)})`);
        bytesRef.push(`${target} at ${vus} VUs ${f1(r.ratioBytes.med, 2)}×`);
        if (target === 'postgres') k6Only.push(`at ${vus} VUs ${f1(r.ratioStringK6.med, 2)}× (${f1(r.ratioStringK6.min, 2)}–${f1(r.ratioStringK6.max, 2)})`);
      }
    }
    const reps = Math.max(...rows.map((x) => x.clients.pack.peak.n));
    const at200 = rows.filter((x) => x.vus === 200).map((x) => `${x.target} ${f1(x.clients.pack.peak.max, 0)} MiB (${okText(x.clients.pack.peak.max <= 3072)})`);
    out.push(`Peak RSS (MiB) of the pack's E1 (2 load, 2 overwrite and 1 mixed batch per VU) and of a plain k6 script in which every VU posts one pre-built body, the bytes of one of the pack's load batches, 5 times: read with \`open()\` as a string (k6's ordinary idiom) and as bytes (\`open(…, 'b')\`, sent without the string-to-bytes copy, as the pack sends its bodies). ArangoDB: the API test server, bench/plain-http.js posting to its document API. PostgreSQL: a private instance; the pack and the plain script each write through their own private gateway, and their memory is k6's peak RSS (\`/usr/bin/time\` %M) plus the gateway's (VmHWM of /proc/<pid>/status, read right before it is stopped); the plain script is bench/plain-pg.js, plain k6/http posting the same binary jsonb body as octet-stream to \`/pg/exec\` with the pack's upsert statement (docs/gateway.md), while the pack uploads its body image once per VU (the gateway keeps one copy of an image) and sends a small recipe per batch (gateway/render/render.go). Interleaved: every (VU count, client) once per repetition, ${reps} repetitions; MiB per VU = (peak at V − peak of the same client at 1 VU in the same repetition) / (V − 1), of the sum k6 + gateway; ratios within a repetition; median (min–max). Load: the 1-minute load average before each run.`, '',
      perVuMarkdown(rows), '',
      `Goal (issue 37 item 6: memory per VU of k6 + gateway ≤ 1.2× a plain k6 script posting the same body), at 50 and 200 VUs, judged against the plain script with the string body as issue 30 was ("a plain k6 script posting one pre-built 1.2 MB body"; \`open()\` without 'b' is k6's ordinary idiom): ${goal.join('; ')}.`,
      `Not the goal, shown for honesty: against the bytes body (\`open(…, 'b')\`, no string-to-bytes copy per request, the way the pack sends) the pack needs ${bytesRef.join(', ')} the memory per VU; on PostgreSQL, k6 alone (without either gateway) against the plain string script: ${k6Only.join(', ')}.`,
      `Goal: a 200-VU E1 run within 3 GiB (3072 MiB, k6 + gateway), highest repetition: ${at200.join('; ')}.`, '');
  }
  out.push('## Where a VU\'s memory goes (k6\'s Go heap, live bytes after a forced GC, while the VUs run E1 on a slow API test server)', '');
  if (!prof) out.push(...notRun('The heap profile'));
  else {
    out.push(profileMarkdown(prof), '',
      'Read with `bin/k6 run --profiling-enabled` and pprof (`/debug/pprof/heap?gc=1`) at 1 and at n VUs; each allocation is counted by the first class its stack matches (bench/memory.mjs HEAP_CLASSES). ArangoDB only: k6\'s side of a gateway target is the same HTTP posting. The peak RSS is about twice the live heap (Go collects when the heap has doubled since the last collection, GOGC=100).', '');
  }
  if (init) {
    out.push('At init (before any batch), live heap per added VU:', '', initMarkdown(init), '',
      'A function object costs about 0.8 KiB per VU in k6\'s runtime whether declared or arrow, a module ~6 KiB before its content (docs/design.md "Keeping a VU small"); the pack\'s modules are most of its runtime.', '');
  } else out.push(...notRun('The live heap per VU at init'));
  out.push('## Memory estimate (MEMORY_BUDGET_MB, lib/memory.js) against the measured peak', '');
  if (!est) out.push(...notRun('The estimate grid'));
  else {
    const ran = est.filter((x) => x.measured);
    const within = (x) => Math.abs(x - 1) <= 0.3;
    const off = ran.filter((x) => !within(x.estimate / x.measured.med));
    const worst = ran.reduce((w, x) => (Math.abs(x.estimate / x.measured.med - 1) > Math.abs(w.estimate / w.measured.med - 1) ? x : w), ran[0]);
    const single = ran.flatMap((x) => x.ratios);
    const singleOff = single.filter((x) => !within(x)).length;
    const failedCells = est.filter((x) => x.failed).length;
    // what lib/memory.js models: the k6 process alone
    const viaGw = ran.filter((x) => x.gw && Number.isFinite(x.gw.med));
    const k6Off = viaGw.filter((x) => !within(x.estimate / x.k6.med));
    const which = meta.gridTargets ? `the cells of ${meta.gridTargets.join(' and ')} only (BENCH_MEM_GRID_TARGETS; the others were not run in this recording)` : 'every scenario';
    out.push(`${which} over BATCH_SIZE 1000–50000 and 1–200 VUs (the grid's own PostgreSQL and mongod 6.0.5), ${meta.gridReps} run${meta.gridReps === 1 ? '' : 's'} per cell (the whole grid once per repetition; load averages median (min–max)); the estimate is the one the run printed in its setup log; measured: k6's \`/usr/bin/time\` %M plus, for PostgreSQL and MongoDB, the run's own gateway's VmHWM. The goal is judged on each cell's median of the sum; the ratio of every single run is shown beside it, and the ratio to k6 alone where a gateway ran. Cells whose estimate is above BENCH_MEM_MAX_MB=${MAX_MB} are refused by the pack itself (MEMORY_BUDGET_MB) and not run.`.replace(/^./, (c) => c.toUpperCase()), '',
      estimateMarkdown(est), '',
      `Goal: the estimate within ±30 % of every cell's median peak: ${off.length === 0 && failedCells === 0 ? 'met' : `**missed** in ${off.length} of ${ran.length} cells${failedCells ? `, ${failedCells} with a failed run` : ''}`} (${ran.length} cells run; furthest: ${worst ? `${worst.label} BATCH_SIZE=${worst.B} VUs=${worst.V}, ${f1(worst.estimate / worst.measured.med, 2)}×` : '-'}); single runs outside ±30 %: ${singleOff} of ${single.length}.`,
      ...(viaGw.length ? [`Against k6 alone (what lib/memory.js models; the gateway's memory is not in it), in the ${viaGw.length} cells with a gateway: ${k6Off.length === 0 ? 'all within ±30 %' : `${k6Off.length} outside ±30 % (${k6Off.map((x) => `${x.label} ${x.B}×${x.V} ${f1(x.estimate / x.k6.med, 2)}×`).join(', ')})`}.`] : []));
  }
  out.push(`<!-- /${SECTION} -->`);
  return out;
}

const SECTION = 'bench-memory';
const started = new Date();
const loadBefore = loadavg();
const k6Version = () => execFileSync(k6, ['version']).toString().split('\n')[0].trim();

// The sections between `<!-- name -->` and `<!-- /name -->` of a RESULTS.md text, as lines.
export function keepSections(text, names) {
  const out = [];
  for (const name of names) {
    const start = text.indexOf(`<!-- ${name} -->`); const end = text.indexOf(`<!-- /${name} -->`);
    if (start >= 0 && end > start) out.push('', text.slice(start, end + `<!-- /${name} -->`.length), '');
  }
  return out;
}

// RESULTS.md with this section replaced (or added before the bench-gate section, or at the end).
export function withSection(old, text) {
  const start = old.indexOf(`<!-- ${SECTION} -->`); const end = old.indexOf(`<!-- /${SECTION} -->`);
  if (start >= 0 && end > start) return `${old.slice(0, start)}${text}${old.slice(end + `<!-- /${SECTION} -->`.length)}`;
  const gate = old.indexOf('<!-- bench-gate -->');
  if (gate >= 0) return `${old.slice(0, gate)}${text}\n\n${old.slice(gate)}`;
  return `${old.trimEnd()}\n\n${text}\n`;
}

// The raw parts of the last full run (.run/bench/memory-parts.json): saved after each part, so
// `node bench/memory.mjs write` can rewrite the section from them without rerunning.
const partsFile = path.join(root, '.run', 'bench', 'memory-parts.json');
function writeResults(parts) {
  const text = resultsSection(parts).join('\n');
  const file = path.join(root, 'bench', 'RESULTS.md');
  writeFileSync(file, withSection(existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmark results\n', text));
  return text;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const what = process.argv.slice(2);
  if (what.length === 0) {
    // each part logs its runs as they finish (stderr); the section is rewritten after each part
    // (a part still to come is said not run), the goal's part first
    const parts = { perVu: null, estimate: null, profile: null, init: null,
      meta: { started: started.toISOString(), loadBefore, loadAfter: loadavg(), k6: k6Version(), gridTargets: GRID_TARGETS, gridReps: GRID_REPS } };
    const save = () => {
      parts.meta.loadAfter = loadavg();
      mkdirSync(path.dirname(partsFile), { recursive: true });
      writeFileSync(partsFile, JSON.stringify(parts));
      return writeResults(parts);
    };
    parts.perVu = await perVu(); save();
    parts.estimate = await estimate(); save();
    parts.profile = await profile(); save();
    parts.init = await initCost();
    process.stdout.write(`${save()}\n`);
  } else if (what[0] === 'write') {
    process.stdout.write(`${writeResults(JSON.parse(readFileSync(partsFile, 'utf8')))}\n`);
  } else {
    if (what.includes('profile')) console.log(`${profileMarkdown(await profile())}\n`);
    if (what.includes('init')) console.log(`${initMarkdown(await initCost())}\n`);
    if (what.includes('per-vu')) console.log(`${perVuMarkdown(await perVu())}\n`);
    if (what.includes('estimate')) console.log(`${estimateMarkdown(await estimate())}\n`);
  }
}
