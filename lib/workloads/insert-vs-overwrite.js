// E1 (docs/experiments.md): insert vs. insert-with-overwrite. Phases:
//   load       DOCS new documents in batches of BATCH_SIZE (op insert: a duplicate fails)
//   overwrite  OVERWRITE_BATCHES batches of BATCH_SIZE existing keys picked at random (op upsert)
//   mixed      MIXED_BATCHES batches with MIXED_NEW_PERCENT new keys, the rest existing (op upsert)
// The phase counts are exact, so the scenario is one k6 `per-vu-iterations` scenario in which
// every VU works through its share of each phase in order (keys.js explains why no VU ever
// overwrites a key that is not loaded yet). This module knows nothing about databases: the
// target adapter does the writing.
import exec from 'k6/execution';
import { fail } from '../parse.js';
import { stop } from '../abort.js';
import { BatchPicker, DrawnKeys, KeySet, OwnedKeys, keyArray, matchKeys, loadBatchCount, loadBatchKeys, pickDistinct, vuBatchCount } from '../keys.js';
import { Rng } from '../rand.js';
import { stampFor } from '../docs.js';
import { verifyError, verifyExpected, verifyFound, verifyMismatch, readbackChecked, readbackStale, readbackExcused, readbackUnacknowledged, readbackUndetermined, readbackJudged, readbackResolved, docsFailedKnown, docsFailedResolved } from '../metrics.js';
import { ackOf, judge, noteOutcome, unappliedMaybe } from '../readback.js';
import { fixedScenario, loadModel } from '../load-model.js';
import * as ramp from './e1-ramp.js';

export const EXPERIMENT = 'insert-vs-overwrite';
export const PHASES = ['load', 'overwrite', 'mixed'];

// STAGES / RATE_STAGES: the last phase ramps instead (lib/workloads/e1-ramp.js).
// The plan carries each phase's operation (ops), worked out once here for every site.
export function plan(cfg) {
  const lm = loadModel(cfg);
  const ops = opsFor(cfg);
  if (lm) return Object.assign(ramp.rampPlan(cfg, lm, ops), { ops });
  if (cfg.RAMP_KEYS !== 'random') fail(`RAMP_KEYS=${cfg.RAMP_KEYS} is not allowed without STAGES or RATE_STAGES: the fixed plan picks keys with KEY_DIST`);
  const runs = (p) => cfg.PHASES.includes(p);
  const V = cfg.VUS;
  const B = cfg.BATCH_SIZE;
  const L = runs('load') ? loadBatchCount(cfg.DOCS, B) : 0;
  const O = runs('overwrite') ? cfg.OVERWRITE_BATCHES : 0;
  const Mx = runs('mixed') ? cfg.MIXED_BATCHES : 0;
  const newPer = Math.round(B * cfg.MIXED_NEW_PERCENT / 100);
  if ((O > 0 || Mx > 0) && !runs('load')) {
    fail(`PHASES=${cfg.PHASES.join(',')} is not allowed: overwrite and mixed need the load phase before them (the keys they overwrite)`);
  }
  const Lb = loadBatchCount(cfg.DOCS, B);
  if (V > Lb) fail(`VUS=${V} is not allowed: at most ${Lb} (one load batch per VU at least; DOCS=${cfg.DOCS}, BATCH_SIZE=${B})`);
  const smallestOwned = new OwnedKeys(cfg.DOCS, B, V, V - 1).size;
  if (O > 0 && B > smallestOwned) {
    fail(`BATCH_SIZE=${B} is not allowed with DOCS=${cfg.DOCS} and VUS=${V}: an overwrite batch picks distinct keys among the ${smallestOwned} one VU loaded; raise DOCS or lower BATCH_SIZE/VUS`);
  }
  if (Mx > 0 && B - newPer > smallestOwned) {
    fail(`MIXED_NEW_PERCENT=${cfg.MIXED_NEW_PERCENT} is not allowed with DOCS=${cfg.DOCS}, BATCH_SIZE=${B}, VUS=${V}: ${B - newPer} existing keys per batch, but one VU loaded only ${smallestOwned}`);
  }
  // A VU's batches per phase are computed by the VU (iteration()): a table of every VU's would
  // cost each VU memory in proportion to VUS. VU 0 has the most.
  const iterations = vuBatchCount(L, V, 0) + vuBatchCount(O, V, 0) + vuBatchCount(Mx, V, 0);
  const expectedDocs = (runs('load') ? cfg.DOCS : 0) + Mx * newPer;
  // What the target prepares in init (lib/targets/<db>/<db>.js createTarget): batches of B keys, every
  // key below DOCS + the mixed batches' fresh keys, stamps up to o<O-1> and m<Mx-1>; the load
  // phase writes key ranges stamped l.
  const maxStamp = Math.max(1, ...[O, Mx].filter((n) => n > 0).map((n) => stampFor('overwrite', n - 1).length));
  const prepared = { batchSize: B, maxKey: cfg.DOCS + Mx * newPer, maxStamp, writes: {} };
  if (L > 0) prepared.writes[ops.load] = ['l'];
  for (const [n, op] of [[O, ops.overwrite], [Mx, ops.mixed]]) if (n > 0 && !prepared.writes[op]) prepared.writes[op] = [];
  return { vus: V, batchSize: B, loadBatches: L, overwriteBatches: O, mixedBatches: Mx, newPerMixed: newPer, iterations, expectedDocs, target: prepared, ops };
}

