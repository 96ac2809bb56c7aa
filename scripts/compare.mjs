// scripts/compare: one workload on several targets (or two endpoints of one kind, like E3's two
// server versions), side by side — with several runs per side, each side's median and n, the
// delta with its interval, the exact Mann–Whitney p-value and `~` when the difference is not
// significant — plus an SVG chart of every run's value. A side is a scenario file (run now,
// through scripts/run; with --repeat N, N times, interleaved with the other sides: A B B A A B
// …, one target running at a time, like E3) or existing result folders (one run's folder, a
// REPEAT=N folder, or several of them joined with commas). Runs whose workload settings differ
// are refused. --gate: the regression gate against a baseline (docs/results.md).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { KNOBS, knobApplies, knobScope, newRunId } from '../lib/config.js';
import { RUN_ID_MAX } from '../lib/knobs.js';
import { settingsText } from '../lib/report.js';
import { InputError, ensureDir, readSummaryFile, runTool, writeFileAtomic } from './lib/files.mjs';
import { junitXml } from '../lib/report.js';
import { fmt } from '../lib/format.js';
import { workloadDifference, workloadSettings } from './lib/repeat.mjs';
import { spreadChart } from '../lib/svg-chart.js';
import { ALPHA, DEFAULT_GATE_METRICS, align, compareSides, compareTable, gateDecision, gateReachable, gateTable, gatedFigures, parseGateMetrics, parseTolerance, runsNeeded, sideFigures, detectableRegression, steadierAdvice } from './lib/verdict.mjs';
import { pooledSd, smallestP } from './lib/stats.mjs';
import { readRepeat, repetitionsOf } from './aggregate.mjs';
import { cliSecretLine, isCliSecret } from './lib/cli-secrets.mjs';
import { EXIT_ABORTED, EXIT_INTERRUPTED, repoRoot as root, resultsDirOf, startTestServer, stopOnSignals, unreachable } from './lib/kit.mjs';
import { checkGatewayEnv, needsGateway, scenarioTargets } from './lib/gateway.mjs';

const LETTERS = 'ABCDEFGH';
// Marker a comparison leaves in the result folder of a run it made against a test server.
export const TEST_ENDPOINT_MARKER = 'TEST-ENDPOINT';

export class CompareError extends Error {}
const refuse = (msg) => { throw new CompareError(msg); };

export { workloadSettings };
// One line naming every setting that differs (runs: [{ letter, summary }]), thrown.
export function checkSameWorkload(runs) {
  const diff = workloadDifference(runs.map((r) => ({ name: r.letter, summary: r.summary })));
  if (diff) refuse(`refusing to compare runs with different workload settings: ${diff}`);
}

// ---- sides and their runs ---------------------------------------------------------------------

function readSummary(dir) {
  const file = path.join(dir, 'summary.json');
  if (!existsSync(file)) refuse(`${dir}: no summary.json (not a result folder of a finished run)`);
  return readSummaryFile(file);
}

// Result folders of a side: "dir", "dir1,dir2,…"; a REPEAT=N folder counts as its repetitions.
export function runsOfFolders(spec) {
  const runs = [];
  for (const dir of spec.split(',').map((x) => x.trim()).filter(Boolean)) {
    if (!existsSync(path.join(dir, 'summary.json'))) refuse(`${dir}: neither a scenario file (*.js) nor a result folder with summary.json`);
    if (readRepeat(dir)) {
      for (const r of repetitionsOf(dir)) if (r.summary) runs.push({ summary: r.summary, source: r.dir, testEndpoint: isTestEndpoint(r.dir, r.summary) });
    } else {
      const summary = readSummary(dir);
      runs.push({ summary, source: dir, testEndpoint: isTestEndpoint(dir, summary) });
    }
  }
  if (!runs.length) refuse(`${spec}: no run with a summary.json`);
  return runs;
}

const isTestEndpoint = (dir, summary) => existsSync(path.join(dir, TEST_ENDPOINT_MARKER)) || Boolean(summary.server && summary.server.testEndpoint === true) || summary.test_endpoint === true;

const isScenario = (spec) => /\.js$/.test(spec) && existsSync(spec) && !existsSync(path.join(spec, 'summary.json'));

// ---- options ----------------------------------------------------------------------------------

const int = (name, v, min, max) => {
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) refuse(`${name} ${v} is not allowed: a whole number from ${min} to ${max}`);
  return Number(v);
};

