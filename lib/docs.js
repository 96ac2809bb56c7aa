// Document generators. Payloads are generated once per VU, outside the timed path, into a
// pool of pre-serialized JSON fragments; a document is its key, a stamp naming the batch
// that wrote it, and one pool fragment. A batch body is built with one Array.join, never
// with string += (k6's JavaScript runtime has no JIT, and += on a growing string is quadratic
// there; bench/RESULTS.md has the figures).
//
// Shapes:
//  e1            {"key":"K7","w":"l","Hallo":…,"f0":…,…,"f8":…,"s":"<r><r+d><r+2d>…"}: E1's
//                number-string payload that defeats compression, sized by DOC_BYTES; f0…f8
//                are small integers for the secondary indexes of PG_INDEXES / ArangoDB indexes.
//  complexity    COMPLEXITY attributes "test1".."testN":"some test value" (arangobench).
//  random-shapes COMPLEXITY attributes whose names contain the key, so no two documents
//                share a shape (arangob's random-shapes); values true, null or a string.
//  user          a person record (names, email, phone, dates, address) for E4.
import { Rng } from './rand.js';
import { isConsecutive, keyArray, keyName, rangeStart } from './keys.js';
import { native } from './native.js';

export const INDEX_FIELDS = ['f0', 'f1', 'f2', 'f3', 'f4', 'f5', 'f6', 'f7', 'f8'];

function e1Fragment(rng, bytes, fixedLen) {
  const hallo = rng.int(1000000000);
  let f = '';
  for (const name of INDEX_FIELDS) f += `,"${name}":${rng.int(100000)}`;
  const head = `,"Hallo":${hallo}${f},"s":"`;
  const want = Math.max(16, bytes - fixedLen - head.length - 2);
  const r = 1 + rng.int(1000000000);
  const d = 1 + rng.int(1000000);
  // The numbers r, r+d, r+2d, … as digits, cut at want characters. How many are needed is
  // counted per decimal width (a few steps), then one loop stores the numbers and one native
  // join turns them into text: String() and .length per number cost a call and a wrapper
  // object each in k6's interpreter.
  let n = 0; let len = 0; let v = r; let w = String(r).length; let top = 10 ** w;
  while (len < want) {
    const inBand = Math.ceil((top - v) / d); // numbers left with w digits
    const need = Math.ceil((want - len) / w);
    const take = need < inBand ? need : inBand;
    n += take; len += take * w; v += take * d;
    while (v >= top) { w++; top *= 10; } // v may skip widths when d is large
  }
  const parts = new Array(n);
  v = r;
  for (let k = 0; k < n; k++, v += d) parts[k] = v;
  return `${head}${parts.join('').slice(0, want)}"}`;
}

// user: a realistic person record for E4 (bulk insert of users, as in the benchmark that
// generated 10 000 users once with Bogus and sent them over and over). Values come from
// small seeded lists, so every pool entry is different but generation stays cheap.
const FIRST = ['Olivia', 'Liam', 'Emma', 'Noah', 'Amelia', 'Oliver', 'Ava', 'Elijah', 'Sophia', 'Mateo', 'Isabella', 'Lucas', 'Mia', 'Levi', 'Evelyn', 'Ezra', 'Harper', 'Asher', 'Luna', 'James', 'Camila', 'Leo', 'Gianna', 'Luca', 'Elizabeth', 'Henry', 'Eleanor', 'Hudson', 'Ella', 'Ethan'];
const LAST = ['Smith', 'Johnson', 'Williams', 'Brown', 'Jones', 'Garcia', 'Miller', 'Davis', 'Rodriguez', 'Martinez', 'Hernandez', 'Lopez', 'Gonzalez', 'Wilson', 'Anderson', 'Thomas', 'Taylor', 'Moore', 'Jackson', 'Martin', 'Lee', 'Perez', 'Thompson', 'White', 'Harris', 'Sanchez', 'Clark', 'Ramirez', 'Lewis', 'Robinson'];
const STREETS = ['Main St', 'Oak Ave', 'Pine Rd', 'Maple Dr', 'Cedar Ln', 'Elm St', 'Park Blvd', 'Lake View', 'Hill Rd', 'River Way', 'Sunset Ave', 'Church St'];
const CITIES = [['Springfield', 'USA'], ['Portland', 'USA'], ['Austin', 'USA'], ['Toronto', 'Canada'], ['Leeds', 'UK'], ['Dublin', 'Ireland'], ['Hamburg', 'Germany'], ['Lyon', 'France'], ['Haifa', 'Israel'], ['Porto', 'Portugal'], ['Krakow', 'Poland'], ['Adelaide', 'Australia']];
const DOMAINS = ['example.com', 'mail.example.org', 'corp.example.net', 'inbox.example.io'];

