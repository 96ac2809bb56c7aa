// scripts/history: the history of every run's headline figures and the change points in it
// (docs/results.md "History and change points").
//   scripts/history append <result folder>… [--file F]   add runs (scripts/run does it after every run)
//   scripts/history list [--file F]                       the series and their runs
//   scripts/history analyze [--file F] [--series TEXT] [--p-value 0.001] [--magnitude 0.1]
//                           [--min-runs 6] [--min-segment 3]
//                                                         Apache Otava over every series: change points
// The history is a CSV file (default <RESULTS_DIR>/history.csv; knob HISTORY), one row per run
// and phase: time, run, series, docs/s, p50 and p99 of the batch time, and what else describes
// the run (server version and settings). A series is one scenario × target × workload and
// target knobs × phase: what the pack was asked to do. The server's own version and settings are
// not part of it — a change there is exactly what a change point should find.
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { KNOBS, knobScope } from '../lib/config.js';
import { settingsText } from '../lib/report.js';
import { readRepeat, repetitionsOf } from './aggregate.mjs';
import { InputError, OutputError, ensureDir, readRegularFile, readSummaryFile, runTool, writeFileAtomic } from './lib/files.mjs';
import { repoRoot as root, resultsDirOf, toolKnob } from './lib/kit.mjs';

export class HistoryError extends Error {}
const refuse = (m) => { throw new HistoryError(m); };

export const COLUMNS = ['time', 'run_id', 'series', 'experiment', 'target', 'phase', 'test_endpoint', 'docs_per_s', 'p50_ms', 'p99_ms', 'server', 'settings', 'knobs'];
// The figures Otava analyses, and which way is better (Otava's direction: 1 = higher is better).
export const FIGURES = [['docs_per_s', 'docs/s', 1], ['p50_ms', 'p50 ms', -1], ['p99_ms', 'p99 ms', -1]];

// The knobs that make a series: what is written and how the target stores it, not how the run
// was reached (URLs, credentials) or named.
export function seriesKnobs(summary) {
  const cfg = summary.config || {};
  const out = {};
  for (const [k, spec] of Object.entries(KNOBS)) {
    const scope = knobScope(k).scope;
    if (scope !== 'workload' && scope !== `target:${summary.target}`) continue;
    if (spec.scope === 'wrapper' || spec.type === 'secret' || spec.type === 'url') continue;
    const v = cfg[k] !== undefined ? cfg[k] : spec.default;
    if (v !== undefined) out[k] = Array.isArray(v) ? v.join(',') : v;
  }
  return out;
}

function fnv(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) { h ^= text.charCodeAt(i); h = Math.imul(h, 0x01000193) >>> 0; }
  return h.toString(16).padStart(8, '0');
}

// One history row per phase of a run's summary.json.
export function rowsOf(summary) {
  const knobs = seriesKnobs(summary);
  const knobText = Object.entries(knobs).map(([k, v]) => `${k}=${v}`).join(' ');
  const srv = summary.server || {};
  return (summary.phases || []).filter((p) => p.batches > 0).map((p) => ({
    time: summary.started_at,
    run_id: summary.run_id,
    series: `${summary.target}.${summary.experiment}.${p.phase}.${fnv(`${summary.test_endpoint ? 'test;' : ''}${knobText}`)}`,
    experiment: summary.experiment,
    target: summary.target,
    phase: p.phase,
    test_endpoint: summary.test_endpoint ? 'true' : 'false',
    docs_per_s: p.docs_per_s,
    p50_ms: p.batch_ms.median,
    p99_ms: p.batch_ms.p99,
    server: srv.serverVersion || srv.version || '',
    settings: srv.settings ? settingsText(srv.settings) : '',
    knobs: knobText,
  }));
}

const csvCell = (v) => { const s = v === null || v === undefined ? '' : String(v); return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s; };
export const csvLine = (cells) => cells.map(csvCell).join(',');

