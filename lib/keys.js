// Key strategies. Keys are numbers here (a target turns n into its key string, "K<n>" by
// default, as in E1's makedata.js). Three rules keep every count exact:
//  1. load batch j holds keys [j*B, min((j+1)*B, N)): ranges never overlap, their union is
//     exactly [0, N);
//  2. VU v (0-based) owns the load batches j with j % V == v, and later phases of that VU
//     pick existing keys only among the keys it loaded itself, so an "existing" key always
//     exists when it is overwritten, without any coordination between VUs;
//  3. keys are distinct within a batch (ON CONFLICT DO UPDATE rejects a batch that holds a
//     key twice).
// Together the VUs' picks still cover the whole key range, so the overwrite phase reads
// random pages of the whole data set, as in E1.
import { Rng } from './rand.js';

export function keyName(n) {
  return `K${n}`;
}

export function loadBatchCount(docs, batch) {
  return Math.ceil(docs / batch);
}

// Load batches of VU v: j = v, v+V, v+2V, ... below L.
export function vuBatchCount(total, vus, v) {
  return v < total ? Math.floor((total - 1 - v) / vus) + 1 : 0;
}

// A load batch is one ascending run of consecutive keys: a key range (keyRange), which an
// adapter turns into a body with docs.rangeBody() without ever listing the keys.
export function loadBatchKeys(j, docs, batch) {
  const start = j * batch;
  return keyRange(start, Math.min(start + batch, docs) - start);
}

// The keys start, start+1, … start+count-1 without an array: materialising the keys costs
// as much in k6's interpreter as the byte body of a load batch (bench/micro-keys.js). It has a length, is consecutive, and its start is rangeStart();
// code that needs the keys one by one (string bodies, failure mapping) calls keyArray().
export function keyRange(start, count) {
  return { consecutive: true, start, length: count };
}

export function rangeStart(keys) {
  return keys.start !== undefined ? keys.start : keys[0];
}

// Any key list as an array: arrays as they are, a keyRange listed, DrawnKeys drawn.
/** @param {any} keys @returns {number[]} */
export function keyArray(keys) {
  if (Array.isArray(keys)) return keys;
  if (keys instanceof DrawnKeys) return keys.array();
  if (ArrayBuffer.isView(keys)) return Array.from(/** @type {any} */ (keys)); // a typed array
  const out = new Array(keys.length);
  for (let i = 0; i < out.length; i++) out[i] = keys.start + i;
  return out;
}

// A key range (keyRange) is one ascending run without gaps: the adapters' fast path
// (docs.rangeBody). Arrays never are, whatever they hold.
export function isConsecutive(keys) {
  return keys.consecutive === true && keys.length > 0;
}

// The keys VU v loaded, as an indexable space: r in [0, size) -> key number.
export class OwnedKeys {
  constructor(docs, batch, vus, v) {
    this.docs = docs; this.batch = batch; this.vus = vus; this.v = v;
    const L = loadBatchCount(docs, batch);
    const count = vuBatchCount(L, vus, v);
    if (count === 0) { this.size = 0; return; }
    const lastJ = v + vus * (count - 1);
    const lastSize = Math.min(batch, docs - lastJ * batch);
    this.size = (count - 1) * batch + lastSize;
  }

  at(r) {
    const k = Math.floor(r / this.batch);
    return (this.v + this.vus * k) * this.batch + (r % this.batch);
  }
}

// The fast path of pickDistinct + OwnedKeys.at for the batches of the overwrite and mixed
// phases: fill(count, rng, keys, at) stores at keys[at …] exactly the keys
// owned.at(pickDistinct(count, owned.size, makePicker(cfg, owned.size), rng)[i]) (the unit
// tests compare them), with the same draws from rng, so recorded runs stay recomputable.
// k6's JavaScript runtime has no JIT: every bytecode counts and a method call costs as much
// as dozens of them, so the hot loop has no call and as few operations per key as exactness allows
// (bench/micro-keys.js measures the draw and its sfc32 floor):
//  - sfc32 (lib/rand.js) inlined for uniform keys, with the 2^32 wraps left out wherever the
//    next use wraps anyway: b = c * 9 instead of (c + (c << 3)) >>> 0 and c without >>> 0
//    (every later use of b and c is a bitwise operation or a sum that is wrapped, and the
//    values stay far below 2^53), d counts up unwrapped; only t, the output word, is wrapped.
//    The state is written back wrapped, so rng continues exactly as after the same u32() calls;
//  - "taken" is a Uint8Array over the owned space holding the batch's generation number (1…255,
//    cleared with one native fill every 255 batches): one load and one store per key. Owned
//    spaces above MARK_MAX keys take an open-addressing Int32Array table of twice the batch
//    size instead (memory bounded by the batch, not by the key space);
//  - OwnedKeys.at inlined.
// (A Set with calls and a plain hash table were measured slower: bench/RESULTS.md.)
const MARK_MAX = 1 << 22; // 4 MiB of marks per picker at most

