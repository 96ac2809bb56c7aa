import { loadConfig } from '../lib/config.js'; const c = loadConfig(__ENV, { target: 'postgres', experiment: 'insert-vs-overwrite', phases: ['load','overwrite','mixed'] });
export const options = { scenarios: { x: { executor: 'per-vu-iterations', vus: Number(__ENV.NVU), iterations: 1 } } };
export default function () {}
