// E3 (docs/experiments.md): arangobench's test cases over REST, including the two that
// arangobench dropped in 3.10 (multi-collection, random-shapes). One operation is one
// arangobench "request"; operation n belongs to cycle c = floor(n / L) of the case's
// sequence (crud: insert, read, update, read, delete on key c), as in arangobench's
// globalCounter % L.
//
// Why per-vu-iterations and not shared-iterations or ramping VUs: REQUESTS must be exact
// and the operations of one cycle must run in order (a read of key c before its insert
// would count a failure that is the load generator's fault). So cycle c belongs to VU
// c % VUS, which runs its cycles' operations one after another; VUs with fewer operations
// finish early. Ramping would change which VU owns a cycle mid-run, so concurrency is
// fixed at VUS (E3 itself compares fixed concurrency levels 1, 2, 4).
//
// It runs on any target that offers single-document operations (and, for multi-collection,
// transactions over two collections; for persistent-index, indexes on its own field):
// needs() below, lib/capabilities.js. Today that is the ArangoDB target.
import exec from 'k6/execution';
import { fail } from '../parse.js';
import { vuBatchCount, keyName } from '../keys.js';
import { createDocs } from '../docs.js';
import { countOnly, verifyExpected, verifyFound, verifyMismatch, readbackChecked, readbackStale, verifyUnaccounted, rampKeysExhausted, docsFailedResolved } from '../metrics.js';
import { describeModel, fixedScenario, loadModel, rampPosition, rampScenario, stageSection, stageThresholds } from '../load-model.js';
import { M } from '../metric-names.js';
import { e3Report } from '../report-e3.js';

export const EXPERIMENT = 'arangobench';
export const PHASES = ['run'];

// The operations of one cycle per case, as arangobench's test cases define them
// (arangodb/arangodb, arangosh/Benchmark/testcases/*.h).
export const CASES = {
  document: ['insert'],
  crud: ['insert', 'read', 'update', 'read', 'delete'],
  'crud-append': ['insert', 'read', 'update', 'read'],
  'crud-write-read': ['insert', 'read'],
  'multi-collection': ['transaction'],
  'random-shapes': ['insert', 'read', 'delete'],
  'persistent-index': ['insert', 'read', 'update', 'read'],
};

// Documents a cycle leaves behind once its first k operations ran.
function leftBehind(seq, k) {
  let docs = 0;
  for (let i = 0; i < k; i++) {
    if (seq[i] === 'insert') docs++;
    if (seq[i] === 'delete') docs--;
  }
  return docs;
}

// What the target prepares: the collections and the indexes on the case's own field; no
// batches (single-document operations and transactions only).
function targetPart(multi, name) {
  return { collections: multi ? 2 : 1, indexFields: name === 'persistent-index' ? ['value'] : [], writes: {} };
}

export function plan(cfg) {
  const name = cfg.ARANGOBENCH_CASE;
  const seq = CASES[name];
  const L = seq.length;
  // Under a load model (STAGES / RATE_STAGES) one iteration is one whole cycle of the case,
  // run in order by one VU on its own key (cycle number = the run-wide batch number), so the
  // order within a cycle holds whatever the model does; REQUESTS does not apply (the stages
  // decide how many cycles run) and the count is checked against the acknowledged writes.
  const lm = loadModel(cfg);
  if (lm) {
    if (cfg.DISTRIBUTED !== '0') fail(`DISTRIBUTED=${cfg.DISTRIBUTED} is not allowed with ${lm.open ? 'RATE_STAGES' : 'STAGES'} on arangobench yet: ramped cycles are numbered per process`);
    const multi = name === 'multi-collection';
    return {
      name, seq, cycleLength: L, requests: null, vus: lm.vus, cycles: null, perVu: null, iterations: null, loadModel: lm,
      collections: multi ? 2 : 1, indexFields: name === 'persistent-index' ? ['value'] : [],
      expectedPerCollection: null, expectedDocs: null,
      target: targetPart(multi, name),
    };
  }
  const R = cfg.REQUESTS;
  const V = cfg.VUS;
  const cycles = Math.ceil(R / L);
  if (V > cycles) fail(`VUS=${V} is not allowed: at most ${cycles} with ARANGOBENCH_CASE=${name} and REQUESTS=${R} (one ${L}-operation cycle per VU at least)`);
  const lastLen = R - (cycles - 1) * L;
  const perVu = [];
  for (let v = 0; v < V; v++) {
    const owned = vuBatchCount(cycles, V, v);
    const ownsLast = (cycles - 1) % V === v;
    perVu.push(owned * L - (ownsLast ? L - lastLen : 0));
  }
  const perCollection = (cycles - 1) * leftBehind(seq, L) + leftBehind(seq, lastLen);
  const multi = name === 'multi-collection';
  return {
    name, seq, cycleLength: L, requests: R, vus: V, cycles, perVu,
    iterations: Math.max(...perVu),
    collections: multi ? 2 : 1,
    indexFields: name === 'persistent-index' ? ['value'] : [],
    expectedPerCollection: multi ? R : perCollection,
    expectedDocs: multi ? 2 * R : perCollection,
    target: targetPart(multi, name),
  };
}

