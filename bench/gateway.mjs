// make bench-gateway (also part of make bench): the PostgreSQL overwrite through the pack's
// gateway (docs/gateway.md) against pgbench on the same statement, and the client's CPU per
// 1000 documents — k6 + the gateway — against what the old bin/k6 alone spent (k6 v1.8.1 +
// xk6-sql + lib/pq, built from xk6/ until commit 852a735; recorded in bench/RESULTS.md, it
// cannot be rebuilt without go.k6.io, AGPL-3.0). Issue 37 item 6. Prints a markdown section
// (with --write also into bench/RESULTS.md, between <!-- bench-gateway --> markers) and, with
// BENCH_GW_JSON=file, the raw repetitions.
//
// On its own PostgreSQL (scripts/pg-private.sh, port BENCH_GW_PG_PORT, default 17494, data in
// .run/bench/gw-postgres, started and stopped here), for each VU count and repetition,
// interleaved (every side once, then again), each side with its own private gateway:
//   gateway  scenarios/postgres/insert-vs-overwrite.js, PHASES=load,overwrite, BATCH_SIZE=1000,
//            BENCH_GW_DOCS loaded, BENCH_GW_BATCHES overwrite batches (E1's overwrite phase)
//   floor    bench/gateway-floor.js: the same statement through the same client call with
//            constant pre-built bodies (no JavaScript work per batch): the hop's own cost
//   sink     bench/gateway-floor.js with SINK: the same bodies posted to bin/bench-sink: k6's
//            own cost of posting 1.2 MB, without the gateway
//   pgbench  bench/pg-upsert.sql, -c VUS -j VUS (rows generated server-side)
//   old      (only with OLD_K6=<binary> OLD_TREE=<checkout of 852a735>) the old bin/k6 running
//            that checkout's scenario: how the recorded baseline was measured
//   gateway-b, floor-b (only with BENCH_GW_B_BIN and/or BENCH_GW_B_ENV="GOGC=200 …") the scenario through
//            another gateway binary or environment: A/B of a gateway change
// CPU: /proc/<pid>/stat (utime+stime, threads included) of k6, the gateway and the postmaster
// with its children, sampled every 100 ms, interpolated at the overwrite phase's first batch
// start and last batch end (writepath_phase_clock) or the floor's batches (t0/t1).
// Knobs: BENCH_REPS (3), BENCH_GW_VUS (2,4), BENCH_GW_DOCS (200000), BENCH_GW_BATCHES (300),
// BENCH_PGBENCH_SECONDS (10, also the floors' length), BENCH_GW_SIDES (all of the above that apply),
// BENCH_GW_BIN (bin/wp-gateway), BENCH_GW_PPROF=<dir> (gateway -cpuprofile per run, when the
// gateway has the flag).
import { spawn, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PgServer } from '../scripts/pg-private.mjs';
import { knob, spread, HZ, statOf, at } from './lib.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const env = process.env;
const k6 = path.join(root, 'bin', 'k6');
const log = (s) => process.stderr.write(`${s}\n`);
const fmt = (x, d = 0) => (x === null || x === undefined || Number.isNaN(x) ? '-' : Number(x).toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }));
const ms = (sp, d = 0, scale = 1) => (Number.isFinite(sp.med) ? `${fmt(sp.med * scale, d)} (${fmt(sp.min * scale, d)}–${fmt(sp.max * scale, d)})` : '-');
const sleep = (t) => new Promise((r) => setTimeout(r, t));

// The old bin/k6's client CPU per 1000 documents in this workload (k6 v1.8.1 + xk6-sql v1.0.5
// + lib/pq, commit 852a735; bench/RESULTS.md "Old bin/k6 baseline" says how it was measured).
// Keyed by VU count; ms of CPU per 1000 documents: median, min, max, n.
export const OLD_K6_BASELINE = JSON.parse(readFileSync(path.join(root, 'bench', 'old-k6-baseline.json'), 'utf8'));

