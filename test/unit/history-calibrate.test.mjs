// Thresholds from measurement (scripts/calibrate.mjs) and the history with Apache Otava's change
// points (scripts/history.mjs), on recorded-shape summaries: the limits are the prediction
// bounds the file's comment promises and a file lib/thresholds.js accepts; the history keeps one
// row per run and phase in series that leave the server's settings out; the real Otava (the
// pinned .run/otava) finds the step of a stepped series and nothing in a flat one, and a split
// that leaves fewer than 3 runs on one side is told as outlier runs or an unconfirmed change; and the
// command lines refuse bad input with one line and exit 107.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseThresholds } from '../../lib/thresholds.js';
import { calibrate } from '../../scripts/calibrate.mjs';
import { COLUMNS, analyze, analysisText, append, classifyChanges, parseCsv, readHistory, rowsOf, seriesKnobs } from '../../scripts/history.mjs';
import { predictionUpper } from '../../scripts/lib/stats.mjs';
import { repoRoot } from '../helpers/testserver.mjs';

function summary({ runId, docs = 50000, p50 = 20, p99 = 40, settings = { fsync: 'on' }, knobs = {}, at = new Date() }) {
  return {
    tool: 'k6-writepath', run_id: runId, target: 'postgres', experiment: 'insert-vs-overwrite', passed: true, started_at: at.toISOString(), test_endpoint: false,
    server: { serverVersion: '15.18', settings }, config: { DOCS: 20000, BATCH_SIZE: 1000, SEED: 1, PG_URL: '(set, not shown)', ...knobs },
    phases: ['load', 'overwrite'].map((phase) => ({ phase, batches: 20, docs_per_s: docs, batch_ms: { median: p50, p99, p90: p99 * 0.9, average: p50 * 1.1 } })),
  };
}
// Deterministic spread (mulberry32) around 1.
function noise(seed) {
  let s = seed >>> 0;
  return () => { s = (s + 0x6d2b79f5) >>> 0; let t = s; t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61); return 0.9 + 0.2 * (((t ^ (t >>> 14)) >>> 0) / 4294967296); };
}

test('calibrated limits: the prediction bounds at the file\'s rate shared among its limits, in a file lib/thresholds.js accepts', () => {
  const r = noise(1);
  const runs = Array.from({ length: 10 }, (_, i) => summary({ runId: `c${i}`, p50: 20 * r(), p99: 40 * r() }));
  const c = calibrate(runs, { rate: 0.01, source: 'results/x', when: '2026-01-01T00:00:00Z', machine: '2 cores' });
  assert.equal(c.k, 4, 'p50 and p99 of two phases');
  assert.equal(c.q, 0.0025);
  for (const phase of ['load', 'overwrite']) {
    const p50s = runs.map((s) => s.phases.find((p) => p.phase === phase).batch_ms.median);
    assert.equal(c.file.phases[phase].batch_p50_ms, Math.ceil(predictionUpper(p50s, 0.0025) * 10) / 10);
    assert.ok(c.file.phases[phase].batch_p50_ms > Math.max(...p50s), 'above every calibration run');
    assert.equal(c.file.phases[phase].failed_docs_max, 0);
  }
  assert.match(c.file.$comment, /^Calibrated by scripts\/calibrate from 10 runs of insert-vs-overwrite on postgres \(results\/x; 2026-01-01T00:00:00Z; 2 cores\)\. /);
  assert.match(c.file.$comment, /an A\/A run of the same workload on the same machine fails this file at most about 1 % of the time/);
  assert.match(c.file.$comment, /What a single run against it still misses: load p50 passes more often than not below \+\d+ %/);
  const parsed = parseThresholds(JSON.stringify(c.file), { path: 'cal.json', phases: ['load', 'overwrite', 'mixed'] });
  assert.deepEqual(Object.keys(parsed.phases), ['load', 'overwrite']);
  // What a single run catches: from r50 on more often than not, from r90 nine times in ten.
  for (const row of c.rows) assert.ok(row.r90 > row.r50 && row.r50 > 0);
  assert.throws(() => calibrate(runs.slice(0, 4)), /4 runs cannot be calibrated from: at least 5/);
});