export function parseArgs(argv) {
  const o = { specs: [], env: [], perRun: {}, labels: {}, testEndpoints: new Set(), arangoTestserver: false, ravenTestserver: false, out: null, repeat: 1, warmup: 0, alpha: ALPHA, gate: false, baseline: null, metrics: null, tolerance: null, paired: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => { if (i + 1 >= argv.length) refuse(`${a} needs a value`); return argv[++i]; };
    if (a === '-e' || a === '--env') {
      const v = next();
      const m = /^([A-H]):([A-Z_][A-Z0-9_]*)=(.*)$/s.exec(v);
      const kv = m ? [m[2], m[3]] : v.split(/=(.*)/s);
      // A run's own secret comes from the environment as COMPARE_<letter>_<KNOB> (COMPARE_B_PG_URL
      // for run B: a name k6's misspelt-knob check does not take for PG_URL).
      if (isCliSecret(kv[0], kv[1] || '')) {
        refuse(cliSecretLine(`${m ? `${m[1]}:` : ''}${kv[0]}`, m ? `export COMPARE_${m[1]}_${kv[0]}=… in the environment (run ${m[1]} only)` : `export ${kv[0]}=… in the environment (every run)`));
      }
      if (m) (o.perRun[m[1]] ||= {})[m[2]] = m[3];
      else if (/^[A-Z_][A-Z0-9_]*=/.test(v)) o.env.push(v);
      else refuse(`-e ${v}: expected KNOB=value or A:KNOB=value`);
    } else if (a === '--label') {
      const m = /^([A-H])=(.+)$/.exec(next()); if (!m) refuse('--label: expected A=name'); o.labels[m[1]] = m[2];
    } else if (a === '--test-endpoint') {
      const v = next(); if (!/^[A-H]$/.test(v)) refuse('--test-endpoint: expected a run letter A-H'); o.testEndpoints.add(v);
    } else if (a === '--arango-testserver') o.arangoTestserver = true;
    else if (a === '--raven-testserver') o.ravenTestserver = true;
    else if (a === '--out') o.out = next();
    else if (a === '--repeat') o.repeat = int('--repeat', next(), 1, 99);
    else if (a === '--warmup') o.warmup = int('--warmup', next(), 0, 9);
    else if (a === '--alpha') {
      const v = next();
      const x = /^\d+(\.\d+)?%$/.test(v) ? Number(v.slice(0, -1)) / 100 : /^0?\.\d+$/.test(v) ? Number(v) : NaN;
      if (!(x > 0 && x <= 0.2)) refuse(`--alpha ${v} is not allowed: a significance level above 0 and at most 0.2, such as 0.05 or 5%`);
      o.alpha = x;
    } else if (a === '--gate') o.gate = true;
    else if (a === '--paired') o.paired = true;
    else if (a === '--baseline') o.baseline = next();
    else if (a === '--metrics') { const v = next(); try { o.metrics = parseGateMetrics(v); } catch (e) { refuse(e.message); } }
    else if (a === '--max-regression') { const v = next(); try { o.tolerance = parseTolerance(v); } catch (e) { refuse(e.message); } }
    else if (a === '-h' || a === '--help') o.help = true;
    else if (a.startsWith('-')) refuse(`unknown option ${a} (see scripts/compare --help)`);
    else o.specs.push(a);
  }
  if (o.help) return o;
  if (o.gate) {
    if (!o.baseline) refuse('--gate needs --baseline <scenario.js | result folder(s)>');
    if (o.specs.length !== 1) refuse(`--gate compares one candidate with the baseline: give exactly one scenario file or result folder(s), not ${o.specs.length}`);
    o.specs.unshift(o.baseline);
    if (!isScenario(o.baseline) && !o.baseline.split(',').every((d) => existsSync(path.join(d.trim(), 'summary.json')))) {
      refuse(`--baseline ${o.baseline} is not allowed: a scenario file (run now, interleaved with the candidate) or result folders with summary.json (one run, a REPEAT=N folder, or several joined with commas)`);
    }
    o.metrics ||= parseGateMetrics(DEFAULT_GATE_METRICS.join(','));
    o.tolerance ||= parseTolerance('10%');
    if (o.paired && !(isScenario(o.specs[0]) && isScenario(o.specs[1]))) refuse('--paired needs the baseline and the candidate run now (two scenario files): only runs made side by side are pairs');
  } else {
    for (const [flag, set] of [['--baseline', o.baseline], ['--metrics', o.metrics], ['--max-regression', o.tolerance], ['--paired', o.paired || null]]) if (set !== null) refuse(`${flag} is an option of --gate`);
    if (o.specs.length < 2) refuse('give at least two runs: scenario files and/or result folders');
  }
  if (o.specs.length > LETTERS.length) refuse(`at most ${LETTERS.length} runs`);
  // Runs with different workload settings are refused after they ran; a workload knob given to
  // one side only would make exactly such runs, so it is refused before any of them.
  for (const [l, knobs] of Object.entries(o.perRun)) {
    for (const [k, v] of Object.entries(knobs)) {
      const sc = knobScope(k);
      if (sc && sc.scope === 'workload') refuse(`-e ${l}:${k}=${v} is not allowed: ${k} sets the workload, and runs of different workloads are not compared; give it to every run (-e ${k}=${v}), or compare target settings (-e ${l}:PG_SYNC_COMMIT=off …)`);
    }
  }
  for (const l of [...Object.keys(o.perRun), ...Object.keys(o.labels), ...o.testEndpoints]) {
    if (LETTERS.indexOf(l) >= o.specs.length) refuse(`run ${l} is named in an option but only ${o.specs.length} runs were given`);
  }
  return o;
}

// An API test server of the project (the tool kit's launcher), its failure to start a refusal.
async function startTestserver(db, option, extra = []) {
  if (!existsSync(path.join(root, 'bin', `${db}-testserver`))) refuse(`${option}: bin/${db}-testserver is missing (make testservers)`);
  try {
    return await startTestServer(db, extra, { ownGroup: true });
  } catch (e) {
    throw new CompareError(e.message);
  }
}

// The order runs of scenario sides are made in: round r of `rounds` (warm-up rounds first),
// each round every side once, every other round in reverse (A B, B A, A B, … : interleaved and
// counterbalanced, so that a slow drift of the machine or an advantage of running second hits
// every side alike).
export function runOrder(letters, rounds, warmup = 0) {
  const out = [];
  for (let r = 0; r < warmup + rounds; r++) {
    const order = r % 2 === 0 ? letters : [...letters].reverse();
    for (const l of order) out.push({ letter: l, warmup: r < warmup, index: r < warmup ? r + 1 : r - warmup + 1 });
  }
  return out;
}

