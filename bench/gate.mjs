// make bench-gate: what the comparison verdicts (scripts/lib/verdict.mjs) are worth on this machine (bench/README.md).
//   1. The gate's false-alarm rate over A/A gates and its detection rate of a ~25 % regression,
//      N runs per side, on the real PostgreSQL (regression: secondary indexes, PG_INDEXES=2,
//      which slows E1's upserts) and on the ArangoDB API test server with injected latency
//      (regression: latency and jitter +35 %, about +25 % batch time). Each block is one interleaved comparison of three
//      sides — A, A again, and the regression — made by scripts/compare --repeat N; the gates are
//      then the real command over those folders (scripts/compare --gate --baseline <A runs> <other
//      runs>), for several choices of gated figures, plus the paired design over the same runs.
//   2. A threshold file calibrated (scripts/calibrate) from the first block's A/A runs, applied
//      to every later A/A run: the share that would fail it.
//   3. Apache Otava over a history with a real step (a PostgreSQL setting changed halfway) and
//      over an A/A history (scripts/history analyze).
// Writes the section between the bench-gate markers of bench/RESULTS.md (make bench keeps it).
// Knobs: BENCH_GATE_* in docs/configuration.md (lib/knobs.js, scope tool:bench); why their
// defaults are what they are: bench/README.md.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PgServer } from '../scripts/pg-private.mjs';
import { gateDecision, parseGateMetrics, parseTolerance } from '../scripts/lib/verdict.mjs';
import { startTestServer } from '../test/helpers/testserver.mjs';
import { repoRoot as root } from '../scripts/lib/kit.mjs';
import { knob as benchKnob } from './lib.mjs';

const env = process.env;
// The knobs: lib/knobs.js (scope tool:bench; bad input: one line, exit 107).
const knob = (name) => benchKnob(name, 'bench-gate');
const BLOCKS = knob('BENCH_GATE_BLOCKS');
const N = knob('BENCH_GATE_N');
const WARMUP = knob('BENCH_GATE_WARMUP');
const TARGETS = knob('BENCH_GATE_TARGETS');
// Strings: they travel as -e values and are compared with those of earlier blocks.
const DOCS = String(knob('BENCH_GATE_DOCS'));
const BATCHES = String(knob('BENCH_GATE_BATCHES'));
// The workload a target's blocks (or the history) were made with travels with them (blocks.json,
// history.json), so that reused parts are described as they ran.
const WORKLOAD_NOW = { docs: DOCS, batches: BATCHES };
const workloadText = (w) => `DOCS=${w.docs}, ${w.batches} overwrite and ${w.batches} mixed batches of 1000`;
const HISTORY_RUNS = knob('BENCH_GATE_HISTORY_RUNS');
const HISTORY_WARMUP = knob('BENCH_GATE_HISTORY_WARMUP');
const SLOW_MS = knob('BENCH_GATE_SLOW_MS');
// BENCH_GATE_JITTER_MS=20: the baseline server's jitter (uniform 0–this ms on top of 20 ms); the
// slow one's grows in proportion (SLOW_MS / 20 of it). Less jitter, less spread between runs.
// A target named api-j<N> (BENCH_GATE_TARGETS=api,api-j4,…) is the API pair with jitter N.
const JITTER_MS = knob('BENCH_GATE_JITTER_MS');
const jitterOf = (name) => { const m = /^api-j(\d+)$/.exec(name); return m ? Number(m[1]) : JITTER_MS; };
const slowJitterOf = (j) => Math.round(j * SLOW_MS / 20); // whole ms: the test server takes an int
const PG_INDEXES = knob('BENCH_GATE_PG_INDEXES');
const OUT = path.resolve(knob('BENCH_GATE_OUT') || path.join(root, 'results', `bench-gate-${new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14)}`));
const WORKLOAD = ['-e', `DOCS=${DOCS}`, '-e', `OVERWRITE_BATCHES=${BATCHES}`, '-e', `MIXED_BATCHES=${BATCHES}`, '-e', 'WP_INFLUX=0', '-e', 'HISTORY=0'];
// Gates evaluated over the same runs: the issue's example, and the figures that can see 25 %.
const CONFIGS = [
  { name: 'docs/s and p99 of every phase (the default), tolerance 10 %', metrics: 'docs/s,p99', tol: '10%' },
  { name: 'p50 of every phase, tolerance 15 %', metrics: 'p50', tol: '15%' },
  { name: 'docs/s and p50 of every phase, tolerance 15 %', metrics: 'docs/s,p50', tol: '15%' },
  { name: 'p50 of every phase, tolerance 10 %', metrics: 'p50', tol: '10%' },
  { name: 'p50 of every phase, tolerance 20 %', metrics: 'p50', tol: '20%' },
  { name: 'overwrite p50 alone, tolerance 10 %', metrics: 'overwrite:p50', tol: '10%' },
];
// BENCH_GATE_REUSE=api,pg,history: take that part's runs from BENCH_GATE_OUT (an earlier
// bench-gate's folder, blocks.json / history.json) instead of making them again, so the gates can
// be evaluated anew (other figures, other tolerances) over the same runs; blocks missing from an
// interrupted run's blocks.json are made and appended.
const REUSE = knob('BENCH_GATE_REUSE') || [];
// BENCH_GATE_STOP_AT=<ISO time>: no new block starts after it (on a shared machine, a bounded
// share of it); the gates are evaluated over the blocks made, and the section says how many.
const stopAt = knob('BENCH_GATE_STOP_AT');
const STOP_AT = stopAt ? Date.parse(stopAt) : Infinity;
if (Number.isNaN(STOP_AT)) { process.stderr.write(`bench-gate: BENCH_GATE_STOP_AT=${JSON.stringify(stopAt)} is not allowed: an ISO time such as 2026-11-25T03:10:00Z\n`); process.exit(107); }
const log = (s) => process.stderr.write(`${s}\n`);
const load = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');
const sh = (cmd, args, opts = {}) => spawnSync(cmd, args, { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26, ...opts });