export function scenarios(cfg, p) {
  if (p.loadModel) return ramp.scenarios(cfg, p);
  return fixedScenario(EXPERIMENT, cfg, p.vus, Math.max(1, p.iterations));
}

// The keys of overwrite or mixed batch j, recomputable anywhere from (SEED, phase, j): the
// fresh keys of a mixed batch first, then distinct keys VU j % V loaded, drawn by
// BatchPicker (lib/keys.js: pickDistinct + OwnedKeys.at without a method call per key).
// lazy: the keys as DrawnKeys, drawn only when something asks (a target that renders its
// bodies in the gateway sends how to draw them instead).
export function batchKeys(cfg, p, phase, j, pickers, lazy = false) {
  const v = j % p.vus;
  let picker = pickers[v];
  if (!picker) picker = pickers[v] = new BatchPicker(cfg, new OwnedKeys(cfg.DOCS, p.batchSize, p.vus, v));
  const fresh = phase === 'mixed' ? p.newPerMixed : 0;
  const first = cfg.DOCS + j * p.newPerMixed;
  if (lazy) return { keys: new DrawnKeys(picker, new Rng(cfg.SEED, phase, j), fresh, first, p.batchSize), fresh };
  const keys = new Array(p.batchSize);
  for (let t = 0; t < fresh; t++) keys[t] = first + t;
  picker.fill(p.batchSize - fresh, new Rng(cfg.SEED, phase, j), keys, fresh);
  return { keys, fresh };
}

// The operation each phase performs (README: "What the operations mean"). A target may
// offer another overwrite operation (ArangoDB: merge, ignore) through cfg.OVERWRITE_OP, and
// another load operation (RavenDB: bulk insert) through cfg.LOAD_OP.
export function opsFor(cfg) {
  return { load: cfg.LOAD_OP || 'insert', overwrite: cfg.OVERWRITE_OP || 'upsert', mixed: cfg.MIXED_OP || 'upsert' };
}

// What the target must offer (lib/capabilities.js): the batch operation of every phase that
// runs, the count, and, when overwritten keys are read back, the stored stamps.
export function needs(cfg, p) {
  const { ops } = p;
  const out = ['count'];
  if (p.loadBatches > 0) out.push(`batch:${ops.load}`);
  if (p.overwriteBatches > 0) out.push(`batch:${ops.overwrite}`);
  if (p.mixedBatches > 0) out.push(`batch:${ops.mixed}`);
  if (p.overwriteBatches + p.mixedBatches > 0 && cfg.READBACK > 0) out.push('readback');
  return out;
}

