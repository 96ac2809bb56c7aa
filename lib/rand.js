// Seeded, fast pseudo-random numbers (sfc32). Every generated key and document is a
// function of the SEED knob and a stream name, so runs are reproducible and a batch's
// keys can be recomputed later (teardown's read-back check does exactly that).

function hashString(s) {
  // FNV-1a 32-bit: turns a stream name into a seed word.
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export class Rng {
  // new Rng(seed, 'overwrite', 17): an independent stream per (seed, name, index).
  constructor(seed, name = '', index = 0) {
    this.a = (seed >>> 0) ^ 0x9e3779b9;
    this.b = hashString(String(name)) ^ 0x243f6a88;
    this.c = (index >>> 0) ^ 0xb7e15162;
    this.d = (Math.floor(index / 4294967296) >>> 0) ^ 0x1234567;
    for (let i = 0; i < 12; i++) this.u32();
  }

  // (Plain property reads and no destructuring: in k6's interpreter a destructuring
  // assignment costs more than the arithmetic; lib/keys.js BatchPicker inlines the same steps.)
  u32() {
    const b = this.b; const c = this.c; const d = this.d;
    const t = (((this.a + b) >>> 0) + d) >>> 0;
    this.d = (d + 1) >>> 0;
    this.a = b ^ (b >>> 9);
    this.b = (c + (c << 3)) >>> 0;
    this.c = ((((c << 21) | (c >>> 11)) >>> 0) + t) >>> 0;
    return t;
  }

  // Uniform float in [0, 1).
  next() { return this.u32() / 4294967296; }

  // Uniform integer in [0, n) for n up to 2^53 (two draws above 2^32).
  int(n) {
    if (n <= 4294967296) return Math.floor(this.next() * n);
    return Math.floor((this.u32() * 4294967296 + this.u32()) / 18446744073709551616 * n);
  }
}

