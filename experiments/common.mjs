// What the experiment drivers (experiments/ram, experiments/e2) share: knob validation with
// the pack's exit code, the one-run-per-port lock, a cell's k6 run (optionally inside a cgroup)
// and k6's phase clock. Starting k6, the repo root and counter interpolation are the tool kit's
// (scripts/lib/kit.mjs). The private PostgreSQL is scripts/pg-private.mjs and the cgroups
// experiments/ram/cgroup.mjs; nothing here knows about either.
import { createReadStream, createWriteStream, existsSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { cpus, loadavg, release } from 'node:os';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { KNOBS as PACK_KNOBS } from '../lib/config.js';
import { counterAt, dieWith, repoRoot, spawnK6, toolKnob } from '../scripts/lib/kit.mjs';
import { readRunEnv } from '../scripts/run-env.mjs';

export { EXIT_BAD_INPUT, counterAt, dieWith, repoRoot } from '../scripts/lib/kit.mjs';
export const MB = 1024 * 1024;

// The pack's exit code for an interrupted run (docs/reliability.md "Exit codes").
export const EXIT_INTERRUPTED = 105;

// A cell the tables may hold: its k6 run ended on its own with every threshold met (exit 0)
// and its phases were measured. A killed run (105: k6 interrupted) or a failed one is partial.
export function finishedCell(c) { return !c.error && c.k6_exit === 0 && Array.isArray(c.phases); }

// What k6's exit codes mean (docs/reliability.md "Exit codes").
export const K6_EXIT = { 99: 'a threshold failed', 105: 'k6 interrupted (Ctrl-C, SIGTERM)', 107: 'bad input', 108: 'the run was aborted' };

// The campaign as far as it went: how many cells were planned, ran, finished; why it stopped.
export function campaign(r) {
  const planned = r.planned_cells ?? r.cells.length;
  const finished = r.cells.filter(finishedCell);
  return { planned, ran: r.cells.length, finished, left: r.cells.filter((c) => !finishedCell(c)), interrupted: r.interrupted || null };
}

// The bold line under a report's title when the tables do not hold the whole plan; [] when they do.
export function campaignBanner(run) {
  if (run.interrupted || run.ran < run.planned) {
    return [`**Interrupted${run.interrupted ? ` (${run.interrupted})` : ''}: ${run.ran} of ${run.planned} cells ran, ${run.finished.length} finished; the tables hold only those ${run.finished.length}.** The cells that did not run are missing${run.left.length ? `, and the ${run.left.length} cut short or failed are listed under "Cells left out"` : ''}. Run the command again for the whole matrix.`, ''];
  }
  if (run.left.length > 0) return [`**${run.left.length} of ${run.planned} cells failed or were killed: left out of the tables, listed under "Cells left out".**`, ''];
  return [];
}

// The "Cells left out" section: one line per cut or failed cell, named by name(c).
export function leftOutSection(run, name) {
  if (run.left.length === 0) return [];
  const out = ['## Cells left out', '', 'Cut short or failed: none of their figures is in the tables above (a killed run measured part of its plan only).', ''];
  for (const c of run.left) {
    const code = c.k6_exit ?? null;
    out.push(`- ${name(c)}: k6 exit ${code ?? '– (k6 did not end)'}${K6_EXIT[code] ? ` (${K6_EXIT[code]})` : ''}${c.error ? `; ${c.error.split('\n')[0]}` : ''}`);
  }
  out.push('');
  return out;
}

// A driver's exit: 0 when every planned cell finished; an interrupted campaign says so in one
// line and ends with the pack's interrupted code; otherwise 1 (the report lists the cells left out).
export function campaignExit(tool, run, report) {
  if (run.interrupted) {
    console.error(`${tool}: interrupted (${run.interrupted}): ${run.ran} of ${run.planned} cells ran, ${run.finished.length} finished; ${report} holds only those (exit ${EXIT_INTERRUPTED})`);
    return EXIT_INTERRUPTED;
  }
  return run.finished.length === run.planned ? 0 : 1;
}

// A campaign stops between cells on SIGINT/SIGTERM (the running cell ends with k6's own
// handling of the signal it gets too): .signal is the first one, for the report's banner.
export function signalsBetweenCells() {
  const st = { signal: null };
  const on = (sig) => { st.signal = st.signal || sig; };
  process.on('SIGINT', on);
  process.on('SIGTERM', on);
  return st;
}

// A campaign's end: its data (dataFile), its Markdown report (reportFile, and a copy of the data
// beside it when the report is kept outside the results folder, e.g. a recorded run in docs/),
// the report on stdout, one line naming both; then exit as campaignExit says.
export function finishCampaign(tool, result, { dataFile, reportFile, md, dataBesideReport }) {
  const data = JSON.stringify(result, null, 2);
  writeFileSync(dataFile, data);
  mkdirSync(path.dirname(reportFile), { recursive: true });
  writeFileSync(reportFile, md);
  if (dataBesideReport) writeFileSync(`${reportFile.replace(/\.md$/, '')}.json`, data);
  console.log(md);
  console.log(`${tool}: report ${path.relative(repoRoot, reportFile)}, data ${path.relative(repoRoot, dataFile)}`);
  process.exit(campaignExit(tool, campaign(result), path.relative(repoRoot, reportFile)));
}

// Whole-number knobs by name, each declared in lib/knobs.js (a tool's own, scope tool:<name>,
// or one of the pack's through packIntKnob with the driver's default and narrower minimum):
// read with the pack's parser, one line naming the knob, the value and what is allowed, exit 107.
export function readIntKnobs(tool, spec, env) {
  const k = {};
  for (const [name, s] of Object.entries(spec)) {
    k[name] = Number(toolKnob(tool, env, name, { def: s.def, spec: { ...PACK_KNOBS[name], min: s.min, max: s.max, say: s.doc } }));
  }
  return k;
}

// The declaration of a tool's whole-number knob (lib/knobs.js) as a readIntKnobs spec.
export function toolIntKnob(name) {
  const spec = PACK_KNOBS[name];
  if (!spec || spec.type !== 'int' || !/^tool:/.test(spec.scope || '')) throw new Error(`${name} is not a whole-number tool knob of lib/knobs.js`);
  return { min: spec.min, max: spec.max, def: spec.default, doc: spec.doc };
}

// A whole-number knob of the pack's own (lib/config.js KNOBS, the one home of its range) as a
// readIntKnobs spec, with the driver's default and text; min only where the driver needs a
// narrower range than the pack (e.g. at least one overwrite batch).
export function packIntKnob(name, def, doc, min = null) {
  const spec = PACK_KNOBS[name];
  if (!spec || spec.type !== 'int') throw new Error(`${name} is not a whole-number knob of lib/config.js`);
  return { min: min === null ? spec.min : min, max: spec.max, def, doc };
}

// One of the pack's own knobs (lib/config.js KNOBS), validated by the pack's own parser, with
// a default of the driver's when the environment leaves it unset.
export async function readPackKnob(tool, env, name, def) {
  const raw = env[name] === undefined || env[name] === '' ? def : env[name];
  toolKnob(tool, { [name]: raw }, name);
  return raw;
}

// First batch start and last batch end of each phase, from writepath_phase_clock (epoch ms)
// in k6's JSON output.
export async function phaseWindows(jsonOut) {
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
// itself, and needs k6's JSON output next to InfluxDB's. A PostgreSQL or MongoDB scenario gets a
// private gateway (scripts/lib/gateway.mjs) holding the database URLs. With procsFiles, k6 starts
// from a shell that first joined those cgroups, and the gateway joins them too: the client's CPU
// time is k6's plus the gateway's.
export function runK6(env, args, logFile, procsFiles = []) {
  // The drivers' own knobs (RAM_*, E2_*) are not the pack's: k6 would take them for misspelt
  // knobs (lib/config.js, "did you mean").
  env = Object.fromEntries(Object.entries(env).filter(([k]) => !/^(RAM|E2)_/.test(k)));
  return new Promise((resolve) => {
    const log = createWriteStream(logFile);
    const { child } = spawnK6(args, env, { procsFiles });
    child.stdout.pipe(log, { end: false });
    child.stderr.pipe(log, { end: false });
    child.on('exit', (code) => { log.end(); resolve(code); });
  });
}

// One cell's k6 run of the pack's own scenario (scenarios/postgres/insert-vs-overwrite.js by
// default; E2's MongoDB cells: scenarios/mongodb/insert-vs-overwrite.js): the driver's environment plus `knobs`, k6's JSON points (for the phase
// windows) and InfluxDB when one answers. Fills cell.k6_exit, wall_s and load1_end, calls
// stopped() as soon as k6 exits (the CPU sampler's last sample) and returns the summary.json the
// run left in resultsDir/runId/.
export async function runScenario(cell, { knobs, runId, resultsDir, cellDir, jsonOut, procsFiles = [], stopped = () => {}, scenario = 'scenarios/postgres/insert-vs-overwrite.js' }) {
  const influx = influxUrl();
  const env = {
    ...process.env,
    PWD: repoRoot,
    K6_INFLUXDB_TAGS_AS_FIELDS: process.env.K6_INFLUXDB_TAGS_AS_FIELDS || 'vu:int,iter:int,url',
    RESULTS_DIR: resultsDir,
    RUN_ID: runId,
    K6_NO_USAGE_REPORT: 'true',
    ...knobs,
  };
  mkdirSync(path.join(resultsDir, runId), { recursive: true });
  const t0 = Date.now();
  const outs = ['--out', `json=${jsonOut}`, ...(influx ? ['--out', `influxdb=${influx}`] : [])];
  cell.k6_exit = await runK6(env, ['--quiet', ...outs, '--tag', `testid=${runId}`, scenario], path.join(cellDir, 'k6.log'), procsFiles);
  stopped();
  cell.wall_s = (Date.now() - t0) / 1000;
  cell.load1_end = load1();
  console.log(`exit ${cell.k6_exit} in ${cell.wall_s.toFixed(0)} s`);
  const summaryFile = path.join(resultsDir, runId, 'summary.json');
  if (!existsSync(summaryFile)) throw new Error(`k6 left no summary (exit ${cell.k6_exit}); see ${path.join(cellDir, 'k6.log')}`);
  return JSON.parse(readFileSync(summaryFile, 'utf8'));
}

// The InfluxDB a cell streams to, as scripts/run picks it: none when WP_INFLUX is off or
// INFLUX_URL is set empty; INFLUX_URL, else the one make up wrote to .run/env. Both knobs are
// checked by their declarations (a bad value: one line, exit 107).
export function influxUrl(tool = 'experiments') {
  if (!toolKnob(tool, process.env, 'WP_INFLUX')) return null;
  if (process.env.INFLUX_URL === '') return null;
  return toolKnob(tool, process.env, 'INFLUX_URL') || toolKnob(tool, readRunEnv(), 'INFLUX_URL') || null;
}

// One driver per port at a time, whichever experiment: the port names the server, its data
// directory and the cgroups, and the tree is shared (another engineer's `make test` runs the
// scaled-down tests). The lock lives in .run/experiment-pg-<port>.lock for every experiment.
export function takeLock(tool, knob, port) {
  const dir = path.join(repoRoot, '.run');
  mkdirSync(dir, { recursive: true });
  const lock = path.join(dir, `experiment-pg-${port}.lock`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(lock, `${process.pid} ${tool}`, { flag: 'wx' });
      process.on('exit', () => { try { unlinkSync(lock); } catch (_) { /* gone */ } });
      return;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      const [pidText, owner] = readFileSync(lock, 'utf8').split(' ');
      const pid = Number(pidText);
      let alive = false;
      try { process.kill(pid, 0); alive = true; } catch (_) { /* stale */ }
      if (alive) dieWith(tool, 1)(`${knob}=${port} is in use by another ${owner || 'experiment'} run (pid ${pid}): wait for it, or choose another ${knob}`);
      unlinkSync(lock);
    }
  }
}

export function portBusy(port) {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port }, () => { s.destroy(); resolve(true); });
    s.on('error', () => resolve(false));
  });
}

// Busy and total jiffies of the whole machine (/proc/stat "cpu" line), to state how much
// of the machine others used while a cell ran.
export function machineCpu() {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const total = f.reduce((a, b) => a + b, 0);
  const idle = f[3] + (f[4] || 0);
  return { busy: total - idle, total };
}

export function machineFacts(cg) {
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
  };
}

export function load1() { return Number(loadavg()[0].toFixed(2)); }

export function stampNow() { return new Date().toISOString().replace(/[-:T]/g, '').slice(4, 12); }