test('history: one row per run and phase; the series leaves out how the run was reached and the server\'s own settings', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-hist-'));
  const a = summary({ runId: 'h1' }); const b = summary({ runId: 'h2', settings: { fsync: 'off' }, knobs: { RUN_ID: 'h2', TIMEOUT: '5s' } });
  const other = summary({ runId: 'h3', knobs: { DOCS: 30000 } });
  for (const s of [a, b, other]) { mkdirSync(path.join(dir, s.run_id)); writeFileSync(path.join(dir, s.run_id, 'summary.json'), JSON.stringify(s)); }
  const file = path.join(dir, 'history.csv');
  assert.equal(append(file, [a, b, other].map((s) => path.join(dir, s.run_id))), 6);
  assert.equal(append(file, [path.join(dir, 'h1')]), 0, 'a run is added once');
  const rows = readHistory(file);
  assert.deepEqual(parseCsv(readFileSync(file, 'utf8'))[0], COLUMNS);
  assert.deepEqual(rows.map((r) => `${r.run_id} ${r.phase}`), ['h1 load', 'h1 overwrite', 'h2 load', 'h2 overwrite', 'h3 load', 'h3 overwrite']);
  assert.equal(rows[0].series, rows[2].series, 'another server setting, RUN_ID or TIMEOUT: the same series');
  assert.notEqual(rows[0].series, rows[4].series, 'another DOCS: another series');
  assert.deepEqual([rows[0].settings, rows[2].settings], ['fsync=on', 'fsync=off']);
  assert.equal(Number(rows[1].docs_per_s), 50000);
  assert.ok(!('PG_URL' in seriesKnobs(a)), 'no URL or secret in the history');
  assert.equal(rowsOf(a).length, 2);
});

test('Apache Otava finds the step of a stepped series (with what changed on the server) and none in a flat one', () => {
  const r = noise(2);
  const now = Date.now();
  const at = (i) => new Date(now - (40 - i) * 60000);
  const flat = Array.from({ length: 24 }, (_, i) => summary({ runId: `f${i}`, knobs: { DOCS: 11111 }, docs: 50000 * r(), p50: 20 * r(), p99: 40 * r(), at: at(i) }));
  const stepped = Array.from({ length: 24 }, (_, i) => summary({ runId: `s${i}`, knobs: { DOCS: 22222 }, docs: (i < 12 ? 50000 : 35000) * r(), p50: (i < 12 ? 20 : 28) * r(), p99: 40 * r(), settings: { fsync: i < 12 ? 'on' : 'off' }, at: at(i) }));
  const rows = [...flat, ...stepped].flatMap(rowsOf).filter((x) => x.phase === 'overwrite');
  const work = mkdtempSync(path.join(tmpdir(), 'k6wp-otava-'));
  const result = analyze(rows, { work, pValue: 0.001 });
  const f = result.find((s) => s.rows[0].run_id === 'f0');
  const s = result.find((x) => x.rows[0].run_id === 's0');
  assert.equal(f.analysed, true);
  assert.deepEqual(f.changes, [], 'no change point in the flat series');
  const docs = s.changes.find((c) => c.metric === 'docs_per_s');
  assert.ok(docs, JSON.stringify(s.changes));
  assert.equal(docs.run_id, 's12', 'the step starts at the first run after the change');
  assert.ok(docs.forward_change_percent < -20 && docs.pvalue <= 0.001);
  assert.deepEqual([docs.before.settings, docs.after.settings], ['fsync=on', 'fsync=off']);
});

test('one slow run is no step: Otava splits off a slow first run and a change at the last 2 runs; the history tells them as an outlier and an unconfirmed change', () => {
  const r = noise(3);
  const now = Date.now();
  const at = (i) => new Date(now - (40 - i) * 60000);
  // p99 of the first run 2.5x the rest (recorded 2026-11-25: 78 ms against 31 ms in an A/A history).
  const first = Array.from({ length: 24 }, (_, i) => summary({ runId: `o${i}`, knobs: { DOCS: 33333 }, docs: 50000 * r(), p50: 20 * r(), p99: (i === 0 ? 100 : 40) * r(), at: at(i) }));
  const end = Array.from({ length: 24 }, (_, i) => summary({ runId: `e${i}`, knobs: { DOCS: 44444 }, docs: (i >= 22 ? 30000 : 50000) * r(), p50: 20 * r(), p99: 40 * r(), at: at(i) }));
  const rows = [...first, ...end].flatMap(rowsOf).filter((x) => x.phase === 'overwrite');
  const result = analyze(rows, { work: mkdtempSync(path.join(tmpdir(), 'k6wp-otava-')), pValue: 0.001 });
  const o = result.find((s) => s.rows[0].run_id === 'o0');
  const e = result.find((s) => s.rows[0].run_id === 'e0');
  assert.deepEqual(o.otava.map((c) => [c.metric, c.index]), [['p99_ms', 1]], 'Otava itself splits the first run off');
  assert.deepEqual(o.changes, [], 'no step');
  assert.deepEqual(o.outliers.map((x) => [x.metric, x.from, x.to]), [['p99_ms', 0, 0]]);
  assert.ok(o.outliers[0].value > 2 * o.outliers[0].around, JSON.stringify(o.outliers));
  assert.deepEqual(e.otava.map((c) => [c.metric, c.index]), [['docs_per_s', 22]], 'Otava itself finds the change at the last 2 runs');
  assert.deepEqual(e.changes, []);
  assert.deepEqual(e.unconfirmed.map((c) => [c.metric, c.index, c.runs_after]), [['docs_per_s', 22, 2]]);
  const text = analysisText(result, { file: 'h.csv', pValue: 0.001, magnitude: 0.1, minRuns: 6, minSegment: 3 });
  assert.match(text, /outlier run 1 of 24 \(o0, [^)]*\): p99 ms \d+\.\d against \d+\.\d around it/);
  assert.match(text, /unconfirmed change at run 23 of 24 \(e22, [^)]*\): docs\/s -\d+(\.\d+)? % .* 2 runs after it/);
  assert.equal((text.match(/^ {2}change point at/gm) || []).length, 0, text);
  // --min-segment 1: Otava's change points as they are.
  const raw = analyze(rows, { work: mkdtempSync(path.join(tmpdir(), 'k6wp-otava-')), pValue: 0.001, minSegment: 1 });
  assert.deepEqual(raw.flatMap((s) => s.changes.map((c) => [c.run_id, c.metric])), [['o1', 'p99_ms'], ['e22', 'docs_per_s']]);
});

