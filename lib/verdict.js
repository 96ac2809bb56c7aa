// The verification's verdict, the one home of the rule: from a run's counts (or the summed
// counts of a distributed run's instances) to what summary.json calls `verification` — did it
// run, what the database must hold (a range when failures may have stored documents), the
// count and the read-back held or not, and `ok`. Pure, so the report (k6) and
// scripts/merge-results.mjs (Node) judge alike; rendering stays with them.

// What a part of a run sees: all of its batches ('whole': one process, or the merge of all
// instances), one instance's share ('instance': DISTRIBUTED=1) or none ('verify').
export function scopeOf(distributed) {
  return !distributed || distributed === '0' ? 'whole' : distributed === '1' ? 'instance' : 'verify';
}

// How a run's document count is judged: against the new documents the database acknowledged
// (failed batches wrote nothing the run claims) when the whole run is seen and it plans batches
// or plans no count (bulk-insert, ramped runs); against the plan's count otherwise
// (arangobench's operations; a distributed verify step). plansCount: the plan expects a count.
export function countBasis(distributed, plannedBatches, plansCount) {
  return scopeOf(distributed) === 'whole' && (plannedBatches !== null && plannedBatches !== undefined || !plansCount) ? 'acknowledged' : 'plan';
}

// The batches the plan of a whole run counts (null: not a count of batches, or a part of a
// run that cannot tell whether the plan finished).
export function plannedBatchesOf(distributed, plannedBatches) {
  return scopeOf(distributed) === 'whole' && plannedBatches !== undefined ? plannedBatches : null;
}

/**
 * @typedef {{ checked: number, stale: number, excused: number, unacknowledged: number, undetermined: number, resolved: number }} ReadbackCounts
 * @typedef {{ found: number | null, error: boolean, expectedByPlan: number | null, mismatch: number | null,
 *   acknowledged: number, acknowledgedMax: number | null, deletes: number | null, undetermined: number,
 *   batches: number, readback: ReadbackCounts }} VerifyCounts
 *   found: the documents teardown counted (null: it never did); acknowledgedMax: the most new
 *   documents the acknowledged ones may be (failures that named no document, undetermined ones)
 * @typedef {{ distributed?: string, started: boolean, plannedBatches?: number | null,
 *   readback?: string | null, holds?: boolean }} VerifyRun
 *   plannedBatches, readback: the workload's describe() (readback null: nothing read back);
 *   holds: false when the workload's own checks failed (contention's counters)
 */

/**
 * @param {VerifyCounts} c
 * @param {VerifyRun} run
 * @returns {Record<string, any>} summary.json's verification (ran: false with why, or the figures and ok)
 */
export function verificationVerdict(c, run) {
  const scope = scopeOf(run.distributed);
  // Why verification did not run, when it did not: said in words, never shown as OK.
  if (c.found === null || c.error) {
    return { ran: false, why: c.error ? 'failed before its end (the "test aborted" line says why)'
      : scope === 'instance' ? 'not this instance\'s job (DISTRIBUTED=1): scripts/verify-distributed verifies the union of all instances'
      : !run.started ? 'the run did not start'
      : 'teardown did not finish' };
  }
  // A plan that did not finish (Ctrl-C, MAX_DURATION): fewer batches than planned. Its count is
  // held against the acknowledged documents; its read-back (last writers come from the plan)
  // is not meaningful.
  const planned = plannedBatchesOf(run.distributed, run.plannedBatches);
  const partial = planned !== null && c.batches < planned;
  const noReadback = run.readback === null;
  // DISTRIBUTED=verify: the instances' VUs read their keys back (merge-results adds them up).
  const byInstances = scope === 'verify' && run.plannedBatches !== undefined && run.plannedBatches !== null;
  const fromAcknowledged = countBasis(run.distributed, run.plannedBatches, c.expectedByPlan !== null) === 'acknowledged';
  // Deletes the server acknowledged (a ramped arangobench cycle) come off the acknowledged new documents.
  const deletes = fromAcknowledged ? c.deletes : null;
  const held = c.acknowledged - (deletes || 0);
  const expected = fromAcknowledged ? held : c.expectedByPlan;
  const heldMax = fromAcknowledged && c.acknowledgedMax !== null ? Math.max(held, c.acknowledgedMax - (deletes || 0)) : expected;
  const rb = c.readback;
  // Nothing judged (every key read back undetermined: silent=true failures everywhere) is not OK.
  const unjudged = rb.checked > 0 && rb.undetermined >= rb.checked;
  const v = {
    ran: true,
    partial,
    expected,
    // (only when failures may have stored documents: the most the database may hold)
    expected_max: heldMax > expected ? heldMax : undefined,
    expected_by_plan: c.expectedByPlan,
    acknowledged_new: c.acknowledged,
    found: c.found,
    lost: Math.max(0, expected - c.found),
    unexpected: Math.max(0, c.found - heldMax),
    count_ok: fromAcknowledged ? c.found >= held && c.found <= heldMax : c.mismatch === 0,
    // Keys whose later batches failed are excused, not stale; a plan that did not finish was
    // read back only by the VUs that finished their share: stale keys there still fail it.
    readback_checked: rb.checked,
    readback_stale_or_missing: rb.stale,
    readback_excused: rb.excused,
    readback_unacknowledged: rb.unacknowledged,
    readback_undetermined: rb.undetermined,
    readback_resolved: rb.resolved,
    undetermined: c.undetermined,
    readback_ok: rb.stale > 0 ? false : partial || byInstances || noReadback || unjudged ? null : true,
    readback_unjudged: unjudged || undefined,
    readback_none: noReadback || undefined,
    readback_by_instances: byInstances || undefined,
    readback_skipped: partial,
    acknowledged_deletes: deletes === null ? undefined : deletes,
  };
  // The plan finished, the count held, the read-back held or was not part of this run, and
  // the workload's own checks (if any) held.
  v.ok = !partial && v.count_ok && (v.readback_ok === true || byInstances || noReadback) && run.holds !== false;
  return v;
}
