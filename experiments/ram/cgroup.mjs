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
//
// A read cap (E1's disk: 375 read IOPS, 60 MB/s) is a real throttle rule on the same device:
// v1 blkio.throttle.read_iops_device / read_bps_device, v2 io.max riops=/rbps= (Linux
// Documentation/admin-guide/cgroup-v1/blkio-controller.rst and cgroup-v2.rst). blk-throttle
// acts on the bios the group's tasks submit, so it caps the server's own reads (page-cache
// misses, readahead); writeback is not the group's on v1 and is never capped here.
// CPU time: v1 cpuacct.usage (ns), v2 cpu.stat usage_usec; it includes exited processes.
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
  if (!name) return { dev: `${major}:${minor}`, name: '?', throttleable: false };
  if (existsSync(`/sys/class/block/${name}/partition`)) {
    const parent = path.basename(path.dirname(realpathSync(`/sys/class/block/${name}`)));
    return { dev: readFileSync(`/sys/class/block/${parent}/dev`, 'utf8').trim(), name: parent, throttleable: existsSync(`/sys/class/block/${parent}/queue`) };
  }
  return { dev: `${major}:${minor}`, name, throttleable: existsSync(`/sys/class/block/${name}/queue`) };
}

// Why a read cap cannot work for `dir`, or null when it can: the data must sit on a block
// device with a request queue (not tmpfs/overlay without one, whose st_dev is anonymous).
export function readCapProblem(dir) {
  const d = diskOf(dir);
  if (d.name === '?') return `the data directory ${dir} is on device ${d.dev}, which is no block device (tmpfs, overlay or another virtual file system): blk-throttle has nothing to cap`;
  if (!d.throttleable) return `the data directory ${dir} is on ${d.name} (${d.dev}), which has no request queue: blk-throttle cannot cap it`;
  return null;
}

