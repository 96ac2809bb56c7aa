// A memory-limited cgroup for the experiment's own PostgreSQL server, with the I/O counters
// the report needs. cgroup v1 (memory + blkio hierarchies, what these project machines have)
// and cgroup v2 (one unified hierarchy with memory.max and io.stat).
//
// Why the I/O counters need a throttle rule on v1: since Linux 5.x blk-throttle only
// accounts bytes/ops of a cgroup on a device that has a throttle rule, so
// blkio.throttle.io_service_bytes says "Total 0" otherwise. A rule of 1 TiB/s never
// throttles anything and turns the accounting on. Writeback of dirty page cache is done by
// kernel flusher threads and is not charged to the group on v1: the write figures are the
// group's synchronous writes (WAL fsyncs, direct writes) only; reads are complete.
import { existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = '/sys/fs/cgroup';
const UNLIMITED_BPS = String(2 ** 40);

export function cgroupVersion() {
  const fsType = execFileSync('stat', ['-fc', '%T', ROOT], { encoding: 'utf8' }).trim();
  if (fsType === 'cgroup2fs') return 2;
  if (existsSync(path.join(ROOT, 'memory', 'memory.limit_in_bytes')) && existsSync(path.join(ROOT, 'blkio'))) return 1;
  throw new Error(`no usable cgroup hierarchy under ${ROOT} (type ${fsType}, no memory+blkio controllers)`);
}

// major:minor of the whole disk that holds `dir` (throttle rules and io.stat are per disk).
export function diskOf(dir) {
  const st = statSync(realpathSync(dir));
  const major = Math.floor(Number(st.dev) / 256) & 0xfff; // old-style encoding is enough for virtio/sd/nvme
  const minor = (Number(st.dev) & 0xff) | ((Number(st.dev) >> 12) & 0xfff00);
  let name = null;
  for (const b of readdirSync('/sys/class/block')) {
    try { if (readFileSync(`/sys/class/block/${b}/dev`, 'utf8').trim() === `${major}:${minor}`) { name = b; break; } } catch (_) { /* skip */ }
  }
  if (!name) return { dev: `${major}:${minor}`, name: '?' };
  if (existsSync(`/sys/class/block/${name}/partition`)) {
    const parent = path.basename(path.dirname(realpathSync(`/sys/class/block/${name}`)));
    return { dev: readFileSync(`/sys/class/block/${parent}/dev`, 'utf8').trim(), name: parent };
  }
  return { dev: `${major}:${minor}`, name };
}

// Exiting processes stay members for a moment after the server's stop returns.
function waitEmpty(procsFile, ms = 10000) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (!existsSync(procsFile) || readFileSync(procsFile, 'utf8').trim() === '') return true;
    execFileSync('sleep', ['0.2']);
  }
  return false;
}

function num(file) { return Number(readFileSync(file, 'utf8').trim()); }
function kv(file) {
  const out = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const [k, v] = line.trim().split(/\s+/);
    if (k) out[k] = Number(v);
  }
  return out;
}

class CgroupV1 {
  constructor(name, disk) {
    this.version = 1;
    this.name = name;
    this.disk = disk;
    this.mem = path.join(ROOT, 'memory', name);
    this.blk = path.join(ROOT, 'blkio', name);
    this.ioSource = `cgroup v1 ${this.blk}/blkio.throttle.io_service_bytes and io_serviced (device ${disk.dev} ${disk.name}, accounting enabled by a 1 TiB/s throttle rule)`;
  }

  create(limitBytes) {
    for (const d of [this.mem, this.blk]) if (!existsSync(d)) mkdirSync(d);
    // No swap on the machine is the usual case; where there is, swap must not extend the
    // budget. memsw must stay >= the memory limit at every step, hence -1 first.
    const memsw = path.join(this.mem, 'memory.memsw.limit_in_bytes');
    const hasMemsw = existsSync(memsw);
    if (hasMemsw) { try { writeFileSync(memsw, '-1'); } catch (_) { /* swap accounting off */ } }
    writeFileSync(path.join(this.mem, 'memory.limit_in_bytes'), String(limitBytes));
    if (hasMemsw) { try { writeFileSync(memsw, String(limitBytes)); } catch (_) { /* swap accounting off */ } }
    writeFileSync(path.join(this.blk, 'blkio.throttle.read_bps_device'), `${this.disk.dev} ${UNLIMITED_BPS}`);
    writeFileSync(path.join(this.blk, 'blkio.throttle.write_bps_device'), `${this.disk.dev} ${UNLIMITED_BPS}`);
  }

  procsFiles() { return [path.join(this.mem, 'cgroup.procs'), path.join(this.blk, 'cgroup.procs')]; }

  limit() { return num(path.join(this.mem, 'memory.limit_in_bytes')); }

