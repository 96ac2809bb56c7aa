// E1 under a load model (STAGES: closed, RATE_STAGES: open; lib/load-model.js). The fixed
// plan (insert-vs-overwrite.js) writes exact batch counts per VU; a ramp writes as many
// batches as the schedule starts, so the phases become:
//   PHASES=load            the ramp inserts fresh keys: batch n = keys n·B … n·B+B-1
//                          (n = the test-wide iteration number, unique across VUs).
//                          Verification: the database holds exactly the acknowledged documents.
//   PHASES=load,overwrite  setup pre-loads DOCS keys (phase load, one VU, exact), then the
//                          ramp overwrites them: batch n takes positions n·B … n·B+B-1 of a
//                          walk over the DOCS keys (RAMP_KEYS: a seeded permutation or key
//                          order), so each key is overwritten at most once and its final
//                          version is known exactly. Verification: the count stays DOCS,
//                          every key is read back and holds either the pre-load version or
//                          the version of the one batch that chose it, and the number of keys
//                          holding a new version equals the documents the ramp acknowledged.
// mixed needs keys that are new and existing at once and is not offered under a load model.
import { sleep } from 'k6';
import exec from 'k6/execution';
import { fail } from '../parse.js';
import { stop } from '../abort.js';
import { loadBatchCount, loadBatchKeys } from '../keys.js';
import { Rng } from '../rand.js';
import { stampFor } from '../docs.js';
import { countOnly, verifyExpected, verifyFound, verifyMismatch, readbackChecked, readbackStale, overwritesUnaccounted, rampKeysExhausted, docsFailedResolved } from '../metrics.js';
import { M } from '../metric-names.js';
import { describeModel, rampPosition, rampScenario, stageSection, stageThresholds } from '../load-model.js';

const NAME = 'insert-vs-overwrite';

function gcd(a, b) { while (b) [a, b] = [b, a % b]; return a; }

// Position -> key number: key = (a·pos + c) mod DOCS with gcd(a, DOCS) = 1, a bijection on
// 0 … DOCS-1. a < 2^20 keeps a·pos below 2^53 for DOCS up to 10^9.
function keyWalk(cfg) {
  const N = cfg.DOCS;
  if (cfg.RAMP_KEYS === 'sequential' || N < 3) return { a: 1, c: 0, N };
  const r = new Rng(cfg.SEED, 'ramp-keys');
  const lim = Math.min(N, 1 << 20);
  let a = Math.max(2, Math.floor(lim * 0.618)) + r.int(Math.max(1, Math.floor(lim / 4)));
  a %= N;
  while (a < 2 || gcd(a, N) !== 1) a = (a + 1) % N;
  return { a, c: r.int(N), N };
}
export const keyAt = (w, pos) => (w.a * pos + w.c) % w.N;

export function rampPlan(cfg, lm, ops) {
  // Without PHASES a load model ramps the load phase (inserts of fresh keys).
  if (cfg.phasesDefault) cfg.PHASES = ['load'];
  const phases = cfg.PHASES;
  const ramped = phases[phases.length - 1];
  const knob = lm.open ? `RATE_STAGES=${lm.text}` : `STAGES=${lm.text}`;
  if (ramped === 'mixed') fail(`PHASES=${phases.join(',')} is not allowed with ${knob}: under a load model the last phase ramps, and it must be load (insert) or overwrite (upsert/merge); mixed runs only in the fixed plan`);
  if (ramped === 'overwrite' && phases.join(',') !== 'load,overwrite') fail(`PHASES=${phases.join(',')} is not allowed with ${knob}: a ramped overwrite needs PHASES=load,overwrite (load = the pre-load)`);
  if (cfg.DISTRIBUTED !== '0') fail(`DISTRIBUTED=${cfg.DISTRIBUTED} is not allowed with ${knob} on insert-vs-overwrite yet: ramped batches are numbered per process`);
  if (ramped === 'overwrite' && cfg.KEY_DIST !== 'uniform') fail(`KEY_DIST=${cfg.KEY_DIST} is not allowed with ${knob}: a ramped overwrite walks every key once (RAMP_KEYS=random|sequential)`);
  const B = cfg.BATCH_SIZE;
  const preload = ramped === 'overwrite';
  const L = preload ? loadBatchCount(cfg.DOCS, B) : 0;
  const capacity = Math.floor(cfg.DOCS / B); // overwrite batches before the keys run out
  if (preload && capacity < 1) fail(`BATCH_SIZE=${B} is not allowed with DOCS=${cfg.DOCS}: a ramped overwrite batch needs BATCH_SIZE pre-loaded keys`);
  if (preload && lm.open && lm.maxIterations > capacity) {
    fail(`${knob} is not allowed with DOCS=${cfg.DOCS} and BATCH_SIZE=${B}: it can start up to ${lm.maxIterations} overwrite batches, and each key is overwritten at most once, so DOCS must be at least ${lm.maxIterations * B}`);
  }
  // What the VUs' targets prepare in init: the ramped batches (key lists; a ramped load's keys
  // grow with the schedule: bodies for the keys an open model can reach, or for DOCS keys,
  // wider keys get a wider body on first use). The pre-load runs in setup, whose context makes
  // its own body when it first writes (setup is not a measured phase): a VU never holds it.
  const writes = { [ops[ramped]]: [] };
  const prepared = { batchSize: B, maxKey: preload || !lm.open ? cfg.DOCS : lm.maxIterations * B, writes };
  return {
    target: prepared,
    loadModel: lm, ramped, preload, capacity, walk: preload ? keyWalk(cfg) : null, ignore: preload && cfg.OVERWRITE_OP === 'ignore',
    vus: lm.vus, batchSize: B, loadBatches: L, overwriteBatches: 0, mixedBatches: 0, newPerMixed: 0, perVu: null, iterations: null,
    expectedDocs: preload ? cfg.DOCS : null,
    // The pre-load runs in setup with one VU.
    setupTimeout: preload ? cfg.MAX_DURATION : undefined,
  };
}

