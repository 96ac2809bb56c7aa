// Verification never claims what it did not check (docs/reliability.md):
//   - a verification that breaks in teardown is "did not run", fails the run (exit 108, JUnit
//     failure), and the run's table is still dropped;
//   - a run stopped before its plan finished (here: MAX_DURATION) is compared with what it
//     acknowledged, its read-back covers only the VUs that finished their share, the batches
//     it did not run fail a threshold (exit 99), and it does not pass;
//   - an instance of a distributed run says that verifying is not its job;
//   - "verify": false: summary, passed, junit.xml and the exit code agree that it is no gate.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { localEnv, psql, runK6, uniqueRunId } from '../helpers/k6.mjs';

const env = { PG_URL: localEnv().PG_URL };
const small = { DOCS: '2000', BATCH_SIZE: '250', OVERWRITE_BATCHES: '4', MIXED_BATCHES: '2' };
const explain = (r) => `exit ${r.code}\n${r.stdout}\n${r.stderr}`;
const tableExists = async (runId) => (await psql(env.PG_URL, `SELECT to_regclass('public.k6wp_${runId}') IS NOT NULL`)) === 't';

test('a verification that breaks in teardown is reported as did not run, fails the run, and the table is dropped', async () => {
  const r = await runK6('test/integration/fixtures/verify-breaks.js', { ...env, ...small });
  assert.equal(r.code, 108, explain(r));
  assert.match(r.stderr, /test aborted: verification did not run to its end: read-back: pq: canceling statement/);
  assert.match(r.stdout, /verification: did not run: failed before its end/);
  assert.doesNotMatch(r.stdout, /— OK|read-back: null/);
  assert.equal(r.summary.verification.ran, false);
  assert.equal(r.summary.passed, false);
  assert.match(r.junit, /<testcase [^>]*name="verification"><failure message="did not run: failed before its end/);
  assert.match(r.stderr, /table public\.k6wp_\w+: dropped/);
  assert.equal(await tableExists(r.runId), false, 'the run\'s table is dropped even so');
});

test('a run stopped before its plan finished is compared with what it acknowledged; read back only by the VUs that finished; it does not pass', async () => {
  // 600 overwrite batches of 1000 (minutes of work here) stopped by MAX_DURATION after 2 s;
  // the mixed phase never starts.
  const runId = uniqueRunId('vp');
  const r = await runK6('scenarios/postgres/insert-vs-overwrite.js', { ...env, DOCS: '20000', BATCH_SIZE: '1000', OVERWRITE_BATCHES: '600', MIXED_BATCHES: '20', MAX_DURATION: '2s' }, { runId });
  const s = r.summary;
  assert.ok(s, explain(r));
  assert.equal(s.verification.ran, true, explain(r));
  assert.equal(s.verification.partial, true);
  assert.equal(s.verification.readback_skipped, true);
  assert.equal(s.verification.found, s.verification.acknowledged_new, 'every acknowledged document found');
  assert.equal(s.verification.count_ok, true);
  assert.equal(s.passed, false, 'an unfinished plan never passes');
  assert.match(r.stdout, /verification: the run stopped before its plan finished; found \d+, acknowledged new documents \d+ — all acknowledged documents found/);
  // No VU finished its share (600 batches in 2 s), so none read its keys back.
  assert.match(r.stdout, /read-back: 0 keys checked by the VUs that finished their share, 0 stale or missing; the rest not judged \(\d+ of 640 planned batches did not run\)\n/);
  assert.doesNotMatch(r.stdout + r.stderr, /verification FAILED|— OK/);
  const notRun = 640 - s.phases.reduce((a, p) => a + p.batches, 0);
  assert.ok(notRun > 0);
  // The failed thresholds say why: the plan did not finish, and (the count being a range where a
  // batch may be undetermined) no key was judged by a read-back; the count itself held (it is
  // held against what was acknowledged, not against the plan).
  assert.match(r.stdout, new RegExp(`thresholds: 2 of \\d+ FAILED: writepath_plan_remaining count<=0 \\(observed ${notRun}\\); writepath_readback_judged count>0 \\(observed 0 documents\\)\\n`));
  // No row or ratio of a phase that never ran pretends to have 0 ms batches.
  assert.doesNotMatch(r.stdout, /0\.00x|mixed\/load ratio/);
  assert.match(r.stdout, /\nmixed +upsert +0 +0 +0 +- +- +- +- +- +- +-\n/);
  assert.equal(r.code, 99, 'an unfinished plan fails the run');
  assert.match(r.junit, /name="verification: plan completed"><failure message="the run stopped before its plan finished"/);
  assert.equal(await tableExists(runId), false);
});

test('failed batches are neither lost nor found: the count is held against what was acknowledged', async () => {
  // MIXED_OP=insert: every mixed batch holds existing keys, PostgreSQL fails each whole.
  const r = await runK6('scenarios/postgres/insert-vs-overwrite.js', { ...env, ...small, MIXED_OP: 'insert' });
  assert.equal(r.code, 99, explain(r));
  const v = r.summary.verification;
  const mixed = r.summary.phases.find((p) => p.phase === 'mixed');
  assert.equal(mixed.docs_failed, 500, 'both mixed batches failed whole');
  assert.equal(v.acknowledged_new, 2000);
  assert.equal(v.expected_by_plan, 2250);
  assert.deepEqual([v.expected, v.found, v.lost, v.unexpected, v.count_ok], [2000, 2000, 0, 0, true]);
  assert.match(r.stdout, /verification: expected 2000, found 2000 — OK \(acknowledged new documents; lost 0, unexpected 0; the plan writes 2250, the failed documents above are the difference\)/);
  // The gate says why: the failed documents, not a count held against the plan.
  // (a 23505 is a known failure: in its phase and in the run's total)
  assert.match(r.stdout, /thresholds: 2 of \d+ FAILED: writepath_docs_failed_known\{phase:mixed\} count<=0 \(observed 500 documents\); writepath_docs_failed_resolved count<=0 \(observed 500 documents\)\n/);
  assert.equal(r.summary.passed, false, 'the failed documents still fail the run');
});

// Issue 27 class 7: "verify": false makes the verification information, not a gate. The
// summary, summary.json's passed, junit.xml and the exit code say one verdict: the run passed,
// and the stale read-back is reported as what it is, "not a gate".
test('"verify": false in the threshold file: a stale read-back is reported, and summary, passed, junit.xml and the exit code agree on one verdict', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-nogate-'));
  const file = path.join(dir, 'no-verify.json');
  writeFileSync(file, JSON.stringify({ verify: false, phases: { load: { failed_docs_max: 0 } } }));
  const gated = await runK6('test/integration/fixtures/readback-stale.js', { ...env, ...small });
  assert.equal(gated.code, 99, explain(gated));
  assert.equal(gated.summary.passed, false);
  assert.match(gated.junit, /name="verification: read-back of overwritten keys"><failure message="\d+ of \d+ stale or missing"/);
  const r = await runK6('test/integration/fixtures/readback-stale.js', { ...env, ...small, THRESHOLDS: file });
  assert.equal(r.code, 0, explain(r));
  const v = r.summary.verification;
  assert.ok(v.readback_stale_or_missing > 0 && v.readback_ok === false && v.ok === false, JSON.stringify(v));
  assert.equal(v.gate, false);
  assert.equal(r.summary.passed, true, 'not a gate: the run passes on its thresholds');
  assert.match(r.stdout, new RegExp(`read-back: \\d+ overwritten keys checked, \\d+ stale or missing — FAILED \\(not a gate: "verify": false in ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)`));
  assert.match(r.junit, /<testsuites tests="\d+" failures="0">/);
  assert.match(r.junit, /name="verification: read-back of overwritten keys"><system-out>not a gate \(&quot;verify&quot;: false\): \d+ of \d+ stale or missing<\/system-out>/);
  const html = readFileSync(path.join(r.dir, 'report.html'), 'utf8');
  assert.match(html, /id="verdict">PASSED: all \d+ thresholds passed</);
  assert.match(html, /id="not-a-gate"/);
});

