// E4 (docs/experiments.md): bulk insert of "user" documents by a growing number of clients. One
// phase, `bulk`: VU steps (STAGES = duration:VUs,…) — the closed model — or, with
// RATE_STAGES = duration:batches-per-second,…, the open model (ramping-arrival-rate: batches
// start on schedule whether or not earlier ones finished; those k6 cannot start for lack of a
// free VU are dropped_iterations). Each iteration sends one batch of BATCH_SIZE documents
// with fresh ids; the payloads come from a per-VU pool generated once in the init context
// (E4's lesson: generating fake data cost more than sending it). Every batch is tagged with
// the stage it started in, so docs/s and MB/s are reported per VU stage.
// Verification: the database must hold exactly the documents it acknowledged. The number of
// batches depends on how fast the server is, so the expected count is only known from the
// run's own counters: the summary (text, JSON, JUnit) compares the two.
import exec from 'k6/execution';
import { durationMs, fail } from '../config.js';
import { recordBatch, verifyFound, readbackChecked, readbackStale } from '../metrics.js';
import { markConsecutive } from '../keys.js';
import { M } from '../metric-names.js';
import { fmt, pad } from '../format.js';

export const EXPERIMENT = 'bulk-insert';
export const PHASES = ['bulk'];
const STAMP = 'b';

export function parseStages(text) {
  return text.split(',').map((s) => {
    const [duration, target] = s.split(':').map((x) => x.trim());
    return { duration, target: Number(target) };
  });
}

export function plan(cfg) {
  const open = Boolean(cfg.RATE_STAGES);
  const stages = parseStages(open ? cfg.RATE_STAGES : cfg.STAGES);
  const peak = Math.max(...stages.map((s) => s.target));
  if (peak < 1) {
    fail(open ? `RATE_STAGES=${cfg.RATE_STAGES} is not allowed: at least one stage needs a rate of 1 or more batches per second`
      : `STAGES=${cfg.STAGES} is not allowed: at least one stage needs 1 or more VUs`);
  }
  if (open && cfg.MAX_VUS < cfg.VUS) fail(`MAX_VUS=${cfg.MAX_VUS} is not allowed with VUS=${cfg.VUS}: at least the pre-allocated VUS`);
  const V = open ? cfg.VUS : peak;
  let end = 0;
  const ends = stages.map((s) => (end += durationMs(s.duration)));
  // Each stage is a step: jump to its VU count, hold it for its duration. k6 ramps linearly
  // towards a stage's target, which would mix VU counts inside a stage's figures (and leave
  // a first "10s:1" stage with no VU at all until its end).
  const steps = [];
  for (const s of stages) steps.push({ duration: '0s', target: s.target }, { duration: s.duration, target: s.target });
  const labels = stages.map((s) => (open ? `${s.target}/s` : String(s.target)));
  return { V, open, maxVUs: open ? cfg.MAX_VUS : V, B: cfg.BATCH_SIZE, stages, steps, ends, labels, expectedDocs: null };
}

export function scenarios(cfg, p) {
  if (p.open) {
    return {
      [EXPERIMENT]: {
        executor: 'ramping-arrival-rate',
        startRate: 0,
        timeUnit: '1s',
        preAllocatedVUs: p.V,
        maxVUs: p.maxVUs,
        stages: p.steps,
        gracefulStop: cfg.TIMEOUT,
      },
    };
  }
  return {
    [EXPERIMENT]: {
      executor: 'ramping-vus',
      startVUs: 0,
      stages: p.steps,
      gracefulRampDown: cfg.TIMEOUT,
      gracefulStop: cfg.TIMEOUT,
    },
  };
}

export function opsFor() {
  return { bulk: 'bulk' };
}

// What the target must offer (lib/capabilities.js).
export function needs() {
  return ['batch:bulk', 'count'];
}

// The plan as the report shows it (lib/report.js). The number of batches is not planned: as
// many as the server takes in the stages' time.
export function describe(cfg, p) {
  const model = p.open ? `open model, arrival rate ${cfg.RATE_STAGES} batches/s (VUs ${p.V}…${p.maxVUs})` : `ramping VUs ${cfg.STAGES}`;
  return {
    line: `workload: ${model} · batches of ${p.B} · ${cfg.DOC_SHAPE} documents (pool of ${cfg.DOC_POOL} per VU) · seed ${cfg.SEED}`,
    plan: { model: p.open ? 'open' : 'closed', stages: p.stages, vus: p.V, max_vus: p.maxVUs, batch_size: p.B, expected_docs: null },
    plannedBatches: null,
  };
}

