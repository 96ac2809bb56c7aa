// Document generators. Payloads are generated once per VU, outside the timed path, into a
// pool of pre-serialized JSON fragments; a document is its key, a stamp naming the batch
// that wrote it, and one pool fragment. A batch body is built with one Array.join, never
// with string += (k6's JavaScript runtime has no JIT, and += on a growing string is quadratic
// there: measured 2.2k documents/s against 66k/s with one join, batches of 1000 ~1.1 KB documents).
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
import { keyName } from './keys.js';

export const INDEX_FIELDS = ['f0', 'f1', 'f2', 'f3', 'f4', 'f5', 'f6', 'f7', 'f8'];

function e1Fragment(rng, bytes, fixedLen) {
  const hallo = rng.int(1000000000);
  let f = '';
  for (const name of INDEX_FIELDS) f += `,"${name}":${rng.int(100000)}`;
  const head = `,"Hallo":${hallo}${f},"s":"`;
  const want = Math.max(16, bytes - fixedLen - head.length - 2);
  const r = 1 + rng.int(1000000000);
  const d = 1 + rng.int(1000000);
  const parts = [];
  let len = 0;
  for (let k = 0; len < want; k++) {
    const piece = String(r + k * d);
    parts.push(piece);
    len += piece.length;
  }
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
export function createDocs(cfg, { keyField = 'key', extra = '' } = {}) {
  const shape = cfg.DOC_SHAPE;
  const keyOpen = keyField ? `{"${keyField}":"` : '{"_k":"';
  // Approximate fixed part of a document for sizing: key field, key, stamp, extra.
  const fixedLen = keyOpen.length + 10 + 12 + extra.length;
  let pool = null;
  if (shape === 'e1') {
    const rng = new Rng(cfg.SEED, 'docs');
    pool = new Array(cfg.DOC_POOL);
    for (let i = 0; i < pool.length; i++) pool[i] = e1Fragment(rng, cfg.DOC_BYTES, fixedLen);
  } else if (shape === 'user') {
    const rng = new Rng(cfg.SEED, 'users');
    pool = new Array(cfg.DOC_POOL);
    for (let i = 0; i < pool.length; i++) pool[i] = userFragment(rng);
  } else if (shape === 'complexity') {
    pool = [complexityFragment(cfg.COMPLEXITY)];
  }
  const P = pool ? pool.length : 0;
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
  const body = pool ? (n) => pool[n % P] : randomShapes;

  function doc(n, stamp) {
    return `${head(n)}${stamp}"${extra}${body(n)}`;
  }

  // One JSON array of the documents for key numbers nums, one string per document: the
  // reference that batch() must equal (tests compare them), and the bench's naive baseline.
  function batchJoin(nums, stamp) {
    const parts = new Array(nums.length);
    for (let i = 0; i < nums.length; i++) parts[i] = doc(nums[i], stamp);
    return `[${parts.join(',')}]`;
  }

  // The same text as batchJoin, built with one native join over slots (see slotBatch).
  // random-shapes has no pool (every document is generated) and documents without a key
  // field have no key slot: both keep the per-document path.
  const batch = pool && keyField
    ? slotBatch(`{"${keyField}":"`, '","w":"', pool.map((f) => `"${extra}${f}`))
    : batchJoin;

  // RavenDB-style commands, one per document: open + keyName(n) + mid + doc(n, stamp) + close,
  // in one JSON array, e.g. { open: '{"Id":"', mid: '","Type":"PUT","Document":', close: '}' }.
  const commandBuilders = new Map();
  function commands(nums, stamp, { open, mid, close }) {
    const id = `${open}\u0000${mid}\u0000${close}`;
    let build = commandBuilders.get(id);
    if (!build) {
      build = pool && !keyField
        ? slotBatch(open, `${mid}{"w":"`, pool.map((f) => `"${extra}${f}${close}`))
        : (ns, st) => {
          const parts = new Array(ns.length);
          for (let i = 0; i < ns.length; i++) parts[i] = `${open}${keyName(ns[i])}${mid}${doc(ns[i], st)}${close}`;
          return `[${parts.join(',')}]`;
        };
      commandBuilders.set(id, build);
    }
    return build(nums, stamp);
  }

  // Byte bodies for a run of consecutive keys (load phases, bulk inserts): see rangeBuilder.
  const rangeBuilders = new Map();
  function rangeBody(start, count, stamp, envelope = null) {
    const id = envelope ? `${envelope.open}\u0000${envelope.mid}\u0000${envelope.close}` : '';
    let build = rangeBuilders.get(id);
    if (!build) {
      const keysFromTo = (a, n) => { const ns = new Array(n); for (let i = 0; i < n; i++) ns[i] = a + i; return ns; };
      if (pool && keyField && !envelope) {
        build = rangeBuilder(`{"${keyField}":"`, '","w":"', pool.map((f) => `"${extra}${f}`), (a, n, st) => batch(keysFromTo(a, n), st));
      } else if (pool && !keyField && envelope) {
        build = rangeBuilder(envelope.open, `${envelope.mid}{"w":"`, pool.map((f) => `"${extra}${f}${envelope.close}`),
          (a, n, st) => commands(keysFromTo(a, n), st, envelope));
      } else {
        build = (a, n, st) => (envelope ? commands(keysFromTo(a, n), st, envelope) : batch(keysFromTo(a, n), st));
      }
      rangeBuilders.set(id, build);
    }
    return build(start, count, stamp);
  }

  return { doc, batch, batchJoin, commands, rangeBody, shape };
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
// commands()) or the ArrayBuffer of rangeBody(), which has no .length.
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
//    constant '"K' and field name).
// Per document that is one or two typed-array stores, instead of building a string.
// Payload of key n: tails[(n % 1000) % P] (not n % P as in batch(): same fields, other
// pairing). Keys below 1000 (varying widths) or wider than 11 digits, and shapes without a
// pool, use the string path (the result is then a string, which http.post accepts too).
const LOW = 1000;
const LOW_DIGITS = 3;

function asciiBytes(s, out, at) {
  for (let i = 0; i < s.length; i++) out[at + i] = s.charCodeAt(i);
}

function padTails(tails) {
  const width = Math.max(...tails.map((t) => t.length));
  return tails.map((t) => `${t.slice(0, -1)}${' '.repeat(width - t.length)}${t.slice(-1)}`);
}

function rangeBuilder(open, mid, rawTails, slowPath) {
  for (const t of rawTails) {
    for (let i = 0; i < t.length; i++) if (t.charCodeAt(i) > 127) return slowPath; // bytes = chars only for ASCII
  }
  const tails = padTails(rawTails);
  const P = tails.length;
  // The tails as bytes, converted once (a per-character loop: about 0.3 s for 1024 e1
  // payloads, so it happens on the first call, which a scenario can make in its init code);
  // an image for a new key width is then a few typed-array sets per document.
  let tailBytes = null;
  const bytesOf = (t) => { const b = new Uint8Array(t.length); asciiBytes(t, b, 0); return b; };
  const layouts = new Map(); // `${width}/${stamp}` -> { image, S, base, hOff, words, bodies }

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
    const lead = S - docLen; // spaces in front of each document
    // H ends at doc offset lead + before.length + h; the first document starts at base (>= 1,
    // after '[') chosen so that every H ends on a multiple of 4.
    const hEnd = lead + before.length + h;
    const base = 1 + ((4 - ((1 + hEnd) % 4)) % 4);
    if (!tailBytes) tailBytes = tails.map((t) => bytesOf(`${t},`));
    const image = new Uint8Array(LOW * S);
    const headLen = lead + before.length + h;
    const head = bytesOf(`${' '.repeat(lead)}${before}${'0'.repeat(h)}`);
    const midStamp = bytesOf(`${mid}${stamp}`);
    const digits = new Uint8Array(LOW_DIGITS);
    for (let l = 0; l < LOW; l++) {
      const at = l * S;
      image.set(head, at);
      asciiBytes(String(l).padStart(LOW_DIGITS, '0'), digits, 0);
      image.set(digits, at + headLen);
      image.set(midStamp, at + headLen + LOW_DIGITS);
      image.set(tailBytes[l % P], at + headLen + LOW_DIGITS + midStamp.length);
    }
    L = { image, S, base, hEnd, h, words, bodies: new Map() };
    layouts.set(id, L);
    return L;
  }

  return function build(start, count, stamp) {
    if (count === 0) return '[]';
    const end = start + count - 1;
    const w = String(start).length;
    if (start < LOW || String(end).length !== w || !Number.isSafeInteger(end) || w > 8 + LOW_DIGITS) return slowPath(start, count, stamp);
    const L = layout(w - LOW_DIGITS, stamp);
    if (!L) return slowPath(start, count, stamp);
    const { image, S, base, hEnd, h, words } = L;
    const len = base + count * S;
    let body = L.bodies.get(count);
    if (!body) {
      if (L.bodies.size >= 4) L.bodies.clear();
      body = { u8: new Uint8Array(len), u32: null };
      body.u8.fill(32);
      body.u8[0] = 91; // [
      body.u32 = new Uint32Array(body.u8.buffer, 0, Math.floor(len / 4));
      L.bodies.set(count, body);
    }
    const { u8, u32 } = body;
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
      u8.set(image.subarray(lo * S, (lo + run) * S), base + i * S);
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
    u8[len - 1] = 93; // ']' replaces the last document's ','
    return len === u8.length ? u8.buffer : u8.slice(0, len).buffer;
  };
}
