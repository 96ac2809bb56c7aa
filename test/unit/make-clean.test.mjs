// `make clean` removes bin/ and every run folder of results/ — timestamped runs, runs with a
// RUN_ID of the user's choice, comparisons (cmp_…), results/latest — and keeps results/README.md.
// Run on a scratch directory with the repository's Makefile, so the checkout is not touched.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot } from '../helpers/testserver.mjs';

test('make clean removes bin/ and all run folders, keeps results/README.md', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-clean-'));
  mkdirSync(path.join(dir, 'bin')); writeFileSync(path.join(dir, 'bin', 'k6'), '');
  for (const run of ['20261122020317_dcf0', 'myrun', 'cmp_20261122_ab12', 'cmp_20261122_ab12_a']) {
    mkdirSync(path.join(dir, 'results', run), { recursive: true });
    writeFileSync(path.join(dir, 'results', run, 'summary.json'), '{}');
  }
  writeFileSync(path.join(dir, 'results', 'README.md'), 'kept');
  writeFileSync(path.join(dir, 'results', 'old-summary.json'), '{}'); // a bare `k6 run` writes flat files
  symlinkSync('myrun', path.join(dir, 'results', 'latest'));
  const r = spawnSync('make', ['-s', '-f', path.join(repoRoot, 'Makefile'), 'clean'], { cwd: dir, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(readdirSync(path.join(dir, 'results')), ['README.md']);
  assert.equal(existsSync(path.join(dir, 'bin')), false);
});
