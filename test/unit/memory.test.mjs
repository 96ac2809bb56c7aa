// The client memory estimate (lib/memory.js): what it is made of, that it grows as a VU's
// holdings do, the refusal line and the values it proposes (they must fit, one more must not).
// Whether the estimate is close to a measured peak is the bench's question (bench/memory.mjs),
// never this test's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MEMORY_MODEL, batchThatFits, checkMemory, docBytes, memoryEstimate, peakVus, runMemory, vusThatFit } from '../../lib/memory.js';
import { TARGETS } from '../../lib/targets/index.js';

const M = MEMORY_MODEL;
const MIB = 1048576;
const decl = Object.fromEntries(TARGETS.map((t) => [t.name, t]));
const cfg = (over = {}) => ({ DOC_SHAPE: 'e1', DOC_BYTES: 1200, COMPLEXITY: 10, DOCS: 200000, BATCH_SIZE: 1000, VUS: 10, MEMORY_BUDGET_MB: 2048, ...over });
// plan shapes as lib/workloads/*.js plan() returns them (vus, loadModel, target.writes)
const e1 = (vus, writes = { insert: ['l'], upsert: [] }, over = {}) => ({ vus, overwriteBatches: 20, mixedBatches: 10, target: { batchSize: 1000, maxKey: 200000, writes }, ...over });

test('the estimate is k6 plus, per VU, its runtime, one body per request format, what the transport keeps, the answer and the marks, times the GC factor', () => {
  const input = { vus: 10, batchSize: 1000, docBytes: 1200, formats: 1, transport: 'http', marks: 20000 };
  const e = memoryEstimate(input);
  const body = 1000 * (1200 + M.PAD) / MIB;
  const T = M.TRANSPORT.http;
  assert.equal(e.live.bodies, body);
  assert.equal(e.live.transport, T.copy * body + T.fixed);
  assert.equal(e.live.answer, 1000 * T.answer / MIB);
  assert.equal(e.live.marks, 20000 / MIB);
  assert.equal(e.live.runtime, M.RUNTIME);
  const perVu = M.GC * (M.RUNTIME + body + e.live.transport + e.live.answer + e.live.marks);
  assert.ok(Math.abs(e.perVuMib - perVu) < 1e-9);
  assert.equal(e.mib, Math.ceil(M.BASE + 10 * perVu));
  // linear in the VUs; a second format is a second body
  assert.ok(Math.abs(memoryEstimate({ ...input, vus: 200 }).mib - (M.BASE + 200 * perVu)) <= 1);
  assert.ok(Math.abs(memoryEstimate({ ...input, formats: 2 }).perVuMib - (perVu + M.GC * body)) < 1e-9);
  // a string body (no byte path) is the text and the bytes made of it per request
  const s = memoryEstimate({ ...input, strings: true, docBytes: 200 });
  assert.equal(s.live.bodies, 2 * 1000 * 200 / MIB);
  // marks are bounded (lib/keys.js falls back to a table of the batch above 4 MiB)
  assert.equal(memoryEstimate({ ...input, marks: 1e9 }).live.marks, 4);
  // single-document writes hold no batch body: a document's worth of transport
  const single = memoryEstimate({ ...input, formats: 0 });
  assert.equal(single.live.bodies, 0);
  assert.equal(single.live.transport, T.copy * 1200 / MIB + T.fixed);
});

test('document sizes per shape follow what lib/docs.js builds', async () => {
  const { createDocs } = await import('../../lib/docs.js');
  for (const over of [{}, { DOC_BYTES: 300 }, { DOC_SHAPE: 'user' }, { DOC_SHAPE: 'complexity', COMPLEXITY: 100 }, { DOC_SHAPE: 'random-shapes', COMPLEXITY: 1000 }]) {
    const c = { ...cfg(over), DOC_POOL: 200, SEED: 3 };
    const d = createDocs(c, { keyField: '_key' });
    let total = 0;
    for (let i = 0; i < 200; i++) total += d.doc(100000 + i, 'o12').length;
    const real = total / 200;
    assert.ok(Math.abs(docBytes(c) - real) / real < 0.1, `${JSON.stringify(over)}: estimate ${docBytes(c)} vs ${real} bytes`);
  }
});