export class BatchPicker {
  constructor(cfg, owned) {
    this.owned = owned;
    this.size = owned.size;
    this.uniform = cfg.KEY_DIST === 'uniform' && owned.size <= 4294967296;
    this.pick = makePicker(cfg, owned.size);
    this.tab = null;
    this.mask = 0;
    this.marks = null; // Uint8Array(size), allocated on the first batch
    this.gen = 0;
    // OwnedKeys.at(r) = base + V * (r - r % B) + r % B, inlined in the loops below
    this.batch = owned.batch;
    this.base = owned.v * owned.batch;
    this.vus = owned.vus;
  }

  fill(count, rng, keys, at) {
    const size = this.size;
    if (count > size) throw new Error(`cannot pick ${count} distinct keys from ${size}`);
    if (count === 0) return keys;
    return size <= MARK_MAX ? this.fillMarked(count, rng, keys, at) : this.fillHashed(count, rng, keys, at);
  }

  fillMarked(count, rng, keys, at) {
    const size = this.size;
    if (!this.marks) this.marks = new Uint8Array(size);
    const marks = this.marks;
    if (++this.gen === 256) { marks.fill(0); this.gen = 1; }
    const g = this.gen;
    const { batch: B, base, vus: V, uniform } = this;
    const pick = this.pick;
    // (t * 2^-32 * size) >>> 0 is rng.int(size): t / 2^32 is exact, so both round the same
    // product once; Math.floor of a double below 2^32 is >>> 0.
    const scale = size / 4294967296;
    let a = rng.a; let b = rng.b; let c = rng.c; let d = rng.d;
    let t = 0; let r = 0; let m = 0; let tries = 0;
    const end = at + count;
    for (let i = at; i < end; i++) {
      // a draw; when taken, up to 8 more, then the next free index (pickDistinct's rule)
      for (tries = 0; ; tries++) {
        if (uniform) {
          t = (a + b + d) >>> 0; d++; a = b ^ (b >>> 9); b = c * 9; c = ((c << 21) | (c >>> 11)) + t;
          r = (t * scale) >>> 0;
        } else {
          rng.a = a; rng.b = b >>> 0; rng.c = c >>> 0; rng.d = d >>> 0;
          r = pick(rng);
          a = rng.a; b = rng.b; c = rng.c; d = rng.d;
        }
        if (marks[r] !== g || tries === 8) break;
      }
      while (marks[r] === g) r = (r + 1) % size;
      marks[r] = g;
      m = r % B;
      keys[i] = base + V * (r - m) + m; // OwnedKeys.at(r)
    }
    rng.a = a; rng.b = b >>> 0; rng.c = c >>> 0; rng.d = d >>> 0;
    return keys;
  }

  // Owned spaces above MARK_MAX: "taken" in an open-addressing table of twice the batch size.
  fillHashed(count, rng, keys, at) {
    const size = this.size;
    if (!this.tab || this.tab.length < 2 * count) {
      let cap = 16;
      while (cap < 2 * count) cap *= 2;
      this.tab = new Int32Array(cap);
      this.mask = cap - 1;
    }
    const tab = this.tab;
    const mask = this.mask;
    tab.fill(-1);
    const { batch: B, base, vus: V, uniform, pick } = this;
    let a = rng.a; let b = rng.b; let c = rng.c; let d = rng.d;
    for (let i = 0; i < count; i++) {
      let r; let h; let e; let tries = 0;
      for (;;) {
        if (uniform) {
          const t = (a + b + d) >>> 0;
          d = (d + 1) >>> 0;
          a = b ^ (b >>> 9);
          b = (c + (c << 3)) >>> 0;
          c = (((c << 21) | (c >>> 11)) + t) >>> 0;
          r = (t / 4294967296 * size) >>> 0;
        } else {
          rng.a = a; rng.b = b; rng.c = c; rng.d = d;
          r = pick(rng);
          a = rng.a; b = rng.b; c = rng.c; d = rng.d;
        }
        h = (r * 40503) & mask;
        while ((e = tab[h]) !== -1 && e !== r) h = (h + 1) & mask;
        if (e === -1 || tries >= 8) break;
        tries++;
      }
      // Still taken after 8 retries (a skewed distribution): the next free index.
      while (e !== -1) {
        r = (r + 1) % size;
        h = (r * 40503) & mask;
        while ((e = tab[h]) !== -1 && e !== r) h = (h + 1) & mask;
      }
      tab[h] = r;
      const m = r % B;
      keys[at + i] = base + V * (r - m) + m; // OwnedKeys.at(r)
    }
    rng.a = a; rng.b = b; rng.c = c; rng.d = d;
    return keys;
  }
}

// The keys of an overwrite or mixed batch before they are drawn: `fresh` new keys first, …
// first+fresh-1, then picks by `picker` (a BatchPicker) from the generator state of `rng`. A
// target that renders bodies in the gateway sends draw() instead of the keys (the gateway
// draws them, the exact twin of fillMarked: gateway/render); anything that needs the keys
// calls keyArray(), which draws them here, in k6's interpreter.
export class DrawnKeys {
  constructor(picker, rng, fresh, first, length) {
    this.picker = picker; this.fresh = fresh; this.first = first; this.length = length;
    this.state = [rng.a, rng.b, rng.c, rng.d];
    this.list = null;
  }