const usage = `usage: scripts/compare [options] SIDE SIDE [SIDE…]
       scripts/compare --gate --baseline SIDE [--repeat N] [--max-regression 10%] [--metrics docs/s,p99] SIDE
  SIDE                a scenario file (run now through scripts/run) or result folders: one run's folder,
                      a REPEAT=N folder (its repetitions), or several folders joined with commas
  --repeat N          run each scenario side N times, interleaved (A B B A A B …, one target at a time)
  --warmup K          K more rounds first whose runs are not counted (default 0)
  --alpha X           significance level (default 0.05)
  -e KNOB=value       for every scenario run;   -e B:KNOB=value  only for side B (A, B, C… by position);
                      secrets only in the environment: PG_URL=… for every run, COMPARE_B_PG_URL=… for side B
  --label A=name      column name (default: the target)
  --test-endpoint B   label side B as a test endpoint (runs against a project test server)
  --arango-testserver run ArangoDB scenarios against bin/arangodb-testserver (labelled TEST ENDPOINT)
  --raven-testserver  run RavenDB scenarios against bin/ravendb-testserver (labelled TEST ENDPOINT)
  --out DIR           where compare.txt/.json/.svg (and the runs made now) go (default results/cmp_<time>)
gate (exit 99: a regression beyond the tolerance is significant; 107: bad input, or the gate cannot
detect its tolerance; 0 otherwise):
  --gate --baseline SIDE   the baseline (A); the one positional SIDE is the candidate (B)
  --max-regression X       tolerance: 10% (default), or per figure docs/s=10%,p99=30%
  --metrics LIST           gated figures, [phase:]figure (default docs/s,p99 of every phase);
                           figures docs/s mb/s p50 p90 p99 avg time ops/s
  --paired                 test the pairs of runs made side by side (both sides scenario files)
examples:
  scripts/compare --repeat 5 -e DOCS=50000 scenarios/postgres/insert-vs-overwrite.js scenarios/postgres/insert-vs-overwrite.js
  COMPARE_B_PG_URL='postgres://u:…@db16:5432/x' scripts/compare --label A=pg15 --label B=pg16 --repeat 5 scenarios/postgres/insert-vs-overwrite.js scenarios/postgres/insert-vs-overwrite.js
  scripts/compare results/run_a1,results/run_a2,results/run_a3 results/repeated_b
  scripts/compare --gate --baseline results/baseline --repeat 5 --max-regression 10% scenarios/postgres/insert-vs-overwrite.js
  scripts/compare --arango-testserver --raven-testserver scenarios/{postgres,mongodb,arangodb,ravendb}/insert-vs-overwrite.js
`;

// ---- outputs ---------------------------------------------------------------------------------

// What differs between the sides beside the workload (which must be the same): the target, the
// server's version and settings, and every other knob (-e B:PG_SYNC_COMMIT=off, a URL, the
// threshold file). Secrets are never shown; names that differ per run by design are left out
// (GATEWAY_URL: scripts/run starts a private gateway per run on a free port).
// -> [{ what, values: { A: 'on', B: 'off' } }]; a side whose runs disagree shows each value.
const PER_RUN_KNOBS = new Set(['RUN_ID', 'RESULTS_DIR', 'REPEAT', 'HISTORY', 'GATEWAY_URL']);
export function sideDifferences(sides) {
  const show = (v) => (v === undefined || v === null ? '(unset)' : Array.isArray(v) ? v.join(',') : typeof v === 'object' ? JSON.stringify(v) : String(v));
  const valuesOf = (get) => sides.map((s) => [...new Set(s.runs.map((r) => show(get(r.summary))))].join(' / '));
  const out = [];
  const add = (what, get) => {
    const vals = valuesOf(get);
    if (new Set(vals).size > 1 || vals.some((v) => v.includes(' / '))) out.push({ what, values: Object.fromEntries(sides.map((s, i) => [s.letter, vals[i]])) });
  };
  const srv = (x) => x.server || {};
  add('target', (x) => x.target);
  add('server version', (x) => srv(x).serverVersion || srv(x).version);
  const settingKeys = [...new Set(sides.flatMap((s) => s.runs.flatMap((r) => Object.keys(srv(r.summary).settings || {}))))].sort();
  for (const k of settingKeys) add(`server setting ${k}`, (x) => (srv(x).settings || {})[k]);
  const knobKeys = [...new Set(sides.flatMap((s) => s.runs.flatMap((r) => Object.keys(r.summary.config || {}))))].sort();
  // Only knobs of the sides' targets: ARANGO_URL is no difference between two PostgreSQL runs.
  const targets = new Set(sides.flatMap((s) => s.runs.map((r) => r.summary.target)));
  for (const k of knobKeys) {
    if (PER_RUN_KNOBS.has(k) || (KNOBS[k] && KNOBS[k].type === 'secret')) continue;
    if (KNOBS[k] && ![...targets].some((t) => knobApplies(k, t))) continue;
    const sc = knobScope(k);
    if (sc && sc.scope === 'workload') continue;
    add(k, (x) => (x.config || {})[k] ?? (KNOBS[k] ? KNOBS[k].default : undefined));
  }
  return out;
}

export function differencesLine(diffs, letters) {
  if (!diffs.length) return `differs between ${letters.join(' and ')}: nothing recorded (same target, server version, server settings and knobs): an A/A comparison`;
  return `differs between ${letters.join(' and ')}: ${diffs.map((d) => `${d.what} ${Object.entries(d.values).map(([l, v]) => `${l}=${v}`).join(' ')}`).join(' · ')}`;
}

const title = (s) => `${s.label}${s.testEndpoint ? ' (TEST ENDPOINT)' : ''}`;