// RFC 4180 rows (quoted cells may hold commas, quotes doubled). Each row keeps the line it
// started on (rows[i].line, 1-based); a quote left open at the end of the text is an error
// (it would take every later line into one cell), thrown with the line where it opened.
export function parseCsv(text) {
  const rows = []; let row = []; let cell = ''; let q = false; let line = 1; let rowLine = 1; let quoteLine = 0;
  const end = () => { row.push(cell); Object.defineProperty(row, 'line', { value: rowLine }); rows.push(row); row = []; cell = ''; rowLine = line; };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') line++;
    if (q) {
      if (c === '"' && text[i + 1] === '"') { cell += '"'; i++; } else if (c === '"') q = false; else cell += c;
    } else if (c === '"') { q = true; quoteLine = line; }
    else if (c === ',') { row.push(cell); cell = ''; } else if (c === '\n') end(); else if (c !== '\r') cell += c;
  }
  if (q) throw new InputError(`line ${quoteLine}: a quote opens a cell that never closes (it would swallow every later row)`);
  if (cell !== '' || row.length) end();
  return rows;
}

const NUMERIC = ['docs_per_s', 'p50_ms', 'p99_ms'];
export function readHistory(file) {
  if (!existsSync(file)) return [];
  let parsed;
  try { parsed = parseCsv(readRegularFile(file, `history ${file}`)); } catch (e) {
    if (e instanceof InputError && /^line \d/.test(e.message)) refuse(`history ${file}, ${e.message}: fix or move the file (scripts/run and scripts/history append refuse to add to it until then)`);
    throw e;
  }
  const [head, ...rows] = parsed;
  if (!head || head.join(',') !== COLUMNS.join(',')) refuse(`${file} is not a k6-writepath history (its header is not ${COLUMNS.join(',')})`);
  // A row the file cannot account for is named, never dropped: a history that silently loses
  // rows would hide the very runs a change point is made of.
  for (const r of rows) {
    if (r.length === 1 && r[0] === '') continue;
    if (r.length !== COLUMNS.length) refuse(`history ${file}, line ${r.line}: ${r.length} cells, a row has ${COLUMNS.length}: fix or move the file`);
    for (const c of NUMERIC) {
      const v = r[COLUMNS.indexOf(c)];
      if (v !== '' && !(Number.isFinite(Number(v)) && Number(v) >= 0)) refuse(`history ${file}, line ${r.line}: ${c} ${JSON.stringify(v)} is not a figure (a number of at least 0): fix or move the file`);
    }
  }
  return rows.filter((r) => !(r.length === 1 && r[0] === '')).map((r) => Object.fromEntries(COLUMNS.map((c, i) => [c, r[i]])));
}

// Adds the runs of result folders (a REPEAT=N folder: its repetitions) not yet in the file.
export function append(file, dirs) {
  const have = new Set(readHistory(file).map((r) => `${r.run_id}\t${r.phase}`));
  const add = [];
  for (const dir of dirs) {
    const f = path.join(dir, 'summary.json');
    if (!existsSync(f)) refuse(`${dir}: no summary.json (not a result folder of a finished run)`);
    const summaries = readRepeat(dir) ? repetitionsOf(dir).filter((r) => r.summary).map((r) => r.summary) : [readSummaryFile(f)];
    for (const s of summaries) {
      if (!s.run_id || !s.started_at) continue; // a run that did not start has no figures
      for (const r of rowsOf(s)) if (!have.has(`${r.run_id}\t${r.phase}`)) { add.push(r); have.add(`${r.run_id}\t${r.phase}`); }
    }
  }
  ensureDir(path.dirname(path.resolve(file)), 'HISTORY folder');
  // The whole file is rewritten and renamed over the old one: a full disk leaves the old history.
  const old = existsSync(file) ? readRegularFile(file, `history ${file}`) : `${csvLine(COLUMNS)}\n`;
  if (add.length || !existsSync(file)) writeFileAtomic(file, `${old}${old.endsWith('\n') ? '' : '\n'}${add.map((r) => `${csvLine(COLUMNS.map((c) => r[c]))}\n`).join('')}`);
  return add.length;
}

export function seriesOf(rows) {
  const by = new Map();
  for (const r of rows) {
    if (!by.has(r.series)) by.set(r.series, []);
    by.get(r.series).push(r);
  }
  for (const list of by.values()) list.sort((a, b) => a.time.localeCompare(b.time));
  return by;
}

