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
import { DrawnKeys, isConsecutive, keyArray, keyName, rangeStart } from './keys.js';

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
  const pool = payloadPool(cfg, keyOpen.length + 10 + 12 + extra.length);
  const { doc, batch, commands } = textBodies(cfg, pool, keyOpen, keyField, extra);
  const builderFor = byteBuilders(pool, keyField, extra, toBytes);
  const { rangeBody, keysBody, body, recipe, prepare, prepareFor } = requestBodies(builderFor, batch, commands, pool.release);
  return { doc, batch, commands, rangeBody, keysBody, body, recipe, prepare, prepareFor, builds: () => imageBuilds, shape };
}

// The payload pool, generated on first use and only as far as it is used: entry i is the
// same whatever DOC_POOL is (one seeded generator, entries in order), so a body image of
// fewer slots than DOC_POOL needs only its first entries. The init runs that never write
// (k6's options pass, the setup/teardown VU) skip it, and prepare() drops it once the image
// is made: a VU then holds no payload strings at all.
function payloadPool(cfg, fixedLen) {
  const shape = cfg.DOC_SHAPE;
  const pooled = shape === 'e1' || shape === 'user' || shape === 'complexity';
  const P = shape === 'complexity' ? 1 : pooled ? cfg.DOC_POOL : 0;
  let poolCache = null;
  let poolRng = null;
  function upTo(n) {
    const want = Math.min(n, P);
    if (poolCache && poolCache.length >= want) return poolCache;
    if (!poolCache) {
      poolCache = [];
      poolRng = shape === 'e1' ? new Rng(cfg.SEED, 'docs') : shape === 'user' ? new Rng(cfg.SEED, 'users') : null;
    }
    for (let i = poolCache.length; i < want; i++) {
      poolCache.push(shape === 'e1' ? e1Fragment(poolRng, cfg.DOC_BYTES, fixedLen) : shape === 'user' ? userFragment(poolRng) : complexityFragment(cfg.COMPLEXITY));
    }
    return poolCache;
  }
  function release() {
    poolCache = null;
    poolRng = null;
  }
  return { pooled, P, upTo, all: () => upTo(P), release };
}

// The string bodies: doc() per document, batch() (one JSON array of documents) and
// commands() (RavenDB commands), for the shapes, keys and stamps that take no byte body.
function textBodies(cfg, pool, keyOpen, keyField, extra) {
  const { pooled, P } = pool;
  const getPool = pool.all;
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

  return { doc, batch, commands };
}

// Byte bodies (see bodyBuilder below): one builder per envelope and lead/trail bytes, i.e.
// per request format; every batch of that format (a key range or any key list) patches the
// one body the builder holds. builderFor() answers null when the shape has no byte path
// (random-shapes: no pool; a pool that is not ASCII).
function byteBuilders(pool, keyField, extra, toBytes) {
  const { pooled, P } = pool;
  const builders = new Map();
  return function builderFor(envelope, lead, trail) {
    // Envelopes that differ only in their mid (envelope.mids: RavenDB's bulk_docs with and
    // without a change vector) share one builder and one body (bodyBuilder's mid variants).
    const mids = envelope ? envelope.mids || [envelope.mid] : null;
    const id = `${envelope ? `${envelope.open}\u0000${mids.join('\u0000')}\u0000${envelope.close}` : ''}\u0000${lead}\u0000${trail}`;
    let bb = builders.get(id);
    if (bb === undefined) {
      bb = null;
      const close = envelope ? envelope.close : '';
      const spec = {
        toBytes, lead, trail,
        tail: (i) => `${extra}${pool.upTo(i + 1)[i]}${close}`, // payload of slot i
        tails: (n) => Math.min(n, P), // slots of an image for bodies of n documents
      };
      if (pooled && keyField && !envelope) bb = bodyBuilder(`{"${keyField}":"`, '","w":"', spec);
      else if (pooled && !keyField && envelope) bb = bodyBuilder(envelope.open, mids.map((m) => `${m}{"w":"`), spec);
      builders.set(id, bb);
    }
    return bb;
  };
}

const keysFromTo = (a, n) => { const ns = new Array(n); for (let i = 0; i < n; i++) ns[i] = a + i; return ns; };