const cpu = (pid) => { const st = statOf(pid); return st ? st.own / HZ : null; };
function serverCpu(postmaster) {
  const pm = statOf(postmaster);
  if (!pm) return null;
  let ticks = pm.own + pm.children;
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    const st = statOf(d);
    if (st && st.ppid === postmaster) ticks += st.own;
  }
  return ticks / HZ;
}

// A private gateway as scripts/lib/gateway.mjs starts one, with a chosen binary and extra
// environment (GOGC, …) for A/B runs.
async function startGateway(bin, pgUrl, extraEnv = {}, profile = null) {
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-gwb-'));
  const ready = path.join(dir, 'url');
  const token = randomBytes(16).toString('hex');
  const args = ['-addr', '127.0.0.1:0', '-ready-file', ready];
  if (profile) args.push('-cpuprofile', profile);
  const child = spawn(bin, args, { env: { PATH: env.PATH, WP_GATEWAY_TOKEN: token, PG_URL: pgUrl, ...extraEnv }, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d) => { err += d; });
  for (let i = 0; i < 500 && !existsSync(ready); i++) await sleep(10);
  if (!existsSync(ready)) { child.kill('SIGKILL'); throw new Error(`${bin} did not start: ${err}`); }
  const url = readFileSync(ready, 'utf8').trim();
  rmSync(dir, { recursive: true, force: true });
  return {
    url, token, pid: child.pid,
    stop: () => new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) { resolve(); return; }
      child.on('exit', () => resolve());
      child.kill('SIGTERM');
    }),
  };
}

// Runs cmd; every 100 ms samples the CPU of the command, of `extra` pids (the gateway) and of
// the server. Returns { code, out, err, samples: [{t, client, gateway, server}] }.
function sampled(cmd, args, { cwd = root, extraEnv = {}, extraPid = null, postmaster }) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env: { ...env, K6_NO_USAGE_REPORT: 'true', K6_AUTO_EXTENSION_RESOLUTION: 'false', ...extraEnv } });
    const samples = [];
    const take = () => {
      const c = cpu(child.pid); const g = extraPid ? cpu(extraPid) : 0; const s = serverCpu(postmaster);
      if (c !== null && g !== null && s !== null) samples.push({ t: Date.now(), client: c, gateway: g, server: s });
    };
    const timer = setInterval(take, 100);
    let out = ''; let err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    child.on('close', (code) => { clearInterval(timer); resolve({ code, out, err, samples }); });
  });
}

// CPU seconds of each counter between epoch ms t0 and t1.
function windowCpu(samples, t0, t1) {
  const d = (f) => at(samples, t1, f) - at(samples, t0, f);
  return { client: d('client'), gateway: d('gateway'), server: d('server'), seconds: (t1 - t0) / 1000 };
}

function figures(name, docs, w, docsPerS, load) {
  const per = (x) => x * 1e6 / docs; // ms of CPU per 1000 documents
  return { side: name, docsPerS, k6Ms: per(w.client), gwMs: per(w.gateway), clientMs: per(w.client + w.gateway), serverMs: per(w.server), load };
}

