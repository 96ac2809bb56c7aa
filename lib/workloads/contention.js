// Contention (issue 29, docs/contention.md): many VUs increment few counters. HOT_KEYS is a
// list of hot-set sizes; the load model's stages (STAGES closed, RATE_STAGES open) run once per
// hot set and once more on SPREAD_KEYS counters (the same operation with almost no
// contention), one step after the other, so one run holds the whole table: throughput and
// latency against load and against the hot set, conflicts and retries by reason per step, and
// the ratio to the spread baseline.
//
// An operation (k6 iteration) increments BATCH_SIZE distinct counters, drawn uniformly from the
// step's hot set, by one, in one atomic request (the target's increments.increment(), exact requests in
// lib/targets/increments.js). A conflict the database reports as "not applied, retry"
// (RETRYABLE there) is retried up to CONFLICT_RETRIES times within the operation; its time
// includes the retries (the batch runner sums the requests' times).
//
// Verification (lib/ledger.js): each VU keeps a write-ahead ledger of acknowledged, failed and
// undetermined increments per counter; after the load a `ledger` scenario gives each VU one
// iteration in which it stores its ledger (k6 hands the same VU instances to later scenarios);
// teardown reads every ledger and every counter and holds acked <= n <= acked + undetermined.
import exec from 'k6/execution';
import { sleep } from 'k6';
import { durationMs, fail, shown } from '../parse.js';
import { keyName } from '../keys.js';
import { Rng } from '../rand.js';
import { Ledger, countersJudged, countersLine, ledgerLine, sumLedgers, verifyCounters } from '../ledger.js';
import { isUndetermined, RETRYABLE } from '../targets/increments.js';
import { describeModel, loadModel, rampPosition, rampScenario, splitOverStages, stageRows, stageThresholds } from '../load-model.js';
import { counterLost, counterPhantom, countersChecked, serverConflicts, serverSamples, countersSum, incrementsRetried, ledgerAcked, ledgerFailed, ledgerUndetermined, ledgerUnstored, rampKeysExhausted, verifyExpected, verifyFound, verifyMismatch, readbackChecked, readbackStale } from '../metrics.js';
import { M } from '../metric-names.js';
import { fmt } from '../format.js';

export const EXPERIMENT = 'contention';
export const PHASES = ['contention'];
const OP = 'increment';
export const DEFAULT_STAGES = '10s:1,10s:8,10s:32';
// After the load, VUs finish an operation for at most this long before k6 stops it; a stopped
// operation stays undetermined in its VU's ledger (write-ahead), so no wait of TIMEOUT is needed.
export const GRACE = '2s';
const GRACE_MS = 2000;
// The ledger scenario: one iteration per VU, after the load and its grace.
export const LEDGER_SCENARIO = 'ledger';
// A target that counts the conflicts it resolves itself (capability serverConflicts: MongoDB
// retries write conflicts inside the server) is sampled by one more VU through the load, every
// SAMPLE_S and at the end of every step; each sample's growth goes to the step it was counted
// in. The counts are server-wide (every client's).
export const SAMPLER_SCENARIO = 'server';
const SAMPLE_S = 0.5;
// Per-counter lines of a failed verification in the log, and tagged samples for InfluxDB.
const SHOW_BAD = 20;
const TAG_BAD = 1000;