export const OTAVA = path.join(root, '.run', 'otava', 'bin', 'otava');

// Apache Otava in its pinned venv, installed once on first use (the recipe of make otava-deps,
// mk/otava.mk) with one line saying so; where that fails, one line says what to run.
export function ensureOtava(otava = OTAVA) {
  if (existsSync(otava)) return;
  process.stderr.write(`scripts/history: installing Apache Otava once into ${path.relative(process.cwd(), path.dirname(path.dirname(otava))) || '.run/otava'} (make otava-deps: pinned, a minute or two)\n`);
  const r = spawnSync('make', ['-s', '-C', root, 'otava-deps'], { stdio: ['ignore', 2, 2] });
  if (r.error || r.status !== 0 || !existsSync(otava)) {
    throw new OutputError(`Apache Otava could not be installed (${r.error ? `make: ${r.error.code}` : `make otava-deps exited ${r.status}`}; its lines above say why): it needs python3 with venv and network access to PyPI; then run make otava-deps`);
  }
}
// A change point must also move its figure by at least this share (Otava's magnitude): runs on
// a shared machine drift by several per cent, and E-divisive's p-value takes runs as independent
// (docs/results.md "History and change points").
export const DEFAULT_MAGNITUDE = 0.1;
// A step needs this many runs on each side of it. Otava tests a split with Student's t over the
// runs on either side (otava/analysis.py, TTestSignificanceTester, apache-otava 0.8.0), so one slow
// run at either end of a flat series, or one in its middle, can pass as a change point (recorded
// 2026-11-25: run 1 of an A/A history, mixed p99 78 ms against 31 ms, "p 0.000767"). Fewer runs
// than this between two change points (or a change point and the start) are reported as outlier
// runs; fewer after the last one, as an unconfirmed change at the newest runs (a pipeline still
// sees it, as not yet told apart from one slow run).
export const DEFAULT_MIN_SEGMENT = 3;
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

// Otava's change points of one series, figure by figure, split into steps (at least minSegment
// runs on each side), outlier runs (a shorter stretch at the start or between two change points)
// and unconfirmed changes (a shorter stretch at the end). changes: as analyze() builds them,
// rows: the series' runs in order. -> { steps, outliers: [{ metric, label, from, to, value,
// around }], unconfirmed: [change + { runs_after }] }; from/to: 0-based run indexes, inclusive.
export function classifyChanges(rows, changes, minSegment = DEFAULT_MIN_SEGMENT) {
  const out = { steps: [], outliers: [], unconfirmed: [] };
  for (const [metric, label] of FIGURES) {
    const cps = changes.filter((c) => c.metric === metric).sort((a, b) => a.index - b.index);
    if (!cps.length) continue;
    const bounds = [0, ...cps.map((c) => c.index), rows.length];
    const segs = bounds.slice(0, -1).map((from, i) => ({ from, to: bounds[i + 1] - 1, n: bounds[i + 1] - from }));
    const values = rows.map((r) => Number(r[metric]));
    const segMean = (g) => mean(values.slice(g.from, g.to + 1));
    const long = (g) => g.n >= minSegment;
    // The newest runs after the last long stretch: too few to tell a step from slow runs.
    let tail = segs.length;
    while (tail > 0 && !long(segs[tail - 1])) tail--;
    segs.forEach((g, i) => {
      if (long(g) || i >= tail) return;
      const near = [segs[i - 1], segs[i + 1]].filter((x) => x && long(x));
      out.outliers.push({ metric, label, from: g.from, to: g.to, value: segMean(g), around: near.length ? mean(near.map(segMean)) : null });
    });
    cps.forEach((c, i) => { if (long(segs[i]) && long(segs[i + 1])) out.steps.push(c); });
    // Only short stretches (a short series split several times): nothing is a step yet.
    if (tail === 0) for (const c of cps) out.unconfirmed.push({ ...c, runs_after: rows.length - c.index });
    else if (tail < segs.length) {
      const runsAfter = rows.length - segs[tail].from;
      const c = cps[tail - 1]; // the change point at the start of the newest short stretches
      if (runsAfter >= minSegment) out.steps.push(c); else out.unconfirmed.push({ ...c, runs_after: runsAfter });
    }
  }
  for (const k of ['steps', 'unconfirmed']) out[k].sort((a, b) => a.index - b.index);
  return out;
}