export async function gatewayBench() {
  const REPS = knob('BENCH_REPS', 'bench-gateway');
  const VUS = knob('BENCH_GW_VUS', 'bench-gateway').map(Number);
  const DOCS = knob('BENCH_GW_DOCS', 'bench-gateway');
  const BATCHES = knob('BENCH_GW_BATCHES', 'bench-gateway');
  const SECONDS = knob('BENCH_PGBENCH_SECONDS', 'bench-gateway');
  const gwBin = knob('BENCH_GW_BIN', 'bench-gateway') || path.join(root, 'bin', 'wp-gateway');
  const bBin = knob('BENCH_GW_B_BIN', 'bench-gateway') || null;
  const bEnv = Object.fromEntries(String(knob('BENCH_GW_B_ENV', 'bench-gateway') || '').split(/\s+/).filter(Boolean).map((kv) => kv.split(/=(.*)/s).slice(0, 2)));
  const hasB = Boolean(bBin || Object.keys(bEnv).length);
  const oldK6 = knob('OLD_K6', 'bench-gateway') || null;
  const oldTree = knob('OLD_TREE', 'bench-gateway') || null;
  const all = ['old', 'gateway', ...(hasB ? ['gateway-b'] : []), 'floor', ...(hasB ? ['floor-b'] : []), 'sink', 'pgbench'].filter((s) => s !== 'old' || (oldK6 && oldTree));
  const chosen = knob('BENCH_GW_SIDES', 'bench-gateway');
  const sides = chosen ? chosen.filter((s) => all.includes(s)) : all;
  const profDir = knob('BENCH_GW_PPROF', 'bench-gateway') || null;
  if (profDir) mkdirSync(profDir, { recursive: true });

  const server = new PgServer('bench/gw-postgres', knob('BENCH_GW_PG_PORT', 'bench-gateway'), { db: 'bench' });
  server.init();
  let started = false;
  const stopPg = () => { if (!started) return; started = false; try { server.stop(); log(`bench: stopped its PostgreSQL on 127.0.0.1:${server.port}`); } catch (e) { log(`bench: could not stop its PostgreSQL (${e.message}): scripts/pg-private.sh stop ${server.dir}`); } };
  const onSignal = (sig) => { stopPg(); process.exit(128 + { SIGINT: 2, SIGTERM: 15, SIGHUP: 1 }[sig]); };
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, onSignal);
  if (server.running()) server.stop();
  server.start();
  started = true;
  const sinkDir = mkdtempSync(path.join(tmpdir(), 'k6wp-gwsink-'));
  const sink = sides.includes('sink') ? spawn(path.join(root, 'bin', 'bench-sink'), ['-addr-file', path.join(sinkDir, 'addr')], { stdio: 'ignore' }).on('error', (e) => log(`bench: bin/bench-sink: ${e.message}`)) : null;
  const rows = [];
  let version = null;
  const loadStart = loadavg();
  const t0 = new Date();
  try {
    server.ensureDatabase('bench');
    const url = server.url('bench');
    const postmaster = server.running();
    const bare = new URL(url); bare.password = '';
    const pgEnv = { PGPASSWORD: decodeURIComponent(new URL(url).password) };
    const psql = (args, opts = {}) => execFileSync('psql', [bare.href, ...args], { cwd: root, ...opts, env: { ...env, ...pgEnv } });
    version = psql(['-Atc', 'show server_version']).toString().trim();
    const slen = 1046; // the s field of an e1 document of DOC_BYTES=1200 (lib/docs.js), as bench/run.mjs
    const stride = [7919, 7927, 7933].find((p) => DOCS % p !== 0);
    psql(['-q', '-v', 'tbl=k6wp_bench_pgbench', '-v', `ndocs=${DOCS}`, '-v', `slen=${slen}`, '-f', 'bench/pg-prefill.sql'], { stdio: ['ignore', 'ignore', 'ignore'] });
    for (let i = 0; sink && i < 50 && !existsSync(path.join(sinkDir, 'addr')); i++) await sleep(100);
    const sinkUrl = sink ? `http://${readFileSync(path.join(sinkDir, 'addr'), 'utf8').trim()}/` : null;

    // The scenario (new or old k6), its overwrite phase's window.
    async function scenario(side, vus, rep) {
      const resultsDir = mkdtempSync(path.join(tmpdir(), 'k6wp-bench-'));
      const runId = `gwb${process.pid}_${side.replace(/-/g, '')}_${vus}_${rep}`;
      mkdirSync(path.join(resultsDir, runId));
      const exportFile = path.join(resultsDir, 'export.json');
      const knobs = { RUN_ID: runId, RESULTS_DIR: resultsDir, PHASES: 'load,overwrite', DOCS: String(DOCS), BATCH_SIZE: '1000', VUS: String(vus), OVERWRITE_BATCHES: String(BATCHES), READBACK: '200' };
      const args = ['run', '--quiet', '--address=', `--summary-export=${exportFile}`, 'scenarios/postgres/insert-vs-overwrite.js'];
      let gw = null; let r;
      const load = loadavg()[0];
      try {
        if (side === 'old') {
          r = await sampled(oldK6, args, { cwd: oldTree, extraEnv: { ...knobs, PWD: oldTree, PG_URL: url }, postmaster });
        } else {
          gw = await startGateway(side === 'gateway-b' ? (bBin || gwBin) : gwBin, url, side === 'gateway-b' ? bEnv : {}, profDir ? path.join(profDir, `${side}-${vus}-${rep}.pprof`) : null);
          r = await sampled(k6, args, { extraEnv: { ...knobs, PWD: root, PG_URL: '', GATEWAY_URL: gw.url, WP_GATEWAY_TOKEN: gw.token }, extraPid: gw.pid, postmaster });
        }
      } finally { if (gw) await gw.stop(); }
      if (r.code !== 0) throw new Error(`${side} (VUS=${vus}) failed (${r.code}):\n${r.err.slice(-2000)}\n${r.out.slice(-1000)}`);
      const summary = JSON.parse(readFileSync(path.join(resultsDir, runId, 'summary.json'), 'utf8'));
      const v = summary.verification || {};
      if (v.readback_ok === false || v.found !== v.expected) throw new Error(`${side}: verification failed: ${JSON.stringify(v)}`);
      const ow = summary.phases.find((p) => p.phase === 'overwrite');
      const clock = (JSON.parse(readFileSync(exportFile, 'utf8')).metrics || {})['writepath_phase_clock{phase:overwrite}'];
      rmSync(resultsDir, { recursive: true, force: true });
      if (!clock || !(clock.max > clock.min) || r.samples.length < 2) throw new Error(`${side}: no overwrite window (${JSON.stringify(clock)}, ${r.samples.length} samples)`);
      const w = windowCpu(r.samples, clock.min, clock.max);
      return figures(side, ow.docs_ok, w, ow.docs_per_s, load);
    }

    async function floor(side, vus) {
      let gw = null; let r;
      const load = loadavg()[0];
      const knobs = { TABLE: 'k6wp_bench_pgbench', DOCS: String(DOCS), BENCH_VUS: String(vus), BENCH_SECONDS: String(SECONDS) };
      try {
        if (side === 'sink') {
          r = await sampled(k6, ['run', '--quiet', '--address=', 'bench/gateway-floor.js'], { extraEnv: { ...knobs, SINK: sinkUrl }, postmaster });
        } else {
          const b = side === 'floor-b';
          gw = await startGateway(b ? (bBin || gwBin) : gwBin, url, b ? bEnv : {}, profDir ? path.join(profDir, `${side}-${vus}-${Date.now()}.pprof`) : null);
          r = await sampled(k6, ['run', '--quiet', '--address=', 'bench/gateway-floor.js'], { extraEnv: { ...knobs, GATEWAY_URL: gw.url, WP_GATEWAY_TOKEN: gw.token }, extraPid: gw.pid, postmaster });
        }
      } finally { if (gw) await gw.stop(); }
      const line = r.out.trim().split('\n').filter((l) => l.startsWith('{')).pop();
      if (r.code !== 0 || !line) throw new Error(`bench/gateway-floor.js (${side}) failed (${r.code}):\n${r.err.slice(-2000)}`);
      const j = JSON.parse(line);
      return figures(side, j.rows, windowCpu(r.samples, j.t0, j.t1), j.rows_per_s, load);
    }

    async function pgbench(vus) {
      const load = loadavg()[0];
      const r = await sampled('pgbench', ['-n', '-c', String(vus), '-j', String(vus), '-T', String(SECONDS), '-D', `ndocs=${DOCS}`, '-D', 'batch=1000',
        '-D', `stride=${stride}`, '-D', `slen=${slen}`, '-D', 'tbl=k6wp_bench_pgbench', '-f', 'bench/pg-upsert.sql', bare.href], { extraEnv: pgEnv, postmaster });
      const n = Number((/number of transactions actually processed: (\d+)/.exec(r.out) || [])[1]);
      const tps = Number((/tps = ([\d.]+)/.exec(r.out) || [])[1]);
      if (r.code !== 0 || !n) throw new Error(`pgbench failed (${r.code}):\n${r.err.slice(-2000)}`);
      const s = r.samples;
      const w = { client: s.at(-1).client - s[0].client, gateway: 0, server: s.at(-1).server - s[0].server };
      return figures('pgbench', n * 1000, w, tps * 1000, load);
    }

    for (let rep = 0; rep < REPS; rep++) {
      for (const vus of VUS) {
        const row = { rep, vus };
        for (const side of sides) {
          const f = side === 'pgbench' ? await pgbench(vus) : side === 'floor' || side === 'floor-b' || side === 'sink' ? await floor(side, vus) : await scenario(side, vus, rep);
          row[side] = f;
          log(`gw bench rep ${rep + 1} VUS=${vus} ${side}: ${fmt(f.docsPerS)} docs/s; CPU ms per 1000 docs: k6 ${fmt(f.k6Ms, 2)} + gateway ${fmt(f.gwMs, 2)} = client ${fmt(f.clientMs, 2)}, PostgreSQL ${fmt(f.serverMs, 2)} (load ${f.load.toFixed(2)})`);
        }
        rows.push(row);
      }
    }
  } finally {
    if (sink) sink.kill();
    rmSync(sinkDir, { recursive: true, force: true });
    stopPg();
    for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.removeListener(sig, onSignal);
  }
  const result = { version, docs: DOCS, batches: BATCHES, seconds: SECONDS, vus: VUS, sides, rows, loadStart, loadEnd: loadavg(), start: t0.toISOString(), end: new Date().toISOString() };
  const json = knob('BENCH_GW_JSON', 'bench-gateway');
  if (json) writeFileSync(json, JSON.stringify(result, null, 1));
  return result;
}