function pick(rng, list) {
  return list[rng.int(list.length)];
}

function two(n) {
  return n < 10 ? `0${n}` : `${n}`;
}

function userFragment(rng) {
  const first = pick(rng, FIRST);
  const last = pick(rng, LAST);
  const [city, country] = pick(rng, CITIES);
  const born = `${1950 + rng.int(55)}-${two(1 + rng.int(12))}-${two(1 + rng.int(28))}`;
  const registered = `${2010 + rng.int(15)}-${two(1 + rng.int(12))}-${two(1 + rng.int(28))}T${two(rng.int(24))}:${two(rng.int(60))}:${two(rng.int(60))}.000Z`;
  // Line2 one time in six, as in the E4 generator.
  const line2 = rng.int(6) === 0 ? `"Apt. ${1 + rng.int(999)}"` : 'null';
  return `,"FirstName":"${first}","LastName":"${last}","Email":"${first.toLowerCase()}.${last.toLowerCase()}${rng.int(10000)}@${pick(rng, DOMAINS)}",` +
    `"Phone":"+1-${200 + rng.int(800)}-${100 + rng.int(900)}-${1000 + rng.int(9000)}","BirthDate":"${born}","Registered":"${registered}",` +
    `"Address":{"Line1":"${1 + rng.int(9999)} ${pick(rng, STREETS)}","Line2":${line2},"City":"${city}","Country":"${country}","Zip":"${10000 + rng.int(90000)}"},` +
    `"Karma":${rng.int(1000)},"Active":${rng.int(4) !== 0}}`;
}

function complexityFragment(n) {
  const parts = [];
  for (let i = 1; i <= n; i++) parts.push(`"test${i}":"some test value"`);
  return `,${parts.join(',')}}`;
}

