// What the benchmark scripts share (bench/run.mjs, bench/mongo.mjs, bench/memory.mjs): the
// median (min–max) summary of repetitions and the CPU accounting from /proc. The median comes
// from the verdicts' statistics module (scripts/lib/stats.mjs, jstat); NaN when nothing is there.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { median as medianOrNull } from '../scripts/lib/stats.mjs';

export const median = (xs) => { const m = medianOrNull(xs); return m === null ? NaN : m; };

// median, min, max and n of the finite values.
export const spread = (xs) => {
  const v = xs.filter((x) => Number.isFinite(x));
  return v.length ? { med: median(v), min: Math.min(...v), max: Math.max(...v), n: v.length } : { med: NaN, min: NaN, max: NaN, n: 0 };
};

// Clock ticks per second of /proc/<pid>/stat's CPU fields.
export const HZ = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());

// CPU ticks of a process from /proc/<pid>/stat: its own (utime + stime, threads included) and
// its reaped children's (cutime + cstime); null when it is gone.
export function statOf(pid) {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(f[1]), own: Number(f[11]) + Number(f[12]), children: Number(f[13]) + Number(f[14]) };
  } catch { return null; }
}

// Linear interpolation of samples [{t, …}] (sampled CPU counters) at epoch ms t.
export function at(samples, t, field) {
  let i = samples.findIndex((s) => s.t >= t);
  if (i < 0) i = samples.length - 1;
  if (i === 0) return samples[0][field];
  const a = samples[i - 1]; const b = samples[i];
  return b.t === a.t ? b[field] : a[field] + (b[field] - a[field]) * Math.min(1, Math.max(0, (t - a.t) / (b.t - a.t)));
}
