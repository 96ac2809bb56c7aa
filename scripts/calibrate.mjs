// scripts/calibrate: a threshold file whose limits come from measurement (docs/results.md
// "Thresholds from measurement"). Runs a scenario N times (REPEAT=N through scripts/run) or
// reads existing runs, and writes limits such that an A/A run of the same workload on the same
// machine fails the file at most about 1 % of the time — each limit the one-sided prediction
// bound of a log-normal fit of the runs' values, the 1 % shared among the file's limits — and
// prints which regression each limit would still let through.
//   scripts/calibrate [options] <scenario.js | result folder(s)>
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { newRunId } from '../lib/config.js';
import { CompareError, runsOfFolders } from './compare.mjs';
import { ensureDir, runTool, writeFileAtomic } from './lib/files.mjs';
import { align } from './lib/verdict.mjs';
import { logSd, lognormalMean, normalQuantile, predictionUpper } from './lib/stats.mjs';
import { readRepeat, repetitionsOf } from './aggregate.mjs';
import { repoRoot as root, resultsDirOf } from './lib/kit.mjs';

export class CalibrateError extends Error {}
const refuse = (m) => { throw new CalibrateError(m); };

// Threshold keys calibrated by default, and how a summary.json phase gives their value.
const FIGURE = { batch_p50_ms: (p) => p.batch_ms.median, batch_p90_ms: (p) => p.batch_ms.p90, batch_p95_ms: (p) => p.batch_ms.p95, batch_p99_ms: (p) => p.batch_ms.p99, batch_avg_ms: (p) => p.batch_ms.average, batch_max_ms: (p) => p.batch_ms.max };
export const DEFAULT_LIMITS = ['batch_p50_ms', 'batch_p99_ms'];
export const MIN_RUNS = 5;

const usage = `usage: scripts/calibrate [options] <scenario.js | result folder(s)>
  <scenario.js>         run it --repeat N times (REPEAT=N through scripts/run), then calibrate
  <result folder(s)>    existing runs: a REPEAT=N folder, or run folders joined with commas
  --repeat N            runs to make (default 10; at least ${MIN_RUNS})
  --false-alarm X       share of A/A runs allowed to fail the file (default 1%)
  --limits LIST         threshold keys to calibrate per phase (default ${DEFAULT_LIMITS.join(',')}; any of ${Object.keys(FIGURE).join(', ')})
  --out FILE            where the threshold file goes (default: results/cal_<id>/thresholds.json beside
                        the runs it makes; results/cal_<id>-thresholds.json from existing runs)
  -e KNOB=value         scenario knobs (the same workload must be run against the file later)
`;

export function parseArgs(argv) {
  const o = { spec: null, repeat: 10, rate: 0.01, limits: DEFAULT_LIMITS, out: null, env: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => { if (i + 1 >= argv.length) refuse(`${a} needs a value`); return argv[++i]; };
    if (a === '-e' || a === '--env') { const v = next(); if (!/^[A-Z_][A-Z0-9_]*=/.test(v)) refuse(`-e ${v}: expected KNOB=value`); o.env.push(v); }
    else if (a === '--repeat') { const v = next(); if (!/^\d+$/.test(v) || Number(v) < MIN_RUNS || Number(v) > 99) refuse(`--repeat ${v} is not allowed: a whole number from ${MIN_RUNS} to 99 (a spread needs runs)`); o.repeat = Number(v); }
    else if (a === '--false-alarm') { const v = next(); const m = /^(\d+(?:\.\d+)?)%$/.exec(v); if (!m || !(Number(m[1]) > 0 && Number(m[1]) <= 20)) refuse(`--false-alarm ${v} is not allowed: a share above 0 % and at most 20 %, such as 1%`); o.rate = Number(m[1]) / 100; }
    else if (a === '--limits') { const v = next(); const ks = v.split(',').map((x) => x.trim()).filter(Boolean); if (!ks.length || ks.some((k) => !FIGURE[k])) refuse(`--limits ${v} is not allowed: a comma-separated list of ${Object.keys(FIGURE).join(', ')}`); o.limits = ks; }
    else if (a === '--out') o.out = next();
    else if (a === '-h' || a === '--help') o.help = true;
    else if (a.startsWith('-')) refuse(`unknown option ${a} (see scripts/calibrate --help)`);
    else if (o.spec) refuse('give one scenario file or one list of result folders');
    else o.spec = a;
  }
  if (!o.help && !o.spec) refuse('give a scenario file or result folder(s)');
  return o;
}

