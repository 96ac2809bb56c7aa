#!/usr/bin/env node
// Capacity search (docs/capacity.md): how many documents per second can a database take for
// an operation before the p99 batch time passes the SLO? Runs the scenario several times,
// each at one constant arrival rate (open model: a slow server cannot slow the offered load
// down), on an adaptive ladder — coarse steps, then bisection around the knee — and records
// every step in capacity.json, from which the knee can be recomputed (`knee`).
//
//   scripts/capacity.mjs [run] [-e KNOB=value …]          knobs: CAPACITY_* below, plus any scenario knob
//   scripts/capacity.mjs plan [-e KNOB=value …]           the search these knobs define (validated), nothing run
//   scripts/capacity.mjs knee results/capacity-<id>        recompute the knee from the recorded steps
//   scripts/capacity.mjs compare <A> <B> [--out <dir>]     two searches: knees, ratio, one chart
//   scripts/capacity.mjs chart <A> <B> <C>… [--out <dir>]  any number of searches in one chart
//
// Exit codes: 0 (knee found, or not reached within CAPACITY_MAX), 99 a step failed its
// verification (the database does not hold what it acknowledged), 105 interrupted (SIGINT,
// SIGTERM: capacity.json keeps the steps done), 107 bad input, 108 a step was aborted.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { durationMs } from '../lib/parse.js';
import { capacityChart, capacityHtml, capacityText, compareText, kneeOf, nextRate, stepFromSummary, stepVerdict, undeterminedText } from '../lib/capacity.js';
import { TEST_ENDPOINT } from '../lib/test-endpoint.js';
import { cliSecretLine, isCliSecret } from './lib/cli-secrets.mjs';
import { KNOBS } from '../lib/config.js';
import { RUN_ID_MAX } from '../lib/knobs.js';
import { TARGETS } from '../lib/targets/index.js';
import { docBytes, memoryEstimate, vusThatFit } from '../lib/memory.js';
import { InputError, ensureDir, readJsonFile, readSummaryFile, runTool, writeFileAtomic } from './lib/files.mjs';
import { EXIT_INTERRUPTED, HZ, procStat, repoRoot as root, stopOnSignals, toolKnob, toolKnobs } from './lib/kit.mjs';

// Documents per batch when BATCH_SIZE is not given.
export const CAPACITY_BATCH = 100;

// target -> op -> [scenario, knobs, ramped phase, default threshold file]
export const OPS = {
  postgres: {
    insert: ['scenarios/postgres/insert-vs-overwrite.js', { PHASES: 'load' }, 'load'],
    upsert: ['scenarios/postgres/insert-vs-overwrite.js', { PHASES: 'load,overwrite' }, 'overwrite'],
  },
  arangodb: {
    insert: ['scenarios/arangodb/insert-vs-overwrite.js', { PHASES: 'load' }, 'load'],
    upsert: ['scenarios/arangodb/insert-vs-overwrite.js', { PHASES: 'load,overwrite', OVERWRITE_OP: 'upsert' }, 'overwrite'],
    merge: ['scenarios/arangodb/insert-vs-overwrite.js', { PHASES: 'load,overwrite', OVERWRITE_OP: 'merge' }, 'overwrite'],
  },
  ravendb: {
    insert: ['scenarios/ravendb/insert-vs-overwrite.js', { PHASES: 'load' }, 'load'],
    upsert: ['scenarios/ravendb/insert-vs-overwrite.js', { PHASES: 'load,overwrite' }, 'overwrite'],
    bulk: ['scenarios/ravendb/bulk-insert.js', {}, 'bulk', 'thresholds/ravendb/capacity-bulk.json'],
  },
  mongodb: {
    insert: ['scenarios/mongodb/insert-vs-overwrite.js', { PHASES: 'load' }, 'load'],
    upsert: ['scenarios/mongodb/insert-vs-overwrite.js', { PHASES: 'load,overwrite' }, 'overwrite'],
    bulk: ['scenarios/mongodb/bulk-insert.js', {}, 'bulk', 'thresholds/mongodb/capacity-bulk.json'],
  },
};

function bad(msg) {
  console.error(`k6-writepath capacity: ${msg}`);
  process.exit(107);
}