function headerLines(sides, o) {
  const s0 = sides[0].runs[0].summary;
  const c = s0.config || {};
  const e3 = sides.every((s) => s.runs[0].summary.e3);
  const phases = s0.phases.map((p) => p.phase);
  const lines = [`k6-writepath ${o.gate ? 'gate' : 'comparison'} · ${s0.experiment}`];
  const contention = sides.every((s) => Array.isArray(s.runs[0].summary.contention));
  lines.push(contention
    ? `workload: contention · hot sets ${[].concat(c.HOT_KEYS).join(',')} + spread ${c.SPREAD_KEYS} counters · ${c.RATE_STAGES ? `RATE_STAGES ${c.RATE_STAGES}` : `STAGES ${c.STAGES || '(default)'}`} per hot set · ${c.BATCH_SIZE} counters per operation · CONFLICT_RETRIES ${c.CONFLICT_RETRIES} · seed ${c.SEED} (identical in every run)`
    : e3
    ? `workload: arangobench case ${c.ARANGOBENCH_CASE} · complexity ${c.COMPLEXITY} · ${c.REQUESTS} operations · ${c.VUS} VUs · seed ${c.SEED} (identical in every run)`
    : `workload: ${c.VUS} VUs · batches of ${c.BATCH_SIZE} · DOCS ${c.DOCS} · ${c.DOC_SHAPE} documents · keys ${c.KEY_DIST} · seed ${c.SEED} · phases ${phases.join(',')} (identical in every run)`);
  for (const s of sides) {
    const srv = s.runs[0].summary.server ? (s.runs[0].summary.server.serverVersion || s.runs[0].summary.server.version) : 'setup did not finish';
    const n = s.runs.length;
    const passed = s.runs.filter((r) => r.summary.passed).length;
    const verified = s.runs.filter((r) => { const v = r.summary.verification || {}; return v.ran && (v.ok ?? (v.count_ok && v.readback_ok)); }).length;
    const ids = n === 1 ? `run ${s.runs[0].summary.run_id}` : `${n} runs`;
    const made = s.made ? `made now${s.interleaved ? ', interleaved' : ''}` : s.spec;
    lines.push(`${s.letter}: ${title(s)} · ${s.runs[0].summary.target} · ${srv} · ${ids} · ${n === 1 ? (passed ? 'thresholds passed' : 'thresholds FAILED') : `${passed} of ${n} passed thresholds`} · ${n === 1 ? (verified ? 'verified' : 'verification FAILED') : `${verified} of ${n} verified`} · ${made}`);
  }
  lines.push(differencesLine(sideDifferences(sides), sides.map((s) => s.letter)));
  if (sides.some((s) => s.testEndpoint)) lines.push('TEST ENDPOINT: an API test server of this project (test/servers), not the real database; its figures check the pack, they are no benchmark.');
  return { lines, e3, phases };
}

