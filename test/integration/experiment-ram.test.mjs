// make experiment-ram at a scale that takes about a minute: the real driver, a real private
// PostgreSQL in a real memory-limited cgroup with a real read cap (RAM_READ_IOPS), real k6
// runs. Asserts the two-regime table with ratios and read I/O, the exact counts, that the
// budget was enforced, and that the read cap was in force and removed. Never a speed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot } from '../helpers/testserver.mjs';
import { freePort } from '../helpers/pgprivate.mjs';

const DOCS = 80000;
const BATCH_SIZE = 1000;
const OVERWRITE_BATCHES = 12;
const SMALL_MB = 52;
const LARGE_MB = 512;
// Low enough that the out-of-memory overwrite (~1 read per document, 12 000 reads) meets it,
// high enough to cost only seconds.
const READ_IOPS = 1500;
// Not the driver's default, and one per test process: engineers share the tree and may run
// `make test` at the same time; the driver refuses a port another run holds.
// A port the OS finds free (tests never assume a fixed port is free: several checkouts share a machine).
const PORT = await freePort();

function runDriver(env, timeoutMs = 240000) {
  return new Promise((resolve, reject) => {
    // What make experiment NAME=ram runs (mk/experiments.mk).
    const child = spawn(process.execPath, [path.join(repoRoot, 'experiments', 'ram', 'driver.mjs')], { cwd: repoRoot, env: { ...process.env, ...env } });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    const timer = setTimeout(() => { child.kill('SIGINT'); reject(new Error(`experiment-ram did not finish in ${timeoutMs} ms:\n${out}`)); }, timeoutMs);
    child.on('exit', (code) => { clearTimeout(timer); resolve({ code, out }); });
  });
}

const canCgroup = process.getuid && process.getuid() === 0 && existsSync('/sys/fs/cgroup');

