// make experiment-e2 at a scale that takes well under a minute: the real driver, a real private
// PostgreSQL restarted with each cell's settings, real k6 runs of the pack's scenario. Asserts
// the whole matrix's structure, the exact row accounting, that each cell's configuration was
// what the server and the table really had, the CPU accounting, the refusal of a second run on
// the same port, and that nothing is left behind. Never a speed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot } from '../helpers/testserver.mjs';
import { ALL_CELLS as CELLS, COMPARISONS } from '../../experiments/e2/cells.mjs';
import { freePort } from '../helpers/pgprivate.mjs';

const DOCS = 4000;
const UPSERTS = 4000;
const NEW_PERCENT = 50;
const BATCHES = [100, 1000];
// One port per test process, away from the driver's default: engineers share the tree.
// A port the OS finds free (tests never assume a fixed port is free: several checkouts share a machine).
const PORT = await freePort();

function runDriver(script, env, timeoutMs = 300000) {
  // What make experiment NAME=e2|ram runs (mk/experiments.mk).
  const driver = path.join(repoRoot, 'experiments', script.replace(/^experiment-/, ''), 'driver.mjs');
  const child = spawn(process.execPath, [driver], { cwd: repoRoot, env: { ...process.env, WP_INFLUX: '0', ...env } });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { out += d; });
  const done = new Promise((resolve, reject) => {
    const timer = setTimeout(() => { child.kill('SIGINT'); reject(new Error(`${script} did not finish in ${timeoutMs} ms:\n${out}`)); }, timeoutMs);
    child.on('exit', (code) => { clearTimeout(timer); resolve({ code, out }); });
  });
  return { child, done, output: () => out };
}

const canCgroup = process.getuid && process.getuid() === 0 && existsSync('/sys/fs/cgroup');

test('experiment-e2: bad knobs stop the driver with one line naming them, exit 107', async () => {
  const cases = [
    [{ E2_CELLS: 'defaults,turbo' }, /^experiment-e2: E2_CELLS="defaults,turbo" is not allowed: a comma-separated list of distinct cells from defaults, sync-off, unlogged, unlogged-2idx, unlogged-8idx, unlogged-tuned, logged-wal, mongo-default, mongo-journaled, mongo-2idx, mongo-8idx$/m],
    [{ E2_REPS: '0' }, /^experiment-e2: E2_REPS="0" is not allowed: a whole number from 1 to 20/m],
    [{ E2_MONGO_CACHE_MB: '100' }, /^experiment-e2: E2_MONGO_CACHE_MB="100" is not allowed: a whole number from 256 to 1048576/m],
    [{ E2_MONGO_PORT: '17542', E2_PG_PORT: '17542' }, /^experiment-e2: E2_MONGO_PORT=17542 is not allowed: another port than E2_PG_PORT$/m],
    [{ E2_BATCH_SIZES: '100,0' }, /^experiment-e2: E2_BATCH_SIZES="100,0" is not allowed: a comma-separated list of distinct batch sizes from 1 to 100000/m],
    [{ E2_UPSERTS: '1500', E2_BATCH_SIZES: '100,1000' }, /^experiment-e2: E2_UPSERTS=1500 is not allowed with E2_BATCH_SIZES=100,1000: a multiple of every batch size \(1000 does not divide it\)/m],
    [{ E2_VUS: 'two' }, /^experiment-e2: E2_VUS="two" is not allowed: a whole number from 1 to 16/m],
    [{ E2_PG_PORT: '80' }, /^experiment-e2: E2_PG_PORT="80" is not allowed: a whole number from 1024 to 65533/m],
  ];
  for (const [env, re] of cases) {
    const r = await runDriver('experiment-e2', env).done;
    assert.equal(r.code, 107, r.out);
    assert.match(r.out, re);
    assert.equal(r.out.trim().split('\n').length, 1, r.out);
  }
});