export function buildComparison(sides, o = { alpha: ALPHA }) {
  const { lines, e3 } = headerLines(sides, o);
  const cmp = compareSides(sides.map((s) => ({ letter: s.letter, summaries: s.runs.map((r) => r.summary) })), { alpha: o.alpha });
  const others = sides.slice(1);
  lines.push('');
  if (e3) {
    // E3's own table: Complexity | Requests | Concurrency | Time A | Time B | A/B (total wall
    // time of all operations, as arangobench reports it) — medians with n — and the test.
    const x = sides[0].runs[0].summary.e3;
    const t = cmp.figures.find((f) => f.phase === 'e3' && f.key === 'time_s');
    const ops = cmp.figures.find((f) => f.phase === 'e3' && f.key === 'ops_per_s');
    const cell = (st, d) => (st.n ? `${fmt(st.median, d)} (n=${st.n})` : '-');
    const pct = (x) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)} %`;
    const head = ['Complexity', 'Requests', 'Concurrency', ...sides.map((s) => `Time ${s.letter} (s)`), ...others.map((s) => `A/${s.letter}`), ...others.flatMap((s) => [`delta ${s.letter} (HL)`, '95 % CI', 'p', '']), ...sides.map((s) => `ops/s ${s.letter}`)];
    const row = [String(x.complexity), String(x.requests), String(x.concurrency), ...sides.map((s) => cell(t.sides[s.letter], 2)),
      ...others.map((s) => fmt(t.sides[sides[0].letter].median / t.sides[s.letter].median, 2)),
      ...others.flatMap((s) => { const c = t.vs[s.letter]; return [c.delta === null ? '-' : pct(c.delta), c.ci ? `${pct(c.ci.lo)} … ${pct(c.ci.hi)}` : '-', c.p === null ? '-' : c.p.toFixed(3), c.note === 'n=1: no significance' ? c.note : c.significant ? (c.delta > 0 ? `${s.letter} slower` : `${s.letter} faster`) : c.note]; }),
      ...sides.map((s) => cell(ops.sides[s.letter], 0))];
    lines.push(...align(head, [row], 0));
    for (const s of sides) for (const r of s.runs) {
      const e = r.summary.e3;
      if (e.requests_done !== e.requests || e.failed_operations > 0) lines.push(`${s.letter} (${r.summary.run_id}): ${e.requests_done} of ${e.requests} operations done, ${e.failed_operations} failed`);
    }
    lines.push('');
    lines.push('Time: wall time of all operations (first start to last end), in seconds, median of the runs; A/B < 1: A is faster. Per phase:');
    lines.push('');
  }
  lines.push(...compareTable({ ...cmp, figures: cmp.figures.filter((f) => f.phase !== 'e3') }, sides));
  lines.push('');
  const pc = Math.round(0.95 * 100);
  lines.push(`median (n): of the runs of each side; p50/p90/p99/avg: time per batch (ms); docs/s: acknowledged documents per second of phase wall time. delta (HL): B/A − 1 as the Hodges–Lehmann estimate — the median of the ratios of every B run to every A run, not the ratio of the two medians (the two can differ, even in sign, when the runs overlap) — with its distribution-free ${pc} % interval; p: two-sided exact Mann–Whitney U test; ~: not significant at α = ${o.alpha}.`);
  const sig = cmp.figures.filter((f) => Object.values(f.vs).some((c) => c.significant)).length;
  const tested = cmp.figures.filter((f) => Object.values(f.vs).some((c) => c.p !== null)).length;
  const few = others.filter((s) => smallestP(sides[0].runs.length, s.runs.length, 'two-sided') >= o.alpha && sides[0].runs.length > 1 && s.runs.length > 1);
  for (const s of few) lines.push(`with ${sides[0].runs.length} + ${s.runs.length} runs the smallest possible p-value is ${smallestP(sides[0].runs.length, s.runs.length, 'two-sided').toFixed(3)}: no difference between A and ${s.letter} can be significant at α = ${o.alpha} (and the ${pc} % interval needs more runs); run more (--repeat 5).`);
  if (tested && sig) lines.push(`${sig} of ${tested} rows significant; each row is tested on its own, so about ${fmt(o.alpha * tested, 1)} of ${tested} rows are expected to be significant by chance when nothing differs (use --gate for a verdict over several figures).`);
  if (cmp.figures.every((f) => Object.values(f.vs).every((c) => c.note === 'n=1: no significance'))) lines.push('n=1: one run per side says nothing about significance; run each side several times (--repeat 5) or give several result folders.');
  const text = `${lines.join('\n')}\n`;
  const json = {
    tool: 'k6-writepath compare', experiment: sides[0].runs[0].summary.experiment, alpha: o.alpha,
    differences: sideDifferences(sides),
    delta_estimator: 'Hodges–Lehmann: the median of the ratios of every run of a side to every run of A, minus 1 (not the ratio of the medians)',
    sides: sides.map((s) => ({ letter: s.letter, label: s.label, test_endpoint: s.testEndpoint, target: s.runs[0].summary.target, spec: s.spec, made_now: Boolean(s.made), runs: s.runs.map((r) => ({ run_id: r.summary.run_id, source: r.source, passed: r.summary.passed, warmup: false })) })),
    warmup_runs: sides.flatMap((s) => (s.warmups || []).map((r) => ({ letter: s.letter, run_id: r.summary.run_id, source: r.source }))),
    order: o.order || null,
    table: cmp.figures,
  };
  return { text, json, svg: comparisonSvg(sides, cmp, e3) };
}

function comparisonSvg(sides, cmp, e3) {
  const legend = (s) => `${s.letter}: ${title(s)} (n=${s.runs.length})`;
  const phases = [...new Set(cmp.figures.filter((f) => f.phase !== 'e3' && !f.phase.startsWith('step ')).map((f) => f.phase))];
  const chart = (key, t, unit) => spreadChart({
    title: t, unit, groups: phases, width: 760, height: 260,
    series: sides.map((s) => ({ name: legend(s), runs: phases.map((ph) => { const f = cmp.figures.find((x) => x.phase === ph && x.key === key); return f ? f.sides[s.letter].values : []; }), ci: phases.map((ph) => { const f = cmp.figures.find((x) => x.phase === ph && x.key === key); return f ? f.sides[s.letter].ci : null; }) })),
  });
  const charts = [
    ...(e3 ? [spreadChart({ title: 'Total time (E3), every run', unit: 's', groups: ['all operations'], width: 760, height: 240, series: sides.map((s) => ({ name: legend(s), runs: [cmp.figures.find((x) => x.phase === 'e3' && x.key === 'time_s').sides[s.letter].values], ci: [null] })) })] : []),
    chart('docs_per_s', e3 ? 'Operations per second, every run' : 'Documents written per second, every run', e3 ? 'ops/s' : 'docs/s'),
    chart('batch_p50_ms', e3 ? 'Time per operation p50, every run' : 'Time per batch p50, every run', 'ms'),
    chart('batch_p99_ms', e3 ? 'Time per operation p99, every run' : 'Time per batch p99, every run', 'ms'),
  ];
  // The contention workload's steps (hot set × load): operations/s of every run.
  const steps = [...new Set(cmp.figures.filter((f) => f.key === 'ops_per_s' && f.phase.startsWith('step ')).map((f) => f.phase))];
  if (steps.length) {
    charts.push(spreadChart({
      title: 'Increment operations per second per step (hot set × load), every run', unit: 'ops/s', groups: steps.map((p) => p.replace(/^step \d+: /, '')), width: 760, height: 300,
      series: sides.map((s) => ({ name: legend(s), runs: steps.map((ph) => cmp.figures.find((x) => x.phase === ph && x.key === 'ops_per_s').sides[s.letter].values), ci: steps.map((ph) => cmp.figures.find((x) => x.phase === ph && x.key === 'ops_per_s').sides[s.letter].ci) })),
    }));
  }
  let y = 0; const parts = [];
  for (const c of charts) { const h = Number(/height="(\d+)"/.exec(c)[1]); parts.push(c.replace('<svg ', `<svg y="${y}" `)); y += h + 10; }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="760" height="${y}" viewBox="0 0 760 ${y}">\n<rect width="100%" height="100%" fill="white"/>\n${parts.join('\n')}\n</svg>\n`;
}

export function gateJunit(dec, sides) {
  const pc = (x) => (x === null || !Number.isFinite(x) ? '-' : `${(x * 100).toFixed(1)} %`);
  const cases = dec.rows.map((r) => {
    const message = `delta ${r.delta === null ? '-' : `${r.delta >= 0 ? '+' : ''}${(r.delta * 100).toFixed(1)} %`}; ${Math.round(dec.conf * 100)} % CI of the regression ${r.ci ? `${pc(r.ci.lo)} … ${pc(r.ci.hi)}` : '-'}; p ${r.p === null ? '-' : r.p.toFixed(4)} (adjusted over ${dec.k} figures ${r.p_adjusted === null ? '-' : r.p_adjusted.toFixed(4)}); detects ≥ ${r.detectable === null ? '-' : pc(r.detectable)} (90 %); verdict ${r.verdict}`;
    const failed = r.verdict === 'REGRESSION' || r.verdict === 'cannot detect';
    return { classname: 'k6-writepath.gate', name: `${r.phase} ${r.label}: regression at most ${(r.tolerance * 100).toFixed(0)} %`, failure: failed ? `${r.verdict === 'REGRESSION' ? 'REGRESSION' : 'cannot detect'}: ${message}` : null, out: message };
  });
  for (const s of sides) {
    const bad = s.runs.filter((r) => !r.summary.passed);
    cases.push({ classname: 'k6-writepath.gate', name: `${s.letter === 'A' ? 'baseline' : 'candidate'} runs: thresholds and verification (${s.runs.length} runs)`,
      failure: bad.length ? `FAILED: ${bad.length} of ${s.runs.length} runs did not pass: ${bad.map((r) => r.summary.run_id).join(', ')}` : null, out: `${s.runs.length} of ${s.runs.length} passed` });
  }
  return junitXml(`k6-writepath gate${sides.some((s) => s.testEndpoint) ? ' TEST ENDPOINT' : ''} ${sides[0].runs[0].summary.target} ${sides[0].runs[0].summary.experiment}`, cases);
}