// The section of RESULTS.md.
export function gatewaySection(g) {
  const ok = (c) => (c ? 'met' : '**missed**');
  const la = (l) => l.map((x) => x.toFixed(2)).join(' ');
  const out = [
    `## PostgreSQL through the gateway (issue 37 item 6; E1 overwrite phase, DOCS=${fmt(g.docs)}, ${g.batches} batches of 1000; PostgreSQL ${g.version})`, '',
    `${g.rows.length / g.vus.length} repetitions per VU count, every side once per repetition (interleaved), each scenario run with its own private gateway; median (min–max); ratios taken within a repetition. Load average (1, 5, 15 min) ${la(g.loadStart)} at the start, ${la(g.loadEnd)} at the end (${g.start.slice(0, 16)} – ${g.end.slice(11, 16)} UTC). CPU in ms per 1000 documents from /proc/<pid>/stat, cut at the overwrite phase's batches (floors: their batches; pgbench: its whole run).`, '',
    '| VUs | side | docs/s | ÷ pgbench | k6 CPU | gateway CPU | client CPU (k6 + gateway) | ÷ old bin/k6 (recorded) | PostgreSQL CPU | load (1 min) |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const goals = [];
  for (const vus of g.vus) {
    const rs = g.rows.filter((r) => r.vus === vus);
    const base = OLD_K6_BASELINE[String(vus)];
    for (const side of g.sides) {
      const col = (k) => spread(rs.map((r) => r[side][k]));
      const vsPg = g.sides.includes('pgbench') ? spread(rs.map((r) => r[side].docsPerS / r.pgbench.docsPerS)) : spread([]);
      const vsOld = base && side !== 'pgbench' ? spread(rs.map((r) => r[side].clientMs / base.med)) : spread([]);
      out.push(`| ${vus} | ${side} | ${ms(col('docsPerS'))} | ${ms(vsPg, 2)} | ${ms(col('k6Ms'), 2)} | ${ms(col('gwMs'), 2)} | ${ms(col('clientMs'), 2)} | ${ms(vsOld, 2)} | ${ms(col('serverMs'), 2)} | ${ms(col('load'), 1)} |`);
      if (side === 'gateway') {
        goals.push(`VUS=${vus}: docs/s ${fmt(vsPg.med, 2)}× pgbench (goal ≥ 0.95: ${ok(vsPg.med >= 0.95)}); client CPU ${fmt(vsOld.med, 2)}× the old bin/k6's ${fmt(base ? base.med : NaN, 2)} ms (goal ≤ 1.2: ${ok(vsOld.med <= 1.2)})`);
      }
    }
  }
  out.push('', `Goals: ${goals.join('; ')}.`, '',
    'Sides: `gateway` = the scenario on stock k6 through the gateway; `floor` = bench/gateway-floor.js, the same statement through the same client call (lib/gateway.js execBytes) with constant pre-built bodies, no JavaScript work per batch (the hop\'s own cost); `sink` = the same bodies posted to bin/bench-sink (k6\'s own cost of posting 1.2 MB, no gateway); `pgbench` = bench/pg-upsert.sql (rows generated server-side; its client CPU is pgbench\'s); `old` = the old bin/k6 (present only when OLD_K6 was given). The old bin/k6\'s figure is the one recorded in "Old bin/k6 baseline" below (bench/old-k6-baseline.json).', '');
  return out;
}

// The old bin/k6's recorded figure (bench/old-k6-baseline.json): how it was measured and what.
export function baselineSection(b = OLD_K6_BASELINE) {
  if (!b.vus) return ['### Old bin/k6 baseline', '', 'Not recorded (bench/old-k6-baseline.json is empty).', ''];
  const sp = (x, d = 2) => `${fmt(x.med, d)} (${fmt(x.min, d)}–${fmt(x.max, d)})`;
  return [
    '### Old bin/k6 baseline (recorded once; it cannot be re-measured)', '',
    `${b.how}`, '',
    '| VUs | old bin/k6 overwrite docs/s | client CPU (k6) ms per 1000 docs | PostgreSQL CPU ms per 1000 docs | old ÷ pgbench docs/s (same repetition) | load (1 min) during its runs |',
    '|---:|---:|---:|---:|---:|---:|',
    ...b.vus.map((v) => { const x = b[String(v)]; return `| ${v} | ${sp(x.docsPerS, 0)} | ${sp(x)} | ${sp(x.serverMs)} | ${sp(x.vsPgbench)} | ${sp(x.load, 1)} |`; }), '',
  ];
}

// RESULTS.md with the section between <!-- bench-gateway --> markers replaced (or added before
// the memory section, or at the end).
const SECTION = 'bench-gateway';
export function withGatewaySection(old, lines) {
  const text = [`<!-- ${SECTION} -->`, ...lines, `<!-- /${SECTION} -->`].join('\n');
  const start = old.indexOf(`<!-- ${SECTION} -->`); const end = old.indexOf(`<!-- /${SECTION} -->`);
  if (start >= 0 && end > start) return `${old.slice(0, start)}${text}${old.slice(end + `<!-- /${SECTION} -->`.length)}`;
  const mem = old.indexOf('<!-- bench-memory -->');
  if (mem >= 0) return `${old.slice(0, mem)}${text}\n\n${old.slice(mem)}`;
  return `${old.trimEnd()}\n\n${text}\n`;
}

// node bench/gateway.mjs          prints the section
// node bench/gateway.mjs --write  also writes it into bench/RESULTS.md (make bench, make bench-gateway)
// node bench/gateway.mjs --from F  the section of a run saved with BENCH_GW_JSON=F (no new run)
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const from = process.argv.indexOf('--from');
  const g = from > 0 ? JSON.parse(readFileSync(process.argv[from + 1], 'utf8')) : await gatewayBench();
  const lines = [...gatewaySection(g), ...baselineSection()];
  if (process.argv.includes('--write')) {
    const file = path.join(root, 'bench', 'RESULTS.md');
    writeFileSync(file, withGatewaySection(existsSync(file) ? readFileSync(file, 'utf8') : '', lines));
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}
