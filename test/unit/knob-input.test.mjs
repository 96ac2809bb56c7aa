// Hostile knob values and local files a run reads before anything is written: blank list
// items, a 100 KB value, control characters, a blank RUN_SECRET, a threshold file that limits
// nothing — each refused in one line that is safe to print; and .run/run-secret as a link, a
// file others can read, an empty or blank file, a directory — never trusted, remade with one line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../lib/config.js';
import { parseThresholds } from '../../lib/thresholds.js';
import { repoRoot } from '../helpers/testserver.mjs';

const base = { target: 'postgres', experiment: 'insert-vs-overwrite', phases: ['load', 'overwrite', 'mixed'] };
const PG_URL = 'postgres://u:p@h/db';
function errorOf(fn) {
  try { fn(); } catch (e) { return String(e); }
  return null;
}

test('a blank item in a list knob is refused, not dropped silently', () => {
  assert.match(errorOf(() => loadConfig({ PG_URL, PHASES: 'load, ,mixed' }, base)), /^k6-writepath: PHASES="load, ,mixed" is not allowed: .*without blank items \(item 2 is blank\)$/);
  assert.match(errorOf(() => loadConfig({ PG_URL, PHASES: 'load,,mixed' }, base)), /PHASES="load,,mixed" is not allowed/);
  assert.deepEqual(loadConfig({ PG_URL, PHASES: 'load, mixed' }, base).PHASES, ['load', 'mixed']);
  const contention = { target: 'postgres', experiment: 'contention', phases: ['contention'] };
  const err = errorOf(() => loadConfig({ PG_URL, HOT_KEYS: '1,,10' }, contention));
  assert.match(err, /HOT_KEYS="1,,10" is not allowed: .*item 2 is blank/);
});

test('a 100 KB knob value is not echoed whole, control characters never reach the terminal raw', () => {
  const long = 'x'.repeat(100000);
  const err = errorOf(() => loadConfig({ PG_URL, DOCS: long }, base));
  assert.ok(err.length < 400, `one short line, not ${err.length} characters`);
  assert.match(err, /DOCS="x{80}…" \(100000 characters\) is not allowed/);
  const ctl = errorOf(() => loadConfig({ PG_URL, DOCS: '5\u001b[2J\u0007\u009b31m' }, base));
  assert.doesNotMatch(ctl, /[\u0000-\u001f\u007f-\u009f]/, 'no raw control character');
  assert.match(ctl, /DOCS="5\\u001b\[2J\\u0007\\u009b31m" is not allowed/);
});

test('RUN_SECRET of sixteen spaces (or with a control character) is refused without showing it', () => {
  const err = errorOf(() => loadConfig({ PG_URL, RUN_SECRET: ' '.repeat(16) }, base));
  assert.match(err, /RUN_SECRET \(value not shown\) is not allowed: at least 16 characters without spaces or control characters/);
  assert.match(errorOf(() => loadConfig({ PG_URL, RUN_SECRET: 'abcdefgh\u0000ijklmnop' }, base)), /RUN_SECRET \(value not shown\)/);
});

test('a threshold file that limits nothing ("phases": {}) is refused: a gate that cannot fail', () => {
  const opts = { path: 't.json', phases: ['load', 'overwrite'] };
  assert.throws(() => parseThresholds('{"phases":{}}', opts), /THRESHOLDS=t\.json: no limit in it \("phases" is \{\}\)/);
  assert.throws(() => parseThresholds('{"phases":{"load":{}}}', opts), /no limit in it \("phases" holds no limit\)/);
  assert.throws(() => parseThresholds('{"phases":{"load":{"abort_on_fail":true}}}', opts), /no limit in it/);
  assert.ok(parseThresholds('{"phases":{"load":{"batch_p99_ms":100}}}', opts));
  assert.ok(parseThresholds('{"phases":{},"stages":{"1":{"batch_p99_ms":100}}}', opts), 'a stage limit is a limit');
});

// wp_run_secret of a copy of scripts/common.sh (and the rules it sources) whose .run/ this test owns.
function secretOf(prepare) {
  const w = mkdtempSync(path.join(tmpdir(), 'k6wp-secret-'));
  mkdirSync(path.join(w, 'scripts', 'lib'), { recursive: true }); mkdirSync(path.join(w, '.run'), { mode: 0o700 });
  // common.sh sources the rules generated beside it (scripts/lib/rules.sh)
  for (const f of ['common.sh', 'lib/rules.sh']) cpSync(path.join(repoRoot, 'scripts', f), path.join(w, 'scripts', f));
  const f = path.join(w, '.run', 'run-secret');
  prepare(f, w);
  const env = { ...process.env }; delete env.RUN_SECRET;
  const r = spawnSync('bash', ['-c', `. "${w}/scripts/common.sh"; wp_run_secret; printf '%s' "\${RUN_SECRET:-}"`], { encoding: 'utf8', env });
  return { secret: r.stdout, err: r.stderr, code: r.status, file: f, w };
}
const HEX = /^[0-9a-f]{32}$/;

test('.run/run-secret: a symbolic link, mode 644, empty, blank, a directory — never used; moved aside and made anew with one line', () => {
  const cases = [
    ['a symbolic link to a world-readable file', (f, w) => { writeFileSync(path.join(w, 'shared'), 'a'.repeat(32), { mode: 0o644 }); symlinkSync(path.join(w, 'shared'), f); }, /is a symbolic link/],
    ['mode 644', (f) => { writeFileSync(f, 'b'.repeat(32)); chmodSync(f, 0o644); }, /readable or writable by other users \(mode 644\)/],
    ['empty', (f) => writeFileSync(f, '', { mode: 0o600 }), /does not hold 32 hex digits/],
    ['sixteen spaces', (f) => writeFileSync(f, ' '.repeat(16), { mode: 0o600 }), /does not hold 32 hex digits/],
    ['a directory', (f) => mkdirSync(f), /is not a regular file/],
  ];
  for (const [name, prepare, why] of cases) {
    const r = secretOf(prepare);
    assert.equal(r.code, 0, name);
    assert.match(r.secret, HEX, `${name}: a new secret`);
    assert.notEqual(r.secret, 'a'.repeat(32)); assert.notEqual(r.secret, 'b'.repeat(32));
    const lines = r.err.trim().split('\n');
    assert.equal(lines.length, 1, `${name}: one line: ${r.err}`);
    assert.match(lines[0], why, name);
    assert.doesNotMatch(r.err, /cat: |Is a directory/);
    const st = lstatSync(r.file);
    assert.ok(st.isFile() && !st.isSymbolicLink(), `${name}: a regular file now`);
    assert.equal(st.mode & 0o777, 0o600, `${name}: mode 600`);
    assert.equal(readFileSync(r.file, 'utf8'), r.secret);
  }
  // A good file is used as it is, silently.
  const good = secretOf((f) => writeFileSync(f, 'c'.repeat(32), { mode: 0o600 }));
  assert.equal(good.secret, 'c'.repeat(32));
  assert.equal(good.err, '');
  // None yet: made, silently.
  const fresh = secretOf(() => {});
  assert.match(fresh.secret, HEX);
  assert.equal(fresh.err, '');
  assert.ok(existsSync(fresh.file));
});
