// The result of a run, in the shape of the experiment (E1's table: min, median, average,
// p90, p99, max of the time per batch, per phase), plus summary.json and junit.xml. Pure
// functions of k6's summary data, so they are tested in Node as well.
import { M } from './metric-names.js';
import { TEST_ENDPOINT } from './test-endpoint.js';
import { columns, fmt, pad } from './format.js';

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

// How a run's document count is judged, the one home of the rule (lib/experiment.js picks
// the count threshold with it, buildReport judges with it): against the new documents the
// database acknowledged (failed batches wrote nothing the run claims) when a single process
// plans batches or plans no count (bulk-insert, ramped runs); against the plan's count
// otherwise (arangobench's operations; a distributed verify step, whose instances'
// acknowledgements scripts/merge-results.mjs adds up). plansCount: the plan expects a count.
export function countBasis(distributed, plannedBatches, plansCount) {
  const single = !distributed || distributed === '0';
  return single && (plannedBatches !== null && plannedBatches !== undefined || !plansCount) ? 'acknowledged' : 'plan';
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

export function buildReport(data, meta) {
  const setup = data.setup_data || {};
  const runId = setup.runId || null;
  // A project API test server answered (lib/test-endpoint.js): every output says so.
  const testEndpoint = Boolean(setup.target && setup.target.testEndpoint);
  const tep = testEndpoint ? `${TEST_ENDPOINT} · ` : '';
  const phases = meta.phases.map((p) => phaseStats(data, p, meta.reasons));
  const byName = Object.fromEntries(phases.map((p) => [p.phase, p]));
  const ratios = {};
  if (byName.load) {
    for (const p of phases) {
      // Batch times of a phase that wrote nothing time refusals, not writes: no ratio.
      if (p.phase === 'load' || p.batches === 0 || byName.load.batches === 0 || p.docs_ok === 0 || byName.load.docs_ok === 0) continue;
      ratios[`${p.phase}/load`] = {
        average: ratio(p.batch_ms.average, byName.load.batch_ms.average),
        median: ratio(p.batch_ms.median, byName.load.batch_ms.median),
        p99: ratio(p.batch_ms.p99, byName.load.batch_ms.p99),
      };
    }
  }
  const g = (name) => { const v = metric(data, name); return v ? v.value : null; };
  const c = (name) => { const v = metric(data, name); return v ? v.count : 0; };
  const acknowledged = phases.reduce((s, p) => s + p.docs_new, 0);
  // Why verification did not run, when it did not: said in words, never shown as OK.
  const notRun = g(M.verifyError) === 1 ? 'failed before its end (the "test aborted" line says why)'
    : meta.cfg && meta.cfg.DISTRIBUTED === '1' ? 'not this instance\'s job (DISTRIBUTED=1): scripts/verify-distributed verifies the union of all instances'
    : !runId ? 'the run did not start'
    : 'teardown did not finish';
  // A plan that did not finish (Ctrl-C, MAX_DURATION): fewer batches than planned. Its count is
  // held against the acknowledged documents; its read-back (last writers come from the plan)
  // is not meaningful.
  // The workload describes its own plan (describe() of lib/workloads/*): plannedBatches is
  // null when the count of batches is not planned (bulk-insert) or is no count of documents
  // (arangobench's operations: its verification holds the database against the plan).
  const described = meta.description || {};
  // A distributed instance or verify step sees only part (or none) of the batches: it is held
  // against the plan, never judged unfinished (scripts/verify-distributed merges the parts).
  const single = !meta.cfg || !meta.cfg.DISTRIBUTED || meta.cfg.DISTRIBUTED === '0';
  const planned = single && described.plannedBatches !== undefined ? described.plannedBatches : null;
  const partial = planned !== null && phases.reduce((s, p) => s + p.batches, 0) < planned;
  // No read-back planned (nothing overwritten, READBACK=0, a workload that has none): said, never "OK".
  const noReadback = described.readback === null;
  const byInstances = Boolean(meta.cfg && meta.cfg.DISTRIBUTED === 'verify' && described.plannedBatches !== undefined && described.plannedBatches !== null);
  // Held against what the database acknowledged, or against the plan (countBasis).
  const fromAcknowledged = countBasis(meta.cfg && meta.cfg.DISTRIBUTED, described.plannedBatches, g(M.verifyExpected) !== null) === 'acknowledged';
  // A workload whose operations delete documents they inserted (a ramped arangobench cycle)
  // says how many deletes the server acknowledged: the database must hold the acknowledged
  // new documents minus those.
  const deletes = fromAcknowledged && described.acknowledgedDeletes && g(M.verifyFound) !== null ? described.acknowledgedDeletes(data) : null;
  const held = acknowledged - (deletes || 0);
  // What the database must hold; lost and unexpected are counted against it. When failures
  // named no document (ArangoDB silent=true) the acknowledged new documents are a range: the
  // most they can be is writepath_verify_unaccounted_max + found (lib/metrics.js recordBatch).
  const expected = fromAcknowledged ? held : g(M.verifyExpected);
  const maxMetric = metric(data, M.verifyUnaccountedMax);
  const unjudged = c(M.readbackChecked) > 0 && c(M.readbackUndetermined) >= c(M.readbackChecked);
  const heldMax = fromAcknowledged && maxMetric && g(M.verifyFound) !== null ? Math.max(held, maxMetric.count + g(M.verifyFound) - (deletes || 0)) : expected;
  const verification = g(M.verifyFound) === null || g(M.verifyError) === 1 ? { ran: false, why: notRun } : {
    ran: true,
    // Stopped before its plan finished: the count is held against the acknowledged documents.
    partial,
    // A workload whose document count is not planned (bulk-insert: as many batches as the
    // server takes) records no expected count: the database must then hold what it acknowledged.
    // E1 (a plan of batches) is held against what the database acknowledged: failed batches
    // wrote nothing the run claims, so they are neither lost nor found (docs/reliability.md).
    expected,
    // (only when failures named no document: the most the database may hold; undefined otherwise)
    expected_max: heldMax > expected ? heldMax : undefined,
    expected_by_plan: g(M.verifyExpected),
    acknowledged_new: acknowledged,
    found: g(M.verifyFound),
    lost: Math.max(0, expected - g(M.verifyFound)),
    unexpected: Math.max(0, g(M.verifyFound) - heldMax),
    count_ok: fromAcknowledged ? g(M.verifyFound) >= held && g(M.verifyFound) <= heldMax : g(M.verifyMismatch) === 0,
    // The read-back (lib/readback.js), judged against the acknowledged writes: keys whose
    // later batches failed are excused, not stale. A plan that did not finish was read back
    // only by the VUs that finished their share: stale keys there still fail it.
    readback_checked: c(M.readbackChecked),
    readback_stale_or_missing: c(M.readbackStale),
    readback_excused: c(M.readbackExcused),
    readback_unacknowledged: c(M.readbackUnacknowledged),
    readback_undetermined: c(M.readbackUndetermined),
    readback_resolved: c(M.readbackResolved),
    // Failed documents that may be stored after all (lib/targets/outcome.js, undetermined):
    // the database holds found - acknowledged of them when nothing acknowledged was lost.
    undetermined: c(M.docsUndetermined),
    // Nothing judged (every key read back undetermined: silent=true failures everywhere) is not OK.
    readback_ok: c(M.readbackStale) > 0 ? false : partial || byInstances || noReadback || unjudged ? null : true,
    readback_unjudged: unjudged || undefined,
    readback_none: noReadback || undefined,
    // DISTRIBUTED=verify: the instances' VUs read their keys back (merge-results adds them up).
    readback_by_instances: byInstances || undefined,
    readback_skipped: partial,
    // (undefined: not in summary.json, which JSON.stringify writes)
    acknowledged_deletes: deletes === null ? undefined : deletes,
  };
  // The verification's own verdict (the one home of the rule; passed adds the thresholds): the
  // plan finished, the count held, and the read-back held or was not part of the run.
  if (verification.ran) verification.ok = !partial && verification.count_ok && (verification.readback_ok === true || byInstances || noReadback);
  // "verify": false in the threshold file: the verification is reported, not a gate — no
  // threshold holds it (k6's exit code), so neither `passed` nor JUnit may fail on it.
  const gate = meta.verifyGate !== false;
  if (!gate) verification.gate = false;
  const notGate = gate ? '' : ` (not a gate: "verify": false in ${meta.cfg && meta.cfg.THRESHOLDS})`;
  const dropped = data.metrics.dropped_iterations ? data.metrics.dropped_iterations.values.count : 0;
  const thresholds = thresholdResults(data);
  const failedThresholds = thresholds.filter((t) => !t.ok);
  const json = {
    tool: 'k6-writepath',
    run_id: runId,
    target: meta.target,
    experiment: meta.experiment,
    started_at: setup.startedAt || null,
    server: setup.target || null,
    test_endpoint: testEndpoint,
    config: meta.cfg,
    plan: described.plan || null,
    ops: meta.ops || {},
    phases,
    ratios,
    dropped_iterations: dropped,
    verification,
    thresholds,
    // A run passes only when it started, met every threshold and verified what it wrote.
    passed: Boolean(runId) && failedThresholds.length === 0 && verification.ran && (verification.ok || !gate),
  };

  const lines = [];
  const server = setup.target ? (setup.target.serverVersion ? `${setup.target.serverVersion}` : setup.target.version) : 'setup did not finish';
  lines.push(`k6-writepath · ${tep}${meta.target} · ${meta.experiment} · run ${runId || '(none)'}`);
  lines.push(`server: ${server}`);
  if (testEndpoint) lines.push(`${TEST_ENDPOINT}: a k6-writepath API test server answered, not a database; these figures test the pack and measure no database.`);
  if (setup.target && setup.target.settings) {
    lines.push(`settings: ${settingsText(setup.target.settings)}`);
  }
  if (described.line) lines.push(described.line);
  lines.push('');
  // The verify step of a distributed run writes nothing: its phases would be a table of zeros.
  if (meta.cfg && meta.cfg.DISTRIBUTED === 'verify') {
    lines.push('phases: written by the instances, not by this verify step (each instance\'s table: instance-<i>-summary.txt; all of them together: merged-summary.txt, scripts/merge-results.mjs)');
  } else {
  lines.push(...columns([
    ['phase', 'op', 'batches', 'docs ok', 'failed', 'docs/s', 'time per batch (ms):', 'min', 'median', 'average', 'p90', 'p99', 'max'],
    ...phases.map((p) => {
      const b = p.batch_ms;
      return [p.phase, (meta.ops && meta.ops[p.phase]) || '', p.batches, p.docs_ok, p.docs_failed, fmt(p.docs_per_s, 0), '', ...[b.min, b.median, b.average, b.p90, b.p99, b.max].map((x) => fmt(x))];
    }),
  ], [10, 8, 8, 10, 8, 10, 23, 9, 9, 9, 9, 9, 9], 2));
  for (const p of phases) {
    if (p.docs_failed > 0) lines.push(`  ${p.phase}: ${p.docs_failed} documents failed: ${Object.entries(p.failed_by_reason).map(([r, c]) => `${r} ${c}`).join(', ')}` +
      (p.docs_undetermined > 0 ? `; ${p.docs_undetermined} of them undetermined (the server may have stored them: no answer came after they were sent, or it answered "committed, but a wait failed"; the verification below resolves them)` : ''));
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
  for (const [name, r] of Object.entries(ratios)) {
    // One run's ratio, said as such: REPEAT=N gives the median and interval of N runs' ratios.
    lines.push(`${name} ratio (this run, n=1): average ${fmt(r.average, 2)}x · median ${fmt(r.median, 2)}x · p99 ${fmt(r.p99, 2)}x`);
  }
  }
  if (verification.ran && verification.partial) {
    lines.push(`verification: the run stopped before its plan finished; found ${verification.found}, acknowledged new documents ${verification.acknowledged_new} — ${verification.count_ok ? 'all acknowledged documents found' : 'MISMATCH'}`);
    lines.push(`read-back: ${verification.readback_checked} keys checked by the VUs that finished their share, ${verification.readback_stale_or_missing} stale or missing${readbackNotes(verification)}; the rest not judged (${planned - phases.reduce((s, p) => s + p.batches, 0)} of ${planned} planned batches did not run)${verification.readback_ok === false ? ' — FAILED' : ''}`);
  } else if (verification.ran) {
    const shortOfPlan = planned !== null && verification.expected_by_plan !== null && verification.expected_by_plan !== verification.acknowledged_new;
    const range = verification.expected_max !== undefined ? `${verification.expected}–${verification.expected_max} (${verification.undetermined > 0 ? 'failed documents that may be stored after all' : 'failures that named no document'}: the count is a range)` : `${verification.expected}`;
    const resolved = verification.undetermined > 0 ? `; ${verification.undetermined} documents were undetermined, and the database holds ${Math.max(0, verification.found - verification.expected)} new documents beyond the acknowledged ones (theirs: stored after all)` : '';
    lines.push(`verification: expected ${range}, found ${verification.found} — ${verification.count_ok ? 'OK' : `FAILED${notGate}`}${resolved}` +
      (planned !== null ? ` (acknowledged new documents; lost ${verification.lost}, unexpected ${verification.unexpected}` +
        `${shortOfPlan ? `; the plan writes ${verification.expected_by_plan}, the failed documents above are the difference` : ''})`
        : deletes !== null ? ` (acknowledged: ${verification.acknowledged_new} new documents, ${deletes} deletes)`
        : meta.cfg && meta.cfg.DISTRIBUTED === 'verify' ? ' (the plan of all instances)' : described.countOf ? ` (${described.countOf})` : ` (acknowledged new documents: ${verification.acknowledged_new})`));
    if (noReadback) lines.push(`read-back: not part of this run${meta.cfg && meta.cfg.READBACK === 0 ? ' (READBACK=0)' : ''}`);
    else lines.push(byInstances ? 'read-back: done by the instances\' VUs after their last batches (scripts/merge-results.mjs adds them up)'
      : `read-back: ${verification.readback_checked} overwritten keys checked, ${verification.readback_stale_or_missing} stale or missing${readbackNotes(verification)} — ${verification.readback_ok ? 'OK' : verification.readback_unjudged ? `NOT JUDGED: every key checked is undetermined${notGate}` : `FAILED${notGate}`}`);
  } else {
    lines.push(`verification: did not run: ${verification.why}`);
  }
  lines.push(!runId ? 'thresholds: not evaluated: the run did not start (see the error above)'
    : failedThresholds.length === 0 ? `thresholds: all ${thresholds.length} passed`
    : `thresholds: ${failedThresholds.length} of ${thresholds.length} FAILED: ${failedThresholds.map((t) => `${t.metric} ${t.threshold}${showObserved(t)}`).join('; ')}`);
  if (runId && meta.resultsAt) lines.push(`results: ${meta.resultsAt}`);
  // A workload's own sections (arangobench: E3's table first; a ramped run: per stage after)
  // and its own verification figures (a ramped overwrite: overwrites_unaccounted).
  const extra = meta.sections ? meta.sections(data) : {};
  if (extra.json) Object.assign(json, extra.json);
  if (extra.verification) Object.assign(json.verification, extra.verification);
  // A workload's own checks (contention: every counter against the ledgers) are part of the
  // verdict: `holds: false` fails verification.ok and the run.
  if (extra.verification && extra.verification.holds === false && json.verification.ran) { json.verification.ok = false; json.passed = false; }
  const text = `${[...(extra.before || []), ...lines, ...(extra.after || [])].join('\n')}\n`;

  // JUnit: one test case per threshold (so a CI system shows which phase failed) and one
  // per verification check.
  /** @type {{ classname: string, name: string, failure: string | null, out?: string }[]} */
  const cases = thresholds.map((t) => ({ classname: `${meta.target}.${meta.experiment}`, name: `${t.metric} ${t.threshold}`, failure: t.ok ? null : `threshold crossed: ${t.metric} ${t.threshold}${showObserved(t)}` }));
  if (!runId) {
    cases.push({ classname: `${meta.target}.${meta.experiment}`, name: 'setup', failure: 'the run did not start (database unreachable, bad input or refused objects)' });
  } else if (!verification.ran && !(meta.cfg && meta.cfg.DISTRIBUTED === '1')) {
    cases.push({ classname: `${meta.target}.${meta.experiment}`, name: 'verification', failure: `did not run: ${verification.why}` });
  }
  if (verification.ran && verification.partial) {
    cases.push({ classname: `${meta.target}.${meta.experiment}`, name: 'verification: plan completed', failure: 'the run stopped before its plan finished' });
    cases.push({ classname: `${meta.target}.${meta.experiment}`, name: 'verification: document count', failure: verification.count_ok ? null : `acknowledged new ${verification.acknowledged_new}, found ${verification.found}` });
  } else if (verification.ran) {
    cases.push({ classname: `${meta.target}.${meta.experiment}`, name: 'verification: document count', failure: verification.count_ok ? null : `expected ${verification.expected}, found ${verification.found}` });
    if (!byInstances && !noReadback) cases.push({ classname: `${meta.target}.${meta.experiment}`, name: 'verification: read-back of overwritten keys', failure: verification.readback_ok ? null : verification.readback_unjudged ? `not judged: all ${verification.readback_checked} keys checked are undetermined` : `${verification.readback_stale_or_missing} of ${verification.readback_checked} stale or missing` });
  }
  // Not a gate: the verification's findings go to the case's output, not its failure.
  if (!gate) {
    for (const cs of cases) {
      if (cs.failure && /^verification/.test(cs.name) && verification.ran) { cs.out = `not a gate ("verify": false): ${cs.failure}`; cs.failure = null; }
    }
  }
  const junit = junitXml(`k6-writepath ${tep}${meta.target} ${meta.experiment}`, cases);

  return { runId, text, json, junit };
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