export function scenarios(cfg, p) {
  return rampScenario(NAME, cfg, p.loadModel);
}

export function extraThresholds(cfg, p, reasons) {
  const t = stageThresholds(p.loadModel, reasons, NAME);
  // Every acknowledged overwrite must be found (teardown subtracts what it finds); more keys at
  // their batch's version are undetermined (or reported failed) batches that were stored after
  // all: nothing lost (lib/readback.js, 'resolved' and 'unacknowledged').
  if (p.preload) t[M.overwritesUnaccounted] = ['count<=0'];
  // No batch may go unwritten for lack of keys (a closed-model overwrite that used up DOCS).
  t[M.rampKeysExhausted] = ['count==0'];
  return t;
}

// setup(): the data set the ramped overwrite works on, written in order by one VU.
export function prepare(runner, cfg, p, ops) {
  if (!p.preload) return;
  const tags = { phase: 'load', op: ops.load, target: runner.target.name };
  for (let j = 0; j < p.loadBatches; j++) {
    const keys = loadBatchKeys(j, cfg.DOCS, p.batchSize);
    const res = runner.write(ops.load, keys, stampFor('load', j), tags, { fresh: keys.length });
    if (res.failed > 0) stop(`k6-writepath: the pre-load failed (${Object.entries(res.byReason).map(([r, c]) => `${r} ${c}`).join(', ')}): the ramped overwrite needs all DOCS=${cfg.DOCS} keys`);
  }
}

export function iteration(runner, cfg, p, state, ops) {
  if (!state.tags) state.tags = p.loadModel.stages.map((_, s) => ({ phase: p.ramped, op: ops[p.ramped], target: runner.target.name, stage: String(s + 1) }));
  const { s, n } = rampPosition(p.loadModel, exec, Date.now());
  const tags = state.tags[s];
  const keys = new Array(p.batchSize);
  let fresh;
  if (n < 0) { rampKeysExhausted.add(1, tags); return; }
  if (p.preload) {
    // A closed model cannot know its batch count up front (an open one is refused in rampPlan):
    // once every pre-loaded key has been overwritten, the run ends here with one line instead
    // of spinning through empty iterations until the stages end (issue 27). First it waits
    // TIMEOUT + 1 s, the longest another VU's batch can still be in flight, so that every
    // written batch is counted before the abort stops the VUs.
    if ((n + 1) * p.batchSize > cfg.DOCS) {
      rampKeysExhausted.add(1, tags);
      sleep(cfg.timeoutMs / 1000 + 1);
      stop(`the ramped overwrite has overwritten all DOCS=${cfg.DOCS} pre-loaded keys (${Math.floor(cfg.DOCS / p.batchSize)} batches of ${p.batchSize}) in stage ${s + 1} of STAGES=${p.loadModel.text}: the run ends here; raise DOCS or shorten STAGES`);
    }
    for (let i = 0; i < p.batchSize; i++) keys[i] = keyAt(p.walk, n * p.batchSize + i);
    fresh = 0;
  } else {
    // An array, not a key range: the adapters' byte-image path for consecutive keys builds its
    // images on a VU's first batch (seconds on a busy machine), and an open-model step that
    // brings in a fresh VU would drop iterations meanwhile; the string path costs the same
    // on every batch.
    for (let i = 0; i < p.batchSize; i++) keys[i] = n * p.batchSize + i;
    fresh = p.batchSize;
  }
  const res = runner.write(ops[p.ramped], keys, stampFor(p.ramped, n), tags, { fresh });
  // ArangoDB overwriteMode=ignore acknowledges documents it leaves alone: nothing to find.
  if (p.preload && !p.ignore && res.n - res.failed > 0) overwritesUnaccounted.add(res.n - res.failed, tags);
  // The run-wide resolved failures (docs/configuration.md, "What each threshold counts"): the
  // acknowledged and undetermined overwrites, less the keys teardown finds at their batch's
  // version, leave the undetermined ones that were not applied.
  if (p.preload && !p.ignore) docsFailedResolved.add(res.n - res.failed + (res.undetermined ? res.failed : 0), tags);
}