// Knobs: the environment, overridden by -e KNOB=value arguments.
export function parseArgs(argv, env) {
  const knobs = {};
  for (const [k, v] of Object.entries(env)) if (/^[A-Z][A-Z0-9_]*$/.test(k)) knobs[k] = v;
  const passed = {};
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    let kv = null;
    if (a === '-e' || a === '--env') kv = argv[++i];
    else if (a.startsWith('--env=')) kv = a.slice(6);
    else if (a.startsWith('-e') && a.length > 2) kv = a.slice(2);
    if (kv === null) { rest.push(a); continue; }
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(kv || '');
    if (!m) bad(`-e ${kv} is not allowed: use -e KNOB=value`);
    if (isCliSecret(m[1], m[2])) bad(cliSecretLine(m[1]));
    knobs[m[1]] = m[2];
    passed[m[1]] = m[2];
  }
  return { knobs, passed, rest };
}

// A knob of the search (lib/knobs.js, scope tool:capacity) or of the pack, parsed by the pack's
// parser with its declared range: one line and 107 before anything is created.
const TOOL = 'k6-writepath capacity';
const knob = (knobs, name, def) => toolKnob(TOOL, knobs, name, { def });

// Everything the search needs, validated before anything runs (exit 107 with one line).
export function settings(knobs) {
  // Every knob of the search at once, so that `plan` refuses what a run would.
  const k = toolKnobs(TOOL, 'capacity', knobs);
  const target = k.CAPACITY_TARGET;
  const op = k.CAPACITY_OP || (target === 'ravendb' ? 'bulk' : 'upsert');
  if (!OPS[target][op]) bad(`CAPACITY_OP=${JSON.stringify(op)} is not allowed with CAPACITY_TARGET=${target}: one of ${Object.keys(OPS[target]).join(', ')}`);
  const [scenario, opKnobs, phase, thrDefault] = OPS[target][op];
  const ladder = {
    start: k.CAPACITY_START,
    factor: k.CAPACITY_FACTOR,
    max: k.CAPACITY_MAX,
    resolution: k.CAPACITY_RESOLUTION,
    warmup: k.CAPACITY_WARMUP,
    hold: k.CAPACITY_HOLD,
    repeat: k.CAPACITY_REPEAT,
  };
  if (ladder.max < ladder.start) bad(`CAPACITY_MAX=${ladder.max} is not allowed with CAPACITY_START=${ladder.start}: at least the start rate`);
  const keys = k.CAPACITY_KEYS;
  if (knobs.STAGES || knobs.RATE_STAGES) bad(`${knobs.STAGES ? 'STAGES' : 'RATE_STAGES'} is not allowed with the capacity search: it sets RATE_STAGES itself (warm-up and measured stage at each step's rate)`);
  const thresholds = knobs.THRESHOLDS || thrDefault || `thresholds/${target}/capacity.json`;
  const thrPath = path.isAbsolute(thresholds) ? thresholds : path.join(root, thresholds);
  let doc;
  try { doc = JSON.parse(readFileSync(thrPath, 'utf8')); } catch (e) { bad(`THRESHOLDS=${thresholds}: cannot read it as JSON (${String(e.message).split('\n')[0]})`); }
  const slo = doc && doc.phases && doc.phases[phase] && doc.phases[phase].batch_p99_ms;
  if (!(typeof slo === 'number' && slo > 0)) bad(`THRESHOLDS=${thresholds}: phases.${phase}.batch_p99_ms is not set: the capacity search needs the p99 SLO of the ${phase} phase (a number of ms above 0)`);
  // The search's own default batch: 100 documents (a scenario's 1000 would make the default
  // ladder's top step pre-load millions of documents).
  const batch = knob(knobs, 'BATCH_SIZE', CAPACITY_BATCH);
  // A ramped overwrite writes every key at most once: the pre-loaded data set must cover the
  // largest step (lib/workloads/e1-ramp.js). Without DOCS the search pre-loads exactly that; a
  // DOCS given that cannot cover it is refused.
  let docs = null;
  if (phase === 'overwrite') {
    const perStep = Math.ceil(ladder.max * (durationMs(ladder.warmup) + durationMs(ladder.hold)) / 1000) + 4;
    docs = knob(knobs, 'DOCS', perStep * batch);
    // The pre-load the top step needs is itself a DOCS every step's k6 must accept.
    if (perStep * batch > KNOBS.DOCS.max) bad(`CAPACITY_MAX=${ladder.max} is not allowed with BATCH_SIZE=${batch}, CAPACITY_WARMUP=${ladder.warmup}, CAPACITY_HOLD=${ladder.hold}: the upsert step at the top rate overwrites up to ${perStep * batch} distinct pre-loaded keys, above DOCS's ${KNOBS.DOCS.max}; lower CAPACITY_MAX, CAPACITY_HOLD or BATCH_SIZE`);
    if (docs < perStep * batch) bad(`DOCS=${docs} is not allowed with CAPACITY_MAX=${ladder.max}, BATCH_SIZE=${batch}, CAPACITY_WARMUP=${ladder.warmup}, CAPACITY_HOLD=${ladder.hold}: the upsert step at the top rate overwrites up to ${perStep * batch} distinct pre-loaded keys; raise DOCS (or leave it unset: the search then pre-loads what the top rate needs) or lower CAPACITY_MAX`);
  }
  return { id: k.CAPACITY_ID, out: k.CAPACITY_OUT, resultsDir: knob(knobs, 'RESULTS_DIR'), target, op, scenario, opKnobs, phase, ladder, keys, thresholds, slo, batch, docs, memory: stepMemory(knobs, target, op, phase, scenario, batch) };
}