// keyField: attribute that holds the key inside the document ("key" for PostgreSQL, "_key"
// for ArangoDB), or null when the wire format carries the id outside (RavenDB).
// extra: a fixed fragment placed after the stamp, e.g. RavenDB's "@metadata".
// toBytes(asciiString) -> ArrayBuffer: how byte images are made. In k6 the adapters pass
// lib/bytes.js asciiBuffer (native); the default loop is for Node (the tests): in k6's
// interpreter it is far slower.
export function createDocs(cfg, { keyField = 'key', extra = '', toBytes = loopBytes } = {}) {
  const shape = cfg.DOC_SHAPE;
  const keyOpen = keyField ? `{"${keyField}":"` : '{"_k":"';
  // Approximate fixed part of a document for sizing: key field, key, stamp, extra.
  const fixedLen = keyOpen.length + 10 + 12 + extra.length;
  // The payload pool, generated on first use: the init runs that never write (k6's options
  // pass, the setup/teardown VU) skip its cost.
  const pooled = shape === 'e1' || shape === 'user' || shape === 'complexity';
  const P = shape === 'complexity' ? 1 : pooled ? cfg.DOC_POOL : 0;
  let poolCache = null;
  function getPool() {
    if (poolCache) return poolCache;
    if (shape === 'e1') {
      const rng = new Rng(cfg.SEED, 'docs');
      poolCache = new Array(P);
      for (let i = 0; i < P; i++) poolCache[i] = e1Fragment(rng, cfg.DOC_BYTES, fixedLen);
    } else if (shape === 'user') {
      const rng = new Rng(cfg.SEED, 'users');
      poolCache = new Array(P);
      for (let i = 0; i < P; i++) poolCache[i] = userFragment(rng);
    } else {
      poolCache = [complexityFragment(cfg.COMPLEXITY)];
    }
    return poolCache;
  }
  const complexity = cfg.COMPLEXITY;

  function randomShapes(n) {
    const parts = new Array(complexity);
    for (let i = 0; i < complexity; i++) {
      const v = (n * 31 + i * 7) % 3;
      parts[i] = `"a${n}_${i}":${v === 0 ? 'true' : v === 1 ? 'null' : `"v${i}"`}`;
    }
    return `,${parts.join(',')}}`;
  }

  const head = keyField ? (n) => `${keyOpen}${keyName(n)}","w":"` : () => '{"w":"';
  const body = pooled ? (n) => getPool()[n % P] : randomShapes;

  function doc(n, stamp) {
    return `${head(n)}${stamp}"${extra}${body(n)}`;
  }

  // One JSON array of the documents for key numbers nums, one string per document: the path
  // of shapes without a pool or a key field (batch() below).
  function batchJoin(keys, stamp) {
    const nums = keyArray(keys);
    const parts = new Array(nums.length);
    for (let i = 0; i < nums.length; i++) parts[i] = doc(nums[i], stamp);
    return `[${parts.join(',')}]`;
  }

  // The same text, built with one native join over slots (see slotBatch).
  // random-shapes has no pool (every document is generated) and documents without a key
  // field have no key slot: both keep the per-document path.
  let slotBatchFn = null;
  const batch = pooled && keyField
    ? (nums, stamp) => (slotBatchFn || (slotBatchFn = slotBatch(`{"${keyField}":"`, '","w":"', getPool().map((f) => `"${extra}${f}`))))(keyArray(nums), stamp)
    : batchJoin;

  // RavenDB-style commands, one per document: open + keyName(n) + mid + doc(n, stamp) + close,
  // in one JSON array, e.g. { open: '{"Id":"', mid: '","Type":"PUT","Document":', close: '}' }.
  const commandBuilders = new Map();
  function commands(nums, stamp, { open, mid, close }) {
    const id = `${open}\u0000${mid}\u0000${close}`;
    let build = commandBuilders.get(id);
    if (!build) {
      build = pooled && !keyField
        ? slotBatch(open, `${mid}{"w":"`, getPool().map((f) => `"${extra}${f}${close}`))
        : (ns, st) => {
          const parts = new Array(ns.length);
          for (let i = 0; i < ns.length; i++) parts[i] = `${open}${keyName(ns[i])}${mid}${doc(ns[i], st)}${close}`;
          return `[${parts.join(',')}]`;
        };
      commandBuilders.set(id, build);
    }
    return build(keyArray(nums), stamp);
  }

  // Byte bodies for a run of consecutive keys (load phases, bulk inserts): see rangeBuilder.
  // lead: bytes in front of the array in a byte body (PostgreSQL's jsonb binary version
  // byte); never in a string body.
  const rangeBuilders = new Map();
  const keysFromTo = (a, n) => { const ns = new Array(n); for (let i = 0; i < n; i++) ns[i] = a + i; return ns; };
  // The byte body, or null when the range cannot take the byte path (see rangeBuilder).
  function rangeBytes(start, count, stamp, envelope, lead, trail) {
    const id = `${envelope ? `${envelope.open}\u0000${envelope.mid}\u0000${envelope.close}` : ''}\u0000${lead}\u0000${trail}`;
    let build = rangeBuilders.get(id);
    if (!build) {
      build = () => null;
      if (pooled && keyField && !envelope) build = rangeBuilder(`{"${keyField}":"`, '","w":"', getPool().map((f) => `"${extra}${f}`), toBytes, lead, trail);
      else if (pooled && !keyField && envelope) build = rangeBuilder(envelope.open, `${envelope.mid}{"w":"`, getPool().map((f) => `"${extra}${f}${envelope.close}`), toBytes, lead, trail);
      rangeBuilders.set(id, build);
    }
    return build(start, count, stamp);
  }
  function rangeBody(start, count, stamp, envelope = null, lead = '', trail = '') {
    const out = rangeBytes(start, count, stamp, envelope, lead, trail);
    if (out !== null) return out;
    return envelope ? commands(keysFromTo(start, count), stamp, envelope) : batch(keysFromTo(start, count), stamp);
  }

  // Byte bodies for ANY key list (overwrite and mixed batches: random keys): see keysBuilder.
  // null when the shape or the keys cannot take it (the caller then builds the string).
  const keysBuilders = new Map();
  function keysBuilderFor(envelope, lead, trail) {
    const id = `${envelope ? `${envelope.open}\u0000${envelope.mid}\u0000${envelope.close}` : ''}\u0000${lead}\u0000${trail}`;
    let kb = keysBuilders.get(id);
    if (kb === undefined) {
      kb = null;
      if (pooled && keyField && !envelope) kb = keysBuilder(`{"${keyField}":"`, '","w":"', getPool().map((f) => `${extra}${f}`), toBytes, lead, trail);
      else if (pooled && !keyField && envelope) kb = keysBuilder(envelope.open, `${envelope.mid}{"w":"`, getPool().map((f) => `${extra}${f}${envelope.close}`), toBytes, lead, trail);
      keysBuilders.set(id, kb);
    }
    return kb;
  }
  function keysBody(nums, stamp, envelope = null, lead = '', trail = '') {
    const kb = keysBuilderFor(envelope, lead, trail);
    return kb ? kb.build(nums instanceof Float64Array ? nums : keyArray(nums), stamp) : null;
  }

  // The body of a write: an ArrayBuffer when a fast path takes the keys (a key range,
  // lib/keys.js keyRange: rangeBody; any other list: keysBody), else the string of batch()/commands().
  //   envelope: RavenDB command wrapper of each document;
  //   wrap {open, close}: text around the array, in byte and string bodies alike;
  //   lead: bytes in front of a byte body only (PostgreSQL's jsonb binary version byte).
  // Check `typeof body === 'string'` to know which one came back. The ArrayBuffer is reused by
  // the next call with the same options: send it before building another body.
  function anyBody(nums, stamp, { envelope = null, wrap = null, lead = '' } = {}) {
    const open = `${lead}${wrap ? wrap.open : ''}`;
    const close = wrap ? wrap.close : '';
    if (isConsecutive(nums)) {
      const out = rangeBytes(rangeStart(nums), nums.length, stamp, envelope, open, close);
      if (out !== null) return out;
    }
    const out = keysBody(nums, stamp, envelope, open, close);
    if (out) return out;
    const arr = envelope ? commands(nums, stamp, envelope) : batch(nums, stamp);
    return wrap ? `${wrap.open}${arr}${wrap.close}` : arr;
  }

  // Builds the byte images of body() for batches of `count` keys up to maxKey ahead of time,
  // so the first batch of a VU does not pay for them inside its timed phase (a scenario
  // creates its target, hence calls this, in the init context). stamps: the stamps of the
  // consecutive (range) batches, e.g. 'l' (load) or 'b' (bulk insert); any stamp of up to
  // 7 characters is covered for other key lists.
  function prepare({ count, maxKey, envelope = null, wrap = null, lead = '', stamps = [] }) {
    if (!(count > 0)) return;
    const open = `${lead}${wrap ? wrap.open : ''}`;
    const close = wrap ? wrap.close : '';
    const kb = keysBuilderFor(envelope, open, close);
    if (kb) kb.prepare(count, maxKey);
    // one range image per key width from 4 digits up to maxKey's (keys below 1000 take keysBody)
    for (const st of stamps) {
      for (let from = LOW; from <= maxKey && from < 1e11; from *= 10) rangeBytes(from, Math.min(count, 9 * from), st, envelope, open, close);
    }
  }

  // prepare() for what a plan asks of a target (lib/workloads/*.js plan().target): batches of
  // batchSize keys below maxKey, and for each operation in writes the stamps of its key-range
  // batches; opts: the body's envelope, wrap and lead.
  function prepareFor({ batchSize = 0, maxKey = 0, writes = {} }, opts = {}) {
    const stamps = Array.from(new Set(Object.values(writes).flat()));
    if (Object.keys(writes).length > 0) prepare(Object.assign({ count: batchSize, maxKey, stamps }, opts));
  }

  return { doc, batch, commands, rangeBody, keysBody, body: anyBody, prepare, prepareFor, builds: () => imageBuilds, shape };
}

