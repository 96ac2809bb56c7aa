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
