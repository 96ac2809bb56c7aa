import { createDocs } from '../lib/docs.js';
import { asciiBuffer } from '../lib/bytes.js';
export const options = { vus: 1, iterations: 1 };
const cfg = { DOC_SHAPE: 'e1', DOC_POOL: 1024, DOC_BYTES: 1200, SEED: 1, COMPLEXITY: 10 };
const d = createDocs(cfg, { keyField: '_key', toBytes: asciiBuffer });
d.prepare({ count: 1000, maxKey: 2000000 });
const keys = []; for (let i = 0; i < 1000; i++) keys.push((i * 7919 * 13) % 2000000);
export default function () {
  let t = Date.now(); for (let j = 0; j < 200; j++) d.keysBody(keys, `o${j}`); const a = (Date.now() - t) / 200;
  const r = Object.assign(keys.map((_, i) => 5000 + i), { consecutive: true });
  t = Date.now(); for (let j = 0; j < 200; j++) d.body({ consecutive: true, start: 5000 + 1000 * j, length: 1000 }, 'l'); const b = (Date.now() - t) / 200;
  console.log(JSON.stringify({ keys_ms: a, range_ms: b }));
}