export function plan(cfg) {
  const hot = cfg.HOT_KEYS.map(Number);
  const B = cfg.BATCH_SIZE;
  const seen = new Set();
  for (const h of hot) {
    if (seen.has(h)) fail(`HOT_KEYS=${hot.join(',')} is not allowed: ${h} appears twice (each hot-set size runs once)`);
    seen.add(h);
    if (h < B) fail(`BATCH_SIZE=${B} is not allowed with HOT_KEYS=${hot.join(',')}: an operation increments BATCH_SIZE distinct counters, so every hot set needs at least BATCH_SIZE counters (hot set ${h})`);
  }
  const spread = cfg.SPREAD_KEYS;
  const maxHot = Math.max(...hot);
  if (spread !== 0 && spread <= maxHot) fail(`SPREAD_KEYS=${spread} is not allowed with HOT_KEYS=${hot.join(',')}: the spread baseline needs more counters than the largest hot set (or 0 for no baseline)`);
  if (cfg.DISTRIBUTED !== '0') fail(`DISTRIBUTED=${cfg.DISTRIBUTED} is not allowed on the contention workload yet: its ledgers and steps are per process`);
  const sets = hot.map((h) => ({ keys: h, spread: false }));
  if (spread > 0) sets.push({ keys: spread, spread: true });
  const size = Math.max(maxHot, spread);
  // The stages run once per set: the load model of the whole run is the stage list repeated.
  const open = Boolean(cfg.RATE_STAGES);
  const base = loadModel(cfg, { stages: DEFAULT_STAGES });
  const repeated = sets.map(() => base.text).join(',');
  const lm = loadModel(Object.assign({}, cfg, open ? { RATE_STAGES: repeated } : { STAGES: repeated }),
    { plannedBy: `HOT_KEYS=${shown(cfg.HOT_KEYS.join(','))} (${sets.length} sets, each ${open ? 'RATE_STAGES' : 'STAGES'}=${base.text})` });
  const per = base.stages.length;
  // Every VU keeps three 4-byte counts per counter (lib/ledger.js), and stores them as JSON.
  const pool = vuPool(lm);
  const ledgerMiB = Math.ceil((pool * size * 12) / 1048576);
  if (ledgerMiB > cfg.MEMORY_BUDGET_MB) fail(`SPREAD_KEYS=${spread} is not allowed with HOT_KEYS=${hot.join(',')} and ${pool} VUs: the VUs' ledgers need about ${ledgerMiB} MiB (12 bytes per counter and VU), more than MEMORY_BUDGET_MB=${cfg.MEMORY_BUDGET_MB}; use fewer counters or VUs, or raise MEMORY_BUDGET_MB`);
  const steps = lm.stages.map((st, i) => ({ set: sets[Math.floor(i / per)], stage: i % per, load: base.labels[i % per] }));
  const end = lm.ends[lm.ends.length - 1];
  return {
    loadModel: lm, base, sets, steps, per, size, B, open, V: lm.V, maxVUs: lm.maxVUs, pool,
    retries: cfg.CONFLICT_RETRIES,
    ledgerStart: end + GRACE_MS + 1000,
    loadEnd: end,
    // The count verified is the counters' (ledgers are documents of the run too, not counted).
    expectedDocs: size,
    target: { batchSize: B, maxKey: size - 1, counters: size },
  };
}

// The VUs that may increment: k6's pool for the load scenarios. In the open model each stage is
// a scenario with MAX_VUS of its own, and a stage still in its graceful stop when the next ones
// start holds its VUs beside theirs (k6 sizes the pool for that): the pool is the most stages
// alive at once times MAX_VUS. Every one of them must store its ledger, and teardown read it.
function vuPool(lm) {
  if (!lm.open) return lm.maxVUs;
  const starts = lm.ends.map((_, i) => (i === 0 ? 0 : lm.ends[i - 1]));
  const alive = starts.map((t) => starts.filter((s, j) => s <= t && t < lm.ends[j] + GRACE_MS).length);
  return Math.max(...alive) * lm.maxVUs;
}

// caps: the target's capabilities (serverConflicts adds the sampler's VU).
export function scenarios(cfg, p, caps = {}) {
  const load = rampScenario(EXPERIMENT, cfg, p.loadModel);
  const sampler = caps.serverConflicts ? 1 : 0;
  if (sampler) load[SAMPLER_SCENARIO] = { executor: 'constant-vus', vus: 1, duration: `${p.loadEnd}ms`, gracefulStop: GRACE };
  for (const sc of Object.values(load)) {
    sc.gracefulStop = GRACE;
    if (sc.gracefulRampDown) sc.gracefulRampDown = GRACE;
  }
  // One ledger write per VU, bounded by TIMEOUT; the scenario lasts a second longer so that the
  // write's own timeout, not k6, ends a slow one (and k6 takes no maxDuration under 1 s).
  const ledgerMs = Math.max(durationMs(cfg.TIMEOUT), 1000) + 1000;
  load[LEDGER_SCENARIO] = {
    executor: 'per-vu-iterations', vus: p.pool + sampler, iterations: 1,
    startTime: `${p.ledgerStart}ms`, maxDuration: `${ledgerMs}ms`, gracefulStop: `${ledgerMs}ms`,
  };
  return load;
}

export function opsFor() {
  return { contention: OP };
}

export function needs() {
  return ['increment'];
}