  contains(pid) {
    const lines = readFileSync(`/proc/${pid}/cgroup`, 'utf8');
    return new RegExp(`:memory:/${this.name}$`, 'm').test(lines) && new RegExp(`:blkio:/${this.name}$`, 'm').test(lines);
  }

  sample() {
    const bytes = {}; const ops = {};
    for (const [file, into] of [['blkio.throttle.io_service_bytes', bytes], ['blkio.throttle.io_serviced', ops]]) {
      for (const line of readFileSync(path.join(this.blk, file), 'utf8').split('\n')) {
        const [dev, kind, v] = line.trim().split(/\s+/);
        if (dev === this.disk.dev && v !== undefined) into[kind] = Number(v);
      }
    }
    const st = kv(path.join(this.mem, 'memory.stat'));
    return {
      readBytes: bytes.Read || 0, readOps: ops.Read || 0, writeBytes: bytes.Write || 0, writeOps: ops.Write || 0,
      usage: num(path.join(this.mem, 'memory.usage_in_bytes')), cache: st.cache || 0, rss: st.rss || 0,
    };
  }

  peak() {
    return { peakBytes: num(path.join(this.mem, 'memory.max_usage_in_bytes')), limitHits: num(path.join(this.mem, 'memory.failcnt')) };
  }

  destroy() {
    waitEmpty(path.join(this.mem, 'cgroup.procs'));
    // force_empty reclaims the group's page cache now, so nothing it cached lingers charged
    // to the parent and served from RAM to the next regime.
    try { writeFileSync(path.join(this.mem, 'memory.force_empty'), '0'); } catch (_) { /* still has tasks */ }
    for (const d of [this.mem, this.blk]) { try { rmdirSync(d); } catch (_) { /* reported by the caller */ } }
    return !existsSync(this.mem) && !existsSync(this.blk);
  }
}

class CgroupV2 {
  constructor(name, disk) {
    this.version = 2;
    this.name = name;
    this.disk = disk;
    this.dir = path.join(ROOT, name);
    this.ioSource = `cgroup v2 ${this.dir}/io.stat rbytes/rios (device ${disk.dev} ${disk.name})`;
  }

  create(limitBytes) {
    const ctl = readFileSync(path.join(ROOT, 'cgroup.subtree_control'), 'utf8');
    for (const c of ['memory', 'io']) {
      if (!ctl.split(/\s+/).includes(c)) writeFileSync(path.join(ROOT, 'cgroup.subtree_control'), `+${c}`);
    }
    if (!existsSync(this.dir)) mkdirSync(this.dir);
    writeFileSync(path.join(this.dir, 'memory.max'), String(limitBytes));
    if (existsSync(path.join(this.dir, 'memory.swap.max'))) writeFileSync(path.join(this.dir, 'memory.swap.max'), '0');
  }

  procsFiles() { return [path.join(this.dir, 'cgroup.procs')]; }

  limit() { return num(path.join(this.dir, 'memory.max')); }

  contains(pid) {
    return new RegExp(`^0::/${this.name}$`, 'm').test(readFileSync(`/proc/${pid}/cgroup`, 'utf8'));
  }

  sample() {
    const io = {};
    for (const line of readFileSync(path.join(this.dir, 'io.stat'), 'utf8').split('\n')) {
      const parts = line.trim().split(/\s+/);
      if (parts[0] !== this.disk.dev) continue;
      for (const p of parts.slice(1)) { const [k, v] = p.split('='); io[k] = Number(v); }
    }
    const st = kv(path.join(this.dir, 'memory.stat'));
    return {
      readBytes: io.rbytes || 0, readOps: io.rios || 0, writeBytes: io.wbytes || 0, writeOps: io.wios || 0,
      usage: num(path.join(this.dir, 'memory.current')), cache: st.file || 0, rss: st.anon || 0,
    };
  }

  peak() {
    const peakFile = path.join(this.dir, 'memory.peak'); // Linux >= 5.19
    const events = kv(path.join(this.dir, 'memory.events'));
    return { peakBytes: existsSync(peakFile) ? num(peakFile) : null, limitHits: events.max || 0 };
  }

  destroy() {
    waitEmpty(path.join(this.dir, 'cgroup.procs'));
    try { writeFileSync(path.join(this.dir, 'memory.reclaim'), String(this.limit())); } catch (_) { /* older kernel */ }
    try { rmdirSync(this.dir); } catch (_) { /* reported by the caller */ }
    return !existsSync(this.dir);
  }
}

export function createCgroup(name, limitBytes, dataDir) {
  const disk = diskOf(dataDir);
  const cg = cgroupVersion() === 2 ? new CgroupV2(name, disk) : new CgroupV1(name, disk);
  cg.create(limitBytes);
  return cg;
}