// Byte images built so far (all builders of this VU): lets a test prove that the timed path
// builds none (test/integration/body-warmup.test.mjs).
let imageBuilds = 0;
export function imageBuildCount() {
  return imageBuilds;
}

function loopBytes(s) {
  const b = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) b[i] = s.charCodeAt(i);
  return b.buffer;
}

// One native regular-expression scan (a charCodeAt loop costs ~1 s per 1.2 MB of payloads in k6).
const NON_ASCII = /[^\x00-\x7f]/;
function isAscii(s) {
  return !NON_ASCII.test(s);
}

// keysBuilder: the documents of ANY key list (random picks of overwrite and mixed batches)
// as one JSON array in an ArrayBuffer, by patching a fixed-stride image instead of building
// text (k6's interpreter: about 0.2 µs per JavaScript operation; a 1.2 MB string copy ~1 ms).
// Document i of a body lives at base + i*S and reads
//   <open w/o its '"'><key region: 4W bytes><",><pad><rest of mid><stamp region: 4T bytes><tail i><spaces>,
// - the key region holds `"K<digits>` right-aligned, preceded by JSON whitespace (allowed
//   between ':' and a value), and ends on a 4-byte boundary, so a key is W aligned 32-bit
//   stores from three 10 000-entry tables (4 digits; the top group with its `"K`; the word
//   before the top group): W = 2 for keys below 10^6, 3 below 10^10, 4 below 10^14;
// - the stamp region holds `<stamp>"` and spaces (T = 2 words: stamps up to 7 characters),
//   the same T stores for every document of a batch;
// - everything else (open, mid, the payload tail i % P, padding, separators) is in the image,
//   made once per (count, W, T) by one native toBytes of its text, and never touched again.
// So each document costs W + T stores and a division or two. Payload of slot i: tails[i % P]
// (not tied to the key as in batch(); same fields, other pairing). Keys are non-negative
// integers; a key of 14+ digits or a non-ASCII payload returns null (the string path).
const KEY_WORDS_MAX = 4;
let D4 = null; let TOP = null; let BEFORE = null; // Uint32Array tables (see keyTables)
let HEAD8 = null; let SMALL8 = null; // Float64Array tables: BEFORE+TOP, and 4 spaces+BEFORE, as one 8-byte store