test('formats come from the target and the operations the plan writes: the images a VU\'s phases use, nothing else', () => {
  const f = (target, writes) => runMemory(cfg(), e1(10, writes), decl[target]).input.formats;
  assert.equal(f('arangodb', { insert: ['l'], upsert: [] }), 1); // one array format for every operation
  assert.equal(f('postgres', { insert: ['l'], upsert: [] }), 1);
  assert.equal(f('ravendb', { insert: ['l'], upsert: [] }), 1); // bulk_docs with and without change vector: one body
  assert.equal(f('ravendb', { bulk: ['l'], upsert: [] }), 2); // the bulk insert array and bulk_docs
  assert.equal(f('ravendb', { bulk: ['b'] }), 1);
  assert.equal(f('ravendb', { upsert: [] }), 1);
  assert.equal(f('arangodb', {}), 0); // single-document operations (arangobench)
  // every target posts its batches over HTTP (PostgreSQL and MongoDB to the gateway)
  for (const t of TARGETS) assert.equal(runMemory(cfg(), e1(10), t).input.transport, 'http', t.name);
  assert.equal(runMemory(cfg({ DOC_SHAPE: 'random-shapes' }), e1(10), decl.arangodb).input.strings, true);
  // a ramped pre-load writes its batches in setup: one more body in the process, not per VU
  const ramp = runMemory(cfg(), e1(4, undefined, { preload: true, overwriteBatches: 0, mixedBatches: 0 }), decl.arangodb);
  assert.ok(ramp.estimate.baseMib > M.BASE);
});

test('an open model (RATE_STAGES) is estimated per VU as a closed one: k6 keeps its copy of the last request body per VU', () => {
  for (const target of ['postgres', 'arangodb']) {
    const perVu = (open) => runMemory(cfg(), e1(40, undefined, { loadModel: { open, maxVUs: 40 } }), decl[target]).estimate.perVuMib;
    assert.equal(perVu(true), perVu(false), target);
  }
});

test('the peak VUs: VUS, the peak of STAGES, MAX_VUS of an open model', () => {
  assert.deepEqual(peakVus(cfg(), { vus: 10 }), { vus: 10, knob: 'VUS' });
  assert.deepEqual(peakVus(cfg(), { vus: 4, loadModel: { open: false, maxVUs: 40 } }), { vus: 40, knob: 'STAGES' });
  assert.deepEqual(peakVus(cfg(), { vus: 2, loadModel: { open: true, maxVUs: 100 } }), { vus: 100, knob: 'MAX_VUS' });
});

