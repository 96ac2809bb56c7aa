// Targets declare their knobs next to their code (lib/targets/<db>/<db>-knobs.js) and one registry
// lists them (lib/targets/index.js); lib/config.js composes them with the run's and
// workloads' knobs (issue 25). Everything that follows from the knobs must follow from the
// declarations: the generated table, the misspelling check, redaction, the plan signature,
// scripts/compare's same-workload check — for the three targets and for any new one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseKnob } from '../../lib/parse.js';
import { KNOBS, composeKnobs, knobScope, loadConfig, planSignature, publicConfig, suspectKnob } from '../../lib/config.js';
import { CORE_KNOBS } from '../../lib/knobs.js';
import { envNameChecker } from '../../lib/env-names.js';
import { TARGETS } from '../../lib/targets/index.js';
import { MEMORY_MODEL } from '../../lib/memory.js';
import { knobsTable } from '../../scripts/knobs-table.mjs';
import { workloadSettings } from '../../scripts/compare.mjs';

const CANARY = 'Canary-Secret-4711';
const base = (t) => ({ target: t.name, experiment: 'insert-vs-overwrite', phases: ['load', 'overwrite', 'mixed'] });
const needed = { postgres: { PG_URL: 'postgres://u:p@h/db' }, arangodb: {}, ravendb: {}, mongodb: { MONGO_URL: 'mongodb://u:p@h/?authSource=admin' } };
function errorOf(fn) {
  try { fn(); } catch (e) { return String(e); }
  return null;
}

test('the registry lists each target once, with a prefix, knobs under it, reasons and capabilities', () => {
  assert.deepEqual(TARGETS.map((t) => t.name), ['postgres', 'arangodb', 'ravendb', 'mongodb']);
  for (const t of TARGETS) {
    assert.match(t.prefix, /^[A-Z]+_$/, t.name);
    assert.ok(Object.keys(t.knobs).some((k) => k.startsWith(t.prefix)), t.name);
    assert.ok(t.reasons.includes('connection') && t.reasons.includes('timeout'), `${t.name}: every target names its transport failures`);
    assert.ok(Array.isArray(t.capabilities({}).batch), t.name);
  }
  // No target knob sits among the run's and workloads' knobs.
  for (const k of Object.keys(CORE_KNOBS)) assert.ok(!TARGETS.some((t) => k.startsWith(t.prefix)), k);
});

test('every target declares what a VU holds (memory: a known transport, formats of its batch operations), which the run\'s estimate and the capacity search read', () => {
  for (const t of TARGETS) {
    assert.ok(t.memory && typeof t.memory.formats === 'function', `${t.name}: lib/targets/${t.name}-knobs.js declares memory { transport, formats(ops) }`);
    assert.ok(Object.keys(MEMORY_MODEL.TRANSPORT).includes(t.memory.transport), `${t.name}: transport ${t.memory.transport} is one lib/memory.js models`);
    assert.equal(t.memory.formats([]), 0, `${t.name}: no batch operation, no body`);
    const ops = t.capabilities({}).batch;
    for (const op of ops) assert.equal(t.memory.formats([op]), 1, `${t.name}: one operation, one body (${op})`);
    const all = t.memory.formats(ops);
    assert.ok(Number.isInteger(all) && all >= 1 && all <= ops.length, `${t.name}: every operation at once holds 1..${ops.length} bodies, not ${all}`);
  }
});

test('every declared knob is in the composed table with its target scope, and in the generated table under its target', () => {
  const table = knobsTable();
  for (const t of TARGETS) {
    const group = table.slice(table.indexOf(`**${t.name}**`));
    for (const [name, spec] of Object.entries(t.knobs)) {
      assert.equal(KNOBS[name].target, t.name);
      assert.equal(knobScope(name).scope, `target:${t.name}`);
      assert.equal(knobScope(name).plan, spec.plan !== false, name);
      assert.ok(group.includes(`| \`${name}\` |`), `${name} is in the ${t.name} part of docs/configuration.md's table`);
    }
  }
});

test('a target\'s misspelt knob is caught, and its value never shown', () => {
  for (const t of TARGETS) {
    for (const name of Object.keys(t.knobs)) {
      const typo = name.slice(0, -1); // a letter short (PG_INDEXE, ARANGO_PASSWOR, …)
      // (MONGO_W a letter short is the bare prefix MONGO_, as close to MONGO_J: no single answer)
      if (KNOBS[typo] || typo === t.prefix) continue;
      assert.equal(suspectKnob(typo), name, typo);
      const msg = errorOf(() => loadConfig({ ...needed[t.name], [typo]: CANARY }, base(t)));
      assert.ok(msg && msg.startsWith(`k6-writepath: ${typo} is not a knob of k6-writepath: did you mean ${name}?`), `${typo}: ${msg}`);
      assert.ok(!msg.includes(CANARY), msg);
    }
    // An unknown name with the target's prefix: refused, with the family of its knobs.
    const unknown = `${t.prefix}ZZQX`;
    const msg = errorOf(() => loadConfig({ ...needed[t.name], [unknown]: CANARY }, base(t)));
    assert.match(msg, new RegExp(`^k6-writepath: ${unknown} is not a knob of k6-writepath: the ${t.prefix} knobs are ${Object.keys(t.knobs)[0]}, `));
    assert.ok(!msg.includes(CANARY));
  }
});

