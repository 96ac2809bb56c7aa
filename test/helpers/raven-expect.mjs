// What a k6 run must end with in the RavenDB failure cases, asserted alike against the real
// RavenDB 4.1.0 (test/integration/ravendb-real.test.mjs) and the API test server with the knob
// that stages the case (test/integration/ravendb.test.mjs): the same assertion on both runs.
import assert from 'node:assert/strict';
import { errorLines } from './k6.mjs';

export const out = (r) => `${r.stdout}\n${r.stderr}`;
const sum = (s, f) => s.phases.reduce((a, p) => a + p[f], 0);

// Every "none stored" line names a batch that the database must not hold: answers given
// before a commit (409, refusals), never lost answers nor a 408 after the commit.
export function noFalseNoneStored(r) {
  for (const line of out(r).split('\n')) {
    if (/none stored/.test(line)) assert.doesNotMatch(line, /\((connection|timeout|http_408)\)/, line);
  }
}

// E1 with RAVEN_INDEXES=3 RAVEN_WAIT_FOR_INDEXES=1ms, 3 000 documents and 4 mixed batches of
// 300 (half new): batches committed then answered 408 are undetermined and resolved stored.
export function expectIndexWait408(r) {
  const s = r.summary;
  assert.ok(s, out(r));
  const undetermined = sum(s, 'docs_undetermined');
  assert.ok(undetermined > 0, out(r));
  assert.equal(undetermined, sum(s, 'docs_failed'), 'every failure is a 408 after the commit');
  assert.match(r.stderr, /committed by the server, then its wait for the indexes timed out \(RAVEN_WAIT_FOR_INDEXES\): counted failed and undetermined: 408 System\.TimeoutException: .*could not verify that 1 indexes has caught up/);
  assert.equal(s.verification.found, 3000 + 4 * 150, 'the plan\'s documents are all stored');
  assert.equal(s.verification.count_ok, true, out(r));
  assert.equal(s.verification.lost, 0);
  assert.equal(s.verification.unexpected, 0);
  assert.equal(s.verification.readback_stale_or_missing, 0);
  assert.ok(s.verification.readback_resolved > 0, 'keys holding an undetermined batch\'s version are resolved: stored');
  assert.equal(s.verification.readback_unacknowledged, 0);
  assert.equal(s.verification.ok, true, out(r));
  noFalseNoneStored(r);
  // Undetermined documents the verification found stored are no known failure: failed_docs_max
  // (0 in the default file) holds, every threshold passes, exit 0 (docs/configuration.md, "What each threshold counts").
  for (const p of s.phases) assert.equal(p.docs_failed_known, p.docs_failed - p.docs_undetermined, p.phase);
  assert.equal(sum(s, 'docs_failed_known'), 0);
  assert.ok(s.thresholds.some((t) => t.metric.startsWith('writepath_docs_failed_known{') && t.threshold === 'count<=0'), JSON.stringify(s.thresholds));
  assert.deepEqual(s.thresholds.filter((t) => !t.ok), []);
  assert.equal(r.code, 0, out(r));
}

// E4 bulk inserts cut part-way without an answer: the committed part comes from 4.x's
// failure text, the rest is undetermined; nothing lost.
export function expectBulkCut4x(r) {
  const s = r.summary;
  assert.ok(s, out(r));
  const bulk = s.phases.find((p) => p.phase === 'bulk');
  // Every message carries the run's table, verification and every error and operations/state
  // line (each reason is logged once per VU), so a failure that happens once can be read.
  const why = (what) => `${what}\nbulk ${JSON.stringify(bulk)}\nverification ${JSON.stringify(s.verification)}\n${out(r)}`;
  assert.ok(bulk.docs_failed > 0, why('no bulk insert failed'));
  assert.match(r.stderr, /Faulted: Failed to process bulk insert Inserted \d+ documents in \d+ batches\. Last document id: 'K\d+'; \d+ committed, \d+ counted failed and undetermined/,
    why('the first failed bulk insert of a VU did not read 4.x\'s failure text from its operation state'));
  assert.ok(bulk.docs_ok > 0, why('the committed part is acknowledged, not "all failed"'));
  assert.equal(bulk.docs_undetermined, bulk.docs_failed, why('no answer came: the rest is undetermined'));
  assert.equal(s.verification.count_ok, true, why('count'));
  assert.equal(s.verification.lost, 0, why('lost'));
  assert.equal(s.verification.ok, true, why('verification'));
  noFalseNoneStored(r);
}