// Apache Otava over every series of at least `minRuns` runs: -> [{ series, rows, analysed,
// changes: [{ run_id, time, index, metric, label, forward_change_percent, magnitude, pvalue,
// mean_before, mean_after, before, after }] (the steps), unconfirmed, outliers (classifyChanges),
// otava: every change point as Otava gave it }]. work: a folder for Otava's input (one CSV per
// series, otava.yaml).
export function analyze(rows, { work, pValue = 0.001, magnitude = DEFAULT_MAGNITUDE, minRuns = 6, minSegment = DEFAULT_MIN_SEGMENT, otava = OTAVA } = {}) {
  if (!existsSync(otava)) refuse(`Apache Otava is not installed at ${path.relative(root, otava)}: make otava-deps`);
  rmSync(work, { recursive: true, force: true });
  ensureDir(work, 'history work folder');
  const series = [...seriesOf(rows).entries()].map(([id, list], i) => ({ id, name: `s${i + 1}`, rows: list }));
  const tests = series.filter((s) => s.rows.length >= minRuns);
  const yaml = ['tests:'];
  for (const s of tests) {
    writeFileSync(path.join(work, `${s.name}.csv`), [csvLine(['time', 'run_id', 'server', 'settings', ...FIGURES.map((f) => f[0])]),
      ...s.rows.map((r) => csvLine([r.time, r.run_id, r.server, r.settings, ...FIGURES.map((f) => r[f[0]])]))].join('\n') + '\n');
    yaml.push(`  ${s.name}:`, '    type: csv', `    file: ${JSON.stringify(path.join(work, `${s.name}.csv`))}`, '    time_column: time', '    attributes: [run_id, server, settings]', '    metrics:',
      ...FIGURES.map(([col, , dir]) => `      ${col}: {direction: ${dir}}`));
  }
  writeFileSync(path.join(work, 'otava.yaml'), `${yaml.join('\n')}\n`);
  const results = new Map();
  if (tests.length) {
    const r = spawnSync(otava, ['analyze', '--config-file', path.join(work, 'otava.yaml'), ...tests.map((s) => s.name), '--output', 'json', '-P', String(pValue), '-M', String(magnitude)], { encoding: 'utf8' });
    if (r.status !== 0) refuse(`otava analyze failed (exit ${r.status}): ${(r.stderr || '').trim().split('\n').pop()}`);
    // One JSON object per test, one per line ({"s1": [change points …]}).
    for (const line of r.stdout.split('\n')) {
      if (!line.startsWith('{')) continue;
      for (const [name, cps] of Object.entries(JSON.parse(line))) results.set(name, cps);
    }
  }
  return series.map((s) => {
    const cps = results.get(s.name);
    const changes = (cps || []).flatMap((cp) => cp.changes.map((ch) => {
      const at = s.rows.findIndex((r) => r.run_id === cp.attributes.run_id);
      return {
        run_id: cp.attributes.run_id, time: s.rows[at] ? s.rows[at].time : null, index: ch.index, metric: ch.metric,
        label: FIGURES.find((f) => f[0] === ch.metric)[1],
        forward_change_percent: Number(ch.forward_change_percent), magnitude: Number(ch.magnitude), pvalue: Number(ch.pvalue),
        mean_before: Number(ch.mean_before), mean_after: Number(ch.mean_after),
        before: s.rows[at - 1] || null, after: s.rows[at] || null,
      };
    }));
    const { steps, outliers, unconfirmed } = classifyChanges(s.rows, changes, minSegment);
    return { series: s.id, rows: s.rows, analysed: cps !== undefined, changes: steps, outliers, unconfirmed, otava: changes };
  });
}