test('a run above MEMORY_BUDGET_MB is refused with one line: the estimate, what it is made of, and values that fit', () => {
  const errorOf = (fn) => { try { fn(); return null; } catch (e) { return String(e); } };
  const c = cfg({ BATCH_SIZE: 10000, MEMORY_BUDGET_MB: 2048 });
  const p = e1(200, undefined, { target: { batchSize: 10000, maxKey: 2000000, writes: { insert: ['l'], upsert: [] } } });
  const { input, estimate } = runMemory(c, p, decl.arangodb);
  assert.ok(estimate.mib > 2048);
  const line = errorOf(() => checkMemory(c, p, decl.arangodb));
  assert.match(line, /^k6-writepath: MEMORY_BUDGET_MB=2048 is too small for this run: VUS=200 with BATCH_SIZE=10000 needs about (\d+) MiB \((\d+) MiB for k6 and ([\d.]+) MiB per VU; docs\/capacity.md "Memory"\); lower VUS to (\d+) or BATCH_SIZE to (\d+), or raise MEMORY_BUDGET_MB to (\d+) if the machine has it$/);
  assert.ok(!line.includes('\n'));
  const [, mib, , , vus, batch, raise] = line.match(/about (\d+) MiB \((\d+) MiB for k6 and ([\d.]+) MiB per VU.*VUS to (\d+) or BATCH_SIZE to (\d+).* to (\d+) if/).map(Number);
  assert.equal(mib, estimate.mib);
  assert.equal(raise, estimate.mib);
  // what it proposes fits, and one more does not
  assert.equal(vus, vusThatFit(2048, input));
  assert.ok(memoryEstimate({ ...input, vus }).mib <= 2048);
  assert.ok(memoryEstimate({ ...input, vus: vus + 1 }).mib > 2048);
  assert.equal(batch, batchThatFits(2048, input));
  assert.ok(memoryEstimate({ ...input, batchSize: batch }).mib <= 2048);
  assert.ok(memoryEstimate({ ...input, batchSize: batch + 1 }).mib > 2048);
  // the knob that sets the VUs is the one named
  const open = errorOf(() => checkMemory(c, { ...p, vus: 10, loadModel: { open: true, maxVUs: 500 } }, decl.arangodb));
  assert.match(open, /: MAX_VUS=500 with BATCH_SIZE=10000 needs about \d+ MiB .*lower MAX_VUS to \d+ or BATCH_SIZE to \d+/);
  const stages = errorOf(() => checkMemory(c, { ...p, vus: 1, loadModel: { open: false, maxVUs: 300 } }, decl.arangodb));
  assert.match(stages, /: 300 VUs at the peak of STAGES with BATCH_SIZE=10000 .*lower the STAGES peak to \d+ or BATCH_SIZE/);
  // a batch too large for a single VU: only BATCH_SIZE can help
  const huge = errorOf(() => checkMemory(cfg({ DOC_BYTES: 100000 }), e1(2, undefined, { target: { batchSize: 100000, writes: { insert: ['l'] } } }), decl.postgres));
  assert.match(huge, /: VUS=2 with BATCH_SIZE=100000 needs about \d+ MiB .*; lower BATCH_SIZE to \d+, or raise/);
  // within the budget: no refusal, the estimate comes back
  assert.equal(errorOf(() => checkMemory(cfg(), e1(10), decl.arangodb)), null);
  assert.equal(checkMemory(cfg(), e1(10), decl.arangodb).mib, runMemory(cfg(), e1(10), decl.arangodb).estimate.mib);
});

test('docs/capacity.md\'s VUs-per-GiB table is what lib/memory.js estimates', async () => {
  const { readFileSync } = await import('node:fs');
  const text = readFileSync(new URL('../../docs/capacity.md', import.meta.url), 'utf8');
  const shapes = { 'E1, ArangoDB (HTTP)': [1200, 1, 'http'], 'E1, PostgreSQL': [1200, 1, 'http'], 'E1, RavenDB (bulk_docs insert + upsert)': [1200, 1, 'http'], 'E4 bulk insert, RavenDB (user documents)': [docBytes({ DOC_SHAPE: 'user' }), 1, 'http'] };
  let rows = 0;
  for (const m of text.matchAll(/^\| (E[14][^|]*) \| (\d+) \| ([\d.]+) \| (\d+) \| (\d+) \| (\d+) \|$/gm)) {
    const [d, formats, transport] = shapes[m[1]];
    const input = { vus: 1, batchSize: Number(m[2]), docBytes: d, formats, transport };
    const e = memoryEstimate(input);
    assert.deepEqual(m.slice(3, 7), [e.perVuMib.toFixed(1), String(Math.floor(1024 / e.perVuMib)), String(vusThatFit(2048, input)), String(vusThatFit(3072, input))], m[0]);
    rows++;
  }
  assert.equal(rows, 12);
  assert.equal(docBytes({ DOC_SHAPE: 'e1', DOC_BYTES: 1200 }), 1200);
});

test('bench/memory.mjs replaces only its own section of RESULTS.md; bench/run.mjs keeps it and the gate\'s', async () => {
  const { withSection, keepSections } = await import('../../bench/memory.mjs');
  const gate = '<!-- bench-gate -->\ngate figures\n<!-- /bench-gate -->';
  const mem = (x) => `<!-- bench-memory -->\n${x}\n<!-- /bench-memory -->`;
  // first write: before the gate's section
  const first = withSection(`# Benchmark results\n\nrows\n\n${gate}\n`, mem('old'));
  assert.equal(first, `# Benchmark results\n\nrows\n\n${mem('old')}\n\n${gate}\n`);
  // a second write replaces it, nothing else moves
  assert.equal(withSection(first, mem('new')), first.replace('old', 'new'));
  // no gate section: at the end
  assert.equal(withSection('# R\n\nrows\n', mem('x')), `# R\n\nrows\n\n${mem('x')}\n`);
  // what bench/run.mjs carries over when it rewrites the file, in its order
  assert.deepEqual(keepSections(first, ['bench-memory', 'bench-gate']), ['', mem('old'), '', '', gate, '']);
  assert.deepEqual(keepSections('# R\n', ['bench-memory', 'bench-gate']), []);
});

test('a grid cell of bench/memory.mjs: the median of its runs, their number, every run\'s ratio, a failed run named', async () => {
  const { GRID, summariseCell } = await import('../../bench/memory.mjs');
  const cell = GRID[0];
  const row = summariseCell(cell, [{ load: 1, estimate: 100, measured: 80 }, { load: 3, estimate: 100, measured: 125 }, { load: 2, estimate: 100, measured: 100 }]);
  assert.deepEqual([row.estimate, row.n, row.runs, row.measured.med, row.measured.min, row.measured.max, row.failed], [100, 3, 3, 100, 80, 125, null]);
  assert.deepEqual(row.ratios, [1.25, 0.8, 1]);
  const failed = summariseCell(cell, [{ load: 1, estimate: 100, measured: 90 }, { load: 1, failed: 'exit 1: boom' }]);
  assert.deepEqual([failed.n, failed.runs, failed.failed, failed.measured.med], [1, 2, 'exit 1: boom', 90]);
  // refused by the budget: an estimate, nothing measured
  const refused = summariseCell(cell, [{ load: 1, estimate: 9000, measured: null }]);
  assert.deepEqual([refused.estimate, refused.n, refused.measured], [9000, 0, null]);
  // MongoDB is in the grid (issue 30: every scenario)
  assert.ok(GRID.some((c) => c.target === 'mongodb'));
});