export function buildGate(sides, o) {
  const { lines } = headerLines(sides, o);
  const dec = gateDecision({ base: sides[0].runs.map((r) => r.summary), cand: sides[1].runs.map((r) => r.summary), metrics: o.metrics, tolerance: o.tolerance, alpha: o.alpha, paired: o.paired });
  // A run that failed its thresholds or verification fails the gate too: a run never hides a failed write.
  const failedRuns = sides.flatMap((s) => s.runs.filter((r) => !r.summary.passed).map((r) => `${s.letter}:${r.summary.run_id}`));
  const exit = failedRuns.length ? 99 : dec.exit;
  lines.push(`gate: ${dec.k} figures (${o.metrics.map((m) => `${m.phase ? `${m.phase}:` : ''}${m.figure}`).join(', ')}); ${dec.design === 'paired' ? 'paired runs (each candidate run against the baseline run made beside it), one-sided exact signed-rank test' : 'one-sided exact Mann–Whitney test of the candidate runs against the baseline runs'}; false alarms held at α = ${o.alpha} over all ${dec.k} figures together (permutation adjustment, which at these figures' measured co-movement tests each at ${dec.level > 0 ? dec.level.toFixed(4) : 'a level no difference reaches'}); "detects": the regression found with 90 % probability at the measured spread and that level`);
  lines.push('');
  lines.push(...gateTable(dec));
  lines.push('');
  lines.push(`delta (HL): candidate/baseline − 1 as the Hodges–Lehmann estimate — the median of the ratios of every candidate run to every baseline run, not the ratio of the two medians shown (the two can differ, even in sign, when the runs overlap); regression: the same estimate as the share the candidate is worse (docs/s lower, ms higher), with its ${Math.round(dec.conf * 100)} % interval (its lower end is the one-sided bound of the test).`);
  if (failedRuns.length) lines.push(`runs that failed their thresholds or verification: ${failedRuns.join(', ')} — the gate fails (exit 99)`);
  lines.push(`verdict: ${exit === 99 ? 'FAILED (exit 99)' : exit === 107 ? 'REFUSED (exit 107)' : 'passed (exit 0)'}: ${failedRuns.length && dec.exit !== 99 ? 'runs failed' : dec.why}`);
  return { text: `${lines.join('\n')}\n`, json: { tool: 'k6-writepath gate', ...dec, differences: sideDifferences(sides), delta_estimator: 'Hodges–Lehmann: the median of the ratios of every candidate run to every baseline run, minus 1 (not the ratio of the medians)', exit, failed_runs: failedRuns, sides: sides.map((s) => ({ letter: s.letter, label: s.label, spec: s.spec, runs: s.runs.map((r) => ({ run_id: r.summary.run_id, source: r.source, passed: r.summary.passed })) })), order: o.order || null }, junit: gateJunit(dec, sides), exit };
}

// Before any run: could the gate reach significance at all with these N, and (a stored
// baseline) could it see its tolerance at the baseline's spread even if its figures moved as
// one (the most the permutation adjustment allows: each figure at α; after the runs the gate
// judges at the level their measured co-movement leaves)? Throws the one-line refusal.
// Only runs still to be made are spared by it; folders on both sides are judged as they are.
export function precheckGate(o, baseRuns, nCand) {
  const nb = o.paired ? o.repeat : baseRuns ? baseRuns.length : o.repeat;
  if (!gateReachable({ nb, nc: nCand, alpha: o.alpha, paired: o.paired })) {
    refuse(`--repeat ${o.repeat} is not allowed for this gate: ${o.paired ? `${nb} pairs` : `${nb} baseline and ${nCand} candidate runs`} cannot reach significance at α = ${o.alpha} (the smallest p-value is ${o.paired ? `2^-${nb}` : `1/C(${nb + nCand},${nCand})`}); raise --repeat`);
  }
  if (!baseRuns || o.paired || o.candidateFolders) return;
  const figs = sideFigures(baseRuns.map((r) => r.summary));
  const blind = []; const needs = [];
  for (const g of gatedFigures(figs, o.metrics)) {
    const v = g.values.filter((x) => x > 0).map(Math.log);
    const sd = pooledSd([v]);
    const det = detectableRegression({ better: g.better, sd, nb: v.length, nc: nCand, level: o.alpha, paired: false });
    const tol = o.tolerance.byFigure[g.figure] ?? o.tolerance.default;
    if (det === null || det > tol) {
      blind.push(`${g.phase} ${g.label} detects ${det === null ? 'nothing (fewer than 2 baseline runs)' : det === Infinity ? 'nothing' : `≥ ${(det * 100).toFixed(0)} %`} but is allowed ${(tol * 100).toFixed(0)} %`);
      needs.push(runsNeeded({ better: g.better, sd, tol, level: o.alpha, paired: false }));
    }
  }
  if (!blind.length) return;
  // More runs are suggested only when some number of them would do.
  const hopeless = needs.some((n) => n === null);
  const need = hopeless ? 'not even 64 runs per side would at this spread, so more runs do not help' : `at least ${Math.max(...needs)} runs per side would`;
  // The stored baseline keeps its runs: --repeat adds candidate runs only.
  const n = Math.max(...needs);
  const more = hopeless ? '' : `${nb < n ? `a baseline of ${n} runs (REPEAT=${n}) and ` : ''}--repeat ${n}, `;
  refuse(`--max-regression is not allowed for this gate: with ${nb} baseline runs of the measured spread and ${nCand} candidate runs, ${blind.join('; ')} (detects: found with 90 % probability; ${need}); ${more}${steadierAdvice(o.metrics)}or allow more (--max-regression figure=X%)`);
}

