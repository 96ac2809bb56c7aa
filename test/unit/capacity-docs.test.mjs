// Every capacity search command the documentation gives (README.md, docs/capacity.md,
// mk/capacity.mk) runs as written: its knobs pass the search's own validation
// (scripts/capacity.mjs plan, the same settings() a search starts with) instead of stopping
// with exit 107 before the first step — as `make capacity` itself once did.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../helpers/testserver.mjs';

// Shell-like words: double-quoted parts stay within one word (K6_ARGS="-e A=1 -e B=2"), quotes removed.
const words = (text) => [...text.matchAll(/(?:"[^"]*"|[^\s"])+/g)].map((m) => m[0].replace(/"/g, ''));

// Commands in a file: [env assignments] make capacity … | scripts/capacity.mjs …, up to a
// comment, a closing backtick or the end of the line.
function documented(file) {
  const out = [];
  for (const line of readFileSync(path.join(repoRoot, file), 'utf8').split('\n')) {
    const m = /((?:[A-Z_]+=\S+\s+)*)(make capacity(?!-)|scripts\/capacity\.mjs)([^#`\n]*)/.exec(line);
    if (!m) continue;
    const env = Object.fromEntries(words(m[1]).map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]));
    let args = words(m[3]);
    if (m[2] === 'make capacity') {
      const k6Args = args.find((w) => w.startsWith('K6_ARGS='));
      for (const w of args.filter((x) => /^[A-Z_]+=/.test(x) && !x.startsWith('K6_ARGS='))) env[w.slice(0, w.indexOf('='))] = w.slice(w.indexOf('=') + 1);
      args = k6Args ? words(k6Args.slice('K6_ARGS='.length)) : [];
    } else if (['knee', 'compare', 'chart'].includes(args[0])) {
      continue; // reading recorded searches, not starting one
    } else if (args[0] === 'plan' || args[0] === 'run') {
      args = args.slice(1);
    }
    out.push({ file, text: `${m[1]}${m[2]}${m[3]}`.trim(), env, args });
  }
  return out;
}

test('every documented capacity command passes the search\'s validation (no exit 107 before the first step)', () => {
  const cmds = ['README.md', 'docs/capacity.md', 'mk/capacity.mk'].flatMap(documented);
  // The README names the other targets in prose: `CAPACITY_TARGET=arangodb|ravendb`.
  cmds.push(...['arangodb', 'ravendb'].map((t) => ({ file: 'README.md', text: `make capacity CAPACITY_TARGET=${t}`, env: { CAPACITY_TARGET: t }, args: [] })));
  assert.ok(cmds.filter((c) => c.file === 'docs/capacity.md').length >= 3, JSON.stringify(cmds));
  assert.ok(cmds.some((c) => c.text === 'make capacity'), 'make capacity itself');
  const base = { ...process.env, PG_URL: 'postgres://u:p@127.0.0.1:1/x' };
  for (const k of Object.keys(base)) if (/^(CAPACITY_|DOCS$|BATCH_SIZE$|THRESHOLDS$)/.test(k)) delete base[k];
  for (const c of cmds) {
    const r = spawnSync(process.execPath, [path.join(repoRoot, 'scripts', 'capacity.mjs'), 'plan', ...c.args], { cwd: repoRoot, encoding: 'utf8', env: { ...base, ...c.env } });
    assert.equal(r.status, 0, `${c.file}: ${c.text}\n${r.stderr}`);
    const plan = JSON.parse(r.stdout);
    // An upsert search pre-loads at least what its top step overwrites.
    if (plan.phase === 'overwrite') {
      const ms = (d) => Number(/^(\d+)s$/.exec(d)[1]) * 1000;
      assert.ok(plan.docs >= (Math.ceil(plan.ladder.max * (ms(plan.ladder.warmup) + ms(plan.ladder.hold)) / 1000) + 4) * plan.batch_size, c.text);
    }
  }
});
