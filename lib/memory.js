// The client memory a run needs: an estimate of the k6 process's peak RSS, checked against
// MEMORY_BUDGET_MB before anything is written (docs/capacity.md "Memory"). The one home of
// the formula: the refusal of a run (lib/scenario.js), the capacity search's VU allocation
// (scripts/capacity.mjs) and the bench's comparison with measured peaks (bench/memory.mjs).
// No k6 module here: Node scripts use it too.
//
// What a VU holds (k6's heap profiles, bench/memory.mjs "profile"):
//   - its JavaScript runtime: the pack's modules, closures and metrics (RUNTIME);
//   - one body per request format its phases send (lib/docs.js bodyBuilder: every batch of a
//     format patches the same bytes), BATCH_SIZE documents plus their padding; a shape without a
//     byte path (random-shapes) builds a string per batch instead, which becomes bytes per request;
//   - what the transport keeps of a batch: k6's copy of every HTTP request body (its response's
//     request.body); every target posts its batches over HTTP (PostgreSQL and MongoDB to the
//     gateway, docs/gateway.md);
//   - the answer kept as text (ArangoDB lists every document of a batch);
//   - the marks of its overwrite picks: a byte per key it loaded, at most 4 MiB (lib/keys.js).
// Go's collector lets the heap grow to about twice what is live before it collects
// (GOGC=100) and the process keeps what it grew to, so the peak RSS is about GC times the live
// bytes, on top of what k6 needs with its first VU (BASE). The constants are measured, not
// derived: bench/memory.mjs runs every scenario over BATCH_SIZE 1000-50000 and 1-200 VUs and
// shows the estimate beside the measured peak (bench/RESULTS.md, "Memory estimate").
import { fail } from './parse.js';

export const MEMORY_MODEL = {
  BASE: 65, // MiB: k6, its modules and the init contexts besides the VUs
  RUNTIME: 0.8, // MiB live per VU: the pack's JavaScript
  GC: 2.0, // peak RSS per live byte
  PAD: 24, // bytes a byte body adds per document (key and stamp regions, stride)
  // What the transport keeps: `copy` of a batch body per VU (k6 copies every HTTP request body
  // and keeps it with the response), `fixed` MiB per VU (k6's response objects and per-request
  // state), `answer` bytes per document of a batch's answer kept as text (ArangoDB lists every
  // document; the gateway answers PostgreSQL and MongoDB batches with counts, so it over-counts
  // them slightly).
  TRANSPORT: {
    http: { copy: 1, fixed: 0.8, answer: 60 },
  },
};

const MIB = 1048576;
const MARKS_MAX = 4 * MIB;

// Bytes of one document of the configured shape (lib/docs.js builds them; measured there).
export function docBytes(cfg) {
  if (cfg.DOC_SHAPE === 'e1') return cfg.DOC_BYTES;
  if (cfg.DOC_SHAPE === 'user') return 330;
  if (cfg.DOC_SHAPE === 'random-shapes') return 20 + cfg.COMPLEXITY * 20; // "a<n>_<i>":<value>
  return 20 + cfg.COMPLEXITY * 27; // complexity: "test<i>":"some test value"
}

// The estimate for `vus` VUs of a run writing batches of batchSize documents of docBytes each:
//   formats    request formats one VU sends (bodies it holds): 0 when it writes single documents;
//   transport  'http' (k6 keeps a copy of every request body): the one MEMORY_MODEL.TRANSPORT;
//   strings    bodies are text built per batch (no byte path for the shape);
//   marks      bytes of overwrite marks per VU; setupBodies: bodies the setup context builds.
// -> { mib, perVuMib, baseMib, live: { runtime, bodies, transport, answer, marks } (MiB per VU) }
export function memoryEstimate({ vus, batchSize, docBytes: d, formats = 1, transport = 'http', strings = false, marks = 0, setupBodies = 0 }) {
  const M = MEMORY_MODEL;
  const T = M.TRANSPORT[transport];
  if (!T) throw new Error(`lib/memory.js: no model of transport '${transport}' (MEMORY_MODEL.TRANSPORT)`);
  const body = batchSize * (d + (strings ? 0 : M.PAD));
  const sent = formats > 0 || strings ? body : d; // a batch, or a single document
  const live = {
    runtime: M.RUNTIME,
    bodies: (strings ? 2 : formats) * body / MIB,
    transport: T.copy * sent / MIB + T.fixed,
    answer: batchSize * T.answer / MIB,
    marks: Math.min(marks, MARKS_MAX) / MIB,
  };
  const perVuMib = M.GC * Object.values(live).reduce((a, b) => a + b, 0);
  const baseMib = M.BASE + M.GC * setupBodies * body / MIB;
  return { mib: Math.ceil(baseMib + vus * perVuMib), perVuMib, baseMib, live };
}

