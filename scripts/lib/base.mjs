// The two pieces of the tool kit (scripts/lib/kit.mjs) that the gateway launcher
// (scripts/lib/gateway.mjs) needs too, here so that neither imports the other in a cycle:
// the repository root and a process's /proc/<pid>/stat. Callers import them from kit.mjs.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

// Clock ticks per second of /proc/<pid>/stat's CPU fields.
export const HZ = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());

// A process from /proc/<pid>/stat: its state letter, parent, CPU ticks of its own (utime +
// stime, threads included) and of its reaped children (cutime + cstime); null when it is gone.
export function procStat(pid) {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return { state: f[0], ppid: Number(f[1]), own: Number(f[11]) + Number(f[12]), children: Number(f[13]) + Number(f[14]) };
  } catch { return null; }
}