// The bodies of the requests: bytes from the request format's builder where it takes the
// keys and the stamp, else the string of batch()/commands(); prepare() makes a format's body
// ahead of the timed phases.
function requestBodies(builderFor, batch, commands, releasePool) {
  // The builder of a request format: its envelope, and the text around its array.
  const formatBuilder = (envelope, wrap, lead) => builderFor(envelope, `${lead}${wrap ? wrap.open : ''}`, wrap ? wrap.close : '');
  // The mid variant an envelope's documents take (bodyBuilder's variants); null: no envelope.
  const variantOf = (envelope) => (envelope ? `${envelope.mid}{"w":"` : null);

  // The documents of keys start … start+count-1 (load phases, bulk inserts) in bytes, or the
  // string of batch()/commands() where no byte path applies.
  function rangeBody(start, count, stamp, envelope = null, lead = '', trail = '') {
    const bb = builderFor(envelope, lead, trail);
    const out = bb && count > 0 ? bb.range(start, count, stamp, variantOf(envelope)) : null;
    if (out !== null) return out;
    return envelope ? commands(keysFromTo(start, count), stamp, envelope) : batch(keysFromTo(start, count), stamp);
  }
  // The documents of ANY key list (overwrite and mixed batches draw their keys at random) in
  // bytes, or null when the shape or the keys cannot take the byte path.
  function keysBody(nums, stamp, envelope = null, lead = '', trail = '') {
    const bb = builderFor(envelope, lead, trail);
    return bb && nums.length > 0 ? bb.keys(keyArray(nums), stamp, variantOf(envelope)) : null;
  }

  // The body of a write: bytes when a fast path takes the keys (a key range, lib/keys.js
  // keyRange, or any other list), else the string of batch()/commands().
  //   envelope: RavenDB command wrapper of each document;
  //   wrap {open, close}: text around the array, in byte and string bodies alike;
  //   lead: bytes in front of a byte body only (PostgreSQL's jsonb binary version byte).
  // Check `typeof body === 'string'` to know which one came back. Bytes are an ArrayBuffer for a
  // batch of the size the body was made for and a Uint8Array over its start for a shorter one
  // (http.post sends either as it is); both are the builder's one body, rewritten by
  // the next call with the same options: send it before building another.
  function body(nums, stamp, { envelope = null, wrap = null, lead = '' } = {}) {
    const bb = nums.length > 0 ? formatBuilder(envelope, wrap, lead) : null;
    let out = null;
    if (bb) out = isConsecutive(nums) ? bb.range(rangeStart(nums), nums.length, stamp, variantOf(envelope)) : bb.keys(keyArray(nums), stamp, variantOf(envelope));
    if (out !== null) return out;
    const arr = envelope ? commands(nums, stamp, envelope) : batch(nums, stamp);
    return wrap ? `${wrap.open}${arr}${wrap.close}` : arr;
  }

  // Makes the one body of a request format for batches of up to `count` keys up to maxKey with
  // stamps of up to maxStamp characters ahead of time, so that no VU pays for it inside a timed
  // phase (a scenario creates its target, hence calls this, in the init context). Call it once
  // per format the VU's phases send: an unused format costs a body. Drops the payload pool
  // afterwards (it is only needed to make images; the string paths make it again).
  function prepare({ count, maxKey, maxStamp = 7, envelope = null, wrap = null, lead = '' }) {
    if (!(count > 0)) return;
    const bb = formatBuilder(envelope, wrap, lead);
    if (bb) bb.prepare(count, maxKey, maxStamp);
    releasePool();
  }

  // prepare() for what a plan asks of a target (lib/workloads/*.js plan().target): batches of
  // batchSize keys below maxKey, with stamps of up to maxStamp characters, when the plan writes
  // batches at all (writes: operation -> the stamps of its key-range batches); opts: the body's
  // envelope, wrap and lead (one request format).
  function prepareFor({ batchSize = 0, maxKey = 0, maxStamp = 7, writes = {} }, opts = {}) {
    if (Object.keys(writes).length > 0) prepare(Object.assign({ count: batchSize, maxKey, maxStamp }, opts));
  }

  // body()'s request as a recipe a gateway renders (bodyBuilder's recipe()), or null where
  // body() would not give bytes.
  function recipe(nums, stamp, { envelope = null, wrap = null, lead = '' } = {}) {
    const bb = nums.length > 0 ? formatBuilder(envelope, wrap, lead) : null;
    return bb ? bb.recipe(nums, stamp, variantOf(envelope)) : null;
  }

  return { rangeBody, keysBody, body, recipe, prepare, prepareFor };
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

// One native regular-expression scan (a charCodeAt loop over the payloads is slow in k6's interpreter).
const NON_ASCII = /[^\x00-\x7f]/;
function isAscii(s) {
  return !NON_ASCII.test(s);
}

// bodyBuilder: the documents of a batch as one JSON array in bytes, patched in place instead
// of built as text (in k6's interpreter every JavaScript operation counts, and a large string
// copy costs more than the stores that patch an image). ONE body per request format serves
// every batch: key ranges (load, bulk insert) and any key list (random picks of overwrite and
// mixed batches), so a VU holds one body per format its phases send and nothing else (memory
// per VU). Document i of a body lives at base + i*S and reads
//   <open w/o its '"'><key region: R bytes><,><pad><rest of mid><stamp region: 4T bytes><tail i % P><spaces>,
// - the key region holds `"K<digits>"` right-aligned, preceded by JSON whitespace (allowed
//   between ':' and a value): R = 12 bytes (keys below 10^9) or 20 (any other safe integer), starting on
//   an 8-byte boundary. Its last 4 bytes are the 3 lowest digits and the closing quote (the
//   "low word"), the 8 or 16 bytes before them the rest (the "high part");
// - the stamp region holds `<stamp>"` and spaces (T = 2 words: stamps up to 7 characters;
//   more when the plan has longer stamps), on an 8-byte boundary;
// - everything else (open, mid, the payload tail i % P, padding, separators) comes from an
//   image made once by one native toBytes of its text (min(count, P) documents: slots i and
//   i + P are the same, so the image is repeated) and is never touched again.
// A key range costs one 8-byte store per document (its high part; the low words of a range
// that starts at the same low digits as the previous one are already in place, and the stamp
// region is rewritten only when the stamp changes); any other key list costs the high part,
// the low word and the stamp region per document. Payload of slot i: tail(i % P)
// (not tied to the key as in batch(); same fields, other pairing). Keys are non-negative
// integers up to 2^53; another key or a non-ASCII payload returns null (the string path).
const MAX_KEY = Number.MAX_SAFE_INTEGER; // keys are JavaScript safe integers (16 digits at most)
// Tables of the key-list fill (made by prepare(), or on first use):
let HI8 = null; // Float64Array: high part `    "K<h>` of h = floor(n / 1000) < 10^4, right-aligned in 8 bytes
let LO3Q = null; // Uint32Array: the low word `<3 digits>"` of n % 1000
let SMALLLO = null; // Uint32Array: the low word of n < 1000 (`"K5"`, `K42"`, `123"`)
let SMALLHI = null; // Float64Array: the high part of n < 10, < 100, < 1000
let TOPK = null; // Uint32Array: `"K<t>` right-aligned in 4 bytes for t < 100 (keys 10^7 ... 10^9)
let D4 = null; // Uint32Array: 4 digits of g < 10^4
let TOP = null; let BEFORE = null; // Uint32Array: the last 4 bytes of `"K<g>` right-aligned, and the 4 before them

// The low words (all a key range needs).
function loTable(toBytes) {
  if (LO3Q) return;
  const lo = new Array(1000);
  for (let g = 0; g < 1000; g++) lo[g] = `${g < 10 ? `00${g}` : g < 100 ? `0${g}` : g}"`;
  LO3Q = new Uint32Array(toBytes(lo.join('')));
}

// The rest, for key lists filled in JavaScript: keys below 10^7 in 12-byte regions (~90 KB),
// and, made only when a key of 10^7 or more comes (wideTables, ~120 KB more), the rest. Most
// runs (DOCS below 10^7) never make the second part, which saves its size in every VU.
function keyTables(toBytes) {
  loTable(toBytes);
  if (HI8) return;
  // one template per entry (k6: a method call costs ~1 µs, so no padStart/slice here)
  const K = KEY_PREFIX;
  const hi = new Array(10000); const small = new Array(1000);
  for (let g = 0; g < 10000; g++) {
    const h = `"${K}${g}`;
    hi[g] = `${'        '.slice(h.length)}${h}`;
  }
  for (let g = 0; g < 1000; g++) small[g] = g < 10 ? `"${K}${g}"` : g < 100 ? `${K}${g}"` : `${g}"`;
  HI8 = new Float64Array(toBytes(hi.join('')));
  SMALLLO = new Uint32Array(toBytes(small.join('')));
  SMALLHI = new Float64Array(toBytes(`        ${'       "'}${`      "${K}`}`));
}

// Keys of 10^7 or more: 12-byte regions up to 10^9 (TOPK, D4), 20-byte regions (TOP, BEFORE, D4).
function wideTables(toBytes) {
  keyTables(toBytes);
  if (D4) return;
  const K = KEY_PREFIX;
  const d4 = new Array(10000); const top = new Array(100); const t4 = new Array(10000); const b4 = new Array(10000);
  for (let g = 0; g < 10000; g++) {
    d4[g] = g < 10 ? `000${g}` : g < 100 ? `00${g}` : g < 1000 ? `0${g}` : `${g}`;
    t4[g] = g < 10 ? ` "${K}${g}` : g < 100 ? `"${K}${g}` : g < 1000 ? `${K}${g}` : `${g}`;
    b4[g] = g < 100 ? '    ' : g < 1000 ? '   "' : `  "${K}`;
  }
  for (let g = 0; g < 100; g++) top[g] = g < 10 ? ` "${K}${g}` : `"${K}${g}`;
  TOP = new Uint32Array(toBytes(t4.join('')));
  BEFORE = new Uint32Array(toBytes(b4.join('')));
  TOPK = new Uint32Array(toBytes(top.join('')));
  D4 = new Uint32Array(toBytes(d4.join('')));
}

// open/mid: the text before and after the key (`{"_key":"` and `","w":"`, or a RavenDB
// command's); spec: { toBytes, lead, trail, tail(i), tails(count) -> image slots }.
// Returns the operations on the one body: range(), keys(), prepare(), recipe(); null when the
// format has no byte path.
function bodyBuilder(open, mid, spec) {
  const fmt = bodyFormat(open, mid, spec.lead, spec.trail);
  if (fmt === null) return null;
  const { toBytes } = spec;
  let L = null; // the one body: layout and bytes (makeBody)
  let ascii = null; // whether the payload tails are ASCII (known once an image was made)
  const stampBytes = new Uint8Array(4 * 8);
  const stampWide = new Float64Array(stampBytes.buffer); // 8 ASCII bytes: never a NaN pattern, stored bit-exact
  const hiBytes = new Uint8Array(16);
  const hiWide = new Float64Array(hiBytes.buffer);

  // The body for `count` documents whose keys fit R bytes and whose stamp fits T words: the
  // current one, or a new one (made bigger, never smaller: a shorter batch uses the start).
  function body(count, R, T) {
    if (L && L.cap >= count && L.R >= R && L.T >= T) return L;
    if (ascii === false) return null;
    const cap = L ? Math.max(L.cap, count) : count;
    L = null; // the old body goes before the new one is made: never two at once
    L = makeBody(fmt, spec, cap, R, T);
    ascii = L !== null;
    return L;
  }

  // A key range: start … start+count-1. Below 1000 (key widths vary) it is a key list.
  function range(start, count, stamp, variant = null) {
    const end = start + count - 1;
    if (!Number.isSafeInteger(end)) return null;
    if (start < 1000) return keys(keyArray({ start, length: count }), stamp, variant);
    const t = stampWords(stampBytes, stamp);
    if (!t || !body(count, wide(end), t)) return null;
    reopenBody(L);
    useVariant(L, fmt, variant);
    putRangeHighs(L, start, count, hiBytes, hiWide);
    // The low words: slot i holds the digits of (start + i) % 1000, unless the body already does.
    if (L.lo !== start % 1000 || L.loN < count) putRangeLows(L, start, count, toBytes);
    if (L.stamp !== stamp || L.stampN < count) { putStamps(L, stampWide, 0, count); L.stamp = stamp; L.stampN = count; }
    return closeBody(L, fmt.closeBytes, count);
  }

  // Any key list.
  function keys(nums, stamp, variant = null) {
    const count = nums.length;
    const t = stampWords(stampBytes, stamp);
    if (!t || !body(count, L ? L.R : 12, t)) return null;
    for (;;) {
      reopenBody(L);
      useVariant(L, fmt, variant);
      const at = fillKeys(L, nums, count, stampWide, toBytes);
      if (at === count) break;
      // a key the body's regions cannot hold: a wider body, or the string path for a key that
      // is no whole number below 10^14
      const n = nums[at];
      if (!(Number.isSafeInteger(n) && n >= 0) || wide(n) <= L.R) return null;
      if (!body(count, wide(n), t)) return null;
    }
    L.lo = -1; L.loN = 0; L.stamp = stamp; L.stampN = count;
    return closeBody(L, fmt.closeBytes, count);
  }

  // The body for batches of up to `count` keys below maxKey, stamps up to maxStamp characters.
  // The key tables too: made by the first key-list batch instead, they would be made by every
  // VU at once when the VUs reach their overwrite phase together, and the garbage of making
  // them (~1 MB per VU) would add up.
  function prepare(count, maxKey, maxStamp) {
    const t = Math.max(2, Math.ceil((maxStamp + 1) / 8) * 2);
    if (maxKey <= MAX_KEY && body(count, wide(maxKey), t)) {
      loTable(toBytes);
      keyTables(toBytes);
      if (maxKey >= 1e7) wideTables(toBytes);
    }
  }

  // The body of `nums` as a recipe for a gateway that renders bodies (gateway/render): this
  // body's bytes as its image, where document i's key and stamp regions are, and the keys (a
  // range, DrawnKeys' draw, or the list). null: no byte path for these keys or this stamp.
  function recipe(nums, stamp, variant = null) {
    const count = nums.length;
    const max = nums instanceof DrawnKeys ? nums.max() : isConsecutive(nums) ? rangeStart(nums) + count - 1 : listMax(keyArray(nums));
    const t = stampWords(stampBytes, stamp);
    if (!t || !(max >= 0 && max <= MAX_KEY) || !body(count, Math.max(L ? L.R : 12, wide(max)), t)) return null;
    reopenBody(L);
    useVariant(L, fmt, variant);
    const draw = nums instanceof DrawnKeys ? nums.draw() : null;
    return {
      image: L.image, count, base: L.base, stride: L.S, key0: 8 * L.key8, width: L.R, stamp0: 8 * L.stamp8,
      stamp: String.fromCharCode.apply(null, Array.from(stampBytes.subarray(0, 4 * L.T))), prefix: KEY_PREFIX, close: `]${fmt.trail}`,
      keys: draw ? { draw } : isConsecutive(nums) ? { range: [rangeStart(nums), count] } : { list: keyArray(nums) },
      byteLength: L.base + count * L.S - 1 + fmt.closeBytes.length,
    };
  }

  return { range, keys, prepare, recipe };
}

// The fixed texts of a body for open/mid/lead/trail (see bodyBuilder), or null when they do
// not fit its layout: mid variants are texts after the key that one body can hold in turn
// (each padded in front with whitespace to the longest; switching rewrites that region of
// every document, once).
function bodyFormat(open, mid, lead, trail) {
  const variants = Array.isArray(mid) ? mid : [mid];
  if (!open.endsWith('"') || !variants.every((m) => m.startsWith('",')) || KEY_PREFIX.length !== 1) return null;
  if (!isAscii(lead) || !isAscii(trail) || !isAscii(open) || !variants.every(isAscii)) return null;
  const restWidth = Math.max(...variants.map((m) => m.length - 2));
  const rests = variants.map((m) => `${' '.repeat(restWidth - m.length + 2)}${m.slice(2)}`);
  return {
    keyOpen: open.slice(0, -1), variants, midRest: rests[0], restBytes: rests.map(asciiArray), trail,
    first: lead.length + 1, // lead, '['
    leadBytes: asciiArray(`${lead}[`), closeBytes: asciiArray(`]${trail}`),
  };
}

// Geometry of a body for R-byte key regions and T stamp words: offsets within a document.
function geometry(fmt, R, T) {
  const { first, keyOpen, midRest } = fmt;
  const base = first + ((8 - ((first + keyOpen.length) % 8)) % 8); // key region on an 8-byte boundary
  const pad = (8 - ((R + 1 + midRest.length) % 8)) % 8; // the stamp region too (the key region is)
  const stampAt = keyOpen.length + R + 1 + pad + midRest.length;
  return { base, pad, keyAt: keyOpen.length, stampAt, R, T };
}

// The image of `slots` documents with blank key and stamp regions, each
// padded to the stride of the longest one (null: not ASCII, no byte path).
function bodyImage(fmt, spec, g, slots) {
  const docs = new Array(slots);
  const keyBlank = ' '.repeat(g.R);
  const between = `,${' '.repeat(g.pad)}${fmt.midRest}${' '.repeat(4 * g.T)}`;
  let width = 0;
  for (let i = 0; i < slots; i++) {
    docs[i] = `${fmt.keyOpen}${keyBlank}${between}${spec.tail(i)}`;
    if (docs[i].length > width) width = docs[i].length;
  }
  const stride = Math.ceil((width + 1) / 8) * 8;
  for (let i = 0; i < slots; i++) docs[i] = `${docs[i]}${' '.repeat(stride - 1 - docs[i].length)},`;
  const text = docs.join('');
  if (!isAscii(text)) return null;
  imageBuilds++;
  return spec.toBytes(text);
}

// A body of `count` documents: the image repeated after the lead and '[', ']' and the trail
// after it, and where its regions are (null: no ASCII image).
function makeBody(fmt, spec, count, R, T) {
  const g = geometry(fmt, R, T);
  const slots = spec.tails(count);
  const img = bodyImage(fmt, spec, g, slots);
  if (img === null || img.byteLength <= 0) return null;
  const S = (img.byteLength / slots) | 0; // an integer: sobek indexes typed arrays faster with it than with a whole float
  const len = g.base + count * S + fmt.trail.length;
  const buf = new ArrayBuffer(len);
  const u8 = new Uint8Array(buf);
  u8.fill(32, 0, g.base);
  u8.set(fmt.leadBytes, 0);
  const im = new Uint8Array(img);
  for (let at = 0; at < count * S; at += im.length) u8.set(at + im.length <= count * S ? im : im.subarray(0, count * S - at), g.base + at);
  u8.set(fmt.closeBytes, g.base + count * S - 1); // ']' replaces the last document's ','
  return {
    buf, u8, u32: new Uint32Array(buf, 0, len >> 2), f64: new Float64Array(buf, 0, len >> 3), cap: count, S, S4: S >> 2, S8: S >> 3,
    key8: (g.base + g.keyAt) >> 3, // index of document 0's key region in f64
    lo4: (g.base + g.keyAt + R - 4) >> 2, // of its low word in u32
    stamp8: (g.base + g.stampAt) >> 3, R, T, base: g.base, len,
    mid0: g.base + g.keyAt + R + 1 + g.pad, variant: 0, // where the mid region starts; which variant it holds
    lo: -1, loN: 0, stamp: null, stampN: 0, short: -1, saved: new Uint8Array(fmt.trail.length),
    image: { bytes: buf, id: null }, // what a rendering gateway holds of this body (recipe())
  };
}

// Key region width for keys up to n: 12 bytes below 10^9, else 20.
function wide(n) {
  return n < 1e9 ? 12 : 20;
}

// Ends body L after `count` documents: the whole body, or a view of its start with ']'
// and the trail after document count-1 (the bytes they cover are restored first thing by the
// next batch, reopenBody()).
function closeBody(L, closeBytes, count) {
  if (count === L.cap) return L.buf;
  const at = L.base + count * L.S - 1;
  L.saved.set(L.u8.subarray(at + 1, at + 1 + L.saved.length));
  L.u8.set(closeBytes, at);
  L.short = count;
  return L.u8.subarray(0, at + closeBytes.length);
}
function reopenBody(L) {
  if (L.short < 0) return;
  const at = L.base + L.short * L.S - 1;
  L.u8[at] = 44; // ','
  L.u8.set(L.saved, at + 1);
  L.short = -1;
}

// Body L's mid region holds the variant `m` (its full mid text; null: the first).
function useVariant(L, fmt, m) {
  const v = m === null ? 0 : fmt.variants.indexOf(m);
  if (v < 0) throw new Error(`docs.js: mid ${m} is not one of this body's variants`);
  if (L.variant === v) return;
  const bytes = fmt.restBytes[v];
  for (let i = 0, at = L.mid0; i < L.cap; i++, at += L.S) L.u8.set(bytes, at);
  L.variant = v;
}

// Writes `<stamp>"` and spaces into stampBytes; returns its words (T), 0 when the stamp does
// not fit 4 of them or is not ASCII.
function stampWords(stampBytes, stamp) {
  if (stamp.length + 1 > 4 * 8 || !isAscii(stamp)) return 0;
  stampBytes.fill(32);
  for (let b = 0; b < stamp.length; b++) stampBytes[b] = stamp.charCodeAt(b);
  stampBytes[stamp.length] = 34; // "
  const t = Math.ceil((stamp.length + 1) / 8) * 2;
  return t < 2 ? 2 : t;
}

// The stamp regions of documents from..count-1 (the words of stampWide).
function putStamps(L, stampWide, from, count) {
  const { f64, S8 } = L;
  const n8 = L.T / 2;
  for (let x = 0; x < n8; x++) {
    const w = stampWide[x];
    const end = L.stamp8 + x + count * S8;
    for (let k = L.stamp8 + x + from * S8; k < end; k += S8) f64[k] = w;
  }
}

// The high parts of the key range start … start+count-1 (hiBytes/hiWide: scratch words).
function putRangeHighs(L, start, count, hiBytes, hiWide) {
  const { f64, S8 } = L;
  const S16 = 2 * S8; const S24 = 3 * S8; const S32 = 4 * S8;
  const n8 = (L.R - 4) / 8;
  let i = 0;
  let n = start;
  while (i < count) {
    const lo = n % 1000;
    const run = 1000 - lo < count - i ? 1000 - lo : count - i;
    // the high part of this run's keys (the same for up to 1000 keys), made once
    const h = String((n - lo) / 1000);
    hiBytes.fill(32);
    const at = 8 * n8 - h.length;
    hiBytes[at - 2] = 34; hiBytes[at - 1] = KEY_PREFIX.charCodeAt(0);
    for (let b = 0; b < h.length; b++) hiBytes[at + b] = h.charCodeAt(b);
    let k = L.key8 + i * S8;
    const kEnd = k + run * S8;
    // Unrolled by 4: about a quarter fewer interpreter steps per key than one store per
    // turn (bench/micro-keys.js, "byte body of a load batch").
    const kEnd4 = k + (run - (run % 4)) * S8;
    if (n8 === 1) {
      const w0 = hiWide[0];
      for (; k < kEnd4; k += S32) { f64[k] = w0; f64[k + S8] = w0; f64[k + S16] = w0; f64[k + S24] = w0; }
      for (; k < kEnd; k += S8) f64[k] = w0;
    } else {
      const w0 = hiWide[0]; const w1 = hiWide[1];
      for (; k < kEnd4; k += S32) {
        f64[k] = w0; f64[k + 1] = w1; f64[k + S8] = w0; f64[k + S8 + 1] = w1;
        f64[k + S16] = w0; f64[k + S16 + 1] = w1; f64[k + S24] = w0; f64[k + S24 + 1] = w1;
      }
      for (; k < kEnd; k += S8) { f64[k] = w0; f64[k + 1] = w1; }
    }
    i += run;
    n += run;
  }
}

// The low words of the key range start … start+count-1: slot i holds (start + i) % 1000.
function putRangeLows(L, start, count, toBytes) {
  const { u32, S4 } = L;
  const lo0 = start % 1000;
  if (!LO3Q) loTable(toBytes);
  let l = lo0;
  for (let k = L.lo4, kEnd = L.lo4 + count * S4; k < kEnd; k += S4) { u32[k] = LO3Q[l]; l = l === 999 ? 0 : l + 1; }
  L.lo = lo0; L.loN = count;
}

// Key regions of documents 0 … until a key does not fit (its index; count when all fit).
function fillKeys(L, nums, count, stampWide, toBytes) {
  if (!HI8) keyTables(toBytes);
  const at = L.R === 12 ? fill12(L, nums, count, stampWide[0], toBytes) : fill20(L, nums, count, stampWide[0], toBytes);
  if (at === count && L.T !== 2) putStamps(L, stampWide, 0, count); // (the fills stored the first 8 stamp bytes)
  return at;
}

// Stores the key regions and the first 8 bytes (sw) of the stamp regions of documents 0 …
// until a key does not fit 12-byte regions; returns its index (count when all fit).
function fill12(L, nums, count, sw, toBytes) {
  const { f64, u32, S4, S8 } = L;
  // declared once: a let/const inside the loop body costs a fresh binding per document in
  // k6's runtime
  let n = 0; let lo = 0; let h = 0; let m = 0;
  let k8 = L.key8;
  let k = L.lo4;
  const st8 = L.stamp8 - L.key8;
  let i = 0;
  for (; i < count; i++, k8 += S8, k += S4) {
    n = nums[i];
    if (n < 10000000) {
      if (n >= 1000) {
        lo = n % 1000;
        f64[k8] = HI8[(n - lo) / 1000]; u32[k] = LO3Q[lo];
      } else { f64[k8] = n < 10 ? SMALLHI[0] : n < 100 ? SMALLHI[1] : SMALLHI[2]; u32[k] = SMALLLO[n]; }
    } else if (n < 1000000000) {
      if (D4 === null) wideTables(toBytes);
      lo = n % 1000; h = (n - lo) / 1000; m = h % 10000;
      u32[k - 2] = TOPK[(h - m) / 10000]; u32[k - 1] = D4[m]; u32[k] = LO3Q[lo];
    } else return i;
    f64[k8 + st8] = sw;
  }
  return i;
}

// The same for 20-byte regions (any safe integer): the high part is four 4-byte words,
// groups of 4 digits from the right, the top group with its `"K`, spaces before.
function fill20(L, nums, count, sw, toBytes) {
  const { f64, u32, S4, S8 } = L;
  let n = 0; let lo = 0; let h = 0; let g = 0; let w = 0; let x = 0;
  let k = L.lo4;
  let k8 = L.stamp8;
  if (BEFORE === null) wideTables(toBytes);
  const SP = BEFORE[0];
  let i = 0;
  for (; i < count; i++, k += S4, k8 += S8) {
    n = nums[i];
    if (!(n <= MAX_KEY && n >= 0)) return i;
    if (n < 1000) {
      u32[k - 4] = SP; u32[k - 3] = SP; u32[k - 2] = SP; u32[k - 1] = n < 10 ? SP : n < 100 ? BEFORE[100] : BEFORE[1000];
      u32[k] = SMALLLO[n];
    } else {
      lo = n % 1000; h = (n - lo) / 1000;
      u32[k] = LO3Q[lo];
      for (w = 3; h >= 10000 && w > 0; w--) { g = h % 10000; u32[k - 4 + w] = D4[g]; h = (h - g) / 10000; }
      u32[k - 4 + w] = TOP[h];
      if (w > 0) u32[k - 5 + w] = BEFORE[h];
      for (x = w - 2; x >= 0; x--) u32[k - 4 + x] = SP;
    }
    f64[k8] = sw;
  }
  return i;
}

function listMax(nums) {
  let m = -1;
  for (let i = 0; i < nums.length; i++) {
    const n = nums[i];
    if (!(Number.isSafeInteger(n) && n >= 0)) return -1;
    if (n > m) m = n;
  }
  return m;
}

function asciiArray(s) {
  const b = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) b[i] = s.charCodeAt(i);
  return b;
}

// Fast batch bodies. k6's JavaScript runtime has no JIT, so what costs is JavaScript work per
// document, not bytes (one string per document + join: bench/RESULTS.md, row arangodb-join).
// Here a document is five pieces: <open>K | n | <mid> | stamp | <tail of pool fragment n % P>,
// and a batch is one array of 4*count+1 such slots, kept per batch size:
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