function capText(cap) {
  const parts = [];
  if (cap.iops) parts.push(`${cap.iops} read IOPS`);
  if (cap.bps) parts.push(`${(cap.bps / 1e6).toFixed(1)} MB/s read`);
  return parts.join(', ');
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
    this.cpu = path.join(ROOT, 'cpuacct', name);
    this.ioSource = `cgroup v1 ${this.blk}/blkio.throttle.io_service_bytes and io_serviced (device ${disk.dev} ${disk.name}, accounting enabled by a 1 TiB/s throttle rule)`;
  }

  create(limitBytes) {
    for (const d of [this.mem, this.blk, this.cpu]) if (!existsSync(d)) mkdirSync(d);
    if (limitBytes !== null) this.limitMemory(limitBytes);
    writeFileSync(path.join(this.blk, 'blkio.throttle.read_bps_device'), `${this.disk.dev} ${UNLIMITED_BPS}`);
    writeFileSync(path.join(this.blk, 'blkio.throttle.write_bps_device'), `${this.disk.dev} ${UNLIMITED_BPS}`);
  }

  limitMemory(limitBytes) {
    // No swap on the machine is the usual case; where there is, swap must not extend the
    // budget. memsw must stay >= the memory limit at every step, hence -1 first.
    const memsw = path.join(this.mem, 'memory.memsw.limit_in_bytes');
    const hasMemsw = existsSync(memsw);
    if (hasMemsw) { try { writeFileSync(memsw, '-1'); } catch (_) { /* swap accounting off */ } }
    writeFileSync(path.join(this.mem, 'memory.limit_in_bytes'), String(limitBytes));
    if (hasMemsw) { try { writeFileSync(memsw, String(limitBytes)); } catch (_) { /* swap accounting off */ } }
  }

  // The rules in force for this group's disk, read back from the kernel's files (0 = none).
  readCap() {
    const rule = (file) => {
      for (const line of readFileSync(path.join(this.blk, file), 'utf8').split('\n')) {
        const [dev, v] = line.trim().split(/\s+/);
        if (dev === this.disk.dev) return Number(v);
      }
      return 0;
    };
    const bps = rule('blkio.throttle.read_bps_device');
    return { iops: rule('blkio.throttle.read_iops_device'), bps: bps === 2 ** 40 ? 0 : bps };
  }

  // cap = { iops, bps } (0 or absent = no limit on that one). On v1 the bps rule also keeps the
  // I/O accounting on, so "no bps limit" is the 1 TiB/s rule again, never a deleted rule.
  setReadCap(cap) {
    writeFileSync(path.join(this.blk, 'blkio.throttle.read_iops_device'), `${this.disk.dev} ${cap.iops || 0}`);
    writeFileSync(path.join(this.blk, 'blkio.throttle.read_bps_device'), `${this.disk.dev} ${cap.bps || UNLIMITED_BPS}`);
    return this.readCap();
  }

  clearReadCap() { return this.setReadCap({}); }

  procsFiles() { return [path.join(this.mem, 'cgroup.procs'), path.join(this.blk, 'cgroup.procs'), path.join(this.cpu, 'cgroup.procs')]; }

  limit() { return num(path.join(this.mem, 'memory.limit_in_bytes')); }

  contains(pid) {
    const lines = readFileSync(`/proc/${pid}/cgroup`, 'utf8');
    return new RegExp(`:memory:/${this.name}$`, 'm').test(lines) && new RegExp(`:blkio:/${this.name}$`, 'm').test(lines)
      && new RegExp(`:(cpu,)?cpuacct(,cpu)?:/${this.name}$`, 'm').test(lines);
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
      cpuNs: num(path.join(this.cpu, 'cpuacct.usage')),
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
    try { this.clearReadCap(); } catch (_) { /* the rules go with the group */ }
    for (const d of [this.mem, this.blk, this.cpu]) { try { rmdirSync(d); } catch (_) { /* reported by the caller */ } }
    return !existsSync(this.mem) && !existsSync(this.blk) && !existsSync(this.cpu);
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
    for (const c of ['memory', 'io', 'cpu']) {
      if (!ctl.split(/\s+/).includes(c)) writeFileSync(path.join(ROOT, 'cgroup.subtree_control'), `+${c}`);
    }
    if (!existsSync(this.dir)) mkdirSync(this.dir);
    if (limitBytes === null) return;
    writeFileSync(path.join(this.dir, 'memory.max'), String(limitBytes));
    if (existsSync(path.join(this.dir, 'memory.swap.max'))) writeFileSync(path.join(this.dir, 'memory.swap.max'), '0');
  }

  readCap() {
    for (const line of readFileSync(path.join(this.dir, 'io.max'), 'utf8').split('\n')) {
      const parts = line.trim().split(/\s+/);
      if (parts[0] !== this.disk.dev) continue;
      const kvs = Object.fromEntries(parts.slice(1).map((p) => p.split('=')));
      const n = (v) => (v === undefined || v === 'max' ? 0 : Number(v));
      return { iops: n(kvs.riops), bps: n(kvs.rbps) };
    }
    return { iops: 0, bps: 0 };
  }

  setReadCap(cap) {
    writeFileSync(path.join(this.dir, 'io.max'), `${this.disk.dev} riops=${cap.iops || 'max'} rbps=${cap.bps || 'max'}`);
    return this.readCap();
  }

  clearReadCap() { return this.setReadCap({}); }

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
      cpuNs: kv(path.join(this.dir, 'cpu.stat')).usage_usec * 1000,
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
    try { this.clearReadCap(); } catch (_) { /* the rules go with the group */ }
    try { rmdirSync(this.dir); } catch (_) { /* reported by the caller */ }
    return !existsSync(this.dir);
  }
}

// limitBytes null = no memory limit (the group then only counts I/O and CPU).
export function createCgroup(name, limitBytes, dataDir) {
  const disk = diskOf(dataDir);
  const cg = cgroupVersion() === 2 ? new CgroupV2(name, disk) : new CgroupV1(name, disk);
  cg.create(limitBytes);
  return cg;
}

export { capText };

// A CPU-accounting-only group, for the load generator (k6): its CPU time is the client's share.
export function createCpuGroup(name) {
  const v2 = cgroupVersion() === 2;
  const dir = v2 ? path.join(ROOT, name) : path.join(ROOT, 'cpuacct', name);
  if (!existsSync(dir)) mkdirSync(dir);
  return {
    procsFiles: () => [path.join(dir, 'cgroup.procs')],
    cpuNs: () => (v2 ? kv(path.join(dir, 'cpu.stat')).usage_usec * 1000 : num(path.join(dir, 'cpuacct.usage'))),
    destroy: () => { waitEmpty(path.join(dir, 'cgroup.procs')); try { rmdirSync(dir); } catch (_) { /* reported by the caller */ } return !existsSync(dir); },
  };
}
