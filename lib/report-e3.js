// E3's result shape (docs/experiments.md): Complexity | Requests | Concurrency | Time | ops/s,
// plus the latency of each operation kind (arangobench's "Min/Avg/Max request time", with
// percentiles from k6's raw samples instead of per-thread histogram buckets). Pure
// function of k6's summary data: the section buildReport puts before its own lines.
import { M } from './metric-names.js';
import { fmt, pad } from './format.js';


export function e3Report(data, { cfg, plan }) {
  const val = (name) => (data.metrics[name] ? data.metrics[name].values : null);
  const clock = val(`${M.phaseClock}{phase:run}`);
  const wallS = clock && clock.max > clock.min ? (clock.max - clock.min) / 1000 : null;
  const ops = [];
  for (const op of new Set(plan.seq)) {
    const d = val(`${M.batchDuration}{op:${op}}`) || {};
    ops.push({
      op,
      count: d.count || 0,
      failed: (val(`${M.docsFailed}{op:${op}}`) || {}).count || 0,
      ms: { min: d.min ?? null, median: d.med ?? null, average: d.avg ?? null, p90: d['p(90)'] ?? null, p99: d['p(99)'] ?? null, max: d.max ?? null },
    });
  }
  const done = ops.reduce((s, o) => s + o.count, 0);
  const failed = ops.reduce((s, o) => s + o.failed, 0);
  const e3 = {
    test_case: plan.name,
    complexity: cfg.COMPLEXITY,
    requests: plan.requests,
    requests_done: done,
    concurrency: plan.vus,
    time_s: wallS,
    ops_per_s: wallS ? done / wallS : null,
    failed_operations: failed,
    operations: ops,
  };
  const lines = [
    `arangobench case ${plan.name} (E3 shape): one operation = ${plan.seq.includes('transaction') ? 'begin + 2 inserts + commit' : 'one single-document request'}`,
    `${pad('Complexity', 12)} | ${pad('Requests', 10)} | ${pad('Concurrency', 11)} | ${pad('Time (s)', 9)} | ${pad('ops/s', 9)}`,
    `${pad(cfg.COMPLEXITY, 12)} | ${pad(plan.requests === null || done === plan.requests ? done : `${done}/${plan.requests}`, 10)} | ${pad(plan.vus, 11)} | ${pad(fmt(wallS, 2), 9)} | ${pad(fmt(e3.ops_per_s, 0), 9)}`,
    '',
    `${pad('operation', 12, true)}${pad('count', 8)}${pad('failed', 8)}  time per operation (ms): ${['min', 'median', 'average', 'p90', 'p99', 'max'].map((h) => pad(h, 8)).join('')}`,
    ...ops.map((o) => `${pad(o.op, 12, true)}${pad(o.count, 8)}${pad(o.failed, 8)}                           ${[o.ms.min, o.ms.median, o.ms.average, o.ms.p90, o.ms.p99, o.ms.max].map((x) => pad(fmt(x, 2), 8)).join('')}`),
    '',
  ];
  return { before: lines, json: { e3 } };
}