function keyTables(toBytes) {
  if (D4) return;
  // one template per entry (k6: a method call costs ~1 µs, so no padStart/slice here)
  const d = new Array(10000); const t = new Array(10000); const c = new Array(10000);
  const K = KEY_PREFIX;
  for (let g = 0; g < 10000; g++) {
    d[g] = g < 10 ? `000${g}` : g < 100 ? `00${g}` : g < 1000 ? `0${g}` : `${g}`;
    t[g] = g < 10 ? ` "${K}${g}` : g < 100 ? `"${K}${g}` : g < 1000 ? `${K}${g}` : `${g}`;
    c[g] = g < 100 ? '    ' : g < 1000 ? '   "' : `  "${K}`;
  }
  D4 = new Uint32Array(toBytes(d.join('')));
  TOP = new Uint32Array(toBytes(t.join('')));
  BEFORE = new Uint32Array(toBytes(c.join('')));
  // 8 ASCII bytes are never a NaN bit pattern (the top byte is below 0x80... and the exponent
  // bits cannot all be 1), so Float64Array stores them bit-exact.
  const h8 = new Array(10000); const s8 = new Array(10000);
  for (let g = 0; g < 10000; g++) { h8[g] = `${c[g]}${t[g]}`; s8[g] = `    ${c[g]}`; }
  HEAD8 = new Float64Array(toBytes(h8.join('')));
  SMALL8 = new Float64Array(toBytes(s8.join('')));
}

