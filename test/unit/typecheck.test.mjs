// Editor support, checked: tsc (pinned in package.json) type-checks scenarios/ and lib/ with
// jsconfig.json against @types/k6 and the extension declarations in types/. The check must pass
// on the tree and must fail on code that misuses k6's API or the xk6-sql module.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../helpers/testserver.mjs';

const tsc = path.join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');

test('scenarios and lib type-check against @types/k6 and types/*.d.ts (jsconfig.json)', { timeout: 120000 }, () => {
  const r = spawnSync(process.execPath, [tsc, '-p', 'jsconfig.json'], { cwd: repoRoot, encoding: 'utf8' });
  assert.equal(r.stdout + r.stderr, '', 'no type errors');
  assert.equal(r.status, 0);
});

test('the check is real: misuse of k6/http, k6/x/sql and its driver is reported', { timeout: 120000 }, () => {
  // Inside the repository, so that 'k6/http' resolves to node_modules/@types/k6 as for lib/.
  const dir = mkdtempSync(path.join(repoRoot, 'test', '.tmp-tsc-'));
  const bad = path.join(dir, 'bad.js');
  writeFileSync(bad, [
    "import http from 'k6/http';",
    "import sql from 'k6/x/sql';",
    "import driver from 'k6/x/sql/driver/postgres';",
    "http.post('http://x', '', { tags: 5 });",
    "const db = sql.open(driver, 'postgres://x', { max_open_conns: '1' });",
    "db.queryWithTimeout(5, 'SELECT 1');",
    "sql.open('postgres', 'postgres://x');",
    '',
  ].join('\n'));
  const r = spawnSync(process.execPath, [tsc, '--noEmit', '--allowJs', '--checkJs', '--module', 'esnext', '--moduleResolution', 'bundler',
    '--target', 'es2022', '--types', 'k6', bad, path.join(repoRoot, 'types', 'k6-x-sql.d.ts')], { cwd: repoRoot, encoding: 'utf8' });
  rmSync(dir, { recursive: true, force: true });
  assert.notEqual(r.status, 0);
  const lines = r.stdout.split('\n').filter((l) => l.includes('error TS')).map((l) => l.replace(/^.*bad\.js\((\d+),\d+\): error (TS\d+).*$/, '$1 $2'));
  assert.deepEqual(lines, ['4 TS2322', '5 TS2322', '6 TS2345', '7 TS2345'], r.stdout);
});
