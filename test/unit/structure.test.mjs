// The shape the pack keeps (docs/design.md): no function in lib/ longer than ~120 lines, and
// the scenario glue short enough to read top to bottom. Lengths come from the TypeScript parser
// the typecheck already uses, so a function is what JavaScript says it is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const MAX_FUNCTION_LINES = 120;
const GLUE = 'lib/scenario.js';
const MAX_GLUE_LINES = 100;

function jsFiles(dir) {
  return readdirSync(path.join(root, dir)).flatMap((f) => {
    const rel = path.join(dir, f);
    if (statSync(path.join(root, rel)).isDirectory()) return jsFiles(rel);
    return f.endsWith('.js') ? [rel] : [];
  });
}

// Every function (declaration, expression, arrow, method) of a file: [lines, name, first line].
export function functionLengths(file, text) {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out = [];
  const visit = (n) => {
    if (ts.isFunctionDeclaration(n) || ts.isFunctionExpression(n) || ts.isArrowFunction(n) || ts.isMethodDeclaration(n)) {
      const first = sf.getLineAndCharacterOfPosition(n.getStart()).line;
      const last = sf.getLineAndCharacterOfPosition(n.end).line;
      const name = (n.name && n.name.getText()) || (n.parent && n.parent.name && n.parent.name.getText()) || '(anonymous)';
      out.push([last - first + 1, name, first + 1]);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

test('the measure counts a function\'s lines, nested ones too', () => {
  const text = 'function a() {\n  const b = () => {\n    return 1;\n  };\n  return b;\n}\n';
  assert.deepEqual(functionLengths('x.js', text).map(([n, name]) => [n, name]), [[6, 'a'], [3, 'b']]);
});

test(`no function in lib/ is longer than ${MAX_FUNCTION_LINES} lines`, () => {
  const long = jsFiles('lib').flatMap((f) => functionLengths(f, readFileSync(path.join(root, f), 'utf8'))
    .filter(([n]) => n > MAX_FUNCTION_LINES).map(([n, name, line]) => `${f}:${line} ${name} (${n} lines)`));
  assert.deepEqual(long, []);
});

test(`the scenario glue (${GLUE}) reads top to bottom in under ${MAX_GLUE_LINES} lines`, () => {
  const lines = readFileSync(path.join(root, GLUE), 'utf8').split('\n').filter((l, i, a) => i < a.length - 1 || l !== '').length;
  assert.ok(lines < MAX_GLUE_LINES, `${GLUE} has ${lines} lines`);
});