// The calibrated file and the report. summaries: the runs' summary.json contents.
export function calibrate(summaries, { rate = 0.01, limits = DEFAULT_LIMITS, source = '', when = new Date().toISOString(), machine = '' } = {}) {
  if (summaries.length < MIN_RUNS) refuse(`${summaries.length} runs cannot be calibrated from: at least ${MIN_RUNS} (the spread of fewer says nothing)`);
  const s0 = summaries[0];
  const phases = s0.phases.map((p) => p.phase);
  const k = phases.length * limits.length;
  const q = rate / k; // each limit's share of the false alarms (Bonferroni: the file's rate is at most their sum)
  const out = { phases: {} };
  const rows = [];
  for (const phase of phases) {
    out.phases[phase] = {};
    for (const key of limits) {
      const values = summaries.map((s) => { const p = s.phases.find((x) => x.phase === phase); return p ? FIGURE[key](p) : null; }).filter((v) => typeof v === 'number' && v > 0);
      if (values.length < MIN_RUNS) refuse(`${phase} ${key}: only ${values.length} runs have a value; at least ${MIN_RUNS} needed`);
      const limit = Math.ceil(predictionUpper(values, q) * 10) / 10;
      out.phases[phase][key] = limit;
      const centre = lognormalMean(values); const sd = logSd(values);
      // The regression a single run against this limit catches half the time / 90 % of the time.
      const r50 = limit / centre - 1;
      const r90 = (limit * Math.exp(normalQuantile(0.9) * sd)) / centre - 1;
      rows.push({ phase, key, n: values.length, median: centre, sd, limit, r50, r90 });
    }
    out.phases[phase].failed_docs_max = 0;
  }
  out.verify = true;
  const pct = (x, d = 0) => `${(x * 100).toFixed(d)} %`;
  out.$comment = `Calibrated by scripts/calibrate from ${summaries.length} runs of ${s0.experiment} on ${s0.target}${s0.test_endpoint ? ' (TEST ENDPOINT: an API test server, not a database)' : ''} (${source}; ${when}${machine ? `; ${machine}` : ''}). `
    + `Each latency limit is the one-sided prediction bound of a log-normal fit of those runs' values at ${pct(q, 3)} (the file's ${pct(rate)} shared among its ${k} limits): `
    + `an A/A run of the same workload on the same machine fails this file at most about ${pct(rate)} of the time, as long as the run-to-run spread stays as measured. `
    + `What a single run against it still misses: ${rows.map((r) => `${r.phase} ${r.key.replace(/^batch_|_ms$/g, '')} passes more often than not below +${pct(r.r50)}`).join(', ')}. `
    + 'Recalibrate after changing the workload knobs, the machine or the database (docs/results.md).';
  const ordered = { $comment: out.$comment, phases: out.phases, verify: true };
  const table = align(['phase', 'limit', 'runs', 'median of runs (ms)', 'spread (log SD)', 'limit (ms)', 'passes unnoticed below', 'caught 90 % from'],
    rows.map((r) => [r.phase, r.key, String(r.n), r.median.toFixed(1), r.sd.toFixed(3), r.limit.toFixed(1), `+${pct(r.r50)}`, `+${pct(r.r90)}`]), 2);
  return { file: ordered, rows, table, q, k };
}

async function main(argv) {
  const o = parseArgs(argv);
  if (o.help) { process.stdout.write(usage); return 0; }
  let summaries; let source;
  if (/\.js$/.test(o.spec) && existsSync(o.spec)) {
    const id = newRunId('cal_').slice(0, 28);
    const resultsDir = resultsDirOf('scripts/calibrate', o.env, process.env, refuse);
    process.stderr.write(`scripts/calibrate: ${o.repeat} runs of ${o.spec} (REPEAT=${o.repeat}, RUN_ID=${id})\n`);
    const r = spawnSync(path.join(root, 'scripts', 'run'), [o.spec, '-q', ...o.env.filter((e) => !/^(REPEAT|RUN_ID|RESULTS_DIR)=/.test(e)).flatMap((e) => ['-e', e]), '-e', `REPEAT=${o.repeat}`, '-e', `RUN_ID=${id}`, '-e', `RESULTS_DIR=${resultsDir}`],
      { stdio: ['ignore', 'ignore', 'inherit'] });
    const dir = path.join(resultsDir, id);
    if (![0, 99].includes(r.status) || !readRepeat(dir)) refuse(`the runs ended with exit ${r.status} (see above); nothing calibrated`);
    summaries = repetitionsOf(dir).filter((x) => x.summary).map((x) => x.summary);
    source = dir;
    o.out ||= path.join(dir, 'thresholds.json');
  } else if (/\.js$/.test(o.spec)) {
    refuse(`${o.spec}: no such scenario file`);
  } else {
    summaries = runsOfFolders(o.spec).map((x) => x.summary);
    source = o.spec.length > 120 ? `${o.spec.slice(0, 117)}…` : o.spec;
    o.out ||= path.join(resultsDirOf('scripts/calibrate', [], process.env, refuse), `${newRunId('cal_')}-thresholds.json`);
  }
  const failed = summaries.filter((s) => !s.passed);
  if (failed.length) refuse(`${failed.length} of ${summaries.length} runs did not pass their thresholds or verification (${failed.map((s) => s.run_id).join(', ')}): limits are calibrated from clean runs only`);
  const machine = `${os.cpus().length} cores, load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')} at calibration`;
  const c = calibrate(summaries, { rate: o.rate, limits: o.limits, source, machine });
  ensureDir(path.dirname(path.resolve(o.out)), '--out');
  writeFileAtomic(o.out, `${JSON.stringify(c.file, null, 2)}\n`);
  process.stdout.write(`k6-writepath calibrated thresholds · ${summaries[0].target}${summaries[0].test_endpoint ? ' · TEST ENDPOINT' : ''} · ${summaries[0].experiment} · ${summaries.length} runs\n\n${c.table.join('\n')}\n\n`
    + `Each limit: the one-sided ${((1 - c.q) * 100).toFixed(3)} % prediction bound of a log-normal fit of the runs (the ${(o.rate * 100).toFixed(0)} % false-alarm rate of the file shared among its ${c.k} limits).\n`
    + '"passes unnoticed below": a regression of that size fails a single run against the limit less than half the time; "caught 90 %": from that size on, 9 runs in 10 fail it. More runs give tighter limits (the bound of 5 runs is wide; 20 runs roughly halve the margin).\n'
    + `threshold file: ${o.out}  (use it: scripts/run <scenario> -e THRESHOLDS=${o.out} with the same knobs)\n`);
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  runTool('scripts/calibrate', () => main(process.argv.slice(2)), [CalibrateError, CompareError]);
}