// The most VUs of a plan that run at once, and the knob that sets them.
export function peakVus(cfg, plan) {
  const lm = plan.loadModel || null;
  const vus = Math.max(plan.vus || 1, lm ? lm.maxVUs || 0 : 0);
  const knob = lm && lm.open ? 'MAX_VUS' : lm ? 'STAGES' : 'VUS';
  return { vus, knob };
}

// The estimate's inputs for a run: its configuration, its plan (lib/workloads/*.js plan():
// VUs, and target: batch size and the operations it writes) and its target's declaration
// (lib/targets/<db>/<db>-knobs.js memory: transport, formats(operations)).
export function runMemory(cfg, plan, declaration) {
  const t = plan.target || {};
  const ops = Object.keys(t.writes || {});
  const mem = declaration.memory; // every target declares it (test/unit/target-declarations.test.mjs)
  const batchSize = t.batchSize || cfg.BATCH_SIZE;
  const strings = cfg.DOC_SHAPE === 'random-shapes' && ops.length > 0;
  const { vus, knob } = peakVus(cfg, plan);
  // overwrite picks mark the keys their VU loaded
  const marks = plan.overwriteBatches || plan.mixedBatches ? Math.ceil(cfg.DOCS / vus) : 0;
  const input = { vus, batchSize, docBytes: docBytes(cfg), formats: ops.length ? mem.formats(ops) : 0, transport: mem.transport, strings, marks, setupBodies: plan.preload ? 1 : 0 };
  return { input, knob, estimate: memoryEstimate(input) };
}

// How many VUs fit in budgetMib, everything else of `input` as given.
export function vusThatFit(budgetMib, input) {
  const e = memoryEstimate({ ...input, vus: 1 });
  return Math.max(0, Math.floor((budgetMib - e.baseMib) / e.perVuMib));
}

// The largest batch size that fits in budgetMib with input's VUs (0 when none does).
export function batchThatFits(budgetMib, input) {
  let lo = 0; let hi = input.batchSize;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (memoryEstimate({ ...input, batchSize: mid }).mib <= budgetMib) lo = mid; else hi = mid - 1;
  }
  return lo;
}

// Refuses a run whose estimate exceeds MEMORY_BUDGET_MB: one line with the estimate, what it
// is made of, and what to lower (exit 107, lib/parse.js fail), before any VU exists.
export function checkMemory(cfg, plan, declaration) {
  const { input, knob, estimate } = runMemory(cfg, plan, declaration);
  const budget = cfg.MEMORY_BUDGET_MB;
  if (estimate.mib <= budget) return estimate;
  const fitVus = vusThatFit(budget, input);
  const fitBatch = batchThatFits(budget, input);
  const vuValue = knob === 'STAGES' ? `${input.vus} VUs at the peak of STAGES` : `${knob}=${input.vus}`;
  const lower = [fitVus > 0 ? `${knob === 'STAGES' ? 'the STAGES peak' : knob} to ${fitVus}` : null,
    fitBatch > 0 ? `BATCH_SIZE to ${fitBatch}` : null].filter(Boolean).join(' or ');
  fail(`MEMORY_BUDGET_MB=${budget} is too small for this run: ${vuValue} with BATCH_SIZE=${input.batchSize} needs about ${estimate.mib} MiB `
    + `(${Math.round(estimate.baseMib)} MiB for k6 and ${estimate.perVuMib.toFixed(1)} MiB per VU; docs/capacity.md "Memory"); `
    + `${lower ? `lower ${lower}, ` : ''}or raise MEMORY_BUDGET_MB to ${estimate.mib} if the machine has it`);
  return estimate;
}
