// experiment-e2's report of a campaign that did not run whole: an interrupted one says so at its
// top (cells run of planned, the signal), a killed or failed cell is kept out of every table and
// listed with its k6 exit code, and the title promises only the targets the tables hold.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderE2 } from '../../experiments/e2/report.mjs';

const knobs = { E2_DOCS: 4000, E2_UPSERTS: 4000, E2_NEW_PERCENT: 50, E2_VUS: 2, DOC_BYTES: 1200, SEED: 1, E2_REPS: 1,
  E2_CELLS: ['defaults', 'sync-off', 'unlogged', 'mongo-default'], E2_BATCH_SIZES: [100, 1000] };

function phase(name, rate) {
  return { phase: name, batches: 40, docs_ok: 4000, docs_failed: 0, wall_s: 4000 / rate, rows_per_s: rate,
    server_cpu_s: 1, client_cpu_s: 0.2, server_cores: 1, client_cores: 0.2, client_share: 0.17, others_cores: 0.1 };
}

function cell(config, target, batch, rate, extra = {}) {
  return { config, target, batch_size: batch, rep: 1, k6_exit: 0, cgroups_removed: true,
    server: { serverVersion: target === 'mongodb' ? '6.0.5' : '16.4', settings: { synchronous_commit: 'on' } },
    table: { persistence: 'logged', secondary_indexes: 0, write_concern: '{w:1}' },
    verification: { expected: 6000, found: 6000 }, phases: [phase('load', 20000), phase('mixed', rate)], ...extra };
}

const base = { started_at: '2026-11-28T00:00:00Z', finished_at: '2026-11-28T00:05:00Z', knobs, poll_ms: 100,
  machine: { cpus: 2, cpu_model: 'x', mem_total_mib: 4096, kernel: '6', disk: 'd' } };

test('an interrupted campaign: a banner at the top with cells run of planned and the signal; the killed cell out of the tables, listed with its exit code; no MongoDB in the title', () => {
  const r = { ...base, planned_cells: 8, interrupted: 'SIGINT', cells: [
    cell('defaults', 'postgres', 100, 11100),
    cell('defaults', 'postgres', 1000, 22200),
    cell('sync-off', 'postgres', 100, 77700, { k6_exit: 105 }), // killed by the Ctrl-C: its phases are partial
    { config: 'sync-off', target: 'postgres', batch_size: 1000, rep: 1, error: 'k6 left no summary (exit 1); see k6.log', k6_exit: 1 },
  ] };
  const md = renderE2(r, { command: 'make experiment-e2' });
  const lines = md.split('\n');
  assert.equal(lines[0], '# experiment-e2: PostgreSQL upserts tuned for throughput (E2\'s matrix)');
  assert.match(lines[2], /^\*\*Interrupted \(SIGINT\): 4 of 8 cells ran, 2 finished; the tables hold only those 2\.\*\*/);
  const table = md.slice(md.indexOf('## Upserts per second'), md.indexOf('## Configurations'));
  assert.match(table, /\| defaults \| 100 \| 11\.1 k \|/);
  assert.match(table, /\| defaults \| 1000 \| 22\.2 k \|/);
  assert.doesNotMatch(table, /sync-off|77\.7 k|failed/, 'no killed or failed cell in the table');
  const configs = md.slice(md.indexOf('## Configurations'), md.indexOf('## Cells left out'));
  assert.doesNotMatch(configs, /sync-off/);
  const left = md.slice(md.indexOf('## Cells left out'), md.indexOf('## Checks'));
  assert.match(left, /^- sync-off batch 100: k6 exit 105 \(k6 interrupted \(Ctrl-C, SIGTERM\)\)$/m);
  assert.match(left, /^- sync-off batch 1000: k6 exit 1; k6 left no summary \(exit 1\); see k6\.log$/m);
  assert.doesNotMatch(md, /MongoDB upserts\/s/, 'no comparison with MongoDB: no MongoDB cell ran');
});

test('a campaign that ran whole: no banner, no "Cells left out", MongoDB in the title and the comparison', () => {
  const r = { ...base, knobs: { ...knobs, E2_CELLS: ['defaults', 'mongo-default'], E2_BATCH_SIZES: [100] }, planned_cells: 2, interrupted: null, cells: [
    cell('defaults', 'postgres', 100, 30000),
    cell('mongo-default', 'mongodb', 100, 15000),
  ] };
  const md = renderE2(r, { command: 'make experiment-e2' });
  assert.equal(md.split('\n')[0], '# experiment-e2: PostgreSQL upserts tuned for throughput (E2\'s matrix), and MongoDB beside them');
  assert.doesNotMatch(md, /Interrupted|Cells left out|failed or were killed/);
  assert.match(md, /\| mongo-default \| 100 \| 15\.0 k \|/);
});

test('a campaign that ran every cell, one of them failed: said at the top, the cell out of the tables', () => {
  const r = { ...base, knobs: { ...knobs, E2_CELLS: ['defaults'], E2_BATCH_SIZES: [100, 1000] }, planned_cells: 2, interrupted: null, cells: [
    cell('defaults', 'postgres', 100, 30000),
    cell('defaults', 'postgres', 1000, 44400, { k6_exit: 99 }),
  ] };
  const md = renderE2(r, { command: 'make experiment-e2' });
  assert.match(md.split('\n')[2], /^\*\*1 of 2 cells failed or were killed: left out of the tables/);
  assert.doesNotMatch(md.slice(md.indexOf('## Upserts per second'), md.indexOf('## Configurations')), /44\.4 k/);
  assert.match(md, /^- defaults batch 1000: k6 exit 99 \(a threshold failed\)$/m);
});