export function scenarios(cfg, p) {
  if (p.loadModel) return rampScenario(EXPERIMENT, cfg, p.loadModel);
  return fixedScenario(EXPERIMENT, cfg, p.vus, p.iterations);
}

export function opsFor(cfg) {
  return { run: cfg.ARANGOBENCH_CASE };
}

// What the target must offer (lib/capabilities.js).
export function needs(cfg, p) {
  const out = ['count'];
  if (p.seq.some((op) => op !== 'transaction')) out.push('single');
  if (p.collections > 1) out.push('transactions', `collections:${p.collections}`);
  if (p.indexFields.length > 0) out.push('planIndexes');
  return out;
}

// The plan as the report shows it (lib/report.js). Verification holds the database against
// the plan's count (crud deletes what it inserted), not against the acknowledged inserts.
// A ramped run has no planned count: the database must hold the acknowledged inserts minus
// the acknowledged deletes (crud, random-shapes delete what they inserted).
export function describe(cfg, p) {
  return {
    line: p.loadModel ? `workload: ${describeModel(p.loadModel)} (one iteration = one cycle of ${p.cycleLength} operations) · case ${p.name} · complexity ${cfg.COMPLEXITY}`
      : `workload: ${p.vus} VUs · case ${p.name} · complexity ${cfg.COMPLEXITY} · ${p.requests} operations in cycles of ${p.cycleLength} (${p.seq.join(', ')})`,
    plan: { vus: p.vus, case: p.name, requests: p.requests, cycle: p.seq, cycles: p.cycles, collections: p.collections, expected_docs: p.expectedDocs },
    plannedBatches: null,
    readback: null, // single-document operations: nothing to read back
    acknowledgedDeletes: p.loadModel ? (data) => (data.metrics[`${M.docsOk}{op:delete}`] ? data.metrics[`${M.docsOk}{op:delete}`].values.count : 0) : undefined,
  };
}

// Per-operation sub-metrics, so the E3 table can show latency per operation kind.
export function extraThresholds(cfg, p, reasons) {
  const t = p && p.loadModel ? Object.assign(stageThresholds(p.loadModel, reasons, EXPERIMENT), { [M.rampKeysExhausted]: ['count==0'] }) : {};
  for (const op of new Set(CASES[cfg.ARANGOBENCH_CASE])) {
    t[`${M.batchDuration}{op:${op}}`] = [];
    t[`${M.docsFailed}{op:${op}}`] = [];
    t[`${M.docsOk}{op:${op}}`] = [];
  }
  return t;
}

// Bodies are built from fragments made once per VU; only the key (and, for
// random-shapes, the attribute names, which is the point of that case) varies.
function bodies(cfg, p, keyField) {
  const C = cfg.COMPLEXITY;
  const attrs = (fmt) => { const a = new Array(C); for (let i = 0; i < C; i++) a[i] = fmt(i + 1); return a.join(','); };
  const head = (c) => `{"${keyField}":"${keyName(c)}"`;
  switch (p.name) {
    case 'document':
    case 'multi-collection': {
      const tail = `,${attrs((i) => `"test${i}":"some test value"`)}}`;
      return { insert: (c) => `${head(c)}${tail}` };
    }
    case 'random-shapes': {
      const docs = createDocs(Object.assign({}, cfg, { DOC_SHAPE: 'random-shapes' }), { keyField });
      return { insert: (c) => docs.doc(c, 'b') };
    }
    case 'persistent-index':
      return { insert: (c) => `${head(c)},"value":${c}}`, update: (c) => `{"value":${c + 1}}` };
    default: {
      const tail = `,${attrs((i) => `"value${i}":true`)}}`;
      const update = `{${attrs((i) => `"value${i}":false`)}}`;
      return { insert: (c) => `${head(c)}${tail}`, update: () => update };
    }
  }
}

