// What the benchmark scripts share (bench/run.mjs, bench/mongo.mjs, bench/memory.mjs): their
// knobs, the median (min–max) summary of repetitions and the CPU accounting from /proc. The median comes
// from the verdicts' statistics module (scripts/lib/stats.mjs, jstat); NaN when nothing is there.
import { median as medianOrNull } from '../scripts/lib/stats.mjs';
import { HZ, counterAt, procStat, toolKnob } from '../scripts/lib/kit.mjs';

export const median = (xs) => { const m = medianOrNull(xs); return m === null ? NaN : m; };

// median, min, max and n of the finite values.
export const spread = (xs) => {
  const v = xs.filter((x) => Number.isFinite(x));
  return v.length ? { med: median(v), min: Math.min(...v), max: Math.max(...v), n: v.length } : { med: NaN, min: NaN, max: NaN, n: 0 };
};

// The CPU counters from /proc and their interpolation are the tool kit's (scripts/lib/kit.mjs),
// under the names the benchmarks use.
export { HZ, counterAt as at, procStat as statOf };

// A knob of make bench (lib/knobs.js, scope tool:bench) read with the pack's parser: its value,
// or one line "<tool>: NAME=… is not allowed: …" and exit 107.
export const knob = (name, tool = 'bench') => toolKnob(tool, process.env, name);
