// The make targets: `make help` short enough to read (issue 39: 44 targets), the rest grouped
// behind a few (experiment NAME=…, bench WHAT=…, compose DO=…, k8s DO=…; test/unit/readme.test.mjs
// holds the docs' make commands to the targets), and a recipe that runs a scenario saying the run's own exit
// code in one line, since GNU make exits 2 whatever the recipe's code was.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../helpers/testserver.mjs';

const make = (args, env = {}) => spawnSync('make', ['--no-print-directory', '-C', repoRoot, ...args], { encoding: 'utf8', env: { ...process.env, ...env } });

test('make help lists at most 25 targets, each with what it does', () => {
  const r = make(['help']);
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trimEnd().split('\n');
  assert.ok(lines.length <= 25, `make help lists ${lines.length} targets:\n${r.stdout}`);
  for (const l of lines) assert.match(l, /^ {2}make [a-z][a-z0-9-]* +\S/, l);
  const names = lines.map((l) => l.trim().split(/\s+/)[1]);
  for (const t of ['all', 'up', 'down', 'demo', 'test', 'deps', 'bench', 'capacity', 'experiment', 'compose', 'k8s']) assert.ok(names.includes(t), `${t} is listed`);
});

test('a grouped target refuses a name it does not have: one line naming the knob and what is allowed', () => {
  for (const [args, re] of [
    [['experiment', 'NAME=e3'], /^make experiment: NAME=e3 is not allowed: one of e2 ram ram-e1$/m],
    [['bench', 'WHAT=cpu'], /^make bench: WHAT=cpu is not allowed: one of gateway memory gate, or unset for all$/m],
    [['compose', 'DO=start'], /^make compose: DO=start is not allowed: one of up run down config env$/m],
    [['k8s', 'DO=apply'], /^make k8s: DO=apply is not allowed: one of manifests archives image$/m],
  ]) {
    const r = make(args);
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, re);
  }
});

test('a recipe that runs a scenario says the run\'s own exit code and its meaning; make itself exits 2', () => {
  // E2's driver refuses a bad knob with 107 before anything starts (bin/k6 and the gateway are
  // taken as built: -o, nothing is made).
  const r = make(['-o', 'bin/k6', '-o', 'bin/wp-gateway', 'experiment', 'NAME=e2'], { E2_REPS: '0' });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /^experiment-e2: E2_REPS="0" is not allowed: a whole number from 1 to 20/m);
  assert.match(r.stderr, /^make experiment-e2: exit code 107: bad input: refused before anything was written \(make itself exits 2; run the command without make for the code itself\)$/m);
  // The one home of the meanings, for every code a run ends with.
  for (const [code, re] of [[99, /exit code 99: a limit or the verification failed/], [108, /exit code 108: aborted: /], [1, /exit code 1: failed \(the lines above say why\)/], [0, null]]) {
    const s = spawnSync(path.join(repoRoot, 'scripts/lib/make-exit.sh'), ['demo', 'bash', '-c', `exit ${code}`], { encoding: 'utf8' });
    assert.equal(s.status, code);
    if (re) assert.match(s.stderr, new RegExp(`^make demo: ${re.source}`)); else assert.equal(s.stderr, '');
  }
  // Every recipe that runs a scenario goes through it.
  const recipes = ['Makefile', ...readdirSync(path.join(repoRoot, 'mk')).map((f) => `mk/${f}`)].map((f) => readFileSync(path.join(repoRoot, f), 'utf8')).join('\n');
  for (const cmd of ['scripts/run scenarios/', 'scripts/capacity.mjs', 'scripts/capacity-demo', 'scripts/compare ', 'experiments/e2/driver.mjs', 'experiments/ram/driver.mjs']) {
    const uses = recipes.split('\n').filter((l) => !/^\s*#/.test(l) && l.includes(cmd));
    assert.ok(uses.length > 0, cmd);
    for (const l of uses) assert.match(l, /scripts\/lib\/make-exit\.sh [a-z0-9-]+ /, l);
  }
});