const setLabel = (set) => (set.spread ? `${set.keys} (spread)` : String(set.keys));

export function describe(cfg, p) {
  const sets = p.sets.map(setLabel).join(', ');
  return {
    line: `workload: ${describeModel(p.base)} per hot set · hot sets ${sets} counters · ${p.B} distinct counter${p.B === 1 ? '' : 's'} per operation · conflicts retried up to ${p.retries} times · seed ${cfg.SEED}`,
    plan: { model: p.open ? 'open' : 'closed', stages: p.base.text, hot_keys: p.sets.filter((x) => !x.spread).map((x) => x.keys), spread_keys: cfg.SPREAD_KEYS, counters: p.size, batch_size: p.B, conflict_retries: p.retries, expected_docs: null },
    plannedBatches: null,
    readback: null,
    countOf: 'counters created before the load; each is read back below against the VUs\' ledgers',
  };
}

export function extraThresholds(cfg, p, reasons) {
  const t = stageThresholds(p.loadModel, reasons, EXPERIMENT);
  for (let s = 1; s <= p.loadModel.stages.length; s++) {
    t[`${M.retries}{stage:${s}}`] = [];
    t[`${M.serverConflicts}{stage:${s}}`] = [];
    for (const r of reasons) if (RETRYABLE.has(r)) t[`${M.retries}{stage:${s},reason:${r}}`] = [];
  }
  t[M.counterLost] = ['count==0'];
  t[M.counterPhantom] = ['count==0'];
  t[M.ledgerUnstored] = ['count==0'];
  t[M.rampKeysExhausted] = ['count==0'];
  return t;
}

// setup(): every counter exists with n = 0 before the load, so every measured operation
// updates an existing document (docs/contention.md).
export function prepare(runner, cfg, p) {
  runner.target.increments.createCounters(p.size);
}

// BATCH_SIZE distinct counters of [0, h), ascending (a batch locks rows in key order).
function draw(rng, h, B) {
  if (B === 1) return [rng.int(h)];
  const picked = new Set();
  while (picked.size < B) picked.add(rng.int(h));
  return [...picked].sort((a, b) => a - b);
}

// The ledger's verdict on one operation (lib/targets/outcome.js answer as recorded):
// everything acknowledged, or per counter failed / undetermined by the reasons given.
function settle(ledger, counters, res) {
  if (res.failed === 0) { ledger.settle(counters, 'acked'); return; }
  const reasons = Object.keys(res.byReason || {});
  const kind = reasons.some(isUndetermined) ? 'undetermined' : 'failed';
  if (res.failedIndexes) {
    const bad = new Set(res.failedIndexes);
    ledger.settle(counters, counters.map((_, i) => (bad.has(i) ? kind : 'acked')));
  } else if (res.failed >= counters.length) {
    ledger.settle(counters, kind);
  }
  // Some failed, without saying which: every counter of it stays undetermined.
}

// A request that resends itself while the database says "not applied, retry" (lib/targets/
// increments.js RETRYABLE), at most `max` times; every retry is counted by reason. The
// responses of all attempts are the operation's time.
function retrying(req, max, tags) {
  if (max === 0) return req;
  return Object.assign({}, req, {
    send(t) {
      const responses = [];
      for (let attempt = 0; ; attempt++) {
        const t0 = exec.instance.currentTestRunDuration;
        const sent = req.send(t);
        // settle(ms) reads the attempt's answer with its own time (lib/targets/outcome.js).
        const ms = exec.instance.currentTestRunDuration - t0;
        if (sent.responses) responses.push(...sent.responses);
        const a = sent.settle ? sent.settle(ms) : sent;
        const whole = a.reason !== undefined && (a.failed === undefined || a.failed >= req.n);
        if (whole && RETRYABLE.has(a.reason) && attempt < max) {
          incrementsRetried.add(1, Object.assign({}, tags, { reason: a.reason }));
          continue;
        }
        return responses.length ? Object.assign({}, a, { responses, settle: undefined }) : a;
      }
    },
  });
}