// The plan as the report shows it (lib/report.js): E1's batches, per phase (a ramped run:
// its load model, lib/workloads/e1-ramp.js).
export function describe(cfg, p) {
  return {
    line: p.loadModel ? ramp.describeLine(cfg, p) : `workload: ${p.vus} VUs · batches of ${p.batchSize} · ${cfg.DOC_SHAPE} documents · keys ${cfg.KEY_DIST} · seed ${cfg.SEED}`,
    plan: { vus: p.vus, batch_size: p.batchSize, load_batches: p.loadBatches, overwrite_batches: p.overwriteBatches, mixed_batches: p.mixedBatches, new_keys_per_mixed_batch: p.newPerMixed, expected_docs: p.expectedDocs },
    plannedBatches: p.loadBatches + p.overwriteBatches + p.mixedBatches,
    // What the read-back covers (lib/report.js): null when nothing is overwritten or READBACK=0.
    readback: p.loadModel ? (p.preload ? 'every pre-loaded key (teardown)' : null)
      : p.overwriteBatches + p.mixedBatches > 0 && cfg.READBACK > 0 ? `up to ${cfg.READBACK} overwritten keys (each VU its own, after its last batch)` : null,
  };
}

export function extraThresholds(cfg, p, reasons) {
  return p.loadModel ? ramp.extraThresholds(cfg, p, reasons) : {};
}

export function prepare(runner, cfg, p) {
  if (p.loadModel) ramp.prepare(runner, cfg, p, p.ops);
}

// A ramped run reports per stage (lib/workloads/e1-ramp.js); the fixed plan has no sections.
export function sections(data, meta) {
  return meta.plan.loadModel ? ramp.sections(data, meta) : {};
}

// One iteration of a VU: the next batch of its plan.
export function iteration(runner, cfg, p, state) {
  if (p.loadModel) return ramp.iteration(runner, cfg, p, state, p.ops);
  const v = exec.vu.idInTest - 1;
  const iter = exec.vu.iterationInScenario;
  let i = iter;
  // idInTest is global across --execution-segment instances (one scenario: 1..VUS split
  // among the instances), so VU v owns the same batches whichever instance runs it.
  if (!(v >= 0 && v < p.vus)) fail(`VU ${v + 1} is outside VUS=${p.vus}: this workload must be the test's only scenario`);
  const nl = vuBatchCount(p.loadBatches, p.vus, v); const no = vuBatchCount(p.overwriteBatches, p.vus, v); const nm = vuBatchCount(p.mixedBatches, p.vus, v);
  let phase; let j;
  if (i < nl) { phase = 'load'; j = v + p.vus * i; } else if ((i -= nl) < no) { phase = 'overwrite'; j = v + p.vus * i; } else if ((i -= no) < nm) { phase = 'mixed'; j = v + p.vus * i; } else return;

  let keys; let fresh;
  if (phase === 'load') {
    keys = loadBatchKeys(j, cfg.DOCS, p.batchSize);
    fresh = keys.length;
  } else {
    ({ keys, fresh } = batchKeys(cfg, p, phase, j, state.pickers || (state.pickers = {}), runner.target.lazyKeys === true));
  }
  const op = p.ops[phase];
  const tags = { phase, op, target: runner.target.name };
  // Keys whose insert in the load phase failed do not exist: an acknowledged later write to
  // one creates it, and that new document is acknowledged too (else the count would show it
  // as unexpected). Only a VU that saw a failed load batch pays for the check.
  const absent = phase !== 'load' ? state.absent : null;
  const res = runner.write(op, keys, stampFor(phase, j), tags,
    { fresh, recreated: absent ? (r) => (r.failed < r.n ? created(absent, keys, fresh, r) : 0) : null });
  if (res.failed > 0) {
    noteOutcome(state.ledger || (state.ledger = new Map()), phase, j, res);
    if (phase === 'load') noteAbsent(state.absent || (state.absent = new Set()), keys, res);
  }
  if (iter === nl + no + nm - 1) {
    if (p.overwriteBatches + p.mixedBatches > 0 && cfg.READBACK > 0) readBack(runner.target, cfg, p, v, state);
    // The VU's plan is done: its connection goes back (a target that holds one: PostgreSQL).
    if (runner.target.release) runner.target.release();
  }
}