// The knobs and environment of a run of scenario side s: per-side knobs win over the shared
// ones; secrets (PG_URL…) travel in the environment, never on a command line; a test server
// (--arango-testserver…) is started once, on first need, into servers.
async function sideRun(o, s, servers) {
  const knobs = new Map(o.env.map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
  const env = { ...process.env };
  for (const [k, v] of Object.entries(o.perRun[s.letter] || {})) knobs.set(k, v);
  // COMPARE_<letter>_<secret knob> of the environment: this side's secret; no side sees another's.
  for (const k of Object.keys(env)) {
    const per = /^COMPARE_([A-H])_(.+)$/.exec(k);
    if (!per || !KNOBS[per[2]] || KNOBS[per[2]].type !== 'secret') continue;
    if (per[1] === s.letter) env[per[2]] = env[k];
    delete env[k];
  }
  knobs.delete('RESULTS_DIR'); knobs.delete('REPEAT');
  let testEndpoint = o.testEndpoints.has(s.letter);
  for (const [db, flag, option, urlKnob, extra] of [['arangodb', 'arangoTestserver', '--arango-testserver', 'ARANGO_URL', ['-no-auth']], ['ravendb', 'ravenTestserver', '--raven-testserver', 'RAVEN_URL', []]]) {
    if (!o[flag] || !new RegExp(`scenarios/${db}/`).test(s.spec)) continue;
    servers[db] ||= await startTestserver(db, option, extra);
    env[urlKnob] = servers[db].url;
    testEndpoint = true;
  }
  return { knobs, env, testEndpoint };
}

// One side's check before any run, the way a run of it would start: the scenario's own
// validation of every knob (scripts/k6-preflight: k6 inspect, the run's -e values; and the
// database URL a private gateway would get), then whether its database (or the GATEWAY_URL
// given) accepts a connection. Seconds; nothing is created or written.
// -> null, or { code: 107 | 108, line }
async function precheckSide(s, knobs, env) {
  const kv = [...knobs].flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  const pf = spawnSync(path.join(root, 'scripts', 'k6-preflight'), [s.spec, ...kv], { env, encoding: 'utf8' });
  const lastLine = (text) => text.trim().split('\n').filter(Boolean).pop() || '';
  // k6's error line, its message unescaped as scripts/junit-exit reads it
  const k6Message = (line) => {
    const m = /level=error msg="((?:[^"\\]|\\.)*)"/.exec(line);
    return m ? m[1].replace(/\\n/g, ' ').replace(/\\"/g, '"').replace(/\\\\/g, '\\').trim() : line;
  };
  if (pf.status !== 0) return { code: pf.status === 107 ? 107 : 108, line: k6Message(lastLine(pf.stderr)) };
  const ownGateway = knobs.get('GATEWAY_URL') || env.GATEWAY_URL;
  if (!ownGateway && needsGateway(s.spec)) {
    const bad = checkGatewayEnv(env, s.spec);
    if (bad) return { code: bad.code, line: lastLine(bad.stderr) };
  }
  const target = scenarioTargets(s.spec)[0]?.name;
  const knob = ownGateway ? 'GATEWAY_URL' : Object.keys(KNOBS).find((k) => knobScope(k).scope === `target:${target}` && (KNOBS[k].type === 'url' || KNOBS[k].url));
  if (!knob) return null;
  const value = knobs.get(knob) ?? env[knob] ?? KNOBS[knob].default;
  const defaultPort = { postgres: 5432, mongodb: 27017 }[target] || (/^https:/i.test(String(value)) ? 443 : 80);
  const why = await unreachable(value, { defaultPort: ownGateway ? (/^https:/i.test(value) ? 443 : 80) : defaultPort });
  return why ? { code: EXIT_ABORTED, line: `${knob}: ${why}` } : null;
}

// ---- main ------------------------------------------------------------------------------------

