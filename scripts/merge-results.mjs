#!/usr/bin/env node
// Merged result of a distributed run (docs/scale-out.md): every k6 instance evaluates its own
// thresholds on its own part, so the figures and limits that must hold for the whole run are
// computed here from the instances' raw points in InfluxDB (same testid, one instance_id each):
//   node scripts/merge-results.mjs --testid <RUN_ID> [--instances N] [--thresholds file] [--out dir] [--influx URL]
// Per phase: batches, docs ok/failed, docs/s over the union wall time (first batch start of
// any instance to last batch end of any instance), and batch-time min/median/avg/p90/p99/max
// over the RAW values of all instances (InfluxQL percentile(): nearest rank, where k6
// interpolates; never an average of the instances' percentiles). Verification: the points of
// the DISTRIBUTED=verify run (expected vs found) with the read-back the instances' VUs did
// after their last batches (summed), or, without a planned count (bulk-insert), found vs the
// acknowledged new documents of all instances — judged by lib/verdict.js, as a single run is.
// Exit: 0, 99 when a threshold or the verification failed, 1 when the data is not there.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { readRunEnv } from './run-env.mjs';
import { M as L } from '../lib/metric-names.js';
import { LATENCY, parseThresholds } from '../lib/thresholds.js';
import { fmt } from '../lib/format.js';
import { countBasis, verificationVerdict } from '../lib/verdict.js';
import { repoRoot as root, toolKnob } from './lib/kit.mjs';

// The pack's metric names and threshold keys come from lib/ (one home each); COLUMN names the
// columns of this script's own latency query for each k6 aggregation a threshold key uses.
const M = {
  batch: L.batchDuration, ok: L.docsOk, fresh: L.docsNew, failed: L.docsFailed, batchFailed: L.batchFailed, clock: L.phaseClock,
  expected: L.verifyExpected, found: L.verifyFound, error: L.verifyError, checked: L.readbackChecked, stale: L.readbackStale, excused: L.readbackExcused,
  unacknowledged: L.readbackUnacknowledged, rbUndetermined: L.readbackUndetermined, resolved: L.readbackResolved, undetermined: L.docsUndetermined, ackMax: L.verifyUnaccountedMax,
};
const COLUMN = { avg: 'avg', med: 'p50', 'p(90)': 'p90', 'p(95)': 'p95', 'p(99)': 'p99', max: 'max' };

function die(msg, code = 1) { console.error(`merge-results: ${msg}`); process.exit(code); }

function influxUrl(given) {
  if (given) return given;
  // Empty is unset for k6 (no InfluxDB): the instances streamed nowhere, so .run/env's would be the wrong one.
  if (process.env.INFLUX_URL === '') return die('no InfluxDB: INFLUX_URL is empty, so the instances streamed no metrics; a distributed run merges them from InfluxDB (set INFLUX_URL)');
  const local = toolKnob('merge-results', process.env, 'INFLUX_URL') || toolKnob('merge-results', readRunEnv(), 'INFLUX_URL');
  if (local) return local;
  return die('no InfluxDB: pass --influx http://host:port/db or set INFLUX_URL');
}

