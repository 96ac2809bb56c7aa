// E4 (docs/experiments.md): bulk insert of "user" documents by a growing number of clients. One
// phase, `bulk`: VU steps (STAGES = duration:VUs,…) — the closed model — or, with
// RATE_STAGES = duration:batches-per-second,…, the open model (lib/load-model.js). Each
// iteration sends one batch of BATCH_SIZE documents with fresh ids; the payloads come from a
// per-VU pool generated once in the init context (E4's lesson: generating fake data cost more
// than sending it). Every batch is tagged with the stage it started in, so docs/s and MB/s are
// reported per stage.
// Verification: the database must hold exactly the documents it acknowledged. The number of
// batches depends on how fast the server is, so the expected count is only known from the
// run's own counters: the summary (text, JSON, JUnit) compares the two.
import exec from 'k6/execution';
import { keyRange } from '../keys.js';
import { describeModel, loadModel, rampPosition, rampScenario, stageSection, stageThresholds } from '../load-model.js';
import { countOnly, rampKeysExhausted } from '../metrics.js';
import { M } from '../metric-names.js';
import { fmt, pad } from '../format.js';

export const EXPERIMENT = 'bulk-insert';
export const PHASES = ['bulk'];
const STAMP = 'b';
const DEFAULT_STAGES = '10s:1,10s:2,10s:4';

export function plan(cfg) {
  const lm = loadModel(cfg, { stages: DEFAULT_STAGES });
  const B = cfg.BATCH_SIZE;
  // What the target prepares in init: key ranges stamped b, up to the keys an open model can
  // reach, or those of the first 1000 batches (later, wider keys get their image on first use).
  const prepared = { batchSize: B, maxKey: (lm.open ? lm.maxIterations : 1000) * B, writes: { bulk: [STAMP] } };
  return { vus: lm.vus, open: lm.open, maxVUs: lm.maxVUs, loadModel: lm, stages: lm.stages, batchSize: B, expectedDocs: null, target: prepared };
}

export function scenarios(cfg, p) {
  return rampScenario(EXPERIMENT, cfg, p.loadModel);
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
  return {
    line: `workload: ${describeModel(p.loadModel)} · batches of ${p.batchSize} · ${cfg.DOC_SHAPE} documents (pool of ${cfg.DOC_POOL} per VU) · seed ${cfg.SEED}`,
    plan: { model: p.open ? 'open' : 'closed', stages: p.stages, vus: p.vus, max_vus: p.maxVUs, batch_size: p.batchSize, expected_docs: null },
    plannedBatches: null,
    readback: null, // nothing is overwritten
  };
}

export function extraThresholds(cfg, p, reasons) {
  return Object.assign(stageThresholds(p.loadModel, reasons, EXPERIMENT), { [M.rampKeysExhausted]: ['count==0'] });
}

export function iteration(runner, cfg, p, state) {
  if (!state.tags) {
    state.tags = p.stages.map((_, s) => ({ phase: 'bulk', op: 'bulk', target: runner.target.name, stage: String(s + 1) }));
  }
  // The batch number is unique across VUs and stages, so the ids of all batches are disjoint.
  const { s, n } = rampPosition(p.loadModel, exec, Date.now());
  const tags = state.tags[s];
  if (n < 0) { rampKeysExhausted.add(1, tags); return; }
  // Every batch is one ascending run of ids, a key range (the adapter uses docs.rangeBody()).
  runner.write('bulk', keyRange(n * p.batchSize, p.batchSize), STAMP, tags, { fresh: p.batchSize });
}

export function verify(target) {
  // Nothing is overwritten in this experiment, so there is nothing to read back.
  return countOnly(target.count());
}

// Per-stage section (lib/load-model.js). MB = 10^6 bytes of uncompressed JSON body (with
// RAVEN_GZIP fewer bytes cross the network).
export function sections(data, { plan: p, target }) {
  return stageSection(data, { model: p.loadModel, batchSize: p.batchSize, reasons: target.reasons, name: EXPERIMENT, note: `${(target.capabilities || {}).compression || 'uncompressed'} bodies; MB/s of uncompressed JSON` });
}