// The private PostgreSQL of the PostgreSQL target and the history (started once each, stopped
// however this script ends).
let pgRunning = null;
function startPg() {
  const pg = new PgServer('bench/gate-postgres', knob('BENCH_GATE_PG_PORT'), { db: 'gate' });
  pg.init(); pg.start(); pg.ensureDatabase();
  pgRunning = pg;
  return pg;
}
function stopPg() {
  if (!pgRunning) return;
  const pg = pgRunning; pgRunning = null;
  try { pg.stop(); } catch (e) { log(`bench-gate: could not stop its PostgreSQL (${e.message}): scripts/pg-private.sh stop ${pg.dir}`); }
}
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => { stopPg(); process.exit(128 + { SIGINT: 2, SIGTERM: 15, SIGHUP: 1 }[sig]); });

// One interleaved block: sides A, B (A again) and C (the regression), N runs each.
function block(dir, sideKnobs, scenario, extraEnv = {}) {
  const r = sh(path.join(root, 'scripts', 'compare'), ['--repeat', String(N), '--warmup', String(WARMUP), ...WORKLOAD, ...sideKnobs, '--out', dir, scenario, scenario, scenario],
    { env: { ...process.env, K6_NO_USAGE_REPORT: 'true', ...extraEnv } });
  if (r.status !== 0) throw new Error(`block ${dir}: scripts/compare exit ${r.status}\n${r.stderr.slice(-3000)}`);
  const json = JSON.parse(readFileSync(path.join(dir, 'compare.json'), 'utf8'));
  return json.sides.map((s) => s.runs.map((x) => x.source));
}

function gate(base, cand, cfg, out) {
  const r = sh(path.join(root, 'scripts', 'compare'), ['--gate', '--baseline', base.join(','), '--metrics', cfg.metrics, '--max-regression', cfg.tol, '--out', out, cand.join(',')]);
  const f = path.join(out, 'gate.json');
  return { exit: r.status, json: existsSync(f) ? JSON.parse(readFileSync(f, 'utf8')) : null, refusal: r.status === 107 && !existsSync(f) ? r.stderr.trim() : null };
}

const summaries = (dirs) => dirs.map((d) => JSON.parse(readFileSync(path.join(d, 'summary.json'), 'utf8')));

// The gate's decision in-process (the paired design; and the unpaired one's figures when the
// command refused before deciding).
function decide(base, cand, cfg, isPaired) {
  return gateDecision({ base: summaries(base), cand: summaries(cand), metrics: parseGateMetrics(cfg.metrics), tolerance: parseTolerance(cfg.tol), paired: isPaired });
}