// The knobs of a series that are not at their defaults (the history keeps them all).
function changedKnobs(text) {
  const out = text.split(' ').filter((kv) => { const k = kv.slice(0, kv.indexOf('=')); const d = KNOBS[k] && KNOBS[k].default; return d === undefined || String(Array.isArray(d) ? d.join(',') : d) !== kv.slice(kv.indexOf('=') + 1); });
  return out.length ? `${out.join(' ')} (others at their defaults)` : 'all at their defaults';
}

function describeSeries(s) {
  const r = s.rows[0];
  return `${r.target}${r.test_endpoint === 'true' ? ' (TEST ENDPOINT)' : ''} · ${r.experiment} · ${r.phase} · ${s.rows.length} runs, ${r.time.slice(0, 16).replace('T', ' ')} → ${s.rows[s.rows.length - 1].time.slice(0, 16).replace('T', ' ')} (series ${s.series})`;
}

// `run_id, 2026-11-25 07:13:51`, and `p99 ms -60 % (mean 78.4 → 31.2)`: how a change is named.
const when = (id, time) => `${id}, ${(time || '').slice(0, 19).replace('T', ' ')}`;
const move = (c) => `${c.label} ${c.forward_change_percent >= 0 ? '+' : ''}${c.forward_change_percent} % (mean ${c.mean_before.toFixed(1)} → ${c.mean_after.toFixed(1)})`;

export function analysisText(result, { file, pValue, magnitude, minRuns, minSegment = DEFAULT_MIN_SEGMENT }) {
  const lines = [`k6-writepath history · ${file} · ${result.length} series, ${result.reduce((a, s) => a + s.rows.length, 0)} runs × phases`,
    `Apache Otava (E-divisive means) per series: change points with p ≤ ${pValue}${magnitude ? ` and a magnitude of at least ${magnitude}` : ''} and at least ${minSegment} runs on each side (fewer: outlier runs, or an unconfirmed change at the newest runs); series of fewer than ${minRuns} runs are not analysed`, ''];
  for (const s of result) {
    lines.push(`series ${describeSeries(s)}`);
    lines.push(`  knobs: ${changedKnobs(s.rows[0].knobs)}`);
    if (!s.analysed) { lines.push(`  not analysed: ${s.rows.length} runs (at least ${minRuns})`); lines.push(''); continue; }
    if (!s.changes.length) lines.push(`  no change point${s.unconfirmed.length ? ' confirmed' : ''}`);
    for (const c of s.changes) {
      const moved = c.before && c.after && (c.before.settings !== c.after.settings || c.before.server !== c.after.server)
        ? `; what changed on the server: ${[c.before.server !== c.after.server ? `version ${c.before.server} → ${c.after.server}` : null, c.before.settings !== c.after.settings ? `settings ${c.before.settings} → ${c.after.settings}` : null].filter(Boolean).join(', ')}`
        : '';
      lines.push(`  change point at run ${c.index + 1} of ${s.rows.length} (${when(c.run_id, c.time)}): ${move(c)}, magnitude ${c.magnitude.toFixed(3)}, p ${c.pvalue.toFixed(6)}${moved}`);
    }
    for (const c of s.unconfirmed) {
      lines.push(`  unconfirmed change at run ${c.index + 1} of ${s.rows.length} (${when(c.run_id, c.time)}): ${move(c)}, p ${c.pvalue.toFixed(6)} — ${c.runs_after} run${c.runs_after === 1 ? '' : 's'} after it: fewer than ${minSegment} runs on one side do not yet tell a step from ${c.runs_after === 1 ? 'one odd run' : 'a few odd runs'}`);
    }
    for (const o of s.outliers) {
      const which = o.from === o.to ? `run ${o.from + 1}` : `runs ${o.from + 1}–${o.to + 1}`;
      lines.push(`  outlier ${which} of ${s.rows.length} (${when(s.rows[o.from].run_id, s.rows[o.from].time)}): ${o.label} ${o.value.toFixed(1)}${o.around === null ? '' : ` against ${o.around.toFixed(1)} around ${o.from === o.to ? 'it' : 'them'}`} — Otava split ${o.from === o.to ? 'it' : 'them'} off, but fewer than ${minSegment} runs are no step`);
    }
    lines.push('');
  }
  return `${lines.join('\n')}`;
}

