// scripts/compare: one workload on several targets (or two endpoints of one kind, like E3's two
// server versions), side by side in E3's shape `phase | metric | A | B | A/B`, plus an SVG chart.
// Runs are scenario files (run now, one at a time, through scripts/run) or result folders
// (their summary.json, used as they are). Runs whose workload settings differ are refused.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { KNOBS, knobScope, newRunId } from '../lib/config.js';
import { groupedBars } from '../lib/svg-chart.js';
import { cliSecretLine, isCliSecret } from './cli-secrets.mjs';
import { fmt } from '../lib/format.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const LETTERS = 'ABCDEFGH';
// The settings two runs must share: the knobs of scope 'workload' (lib/config.js knobScope).
// Knobs of scope 'run' (how a run was made or checked) and 'target:<db>' (how one database
// stores it) may differ, and so may values derived from knobs (timeoutMs).
const WORKLOAD_KNOBS = Object.keys(KNOBS).filter((k) => knobScope(k).scope === 'workload');
// Marker a comparison leaves in the result folder of a run it made against a test server.
export const TEST_ENDPOINT_MARKER = 'TEST-ENDPOINT';

export class CompareError extends Error {
  constructor(msg, code = 2) { super(msg); this.code = code; }
}
const refuse = (msg, code) => { throw new CompareError(msg, code); };


const show = (v) => (Array.isArray(v) ? v.join(',') : JSON.stringify(v));

// A workload knob missing from a summary (written before the knob was read on its target)
// had its default.
export function workloadSettings(summary) {
  const out = { experiment: summary.experiment, ops: summary.ops || null };
  const cfg = summary.config || {};
  for (const k of WORKLOAD_KNOBS) out[k] = cfg[k] !== undefined ? cfg[k] : KNOBS[k].default;
  return out;
}

// One line naming every setting that differs, or nothing.
export function checkSameWorkload(runs) {
  const settings = runs.map((r) => workloadSettings(r.summary));
  const keys = [...new Set(settings.flatMap((s) => Object.keys(s)))].sort();
  const diffs = [];
  for (const k of keys) {
    const vals = settings.map((s) => show(s[k]));
    if (new Set(vals).size > 1) diffs.push(`${k} ${runs.map((r, i) => `${r.letter}=${vals[i] === undefined ? '(unset)' : vals[i]}`).join(' ')}`);
  }
  if (diffs.length) refuse(`refusing to compare runs with different workload settings: ${diffs.join('; ')}`);
}

export const METRICS = [
  ['p50 ms', (p) => p.batch_ms.median, 1],
  ['p99 ms', (p) => p.batch_ms.p99, 1],
  ['docs/s', (p) => p.docs_per_s, 0],
];