function keysBuilder(open, mid, tails, toBytes, lead, trail) {
  if (!open.endsWith('"') || !mid.startsWith('",') || KEY_PREFIX.length !== 1) return null;
  if (!tails.every(isAscii) || !isAscii(lead) || !isAscii(trail) || !isAscii(open) || !isAscii(mid)) return null;
  keyTables(toBytes);
  const keyOpen = open.slice(0, -1);
  const midRest = mid.slice(2);
  const P = tails.length;
  const tailWidth = Math.max(...tails.map((t) => t.length));
  const first = lead.length + 1; // lead, '['
  const layouts = new Map(); // `${count}/${W}/${T}` -> layout
  let W = 2; // key words of the current layout; grows when a batch holds a wider key
  let T = 2;
  const stampBytes = new Uint8Array(4 * 8);
  const stampWords = new Uint32Array(stampBytes.buffer);
  const stampWide = new Float64Array(stampBytes.buffer); // 8 ASCII bytes: never a NaN pattern, stored bit-exact

  function layout(count, w, t) {
    const id = `${count}/${w}/${t}`;
    let L = layouts.get(id);
    if (L) return L;
    if (layouts.size >= 4) layouts.clear(); // a run uses one batch size (and a shorter last one)
    const keyAt = keyOpen.length; // offsets within a document
    const base = first + ((8 - ((first + keyAt) % 8)) % 8); // key region on an 8-byte boundary
    const pad = (8 - ((base + keyAt + 4 * w + 2 + midRest.length) % 8)) % 8; // stamp region on an 8-byte boundary
    const stampAt = keyAt + 4 * w + 2 + pad + midRest.length;
    const S = Math.ceil((stampAt + 4 * t + tailWidth + 1) / 8) * 8;
    const docs = new Array(count);
    const keyBlank = ' '.repeat(4 * w);
    const midText = `",${' '.repeat(pad)}${midRest}${' '.repeat(4 * t)}`;
    for (let i = 0; i < count; i++) {
      const tail = tails[i % P];
      docs[i] = `${keyOpen}${keyBlank}${midText}${tail}${' '.repeat(S - 1 - stampAt - 4 * t - tail.length)},`;
    }
    const text = `${lead}[${' '.repeat(base - first)}${docs.join('').slice(0, -1)}]${trail}`;
    const buf = toBytes(text);
    imageBuilds++;
    L = { buf, u32: new Uint32Array(buf, 0, Math.floor(buf.byteLength / 4)), f64: new Float64Array(buf, 0, Math.floor(buf.byteLength / 8)), S4: S / 4, key0: (base + keyAt) / 4, stamp0: (base + stampAt) / 4, w, t };
    layouts.set(id, L);
    return L;
  }

  function wordsFor(n) {
    return n < 1e6 ? 2 : n < 1e10 ? 3 : n < 1e14 ? 4 : 5;
  }

  // Fills the key regions of documents from..count-1 of L; returns the index of the first key
  // that does not fit W words (count when all fit). For W = 2 and 3 the same loop also stores
  // sw, the first 8 bytes of the stamp region (one loop per document instead of two: the loop
  // itself costs about as much as the stores in k6's interpreter).
  function fill(L, nums, from, count, sw) {
    const { u32, S4 } = L;
    let k = L.key0 + from * S4;
    let i = from;
    // declared once: a let/const inside the loop body costs a fresh binding per document in
    // k6's runtime (15-20 % of this loop, measured A/B)
    let n = 0; let lo = 0; let hi = 0; let m = 0; let mid = 0;
    const f64 = L.f64;
    const S8 = S4 / 2;
    let k8 = k / 2;
    const st8 = (L.stamp0 - L.key0) / 2; // stamp region of a document, from its key region (both 8-byte aligned)
    if (L.w === 2) {
      for (; i < count; i++, k += S4, k8 += S8) {
        n = nums[i];
        if (n < 10000) { u32[k] = BEFORE[n]; u32[k + 1] = TOP[n]; } else if (n < 1000000) {
          lo = n % 10000;
          u32[k] = TOP[(n - lo) / 10000]; u32[k + 1] = D4[lo];
        } else return i;
        f64[k8 + st8] = sw;
      }
    } else if (L.w === 3) {
      // [8 bytes: "K and the high digits, right-aligned][4 bytes: the low 4 digits]: two stores
      for (; i < count; i++, k += S4, k8 += S8) {
        n = nums[i];
        if (n < 10000) { f64[k8] = SMALL8[n]; u32[k + 2] = TOP[n]; } else if (n < 100000000) {
          lo = n % 10000;
          f64[k8] = HEAD8[(n - lo) / 10000]; u32[k + 2] = D4[lo];
        } else if (n < 1e10) {
          lo = n % 10000; m = (n - lo) / 10000; mid = m % 10000;
          u32[k] = TOP[(m - mid) / 10000]; u32[k + 1] = D4[mid]; u32[k + 2] = D4[lo];
        } else return i;
        f64[k8 + st8] = sw;
      }
    } else {
      const SP = BEFORE[0];
      let w = 0;
      for (; i < count; i++, k += S4) {
        n = nums[i];
        if (!(n < 1e14)) return i;
        // generic: groups of 4 digits from the right, the top group with its "K, then spaces
        for (w = 3; n >= 10000 && w > 0; w--) { lo = n % 10000; u32[k + w] = D4[lo]; n = (n - lo) / 10000; }
        u32[k + w] = TOP[n];
        if (w > 0) u32[k + w - 1] = BEFORE[n];
        for (let x = w - 2; x >= 0; x--) u32[k + x] = SP;
      }
    }
    return i;
  }

  function build(nums, stamp) {
    const count = nums.length;
    if (count === 0 || stamp.length + 1 > 4 * 8 || !isAscii(stamp)) return null;
    const t = Math.max(T, Math.ceil((stamp.length + 1) / 4));
    // The stamp region: <stamp>" and spaces, the same words in every document.
    stampBytes.fill(32);
    for (let b = 0; b < stamp.length; b++) stampBytes[b] = stamp.charCodeAt(b);
    stampBytes[stamp.length] = 34; // "
    const sw = stampWide[0];
    // A Float64Array of keys (lib/native.js keyList) is patched by the Go twin (xk6/modules/writepath) of
    // fill() and the stamp loop below: the same bytes.
    const nat = nums instanceof Float64Array ? native() : null;
    const put = nat
      ? (/** @type {any} */ L) => nat.patchKeys(L.buf, nums.buffer, count, L.key0 * 4, L.S4 * 4, L.w, L.stamp0 * 4, stampBytes.buffer.slice(0, 4 * t), KEY_PREFIX.charCodeAt(0))
      : (/** @type {any} */ L) => fill(L, nums, 0, count, sw);
    let L = layout(count, W, t);
    let at = put(L);
    while (at < count) {
      const need = wordsFor(nums[at]);
      if (need > KEY_WORDS_MAX || !Number.isInteger(nums[at]) || nums[at] < 0) return null;
      W = Math.max(W, need);
      L = layout(count, W, t);
      at = put(L);
    }
    T = t;
    // fill() stored the first 8 stamp bytes with the keys for W = 2 and 3 (the region is
    // 8-byte aligned, the stride a multiple of 8); the rest of a longer region, or all of it
    // for wider keys, here.
    if (!nat && (t !== 2 || L.w > 3)) {
      const { u32, S4 } = L;
      const end = L.stamp0 + count * S4;
      for (let s = L.stamp0; s < end; s += S4) for (let x = 0; x < t; x++) u32[s + x] = stampWords[x];
    }
    return L.buf;
  }

  // Image for batches of `count` keys up to maxKey built now (init), not by the first batch.
  function prepare(count, maxKey) {
    W = Math.max(W, Math.min(KEY_WORDS_MAX, wordsFor(maxKey)));
    layout(count, W, T);
  }

  return { build, prepare };
}