// What one VU of a step holds, by the pack's own estimate (lib/memory.js, the MEMORY_BUDGET_MB
// check every step's k6 makes): the step's VUs write the ramped operation only (an upsert
// step's pre-load runs in setup, one more body in the process), and how many VUs fit.
export function stepMemory(knobs, target, op, phase, scenario, batch) {
  const num = (k) => Number(knobs[k] ?? KNOBS[k].default);
  const shapeKey = `${target}/${path.basename(scenario, '.js')}`;
  const cfg = { DOC_SHAPE: knobs.DOC_SHAPE || (KNOBS.DOC_SHAPE.defaults || {})[shapeKey] || KNOBS.DOC_SHAPE.default, DOC_BYTES: num('DOC_BYTES'), COMPLEXITY: num('COMPLEXITY') };
  const decl = TARGETS.find((t) => t.name === target);
  const ops = [op === 'insert' && target === 'ravendb' && knobs.LOAD_OP === 'bulk' ? 'bulk' : op === 'merge' ? 'merge' : op];
  const input = { vus: 1, batchSize: batch, docBytes: docBytes(cfg), formats: decl.memory.formats(ops), transport: decl.memory.transport,
    strings: cfg.DOC_SHAPE === 'random-shapes', marks: 0, setupBodies: phase === 'overwrite' ? 1 : 0, paced: true }; // steps are RATE_STAGES runs
  const budget = num('MEMORY_BUDGET_MB');
  return { input, budget, fit: vusThatFit(budget, input), perVuMib: memoryEstimate(input).perVuMib, maxVus: num('MAX_VUS'), vus: knobs.VUS === undefined ? null : Number(knobs.VUS) };
}

// The VUs of the step at `rate`: as many as the rate needs at the SLO's latency (Little's law:
// rate x p99), never more than MAX_VUS (default 100) and never more than fit in
// MEMORY_BUDGET_MB, so that no step's k6 refuses its plan. A step whose Little's-law VUs do not
// fit is not started: { stop } says why.
export function stepVus(s, rate) {
  const need = Math.ceil(rate * s.slo / 1000) + 1;
  const { fit, budget, perVuMib, maxVus } = s.memory;
  const want = s.memory.vus !== null ? s.memory.vus : Math.max(2, Math.min(maxVus, need));
  if (want > fit) {
    return { stop: `the step at ${rate}/s needs ${want} VUs (${s.memory.vus !== null ? 'VUS' : `rate x p99 SLO ${s.slo} ms${maxVus < need ? `, at most MAX_VUS=${maxVus}` : ''}`}), and MEMORY_BUDGET_MB=${budget} fits ${fit} of ${perVuMib.toFixed(1)} MiB each with BATCH_SIZE=${s.batch} (lib/memory.js): raise MEMORY_BUDGET_MB on a machine that has the memory, lower BATCH_SIZE, or add load generators (docs/scale-out.md)`, need: want, fit };
  }
  return { vus: want, maxVus: Math.max(want, Math.min(maxVus, fit)) };
}