// One operation of cycle c, through the batch runner (lib/targets/outcome.js).
function runOp(runner, b, op, c, tags) {
  if (op === 'transaction') {
    const d = b.insert(c);
    return runner.transaction([d, d], tags, { fresh: 2 });
  }
  const body = op === 'insert' ? b.insert(c) : op === 'update' ? b.update(c) : null;
  return runner.single(op, 0, keyName(c), body, tags, { fresh: op === 'insert' ? 1 : 0 });
}

// A ramped iteration: the whole cycle of cycle number n, in order. A failed operation ends
// the cycle (the ones after it would fail for the load generator's reason, not the server's).
function rampCycle(runner, p, state) {
  const { s, n } = rampPosition(p.loadModel, exec, Date.now());
  if (!state.tags) state.tags = p.loadModel.stages.map((_, i) => p.seq.map((op) => ({ phase: 'run', op, target: runner.target.name, stage: String(i + 1) })));
  if (n < 0) { rampKeysExhausted.add(1, state.tags[s][0]); return; }
  for (let m = 0; m < p.cycleLength; m++) {
    const res = runOp(runner, state.bodies, p.seq[m], n, state.tags[s][m]);
    // An acknowledged delete removes a document the count would otherwise expect.
    if (p.seq[m] === 'delete' && res.failed === 0) { verifyUnaccounted.add(-1, state.tags[s][m]); docsFailedResolved.add(-1, state.tags[s][m]); }
    if (res.failed > 0) return;
  }
}

export function iteration(runner, cfg, p, state) {
  if (!state.bodies) state.bodies = bodies(cfg, p, runner.target.keyField);
  if (p.loadModel) return rampCycle(runner, p, state);
  const v = exec.vu.idInTest - 1;
  const i = exec.vu.iterationInScenario;
  const c = v + p.vus * Math.floor(i / p.cycleLength);
  const m = i % p.cycleLength;
  if (c * p.cycleLength + m >= p.requests) return;
  const op = p.seq[m];
  runOp(runner, state.bodies, op, c, { phase: 'run', op, target: runner.target.name });
}


// After the run every collection must hold exactly what the case leaves behind (crud
// deletes its documents; multi-collection leaves REQUESTS in each of the two collections).
export function verify(target, cfg, p) {
  const counts = p.collections > 1 ? target.countAll() : [target.count()];
  const found = counts.reduce((s, x) => s + x, 0);
  if (p.loadModel) {
    // Compared in the summary with the documents the acknowledged operations left behind.
    return countOnly(found);
  }
  const perCollectionOk = counts.every((x) => x === p.expectedPerCollection);
  verifyExpected.add(p.expectedDocs);
  verifyFound.add(found);
  verifyMismatch.add(perCollectionOk ? Math.abs(found - p.expectedDocs) : Math.max(1, Math.abs(found - p.expectedDocs)));
  readbackChecked.add(0);
  readbackStale.add(0);
  if (!perCollectionOk) console.warn(`k6-writepath: per-collection counts ${counts.join(', ')}, expected ${p.expectedPerCollection} each`);
  return { expected: p.expectedDocs, found, readback: { checked: 0, stale: 0, missing: 0, examples: [] } };
}

// E3's table before the usual report; a ramped run adds its per-stage section after it.
export function sections(data, meta) {
  const e3 = e3Report(data, meta);
  if (!meta.plan.loadModel) return e3;
  const st = stageSection(data, { model: meta.plan.loadModel, batchSize: 1, reasons: meta.target.reasons, name: EXPERIMENT, note: 'rows are operations, one per request' });
  return { before: e3.before, after: st.after, json: { ...e3.json, ...st.json } };
}
