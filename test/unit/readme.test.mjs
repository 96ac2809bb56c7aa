import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { END, START, knobsTable } from '../../scripts/knobs-table.mjs';

test('README documents every knob exactly as lib/config.js defines it', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const a = readme.indexOf(START); const b = readme.indexOf(END);
  assert.ok(a >= 0 && b > a, 'README has the knobs markers');
  assert.equal(readme.slice(a + START.length, b).trim(), knobsTable().trim(),
    'README configuration table is stale: run `node scripts/knobs-table.mjs --write`');
});