export function iteration(runner, cfg, p, state) {
  if (exec.scenario.name === LEDGER_SCENARIO) { storeLedger(runner.target, state, p); return; }
  if (exec.scenario.name === SAMPLER_SCENARIO) { sample(runner.target, p, state); return; }
  if (!state.tags) {
    state.tags = p.steps.map((st, s) => ({ phase: 'contention', op: OP, target: runner.target.name, stage: String(s + 1), hot_keys: String(st.set.keys) }));
    state.rng = new Rng(cfg.SEED, 'contention', exec.vu.idInTest);
    state.ledger = new Ledger(p.size);
  }
  const { s, n } = rampPosition(p.loadModel, exec, Date.now());
  const tags = state.tags[s];
  if (n < 0) { rampKeysExhausted.add(1, tags); return; }
  const counters = draw(state.rng, p.steps[s].set.keys, p.B);
  state.ledger.begin(counters);
  ledgerUnstored.add(counters.length);
  const res = runner.run(tags, {}, () => retrying(runner.target.increments.increment(counters), p.retries, tags));
  settle(state.ledger, counters, res);
}

// One sample of the server's own conflict count. Its growth since the last sample is shared
// among the steps the interval between the two overlaps, in proportion to the overlap (samples
// are due at every step's end, so an interval spans two steps only by as much as the sampler
// woke late). A sample that fails is skipped (the next one carries the growth).
function sample(target, p, state) {
  const at = Date.now() - exec.scenario.startTime;
  let now = null;
  try { now = target.increments.serverConflicts(); } catch (e) { if (!state.sampleError) console.warn(`k6-writepath: cannot read the server's conflict count: ${String(e).split('\n')[0]}`); state.sampleError = true; }
  if (now !== null) {
    serverSamples.add(1, { phase: 'contention', target: target.name });
    if (state.conflicts !== undefined && now > state.conflicts) {
      splitOverStages(p.loadModel, state.sampledAt, at, now - state.conflicts).forEach((c, s) => {
        if (c > 0) serverConflicts.add(c, { phase: 'contention', target: target.name, stage: String(s + 1), hot_keys: String(p.steps[s].set.keys) });
      });
    }
    state.conflicts = now;
    state.sampledAt = at;
  }
  // Next sample: SAMPLE_S on, or just after the current step ends if that is sooner.
  const end = p.loadModel.ends.find((e) => e > at);
  sleep(end === undefined ? SAMPLE_S : Math.min(SAMPLE_S, (end - at) / 1000 + 0.01));
}

// Every VU of the ledger step stores one, an empty one when it began no increment (the sampler's
// too): teardown then knows that a ledger it does not find was not stored.
function storeLedger(target, state, p) {
  const id = `L${exec.vu.idInTest}`;
  try {
    target.increments.putLedger(id, (state.ledger || new Ledger(p.size)).toJSON());
  } catch (e) {
    // Not stored: teardown finds its increments missing from the ledgers (ledger_unstored > 0).
    console.error(`k6-writepath: VU ${exec.vu.idInTest} could not store its ledger ${id}: ${String(e).split('\n')[0]}`);
  }
}