// -> { text, json, svg }
export function buildComparison(runs) {
  checkSameWorkload(runs);
  const phases = runs[0].summary.phases.map((p) => p.phase);
  for (const r of runs) {
    const own = r.summary.phases.map((p) => p.phase).join(',');
    if (own !== phases.join(',')) refuse(`refusing to compare runs with different phases: A=${phases.join(',')} ${r.letter}=${own}`);
  }
  const title = (r) => `${r.label}${r.testEndpoint ? ' (TEST ENDPOINT)' : ''}`;
  const lines = [];
  const s0 = runs[0].summary;
  lines.push(`k6-writepath comparison · ${s0.experiment}`);
  const c = s0.config || {};
  const e3 = runs.every((r) => r.summary.e3);
  lines.push(e3
    ? `workload: arangobench case ${c.ARANGOBENCH_CASE} · complexity ${c.COMPLEXITY} · ${c.REQUESTS} operations · ${c.VUS} VUs · seed ${c.SEED} (identical in every run)`
    : `workload: ${c.VUS} VUs · batches of ${c.BATCH_SIZE} · DOCS ${c.DOCS} · ${c.DOC_SHAPE} documents · keys ${c.KEY_DIST} · seed ${c.SEED} · phases ${phases.join(',')} (identical in every run)`);
  for (const r of runs) {
    const srv = r.summary.server ? (r.summary.server.serverVersion || r.summary.server.version) : 'setup did not finish';
    const verdict = r.summary.passed ? 'thresholds passed' : 'thresholds FAILED';
    const v = r.summary.verification || {};
    // (v.ok: summary.json's verdict; results written before it existed carry only the parts)
    const verified = v.ran ? ((v.ok ?? (v.count_ok && v.readback_ok)) ? 'verified' : 'verification FAILED') : 'not verified';
    lines.push(`${r.letter}: ${title(r)} · ${r.summary.target} · ${srv} · run ${r.summary.run_id} · ${verdict} · ${verified} · ${r.source}`);
  }
  if (runs.some((r) => r.testEndpoint)) {
    lines.push('TEST ENDPOINT: an API test server of this project (test/servers), not the real database; its figures check the pack, they are no benchmark.');
  }
  lines.push('');
  const others = runs.slice(1);
  const ratioOf = (a, b) => (typeof a === 'number' && typeof b === 'number' && b > 0 ? a / b : null);
  const align = (head, rows, leftCols) => {
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
    const line = (cells) => cells.map((cell, i) => (i < leftCols ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join(' | ');
    return [line(head), widths.map((w) => '-'.repeat(w)).join('-|-'), ...rows.map(line)];
  };
  let e3json = null;
  if (e3) {
    // E3's own table: Complexity | Requests | Concurrency | Time A | Time B | A/B (total wall time
    // of all operations, as arangobench reports it), plus ops/s.
    const x = runs.map((r) => r.summary.e3);
    const head = ['Complexity', 'Requests', 'Concurrency', ...runs.map((r) => `Time ${r.letter} (s)`), ...others.map((r) => `A/${r.letter}`),
      ...runs.map((r) => `ops/s ${r.letter}`)];
    const row = [String(x[0].complexity), String(x[0].requests), String(x[0].concurrency), ...x.map((e) => fmt(e.time_s, 2)),
      ...others.map((_, i) => fmt(ratioOf(x[0].time_s, x[i + 1].time_s), 2)), ...x.map((e) => fmt(e.ops_per_s, 0))];
    lines.push(...align(head, [row], 0));
    for (const [i, e] of x.entries()) {
      if (e.requests_done !== e.requests || e.failed_operations > 0) lines.push(`${runs[i].letter}: ${e.requests_done} of ${e.requests} operations done, ${e.failed_operations} failed`);
    }
    lines.push('');
    lines.push('Time: wall time of all operations (first start to last end), in seconds; A/B < 1: A is faster. Per phase:');
    lines.push('');
    e3json = { complexity: x[0].complexity, requests: x[0].requests, concurrency: x[0].concurrency, test_case: x[0].test_case,
      time_s: Object.fromEntries(runs.map((r, i) => [r.letter, x[i].time_s])), ops_per_s: Object.fromEntries(runs.map((r, i) => [r.letter, x[i].ops_per_s])),
      ratios: Object.fromEntries(others.map((r, i) => [`A/${r.letter}`, ratioOf(x[0].time_s, x[i + 1].time_s)])) };
  }
  const head = ['phase', 'metric', ...runs.map((r) => r.letter), ...others.map((r) => `A/${r.letter}`)];
  const rows = [];
  const table = [];
  for (const ph of phases) {
    for (const [name, get, digits] of METRICS) {
      const vals = runs.map((r) => get(r.summary.phases.find((p) => p.phase === ph)));
      const ratios = others.map((_, i) => (typeof vals[0] === 'number' && typeof vals[i + 1] === 'number' && vals[i + 1] > 0 ? vals[0] / vals[i + 1] : null));
      rows.push([ph, name, ...vals.map((v) => fmt(v, digits)), ...ratios.map((x) => fmt(x, 2))]);
      table.push({ phase: ph, metric: name, values: Object.fromEntries(runs.map((r, i) => [r.letter, vals[i]])), ratios: Object.fromEntries(others.map((r, i) => [`A/${r.letter}`, ratios[i]])) });
    }
  }
  lines.push(...align(head, rows, 2));
  lines.push('');
  lines.push('p50/p99: time per batch (ms); docs/s: acknowledged documents per second of phase wall time; A/B < 1: A is faster (ms) or slower (docs/s).');
  const text = `${lines.join('\n')}\n`;

  const legend = (r) => `${r.letter}: ${title(r)}`;
  // One colour per run (A, B, …) in every group, as in E3's charts: groups are phase × statistic.
  const stats = [['p50', 'median'], ['p99', 'p99']];
  const latency = groupedBars({
    title: e3 ? 'Time per operation: p50 and p99' : 'Time per batch: p50 and p99', unit: 'ms', groups: phases.flatMap((ph) => stats.map(([n]) => `${ph} ${n}`)),
    series: runs.map((r) => ({ name: legend(r), values: r.summary.phases.flatMap((p) => stats.map(([, k]) => p.batch_ms[k])) })),
    width: 760, height: 300,
  });
  const rate = e3
    ? groupedBars({ title: 'Total time (E3)', unit: 's', groups: [`complexity ${runs[0].summary.e3.complexity}`],
      series: runs.map((r) => ({ name: legend(r), values: [r.summary.e3.time_s] })), width: 760, height: 280 })
    : groupedBars({
      title: 'Documents written per second', unit: 'docs/s', groups: phases,
      series: runs.map((r) => ({ name: legend(r), values: r.summary.phases.map((p) => p.docs_per_s) })), width: 760, height: 280,
    });
  const h1 = Number(/height="(\d+)"/.exec(latency)[1]); const h2 = Number(/height="(\d+)"/.exec(rate)[1]);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="760" height="${h1 + h2 + 10}" viewBox="0 0 760 ${h1 + h2 + 10}">\n` +
    `<rect width="100%" height="100%" fill="white"/>\n${latency.replace('<svg ', '<svg y="0" ')}\n${rate.replace('<svg ', `<svg y="${h1 + 10}" `)}\n</svg>\n`;
  const json = {
    tool: 'k6-writepath compare', experiment: s0.experiment, phases,
    runs: runs.map((r) => ({ letter: r.letter, label: r.label, test_endpoint: r.testEndpoint, target: r.summary.target, run_id: r.summary.run_id, source: r.source, passed: r.summary.passed })),
    table,
    ...(e3json ? { e3: e3json } : {}),
  };
  return { text, json, svg };
}

function readSummary(dir) {
  const file = path.join(dir, 'summary.json');
  if (!existsSync(file)) refuse(`${dir}: no summary.json (not a result folder of a finished run)`);
  return JSON.parse(readFileSync(file, 'utf8'));
}

export function parseArgs(argv) {
  const o = { specs: [], env: [], perRun: {}, labels: {}, testEndpoints: new Set(), arangoTestserver: false, out: null, k6args: [] };
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
        refuse(cliSecretLine(`${m ? `${m[1]}:` : ''}${kv[0]}`, m ? `export COMPARE_${m[1]}_${kv[0]}=… in the environment (run ${m[1]} only)` : `export ${kv[0]}=… in the environment (every run)`), 107);
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
    else if (a === '-h' || a === '--help') o.help = true;
    else if (a.startsWith('-')) refuse(`unknown option ${a} (see scripts/compare --help)`);
    else o.specs.push(a);
  }
  if (!o.help && o.specs.length < 2) refuse('give at least two runs: scenario files and/or result folders');
  if (o.specs.length > LETTERS.length) refuse(`at most ${LETTERS.length} runs`);
  for (const l of [...Object.keys(o.perRun), ...Object.keys(o.labels), ...o.testEndpoints]) {
    if (LETTERS.indexOf(l) >= o.specs.length) refuse(`run ${l} is named in an option but only ${o.specs.length} runs were given`);
  }
  return o;
}

// An API test server of the project (bin/<db>-testserver) on a port the OS picks.
async function startTestserver(db, option, extra = []) {
  const bin = path.join(root, 'bin', `${db}-testserver`);
  if (!existsSync(bin)) refuse(`${option}: bin/${db}-testserver is missing (make testservers)`);
  const proc = spawn(bin, ['-addr', '127.0.0.1:0', ...extra], { stdio: ['ignore', 'pipe', 'inherit'] });
  const rl = readline.createInterface({ input: proc.stdout });
  const url = await new Promise((resolve, reject) => {
    rl.once('line', (l) => { const m = /listening on (http:\/\/\S+)/.exec(l); if (m) resolve(m[1]); else reject(new CompareError(`${db}-testserver said: ${l}`)); });
    proc.once('exit', (c) => reject(new CompareError(`${db}-testserver exited with ${c}`)));
  });
  rl.on('line', () => {});
  return { url, stop: () => proc.kill('SIGTERM') };
}

const usage = `usage: scripts/compare [options] RUN RUN [RUN…]
  RUN                 a scenario file (run now through scripts/run, one at a time) or a result folder (summary.json)
  -e KNOB=value       for every scenario run;   -e B:KNOB=value  only for run B (A, B, C… by position)
                      secrets only in the environment: PG_URL=… for every run, COMPARE_B_PG_URL=… for run B
  --label A=name      column name (default: the target)
  --test-endpoint B   label run B as a test endpoint (runs against a project test server)
  --arango-testserver run ArangoDB scenarios against bin/arangodb-testserver (labelled TEST ENDPOINT)
  --raven-testserver  run RavenDB scenarios against bin/ravendb-testserver (labelled TEST ENDPOINT)
  --out DIR           where compare.txt/.json/.svg go (default results/cmp_<time>)
examples:
  scripts/compare -e DOCS=50000 scenarios/postgres/insert-vs-overwrite.js scenarios/arangodb/insert-vs-overwrite.js
  COMPARE_B_PG_URL='postgres://u:…@db16:5432/x' scripts/compare --label A=pg15 --label B=pg16 scenarios/postgres/insert-vs-overwrite.js scenarios/postgres/insert-vs-overwrite.js
  scripts/compare results/20260101120000_ab12 results/20260101121500_cd34
  scripts/compare --arango-testserver --raven-testserver scenarios/{postgres,mongodb,arangodb,ravendb}/insert-vs-overwrite.js
`;

export async function main(argv) {
  const o = parseArgs(argv);
  if (o.help) { process.stdout.write(usage); return 0; }
  const cmpId = newRunId('cmp_');
  // Like every knob: -e RESULTS_DIR=… (wins) or the environment.
  const fromE = o.env.filter((e) => e.startsWith('RESULTS_DIR=')).pop();
  const resultsDir = (fromE && fromE.slice('RESULTS_DIR='.length)) || process.env.RESULTS_DIR || 'results';
  const outDir = o.out || path.join(resultsDir, cmpId);
  let arango = null;
  let raven = null;
  const runs = [];
  try {
    for (let i = 0; i < o.specs.length; i++) {
      const letter = LETTERS[i];
      const spec = o.specs[i];
      let dir; let testEndpoint = o.testEndpoints.has(letter);
      if (existsSync(spec) && existsSync(path.join(spec, 'summary.json'))) {
        dir = spec;
      } else if (/\.js$/.test(spec) && existsSync(spec)) {
        // Per-run knobs win over the shared ones; secrets (PG_URL…) travel in the environment,
        // never on a command line.
        const knobs = new Map(o.env.map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
        const env = { ...process.env };
        for (const [k, v] of Object.entries(o.perRun[letter] || {})) knobs.set(k, v);
        // COMPARE_<letter>_<secret knob> of the environment: this run's secret; no run sees another's.
        for (const k of Object.keys(env)) {
          const per = /^COMPARE_([A-H])_(.+)$/.exec(k);
          if (!per || !KNOBS[per[2]] || KNOBS[per[2]].type !== 'secret') continue;
          if (per[1] === letter) env[per[2]] = env[k];
          delete env[k];
        }
        if (o.arangoTestserver && /scenarios\/arangodb\//.test(spec)) {
          arango ||= await startTestserver('arangodb', '--arango-testserver', ['-no-auth']);
          env.ARANGO_URL = arango.url;
          testEndpoint = true;
        }
        if (o.ravenTestserver && /scenarios\/ravendb\//.test(spec)) {
          raven ||= await startTestserver('ravendb', '--raven-testserver');
          env.RAVEN_URL = raven.url;
          testEndpoint = true;
        }
        const runId = `${cmpId}_${letter.toLowerCase()}`.slice(0, 32);
        dir = path.join(resultsDir, runId);
        process.stderr.write(`scripts/compare: run ${letter}: ${spec} (RUN_ID=${runId})\n`);
        const args = [path.join(root, 'scripts', 'run'), spec, '-q', ...[...knobs].flatMap(([k, v]) => ['-e', `${k}=${v}`]), '-e', `RUN_ID=${runId}`];
        const r = spawnSync(args[0], args.slice(1), { env: { ...env, RESULTS_DIR: resultsDir }, stdio: ['ignore', 'ignore', 'inherit'] });
        if (!existsSync(path.join(dir, 'summary.json'))) refuse(`run ${letter} (${spec}) left no summary.json (k6 exit code ${r.status}); see the lines above`);
        if (testEndpoint) writeFileSync(path.join(dir, TEST_ENDPOINT_MARKER), 'This run wrote to a project API test server, not to the real database.\n');
      } else {
        refuse(`${spec}: neither a scenario file (*.js) nor a result folder with summary.json`);
      }
      const summary = readSummary(dir);
      if (existsSync(path.join(dir, TEST_ENDPOINT_MARKER)) || (summary.server && summary.server.testEndpoint === true)) testEndpoint = true;
      runs.push({ letter, summary, source: dir, testEndpoint, label: o.labels[letter] || summary.target });
    }
  } finally {
    if (arango) arango.stop();
    if (raven) raven.stop();
  }
  const same = runs.filter((r) => !o.labels[r.letter]);
  if (new Set(same.map((r) => r.label)).size < same.length) for (const r of same) r.label = `${r.label} ${r.letter}`;
  const cmp = buildComparison(runs);
  mkdirSync(outDir, { recursive: true });
  writeFileSync(path.join(outDir, 'compare.txt'), cmp.text);
  writeFileSync(path.join(outDir, 'compare.json'), `${JSON.stringify(cmp.json, null, 2)}\n`);
  writeFileSync(path.join(outDir, 'compare.svg'), cmp.svg);
  process.stdout.write(`${cmp.text}chart: ${path.join(outDir, 'compare.svg')} · table: ${path.join(outDir, 'compare.txt')}\n`);
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  main(process.argv.slice(2)).then((code) => process.exit(code), (e) => {
    if (e instanceof CompareError) { process.stderr.write(`scripts/compare: ${e.message}\n`); process.exit(e.code); }
    throw e;
  });
}
