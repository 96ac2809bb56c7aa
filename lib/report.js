// The result of a run, in the shape of the experiment (E1's table: min, median, average,
// p90, p99, max of the time per batch, per phase), plus summary.json and junit.xml. Pure
// functions of k6's summary data, so they are tested in Node as well.
import { M } from './metric-names.js';
import { TEST_ENDPOINT } from './test-endpoint.js';
import { columns, fmt, pad } from './format.js';
import { plannedBatchesOf, verificationVerdict } from './verdict.js';

const num = (x) => (typeof x === 'number' && Number.isFinite(x) ? x : null);

function metric(data, name) {
  return data.metrics[name] ? data.metrics[name].values : null;
}

function phaseStats(data, phase, reasons = []) {
  const tag = `{phase:${phase}}`;
  const d = metric(data, M.batchDuration + tag) || {};
  const ok = (metric(data, M.docsOk + tag) || {}).count || 0;
  const failed = (metric(data, M.docsFailed + tag) || {}).count || 0;
  const undetermined = (metric(data, M.docsUndetermined + tag) || {}).count || 0;
  const retried = (metric(data, M.retries + tag) || {}).count || 0;
  const fresh = (metric(data, M.docsNew + tag) || {}).count || 0;
  const bytes = (metric(data, M.bytes + tag) || {}).count || 0;
  const clock = metric(data, M.phaseClock + tag);
  const wallMs = clock && clock.max > clock.min ? clock.max - clock.min : null;
  const byReason = {};
  let listed = 0;
  for (const r of reasons) {
    const c = (metric(data, `${M.docsFailed}{phase:${phase},reason:${r}}`) || {}).count || 0;
    if (c > 0) { byReason[r] = c; listed += c; }
  }
  if (failed > listed) byReason.unlisted = failed - listed;
  const failedBatchRate = (metric(data, M.batchFailed + tag) || {}).rate;
  // A phase that never ran (a run stopped before it) has no batch times: k6 reports an empty
  // Trend as zeros, which would read as 0 ms batches and 0.00x ratios.
  const none = !d.count;
  // Through the gateway: the database's own time of the same batches (Server-Timing db).
  const g = metric(data, M.gatewayDb + tag);
  const gateway = g && g.count ? {
    batches: g.count, db_ms: { median: num(g.med), average: num(g.avg), p99: num(g['p(99)']) },
    // The share of the batch time outside the database: k6 -> gateway -> k6 and the gateway's own work.
    outside_share: num(d.avg) && num(g.avg) !== null ? 1 - g.avg / d.avg : null,
  } : undefined;
  return {
    phase,
    batches: d.count || 0,
    docs_ok: ok,
    docs_new: fresh,
    docs_failed: failed,
    docs_undetermined: undetermined,
    // What failed_docs_max limits: failed and not undetermined, and the undetermined ones the
    // read-back found not applied (recorded data without the metric: the first part).
    docs_failed_known: metric(data, M.docsFailedKnown + tag) ? metric(data, M.docsFailedKnown + tag).count || 0 : failed - undetermined,
    failed_by_reason: byReason,
    retries: retried,
    failed_batch_rate: num(failedBatchRate) ?? 0,
    wall_s: wallMs === null ? null : wallMs / 1000,
    // A phase that wrote nothing has no rate: its bytes went out in batches the server refused.
    docs_per_s: wallMs && ok > 0 ? ok / (wallMs / 1000) : null,
    mb_per_s: wallMs && ok > 0 ? bytes / 1e6 / (wallMs / 1000) : null,
    batch_ms: none ? { min: null, median: null, average: null, p90: null, p95: null, p99: null, max: null } : {
      min: num(d.min), median: num(d.med), average: num(d.avg),
      p90: num(d['p(90)']), p95: num(d['p(95)']), p99: num(d['p(99)']), max: num(d.max),
    },
    ...(gateway ? { gateway } : {}),
  };
}

// The server settings line, in a stable (alphabetical) order whatever order the target found them in.
export function settingsText(settings) {
  return Object.keys(settings).sort().map((k) => `${k}=${settings[k]}`).join(' · ');
}

// What the read-back excused or could not judge, after its count of stale keys.
function readbackNotes(v) {
  const out = [];
  if (v.readback_excused > 0) out.push(`${v.readback_excused} at their last acknowledged version because later batches to them failed (not lost writes)`);
  if (v.readback_unacknowledged > 0) out.push(`${v.readback_unacknowledged} hold the version of a batch reported failed that was applied anyway`);
  if (v.readback_resolved > 0) out.push(`${v.readback_resolved} hold the version of a batch whose outcome was undetermined (resolved: stored)`);
  if (v.readback_undetermined > 0) out.push(`${v.readback_undetermined} undetermined (a later batch failed in part without naming its documents)`);
  return out.length ? `; ${out.join('; ')}` : '';
}