export function verify(target, cfg, p) {
  if (!p.preload) return countOnly(target.count());
  const found = target.count();
  verifyFound.add(found);
  const rb = { checked: 0, stale: 0, missing: 0, examples: [] };
  verifyExpected.add(cfg.DOCS);
  verifyMismatch.add(Math.abs(found - cfg.DOCS));
  // Every key: the pre-load version, or the version of the one ramp batch that chose it
  // (with OVERWRITE_OP=ignore: the pre-load version only).
  let overwritten = 0;
  const CHUNK = 50000;
  for (let start = 0; start < cfg.DOCS; start += CHUNK) {
    const count = Math.min(CHUNK, cfg.DOCS - start);
    const keys = new Array(count);
    for (let i = 0; i < count; i++) keys[i] = keyAt(p.walk, start + i);
    const stamps = target.readStamps(keys);
    for (let i = 0; i < count; i++) {
      const pos = start + i;
      const got = stamps.get(keys[i]);
      rb.checked++;
      const mine = stampFor('overwrite', Math.floor(pos / p.batchSize));
      if (got === undefined) rb.missing++;
      else if (got === mine && !p.ignore) overwritten++;
      else if (got !== stampFor('load', 0)) {
        rb.stale++;
        if (rb.examples.length < 5) rb.examples.push({ key: keys[i], found: got, writtenBy: [stampFor('load', 0), mine] });
      }
    }
  }
  overwritesUnaccounted.add(-overwritten);
  // (The pre-load's acknowledged new documents: lib/run-modes.js takes the count off.)
  docsFailedResolved.add(-overwritten);
  console.log(`k6-writepath: ${overwritten} keys hold the version of their ramp batch (the summary compares them with the acknowledged overwrites)`);
  readbackChecked.add(rb.checked);
  readbackStale.add(rb.stale + rb.missing);
  return { expected: cfg.DOCS, found, readback: rb };
}

// The workload line of a ramped E1 (insert-vs-overwrite.js describe()).
export function describeLine(cfg, p) {
  const keys = p.preload ? ` · overwrites ${p.ramped === 'overwrite' ? cfg.RAMP_KEYS : ''} keys of ${cfg.DOCS} pre-loaded` : ' · fresh keys';
  return `workload: ${describeModel(p.loadModel)} · ${p.ramped} phase ramps · batches of ${p.batchSize} · ${cfg.DOC_SHAPE} documents${keys} · seed ${cfg.SEED}`;
}

// The per-stage section and, for a ramped overwrite, its own verification: every acknowledged
// overwrite found (overwrites_unaccounted) and no batch left without keys (ramp_keys_exhausted).
export function sections(data, { plan: p, target }) {
  const out = stageSection(data, { model: p.loadModel, batchSize: p.batchSize, reasons: target.reasons, name: NAME, note: `phase ${p.ramped}` });
  if (p.preload) {
    const un = data.metrics[M.overwritesUnaccounted] ? data.metrics[M.overwritesUnaccounted].values.count : null;
    const ex = data.metrics[M.rampKeysExhausted] ? data.metrics[M.rampKeysExhausted].values.count : 0;
    const undet = (data.metrics[`${M.docsUndetermined}{phase:${p.ramped}}`] || { values: {} }).values.count || 0;
    // Keys beyond the acknowledged ones hold an undetermined batch's version first (resolved:
    // stored), then a batch's reported failed (applied after all); teardown read every key.
    const extra = un !== null && un < 0 && !p.ignore ? -un : 0;
    const stored = Math.min(undet, extra);
    out.verification = { overwrites_unaccounted: un, ramp_keys_exhausted: ex, overwrites_undetermined: undet, overwrites_undetermined_stored: un === null ? null : stored, overwrites_unacknowledged: extra - stored };
    if (un !== null && un > 0) out.after.push(`overwrites: ${un} acknowledged overwrites not found in the database — FAILED`);
    if (un !== null && undet > 0) out.after.push(`overwrites: ${undet} undetermined (no answer after the whole batch was sent, or "committed, but a wait failed"): the read-back found ${stored === undet ? `all ${undet}` : stored} stored${stored < undet ? `, ${undet - stored} not applied (failed after all: writepath_docs_failed_resolved counts them)` : ''}`);
    if (extra > stored) out.after.push(`overwrites: ${extra - stored} keys hold the version of a batch reported failed (applied after all: nothing lost)`);
    if (ex > 0) out.after.push(`overwrite ramp: ${ex} batches found no unused keys (raise DOCS or shorten the stages) — FAILED`);
  }
  return out;
}