test('classifyChanges: a slow run in the middle, a step beside it, several short stretches at the end', () => {
  const rows = Array.from({ length: 20 }, (_, i) => ({ docs_per_s: i === 5 ? 10 : i >= 12 ? 70 : 100, p50_ms: 10, p99_ms: 20 }));
  const cp = (metric, index) => ({ metric, index, run_id: `r${index}` });
  // Otava-shaped: splits at 5 and 6 (run 6 alone), and at 12 (a step, 8 runs after).
  const c = classifyChanges(rows, [cp('docs_per_s', 12), cp('docs_per_s', 5), cp('docs_per_s', 6)], 3);
  assert.deepEqual(c.steps.map((x) => x.index), [12]);
  assert.deepEqual(c.outliers.map((x) => [x.from, x.to, x.value, x.around]), [[5, 5, 10, 100]]);
  assert.deepEqual(c.unconfirmed, []);
  // Two short stretches at the end (17–18, 19): one unconfirmed change at 17 with 3 runs after it
  // is a step; at 18 with 2 runs after it, unconfirmed.
  assert.deepEqual(classifyChanges(rows, [cp('p99_ms', 17), cp('p99_ms', 19)], 3).steps.map((x) => x.index), [17]);
  const u = classifyChanges(rows, [cp('p99_ms', 18), cp('p99_ms', 19)], 3);
  assert.deepEqual([u.steps, u.outliers, u.unconfirmed.map((x) => [x.index, x.runs_after])], [[], [], [[18, 2]]]);
  // minSegment 1: every change point is a step.
  assert.deepEqual(classifyChanges(rows, [cp('docs_per_s', 5), cp('docs_per_s', 6)], 1).steps.map((x) => x.index), [5, 6]);
});

test('bad input of the verdict commands: one line, exit 107', () => {
  const cases = [
    ['compare', ['--alpha', '2', 'a', 'b'], /^scripts\/compare: --alpha 2 is not allowed: a significance level above 0 and at most 0\.2, such as 0\.05 or 5%\n$/],
    ['compare', ['--gate', '--baseline', 'results/none', '--max-regression', '10', 'x.js'], /^scripts\/compare: --max-regression "10" is not allowed: a share in percent such as 10%/],
    ['compare', ['--gate', '--baseline', 'results/none', 'scenarios/postgres/insert-vs-overwrite.js'], /^scripts\/compare: --baseline results\/none is not allowed/],
    ['compare', ['--repeat', 'five', 'a', 'b'], /^scripts\/compare: --repeat five is not allowed: a whole number from 1 to 99\n$/],
    ['calibrate', ['--repeat', '3', 'scenarios/postgres/insert-vs-overwrite.js'], /^scripts\/calibrate: --repeat 3 is not allowed: a whole number from 5 to 99/],
    ['calibrate', ['--false-alarm', '50%', 'x.js'], /^scripts\/calibrate: --false-alarm 50% is not allowed/],
    ['history', ['analyze', '--p-value', '2'], /^scripts\/history: --p-value 2 is not allowed/],
    ['history', ['analyze', '--min-segment', '0'], /^scripts\/history: --min-segment 0 is not allowed: a whole number of runs from 1/],
  ];
  for (const [cmd, args, re] of cases) {
    const r = spawnSync(path.join(repoRoot, 'scripts', cmd), args, { cwd: repoRoot, encoding: 'utf8', env: { ...process.env, K6: '/bin/false' } });
    assert.equal(r.status, 107, `${cmd} ${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, re);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  }
});