// Issue 27 class 7: a closed-model overwrite ramp that overwrites every pre-loaded key before
// its stages end used to spin through empty iterations (~125 000 in 6 s) until they ended.
test('a ramped overwrite that runs out of keys ends the run with one line (no spinning), verified, its table dropped', async () => {
  const runId = uniqueRunId('rk');
  const r = await runK6('scenarios/postgres/insert-vs-overwrite.js', { ...env, PHASES: 'load,overwrite', STAGES: '30s:2', DOCS: '2000', BATCH_SIZE: '100', TIMEOUT: '2s' }, { runId, timeoutMs: 120000 });
  assert.equal(r.code, 108, explain(r));
  const aborted = r.stderr.split('\n').filter((l) => /test aborted/.test(l));
  assert.equal(aborted.length, 1, r.stderr);
  assert.match(aborted[0], /the ramped overwrite has overwritten all DOCS=2000 pre-loaded keys \(20 batches of 100\) in stage 1 of STAGES=30s:2: the run ends here; raise DOCS or shorten STAGES/);
  const s = r.summary;
  assert.ok(s.verification.ramp_keys_exhausted >= 1 && s.verification.ramp_keys_exhausted <= 2, `each VU stopped at its first batch without keys: ${s.verification.ramp_keys_exhausted}`);
  assert.equal(s.verification.overwrites_unaccounted, 0, 'every acknowledged overwrite found');
  assert.equal(s.phases.find((p) => p.phase === 'overwrite').batches, 20);
  assert.equal(await tableExists(runId), false);
});
