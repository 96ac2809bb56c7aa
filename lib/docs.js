// Document generators. Payloads are generated once per VU, outside the timed path, into a
// pool of pre-serialized JSON fragments; a document is its key, a stamp naming the batch
// that wrote it, and one pool fragment. A batch body is built with one Array.join, never
// with string += (quadratic in k6's runtime; see shared/reference/measurements.md).
//
// Shapes:
//  e1            {"key":"K7","w":"l","Hallo":…,"f0":…,…,"f8":…,"s":"<r><r+d><r+2d>…"}: E1's
//                number-string payload that defeats compression, sized by DOC_BYTES; f0…f8
//                are small integers for the secondary indexes of PG_INDEXES / ArangoDB indexes.
//  complexity    COMPLEXITY attributes "test1".."testN":"some test value" (arangobench).
//  random-shapes COMPLEXITY attributes whose names contain the key, so no two documents
//                share a shape (arangob's random-shapes); values true, null or a string.
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

  // One JSON array of the documents for key numbers nums.
  function batch(nums, stamp) {
    const parts = new Array(nums.length);
    for (let i = 0; i < nums.length; i++) parts[i] = doc(nums[i], stamp);
    return `[${parts.join(',')}]`;
  }

  return { doc, batch, shape };
}

// Stamps say which batch wrote a document: "l" = load, "o17" = overwrite batch 17,
// "m3" = mixed batch 3. Teardown's read-back compares them with the batches that chose
// the key, so an overwrite that did not happen (or happened twice) is seen.
export function stampFor(phase, j) {
  return phase === 'load' ? 'l' : `${phase[0]}${j}`;
}