export async function main(argv) {
  const o = parseArgs(argv);
  if (o.help) { process.stdout.write(usage); return 0; }
  const cmpId = newRunId(o.gate ? 'gate_' : 'cmp_');
  const resultsDir = resultsDirOf('scripts/compare', o.env, process.env, refuse);
  const outDir = o.out || path.join(resultsDir, cmpId);
  // Before any run: a folder the outputs cannot go to is refused now, not after the runs (and
  // not made yet: a refused comparison writes nothing).
  ensureDir(outDir, o.out ? '--out' : 'RESULTS_DIR', { create: false });
  const sides = o.specs.map((spec, i) => {
    const letter = LETTERS[i];
    if (isScenario(spec)) return { letter, spec, scenario: true, runs: [], warmups: [], made: true, interleaved: o.specs.filter(isScenario).length > 1 };
    if (/\.js$/.test(spec) && !existsSync(spec)) refuse(`${spec}: neither a scenario file (*.js) nor a result folder with summary.json`);
    return { letter, spec, scenario: false, runs: runsOfFolders(spec) };
  });
  if (o.gate) {
    // Before any run: reachability from the counts alone, and a stored baseline's spread.
    o.candidateFolders = !sides[1].scenario;
    precheckGate(o, sides[0].scenario ? null : sides[0].runs, sides[1].scenario ? o.repeat : sides[1].runs.length);
  }
  // From here a signal stops the comparison the pack's way: the running scripts/run is told
  // (teardown, summaries), the runs made so far are kept and named, exit 105.
  const stop = stopOnSignals();
  const servers = {};
  const order = runOrder(sides.filter((s) => s.scenario).map((s) => s.letter), o.repeat, o.warmup);
  const made = [];
  try {
    // Before the first run: every scenario side's knobs (the scenario's own validation, 107)
    // and its database's address (a TCP connection, nothing written; 108), so that side B's
    // refusal does not come after side A's minutes.
    for (const s of sides.filter((x) => x.scenario)) {
      if (stop.signal) break;
      const { knobs, env } = await sideRun(o, s, servers);
      const why = await precheckSide(s, knobs, env);
      // (a check cut short by the signal is no refusal: the signal's line below says it; a
      // signal that came during the synchronous k6-preflight is handled on the next turn)
      await new Promise(setImmediate);
      if (why && !stop.signal) { process.stderr.write(`scripts/compare: side ${s.letter} (${s.spec}): ${why.line}; nothing was run\n`); return why.code; }
    }
    for (const [step, run] of order.entries()) {
      if (stop.signal) break;
      const s = sides[LETTERS.indexOf(run.letter)];
      const { knobs, env, testEndpoint } = await sideRun(o, s, servers);
      const runId = `${cmpId}_${run.letter.toLowerCase()}${run.warmup ? 'w' : ''}${String(run.index).padStart(2, '0')}`.slice(0, RUN_ID_MAX);
      const dir = path.join(outDir, runId);
      process.stderr.write(`scripts/compare: run ${step + 1} of ${order.length}: ${run.letter}${run.warmup ? ` warm-up ${run.index}` : ` ${run.index} of ${o.repeat}`}: ${s.spec} (RUN_ID=${runId}; load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')})\n`);
      const args = [path.join(root, 'scripts', 'run'), s.spec, '-q', ...[...knobs].flatMap(([k, v]) => ['-e', `${k}=${v}`]), '-e', `RUN_ID=${runId}`, '-e', `RESULTS_DIR=${outDir}`];
      const status = await new Promise((resolve) => {
        // Detached: a signal reaches it only through stop (once), see stopOnSignals.
        const child = spawn(args[0], args.slice(1), { env: { ...env, RESULTS_DIR: outDir }, stdio: ['ignore', 'ignore', 'inherit'], detached: true });
        stop.child = child;
        child.once('error', () => resolve(null));
        child.once('exit', (code, sig) => resolve(code ?? sig));
      });
      stop.child = null;
      if (stop.signal) {
        made.push(`${runId} (${run.letter}, interrupted: exit ${status}${existsSync(path.join(dir, 'summary.json')) ? '' : ', no summary.json'})`);
        break;
      }
      if (!existsSync(path.join(dir, 'summary.json'))) refuse(`run ${run.letter} (${s.spec}, RUN_ID=${runId}) left no summary.json (k6 exit code ${status}); see the lines above`);
      if (testEndpoint) writeFileAtomic(path.join(dir, TEST_ENDPOINT_MARKER), 'This run wrote to a project API test server, not to the real database.\n');
      const summary = readSummary(dir);
      made.push(`${runId} (${run.letter}${run.warmup ? ' warm-up' : ''}, done)`);
      (run.warmup ? s.warmups : s.runs).push({ summary, source: dir, testEndpoint: isTestEndpoint(dir, summary), order: step + 1 });
    }
  } finally {
    for (const srv of Object.values(servers)) await srv.stop();
  }
  if (stop.signal) {
    const done = made.filter((m) => m.endsWith(', done)')).length;
    process.stderr.write(`scripts/compare: ${stop.signal}: the comparison stopped ${made.length ? `with ${done} of ${order.length} runs done; the runs are kept in ${outDir}: ${made.join(', ')}` : 'before any run: nothing was run'}; no comparison written\n`);
    return EXIT_INTERRUPTED;
  }
  for (const s of sides) {
    s.testEndpoint = s.runs.some((r) => r.testEndpoint);
    s.label = o.labels[s.letter] || s.runs[0].summary.target;
  }
  const same = sides.filter((s) => !o.labels[s.letter]);
  if (new Set(same.map((s) => s.label)).size < same.length) for (const s of same) s.label = `${s.label} ${s.letter}`;
  checkSameWorkload(sides.flatMap((s) => s.runs.map((r, i) => ({ letter: `${s.letter}${s.runs.length > 1 ? i + 1 : ''}`, summary: r.summary }))));
  const phases = sides[0].runs[0].summary.phases.map((p) => p.phase).join(',');
  for (const s of sides) for (const r of s.runs) {
    const own = r.summary.phases.map((p) => p.phase).join(',');
    if (own !== phases) refuse(`refusing to compare runs with different phases: A=${phases} ${s.letter}=${own}`);
  }
  o.order = order.length ? order.map((r, i) => `${r.letter}${r.warmup ? ' (warm-up)' : ''}#${i + 1}`) : null;
  ensureDir(outDir, o.out ? '--out' : 'RESULTS_DIR');
  const cmp = buildComparison(sides, o);
  writeFileAtomic(path.join(outDir, 'compare.json'), `${JSON.stringify(cmp.json, null, 2)}\n`);
  writeFileAtomic(path.join(outDir, 'compare.svg'), cmp.svg);
  if (!o.gate) {
    writeFileAtomic(path.join(outDir, 'compare.txt'), cmp.text);
    process.stdout.write(`${cmp.text}chart: ${path.join(outDir, 'compare.svg')} · table: ${path.join(outDir, 'compare.txt')}\n`);
    return 0;
  }
  const gate = buildGate(sides, o);
  writeFileAtomic(path.join(outDir, 'compare.txt'), cmp.text);
  writeFileAtomic(path.join(outDir, 'gate.txt'), gate.text);
  writeFileAtomic(path.join(outDir, 'gate.json'), `${JSON.stringify(gate.json, null, 2)}\n`);
  writeFileAtomic(path.join(outDir, 'junit.xml'), gate.junit);
  process.stdout.write(`${gate.text}comparison of every figure: ${path.join(outDir, 'compare.txt')} · chart: ${path.join(outDir, 'compare.svg')} · JUnit: ${path.join(outDir, 'junit.xml')}\n`);
  return gate.exit;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  runTool('scripts/compare', () => main(process.argv.slice(2)), [CompareError]);
}