const median = (xs) => { const v = xs.filter(Number.isFinite).sort((a, b) => a - b); return v.length ? (v.length % 2 ? v[v.length >> 1] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2) : null; };
const pct = (x) => (x === null || !Number.isFinite(x) ? '-' : `${(x * 100).toFixed(0)} %`);

async function target(name) {
  const dir = path.join(OUT, name);
  mkdirSync(dir, { recursive: true });
  let scenario; let sideKnobs; let extraEnv = {}; let stop = async () => {}; let regression;
  let blocks = []; let workload = WORKLOAD_NOW;
  const blocksFile = path.join(dir, 'blocks.json');
  if (REUSE.includes(name) && existsSync(blocksFile)) {
    ({ blocks, regression, workload = null } = JSON.parse(readFileSync(blocksFile, 'utf8')));
    if (!workload) throw new Error(`${blocksFile}: no "workload" ({ docs, batches }) recorded with its blocks: add the one they were made with`);
    if (blocks.length < BLOCKS && (workload.docs !== DOCS || workload.batches !== BATCHES)) throw new Error(`${blocksFile}: made with ${workloadText(workload)}; BENCH_GATE_DOCS/BENCH_GATE_BATCHES would add blocks of another workload`);
    log(`bench-gate ${name}: ${blocks.length} blocks reused from ${blocksFile}`);
  }
  if (blocks.length >= BLOCKS) return evaluate(name, dir, blocks.slice(0, BLOCKS), regression, workload);
  if (name.startsWith('api')) {
    const jitter = jitterOf(name); const slowJitter = slowJitterOf(jitter);
    const base = await startTestServer('arangodb', ['-no-auth', '-latency-ms', '20', '-latency-jitter-ms', String(jitter), '-max-stored-mb', '4096']);
    const slow = await startTestServer('arangodb', ['-no-auth', '-latency-ms', String(SLOW_MS), '-latency-jitter-ms', String(slowJitter), '-max-stored-mb', '4096']);
    scenario = 'scenarios/arangodb/insert-vs-overwrite.js';
    sideKnobs = ['-e', `A:ARANGO_URL=${base.url}`, '-e', `B:ARANGO_URL=${base.url}`, '-e', `C:ARANGO_URL=${slow.url}`];
    regression ||= `the ArangoDB API test server (TEST ENDPOINT) with 20 + uniform 0–${jitter} ms per request against one with ${SLOW_MS} + 0–${slowJitter} ms (+${Math.round((SLOW_MS + slowJitter / 2) / (20 + jitter / 2) * 100 - 100)} % server time)`;
    stop = async () => { await base.stop(); await slow.stop(); };
  } else {
    const pg = startPg();
    extraEnv = { PG_URL: pg.url() };
    scenario = 'scenarios/postgres/insert-vs-overwrite.js';
    sideKnobs = ['-e', `C:PG_INDEXES=${PG_INDEXES}`];
    regression ||= `a private PostgreSQL ${pg.psql('SHOW server_version')} (defaults) without and with ${PG_INDEXES} secondary indexes on the documents (PG_INDEXES=${PG_INDEXES}: E1's upserts must update them)`;
    stop = async () => stopPg();
  }
  // The blocks not yet recorded (all of them, or those after the reused ones).
  try {
    for (let b = blocks.length + 1; b <= BLOCKS; b++) {
      if (Date.now() > STOP_AT) { log(`bench-gate ${name}: BENCH_GATE_STOP_AT passed: ${blocks.length} blocks of ${BLOCKS}`); break; }
      const before = load(); const at = new Date().toISOString();
      const [A, A2, C] = block(path.join(dir, `block${String(b).padStart(2, '0')}`), sideKnobs, scenario, extraEnv);
      blocks.push({ A, A2, C, before, after: load(), at, until: new Date().toISOString() });
      writeFileSync(blocksFile, `${JSON.stringify({ regression, workload, blocks }, null, 2)}\n`);
      log(`bench-gate ${name}: block ${b} of ${BLOCKS} (load ${before} → ${load()})`);
    }
  } finally { await stop(); }
  return evaluate(name, dir, blocks, regression, workload);
}