test('a target\'s secret is never printed: not in the public configuration, not in a refusal', () => {
  const secrets = TARGETS.flatMap((t) => Object.entries(t.knobs).filter(([, s]) => s.type === 'secret').map(([k]) => [t, k]));
  assert.deepEqual(secrets.map(([, k]) => k).sort(), ['ARANGO_PASSWORD', 'MONGO_URL', 'PG_URL']);
  for (const [t, k] of secrets) {
    const value = k === 'PG_URL' ? `postgres://u:${CANARY}@h/db` : k === 'MONGO_URL' ? `mongodb://u:${CANARY}@h1:27017,h2:27018/?authSource=admin` : CANARY;
    const cfg = loadConfig({ ...needed[t.name], [k]: value }, base(t));
    // The database URLs are the gateway's (wrapper knobs): k6's configuration never holds them.
    assert.equal(cfg[k], KNOBS[k].wrapper ? undefined : value, 'the run gets the value, unless the gateway does');
    if (!KNOBS[k].wrapper) assert.equal(publicConfig(cfg)[k], '(set, not shown)');
    assert.ok(!JSON.stringify(publicConfig(cfg)).includes(CANARY));
    // A value the URL rules refuse is refused without showing it (scripts/gateway-check.mjs
    // applies the same rule to the gateway's URLs).
    if (KNOBS[k].url) {
      const msg = errorOf(() => parseKnob(k, `postgres://u:${CANARY}@h:99999/db`, KNOBS[k]));
      assert.match(msg, new RegExp(`^k6-writepath: ${k} \\(value not shown\\) is not allowed`));
      assert.ok(!msg.includes(CANARY), msg);
    }
  }
});

test('the plan signature follows the declarations: plan knobs change it, plan: false knobs do not', () => {
  for (const t of TARGETS) {
    const sig = (env) => planSignature(loadConfig({ ...needed[t.name], RUN_ID: 'x1', ...env }, base(t)));
    for (const [name, spec] of Object.entries(t.knobs)) {
      const other = spec.type === 'enum' ? spec.values.find((v) => v !== spec.default)
        : spec.type === 'bool' ? String(!spec.default) : spec.type === 'int' ? String((spec.default || 0) + 1) : null;
      if (other === null || other === undefined) continue;
      if (spec.plan === false) assert.equal(sig({ [name]: other }), sig({}), `${name} is not part of the plan`);
      else assert.notEqual(sig({ [name]: other }), sig({}), `${name} is part of the plan`);
    }
  }
});

test('scripts/compare holds two runs to the same workload knobs, derived from the same table', () => {
  const s = { experiment: 'insert-vs-overwrite', target: 'postgres', config: loadConfig({ PG_URL: 'postgres://u:p@h/db' }, base(TARGETS[0])) };
  const names = Object.keys(workloadSettings(s)).filter((k) => k !== 'experiment' && k !== 'ops').sort();
  assert.deepEqual(names, Object.keys(KNOBS).filter((k) => knobScope(k).scope === 'workload').sort());
  assert.ok(!names.some((k) => KNOBS[k].target), 'no target knob is a workload setting');
});

test('a new target is one declaration: its knobs get its scope, its misspellings are caught, a name declared twice refused', () => {
  const fake = { name: 'exampledb', prefix: 'EXAMPLE_', otherEnv: [], reasons: ['connection', 'timeout'], capabilities: () => ({ batch: ['insert'] }),
    knobs: {
      EXAMPLE_URL: { type: 'url', plan: false, schemes: ['http'], path: false, allowed: 'http://host:port', default: 'http://127.0.0.1:1', doc: 'Example server.' },
      EXAMPLE_PASSWORD: { type: 'secret', plan: false, doc: 'Example password, never printed.' },
      EXAMPLE_SHARDS: { type: 'int', min: 1, max: 8, default: 1, doc: 'Shards of the run\'s collection.' },
    } };
  const knobs = composeKnobs([...TARGETS, fake]);
  assert.deepEqual([knobs.EXAMPLE_SHARDS.target, knobs.EXAMPLE_PASSWORD.type], ['exampledb', 'secret']);
  const { suspectKnob: suspect } = envNameChecker(knobs, { prefixes: ['INFLUX_', ...TARGETS.map((t) => t.prefix), fake.prefix] });
  assert.equal(suspect('EXAMPLE_PASWORD'), 'EXAMPLE_PASSWORD');
  assert.equal(suspect('EXAMPLE_SHARD'), 'EXAMPLE_SHARDS');
  assert.equal(suspect('EXAMPLE_HOST'), '');
  assert.equal(suspect('EXAMPLEDB_THING'), null);
  assert.throws(() => composeKnobs([...TARGETS, { ...fake, knobs: { PG_URL: fake.knobs.EXAMPLE_URL } }]), /knob PG_URL of target exampledb is declared twice/);
});