// data: setup's (its startedAt is when the scenarios' clock began; teardown has no exec.instance).
export function verify(target, cfg, p, data = {}) {
  // VU ids of one process run 1 … the pool size (exec.vu.idInTest).
  const ids = [];
  for (let v = 1; v <= p.pool + (target.capabilities.serverConflicts ? 1 : 0); v++) ids.push(`L${v}`);
  const stored = target.increments.readLedgers(ids);
  const totals = sumLedgers(stored, p.size);
  ledgerUnstored.add(-totals.ops);
  const nums = new Array(p.size);
  for (let i = 0; i < p.size; i++) nums[i] = i;
  const values = target.increments.readCounters(nums);
  const v = verifyCounters(totals, values, p.size);
  countersChecked.add(v.checked);
  countersSum.add(v.found);
  verifyExpected.add(p.size);
  verifyFound.add(p.size - v.missing);
  verifyMismatch.add(v.missing);
  readbackChecked.add(0);
  readbackStale.add(0);
  // A ledger missing (a signal before or inside the ledger step, or a write that failed): the
  // increments it held are in no total, so a counter holding them would be called phantom (and
  // one missing them lost): no judgement at all, only what was read is said.
  if (totals.ledgers < ids.length) {
    const at = Date.now() - Date.parse(data.startedAt);
    const when = at < p.ledgerStart ? `the run stopped at ${fmt(at / 1000, 1)} s, before the VUs stored their ledgers (due at ${fmt(p.ledgerStart / 1000, 1)} s)`
      : `the VUs' ledgers are incomplete (the ledger step began at ${fmt(p.ledgerStart / 1000, 1)} s; a signal inside it, or a ledger write that failed, leaves the rest unstored)`;
    const note = `${when}: ${totals.ledgers} of ${ids.length} ledgers found; ${v.checked} counters read, holding ${v.found}; no lost or phantom judgement is possible`;
    return { expected: p.size, found: p.size - v.missing, readback: null, note, contention: null };
  }
  // The ledgers' totals and the counters' sum: how many increments had no answer, and how
  // many of those the database applied (the sum minus the acknowledged, when no counter is off).
  ledgerAcked.add(v.acked);
  ledgerFailed.add(v.failed);
  ledgerUndetermined.add(v.undetermined);
  v.bad.forEach((b, i) => {
    const tags = { counter: i < TAG_BAD ? keyName(b.counter) : '(more)' };
    if (b.lost) counterLost.add(b.lost, tags);
    if (b.phantom) counterPhantom.add(b.phantom, tags);
  });
  const note = `${totals.ledgers} ledgers (${totals.ops} increments: ${v.acked} acknowledged, ${v.failed} failed, ${v.undetermined} undetermined); ${v.checked} counters read, holding ${v.found}; lost ${v.lost}, phantom ${v.phantom}`;
  for (const b of v.bad.slice(0, SHOW_BAD)) {
    console.warn(`k6-writepath: counter ${keyName(b.counter)} holds ${b.n}; acknowledged ${b.acked}, undetermined ${b.undetermined}: ${b.lost ? `${b.lost} lost` : `${b.phantom} phantom`}`);
  }
  if (v.bad.length > SHOW_BAD) console.warn(`k6-writepath: … and ${v.bad.length - SHOW_BAD} more counters (InfluxDB: ${M.counterLost}/${M.counterPhantom} by counter)`);
  return { expected: p.size, found: p.size - v.missing, readback: null, note, contention: v };
}

// One row per step: hot set, load, operations, ops/s, increments/s, p50/p99, failures and
// retries by reason, and the ratio of ops/s to the spread baseline at the same load.
// server: the target counts conflicts it resolves itself (capability serverConflicts).
export function contentionRows(data, p, reasons, server = false) {
  const rows = stageRows(data, p.loadModel, reasons, EXPERIMENT);
  const count = (name) => (data.metrics[name] ? data.metrics[name].values.count || 0 : 0);
  const out = rows.map((r, i) => {
    const st = p.steps[i];
    const retries = {};
    for (const reason of reasons) {
      if (!RETRYABLE.has(reason)) continue;
      const c = count(`${M.retries}{stage:${i + 1},reason:${reason}}`);
      if (c > 0) retries[reason] = c;
    }
    return {
      step: i + 1, hot_keys: st.set.keys, spread: st.set.spread, load: st.load, model: r.model,
      ops: r.batches, increments_ok: r.docs_ok, increments_failed: r.docs_failed, failed_by_reason: r.failed_by_reason,
      // (of the failed: those without an answer, which the database may have applied)
      increments_undetermined: Object.entries(r.failed_by_reason || {}).reduce((a, [k, c]) => a + (isUndetermined(k) ? c : 0), 0),
      retries: count(`${M.retries}{stage:${i + 1}}`), retries_by_reason: retries,
      server_conflicts: server ? count(`${M.serverConflicts}{stage:${i + 1}}`) : null,
      wall_s: r.wall_s, ops_per_s: r.batches_per_s, increments_per_s: r.docs_per_s,
      op_ms: { median: r.batch_ms.median, p90: r.batch_ms.p90, p99: r.batch_ms.p99, max: r.batch_ms.max },
      dropped_iterations: r.dropped_iterations,
    };
  });
  for (const r of out) {
    const base = out.find((x) => x.spread && x.load === r.load);
    r.vs_spread = base && base.ops_per_s && r.ops_per_s !== null ? r.ops_per_s / base.ops_per_s : null;
  }
  return out;
}

