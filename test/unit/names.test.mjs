// Names that say one thing (docs/design.md, "Words"): the batch runner is `runner` wherever a
// workload meets it, the glue of a scenario file is scenario() of lib/scenario.js, and the
// reading path docs/design.md gives ("From README to the wire") names files that exist, in the
// order the code calls them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../../scripts/lib/kit.mjs';

const read = (f) => readFileSync(path.join(repoRoot, f), 'utf8');
const filesIn = (dir) => readdirSync(path.join(repoRoot, dir), { recursive: true }).filter((f) => String(f).endsWith('.js')).map((f) => path.join(dir, String(f)));

test('a workload calls the batch runner runner, never db (the SQL handle\'s name)', () => {
  const workloads = filesIn('lib/workloads');
  assert.ok(workloads.length >= 5, workloads.join(' '));
  for (const f of workloads) {
    // `<db>` in a path of a comment is a folder's placeholder, not a name.
    const uses = read(f).split('\n').map((line, i) => [i + 1, line]).filter(([, line]) => /(?<![<\w/.])db(?![>\w])/.test(line));
    assert.deepEqual(uses, [], `${f} names something db`);
    // Every iteration and prepare takes the runner first.
    for (const [, fn, first] of read(f).matchAll(/export function (iteration|prepare)\((\w+)/g)) assert.equal(first, 'runner', `${f}: ${fn}(${first}, …)`);
  }
});

test('every scenario file takes its exports from scenario() of lib/scenario.js, and "experiment" names no glue', () => {
  assert.equal(existsSync(path.join(repoRoot, 'lib/experiment.js')), false);
  const scenarios = filesIn('scenarios');
  assert.ok(scenarios.length >= 11, scenarios.join(' '));
  for (const f of scenarios) {
    const text = read(f);
    assert.match(text, /^import \{ scenario \} from '\.\.\/\.\.\/lib\/scenario\.js';$/m, f);
    assert.match(text, /^const s = scenario\(workload, target, __ENV[,)]/m, f);
    assert.doesNotMatch(text, /\bexperiment\(/, f);
  }
  assert.match(read('lib/scenario.js'), /^export function scenario\(workload, \{ createTarget, declaration \}, env/m);
});

test('the reading path of docs/design.md names files that exist, from README to lib/gateway.js, each named by an earlier one', () => {
  const design = read('docs/design.md');
  const at = design.indexOf('## From README to the wire');
  assert.ok(at >= 0, 'docs/design.md has the section');
  const section = design.slice(at, design.indexOf('\n## ', at + 1));
  const steps = [...section.matchAll(/^\d+\. `([^`]+)`/gm)].map((m) => m[1]);
  assert.deepEqual(steps, ['README.md', 'scenarios/postgres/insert-vs-overwrite.js', 'lib/scenario.js', 'lib/workloads/insert-vs-overwrite.js',
    'lib/targets/outcome.js', 'lib/targets/postgres/postgres.js', 'lib/gateway.js']);
  for (const f of steps) assert.ok(existsSync(path.join(repoRoot, f)), f);
  // Each step is named by one before it: README the scenario, the scenario its three modules,
  // lib/scenario.js the runner, the adapter its gateway client.
  assert.match(read(steps[0]), /scenarios\/postgres\/insert-vs-overwrite\.js/);
  const imports = (f) => [...read(f).matchAll(/from '(\.[^']+)'/g)].map((m) => path.normalize(path.join(path.dirname(f), m[1])));
  assert.deepEqual(imports(steps[1]).sort(), [steps[2], steps[3], steps[5]].sort());
  assert.ok(imports(steps[2]).includes(steps[4]), `${steps[2]} -> ${steps[4]}`);
  assert.ok(imports(steps[5]).includes(steps[6]), `${steps[5]} -> ${steps[6]}`);
});