// Fast batch bodies. k6's JavaScript runtime has no JIT, so what costs is JavaScript work per
// document, not bytes (one string per document + join reached 0.14 to 0.20 of the HTTP
// ceiling: bench/RESULTS.md, row arangodb-join). Here a document is five pieces: <open>K | n | <mid> | stamp | <tail of pool
// fragment n % P>, and a batch is one array of 4*count+1 such slots, kept per batch size:
// the constant pieces stay in place, each document costs three array stores, and a single
// native Array.join (numbers are turned into digits natively) makes the body. The tails
// already carry the "," and the next document's opening, so the join needs no separator.
// Output: exactly '[' + docs.join(',') + ']' of the per-document strings.
const KEY_PREFIX = keyName(0).slice(0, -1);
if (keyName(1234567) !== `${KEY_PREFIX}1234567`) throw new Error('docs.js: keyName(n) must be a fixed prefix followed by n');

function slotBatch(open, mid, tails) {
  const P = tails.length;
  const first = `[${open}${KEY_PREFIX}`;
  const joined = tails.map((t) => `${t},${open}${KEY_PREFIX}`);
  const last = tails.map((t) => `${t}]`);
  const bySize = new Map();
  return function build(nums, stamp) {
    const count = nums.length;
    if (count === 0) return '[]';
    let slots = bySize.get(count);
    if (!slots) {
      if (bySize.size >= 4) bySize.clear(); // a run uses one batch size (and a shorter last one)
      slots = new Array(4 * count + 1);
      slots[0] = first;
      for (let i = 0; i < count; i++) slots[4 * i + 2] = mid;
      bySize.set(count, slots);
    }
    let s = 1;
    for (let i = 0; i < count; i++) {
      const n = nums[i];
      slots[s] = n;
      slots[s + 2] = stamp;
      slots[s + 3] = joined[n % P];
      s += 4;
    }
    slots[s - 1] = last[nums[count - 1] % P];
    return slots.join('');
  };
}

// Bytes of a request body as the adapters build it: a string of ASCII JSON (batch(),
// commands()), an ArrayBuffer (rangeBody(), keysBody(), body()) or a Uint8Array over one
// (the PostgreSQL parameter), which have no .length.
export function bodyBytes(body) {
  if (body === null || body === undefined) return 0;
  return typeof body === 'string' ? body.length : body.byteLength;
}

// Stamps say which batch wrote a document: "l" = load, "o17" = overwrite batch 17,
// "m3" = mixed batch 3. Teardown's read-back compares them with the batches that chose
// the key, so an overwrite that did not happen (or happened twice) is seen.
export function stampFor(phase, j) {
  return phase === 'load' ? 'l' : `${phase[0]}${j}`;
}

// rangeBody(start, count, stamp): the documents of keys start … start+count-1 as one JSON
// array in an ArrayBuffer (k6 http.post sends it without a copy into a string). Building a
// 1.2 MB string in k6 costs about 1 ms per copy, more than posting it, so the body is patched
// in place instead:
//  - every document is padded with JSON whitespace to one fixed stride S (pool tails get
//    spaces before their final "}"), so document i of a batch starts at base + i*S;
//  - a key K<n> is written as its high digits H = floor(n / 1000) and low digits n % 1000.
//    A per-(key width, stamp) image holds the 1000 documents with low digits 000…999 and
//    their payloads; a batch copies the needed slots with one typed-array set per 1000 keys
//    and then stores H into each document with one or two aligned 32-bit stores (the
//    layout puts the end of H on a 4-byte boundary; the bytes before H in that word are the
//    constant '"K' and field name). When a batch starts at the same low digits as the
//    previous one of its size (batch sizes that are multiples of 1000), the body already
//    holds everything else and the copy is skipped.
// Per document that is one or two typed-array stores, instead of building a string.
// Payload of key n: tails[(n % 1000) % P] (not n % P as in batch(): same fields, other
// pairing). lead/trail: bytes before '[' and after ']' (PostgreSQL's jsonb version byte,
// RavenDB's {"Commands": … }). Keys below 1000 (varying widths) or wider than 11 digits, and
// shapes without a pool, get null from the builder: rangeBody() then returns the string path
// (which http.post accepts too), body() tries keysBody() first.
const LOW = 1000;
const LOW_DIGITS = 3;

function asciiBytes(s, out, at) {
  for (let i = 0; i < s.length; i++) out[at + i] = s.charCodeAt(i);
}

function padTails(tails) {
  const width = Math.max(...tails.map((t) => t.length));
  return tails.map((t) => `${t.slice(0, -1)}${' '.repeat(width - t.length)}${t.slice(-1)}`);
}