// The gates, the regression's size and the calibrated thresholds over one target's blocks.
function evaluate(name, dir, blocks, regression, workload) {
  const results = CONFIGS.map((cfg, ci) => {
    const rows = blocks.map((bl, bi) => {
      const gdir = path.join(dir, `gates${ci + 1}`, `b${bi + 1}`);
      const aa = gate(bl.A, bl.A2, cfg, path.join(gdir, 'aa'));
      const ab = gate(bl.A, bl.C, cfg, path.join(gdir, 'ab'));
      return { aa, ab, paa: decide(bl.A, bl.A2, cfg, true), pab: decide(bl.A, bl.C, cfg, true), uaa: decide(bl.A, bl.A2, cfg, false), uab: decide(bl.A, bl.C, cfg, false) };
    });
    // Twice the runs: blocks 1+2, 3+4, … pooled, 2N runs per side (A/A: A of both blocks against
    // A again of both; the regression likewise). What more runs buy, from the same runs.
    const pooled = [];
    for (let bi = 0; bi + 1 < blocks.length; bi += 2) {
      const [x, y] = [blocks[bi], blocks[bi + 1]];
      const gdir = path.join(dir, `gates${ci + 1}`, `pooled${bi / 2 + 1}`);
      pooled.push({ aa: gate([...x.A, ...y.A], [...x.A2, ...y.A2], cfg, path.join(gdir, 'aa')), ab: gate([...x.A, ...y.A], [...x.C, ...y.C], cfg, path.join(gdir, 'ab')) });
    }
    return { cfg, rows, pooled };
  });
  // The regression's size, as the runs show it: median over blocks of each block's median ratio.
  const effect = {};
  for (const bl of blocks) {
    const [sa, sc] = [summaries(bl.A), summaries(bl.C)];
    for (const p of sa[0].phases) {
      const m = (ss, f) => median(ss.map((s) => f(s.phases.find((q) => q.phase === p.phase))));
      (effect[`${p.phase} docs/s`] ||= []).push(m(sc, (q) => q.docs_per_s) / m(sa, (q) => q.docs_per_s) - 1);
      (effect[`${p.phase} p50`] ||= []).push(m(sc, (q) => q.batch_ms.median) / m(sa, (q) => q.batch_ms.median) - 1);
    }
  }
  // Calibrated thresholds: from block 1's A and A' runs, applied to every later A/A run.
  const calFile = path.join(dir, 'calibrated.json');
  const cal = sh(path.join(root, 'scripts', 'calibrate'), [[...blocks[0].A, ...blocks[0].A2].join(','), '--out', calFile]);
  let calibration = { error: cal.status !== 0 ? cal.stderr.trim() : null };
  if (cal.status === 0) {
    const limits = JSON.parse(readFileSync(calFile, 'utf8')).phases;
    const later = blocks.slice(1).flatMap((bl) => summaries([...bl.A, ...bl.A2]));
    const fails = later.filter((s) => s.phases.some((p) => {
      const l = limits[p.phase] || {};
      return (l.batch_p50_ms !== undefined && p.batch_ms.median > l.batch_p50_ms) || (l.batch_p99_ms !== undefined && p.batch_ms.p99 > l.batch_p99_ms);
    }));
    const regressed = blocks.slice(1).flatMap((bl) => summaries(bl.C));
    const caught = regressed.filter((s) => s.phases.some((p) => { const l = limits[p.phase] || {}; return p.batch_ms.median > l.batch_p50_ms || p.batch_ms.p99 > l.batch_p99_ms; }));
    calibration = { runs: later.length, failed: fails.length, regressed: regressed.length, caught: caught.length, table: cal.stdout.split('\n').filter((l) => /\|/.test(l)).join('\n') };
  }
  return { name, regression, workload, blocks, results, effect, calibration };
}

