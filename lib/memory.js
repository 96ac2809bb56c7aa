// The client memory a run needs: an estimate of the k6 process's peak RSS, from what each VU
// holds (docs/capacity.md "Memory"), against MEMORY_BUDGET_MB. One home for the formula: the
// refusal of a run (lib/experiment.js), the capacity search's VU allocation (scripts/capacity.mjs)
// and the bench's comparison with measured peaks (bench/memory.mjs) all call memoryEstimate().
//
// What a VU holds (measured with k6's heap profiles, bench/memory.mjs "profile"):
//   - its JavaScript runtime: the pack's modules and closures (RUNTIME_MIB);
//   - one body per request format its phases send (lib/docs.js bodyBuilder: every batch of a
//     format patches the same bytes), batchSize documents of about stride bytes each; shapes
//     without a byte path build a string per batch instead, which k6 then copies into bytes;
//   - what the transport keeps of the last batch: k6's copy of every HTTP request body
//     (response.request.body), or lib/pq's message while a statement is sent;
//   - the answer (ArangoDB lists every document: ~60 bytes each);
//   - the key marks of its overwrite picks (1 byte per key it loaded, lib/keys.js BatchPicker).
// Go's collector lets the heap grow to about twice what is live before it collects
// (GOGC=100) and the process keeps what it grew to: the peak RSS is about GC_FACTOR times the
// live bytes, above what k6 itself needs with one VU (BASE_MIB).
export const MEMORY_MODEL = {
  BASE_MIB: 60, // k6, its modules, the first VU's runtime, setup/teardown contexts
  RUNTIME_MIB: 1.0, // the pack's JavaScript per VU, live
  GC_FACTOR: 2.2, // peak RSS per live byte
  STRIDE_PAD: 16, // bytes of whitespace a byte body adds per document (bodyBuilder's layout)
  ANSWER_BYTES: { http: 60, sql: 0 }, // per document of a batch's answer kept as text
};

const MIB = 1048576;

// plan: { vus, batchSize, docBytes, formats, transport: 'http'|'sql', strings: bool, marks }
//   vus        the most VUs that run at once (STAGES peak, MAX_VUS of an open model);
//   formats    request formats one VU sends (bodies it holds); 0 for single-document writes;
//   strings    bodies built as text per batch (a shape without a pool: random-shapes);
//   marks      bytes of overwrite marks per VU (keys it loaded, at most 4 MiB).
// -> { mib, perVuMib, baseMib, parts: { runtime, bodies, transport, answer, marks } } in MiB.
export function memoryEstimate({ vus, batchSize, docBytes, formats = 1, transport = 'http', strings = false, marks = 0 }) {
  const M = MEMORY_MODEL;
  const body = batchSize * (docBytes + (strings ? 0 : M.STRIDE_PAD));
  // a string body: the text, and the bytes k6 or the driver makes of it per request
  const bodies = strings ? 2 * body : formats * body;
  const parts = {
    runtime: M.RUNTIME_MIB,
    bodies: bodies / MIB,
    transport: body / MIB, // k6's request copy, or the driver's message
    answer: (batchSize * (M.ANSWER_BYTES[transport] || 0)) / MIB,
    marks: marks / MIB,
  };
  const live = parts.runtime + parts.bodies + parts.transport + parts.answer + parts.marks;
  const perVuMib = M.GC_FACTOR * live;
  return { mib: Math.ceil(M.BASE_MIB + vus * perVuMib), perVuMib, baseMib: M.BASE_MIB, parts };
}

// How many VUs fit in budgetMib with everything else of the estimate as given.
export function vusThatFit(budgetMib, plan) {
  const one = memoryEstimate({ ...plan, vus: 1 });
  return Math.max(0, Math.floor((budgetMib - one.baseMib) / one.perVuMib));
}