// Sub-metrics per stage, so that handleSummary sees them (k6 only reports tagged sub-metrics
// that have a thresholds entry).
export function extraThresholds(cfg, p) {
  const t = {};
  for (let s = 1; s <= p.stages.length; s++) {
    for (const m of [M.batchDuration, M.docsOk, M.docsFailed, M.bytes, M.phaseClock]) t[`${m}{stage:${s}}`] = [];
  }
  return t;
}

export function iteration(target, cfg, p, state) {
  if (!state.nums) {
    // Every batch is one ascending run of ids (the adapter then uses docs.rangeBody()).
    state.nums = markConsecutive(new Array(p.B));
    state.tags = p.stages.map((_, s) => ({ phase: 'bulk', op: 'bulk', target: target.name, stage: String(s + 1) }));
  }
  // iterationInTest is unique across VUs, so the ids of all batches are disjoint.
  const first = exec.scenario.iterationInTest * p.B;
  const nums = state.nums;
  for (let i = 0; i < p.B; i++) nums[i] = first + i;
  const startedAt = Date.now();
  const elapsed = startedAt - exec.scenario.startTime;
  let s = 0;
  while (s < p.ends.length - 1 && elapsed >= p.ends[s]) s++;
  const tags = state.tags[s];
  const res = target.write('bulk', nums, STAMP, tags);
  recordBatch(tags, res, res.n, startedAt);
  // A target asks for the abort (database gone) only once the batch is counted.
  if (res.abort) exec.test.abort(res.abort);
}


export function verify(target) {
  const found = target.count();
  verifyFound.add(found);
  // Nothing is overwritten in this experiment, so there is nothing to read back.
  readbackChecked.add(0);
  readbackStale.add(0);
  return { expected: null, found, readback: { checked: 0, stale: 0, missing: 0, examples: [] } };
}

// Per-stage table for the report: docs/s and MB/s over each stage's wall time (first batch
// start to last batch end of the batches that started in the stage). MB = 10^6 bytes of
// uncompressed JSON body (a target that compresses sends fewer bytes over the network).
export function sections(data, { plan: p, target }) {
  const v = (name) => (data.metrics[name] ? data.metrics[name].values : {});
  const rows = p.stages.map((st, i) => {
    const tag = `{stage:${i + 1}}`;
    const clock = v(M.phaseClock + tag);
    const wall = clock.max > clock.min ? (clock.max - clock.min) / 1000 : null;
    const ok = v(M.docsOk + tag).count || 0;
    const bytes = v(M.bytes + tag).count || 0;
    const d = v(M.batchDuration + tag);
    return {
      stage: i + 1, duration: st.duration, vus: p.labels[i], batches: d.count || 0, docs_ok: ok,
      docs_failed: v(M.docsFailed + tag).count || 0, wall_s: wall,
      docs_per_s: wall ? ok / wall : null, mb_per_s: wall ? bytes / 1e6 / wall : null,
      batch_ms_median: d.med ?? null, batch_ms_p99: d['p(99)'] ?? null,
    };
  });
  const compression = (target.capabilities || {}).compression;
  const lines = ['', `per stage (batches of ${p.B}, ${compression || 'uncompressed'} bodies; MB/s of uncompressed JSON):`,
    `${pad('stage', 7, true)}${pad(p.open ? 'rate' : 'VUs', 8, true)}${pad('batches', 8)}${pad('docs ok', 10)}${pad('failed', 8)}${pad('docs/s', 10)}${pad('MB/s', 8)}${pad('median ms', 11)}${pad('p99 ms', 9)}`];
  for (const r of rows) {
    lines.push(`${pad(r.stage, 7, true)}${pad(r.vus, 8, true)}${pad(r.batches, 8)}${pad(r.docs_ok, 10)}${pad(r.docs_failed, 8)}` +
      `${pad(fmt(r.docs_per_s, 0), 10)}${pad(fmt(r.mb_per_s, 2), 8)}${pad(fmt(r.batch_ms_median), 11)}${pad(fmt(r.batch_ms_p99), 9)}`);
  }
  return { after: lines, json: { stages: rows } };
}
