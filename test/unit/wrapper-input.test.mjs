// What the bash wrappers echo of a hostile value, and plans that outlast MAX_DURATION:
// scripts/common.sh wp_shown shows a value exactly as lib/parse.js shown() does (quoted, control
// characters escaped, cut after 80 characters); a -e name k6 itself refuses (k6 exits 255) gets
// the unknown-knob line and 107 from the wrappers; a run whose stages (or HOT_KEYS × stages)
// last longer than MAX_DURATION is refused in one line before anything runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { loadConfig } from '../../lib/config.js';
import { shown } from '../../lib/parse.js';
import { loadModel } from '../../lib/load-model.js';
import { repoRoot } from '../helpers/testserver.mjs';

const common = path.join(repoRoot, 'scripts', 'common.sh');
const bash = (script, args = []) => spawnSync('bash', ['-c', `. '${common}'; ${script}`, 'bash', ...args], { encoding: 'utf8' });
function errorOf(fn) {
  try { fn(); } catch (e) { return String(e); }
  return null;
}

test('wp_shown (bash) shows a value as shown() (JS) does: escapes, quotes, the 80-character cut', () => {
  const values = ['abc', 'k6wp_1', '\u001b[31mred\u001b[0m', 'a\nb\tc\r', 'q"b\\s', '\u007f', 'c1\u009bend', 'DÖCS', 'ÿ€😀', '\u0007bell\b\f', 'é'.repeat(100), 'x'.repeat(100000)];
  for (const v of values) {
    const r = bash('wp_shown "$1"', [v]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, shown(v), `value ${JSON.stringify(v.slice(0, 20))}`);
    assert.doesNotMatch(r.stdout, /[\u0000-\u001f\u007f-\u009f]/);
  }
});

test('a -e name k6 refuses (non-ASCII, control characters) is the unknown-knob line, with the ASCII knob it resembles', () => {
  assert.equal(bash('wp_cli_bad_name "$@"', ['-e', 'DÖCS=5']).stdout,
    '"DÖCS" is not a knob of k6-writepath (a name of ASCII letters, digits and _ is needed: k6 refuses any other, IGNORE_ENV cannot pass it): did you mean DOCS? (knobs: docs/configuration.md)\n');
  // k6's other spellings of -e are read too; the value (maybe a secret) is never shown
  const r = bash('wp_cli_bad_name "$@"', ['-qe', 'X\u001b[2J=secret']);
  assert.match(r.stdout, /^"X\\u001b\[2J" is not a knob of k6-writepath \(a name of ASCII/);
  assert.doesNotMatch(r.stdout, /secret|\u001b/);
  assert.equal(bash('wp_cli_bad_name "$@"', ['-e', 'DOCS=5', '--env=IGNORE_ENV=X', '-e', 'my_var=1']).stdout, '');
});

test('a run planned beyond MAX_DURATION is refused in one line: STAGES, and HOT_KEYS repeating the stages', () => {
  const cfg = (env, experiment = 'insert-vs-overwrite', phases = ['load', 'overwrite', 'mixed']) => loadConfig({ PG_URL: 'postgres://u:p@h/db', ...env }, { target: 'postgres', experiment, phases });
  assert.equal(errorOf(() => loadModel(cfg({ STAGES: '20m:1,15m:2' }))),
    'k6-writepath: STAGES="20m:1,15m:2" is not allowed with MAX_DURATION=30m: the run is planned to last 35m, longer than MAX_DURATION; raise MAX_DURATION (up to 720h) or plan a shorter run');
  assert.equal(loadModel(cfg({ STAGES: '20m:1,15m:2', MAX_DURATION: '35m' })).ends.at(-1), 2100000);
  // the contention workload imports k6 modules: its plan is checked by k6 itself, as the
  // wrappers do before a run (scripts/k6-preflight: k6 inspect)
  const hot = Array.from({ length: 1000 }, (_, i) => i + 1).join(',');
  const preflight = (...e) => spawnSync(path.join(repoRoot, 'scripts', 'k6-preflight'), ['scenarios/postgres/contention.js', ...e.flatMap((x) => ['-e', x])],
    { cwd: repoRoot, encoding: 'utf8', env: { ...process.env, PG_URL: 'postgres://u:p@h/db' } });
  const r = preflight(`HOT_KEYS=${hot}`);
  assert.equal(r.status, 107, r.stderr);
  const lines = r.stderr.split('\n').filter((l) => /level=error/.test(l));
  assert.equal(lines.length, 1, r.stderr);
  const err = /msg="(.*)\\n" hint/.exec(lines[0])[1].replace(/\\"/g, '"');
  assert.match(err, /^k6-writepath: HOT_KEYS="1,2,3,[0-9,]*…" \(3892 characters\) \(1001 sets, each STAGES=10s:1,10s:8,10s:32\) is not allowed with MAX_DURATION=30m: the run is planned to last 8h20m, longer than MAX_DURATION; raise MAX_DURATION \(up to 720h\) or plan a shorter run$/);
  assert.ok(err.length < 400);
  assert.equal(preflight('HOT_KEYS=1,10', 'STAGES=10s:1').status, 0);
  assert.equal(preflight(`HOT_KEYS=${hot}`, 'MAX_DURATION=9h').status, 0);
});
