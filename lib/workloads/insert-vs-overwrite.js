// E1 (docs/experiments.md): insert vs. insert-with-overwrite. Phases:
//   load       DOCS new documents in batches of BATCH_SIZE (op insert: a duplicate fails)
//   overwrite  OVERWRITE_BATCHES batches of BATCH_SIZE existing keys picked at random (op upsert)
//   mixed      MIXED_BATCHES batches with MIXED_NEW_PERCENT new keys, the rest existing (op upsert)
// The phase counts are exact, so the scenario is one k6 `per-vu-iterations` scenario in which
// every VU works through its share of each phase in order (keys.js explains why no VU ever
// overwrites a key that is not loaded yet). This module knows nothing about databases: the
// target adapter does the writing.
import exec from 'k6/execution';
import { fail } from '../config.js';
import { BatchPicker, OwnedKeys, loadBatchCount, loadBatchKeys, pickDistinct, vuBatchCount } from '../keys.js';
import { Rng } from '../rand.js';
import { stampFor } from '../docs.js';
import { recordBatch, verifyExpected, verifyFound, verifyMismatch, readbackChecked, readbackStale } from '../metrics.js';
import { loadModel } from '../load-model.js';
import * as ramp from './e1-ramp.js';

export const EXPERIMENT = 'insert-vs-overwrite';
export const PHASES = ['load', 'overwrite', 'mixed'];

// STAGES / RATE_STAGES: the last phase ramps instead (lib/workloads/e1-ramp.js).
export function plan(cfg) {
  const lm = loadModel(cfg);
  if (lm) return ramp.rampPlan(cfg, lm);
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
  const perVu = [];
  for (let v = 0; v < V; v++) perVu.push([vuBatchCount(L, V, v), vuBatchCount(O, V, v), vuBatchCount(Mx, V, v)]);
  const iterations = Math.max(...perVu.map((c) => c[0] + c[1] + c[2]));
  const expectedDocs = (runs('load') ? cfg.DOCS : 0) + Mx * newPer;
  return { V, B, L, O, M: Mx, newPer, perVu, iterations, expectedDocs };
}

export function scenarios(cfg, p) {
  if (p.lm) return ramp.scenarios(cfg, p);
  return {
    [EXPERIMENT]: {
      executor: 'per-vu-iterations',
      vus: p.V,
      iterations: Math.max(1, p.iterations),
      maxDuration: cfg.MAX_DURATION,
      gracefulStop: '30s',
    },
  };
}

// The keys of overwrite or mixed batch j, recomputable anywhere from (SEED, phase, j): the
// fresh keys of a mixed batch first, then distinct keys VU j % V loaded, drawn by
// BatchPicker (lib/keys.js: pickDistinct + OwnedKeys.at without a method call per key).
export function batchKeys(cfg, p, phase, j, pickers) {
  const v = j % p.V;
  let picker = pickers[v];
  if (!picker) picker = pickers[v] = new BatchPicker(cfg, new OwnedKeys(cfg.DOCS, p.B, p.V, v));
  const fresh = phase === 'mixed' ? p.newPer : 0;
  const keys = new Array(p.B);
  const first = cfg.DOCS + j * p.newPer;
  for (let t = 0; t < fresh; t++) keys[t] = first + t;
  picker.fill(p.B - fresh, new Rng(cfg.SEED, phase, j), keys, fresh);
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
  const ops = opsFor(cfg);
  const out = ['count'];
  if (p.L > 0) out.push(`batch:${ops.load}`);
  if (p.O > 0) out.push(`batch:${ops.overwrite}`);
  if (p.M > 0) out.push(`batch:${ops.mixed}`);
  if (p.O + p.M > 0 && cfg.READBACK > 0) out.push('readback');
  return out;
}

// The plan as the report shows it (lib/report.js): E1's batches, per phase (a ramped run:
// its load model, lib/workloads/e1-ramp.js).
export function describe(cfg, p) {
  return {
    line: p.lm ? ramp.describeLine(cfg, p) : `workload: ${p.V} VUs · batches of ${p.B} · ${cfg.DOC_SHAPE} documents · keys ${cfg.KEY_DIST} · seed ${cfg.SEED}`,
    plan: { vus: p.V, batch_size: p.B, load_batches: p.L, overwrite_batches: p.O, mixed_batches: p.M, new_keys_per_mixed_batch: p.newPer, expected_docs: p.expectedDocs },
    plannedBatches: p.L + p.O + p.M,
  };
}

export function extraThresholds(cfg, p, reasons) {
  return p.lm ? ramp.extraThresholds(cfg, p, reasons) : {};
}

export function prepare(target, cfg, p) {
  if (p.lm) ramp.prepare(target, cfg, p, opsFor(cfg));
}

// A ramped run reports per stage (lib/workloads/e1-ramp.js); the fixed plan has no sections.
export function sections(data, meta) {
  return meta.plan.lm ? ramp.sections(data, meta) : {};
}