// The client's CPU (cores) over successive 1-second windows, as [{ t: epoch ms at the window's
// end, cores }]: the k6 process found as the child of scripts/run, plus the private gateway
// scripts/run started beside it for PostgreSQL and MongoDB (bin/wp-gateway: the same load
// generator's work, moved out of k6).
function cpuSampler(bashPid) {
  let pids = null; let last = null;
  const samples = [];
  const read = (pid) => { const st = procStat(pid); return st === null ? null : st.own / HZ; };
  const timer = setInterval(() => {
    if (pids === null) {
      try {
        const kids = readFileSync(`/proc/${bashPid}/task/${bashPid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
        const comm = (k) => readFileSync(`/proc/${k}/comm`, 'utf8').trim();
        if (kids.some((k) => /\bk6$/.test(comm(k)))) pids = kids.filter((k) => /\bk6$|^wp-gateway$/.test(comm(k)));
      } catch { /* not started yet or gone */ }
      return;
    }
    const parts = pids.map(read);
    const cpu = parts.every((x) => x === null) ? null : parts.reduce((a, b) => a + (b || 0), 0);
    const now = Date.now();
    if (cpu !== null && last) samples.push({ t: now, cores: (cpu - last.cpu) / ((now - last.t) / 1000) });
    if (cpu !== null) last = { cpu, t: now };
  }, 1000);
  return { stop: () => { clearInterval(timer); return samples; } };
}

function runStep(s, id, out, n, rate, passed, alloc, stop) {
  const runId = `${id}_s${String(n).padStart(2, '0')}`.slice(0, RUN_ID_MAX);
  const stepsDir = path.join(out, 'steps');
  mkdirSync(stepsDir, { recursive: true });
  const knobs = { ...s.opKnobs, RAMP_KEYS: s.keys, THRESHOLDS: s.thresholds, BATCH_SIZE: String(s.batch), ...(s.docs === null ? {} : { DOCS: String(s.docs) }), ...passed, RATE_STAGES: `${s.ladder.warmup}:${rate},${s.ladder.hold}:${rate}`, RUN_ID: runId };
  if (s.op === 'bulk') delete knobs.RAMP_KEYS;
  // Pre-allocate the VUs the rate needs at the SLO's latency, so that k6 does not drop
  // iterations while it creates VUs mid-step; MAX_VUS stays the cap (stepVus).
  knobs.VUS = String(alloc.vus);
  knobs.MAX_VUS = String(alloc.maxVus);
  const args = [path.join(root, 'scripts', 'run'), s.scenario, '--quiet', '--address='];
  for (const [k, v] of Object.entries(knobs)) args.push('-e', `${k}=${v}`);
  return new Promise((resolve) => {
    // Detached: a signal reaches it only through stop (once), see stopOnSignals.
    const child = spawn('bash', args, { cwd: root, detached: true, env: { ...process.env, RESULTS_DIR: stepsDir, RUN_ID: runId, K6_NO_USAGE_REPORT: 'true' } });
    stop.child = child;
    const cpu = cpuSampler(child.pid);
    let log = '';
    child.stdout.on('data', (d) => { log += d; });
    child.stderr.on('data', (d) => { log += d; });
    child.on('exit', (code) => {
      stop.child = null;
      const samples = cpu.stop();
      const dir = path.join(stepsDir, runId);
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, 'k6.log'), log);
      const f = path.join(dir, 'summary.json');
      let summary = null;
      try { summary = existsSync(f) ? readSummaryFile(f) : null; } catch (e) { log += `\ncapacity: ${e.message}\n`; }
      resolve({ runId, code, log, summary, samples });
    });
  });
}

function writeOutputs(out, c) {
  const text = capacityText(c);
  writeFileAtomic(path.join(out, 'capacity.json'), `${JSON.stringify(c, null, 2)}\n`);
  writeFileAtomic(path.join(out, 'capacity.txt'), text);
  writeFileAtomic(path.join(out, 'capacity.svg'), capacityChart([c], { title: `${c.target} ${c.op}: batch time against docs/s` }));
  writeFileAtomic(path.join(out, 'capacity.html'), capacityHtml([c], text));
  return text;
}

async function search(argv) {
  const { knobs, passed, rest } = parseArgs(argv, process.env);
  // Anything but -e KNOB=value is not an option of the search (--help ran a whole search).
  if (rest.length) bad(`${JSON.stringify(rest[0])} is not allowed: scripts/capacity.mjs [run] [-e KNOB=value…] | plan [-e …] | knee <folder> | chart <folder>… | compare <A> <B> (docs/capacity.md)`);
  const s = settings(knobs);
  // Not even the first step fits the client's memory: bad input, before anything is written.
  const first = stepVus(s, s.ladder.start);
  if (first.stop) bad(`CAPACITY_START=${s.ladder.start}: ${first.stop}`);
  const id = s.id || `cap${new Date().toISOString().replace(/[-:T]/g, '').slice(2, 14)}_${Math.floor(Math.random() * 0x10000).toString(16)}`;
  const out = path.resolve(s.out || path.join(s.resultsDir, `capacity-${id}`));
  try { ensureDir(out, s.out ? 'CAPACITY_OUT' : 'RESULTS_DIR'); } catch (e) { bad(e.message); }
  const cores = os.cpus().length;
  const c = {
    tool: 'k6-writepath', kind: 'capacity', id, target: s.target, op: s.op, phase: s.phase, scenario: s.scenario,
    keys: s.op === 'bulk' ? 'fresh' : s.keys, slo_ms: s.slo, thresholds: s.thresholds, batch_size: s.batch, docs: s.docs, ladder: s.ladder, test_endpoint: false,
    knobs: Object.fromEntries(Object.entries(passed).filter(([k]) => !/PASSWORD|_URL$/.test(k))), cores, started_at: new Date().toISOString(), steps: [], knee: null,
  };
  console.log(`capacity ${id}: ${s.target} ${s.op}, SLO p99 ${s.slo} ms (${s.thresholds}), ladder from ${s.ladder.start}/s ×${s.ladder.factor} up to ${s.ladder.max}/s, batches of ${s.batch}${s.docs === null ? '' : `, ${s.docs} pre-loaded documents per step`}, the rates around the knee ${s.ladder.repeat} times; results in ${path.relative(process.cwd(), out) || '.'}`);
  // A signal: the running step is told (its scripts/run stops k6 the pack's way) and not
  // counted; capacity.json keeps the steps done, marked interrupted; exit 105.
  const stop = stopOnSignals();
  let rate = nextRate(c.steps, s.ladder);
  let code = 0;
  while (rate !== null && !stop.signal) {
    const n = c.steps.length + 1;
    const alloc = stepVus(s, rate);
    if (alloc.stop) {
      console.log(`  stopped before step ${n}: ${alloc.stop}`);
      c.stopped = { rate, reason: 'memory', vus: alloc.need, fit: alloc.fit, text: alloc.stop };
      break;
    }
    const r = await runStep(s, id, out, n, rate, passed, alloc, stop);
    if (stop.signal) {
      c.interrupted = { signal: stop.signal, step: n, rate, run_id: r.runId, exit: r.code };
      break;
    }
    if (![0, 99].includes(r.code) || !r.summary) {
      const line = r.log.split('\n').filter((l) => /k6-writepath|error|not allowed/i.test(l)).slice(-3).join('\n');
      console.error(`capacity: step ${n} at ${rate}/s ended with exit ${r.code}${r.summary ? '' : ' and no summary.json'}:\n${line}\n(full log: ${path.join(out, 'steps', r.runId, 'k6.log')})`);
      code = r.code === 107 ? 107 : 108;
      break;
    }
    const step = stepFromSummary({ n, rate, runId: r.runId, exit: r.code, summary: r.summary, phase: s.phase, sloMs: s.slo, cpuSamples: r.samples, cores });
    c.steps.push(step);
    if (step.test_endpoint) c.test_endpoint = true;
    console.log(`  step ${n}: ${rate}/s → ${step.docs_per_s === null ? '-' : step.docs_per_s.toFixed(0)} docs/s, p99 ${step.batch_ms.p99 === null ? '-' : step.batch_ms.p99.toFixed(1)} ms, failed ${step.docs_failed_known ?? step.docs_failed}${step.docs_undetermined > 0 ? ` (${undeterminedText(step)})` : ''}, dropped ${step.dropped_iterations}, k6 ${step.client_cpu_cores === null ? '-' : step.client_cpu_cores.toFixed(2)} cores in the measured stage: ${step.verdict}${step.test_endpoint ? ` (${TEST_ENDPOINT})` : ''}`);
    if (step.verdict === 'unverified') { code = 99; break; }
    rate = nextRate(c.steps, s.ladder);
  }
  if (stop.signal && !c.interrupted) c.interrupted = { signal: stop.signal, step: null, rate: null, run_id: null, exit: null };
  c.knee = kneeOf(c.steps);
  c.finished_at = new Date().toISOString();
  const text = writeOutputs(out, c);
  if (c.interrupted) {
    console.error(`k6-writepath capacity: ${c.interrupted.signal}: the search stopped${c.interrupted.step ? ` during step ${c.interrupted.step} at ${c.interrupted.rate}/s (not counted; its run: ${path.join(out, 'steps', c.interrupted.run_id)})` : ''}; ${path.join(out, 'capacity.json')} has the ${c.steps.length} step${c.steps.length === 1 ? '' : 's'} done, marked interrupted (scripts/capacity.mjs knee ${out})`);
    process.exit(EXIT_INTERRUPTED);
  }
  process.stdout.write(`\n${text}curve: ${path.join(out, 'capacity.svg')} · report: ${path.join(out, 'capacity.html')}\n`);
  process.exit(code);
}

// A step's recorded figures the knee is recomputed from: numbers where numbers belong.
const okNum = (x) => x === null || x === undefined || (typeof x === 'number' && Number.isFinite(x) && x >= 0);
export function checkCapacity(c, file) {
  if (!c || typeof c !== 'object' || c.kind !== 'capacity' || !Array.isArray(c.steps)) throw new InputError(`${file} is not a capacity search result`);
  if (!(typeof c.slo_ms === 'number' && c.slo_ms > 0)) throw new InputError(`${file}: slo_ms ${JSON.stringify(c.slo_ms)} is not a number of ms above 0 (a corrupted capacity file)`);
  if (!c.ladder || typeof c.ladder !== 'object') throw new InputError(`${file}: no ladder (a corrupted capacity file)`);
  if (c.interrupted !== undefined && !(c.interrupted && typeof c.interrupted === 'object' && /^SIG[A-Z]+$/.test(c.interrupted.signal))) throw new InputError(`${file}: interrupted ${JSON.stringify(c.interrupted)} is not allowed: { signal: "SIGTERM", … } as scripts/capacity.mjs writes it (a corrupted capacity file)`);
  c.steps.forEach((st, i) => {
    const bad1 = !st || typeof st !== 'object' ? 'not an object'
      : !(typeof st.rate === 'number' && st.rate > 0) ? `rate ${JSON.stringify(st.rate)}`
      : !st.batch_ms || typeof st.batch_ms !== 'object' ? 'no batch_ms'
      : ['docs_per_s', 'docs_ok', 'docs_failed', 'dropped_iterations', 'client_cpu_cores'].find((k) => !okNum(st[k])) || ['median', 'p90', 'p99', 'max'].find((k) => !okNum(st.batch_ms[k]));
    if (bad1) throw new InputError(`${file}: step ${i + 1}: ${typeof bad1 === 'string' && /^(rate|not|no) /.test(bad1) ? bad1 : `${bad1} ${JSON.stringify(st[bad1] ?? st.batch_ms[bad1])}`} is not allowed: a recorded figure is a number of at least 0 (a corrupted capacity file)`);
  });
  return c;
}

export function loadCapacity(p) {
  let file = p;
  if (existsSync(p) && statSync(p).isDirectory()) file = path.join(p, 'capacity.json');
  if (!existsSync(file)) bad(`${p}: no capacity.json there (a folder written by scripts/capacity.mjs, or its capacity.json)`);
  let c;
  try { c = checkCapacity(readJsonFile(file), file); } catch (e) { if (e instanceof InputError) bad(e.message); throw e; }
  // Recomputed from the recorded figures, never taken from the file's own verdicts.
  for (const st of c.steps) st.verdict = stepVerdict(st, c.slo_ms);
  c.knee = kneeOf(c.steps);
  return c;
}

function main() {
  const [cmd, ...rest] = process.argv.slice(2);
  if (cmd === 'knee') {
    if (rest.length !== 1) bad('usage: scripts/capacity.mjs knee <capacity folder or capacity.json>');
    process.stdout.write(capacityText(loadCapacity(rest[0])));
  } else if (cmd === 'compare') {
    const outAt = rest.indexOf('--out');
    const outDir = outAt >= 0 ? rest.splice(outAt, 2)[1] : null;
    if (rest.length !== 2) bad('usage: scripts/capacity.mjs compare <A> <B> [--out <dir>] (capacity folders or capacity.json files)');
    const [a, b] = rest.map(loadCapacity);
    a.label = `${a.target} ${a.op} (${a.id})`;
    b.label = `${b.target} ${b.op} (${b.id})`;
    const text = compareText(a, b);
    process.stdout.write(text);
    const out = path.resolve(outDir || path.join('results', `capacity-compare-${a.id}-${b.id}`.slice(0, 80)));
    try { ensureDir(out, '--out'); } catch (e) { bad(e.message); }
    writeFileAtomic(path.join(out, 'compare.svg'), capacityChart([a, b], { title: 'Batch time against docs/s: A vs. B' }));
    writeFileAtomic(path.join(out, 'compare.html'), capacityHtml([a, b], `${text}\n${capacityText(a)}\n${capacityText(b)}`));
    writeFileAtomic(path.join(out, 'compare.txt'), text);
    console.log(`chart: ${path.join(out, 'compare.svg')} · report: ${path.join(out, 'compare.html')}`);
  } else if (cmd === 'chart') {
    const outAt = rest.indexOf('--out');
    const outDir = outAt >= 0 ? rest.splice(outAt, 2)[1] : null;
    if (rest.length < 1) bad('usage: scripts/capacity.mjs chart <capacity folder or capacity.json>… [--out <dir>]');
    const runs = rest.map(loadCapacity);
    for (const c of runs) c.label = `${c.target} ${c.op} (${c.id})`;
    const text = runs.map((c) => `${c.label}: ${c.knee.rate === null ? 'no knee' : `knee ${c.knee.rate} batches/s = ${c.knee.docs_per_s.toFixed(0)} docs/s at p99 ${c.knee.p99_ms.toFixed(1)} ms`} (SLO ${c.slo_ms} ms)`).join('\n');
    const out = path.resolve(outDir || path.join('results', `capacity-chart-${runs.map((c) => c.id).join('-')}`.slice(0, 80)));
    try { ensureDir(out, '--out'); } catch (e) { bad(e.message); }
    writeFileAtomic(path.join(out, 'chart.svg'), capacityChart(runs, { title: 'Batch time against docs/s' }));
    writeFileAtomic(path.join(out, 'chart.html'), capacityHtml(runs, `${text}\n\n${runs.map(capacityText).join('\n')}`));
    console.log(`${text}\nchart: ${path.join(out, 'chart.svg')} · report: ${path.join(out, 'chart.html')}`);
  } else if (cmd === 'plan') {
    // The search as these knobs define it, validated, without running a step.
    const { knobs } = parseArgs(rest, process.env);
    const s = settings(knobs);
    process.stdout.write(`${JSON.stringify({ target: s.target, op: s.op, scenario: s.scenario, phase: s.phase, slo_ms: s.slo, thresholds: s.thresholds, batch_size: s.batch, docs: s.docs, ladder: s.ladder }, null, 2)}\n`);
  } else {
    return search(cmd === 'run' || cmd === undefined ? rest : [cmd, ...rest]);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) runTool('k6-writepath capacity', main);