export async function query(url, q) {
  const u = new URL(url);
  const db = u.pathname.replace(/^\//, '') || 'k6';
  const auth = u.username ? { Authorization: `Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64')}` } : {};
  const res = await fetch(`${u.origin}/query?db=${encodeURIComponent(db)}&q=${encodeURIComponent(q)}`, { headers: auth });
  if (!res.ok) throw new Error(`InfluxDB ${res.status}: ${await res.text()}`);
  const body = await res.json();
  const r = body.results[0];
  if (r.error) throw new Error(`InfluxDB: ${r.error} (${q})`);
  // -> [{ name, tags, row: {column: value} }] (one row per series: every query aggregates)
  return (r.series || []).map((s) => ({ name: s.name, tags: s.tags || {}, row: Object.fromEntries(s.columns.map((c, i) => [c, s.values[0][i]])) }));
}

const esc = (s) => String(s).replace(/\\/g, '\\\\').replace(/'/g, "\\'");

export async function merge({ influx, testid }) {
  const w = `WHERE testid='${esc(testid)}'`;
  const lat = await query(influx, `SELECT count(value) AS n, min(value) AS min, percentile(value, 50) AS p50, mean(value) AS avg,
    percentile(value, 90) AS p90, percentile(value, 95) AS p95, percentile(value, 99) AS p99, max(value) AS max FROM ${M.batch} ${w} GROUP BY phase`);
  const perInstance = await query(influx, `SELECT count(value) AS n FROM ${M.batch} ${w} GROUP BY phase, instance_id`);
  const ok = await query(influx, `SELECT sum(value) AS v FROM ${M.ok} ${w} GROUP BY phase, op`);
  const fresh = await query(influx, `SELECT sum(value) AS v FROM ${M.fresh} ${w} GROUP BY phase`);
  const failed = await query(influx, `SELECT sum(value) AS v FROM ${M.failed} ${w} GROUP BY phase, reason`);
  const undeterminedByPhase = await query(influx, `SELECT sum(value) AS v FROM ${M.undetermined} ${w} GROUP BY phase`);
  const knownByPhase = await query(influx, `SELECT sum(value) AS v FROM ${L.docsFailedKnown} ${w} GROUP BY phase`);
  const rate = await query(influx, `SELECT mean(value) AS v FROM ${M.batchFailed} ${w} GROUP BY phase`);
  const clock = await query(influx, `SELECT min(value) AS a, max(value) AS b FROM ${M.clock} ${w} GROUP BY phase`);
  const verify = await query(influx, `SELECT last(value) AS v FROM ${M.expected}, ${M.found}, ${M.error} ${w}`);
  // The read-back: Counters every instance's VUs add after their last batch (lib/readback.js);
  // the documents that may be stored after all, and the most the acknowledged ones may be.
  const readback = await query(influx, `SELECT sum(value) AS v FROM ${M.checked}, ${M.stale}, ${M.excused}, ${M.unacknowledged}, ${M.rbUndetermined}, ${M.resolved}, ${M.undetermined}, ${M.ackMax} ${w}`);
  // Open model: batches no instance could start on schedule (k6's own metric).
  const dropped = await query(influx, `SELECT sum(value) AS v FROM dropped_iterations ${w}`);

  const phases = clock.sort((x, y) => x.row.a - y.row.a).map((s) => s.tags.phase);
  const by = (rows, phase) => rows.filter((s) => s.tags.phase === phase);
  const instances = [...new Set(perInstance.map((s) => s.tags.instance_id || '(none)'))].sort();
  const rows = phases.map((phase) => {
    const l = (by(lat, phase)[0] || { row: {} }).row;
    const c = by(clock, phase)[0].row;
    const docsOk = by(ok, phase).reduce((a, s) => a + s.row.v, 0);
    const wall = (c.b - c.a) / 1000;
    const reasons = Object.fromEntries(by(failed, phase).filter((s) => s.row.v > 0).map((s) => [s.tags.reason, s.row.v]));
    const docsFailed = Object.values(reasons).reduce((a, b) => a + b, 0);
    const undetermined = (by(undeterminedByPhase, phase)[0] || { row: { v: 0 } }).row.v;
    return {
      phase, op: (by(ok, phase)[0] || { tags: {} }).tags.op || '-',
      batches: l.n || 0,
      batches_by_instance: Object.fromEntries(by(perInstance, phase).map((s) => [s.tags.instance_id || '(none)', s.row.n])),
      docs_ok: docsOk, docs_new: (by(fresh, phase)[0] || { row: { v: 0 } }).row.v,
      docs_failed: docsFailed, failed_by_reason: reasons,
      docs_undetermined: undetermined,
      docs_failed_known: by(knownByPhase, phase)[0] ? by(knownByPhase, phase)[0].row.v : docsFailed - undetermined,
      failed_batches_rate: (by(rate, phase)[0] || { row: { v: 0 } }).row.v,
      wall_s: wall, docs_per_s: wall > 0 ? docsOk / wall : null,
      batch_ms: { min: l.min, p50: l.p50, avg: l.avg, p90: l.p90, p95: l.p95, p99: l.p99, max: l.max },
    };
  });
  const v = Object.fromEntries([...verify, ...readback].map((s) => [s.name, s.row.v]));
  const verification = v[M.found] === undefined ? null : mergedVerification(v, rows);
  // The run-wide resolved failures as a single run has them (lib/metrics.js docsFailedResolved):
  // the instances' sums less the documents the verify step found, which no instance could see.
  const resolved = await query(influx, `SELECT sum(value) AS v FROM ${L.docsFailedResolved} ${w}`);
  if (verification && resolved.length) verification.failed_resolved = resolved[0].row.v - v[M.found];
  // Instances that wrote to a project API test server tagged their points test_endpoint=true
  // (lib/test-endpoint.js): the merged result says so too.
  const tep = await query(influx, `SELECT count(value) AS n FROM ${M.batch} ${w} AND test_endpoint='true'`);
  const testEndpoint = tep.some((x) => x.row.n > 0);
  return { testid, instances, test_endpoint: testEndpoint, phases: rows, dropped_iterations: dropped.length ? dropped[0].row.v : 0, verification };
}

// The union judged as a whole run is (lib/verdict.js) on the instances' summed counts: against
// the plan when the verify step recorded one, else against the acknowledged new documents,
// a range when failures may have stored documents.
export function mergedVerification(v, rows) {
  const n = (name) => v[name] || 0;
  const byPlan = v[M.expected] !== undefined ? v[M.expected] : null;
  const checked = n(M.checked);
  const verdict = verificationVerdict({
    found: v[M.found], error: v[M.error] === 1, expectedByPlan: byPlan, mismatch: byPlan === null ? null : Math.abs(v[M.found] - byPlan),
    acknowledged: rows.reduce((a, row) => a + row.docs_new, 0), acknowledgedMax: v[M.ackMax] !== undefined ? v[M.ackMax] : null,
    deletes: null, undetermined: n(M.undetermined), batches: rows.reduce((a, row) => a + row.batches, 0),
    readback: { checked, stale: n(M.stale), excused: n(M.excused), unacknowledged: n(M.unacknowledged), undetermined: n(M.rbUndetermined), resolved: n(M.resolved) },
  }, { distributed: '0', started: true, plannedBatches: null, readback: checked > 0 ? 'by the instances' : null });
  return {
    basis: countBasis('0', null, byPlan !== null) === 'plan' ? 'plan' : 'acknowledged new documents of all instances',
    expected: verdict.ran ? verdict.expected : null, found: v[M.found],
    ...(verdict.expected_max !== undefined ? { expected_max: verdict.expected_max } : {}),
    readback_checked: checked, readback_stale: n(M.stale), readback_excused: n(M.excused),
    ...(verdict.readback_unjudged ? { readback_unjudged: true } : {}),
    ...(verdict.ran ? {} : { why: verdict.why }),
    ok: Boolean(verdict.ran && verdict.ok),
  };
}

// Limits of a threshold file (parsed by lib/thresholds.js parseThresholds, which refuses a
// key it does not know) against the merged figures.
export function checkThresholds(merged, doc) {
  const out = [];
  for (const [phase, limits] of Object.entries(doc.phases || {})) {
    const r = merged.phases.find((x) => x.phase === phase);
    if (!r) continue; // the phase did not run
    for (const [k, limit] of Object.entries(limits)) {
      let value; let name;
      if (LATENCY[k]) { value = r.batch_ms[COLUMN[LATENCY[k]]]; name = `${phase} batch ${COLUMN[LATENCY[k]]} <= ${limit} ms`; }
      // As k6 judges a single run (docs/configuration.md, "What each threshold counts").
      else if (k === 'failed_docs_max') { value = r.docs_failed_known ?? r.docs_failed; name = `${phase} failed docs (known) <= ${limit}`; }
      else if (k === 'undetermined_docs_max') { value = r.docs_undetermined ?? 0; name = `${phase} undetermined docs <= ${limit}`; }
      else if (k === 'failed_batches_rate_max') { value = r.failed_batches_rate; name = `${phase} failed batch rate <= ${limit}`; }
      else if (k === 'dropped_iterations_max') { value = merged.dropped_iterations || 0; name = `dropped iterations (all instances) <= ${limit}`; }
      else continue; // abort_on_fail only matters during the run
      out.push({ name, value, limit, ok: value <= limit });
    }
  }
  if (doc.verify !== false) {
    const vr = merged.verification;
    // Held against the phases' failed_docs_max summed, when every phase that ran has one (lib/thresholds.js).
    const budgets = merged.phases.map((r) => ((doc.phases || {})[r.phase] || {}).failed_docs_max);
    if (vr && typeof vr.failed_resolved === 'number' && budgets.length && budgets.every((b) => b !== undefined)) {
      const limit = budgets.reduce((a, b) => a + b, 0);
      out.push({ name: `failed docs once the count resolved the undetermined ones (all phases) <= ${limit}`, value: vr.failed_resolved, limit, ok: vr.failed_resolved <= limit });
    }
    out.push({ name: 'verification (count and read-back of the union)', value: vr ? `${vr.found}/${vr.expected}, ${vr.readback_stale} stale` : 'no DISTRIBUTED=verify points', ok: !!(vr && vr.ok) });
  }
  return out;
}

// A threshold file, checked by lib/thresholds.js: a malformed file or an unknown key stops the
// merge with one line (exit 107) instead of being skipped. The experiment's phase list is not
// known here; phases the merged run lacks are skipped by checkThresholds.
export function readThresholds(given) {
  const file = path.isAbsolute(given) ? given : path.join(root, given);
  let text;
  try { text = readFileSync(file, 'utf8'); } catch (e) { return die(`--thresholds ${given}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`, 107); }
  let phases = [];
  try { phases = Object.keys(JSON.parse(text).phases || {}); } catch (_) { /* parseThresholds says what is wrong */ }
  try {
    return parseThresholds(text, { path: given, phases });
  } catch (e) {
    return die(String(e).replace(/^k6-writepath: /, ''), 107);
  }
}

export function renderTable(merged, checks) {
  const lines = [`k6-writepath · ${merged.test_endpoint ? 'TEST ENDPOINT · ' : ''}merged distributed run ${merged.testid} · instances: ${merged.instances.join(', ')}`,
    ...(merged.test_endpoint ? ['TEST ENDPOINT: the instances wrote to a k6-writepath API test server, not a database; these figures test the pack and measure no database.'] : []), '',
    `${'phase'.padEnd(10)}${'op'.padEnd(8)}${'batches'.padStart(8)}${'docs ok'.padStart(10)}${'failed'.padStart(8)}${'docs/s'.padStart(10)}  time per batch (ms, raw values of all instances):` +
    `${'min'.padStart(7)}${'median'.padStart(9)}${'average'.padStart(9)}${'p90'.padStart(9)}${'p99'.padStart(9)}${'max'.padStart(9)}`];
  for (const r of merged.phases) {
    lines.push(`${r.phase.padEnd(10)}${r.op.padEnd(8)}${String(r.batches).padStart(8)}${String(r.docs_ok).padStart(10)}${String(r.docs_failed).padStart(8)}${fmt(r.docs_per_s, 0).padStart(10)}  ${''.padStart(48)}` +
      `${fmt(r.batch_ms.min).padStart(7)}${fmt(r.batch_ms.p50).padStart(9)}${fmt(r.batch_ms.avg).padStart(9)}${fmt(r.batch_ms.p90).padStart(9)}${fmt(r.batch_ms.p99).padStart(9)}${fmt(r.batch_ms.max).padStart(9)}`);
  }
  lines.push('', 'batches per instance: ' + merged.phases.map((r) => `${r.phase} ${Object.entries(r.batches_by_instance).map(([i, n]) => `${i}:${n}`).join(' ')}`).join(' · '));
  for (const r of merged.phases) if (r.docs_failed > 0) lines.push(`failed ${r.phase}: ${Object.entries(r.failed_by_reason).map(([k, n]) => `${k} ${n}`).join(', ')}`);
  const vr = merged.verification;
  lines.push(!vr ? 'verification: no points from a DISTRIBUTED=verify run (scripts/verify-distributed)'
    : vr.why ? `verification: did not run: ${vr.why}`
    : `verification: expected ${vr.expected}${vr.expected_max !== undefined ? `–${vr.expected_max}` : ''} (${vr.basis}), found ${vr.found}; read-back ${vr.readback_checked} keys (by the instances' VUs), ${vr.readback_stale} stale or missing${vr.readback_excused ? `, ${vr.readback_excused} at their last acknowledged version (later batches to them failed)` : ''}${vr.readback_unjudged ? ', every key checked undetermined (not judged)' : ''} — ${vr.ok ? 'OK' : 'FAILED'}`);
  const bad = checks.filter((c) => !c.ok);
  lines.push(bad.length === 0 ? `thresholds (whole run): all ${checks.length} passed` : `thresholds (whole run): ${bad.length} of ${checks.length} FAILED`);
  for (const c of bad) lines.push(`  ✗ ${c.name}: ${typeof c.value === 'number' ? fmt(c.value, 2) : c.value}`);
  return `${lines.join('\n')}\n`;
}

async function main() {
  const { values } = parseArgs({ options: {
    testid: { type: 'string' }, influx: { type: 'string' }, thresholds: { type: 'string' }, out: { type: 'string' }, instances: { type: 'string' },
  } });
  if (!values.testid) die('usage: merge-results.mjs --testid <RUN_ID> [--instances N] [--thresholds file] [--out dir] [--influx URL]', 2);
  // Bad input stops the merge before any query.
  const doc = values.thresholds ? readThresholds(values.thresholds) : { phases: {}, verify: true };
  const merged = await merge({ influx: influxUrl(values.influx), testid: values.testid });
  if (merged.phases.length === 0) die(`no batch points with testid=${values.testid} in InfluxDB: did the instances run with --out influxdb and --tag testid=${values.testid}?`);
  if (values.instances) {
    const want = Number(values.instances);
    if (merged.instances.length !== want) die(`testid=${values.testid}: points from ${merged.instances.length} instance(s) (${merged.instances.join(', ')}), expected ${want}: tag each instance --tag instance_id=<i>`);
  }
  const checks = checkThresholds(merged, doc);
  const text = renderTable(merged, checks);
  process.stdout.write(text);
  if (values.out) {
    mkdirSync(values.out, { recursive: true });
    writeFileSync(path.join(values.out, 'merged-summary.txt'), text);
    writeFileSync(path.join(values.out, 'merged-summary.json'), `${JSON.stringify({ ...merged, thresholds: checks }, null, 2)}\n`);
  }
  process.exit(checks.every((c) => c.ok) ? 0 : 99);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((e) => die(e.message));
}
