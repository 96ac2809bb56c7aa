// README's sample output is what `make demo` prints (issue 25: the sample had another threshold
// count, and k6's banner and progress bar followed the table). The demo's recipe runs the
// wrapper with --quiet; this runs the same command and holds every line of the sample, numbers
// and ids aside, to the real output, in order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { localEnv } from '../helpers/k6.mjs';
import { repoRoot } from '../helpers/testserver.mjs';

// Numbers, run ids, timestamps and column padding differ from run to run; the rest may not.
const shape = (l) => l.replace(/\d{14}_[0-9a-f]{4}/g, '<run>').replace(/results: \S+\/<run>\//, 'results: <dir>/<run>/')
  .replace(/\d+(\.\d+)?/g, '#').replace(/[ \t]+/g, ' ').trim();

test('README\'s sample output is the shape of a real `make demo`, line by line, the table last', { timeout: 180000 }, () => {
  const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
  const from = readme.indexOf('```\n', readme.indexOf('`make demo` prints')) + 4;
  const sample = readme.slice(from, readme.indexOf('```', from)).trimEnd().split('\n');
  // (the recipe runs scripts/run through scripts/lib/make-exit.sh, which only adds a line on failure)
  const recipe = /^demo:.*\n\t@(?:scripts\/lib\/make-exit\.sh demo )?(scripts\/run .*)$/m.exec(readFileSync(path.join(repoRoot, 'Makefile'), 'utf8'))[1];
  const args = recipe.replace(/\$\(K6_ARGS\)/, '').trim().split(/\s+/);
  const r = spawnSync(path.join(repoRoot, args[0]), args.slice(1), {
    cwd: repoRoot, encoding: 'utf8',
    env: { ...process.env, ...localEnv(), RESULTS_DIR: mkdtempSync(path.join(tmpdir(), 'k6wp-demo-')), K6_NO_USAGE_REPORT: 'true' },
  });
  assert.equal(r.status, 0, r.stderr);
  // make up's line comes first in the sample; the rest is the wrapper's (stderr, then stdout).
  assert.match(sample[0], /^services: left running until `make down`: /);
  const real = [...r.stderr.split('\n'), ...r.stdout.split('\n')].filter((l) => l.trim() !== '');
  assert.deepEqual(real.map(shape), sample.slice(1).filter((l) => l.trim() !== '').map(shape));
});