// A run whose server lost answers (killed, or cut after the body) and came back: it finished
// its plan, lost answers are undetermined, nothing lost, the count lies in its range.
export function expectCarriedOn(r) {
  const s = r.summary;
  assert.ok(s, out(r));
  assert.equal(s.verification.partial, false, out(r));
  assert.equal(s.verification.count_ok, true, out(r));
  assert.equal(s.verification.lost, 0, out(r));
  assert.equal(s.verification.unexpected, 0, out(r));
  assert.equal(s.verification.readback_stale_or_missing, 0, out(r));
  assert.ok(s.verification.found >= s.verification.expected && s.verification.found <= (s.verification.expected_max ?? s.verification.expected), out(r));
  assert.ok(sum(s, 'docs_failed') >= sum(s, 'docs_undetermined'));
  assert.equal(s.verification.ok, true, out(r));
  noFalseNoneStored(r);
}

// E4 whose database was deleted mid-run: the batches that met the deletion's 503 window were
// sent again; the run ends with the one line of a vanished database, exit 108.
export function expectDeletedMidRun(r, db) {
  assert.equal(r.code, 108, out(r));
  const lines = errorLines(r).filter((l) => /test aborted|does not exist any more/.test(l));
  assert.ok(lines.length >= 1, out(r));
  assert.ok(lines.every((l) => l.includes(`RavenDB database ${db} does not exist any more (deleted during the run?)`)), lines.join('\n'));
  assert.match(lines[0], /DatabaseDoesNotExistException: Database 'k6wp_\w+' does not exist\./);
  assert.doesNotMatch(r.stderr, /unexpected|panic|TypeError/i);
  noFalseNoneStored(r);
}

// A document someone put into the run's database mid-run, in a collection of their own:
// teardown deletes only the run's documents, its index and its marker, says so, and leaves the
// database with that document (E1 with RAVEN_INDEXES=1; k: a startK6 handle, base: the server).
export async function expectBystanderKept(base, k) {
  const db = `k6wp_${k.runId}`;
  await k.waitFor(/writing to database k6wp_/, 60000);
  const put = await fetch(`${base}/databases/${db}/docs?id=bystanders/1`, { method: 'PUT', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ note: 'not the run\'s', '@metadata': { '@collection': 'Bystanders' } }) });
  assert.equal(put.status, 201, await put.text());
  const r = await k.done;
  assert.equal(r.code, 0, out(r));
  assert.equal(r.summary.verification.count_ok, true, out(r));
  assert.match(out(r), new RegExp(`database ${db}: the run's documents deleted \\(collection Users, index K6wp/ByFields, marker k6wp/marker\\); database ${db} left in place: it also holds documents the run did not create \\(Bystanders: 1\\)`));
  const stats = await (await fetch(`${base}/databases/${db}/collections/stats`)).json();
  const left = Object.fromEntries(Object.entries(stats.Collections).filter(([, n]) => n > 0));
  assert.deepEqual(left, { Bystanders: 1 }, JSON.stringify(stats));
  const doc = await (await fetch(`${base}/databases/${db}/docs?id=bystanders/1`)).json();
  assert.equal(doc.Results[0].note, 'not the run\'s');
  assert.deepEqual((await (await fetch(`${base}/databases/${db}/indexes`)).json()).Results, [], 'the run\'s index is gone');
  return db;
}
