// Which scenarios write through the gateway: one rule (scripts/lib/gateway.mjs scenarioTargets,
// from the targets' declarations), mirrored in bash by scripts/gateway.sh wp_gateway_needed for
// the k6 image (no Node there). The two must agree on every target and every shipped scenario.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TARGETS } from '../../lib/targets/index.js';
import { needsGateway, scenarioTargets, gatewayUrlKnob } from '../../scripts/lib/gateway.mjs';
import { repoRoot } from '../helpers/testserver.mjs';

const bashNeeds = (file) => spawnSync('bash', ['-c', `. "${repoRoot}/scripts/gateway.sh"; wp_gateway_needed "$1"`, 'x', file]).status === 0;

test('every target: a scenario importing its adapter needs the gateway exactly when the declaration says so, in Node and in bash', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-gwrule-'));
  assert.ok(TARGETS.some((t) => t.gateway) && TARGETS.some((t) => !t.gateway));
  for (const t of TARGETS) {
    const file = path.join(dir, `${t.name}.js`);
    writeFileSync(file, `import { createTarget } from '../../lib/targets/${t.name}/${t.name}.js';\n`);
    assert.deepEqual(scenarioTargets(file).map((d) => d.name), [t.name]);
    assert.equal(needsGateway(file), Boolean(t.gateway), t.name);
    assert.equal(bashNeeds(file), Boolean(t.gateway), `bash, ${t.name}`);
    if (t.gateway) assert.match(gatewayUrlKnob(t), /^[A-Z]+_URL$/);
  }
  // the knobs file of a gateway target is not its adapter: no gateway
  const knobsOnly = path.join(dir, 'knobs-only.js');
  writeFileSync(knobsOnly, "import { POSTGRES } from '../../lib/targets/postgres/postgres-knobs.js';\n");
  assert.equal(needsGateway(knobsOnly), false);
  assert.equal(bashNeeds(knobsOnly), false);
  assert.equal(needsGateway(path.join(dir, 'missing.js')), false);
  assert.equal(bashNeeds(path.join(dir, 'missing.js')), false);
});

test('the shipped scenarios: Node and bash agree, and PostgreSQL and MongoDB ones are the gateway\'s', () => {
  let n = 0;
  for (const db of readdirSync(path.join(repoRoot, 'scenarios'))) {
    for (const f of readdirSync(path.join(repoRoot, 'scenarios', db)).filter((x) => x.endsWith('.js'))) {
      const file = path.join(repoRoot, 'scenarios', db, f);
      assert.equal(needsGateway(file), db === 'postgres' || db === 'mongodb', file);
      assert.equal(bashNeeds(file), needsGateway(file), file);
      assert.deepEqual(scenarioTargets(file).map((t) => t.name), [db], file);
      n++;
    }
  }
  assert.ok(n >= 10, `${n} scenarios`);
});