function ratio(a, b) {
  return a !== null && b !== null && b > 0 ? a / b : null;
}

// The value a threshold expression judged: "p(99)<=20000" -> values["p(99)"] (null if k6 has none).
export function observedValue(values, expr) {
  const m = /^\s*([a-z]+(?:\(\d+(?:\.\d+)?\))?)\s*(?:[<>=!]|$)/.exec(String(expr));
  const v = m && values ? values[m[1]] : undefined;
  return num(v);
}

// The unit of a threshold's figures, from its metric and expression: batch times in ms, failed
// batches as a share, counts of documents or iterations; '' where no unit applies.
export function thresholdUnit(t) {
  const m = String(t.metric || ''); const x = String(t.threshold || '');
  if (/^rate\b/.test(x)) return 'share';
  if (/duration|_ms\b|time/.test(m)) return 'ms';
  if (/dropped_iterations/.test(m)) return 'iterations';
  if (/docs|verify|readback|mismatch|lost|stale|unaccounted/.test(m)) return 'documents';
  return '';
}
export const showObserved = (t) => (t.observed === null || t.observed === undefined ? '' : ` (observed ${Number.isInteger(t.observed) ? t.observed : t.observed.toFixed(3)}${thresholdUnit(t) ? ` ${thresholdUnit(t)}` : ''})`);

function thresholdResults(data) {
  const out = [];
  for (const [name, m] of Object.entries(data.metrics)) {
    for (const [expr, r] of Object.entries(m.thresholds || {})) out.push({ metric: name, threshold: expr, ok: r.ok, observed: observedValue(m.values, expr) });
  }
  out.sort((a, b) => (a.metric + a.threshold).localeCompare(b.metric + b.threshold));
  return out;
}