  // The largest key the batch may hold (a body's key regions must fit it).
  max() {
    const o = this.picker.owned;
    return Math.max(this.fresh > 0 ? this.first + this.fresh - 1 : 0, o.size > 0 ? o.at(o.size - 1) : 0);
  }

  // What the gateway draws from (gateway/render Draw): only uniform picks have a twin there.
  draw() {
    const p = this.picker;
    if (!p.uniform || p.size > MARK_MAX) return null;
    return { state: this.state, size: p.size, batch: p.batch, vu: p.owned.v, vus: p.vus, fresh: this.fresh, first: this.first };
  }

  array() {
    if (this.list) return this.list;
    const keys = new Array(this.length);
    for (let t = 0; t < this.fresh; t++) keys[t] = this.first + t;
    const rng = Object.create(Rng.prototype);
    [rng.a, rng.b, rng.c, rng.d] = this.state;
    this.picker.fill(this.length - this.fresh, rng, keys, this.fresh);
    this.list = keys;
    return keys;
  }
}

// A set of key numbers that batches are searched for (the read-back's sample): matchKeys(keys,
// set, out) stores at out[0 …] the positions t, ascending, whose keys[t] is in the set and
// returns how many.
export class KeySet {
  constructor(keys) {
    this.set = new Set(keys);
  }
}

export function matchKeys(keys, ks, out) {
  const set = ks.set;
  let n = 0;
  for (let t = 0; t < keys.length; t++) if (set.has(keys[t])) out[n++] = t;
  return n;
}

// Zipfian ranks over [0, n) after Gray et al. (the YCSB generator), with zeta(n) computed
// exactly up to 1e6 items and by the integral approximation above that (error < 1e-6
// relative), so a VU can set up a 10 M key space in milliseconds.
function zeta(n, theta) {
  const exact = Math.min(n, 1000000);
  let s = 0;
  for (let i = 1; i <= exact; i++) s += 1 / Math.pow(i, theta);
  if (n > exact) s += (Math.pow(n, 1 - theta) - Math.pow(exact, 1 - theta)) / (1 - theta);
  return s;
}

export class Zipfian {
  constructor(n, theta) {
    this.n = n; this.theta = theta;
    this.zetan = zeta(n, theta);
    const zeta2 = zeta(2, theta);
    this.alpha = 1 / (1 - theta);
    this.eta = (1 - Math.pow(2 / n, 1 - theta)) / (1 - zeta2 / this.zetan);
    this.half = 1 + Math.pow(0.5, theta);
  }

  rank(u) {
    const uz = u * this.zetan;
    if (uz < 1) return 0;
    if (uz < this.half) return 1;
    return Math.min(this.n - 1, Math.floor(this.n * Math.pow(this.eta * u - this.eta + 1, this.alpha)));
  }
}

// Spreads ranks over the space so that "hot" keys are not simply the first ones loaded.
// (rank * 2654435761 + 40503) mod n, exact in doubles without BigInt (whose operations cost
// microseconds each in k6): the multiplier split as 40503 * 65536 + 31153, every partial
// product below 2^53 for rank, n < 2^32 (DOCS <= 1e9).
export function scatter(rank, n) {
  const hi = (rank * 40503) % n;
  return ((hi * 65536) % n + rank * 31153 + 40503) % n;
}

export function makePicker(cfg, size) {
  switch (cfg.KEY_DIST) {
    case 'uniform':
      return (rng) => rng.int(size);
    case 'zipfian': {
      const z = new Zipfian(size, cfg.ZIPF_THETA);
      return (rng) => scatter(z.rank(rng.next()), size);
    }
    case 'hotspot': {
      const hot = Math.max(1, Math.floor(size * cfg.HOTSPOT_DATA_PERCENT / 100));
      const opsHot = cfg.HOTSPOT_OPS_PERCENT / 100;
      return (rng) => scatter(rng.next() < opsHot || hot === size ? rng.int(hot) : hot + rng.int(size - hot), size);
    }
    default:
      throw new Error(`unknown KEY_DIST ${cfg.KEY_DIST}`);
  }
}

// count distinct indexes in [0, size) drawn with pick(rng). When a skewed distribution keeps
// hitting keys already taken, the next free index is used (linear probing) so the batch
// always fills and stays deterministic.
export function pickDistinct(count, size, pick, rng) {
  if (count > size) throw new Error(`cannot pick ${count} distinct keys from ${size}`);
  const taken = new Set();
  const out = new Array(count);
  for (let i = 0; i < count; i++) {
    let r = pick(rng);
    let tries = 0;
    while (taken.has(r) && tries < 8) { r = pick(rng); tries++; }
    while (taken.has(r)) r = (r + 1) % size;
    taken.add(r);
    out[i] = r;
  }
  return out;
}