test('experiment-e2: the whole matrix, exact accounting, configurations as the server had them, CPU per cell, one run per port', { skip: canCgroup ? false : 'needs root and /sys/fs/cgroup to count the server\'s and the client\'s CPU' }, async () => {
  const out = mkdtempSync(path.join(tmpdir(), 'k6wp-e2-'));
  const MONGO_PORT = await freePort();
  const run = runDriver('experiment-e2', {
    E2_DOCS: String(DOCS), E2_UPSERTS: String(UPSERTS), E2_NEW_PERCENT: String(NEW_PERCENT), E2_BATCH_SIZES: BATCHES.join(','),
    E2_SHARED_BUFFERS_MB: '48', E2_PG_PORT: String(PORT), E2_MONGO_PORT: String(MONGO_PORT), E2_MONGO_CACHE_MB: '256', E2_OUT: out,
  });
  // A second run on the same port, of either experiment, is refused while the first holds it.
  const lock = path.join(repoRoot, '.run', `experiment-pg-${PORT}.lock`);
  const until = Date.now() + 60000;
  while (!existsSync(lock) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  assert.ok(existsSync(lock), 'the first run never took its port');
  const second = await runDriver('experiment-e2', { E2_PG_PORT: String(PORT), E2_OUT: path.join(out, 'second') }).done;
  assert.equal(second.code, 1, second.out);
  assert.match(second.out, new RegExp(`^experiment-e2: E2_PG_PORT=${PORT} is in use by another experiment-e2 run \\(pid \\d+\\): wait for it, or choose another E2_PG_PORT$`, 'm'));
  const third = await runDriver('experiment-ram', { RAM_PG_PORT: String(PORT), DOCS: '80000', RAM_SMALL_MB: '52', RAM_LARGE_MB: '512', RAM_SHARED_BUFFERS_MB: '4', RAM_MIN_RATIO: '2' }).done;
  assert.equal(third.code, 1, third.out);
  assert.match(third.out, new RegExp(`RAM_PG_PORT=${PORT} is in use by another experiment-e2 run`));

  const r = await run.done;
  assert.equal(r.code, 0, r.out);
  const res = JSON.parse(readFileSync(path.join(out, 'experiment-e2.json'), 'utf8'));
  const expectedCells = CELLS.flatMap((c) => BATCHES.map((b) => `${c.name}/${b}`));
  assert.deepEqual(res.cells.map((c) => `${c.config}/${c.batch_size}`), expectedCells);
  for (const c of res.cells) {
    const name = `${c.config} batch ${c.batch_size}`;
    const def = CELLS.find((d) => d.name === c.config);
    assert.equal(c.error, undefined, name);
    assert.equal(c.k6_exit, 0, name);
    assert.equal(c.cgroups_removed, true, name);
    const [load, up] = c.phases;
    assert.equal(load.phase, 'load', name);
    assert.equal(load.docs_ok, DOCS, name);
    assert.equal(up.phase, 'mixed', name);
    assert.equal(up.batches, UPSERTS / c.batch_size, name);
    assert.equal(up.docs_ok, UPSERTS, name);
    assert.equal(up.docs_failed, 0, name);
    assert.equal(c.verification.expected, DOCS + UPSERTS * NEW_PERCENT / 100, name);
    assert.equal(c.verification.found, c.verification.expected, name);
    assert.equal(c.verification.readback_stale_or_missing, 0, name);
    // The configuration is what the table/collection and the server really had, not what was asked.
    if (def.target === 'mongodb') {
      assert.match(c.server.serverVersion, /^6\.0\.5 \(MongoDB Community, standalone\)$/, name);
      assert.equal(c.table.secondary_indexes, def.pack.MONGO_INDEXES, name);
      assert.equal(c.table.write_concern, def.pack.MONGO_J === 'true' ? '{j:true} (MONGO_W/MONGO_J)' : 'server default {w:1} (implicit: a standalone)', name);
      assert.equal(c.server_in_force.wiredtiger_cache, '256MB', name);
    } else {
      assert.equal(c.table.persistence, def.pack.PG_TABLE, name);
      assert.equal(c.table.secondary_indexes, def.pack.PG_INDEXES, name);
      assert.equal(c.server.settings.synchronous_commit, def.pack.PG_SYNC_COMMIT, name);
      for (const s of def.server) {
        const [n, v] = s.split('=');
        assert.equal(c.server_in_force[n], v, `${name}: ${n}`);
      }
      assert.equal(c.server_in_force.shared_buffers, def.bigBuffers ? '48MB' : '128MB', name);
      if (!def.server.some((s) => s.startsWith('commit_delay='))) assert.equal(c.server_in_force.commit_delay, '0', name);
    }
    // Accounting: both sides used CPU in the window, the share is their ratio, the rate is rows over the window.
    assert.ok(up.server_cpu_s > 0 && up.client_cpu_s > 0, `${name}: server ${up.server_cpu_s} s, client ${up.client_cpu_s} s`);
    assert.ok(Math.abs(up.client_share - up.client_cpu_s / (up.client_cpu_s + up.server_cpu_s)) < 1e-9, name);
    assert.ok(up.wall_s > 0 && Math.abs(up.rows_per_s - UPSERTS / up.wall_s) < 1e-6, name);
  }
  const md = readFileSync(path.join(out, 'report.md'), 'utf8');
  assert.match(md, /^During the upserts the rest of the machine used \d+\.\d\d of its \d+ cores on average/m);
  assert.match(md, /^\| configuration \| batch \| upserts\/s \| published \(E2\) \| upserts per server CPU-second \| load rows\/s \| server cores \| client cores \| client share \| others cores \| verified rows \| table, as the run found it \|$/m);
  const esc = (t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  for (const c of CELLS) {
    const found = c.target === 'mongodb'
      ? `collection, ${c.pack.MONGO_INDEXES} idx, write concern ${esc(c.pack.MONGO_J === 'true' ? '{j:true} (MONGO_W/MONGO_J)' : 'server default {w:1} (implicit: a standalone)')}`
      : `${c.pack.PG_TABLE}, ${c.pack.PG_INDEXES} idx, synchronous_commit=${c.pack.PG_SYNC_COMMIT}`;
    for (const b of BATCHES) {
      const row = new RegExp(`^\\| ${c.name} \\| ${b} \\| [\\d.]+ k \\| ${esc(c.published || '–')} \\| [\\d.]+ k \\| [\\d.]+ k \\| [\\d.]+ \\| [\\d.]+ \\| \\d+%( \\(client-bound\\))? \\| [\\d.]+ \\| 6000 of 6000 \\| ${found} \\|$`, 'm');
      assert.match(md, row);
    }
  }
  // PostgreSQL and MongoDB side by side: one row per comparison and batch size, the ratio of
  // the two upsert rates of the JSON, and no verdict from one repetition.
  assert.match(md, /^## PostgreSQL vs MongoDB: the post's 2–3×$/m);
  const up = (name, b) => res.cells.find((x) => x.config === name && x.batch_size === b).phases.find((p) => p.phase === 'mixed').rows_per_s;
  for (const cmp of COMPARISONS) {
    for (const b of BATCHES) {
      const ratio = (up(cmp.pg, b) / up(cmp.mongo, b)).toFixed(2);
      assert.match(md, new RegExp(`^\\| ${cmp.pg} vs ${cmp.mongo}: .* \\| ${b} \\| [\\d.]+ k \\| [\\d.]+ k \\| ${ratio}× \\| [^|]*\\(n = 1: too few repetitions for a verdict; E2_REPS=3 or more\\) \\| [\\d.]+ / [\\d.]+ \\| \\d+% / \\d+% \\|$`, 'm'));
    }
  }
  // Nothing left behind: no cgroup of this port, no server, no lock.
  for (const d of ['/sys/fs/cgroup/memory', '/sys/fs/cgroup/blkio', '/sys/fs/cgroup/cpuacct', '/sys/fs/cgroup']) {
    if (existsSync(d)) assert.deepEqual(readdirSync(d).filter((n) => n.startsWith(`k6wp_e2_${PORT}`) || n.startsWith(`k6wp_e2_${MONGO_PORT}`)), [], d);
  }
  const mongoDir = path.join(repoRoot, '.run', 'experiment-e2', `mongo-${MONGO_PORT}`);
  assert.equal(existsSync(path.join(mongoDir, 'mongod.pid')), false, 'mongod stopped');
  rmSync(mongoDir, { recursive: true, force: true });
  const dataDir = path.join(repoRoot, '.run', 'experiment-e2', `pg-${PORT}`);
  assert.equal(existsSync(path.join(dataDir, 'data', 'postmaster.pid')), false);
  assert.equal(existsSync(lock), false);
  rmSync(out, { recursive: true, force: true });
  const target = existsSync(dataDir) ? realpathSync(dataDir) : null;
  rmSync(dataDir, { recursive: true, force: true });
  if (target) rmSync(target, { recursive: true, force: true });
});

// Ctrl-C during a campaign: the terminal sends SIGINT to the whole process group (the driver,
// the k6 of the running cell). The report says so at its top, the cut cell is listed with its
// k6 exit code and kept out of the tables, the cells not run are missing from every table.
test('experiment-e2 interrupted (SIGINT to its process group, as Ctrl-C): the report says so at its top, the cut cell is listed with its exit code, out of the tables', { skip: canCgroup ? false : 'needs root and /sys/fs/cgroup to count the server\'s and the client\'s CPU', timeout: 300000 }, async () => {
  const out = mkdtempSync(path.join(tmpdir(), 'k6wp-e2i-'));
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(repoRoot, 'experiments', 'e2', 'driver.mjs')], { cwd: repoRoot, detached: true,
    env: { ...process.env, WP_INFLUX: '0', E2_CELLS: 'defaults,sync-off,unlogged', E2_BATCH_SIZES: '100', E2_DOCS: '4000', E2_UPSERTS: '100000', E2_NEW_PERCENT: '50',
      E2_SHARED_BUFFERS_MB: '48', E2_PG_PORT: String(port), E2_OUT: out } });
  let text = '';
  child.stdout.on('data', (d) => { text += d; });
  child.stderr.on('data', (d) => { text += d; });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const waitFor = async (re) => {
    for (const until = Date.now() + 240000; !re.test(text); await new Promise((r) => setTimeout(r, 100))) {
      if (Date.now() > until || child.exitCode !== null) throw new Error(`never saw ${re}:\n${text}`);
    }
  };
  try {
    await waitFor(/sync-off batch=100: k6 run /);
    // Its k6 is in its upserts (100 000 of them) once its points file holds a mixed batch.
    const points = path.join(out, 'sync-off-b100', 'k6-points.json');
    for (const until = Date.now() + 120000; !(existsSync(points) && readFileSync(points, 'utf8').includes('"phase":"mixed"')); await new Promise((r) => setTimeout(r, 100))) {
      if (Date.now() > until) throw new Error(`the second cell never reached its upserts:\n${text}`);
    }
    process.kill(-child.pid, 'SIGINT');
    const code = await exited;
    assert.equal(code, 105, text);
    const md = readFileSync(path.join(out, 'report.md'), 'utf8');
    const lines = md.split('\n');
    assert.equal(lines[0], '# experiment-e2: PostgreSQL upserts tuned for throughput (E2\'s matrix)', 'no MongoDB promised: none ran');
    assert.match(lines[2], /^\*\*Interrupted \(SIGINT\): 2 of 3 cells ran, 1 finished; the tables hold only those 1\.\*\*/, md);
    const res = JSON.parse(readFileSync(path.join(out, 'experiment-e2.json'), 'utf8'));
    assert.deepEqual([res.planned_cells, res.interrupted, res.cells.map((c) => `${c.config}:${c.k6_exit}`)], [3, 'SIGINT', ['defaults:0', 'sync-off:105']], text);
    const table = md.slice(md.indexOf('## Upserts per second'), md.indexOf('## Configurations'));
    assert.match(table, /^\| defaults \| 100 \|/m);
    assert.doesNotMatch(table, /sync-off|unlogged/);
    assert.match(md.slice(md.indexOf('## Cells left out')), /^- sync-off batch 100: k6 exit 105 \(k6 interrupted \(Ctrl-C, SIGTERM\)\)$/m);
  } finally {
    if (child.exitCode === null) { try { process.kill(-child.pid, 'SIGKILL'); } catch (_) { /* gone */ } }
    rmSync(out, { recursive: true, force: true });
  }
});