function xmlEscape(s) {
  return String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

// The counts the verification is judged on (lib/verdict.js), from k6's summary data.
function verificationCounts(data, phases, described) {
  const g = (name) => { const v = metric(data, name); return v ? v.value : null; };
  const c = (name) => { const v = metric(data, name); return v ? v.count : 0; };
  const found = g(M.verifyFound);
  // Single process: teardown took the documents found off writepath_verify_unaccounted_max.
  const max = metric(data, M.verifyUnaccountedMax);
  return {
    found, error: g(M.verifyError) === 1, expectedByPlan: g(M.verifyExpected), mismatch: g(M.verifyMismatch),
    acknowledged: phases.reduce((s, p) => s + p.docs_new, 0),
    acknowledgedMax: max && found !== null ? max.count + found : null,
    deletes: described.acknowledgedDeletes && found !== null ? described.acknowledgedDeletes(data) : null,
    undetermined: c(M.docsUndetermined),
    batches: phases.reduce((s, p) => s + p.batches, 0),
    readback: { checked: c(M.readbackChecked), stale: c(M.readbackStale), excused: c(M.readbackExcused), unacknowledged: c(M.readbackUnacknowledged), undetermined: c(M.readbackUndetermined), resolved: c(M.readbackResolved) },
  };
}

function phaseRatios(phases) {
  const ratios = {};
  const load = phases.find((p) => p.phase === 'load');
  if (!load) return ratios;
  for (const p of phases) {
    // Batch times of a phase that wrote nothing time refusals, not writes: no ratio.
    if (p.phase === 'load' || p.batches === 0 || load.batches === 0 || p.docs_ok === 0 || load.docs_ok === 0) continue;
    ratios[`${p.phase}/load`] = {
      average: ratio(p.batch_ms.average, load.batch_ms.average),
      median: ratio(p.batch_ms.median, load.batch_ms.median),
      p99: ratio(p.batch_ms.p99, load.batch_ms.p99),
    };
  }
  return ratios;
}

// The report of a run: buildReport(k6's summary data, meta) -> { runId, text, json, junit, cutLine }.
// meta: cfg (publicConfig), verifyGate, description (the workload's describe()), phases,
// target, experiment, reasons, ops, sections (the workload's own parts), resultsAt, cut (a run
// k6 stopped in or before setup: interruptedLine).
export function buildReport(data, meta) {
  const setup = data.setup_data || {};
  const runId = setup.runId || null;
  const distributed = meta.cfg && meta.cfg.DISTRIBUTED;
  const phases = meta.phases.map((p) => phaseStats(data, p, meta.reasons));
  const described = meta.description || {};
  // A workload's own sections (arangobench: E3's table first; a ramped run: per stage after)
  // and its own verification figures (a ramped overwrite: overwrites_unaccounted; contention's
  // counters, whose `holds: false` fails the verification).
  const extra = meta.sections ? meta.sections(data) : {};
  const holds = extra.verification && extra.verification.holds;
  const verification = verificationVerdict(verificationCounts(data, phases, described),
    { distributed, started: Boolean(runId), plannedBatches: described.plannedBatches, readback: described.readback, holds });
  // "verify": false in the threshold file: the verification is reported, not a gate — no
  // threshold holds it (k6's exit code), so neither `passed` nor JUnit may fail on it.
  const gate = meta.verifyGate !== false;
  if (!gate) verification.gate = false;
  const thresholds = thresholdResults(data);
  const failedThresholds = thresholds.filter((t) => !t.ok);
  const json = {
    tool: 'k6-writepath',
    run_id: runId,
    target: meta.target,
    experiment: meta.experiment,
    started_at: setup.startedAt || null,
    server: setup.target || null,
    // A project API test server answered (lib/test-endpoint.js): every output says so.
    test_endpoint: Boolean(setup.target && setup.target.testEndpoint),
    config: meta.cfg,
    plan: described.plan || null,
    ops: meta.ops || {},
    phases,
    ratios: phaseRatios(phases),
    dropped_iterations: data.metrics.dropped_iterations ? data.metrics.dropped_iterations.values.count : 0,
    verification,
    thresholds,
    // A run passes only when it started, met every threshold and verified what it wrote (the
    // workload's own checks fail it even when the verification is no gate).
    passed: Boolean(runId) && failedThresholds.length === 0 && verification.ran && (verification.ok || !gate) && holds !== false,
  };
  const view = { data, meta, json, setup, gate, failedThresholds, distributed,
    planned: plannedBatchesOf(distributed, described.plannedBatches), tep: json.test_endpoint ? `${TEST_ENDPOINT} · ` : '' };
  const lines = [...headLines(view), ...phaseLines(view), ...verificationLines(view), ...closingLines(view)];
  if (extra.json) Object.assign(json, extra.json);
  if (extra.verification) Object.assign(json.verification, extra.verification);
  const text = `${[...(extra.before || []), ...lines, ...(extra.after || [])].join('\n')}\n`;
  const junit = junitXml(`k6-writepath ${view.tep}${meta.target} ${meta.experiment}`, junitCases(view));
  return { runId, text, json, junit, cutLine: meta.cut ? interruptedLine(meta.cut) : null };
}

// A run k6 stopped in setup or before it (lib/scenario.js setupCut: a signal, setupTimeout): one
// line for the summary, the log (scripts/run reads it) and junit.xml.
export function interruptedLine(cut) {
  const who = `run ${cut.runId || '(no RUN_ID given)'}${cut.instance ? ` as instance ${cut.instance} (segment ${cut.segment})` : ''}`;
  if (cut.where !== 'setup') return `${who} interrupted before setup began (k6 was starting its VUs): nothing was measured, nothing was created`;
  return `${who} interrupted in setup (k6 stopped it from outside: a signal, or setupTimeout ran out; teardown does not run then): nothing was measured; ${cut.left}`;
}

function headLines({ meta, json, setup, tep }) {
  const lines = [];
  const server = setup.target ? (setup.target.serverVersion ? `${setup.target.serverVersion}` : setup.target.version) : 'setup did not finish';
  lines.push(`k6-writepath · ${tep}${meta.target} · ${meta.experiment} · run ${json.run_id || (meta.cut && meta.cut.runId) || '(none)'}`);
  lines.push(`server: ${server}`);
  if (meta.cut) lines.push(interruptedLine(meta.cut));
  if (json.test_endpoint) lines.push(`${TEST_ENDPOINT}: a k6-writepath API test server answered, not a database; these figures test the pack and measure no database.`);
  if (setup.target && setup.target.settings) lines.push(`settings: ${settingsText(setup.target.settings)}`);
  if (meta.description && meta.description.line) lines.push(meta.description.line);
  lines.push('');
  return lines;
}

function phaseLines({ meta, json, distributed }) {
  // The verify step of a distributed run writes nothing: its phases would be a table of zeros.
  if (distributed === 'verify') return ['phases: written by the instances, not by this verify step (each instance\'s table: instance-<i>-summary.txt; all of them together: merged-summary.txt, scripts/merge-results.mjs)'];
  const { phases, ratios, dropped_iterations: dropped } = json;
  const lines = columns([
    ['phase', 'op', 'batches', 'docs ok', 'failed', 'docs/s', 'time per batch (ms):', 'min', 'median', 'average', 'p90', 'p99', 'max'],
    ...phases.map((p) => {
      const b = p.batch_ms;
      return [p.phase, (meta.ops && meta.ops[p.phase]) || '', p.batches, p.docs_ok, p.docs_failed, fmt(p.docs_per_s, 0), '', ...[b.min, b.median, b.average, b.p90, b.p99, b.max].map((x) => fmt(x))];
    }),
  ], [10, 8, 8, 10, 8, 10, 23, 9, 9, 9, 9, 9, 9], 2);
  for (const p of phases) {
    if (p.docs_failed > 0) lines.push(`  ${p.phase}: ${p.docs_failed} documents failed: ${Object.entries(p.failed_by_reason).map(([r, c]) => `${r} ${c}`).join(', ')}` +
      (p.docs_undetermined > 0 ? `; ${p.docs_undetermined} of them undetermined (the server may have stored them: no answer came after they were sent, or it answered "committed, but a wait failed"; the verification below resolves them; failed_docs_max counts ${p.docs_failed_known}: the others${p.docs_failed_known > p.docs_failed - p.docs_undetermined ? ' and those the read-back found not applied' : ''})` : ''));
    if (p.retries > 0) lines.push(`  ${p.phase}: ${p.retries} requests sent again after the server refused them before doing anything ("not now")`);
    if (p.batches > 0 && p.docs_ok === 0) lines.push(`  ${p.phase}: wrote nothing (all ${p.docs_failed} documents failed): no docs/s, MB/s or ratio for it — its batch times time refusals, not writes`);
  }
  for (const p of phases) {
    if (!p.gateway) continue;
    lines.push(`  ${p.phase}: database time per batch median ${fmt(p.gateway.db_ms.median)} ms, average ${fmt(p.gateway.db_ms.average)} of the batch's ${fmt(p.batch_ms.average)} ms: `
      + `${fmt(100 * p.gateway.outside_share, 1)} % of the batch time is outside the database (k6 <-> gateway on loopback, the gateway's own work)`);
  }
  if (dropped > 0) lines.push(`  dropped iterations: ${dropped} batches k6 could not start on schedule (open model: no free VU, raise VUS/MAX_VUS or lower the rate) or before MAX_DURATION`);
  lines.push('');
  // One run's ratio, said as such: REPEAT=N gives the median and interval of N runs' ratios.
  for (const [name, r] of Object.entries(ratios)) lines.push(`${name} ratio (this run, n=1): average ${fmt(r.average, 2)}x · median ${fmt(r.median, 2)}x · p99 ${fmt(r.p99, 2)}x`);
  return lines;
}

function verificationLines({ meta, json, gate, planned, distributed }) {
  const v = json.verification;
  if (!v.ran) return [`verification: did not run: ${v.why}`];
  const notGate = gate ? '' : ` (not a gate: "verify": false in ${meta.cfg && meta.cfg.THRESHOLDS})`;
  if (v.partial) {
    const batches = json.phases.reduce((s, p) => s + p.batches, 0);
    return [`verification: the run stopped before its plan finished; found ${v.found}, acknowledged new documents ${v.acknowledged_new} — ${v.count_ok ? 'all acknowledged documents found' : 'MISMATCH'}`,
      `read-back: ${v.readback_checked} keys checked by the VUs that finished their share, ${v.readback_stale_or_missing} stale or missing${readbackNotes(v)}; the rest not judged (${planned - batches} of ${planned} planned batches did not run)${v.readback_ok === false ? ' — FAILED' : ''}`];
  }
  const shortOfPlan = planned !== null && v.expected_by_plan !== null && v.expected_by_plan !== v.acknowledged_new;
  const range = v.expected_max !== undefined ? `${v.expected}–${v.expected_max} (${v.undetermined > 0 ? 'failed documents that may be stored after all' : 'failures that named no document'}: the count is a range)` : `${v.expected}`;
  const resolved = v.undetermined > 0 ? `; ${v.undetermined} documents were undetermined, and the database holds ${Math.max(0, v.found - v.expected)} new documents beyond the acknowledged ones (theirs: stored after all)` : '';
  const described = meta.description || {};
  const lines = [`verification: expected ${range}, found ${v.found} — ${v.count_ok ? 'OK' : `FAILED${notGate}`}${resolved}` +
    (planned !== null ? ` (acknowledged new documents; lost ${v.lost}, unexpected ${v.unexpected}` +
      `${shortOfPlan ? `; the plan writes ${v.expected_by_plan}, the failed documents above are the difference` : ''})`
      : v.acknowledged_deletes !== undefined ? ` (acknowledged: ${v.acknowledged_new} new documents, ${v.acknowledged_deletes} deletes)`
      : distributed === 'verify' ? ' (the plan of all instances)' : described.countOf ? ` (${described.countOf})` : ` (acknowledged new documents: ${v.acknowledged_new})`)];
  if (v.readback_none) lines.push(`read-back: not part of this run${meta.cfg && meta.cfg.READBACK === 0 ? ' (READBACK=0)' : ''}`);
  else lines.push(v.readback_by_instances ? 'read-back: done by the instances\' VUs after their last batches (scripts/merge-results.mjs adds them up)'
    : `read-back: ${v.readback_checked} overwritten keys checked, ${v.readback_stale_or_missing} stale or missing${readbackNotes(v)} — ${v.readback_ok ? 'OK' : v.readback_unjudged ? `NOT JUDGED: every key checked is undetermined${notGate}` : `FAILED${notGate}`}`);
  return lines;
}

function closingLines({ meta, json, failedThresholds }) {
  const { thresholds, run_id: runId } = json;
  const lines = [!runId ? 'thresholds: not evaluated: the run did not start (see the error above)'
    : failedThresholds.length === 0 ? `thresholds: all ${thresholds.length} passed`
    : `thresholds: ${failedThresholds.length} of ${thresholds.length} FAILED: ${failedThresholds.map((t) => `${t.metric} ${t.threshold}${showObserved(t)}`).join('; ')}`];
  if (runId && meta.resultsAt) lines.push(`results: ${meta.resultsAt}`);
  return lines;
}

// JUnit: one test case per threshold (so a CI system shows which phase failed) and one per
// verification check; not a gate: the verification's findings go to the case's output.
function junitCases({ meta, json, gate, distributed }) {
  const v = json.verification;
  const classname = `${meta.target}.${meta.experiment}`;
  /** @type {{ classname: string, name: string, failure: string | null, out?: string }[]} */
  // A run stopped in setup measured nothing: no threshold case would mean anything (all "passed").
  const cases = meta.cut ? [] : json.thresholds.map((t) => ({ classname, name: `${t.metric} ${t.threshold}`, failure: t.ok ? null : `threshold crossed: ${t.metric} ${t.threshold}${showObserved(t)}` }));
  if (!json.run_id) cases.push({ classname, name: 'setup', failure: meta.cut ? interruptedLine(meta.cut) : 'the run did not start (database unreachable, bad input or refused objects)' });
  else if (!v.ran && distributed !== '1') cases.push({ classname, name: 'verification', failure: `did not run: ${v.why}` });
  if (v.ran && v.partial) {
    cases.push({ classname, name: 'verification: plan completed', failure: 'the run stopped before its plan finished' });
    cases.push({ classname, name: 'verification: document count', failure: v.count_ok ? null : `acknowledged new ${v.acknowledged_new}, found ${v.found}` });
  } else if (v.ran) {
    cases.push({ classname, name: 'verification: document count', failure: v.count_ok ? null : `expected ${v.expected}, found ${v.found}` });
    if (!v.readback_by_instances && !v.readback_none) cases.push({ classname, name: 'verification: read-back of overwritten keys', failure: v.readback_ok ? null : v.readback_unjudged ? `not judged: all ${v.readback_checked} keys checked are undetermined` : `${v.readback_stale_or_missing} of ${v.readback_checked} stale or missing` });
  }
  if (!gate) {
    for (const cs of cases) {
      if (cs.failure && /^verification/.test(cs.name) && v.ran) { cs.out = `not a gate ("verify": false): ${cs.failure}`; cs.failure = null; }
    }
  }
  return cases;
}

// JUnit XML of one suite (the one writer of it: a run's junit.xml, a repeated run's, the gate's):
// cases [{ classname, name, failure: message | null, out: text (optional, <system-out>) }].
export function junitXml(suite, cases) {
  const failures = cases.filter((c) => c.failure).length;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites tests="${cases.length}" failures="${failures}">`,
    `  <testsuite name="${xmlEscape(suite)}" tests="${cases.length}" failures="${failures}">`,
    ...cases.map((c) => (c.failure
      ? `    <testcase classname="${xmlEscape(c.classname)}" name="${xmlEscape(c.name)}"><failure message="${xmlEscape(c.failure)}"/></testcase>`
      : c.out ? `    <testcase classname="${xmlEscape(c.classname)}" name="${xmlEscape(c.name)}"><system-out>${xmlEscape(c.out)}</system-out></testcase>`
        : `    <testcase classname="${xmlEscape(c.classname)}" name="${xmlEscape(c.name)}"/>`)),
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