// The keys of a failed load batch that are not there: all of them when the batch failed
// whole, the named ones otherwise (a partial failure that names no document adds none, so the
// count may then show the document a later upsert creates as unexpected, never as lost).
function noteAbsent(absent, batch, res) {
  // An undetermined batch may have stored its keys: they are not known absent, so a later
  // write to them is not counted new (its batch's upper bound, lib/metrics.js, covers them).
  if (res.undetermined) return;
  const keys = keyArray(batch); // a load batch is a key range (lib/keys.js)
  if (res.failed >= res.n) for (const k of keys) absent.add(k);
  else if (res.failedIndexes) for (const i of res.failedIndexes) absent.add(keys[i]);
}

// How many absent keys this acknowledged batch created (and they are absent no more).
function created(absent, keys, fresh, res) {
  if (absent.size === 0) return 0;
  keys = keyArray(keys);
  const failed = res.failed === 0 ? null : res.failedIndexes ? new Set(res.failedIndexes) : undefined;
  if (failed === undefined) return 0; // which documents failed is unknown
  let n = 0;
  for (let t = fresh; t < keys.length; t++) {
    if (absent.has(keys[t]) && !(failed && failed.has(t))) { absent.delete(keys[t]); n++; }
  }
  return n;
}

// After its last batch, VU v reads back a sample of the keys it overwrote and judges each
// against its last ACKNOWLEDGED writer (lib/readback.js): only VU v = j % V writes the keys of
// batch j, in increasing j, overwrite before mixed, so the writers of a key are known exactly
// from the plan, and only this VU knows which of them failed (its ledger). Accepting any
// earlier writer would hide a lost write (what the PostgreSQL restart test caught); counting a
// failed later batch as a writer would report damage that did not happen.
export function readBack(target, cfg, p, v, state) {
  const mine = [];
  for (let j = v; j < p.overwriteBatches; j += p.vus) mine.push(['overwrite', j]);
  for (let j = v; j < p.mixedBatches; j += p.vus) mine.push(['mixed', j]);
  const total = mine.length * p.batchSize;
  // READBACK keys in all, split among the VUs like their batches.
  const want = Math.min(total, vuBatchCount(Math.min(cfg.READBACK, (p.overwriteBatches + p.mixedBatches) * p.batchSize), p.vus, v));
  if (want === 0) return null;
  const pickers = state.pickers || (state.pickers = {});
  const ledger = state.ledger || new Map();
  const { ops } = p;
  // The sample: `want` distinct positions b * B + t of this VU's batches.
  let chosen;
  if (want === total) {
    chosen = new Array(total);
    for (let i = 0; i < total; i++) chosen[i] = i;
  } else {
    const rng = new Rng(cfg.SEED, 'readback', v);
    chosen = pickDistinct(want, total, (r) => r.int(total), rng).sort((x, y) => x - y);
  }
  const sample = new Map(); // key -> its writers, in write order
  const writersOf = (k) => {
    let w = sample.get(k);
    if (!w) {
      w = [];
      // A loaded key's first writer is its load batch (floor(k / B), document k % B); a
      // fresh key of a mixed batch has no earlier writer.
      if (k < cfg.DOCS) { const lj = Math.floor(k / p.batchSize); w.push({ stamp: stampFor('load', lj), ack: ackOf(ledger, 'load', lj, k % p.batchSize), ignore: ops.load === 'ignore', by: 'l', phase: 'load' }); }
      sample.set(k, w);
    }
    return w;
  };
  // The batches that hold a sampled position keep their keys for the writers pass below (up
  // to CACHE_KEYS keys; beyond that they are recomputed, which costs time, not memory).
  const CACHE_KEYS = 2000000;
  const cache = new Map();
  let cached = 0;
  let next = 0;
  for (let b = 0; b < mine.length && next < chosen.length; b++) {
    const lo = b * p.batchSize; const hi = lo + p.batchSize;
    if (chosen[next] >= hi) continue;
    const keys = batchKeys(cfg, p, mine[b][0], mine[b][1], pickers).keys;
    if (cached + keys.length <= CACHE_KEYS) { cache.set(b, keys); cached += keys.length; }
    for (; next < chosen.length && chosen[next] < hi; next++) writersOf(keys[chosen[next] - lo]);
  }
  const sampled = new KeySet(sample.keys());
  const at = new Int32Array(p.batchSize);
  for (let b = 0; b < mine.length; b++) {
    const [phase, j] = mine[b];
    const keys = cache.get(b) || batchKeys(cfg, p, phase, j, pickers).keys;
    cache.delete(b);
    const stamp = stampFor(phase, j);
    const n = matchKeys(keys, sampled, at);
    for (let i = 0; i < n; i++) {
      const t = at[i];
      sample.get(keys[t]).push({ stamp, ack: ackOf(ledger, phase, j, t), ignore: ops[phase] === 'ignore', by: stamp, phase });
    }
  }
  const keys = Array.from(sample.keys());
  let stamps;
  try {
    stamps = target.readStamps(keys);
  } catch (e) {
    // Did not run is not OK: the run fails (exit 108) and teardown still deals with the objects.
    verifyError.add(1);
    stop(`verification did not run to its end: ${String(e).split('\n')[0].replace(/^(Error: )+/, '')}`);
    return null;
  }
  const counts = { ok: 0, excused: 0, unacknowledged: 0, resolved: 0, undetermined: 0, missing: 0, stale: 0 };
  // Undetermined writes the read-back shows were not applied are failed documents after all,
  // in their batch's phase (docs/configuration.md, "What each threshold counts").
  const unapplied = {};
  let unappliedOld = 0;
  let shown = 0;
  for (const k of keys) {
    const w = sample.get(k);
    const got = stamps.get(k);
    const verdict = judge(w, got);
    counts[verdict]++;
    const u = unappliedMaybe(w, got);
    for (const x of u.writes) unapplied[x.phase] = (unapplied[x.phase] || 0) + 1;
    if (u.existed) unappliedOld += u.writes.length;
    if ((verdict === 'stale' || verdict === 'missing') && shown++ < 5) {
      const failed = w.filter((x) => x.ack !== 'ack').map((x) => x.by);
      console.warn(`k6-writepath: key ${k} holds ${got === undefined ? 'nothing' : `version ${got}`}; the plan's writers of it: ${w.map((x) => x.by).join(',')}${failed.length ? ` (not acknowledged: ${failed.join(',')})` : ''}`);
    }
  }
  readbackChecked.add(keys.length);
  readbackStale.add(counts.stale + counts.missing);
  readbackExcused.add(counts.excused);
  readbackUnacknowledged.add(counts.unacknowledged);
  readbackUndetermined.add(counts.undetermined);
  readbackResolved.add(counts.resolved);
  readbackJudged.add(keys.length - counts.undetermined);
  for (const [phase, n] of Object.entries(unapplied)) docsFailedKnown.add(n, { phase, op: ops[phase], target: target.name });
  // A new key's unapplied write is already in the count's share (lib/metrics.js recordBatch).
  docsFailedResolved.add(unappliedOld);
  return Object.assign(counts, { checked: keys.length });
}

// After the run: the database must hold exactly the planned documents (the summary holds the
// count against the acknowledged ones). The read-back of overwritten keys was done by the VUs
// (readBack above).
export function verify(target, cfg, p) {
  if (p.loadModel) return ramp.verify(target, cfg, p);
  const found = target.count();
  verifyFound.add(found);
  verifyExpected.add(p.expectedDocs);
  verifyMismatch.add(Math.abs(found - p.expectedDocs));
  return { expected: p.expectedDocs, found, readback: null };
}
