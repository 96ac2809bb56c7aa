// The capacity search allocates each step's VUs by Little's law within what the pack's memory
// estimate lets fit (scripts/capacity.mjs stepVus, lib/memory.js): every step it starts passes
// the MEMORY_BUDGET_MB check its k6 makes, and a step that cannot fit is never started.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { settings, stepVus } from '../../scripts/capacity.mjs';
import { checkMemory, memoryEstimate } from '../../lib/memory.js';
import { TARGETS } from '../../lib/targets/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const decl = Object.fromEntries(TARGETS.map((t) => [t.name, t]));

test('every step the search starts fits the budget by the estimate its k6 checks; a step it stops at does not', () => {
  const searches = [['postgres', 'upsert'], ['postgres', 'insert'], ['arangodb', 'merge'], ['ravendb', 'upsert'], ['ravendb', 'bulk']];
  let started = 0; let stopped = 0;
  for (const [target, op] of searches) {
    for (const budget of ['64', '120', '400', '2048', '20000']) {
      for (const batch of ['100', '1000', '10000']) {
        const s = settings({ CAPACITY_TARGET: target, CAPACITY_OP: op, DOCS: '100000000', MEMORY_BUDGET_MB: budget, BATCH_SIZE: batch });
        for (const rate of [1, 5, 20, 100, 400, 1000]) {
          const a = stepVus(s, rate);
          // the plan the step's k6 makes (lib/workloads/e1-ramp.js, bulk-insert.js): an open model
          // up to MAX_VUS, the ramped operation only, an upsert step's pre-load in setup
          const plan = { vus: a.vus || 1, loadModel: { open: true, maxVUs: a.maxVus || a.need }, preload: s.phase === 'overwrite',
            target: { batchSize: Number(batch), writes: { [op === 'merge' ? 'merge' : op]: [] } } };
          const cfg = { DOC_SHAPE: s.op === 'bulk' ? 'user' : 'e1', DOC_BYTES: 1200, COMPLEXITY: 10, DOCS: 1e8, MEMORY_BUDGET_MB: Number(budget) };
          if (a.stop) {
            stopped++;
            assert.ok(a.need > a.fit, `${target} ${op} ${budget} MiB ${batch}: stopped at ${rate}/s although ${a.need} VUs fit ${a.fit}`);
            assert.throws(() => checkMemory(cfg, plan, decl[target]), /is too small for this run/);
            assert.match(a.stop, new RegExp(`^the step at ${rate}/s needs ${a.need} VUs .*MEMORY_BUDGET_MB=${budget} fits ${a.fit} of`));
          } else {
            started++;
            assert.ok(a.vus <= a.maxVus && a.maxVus <= Math.max(a.vus, 100), JSON.stringify(a));
            assert.doesNotThrow(() => checkMemory(cfg, plan, decl[target]), `${target} ${op} ${budget} MiB ${batch} at ${rate}/s: ${JSON.stringify(a)}`);
            assert.ok(memoryEstimate({ ...s.memory.input, vus: a.maxVus }).mib <= Number(budget));
          }
        }
      }
    }
  }
  assert.ok(started > 100 && stopped > 50, `${started} started, ${stopped} stopped`);
});

test('a search whose first step cannot fit is refused before any step runs (one line, exit 107)', () => {
  const out = path.join(mkdtempSync(path.join(tmpdir(), 'k6wp-cap-')), 'never');
  const r = spawnSync('node', ['scripts/capacity.mjs', '-e', 'CAPACITY_TARGET=postgres', '-e', 'CAPACITY_OP=insert', '-e', 'MEMORY_BUDGET_MB=64', '-e', 'CAPACITY_START=50', '-e', `CAPACITY_OUT=${out}`],
    { cwd: root, encoding: 'utf8', env: { ...process.env, PG_URL: 'postgres://u@127.0.0.1:9/db' } });
  assert.equal(r.status, 107, r.stderr);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, r.stderr);
  assert.equal(existsSync(out), false, 'nothing written');
  assert.match(lines[0], /^k6-writepath capacity: CAPACITY_START=50: the step at 50\/s needs 11 VUs \(rate x p99 SLO 200 ms\), and MEMORY_BUDGET_MB=64 fits \d of [\d.]+ MiB each with BATCH_SIZE=\d+ \(lib\/memory.js\): raise MEMORY_BUDGET_MB/);
});