// Otava over a stepped history and an A/A history (scripts/history), on the private PostgreSQL.
function historyDemo() {
  const dir = path.join(OUT, 'history');
  mkdirSync(dir, { recursive: true });
  const saved = path.join(dir, 'history.json');
  if (REUSE.includes('history')) {
    const out = JSON.parse(readFileSync(saved, 'utf8'));
    if (!out.workload || out.warmup === undefined || out.runs === undefined) throw new Error(`${saved}: no "workload", "warmup" or "runs" recorded: add those the history was made with`);
    // Analysed anew (the same Otava over the same files).
    out.aa = sh(path.join(root, 'scripts', 'history'), ['analyze', '--file', path.join(dir, 'aa.csv')]).stdout;
    out.step = sh(path.join(root, 'scripts', 'history'), ['analyze', '--file', path.join(dir, 'step.csv')]).stdout;
    return out;
  }
  const pg = startPg();
  const out = {};
  try {
    const runs = (file, n, tag) => {
      for (let i = 0; i < n; i++) {
        const r = sh(path.join(root, 'scripts', 'run'), ['scenarios/postgres/insert-vs-overwrite.js', '-q', '-e', `DOCS=${DOCS}`, '-e', `OVERWRITE_BATCHES=${BATCHES}`, '-e', `MIXED_BATCHES=${BATCHES}`, '-e', 'WP_INFLUX=0', '-e', `HISTORY=${file}`, '-e', `RESULTS_DIR=${path.join(dir, tag)}`],
          { env: { ...process.env, PG_URL: pg.url(), K6_NO_USAGE_REPORT: 'true' } });
        if (r.status !== 0) throw new Error(`history run: exit ${r.status}\n${r.stderr.slice(-2000)}`);
      }
    };
    const analyze = (file) => sh(path.join(root, 'scripts', 'history'), ['analyze', '--file', file]).stdout;
    // Warm-up runs first (their own file, not analysed): the first runs on a fresh server are
    // slower (bench/README.md).
    runs(path.join(dir, 'warmup.csv'), HISTORY_WARMUP, 'warmup');
    // A/A: the same server, the same settings, 2 × HISTORY_RUNS runs.
    const aa = path.join(dir, 'aa.csv');
    out.aaLoad = [load()];
    runs(aa, 2 * HISTORY_RUNS, 'aa');
    out.aaLoad.push(load());
    out.aa = analyze(aa);
    // A step: HISTORY_RUNS runs, then the server's WAL flushing switched off (fsync=off, reloaded), HISTORY_RUNS more.
    const step = path.join(dir, 'step.csv');
    out.stepLoad = [load()];
    runs(step, HISTORY_RUNS, 'step');
    pg.psql('ALTER SYSTEM SET fsync = off'); pg.psql('SELECT pg_reload_conf()');
    runs(step, HISTORY_RUNS, 'step');
    pg.psql('ALTER SYSTEM RESET fsync'); pg.psql('SELECT pg_reload_conf()');
    out.stepLoad.push(load());
    out.step = analyze(step);
    out.workload = WORKLOAD_NOW; out.warmup = HISTORY_WARMUP; out.runs = HISTORY_RUNS;
    writeFileSync(saved, `${JSON.stringify({ aaLoad: out.aaLoad, stepLoad: out.stepLoad, workload: out.workload, warmup: out.warmup, runs: out.runs }, null, 2)}\n`);
  } finally { stopPg(); }
  return out;
}

