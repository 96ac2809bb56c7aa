import { createDocs } from '../lib/docs.js';
import { asciiBuffer } from '../lib/bytes.js';
export const options = { vus: 1, iterations: 1 };
const cfg = { DOC_SHAPE: 'e1', DOC_POOL: 1024, DOC_BYTES: 1200, SEED: 1, COMPLEXITY: 10 };
const d = createDocs(cfg, { keyField: '_key', toBytes: asciiBuffer });
d.prepare({ count: 1000, maxKey: Number(__ENV.MAXKEY), stamps: ['l'] });
const keys = []; for (let i = 0; i < 1000; i++) keys.push((i * 7919 * 13) % 2000000);
const N = Number(__ENV.N || 0);
export default function () {
  if (__ENV.MODE === 'keys') for (let j = 0; j < N; j++) d.keysBody(keys, `o${j}`);
  if (__ENV.MODE === 'range') for (let j = 0; j < N; j++) d.rangeBody(5000 + 1000 * j, 1000, 'l');
}