test('experiment-ram: a bad knob stops the driver with one line naming it, exit 107', async () => {
  const r = await runDriver({ RAM_SMALL_MB: 'lots' });
  assert.equal(r.code, 107);
  assert.match(r.out, /^experiment-ram: RAM_SMALL_MB="lots" is not allowed: a whole number from 32 to 1048576/m);
  const r1 = await runDriver({ RAM_READ_IOPS: '-375' });
  assert.equal(r1.code, 107);
  assert.match(r1.out, /^experiment-ram: RAM_READ_IOPS="-375" is not allowed: a whole number from 0 to 10000000 \(cap on the server's read operations per second/m);
  // The pack's own knobs the driver passes on are checked by the pack's parser, before anything starts.
  const rt = await runDriver({ TIMEOUT: '5x' });
  assert.equal(rt.code, 107);
  assert.match(rt.out, /^experiment-ram: TIMEOUT="5x" is not allowed: a duration from 100ms to 24h such as 500ms, 60s, 5m, 1h30m$/m);
  const r2 = await runDriver({ DOCS: '80000', RAM_SMALL_MB: '100', RAM_LARGE_MB: '512' }); // ~120 MiB is not 3x 100
  assert.equal(r2.code, 107);
  assert.match(r2.out, /RAM_SMALL_MB=100 is not allowed with DOCS=80000 and DOC_BYTES=1200: the data \(~\d+ MiB\) must be at least RAM_MIN_RATIO=3 times the budget/);
});

test('experiment-ram: two regimes x two index variants, ratios, reads, exact counts, read cap applied and removed', { skip: canCgroup ? false : 'needs root and /sys/fs/cgroup to put the server in a memory-limited cgroup' }, async () => {
  const out = mkdtempSync(path.join(tmpdir(), 'k6wp-ram-'));
  const r = await runDriver({
    DOCS: String(DOCS), BATCH_SIZE: String(BATCH_SIZE), OVERWRITE_BATCHES: String(OVERWRITE_BATCHES),
    RAM_SMALL_MB: String(SMALL_MB), RAM_LARGE_MB: String(LARGE_MB), RAM_SHARED_BUFFERS_MB: '4', RAM_MIN_RATIO: '2',
    RAM_INDEXES: '0,2', RAM_PG_PORT: String(PORT), RAM_OUT: out, WP_INFLUX: '0', RAM_READ_IOPS: String(READ_IOPS),
  });
  assert.equal(r.code, 0, r.out);
  const res = JSON.parse(readFileSync(path.join(out, 'experiment-ram.json'), 'utf8'));
  assert.equal(res.machine.cgroup.startsWith('v'), true);
  assert.deepEqual(res.cells.map((c) => `${c.indexes}/${c.regime}`), ['0/fits', '0/exceeds', '2/fits', '2/exceeds']);
  for (const c of res.cells) {
    const name = `indexes=${c.indexes} ${c.regime}`;
    assert.equal(c.error, undefined, name);
    assert.equal(c.k6_exit, 0, name);
    assert.equal(c.postmaster_in_cgroup, true, name);
    assert.equal(c.cgroup_removed, true, name);
    // The report's PG_INDEXES is read back from the table: '0', or the indexed fields joined by '+'.
    const idx = c.server.settings.PG_INDEXES;
    assert.equal(idx === '0' ? 0 : idx.split('+').length, c.indexes, `${name}: PG_INDEXES ${idx}`);
    // The cap, as the kernel showed it after the driver wrote it, and after it cleared it.
    assert.deepEqual(c.read_cap, { requested: { iops: READ_IOPS, bps: 0 }, in_force: { iops: READ_IOPS, bps: 0 }, after_removal: { iops: 0, bps: 0 } }, name);
    const [load, over] = c.phases;
    assert.equal(load.phase, 'load');
    assert.equal(load.batches, DOCS / BATCH_SIZE, name);
    assert.equal(load.docs_ok, DOCS, name);
    assert.equal(load.docs_failed, 0, name);
    assert.equal(over.phase, 'overwrite');
    assert.equal(over.batches, OVERWRITE_BATCHES, name);
    assert.equal(over.docs_ok, OVERWRITE_BATCHES * BATCH_SIZE, name);
    assert.equal(over.docs_failed, 0, name);
    assert.equal(c.verification.expected, DOCS, name);
    assert.equal(c.verification.found, DOCS, name);
    assert.ok(c.verification.readback_checked > 0, name);
    assert.equal(c.verification.readback_stale_or_missing, 0, name);
    for (const p of c.phases) {
      for (const s of ['min', 'median', 'average', 'p90', 'p99', 'max']) assert.ok(p.batch_ms[s] > 0, `${name} ${p.phase} ${s}`);
      assert.ok(Number.isFinite(p.read_mib) && p.read_mib >= 0, `${name} ${p.phase} read_mib`);
      assert.ok(Number.isInteger(p.read_ops) && p.read_ops >= 0, `${name} ${p.phase} read_ops`);
    }
    assert.ok(c.ratios['overwrite/load'].average > 0, name);
    // The budget was enforced on the server: it never used more than the limit.
    // The kernel charges a page or two beyond the limit before it reclaims (seen: 52.004 MiB
    // peak under a 52 MiB limit); more than 1 MiB over would mean the limit is not enforced.
    assert.ok(c.memory.peak_mib <= c.budget_mib + 1, `${name}: peak ${c.memory.peak_mib} MiB > budget ${c.budget_mib}`);
    if (c.regime === 'exceeds') {
      assert.ok(c.table_total_mib > 1.5 * c.budget_mib, `${name}: table ${c.table_total_mib} MiB is not well above the budget`);
      assert.ok(c.memory.peak_mib > 0.9 * c.budget_mib, `${name}: the budget was never reached (peak ${c.memory.peak_mib} MiB)`);
    } else {
      assert.ok(c.table_total_mib < c.budget_mib / 2, `${name}: table ${c.table_total_mib} MiB does not fit the budget`);
    }
  }
  // E1's claim, as reads: with the data evicted the overwrite reads from disk, in memory it does not.
  for (const idx of [0, 2]) {
    const over = (g) => res.cells.find((c) => c.indexes === idx && c.regime === g).phases[1];
    assert.ok(over('exceeds').reads_per_doc > 0.3, `indexes=${idx}: ${over('exceeds').reads_per_doc} reads per overwritten doc with data > budget`);
    assert.ok(over('fits').reads_per_doc < 0.05, `indexes=${idx}: ${over('fits').reads_per_doc} reads per overwritten doc with data in memory`);
    // The cap held: an upper bound, never a lower one (a slow or busy machine reads less).
    // blk-throttle lets the first slice's reads through at once and the 100 ms polling cut
    // adds up to one interval at each end of the phase, hence 25% over the cap.
    const o = over('exceeds');
    assert.ok(o.read_iops > 0 && o.read_iops <= READ_IOPS * 1.25, `indexes=${idx}: ${o.read_iops} read IOPS observed under a cap of ${READ_IOPS}`);
    assert.ok(Math.abs(o.read_iops - o.read_ops / o.wall_s) < 1, `indexes=${idx}: read IOPS is read ops over the phase's wall time`);
  }
  assert.equal(res.knobs.RAM_READ_IOPS, READ_IOPS);
  const md = readFileSync(path.join(out, 'report.md'), 'utf8');
  assert.match(md, /\| indexes \| regime \| budget MiB \| table MiB \| phase \| batches \| min \| median \| average \| p90 \| p99 \| max \| read MiB \| read ops \| reads \/ doc \| read IOPS observed \|/);
  assert.match(md, new RegExp(`^- read cap \\(E1's disk\\): ${READ_IOPS} read IOPS on the data disk for the server's cgroup, in every cell \\(v\\d throttle rule, read back from the kernel: in force in every cell; cleared before the cgroup was removed: yes\\)`, 'm'));
  assert.match(md, /^\| E1 PostgreSQL 9\.6 \(published\) \| 389 \| 109383 \| 281x \|/m);
  assert.match(md, /^\| E1 ArangoDB 3\.4 \(published\) \| 659 \| 9783 \| 15x \|/m);
  for (const idx of [0, 2]) {
    assert.match(md, new RegExp(`^\\| this run: PostgreSQL, indexes=${idx}, exceeds \\| [\\d.]+ \\| [\\d.]+ \\| [\\d.]+x \\| [\\d.]+ \\| \\d+ \\| \\d+ \\|$`, 'm'));
  }
  for (const idx of [0, 2]) {
    for (const g of ['fits', 'exceeds']) {
      assert.match(md, new RegExp(`^\\| ${idx} \\| ${g} \\| \\d+ \\| \\d+ \\| insert \\| ${DOCS / BATCH_SIZE} \\|`, 'm'));
      assert.match(md, new RegExp(`^\\| ${idx} \\| ${g} \\| \\d+ \\| \\d+ \\| overwrite \\| ${OVERWRITE_BATCHES} \\|`, 'm'));
    }
    assert.match(md, new RegExp(`^\\| ${idx} \\| \\d+\\.\\d\\dx \\([\\d.]+x, [\\d.]+x\\) \\| \\d+\\.\\d\\dx \\([\\d.]+x, [\\d.]+x\\) \\| \\d+\\.\\d\\d \\| \\d+\\.\\d\\d \\|$`, 'm'));
  }
  // Nothing left behind: no cgroup of this port, no server.
  const cg = (d) => existsSync(d) && readdirSync(d).some((n) => n === `k6wp_ram_${PORT}`);
  assert.equal(cg('/sys/fs/cgroup/memory') || cg('/sys/fs/cgroup/blkio') || cg('/sys/fs/cgroup/cpuacct') || cg('/sys/fs/cgroup'), false);
  assert.equal(existsSync(path.join(repoRoot, '.run', `experiment-pg-${PORT}.lock`)), false);
  assert.equal(existsSync(path.join(repoRoot, '.run', 'experiment-ram', `pg-${PORT}`, 'data', 'postmaster.pid')), false);
  rmSync(out, { recursive: true, force: true });
  // The per-port data directory (a symlink to /var/tmp/… where postgres cannot traverse the repo).
  const dataDir = path.join(repoRoot, '.run', 'experiment-ram', `pg-${PORT}`);
  const target = existsSync(dataDir) ? realpathSync(dataDir) : null;
  rmSync(dataDir, { recursive: true, force: true });
  if (target) rmSync(target, { recursive: true, force: true });
});

// RAM_TARGET=mongodb: the same driver puts a private mongod (scripts/mongo-private.sh) in the
// memory-limited cgroup. One cell (fits) at a small scale: mongod itself needs ~200 MiB next to
// its smallest WiredTiger cache (256 MiB), so an "exceeds" regime needs ~1 M documents.
test('experiment-ram on MongoDB: mongod in the memory-limited cgroup, exact counts, the collection\'s size from the server, nothing left behind', { skip: canCgroup ? false : 'needs root and /sys/fs/cgroup to put the server in a memory-limited cgroup' }, async () => {
  const bad = await runDriver({ RAM_TARGET: 'cassandra' });
  assert.equal(bad.code, 107);
  assert.match(bad.out, /^experiment-ram: RAM_TARGET="cassandra" is not allowed: one of postgres, mongodb$/m);
  const out = mkdtempSync(path.join(tmpdir(), 'k6wp-ram-mongo-'));
  const mongoPort = await freePort();
  const r = await runDriver({
    RAM_TARGET: 'mongodb', RAM_REGIMES: 'fits', RAM_INDEXES: '1', DOCS: '20000', BATCH_SIZE: '1000', OVERWRITE_BATCHES: '4',
    RAM_LARGE_MB: '700', RAM_MONGO_PORT: String(mongoPort), RAM_OUT: out, WP_INFLUX: '0',
  });
  assert.equal(r.code, 0, r.out);
  const res = JSON.parse(readFileSync(path.join(out, 'experiment-ram.json'), 'utf8'));
  assert.equal(res.knobs.RAM_TARGET, 'mongodb');
  assert.equal(res.cells.length, 1);
  const c = res.cells[0];
  assert.equal(c.error, undefined, JSON.stringify(c));
  assert.equal(c.postmaster_in_cgroup, true, 'mongod ran inside the cgroup');
  assert.equal(c.cgroup_removed, true);
  assert.equal(c.budget_mib, 700);
  assert.match(c.server.serverVersion, /^6\.0\.5 \(MongoDB Community, standalone\)$/);
  assert.equal(c.server.settings.MONGO_INDEXES, 'f0');
  assert.deepEqual(c.phases.map((p) => [p.phase, p.docs_ok, p.docs_failed]), [['load', 20000, 0], ['overwrite', 4000, 0]]);
  assert.equal(c.verification.found, 20000);
  assert.equal(c.verification.readback_stale_or_missing, 0);
  assert.ok(c.table_mib > 0 && c.table_total_mib > c.table_mib && c.data_uncompressed_mib > 20, JSON.stringify(c));
  assert.ok(c.memory.peak_mib === null || c.memory.peak_mib <= 700, `peak ${c.memory.peak_mib} MiB within the budget`);
  const md = readFileSync(path.join(out, 'report.md'), 'utf8');
  assert.match(md, /^# experiment-ram: E1 on MongoDB, data in memory vs\. data several times the memory budget$/m);
  assert.match(md, /^- memory budget: cgroup v\d memory limit on mongod \(started inside the group; page cache counts against it\): fits = 700 MiB/m);
  assert.match(md, /^\| this run: MongoDB, indexes=1, fits \|/m);
  const cg = (d) => existsSync(d) && readdirSync(d).some((n) => n.startsWith(`k6wp_ram_${mongoPort}`));
  assert.equal(cg('/sys/fs/cgroup/memory') || cg('/sys/fs/cgroup/blkio') || cg('/sys/fs/cgroup/cpuacct') || cg('/sys/fs/cgroup'), false);
  const dataDir = path.join(repoRoot, '.run', 'experiment-ram', `mongo-${mongoPort}`);
  assert.equal(existsSync(path.join(dataDir, 'mongod.pid')), false, 'mongod stopped');
  rmSync(out, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

// Ctrl-C during a campaign: the terminal sends SIGINT to the whole process group (the driver,
// the k6 of the running cell). As E2's: the report says so at its top, the cut cell is listed
// apart with its k6 exit code and kept out of every table, and the driver ends with the pack's
// interrupted code and one line saying so.
test('experiment-ram interrupted (SIGINT to its process group, as Ctrl-C): banner, cut cell out of the tables, exit 105 with one line', { skip: canCgroup ? false : 'needs root and /sys/fs/cgroup to put the server in a memory-limited cgroup', timeout: 300000 }, async () => {
  const out = mkdtempSync(path.join(tmpdir(), 'k6wp-rami-'));
  const port = await freePort();
  // The exceeds cell reads ~1 page per overwritten document under a cap of 300 reads/s: its
  // overwrite phase lasts minutes, so the signal meets it mid-phase however busy the machine.
  const child = spawn(process.execPath, [path.join(repoRoot, 'experiments', 'ram', 'driver.mjs')], { cwd: repoRoot, detached: true,
    env: { ...process.env, WP_INFLUX: '0', DOCS: String(DOCS), BATCH_SIZE: String(BATCH_SIZE), OVERWRITE_BATCHES: '40',
      RAM_SMALL_MB: String(SMALL_MB), RAM_LARGE_MB: String(LARGE_MB), RAM_SHARED_BUFFERS_MB: '4', RAM_MIN_RATIO: '2',
      RAM_INDEXES: '0,2', RAM_PG_PORT: String(port), RAM_OUT: out, RAM_READ_IOPS: '300' } });
  let text = '';
  let errText = '';
  child.stdout.on('data', (d) => { text += d; });
  child.stderr.on('data', (d) => { text += d; errText += d; });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  try {
    const points = path.join(out, 'i0-exceeds', 'k6-points.json');
    for (const until = Date.now() + 240000; !(existsSync(points) && readFileSync(points, 'utf8').includes('"phase":"overwrite"')); await new Promise((r) => setTimeout(r, 100))) {
      if (Date.now() > until || child.exitCode !== null) throw new Error(`the exceeds cell never reached its overwrites:\n${text}`);
    }
    process.kill(-child.pid, 'SIGINT');
    const code = await exited;
    assert.equal(code, 105, text);
    const report = path.relative(repoRoot, path.join(out, 'report.md'));
    assert.deepEqual(errText.trim().split('\n'), [`experiment-ram: interrupted (SIGINT): 2 of 4 cells ran, 1 finished; ${report} holds only those (exit 105)`], text);
    const md = readFileSync(path.join(out, 'report.md'), 'utf8');
    const lines = md.split('\n');
    assert.match(lines[2], /^\*\*Interrupted \(SIGINT\): 2 of 4 cells ran, 1 finished; the tables hold only those 1\.\*\* The cells that did not run are missing, and the 1 cut short or failed are listed under "Cells left out"\./, md);
    const res = JSON.parse(readFileSync(path.join(out, 'experiment-ram.json'), 'utf8'));
    assert.deepEqual([res.planned_cells, res.interrupted, res.cells.map((c) => `${c.indexes}/${c.regime}:${c.k6_exit}`)], [4, 'SIGINT', ['0/fits:0', '0/exceeds:105']], text);
    const tables = md.slice(md.indexOf('## Time per batch'), md.indexOf('## Cells left out'));
    assert.match(tables, /^\| 0 \| fits \| 512 \| \d+ \| insert \|/m);
    assert.match(tables, /^\| this run: PostgreSQL, indexes=0, fits \|/m);
    assert.doesNotMatch(tables, /exceeds \|/, 'no figure of the cut cell');
    assert.doesNotMatch(tables, /^\| 2 \| (fits|exceeds) \|/m);
    assert.match(md.slice(md.indexOf('## Cells left out')), /^- indexes=0 exceeds: k6 exit 105 \(k6 interrupted \(Ctrl-C, SIGTERM\)\)$/m);
    // The cut cell's server, cgroup and lock are gone as after a whole campaign.
    assert.equal(res.cells[1].cgroup_removed, true);
    assert.equal(existsSync(path.join(repoRoot, '.run', `experiment-pg-${port}.lock`)), false);
  } finally {
    if (child.exitCode === null) { try { process.kill(-child.pid, 'SIGKILL'); } catch (_) { /* gone */ } }
    rmSync(out, { recursive: true, force: true });
    const dataDir = path.join(repoRoot, '.run', 'experiment-ram', `pg-${port}`);
    const target = existsSync(dataDir) ? realpathSync(dataDir) : null;
    rmSync(dataDir, { recursive: true, force: true });
    if (target) rmSync(target, { recursive: true, force: true });
  }
});
