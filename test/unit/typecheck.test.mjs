// Editor support, checked: tsc (pinned in package.json) type-checks scenarios/ and lib/ with
// jsconfig.json against @types/k6 and the pack's globals in types/. The scenarios use k6's own
// modules only (k6/http, k6/metrics, k6/execution, k6/crypto, k6/encoding: the official k6 binary
// has no extension in it), so an import of an extension module k6/x/… must be reported too. The
// check must pass on the tree and must fail on code that misuses k6's API.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../helpers/testserver.mjs';

const tsc = path.join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');

test('scenarios and lib type-check against @types/k6 and types/*.d.ts (jsconfig.json)', { timeout: 120000 }, () => {
  const r = spawnSync(process.execPath, [tsc, '-p', 'jsconfig.json'], { cwd: repoRoot, encoding: 'utf8' });
  assert.equal(r.stdout + r.stderr, '', 'no type errors');
  assert.equal(r.status, 0);
});

test('types/ declares no k6 extension module (k6 is the official binary: no k6/x/…)', () => {
  assert.deepEqual(readdirSync(path.join(repoRoot, 'types')).filter((f) => /^k6-x-/.test(f)), []);
});

test('the check is real: misuse of k6/http, k6/metrics, k6/execution, k6/crypto, k6/encoding and an extension import are reported', { timeout: 120000 }, () => {
  // Inside the repository, so that 'k6/http' resolves to node_modules/@types/k6 as for lib/.
  const dir = mkdtempSync(path.join(repoRoot, 'test', '.tmp-tsc-'));
  const bad = path.join(dir, 'bad.js');
  writeFileSync(bad, [
    "import http from 'k6/http';",
    "import { Trend } from 'k6/metrics';",
    "import exec from 'k6/execution';",
    "import crypto from 'k6/crypto';",
    "import encoding from 'k6/encoding';",
    "import sql from 'k6/x/sql';",
    "http.post('http://x', '', { tags: 5 });",
    "new Trend('t', 'yes');",
    'exec.test.abort(5);',
    "crypto.sha256('x', 'hexadecimal');",
    "encoding.b64encode('x', 'url-safe');",
    '',
  ].join('\n'));
  const r = spawnSync(process.execPath, [tsc, '--noEmit', '--allowJs', '--checkJs', '--module', 'esnext', '--moduleResolution', 'bundler',
    '--target', 'es2022', '--types', 'k6', bad], { cwd: repoRoot, encoding: 'utf8' });
  rmSync(dir, { recursive: true, force: true });
  assert.notEqual(r.status, 0);
  const lines = r.stdout.split('\n').filter((l) => l.includes('error TS')).map((l) => l.replace(/^.*bad\.js\((\d+),\d+\): error (TS\d+).*$/, '$1 $2'));
  assert.deepEqual(lines, ['6 TS2307', '7 TS2322', '8 TS2345', '9 TS2345', '10 TS2345', '11 TS2345'], r.stdout);
});

// The target contract (types/targets.d.ts): every declaration and every adapter's createTarget
// is typed with it, so tsc reports an adapter that drops or mistypes a part of the contract.
test('every target declares its contract types (Declaration, and createTarget returning Target)', async () => {
  const { TARGETS } = await import('../../lib/targets/index.js');
  for (const { name } of TARGETS) {
    const dir = path.join(repoRoot, 'lib', 'targets', name);
    assert.match(readFileSync(path.join(dir, `${name}-knobs.js`), 'utf8'), /@type \{import\('\.\.\/\.\.\/\.\.\/types\/targets'\)\.Declaration\} \*\/\nexport const [A-Z]+ = \{/, name);
    assert.match(readFileSync(path.join(dir, `${name}.js`), 'utf8'), /@returns \{import\('\.\.\/\.\.\/\.\.\/types\/targets'\)\.Target\}\n \*\/\nexport function createTarget\(/, name);
  }
});

test('the contract is checked: a target missing batch, with a mistyped capability, a declared group flag, an incomplete group and a mistyped answer, is reported', { timeout: 120000 }, () => {
  const dir = mkdtempSync(path.join(repoRoot, 'test', '.tmp-tsc-'));
  const bad = path.join(dir, 'bad-target.js');
  const T = "import('../../types/targets')";
  writeFileSync(bad, [
    `/** @type {${T}.Declaration} */`,
    "export const D = { name: 'x', prefix: 'X_', knobs: {}, otherEnv: [], reasons: [], distributed: true, memory: { transport: 'http', formats: () => 1 },",
    "  capabilities: () => ({ batch: 'insert' }) };",
    `/** @returns {${T}.Target} */`,
    'export function createTarget() {',
    "  return { name: 'x', reasons: [], distributed: true, capabilities: { batch: [] }, bind() {}, setup() {}, teardown() {}, leftBehind: () => '',",
    '    batchBody() {}, count() {}, readStamps() {} };',
    '}',
    `/** @returns {${T}.Request} */`,
    "export const single = () => ({ n: 1, bytes: 2, send: () => ({ reason: 5 }) });",
    // A group's flag is derived from its functions (lib/capabilities.js withCapabilities), never declared.
    `/** @type {${T}.Declaration} */`,
    "export const E = { ...D, capabilities: () => ({ batch: [], increment: true }) };",
    `/** @type {${T}.Target['increments']} */`,
    'export const half = { increment: undefined, createCounters() {} };',
    '',
  ].join('\n'));
  const r = spawnSync(process.execPath, [tsc, '--noEmit', '--allowJs', '--checkJs', '--module', 'esnext', '--moduleResolution', 'bundler',
    '--target', 'es2022', '--types', 'k6', bad], { cwd: repoRoot, encoding: 'utf8' });
  rmSync(dir, { recursive: true, force: true });
  assert.notEqual(r.status, 0);
  const errors = r.stdout.split('\n').filter((l) => l.includes('error TS'));
  assert.ok(errors.some((l) => /bad-target\.js\(3,.*error TS2322/.test(l)), r.stdout); // batch: a string, not a list
  assert.ok(errors.some((l) => /bad-target\.js\(6,.*error TS2741.*'batch'/.test(l)), r.stdout); // batch missing
  assert.ok(errors.some((l) => /bad-target\.js\(10,.*error TS2322.*'number' is not assignable to type 'string'/.test(l)), r.stdout); // reason: a number
  assert.ok(errors.some((l) => /bad-target\.js\(12,.*error TS2322.*'true' is not assignable to type 'never'/.test(l)), r.stdout); // increment declared
  assert.ok(errors.some((l) => /bad-target\.js\(14,.*error TS2739.*readCounters, putLedger, readLedgers/.test(l)), r.stdout); // a group without its functions
});