// One iteration of a VU: the next batch of its plan.
export function iteration(target, cfg, p, state) {
  if (!state.ops) state.ops = opsFor(cfg);
  if (p.lm) return ramp.iteration(target, cfg, p, state, state.ops);
  const v = exec.vu.idInTest - 1;
  let i = exec.vu.iterationInScenario;
  // idInTest is global across --execution-segment instances (one scenario: 1..VUS split
  // among the instances), so VU v owns the same batches whichever instance runs it.
  if (!p.perVu[v]) fail(`VU ${v + 1} is outside VUS=${p.V}: this workload must be the test's only scenario`);
  const [nl, no, nm] = p.perVu[v];
  let phase; let j;
  if (i < nl) { phase = 'load'; j = v + p.V * i; } else if ((i -= nl) < no) { phase = 'overwrite'; j = v + p.V * i; } else if ((i -= no) < nm) { phase = 'mixed'; j = v + p.V * i; } else return;

  let keys; let fresh;
  if (phase === 'load') {
    keys = loadBatchKeys(j, cfg.DOCS, p.B);
    fresh = keys.length;
  } else {
    ({ keys, fresh } = batchKeys(cfg, p, phase, j, state.pickers || (state.pickers = {})));
  }
  const op = state.ops[phase];
  const tags = { phase, op, target: target.name };
  const startedAt = Date.now();
  const res = target.write(op, keys, stampFor(phase, j), tags);
  recordBatch(tags, res, fresh, startedAt);
  // A target asks for the abort (auth refused, table gone) only once the batch is counted.
  if (res.abort) exec.test.abort(res.abort);
}


// After the run: the database must hold exactly the planned documents, and a sample of the
// overwritten keys must hold the version of the LAST batch that chose them (E1: an overwrite
// that skips the old revision can leave counts wrong or both versions visible). The last
// writer is known exactly: only VU v = j % V writes the keys of batch j, in increasing j,
// overwrite before mixed. Accepting any earlier writer would hide a lost write (a failed or
// silently dropped later batch), which is what the PostgreSQL restart test caught.
export function verify(target, cfg, p) {
  if (p.lm) return ramp.verify(target, cfg, p);
  const found = target.count();
  verifyFound.add(found);
  const result = { expected: p.expectedDocs, found, readback: { checked: 0, stale: 0, missing: 0, examples: [] } };
  verifyExpected.add(p.expectedDocs);
  verifyMismatch.add(Math.abs(found - p.expectedDocs));

  const batches = [];
  for (let j = 0; j < p.O; j++) batches.push(['overwrite', j]);
  for (let j = 0; j < p.M; j++) batches.push(['mixed', j]);
  if (cfg.READBACK > 0 && batches.length > 0) {
    const rng = new Rng(cfg.SEED, 'readback');
    const pickers = {};
    const writers = new Map(); // key -> stamps that wrote it
    const total = batches.length * p.B;
    const want = Math.min(cfg.READBACK, total);
    // The sample: keys at `want` distinct positions b * B + t of all batches (the same
    // positions, hence keys, as before the keys of a batch were computed only once).
    const chosen = pickDistinct(want, total, (r) => r.int(total), rng).sort((x, y) => x - y);
    // Each batch's keys are computed once: the batches that hold a sampled position keep
    // theirs for the writers pass below (up to CACHE_KEYS keys; beyond that they are
    // recomputed, which costs time, not memory).
    const CACHE_KEYS = 2000000;
    const cache = new Map(); // b -> keys
    let cached = 0;
    const keysOf = (b) => {
      let ks = cache.get(b);
      if (!ks) {
        ks = batchKeys(cfg, p, batches[b][0], batches[b][1], pickers).keys;
        if (cached + ks.length <= CACHE_KEYS) { cache.set(b, ks); cached += ks.length; }
      }
      return ks;
    };
    const sample = new Set();
    let last = -1; let lastKeys = null;
    for (const pos of chosen) {
      const b = Math.floor(pos / p.B);
      if (b !== last) { last = b; lastKeys = keysOf(b); }
      sample.add(lastKeys[pos % p.B]);
    }
    // Only VU j % V writes the keys of batch j: the VUs that loaded a sampled key (or wrote
    // it as a fresh key of a mixed batch, which no other batch writes) are the only ones
    // whose batches can have written it.
    const vus = new Set();
    for (const k of sample) vus.add(k < cfg.DOCS ? Math.floor(k / p.B) % p.V : Math.floor((k - cfg.DOCS) / p.newPer) % p.V);
    const ops = opsFor(cfg);
    for (let b = 0; b < batches.length; b++) {
      const [phase, j] = batches[b];
      if (!vus.has(Number(j) % p.V)) continue;
      const keys = keysOf(b);
      cache.delete(b);
      for (let t = 0; t < keys.length; t++) {
        const k = keys[t];
        if (sample.has(k)) {
          if (!writers.has(k)) writers.set(k, []);
          const w = writers.get(k);
          // ArangoDB overwriteMode=ignore writes only keys that do not exist yet: an
          // existing key keeps its last writer (the load batch when nothing else wrote it).
          if (ops[phase] === 'ignore') {
            if (w.length === 0) w.push(k < cfg.DOCS ? stampFor('load', 0) : stampFor(phase, j));
          } else {
            w.push(stampFor(phase, j));
          }
        }
      }
    }
    const keys = Array.from(sample);
    const stamps = target.readStamps(keys);
    for (const k of keys) {
      const got = stamps.get(k);
      result.readback.checked++;
      if (got === undefined) {
        result.readback.missing++;
      } else if (got !== writers.get(k)[writers.get(k).length - 1]) {
        result.readback.stale++;
        if (result.readback.examples.length < 5) result.readback.examples.push({ key: k, found: got, writtenBy: writers.get(k) });
      }
    }
  }
  readbackChecked.add(result.readback.checked);
  readbackStale.add(result.readback.stale + result.readback.missing);
  return result;
}