export function sections(data, { plan: p, target }) {
  // The server's conflict count: kept by the target, and read at least twice (else unknown).
  const samples = data.metrics[M.serverSamples] ? data.metrics[M.serverSamples].values.count : 0;
  const server = Boolean(target.capabilities.serverConflicts) && samples >= 2;
  const rows = contentionRows(data, p, target.reasons, server);
  const f = (x, d = 1) => (x === null || x === undefined ? '-' : fmt(x, d));
  const lines = ['', `contention (${p.B} distinct counter${p.B === 1 ? '' : 's'} per operation; ${describeModel(p.base)} per hot set; conflicts retried up to ${p.retries} times):`,
    `${'hot keys'.padEnd(16)}${(p.open ? 'rate' : 'VUs').padEnd(8)}${'ops'.padStart(9)}${'ops/s'.padStart(10)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'failed'.padStart(8)}${'retries'.padStart(9)}${'vs spread'.padStart(11)}${p.open ? 'dropped'.padStart(9) : ''}`];
  for (const r of rows) {
    lines.push(`${setLabel({ keys: r.hot_keys, spread: r.spread }).padEnd(16)}${r.load.padEnd(8)}${String(r.ops).padStart(9)}${f(r.ops_per_s, 0).padStart(10)}${f(r.op_ms.median).padStart(9)}${f(r.op_ms.p99).padStart(9)}` +
      `${String(r.increments_failed).padStart(8)}${String(r.retries).padStart(9)}${(r.vs_spread === null ? '-' : `${fmt(r.vs_spread, 2)}x`).padStart(11)}${p.open ? String(r.dropped_iterations).padStart(9) : ''}`);
    const notes = [];
    if (r.increments_failed > 0) notes.push(`failed increments: ${Object.entries(r.failed_by_reason).map(([k, c]) => `${k} ${c}`).join(', ') || 'reason not listed'}`);
    if (r.retries > 0) notes.push(`retries: ${Object.entries(r.retries_by_reason).map(([k, c]) => `${k} ${c}`).join(', ')}`);
    if (r.server_conflicts > 0) notes.push(`conflicts the server retried itself: ${r.server_conflicts}`);
    if (notes.length) lines.push(`  step ${r.step}: ${notes.join('; ')}`);
  }
  lines.push('(ops = operations, n of each row; vs spread = ops/s against the spread baseline at the same load, one run: no interval)');
  if (server) lines.push(`(conflicts the server retried itself: ${target.capabilities.serverConflicts}, server-wide, sampled every ${SAMPLE_S} s and at each step's end)`);
  else if (target.capabilities.serverConflicts) lines.push(`(conflicts the server retried itself: not known — ${target.capabilities.serverConflicts} could not be read; the log says why)`);
  const metric = (name) => (data.metrics[name] ? data.metrics[name].values : null);
  const lost = metric(M.counterLost); const phantom = metric(M.counterPhantom);
  const unstored = metric(M.ledgerUnstored); const checked = metric(M.countersChecked);
  const verification = {
    counters_checked: checked ? checked.value : null,
    increments_lost: lost ? lost.count : 0,
    increments_phantom: phantom ? phantom.count : 0,
    ledger_unstored: unstored ? unstored.count : null,
    increments_acknowledged: metric(M.ledgerAcked) ? metric(M.ledgerAcked).count : null,
    increments_failed: metric(M.ledgerFailed) ? metric(M.ledgerFailed).count : null,
    increments_undetermined: metric(M.ledgerUndetermined) ? metric(M.ledgerUndetermined).count : null,
    counters_sum: metric(M.countersSum) ? metric(M.countersSum).value : null,
  };
  // A VU's ledger not stored (a run stopped before or inside its ledger step): no lost or
  // phantom figure is given, and nothing is OK (lib/ledger.js countersJudged).
  const noLedgers = countersJudged(verification) === false;
  const ok = countersJudged(verification) === true && verification.increments_lost === 0 && verification.increments_phantom === 0 && verification.ledger_unstored === 0;
  lines.push(countersLine(verification));
  if (verification.increments_acknowledged !== null && verification.counters_checked !== null && !noLedgers) lines.push(ledgerLine(verification));
  // The counters are this workload's verification: summary.json's verdict (verification.ok,
  // read by compare and the HTML report) holds only when they held too.
  const verdict = data.metrics[M.verifyFound] ? { counters_ok: ok, holds: ok } : {};
  return { after: lines, json: { load_model: { model: p.open ? 'open' : 'closed', stages: p.base.text, vus: p.V, max_vus: p.maxVUs }, contention: rows }, verification: Object.assign(verification, verdict) };
}
