import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KNOBS, loadConfig, parseKnob, publicConfig, redact } from '../../lib/config.js';

const base = { target: 'postgres', experiment: 'insert-vs-overwrite', phases: ['load', 'overwrite', 'mixed'] };

function errorOf(fn) {
  try { fn(); } catch (e) { return String(e); }
  return null;
}

test('defaults run the whole experiment at laptop scale', () => {
  const cfg = loadConfig({ PG_URL: 'postgres://u:p@h/db' }, base);
  assert.deepEqual(cfg.PHASES, ['load', 'overwrite', 'mixed']);
  assert.equal(cfg.DOCS, 20000);
  assert.equal(cfg.BATCH_SIZE, 1000);
  assert.equal(cfg.THRESHOLDS, 'thresholds/postgres/insert-vs-overwrite.json');
  assert.equal(cfg.timeoutMs, 60000);
  assert.equal(cfg.ARANGO_URL, undefined, 'knobs of other targets are not read');
});

test('every bad value gives one line naming the knob, the value and what is allowed', () => {
  const cases = [
    ['DOCS', 'abc', /^k6-writepath: DOCS="abc" is not allowed: a whole number from 1 to 1000000000$/],
    ['DOCS', '0', /DOCS="0" is not allowed/],
    ['DOCS', '-5', /DOCS="-5" is not allowed/],
    ['DOCS', '1e3', /DOCS="1e3" is not allowed/],
    ['BATCH_SIZE', '100001', /BATCH_SIZE="100001" is not allowed: a whole number from 1 to 100000/],
    ['KEY_DIST', 'gauss', /KEY_DIST="gauss" is not allowed: one of uniform, zipfian, hotspot/],
    ['ZIPF_THETA', '1.5', /ZIPF_THETA="1.5" is not allowed: a number from 0.01 to 0.999/],
    ['TIMEOUT', '10', /TIMEOUT="10" is not allowed: a positive duration/],
    ['REUSE', 'maybe', /REUSE="maybe" is not allowed: one of 0, 1, recreate/],
    ['RUN_ID', 'Bad-Id', /RUN_ID="Bad-Id" is not allowed: 1-32 characters/],
    ['PHASES', 'load,delete', /PHASES="load,delete" is not allowed: a comma-separated list from load, overwrite, mixed/],
    ['PHASES', 'overwrite,load', /PHASES="overwrite,load" is not allowed: phases in the experiment's order/],
    ['PHASES', 'load,load', /PHASES="load,load" is not allowed: each phase at most once/],
    ['PG_TABLE', 'temp', /PG_TABLE="temp" is not allowed: one of logged, unlogged/],
    ['PG_INDEXES', '10', /PG_INDEXES="10" is not allowed: a whole number from 0 to 9/],
  ];
  for (const [knob, value, re] of cases) {
    const msg = errorOf(() => loadConfig({ PG_URL: 'x', [knob]: value }, base));
    assert.ok(msg, `${knob}=${value} was accepted`);
    assert.match(msg, re);
    assert.equal(msg.split('\n').length, 1, `one line for ${knob}`);
  }
});

test('required knobs and contradictions are refused', () => {
  assert.match(errorOf(() => loadConfig({}, { ...base, required: ['PG_URL'] })), /PG_URL is not set/);
  assert.match(errorOf(() => loadConfig({ PG_URL: 'x', REUSE: '1' }, base)), /REUSE=1 needs an explicit RUN_ID/);
});

test('every knob has a type, a doc line, and a valid default', () => {
  for (const [name, spec] of Object.entries(KNOBS)) {
    assert.ok(spec.doc && spec.doc.length > 10, `${name} has no doc`);
    if (spec.default !== undefined && spec.type !== 'bool') {
      assert.doesNotThrow(() => parseKnob(name, String(spec.default), spec), `${name} default is invalid`);
    }
  }
});

test('secrets never appear in the public configuration or in redacted text', () => {
  const cfg = loadConfig({ PG_URL: 'postgres://me:s3cret@h:1/db' }, base);
  assert.equal(JSON.stringify(publicConfig(cfg)).includes('s3cret'), false);
  assert.equal(redact('pq: dial postgres://me:s3cret@h:1/db failed'), 'pq: dial postgres://me:***@h:1/db failed');
  assert.equal(redact('host=h password=s3cret user=me'), 'host=h password=*** user=me');
});