function main(argv) {
  const [cmd, ...rest] = argv;
  const o = { file: null, series: null, pValue: 0.001, magnitude: DEFAULT_MAGNITUDE, minRuns: 6, minSegment: DEFAULT_MIN_SEGMENT, dirs: [] };
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    const next = () => { if (i + 1 >= rest.length) refuse(`${a} needs a value`); return rest[++i]; };
    if (a === '--file') o.file = next();
    else if (a === '--series') o.series = next();
    else if (a === '--p-value') { const v = next(); if (!/^(0?\.\d+|1)$/.test(v) || !(Number(v) > 0)) refuse(`--p-value ${v} is not allowed: a probability above 0 and at most 1, such as 0.001`); o.pValue = Number(v); }
    else if (a === '--magnitude') { const v = next(); if (!/^\d+(\.\d+)?$/.test(v)) refuse(`--magnitude ${v} is not allowed: a share of 0 or more, such as 0.05 (5 %)`); o.magnitude = Number(v); }
    else if (a === '--min-runs') { const v = next(); if (!/^\d+$/.test(v) || Number(v) < 3 || Number(v) > 1000) refuse(`--min-runs ${v} is not allowed: a whole number from 3 to 1000`); o.minRuns = Number(v); }
    else if (a === '--min-segment') { const v = next(); if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > 100) refuse(`--min-segment ${v} is not allowed: a whole number of runs from 1 (Otava's change points as they are) to 100`); o.minSegment = Number(v); }
    else if (a.startsWith('-')) refuse(`unknown option ${a}`);
    else o.dirs.push(a);
  }
  if (!o.file) {
    const history = toolKnob('scripts/history', process.env, 'HISTORY', { fail: refuse });
    o.file = history && history !== '0' ? history : path.join(resultsDirOf('scripts/history', [], process.env, refuse), 'history.csv');
  }
  if (cmd === 'append') {
    if (!o.dirs.length) refuse('append needs result folders');
    const n = append(o.file, o.dirs);
    process.stderr.write(`scripts/history: ${n} rows added to ${o.file}\n`);
    return 0;
  }
  if (cmd === 'list') {
    const by = seriesOf(readHistory(o.file));
    if (!by.size) { process.stdout.write(`${o.file}: no runs yet\n`); return 0; }
    for (const [id, rows] of by) process.stdout.write(`${describeSeries({ series: id, rows })}\n  knobs: ${changedKnobs(rows[0].knobs)}\n`);
    return 0;
  }
  if (cmd === 'analyze') {
    let rows = readHistory(o.file);
    if (!rows.length) refuse(`${o.file}: no history yet (every scripts/run appends to it; scripts/history append <folders> adds earlier runs)`);
    if (o.series) rows = rows.filter((r) => r.series.includes(o.series));
    if (!rows.length) refuse(`--series ${o.series}: no series matches (scripts/history list shows them)`);
    const work = path.join(path.dirname(path.resolve(o.file)), 'history-otava');
    ensureOtava();
    const result = analyze(rows, { work, pValue: o.pValue, magnitude: o.magnitude, minRuns: o.minRuns, minSegment: o.minSegment });
    const text = analysisText(result, { file: o.file, ...o });
    writeFileAtomic(path.join(work, 'analysis.json'), `${JSON.stringify(result.map((s) => ({ series: s.series, runs: s.rows.length, analysed: s.analysed, changes: s.changes.map(({ before, after, ...c }) => c), unconfirmed: s.unconfirmed.map(({ before, after, ...c }) => c), outliers: s.outliers })), null, 2)}\n`);
    process.stdout.write(`${text}\nOtava's input and this analysis as JSON: ${work}/\n`);
    return 0;
  }
  refuse('usage: scripts/history append <result folder>… | list | analyze [--series TEXT] [--p-value 0.001] [--magnitude 0.1] [--min-runs 6] [--min-segment 3] [--file results/history.csv]');
  return 2;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  runTool('scripts/history', () => main(process.argv.slice(2)), [HistoryError]);
}