function section(targets, history) {
  const L = ['<!-- bench-gate -->', '## Verdicts: the gate, calibrated thresholds and change points (`make bench-gate`)', '',
    `Generated by \`make bench-gate\` (bench/gate.mjs) on ${new Date().toISOString()}; do not edit by hand. ${os.cpus().length} cores, shared with other builds and tests.`,
    `Each block: \`scripts/compare --repeat ${N} --warmup ${WARMUP}\` of three sides — A, A again, and the regression — interleaved (A B C, C B A, …, one run at a time) over E1 (the workload each part names below); then per block one A/A gate (A against A again) and one regression gate (A against the regression), ${N} runs per side, α = 0.05 over all gated figures. "refused": exit 107, the gate could not detect its tolerance at the measured spread (it says so instead of passing). Paired: the same runs, each run against the one made beside it (signed-rank test; \`--paired\`).`, ''];
  for (const t of targets) {
    const loads = t.blocks.map((b) => `${b.before}`);
    L.push(`### ${t.name.startsWith('api') ? `API test server with injected latency, jitter 0–${jitterOf(t.name)} ms (TEST ENDPOINT)` : 'PostgreSQL'}`, '',
      `Workload: E1, ${workloadText(t.workload)}.`, '',
      `Regression: ${t.regression}. Its size in these runs (candidate/baseline − 1, median over the ${t.blocks.length} blocks): ${Object.entries(t.effect).map(([p, v]) => `${p} ${median(v) >= 0 ? '+' : ''}${pct(median(v))}`).join(', ')}. Load average (1, 5, 15 min) at the first block ${loads[0]}, at the last ${t.blocks[t.blocks.length - 1].after}${t.blocks[0].at && t.blocks[t.blocks.length - 1].until ? `; blocks made ${t.blocks[0].at.slice(0, 16).replace('T', ' ')} – ${t.blocks[t.blocks.length - 1].until.slice(0, 16).replace('T', ' ')} UTC` : ''}.`, '',
      '| gated figures | design | A/A gates: passed / false alarm (99) / refused (107) | regression gates: detected (99) / passed / refused | the same runs decided without the refusal: A/A 99 · regression 99 | smallest detectable regression per figure (median over blocks) |',
      '|---|---|---|---|---|---|');
    for (const r of t.results) {
      const n = r.rows.length;
      const count = (xs, f) => xs.filter(f).length;
      const det = (rows) => {
        const by = {};
        for (const row of rows) for (const x of row.rows) (by[`${x.phase} ${x.label}`] ||= []).push(x.detectable === Infinity || x.detectable === null ? Infinity : x.detectable);
        return Object.entries(by).map(([k, v]) => `${k} ${v.every((x) => x === Infinity) ? '∞' : pct(median(v.filter(Number.isFinite)))}`).join(', ');
      };
      // What the gate would have said had it not refused: a flagged figure counts, 'cannot detect' does not.
      const flagged = (dec) => dec.rows.some((x) => x.verdict === 'REGRESSION');
      const forced = (rows, kaa, kab) => `${count(rows, (x) => flagged(x[kaa]))} · ${count(rows, (x) => flagged(x[kab]))} of ${n}`;
      const aa = r.rows.map((x) => x.aa.exit); const ab = r.rows.map((x) => x.ab.exit);
      L.push(`| ${r.cfg.name} | unpaired (Mann–Whitney) | ${count(aa, (e) => e === 0)} / ${count(aa, (e) => e === 99)} / ${count(aa, (e) => e === 107)} of ${n} | ${count(ab, (e) => e === 99)} / ${count(ab, (e) => e === 0)} / ${count(ab, (e) => e === 107)} of ${n} | ${forced(r.rows, 'uaa', 'uab')} | ${det(r.rows.map((x) => x.uaa))} |`);
      const paa = r.rows.map((x) => x.paa.exit); const pab = r.rows.map((x) => x.pab.exit);
      if (r.pooled.length) {
        const qaa = r.pooled.map((x) => x.aa.exit); const qab = r.pooled.map((x) => x.ab.exit); const q = r.pooled.length;
        const qdet = det(r.pooled.map((x) => x.aa.json || { rows: [] }));
        L.push(`| ${r.cfg.name} | unpaired, ${2 * N} runs per side (two blocks pooled) | ${count(qaa, (e) => e === 0)} / ${count(qaa, (e) => e === 99)} / ${count(qaa, (e) => e === 107)} of ${q} | ${count(qab, (e) => e === 99)} / ${count(qab, (e) => e === 0)} / ${count(qab, (e) => e === 107)} of ${q} | - | ${qdet} |`);
      }
      L.push(`| ${r.cfg.name} | paired (signed-rank) | ${count(paa, (e) => e === 0)} / ${count(paa, (e) => e === 99)} / ${count(paa, (e) => e === 107)} of ${n} | ${count(pab, (e) => e === 99)} / ${count(pab, (e) => e === 0)} / ${count(pab, (e) => e === 107)} of ${n} | ${forced(r.rows, 'paa', 'pab')} | ${det(r.rows.map((x) => x.paa))} |`);
    }
    // The comparisons themselves (scripts/compare, every figure row at α unadjusted): how often
    // A against A again showed a significant difference, and the regression did.
    const tables = t.blocks.map((_, bi) => path.join(OUT, t.name, `block${String(bi + 1).padStart(2, '0')}`, 'compare.json')).filter(existsSync).map((f) => JSON.parse(readFileSync(f, 'utf8')).table);
    if (tables.length) {
      const rows = tables.flat();
      const sig = (letter) => rows.filter((r) => r.vs[letter] && r.vs[letter].significant).length;
      const byFig = {};
      for (const r of rows) (byFig[`${r.phase} ${r.label}`] ||= []).push(Boolean(r.vs.C && r.vs.C.significant));
      L.push('', `\`scripts/compare\` of each block (${rows.length / tables.length} figure rows, each at α = 0.05 without adjustment): A against A again — ${sig('B')} of ${rows.length} rows significant (${pct(sig('B') / rows.length)}), every row \`~\` in ${tables.filter((tb) => tb.every((r) => !(r.vs.B && r.vs.B.significant))).length} of ${tables.length} blocks; A against the regression — ${sig('C')} of ${rows.length} rows significant; per figure, blocks where the regression was significant: ${Object.entries(byFig).map(([k, v]) => `${k} ${v.filter(Boolean).length}/${v.length}`).join(', ')}.`);
    }
    // Block 1 as the commands print it: the comparison of the three sides, and the A/A and the
    // regression gate of the figures that can see the regression.
    const b1 = path.join(OUT, t.name, 'block01', 'compare.txt');
    if (existsSync(b1)) {
      const rows = readFileSync(b1, 'utf8').split('\n').filter((l) => /^(phase|-{5}|\w+\s+\| (docs\/s|p50 ms|p99 ms))/.test(l));
      L.push('', `Block 1, \`scripts/compare\` of the three sides (B = A again, C = the regression):`, '', '```', ...rows, '```');
    }
    const best = t.results[1];
    for (const [k, label] of [['aa', 'A/A gate'], ['ab', 'regression gate']]) {
      const g = path.join(OUT, t.name, 'gates2', 'b1', k, 'gate.txt');
      if (existsSync(g)) L.push('', `Block 1, ${label} (${best.cfg.name}):`, '', '```', ...readFileSync(g, 'utf8').split('\n').filter((l) => /^(phase|-{5}|\w+\s+\| |verdict:)/.test(l)), '```');
      else if (best.rows[0][k].refusal) L.push('', `Block 1, ${label} (${best.cfg.name}): refused before deciding:`, '', '```', best.rows[0][k].refusal, '```');
    }
    const c = t.calibration;
    L.push('', c.error ? `Calibrated thresholds: ${c.error}` : `Calibrated thresholds (\`scripts/calibrate\`, p50 and p99 of every phase, 1 % for the file) from block 1's ${2 * N} A/A runs: ${c.failed} of ${c.runs} later A/A runs would fail them (${pct(c.failed / c.runs)}), ${c.caught} of ${c.regressed} regression runs would (${pct(c.caught / c.regressed)}).`, '');
    if (!c.error) L.push('```', c.table, '```', '');
  }
  if (history) {
    L.push('### Change points (Apache Otava, `scripts/history analyze`)', '', `A/A history: ${2 * history.runs} runs of E1 (${workloadText(history.workload)}) on a private PostgreSQL after ${history.warmup} warm-up runs, nothing changed (load ${history.aaLoad.join(' → ')}):`, '', '```', history.aa.trim(), '```', '',
      `Stepped history: ${history.runs} runs, then the server's \`fsync\` turned off (ALTER SYSTEM, reload), ${history.runs} more (load ${history.stepLoad.join(' → ')}):`, '', '```', history.step.trim(), '```', '');
  }
  L.push('<!-- /bench-gate -->');
  return L.join('\n');
}

const targets = [];
for (const t of TARGETS.filter((x) => x.startsWith('api') || x === 'pg')) targets.push(await target(t));
const history = TARGETS.includes('history') ? historyDemo() : null;
// Paths inside the repository are printed relative to it (the section is committed).
const text = section(targets, history).replaceAll(`${root}/`, '');
const file = path.join(root, 'bench', 'RESULTS.md');
const old = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmark results\n';
const start = old.indexOf('<!-- bench-gate -->'); const end = old.indexOf('<!-- /bench-gate -->');
writeFileSync(file, start >= 0 && end > start ? `${old.slice(0, start)}${text}${old.slice(end + '<!-- /bench-gate -->'.length)}` : `${old.trimEnd()}\n\n${text}\n`);
writeFileSync(path.join(OUT, 'bench-gate.md'), `${text}\n`);
process.stdout.write(`${text}\n`);
log(`bench-gate: runs and gates kept in ${OUT}`);