function rangeBuilder(open, mid, rawTails, toBytes = loopBytes, lead = '', trail = '') {
  if (!rawTails.every(isAscii)) return () => null; // bytes = chars only for ASCII
  const tails = padTails(rawTails);
  const P = tails.length;
  const bytesOf = (t) => { const b = new Uint8Array(t.length); asciiBytes(t, b, 0); return b; };
  const first = lead.length + 1; // the first document follows the lead bytes and '['
  const leadBytes = bytesOf(`${lead}[`);
  const closeBytes = bytesOf(`]${trail}`);
  const layouts = new Map(); // `${width}/${stamp}` -> { image, S, base, hEnd, h, words }
  // The one body buffer of this builder: a phase moves through key widths and keeps one batch
  // size, so older buffers (12 MB each for batches of 10 000) are not kept alive.
  let body = null; // { L, count, u8, u32, lo }

  function layout(h, stamp) {
    const id = `${h}/${stamp}`;
    let L = layouts.get(id);
    if (L) return L;
    if (layouts.size >= 8) layouts.clear(); // stamps of range bodies are few ('l'); keep memory bounded
    const words = Math.ceil(h / 4);
    const before = `${open}${KEY_PREFIX}`;
    if (before.length < words * 4 - h) return null;
    const docLen = before.length + h + LOW_DIGITS + mid.length + stamp.length + tails[0].length + 1; // + ','
    const S = Math.ceil(docLen / 4) * 4;
    const indent = S - docLen; // spaces in front of each document
    // H ends at doc offset indent + before.length + h; the first document starts at base
    // (after the lead and '[') chosen so that every H ends on a multiple of 4.
    const hEnd = indent + before.length + h;
    const base = first + ((4 - ((first + hEnd) % 4)) % 4);
    imageBuilds++;
    // The image as text, converted by one native toBytes: document l = head, the low digits
    // l (000…999), mid and stamp, the padded tail of payload l % P and ','.
    const head = `${' '.repeat(indent)}${before}${'0'.repeat(h)}`;
    const docs = new Array(LOW);
    for (let l = 0; l < LOW; l++) docs[l] = `${head}${l < 10 ? `00${l}` : l < 100 ? `0${l}` : l}${mid}${stamp}${tails[l % P]},`;
    const image = new Uint8Array(toBytes(docs.join('')));
    if (image.length !== LOW * S) throw new Error(`docs.js: range image of ${image.length} bytes, expected ${LOW * S}`);
    L = { image, S, base, hEnd, h, words };
    layouts.set(id, L);
    return L;
  }

  return function build(start, count, stamp) {
    if (count === 0) return null;
    const end = start + count - 1;
    const w = String(start).length;
    if (start < LOW || String(end).length !== w || !Number.isSafeInteger(end) || w > 8 + LOW_DIGITS) return null;
    const L = layout(w - LOW_DIGITS, stamp);
    if (!L) return null;
    const { image, S, base, hEnd, h, words } = L;
    const len = base + count * S + trail.length;
    if (!body || body.L !== L || body.count !== count) {
      body = { L, count, u8: new Uint8Array(len), u32: null, lo: -1 };
      body.u8.fill(32);
      body.u8.set(leadBytes, 0); // [lead] [
      body.u8.set(closeBytes, len - closeBytes.length); // ']' and the trail
      body.u32 = new Uint32Array(body.u8.buffer, 0, Math.floor(len / 4));
    }
    const { u8, u32 } = body;
    // The body holds this layout's image from its previous batch. When that batch started at
    // the same low digits (always, for batch sizes that are multiples of 1000), every byte
    // but the high key digits is already right: no copy, only the stores below.
    const copy = body.lo !== start % LOW;
    body.lo = start % LOW;
    const S4 = S / 4;
    // word index of the last H word of document i: (base + i*S + hEnd) / 4 - 1
    let i = 0;
    let n = start;
    const word = new Uint8Array(4 * words);
    const wordView = new Uint32Array(word.buffer);
    while (i < count) {
      const hi = Math.floor(n / LOW);
      const lo = n % LOW;
      const run = Math.min(LOW - lo, count - i);
      if (copy) u8.set(image.subarray(lo * S, (lo + run) * S), base + i * S);
      // The words that end with H: constant bytes of the document before H, then H's digits.
      const docAt = base + i * S;
      const hs = String(hi);
      for (let b = 0; b < 4 * words; b++) word[b] = u8[docAt + hEnd - 4 * words + b];
      asciiBytes(hs, word, 4 * words - h);
      let k = (docAt + hEnd) / 4 - words;
      const kEnd = k + run * S4;
      if (words === 1) {
        const w0 = wordView[0];
        for (; k < kEnd; k += S4) u32[k] = w0;
      } else {
        const w0 = wordView[0];
        const w1 = wordView[1];
        for (; k < kEnd; k += S4) { u32[k] = w0; u32[k + 1] = w1; }
      }
      i += run;
      n += run;
    }
    if (copy) u8[len - closeBytes.length] = 93; // ']' replaces the last document's ',' (copied from the image)
    return u8.buffer;
  };
}
