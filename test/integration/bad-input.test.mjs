// Bad input, table-driven: every knob of KNOBS (iterated, so a new knob is covered the day it
// is added) with values of the wrong kind, contradictory combinations, and broken threshold
// files. Each must stop k6 before anything is written, with ONE error line that names the
// knob, the bad value and what is allowed, and exit code 107 (108 when k6 aborts at run time).
// An unreachable database must be reported within 10 seconds without printing the password.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { KNOBS } from '../../lib/config.js';
import { localEnv, psql, runK6, uniqueRunId } from '../helpers/k6.mjs';

const scenario = 'scenarios/postgres/insert-vs-overwrite.js';
const TARGET = 'postgres';
const { PG_URL } = localEnv();
const runIds = [];

// k6 prints a thrown string as  level=error msg="k6-writepath: …\n" hint="script exception"
function errorLines(stderr) {
  return stderr.split('\n').filter((l) => /level=error/.test(l));
}
function messageOf(line) {
  const m = /msg="((?:[^"\\]|\\.)*)"/.exec(line);
  return m ? m[1].replace(/\\n$/, '').replace(/\\"/g, '"').replace(/\\\\/g, '\\') : line;
}

// Wrong values for a knob, derived from its spec; values the spec would accept are dropped.
export function badValues(name, spec) {
  const v = [];
  switch (spec.type) {
    case 'int':
      v.push('abc', '1.5', '12abc', String(spec.min - 1), String(spec.max + 1), '99999999999999999999');
      if (spec.min > 0) v.push('0');
      if (spec.min >= 0) v.push('-1');
      break;
    case 'number':
      v.push('abc', '0.5.5', String(spec.min - 1), String(spec.max + 1), '-1');
      break;
    case 'enum':
      v.push('bogus', spec.values[0].toUpperCase(), ` ${spec.values[0]}`);
      break;
    case 'bool':
      v.push('maybe', '2');
      break;
    case 'duration':
      v.push('10', '-5s', '0s', 'fast', '5 s');
      break;
    case 'string':
      v.push('Bad Name!', 'x'.repeat(100), 'ÄÖÜ', 'a;drop');
      break;
    case 'list':
      v.push('bogus', ',');
      break;
    case 'secret':
      break; // PG_URL is tested below (missing, malformed, unreachable)
    default:
      assert.fail(`bad-input.test.mjs does not know knob type ${spec.type} of ${name}: add wrong values for it`);
  }
  return [...new Set(v)].filter((x) => {
    if (spec.type === 'int') return !(/^-?\d+$/.test(x) && Number(x) >= spec.min && Number(x) <= spec.max);
    if (spec.type === 'number') return !(/^-?\d+(\.\d+)?$/.test(x) && Number(x) >= spec.min && Number(x) <= spec.max);
    if (spec.type === 'enum') return !spec.values.includes(x);
    if (spec.type === 'string') return !spec.pattern.test(x);
    return true;
  });
}

async function expectRejected(env, { code = 107, mentions = [], runId = uniqueRunId('bad') } = {}) {
  runIds.push(runId);
  const r = await runK6(scenario, { PG_URL, ...env }, { runId, timeoutMs: 60000 });
  const lines = errorLines(r.stderr);
  const why = `env ${JSON.stringify(env)}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;
  assert.equal(r.code, code, `exit code ${code}: ${why}`);
  assert.equal(lines.length, 1, `exactly one error line: ${why}`);
  const msg = messageOf(lines[0]);
  for (const m of mentions) {
    if (m instanceof RegExp) assert.match(msg, m, why); else assert.ok(msg.includes(m), `"${m}" in: ${msg}`);
  }
  assert.equal(r.summary, null, 'no summary.json: the run never started');
  return msg;
}

// Nothing was written: none of the runs above left a k6wp_<run id> table behind.
after(async () => {
  const list = runIds.map((id) => `'k6wp_${id}'`).join(',');
  const left = await psql(PG_URL, `SELECT string_agg(relname, ',') FROM pg_class WHERE relname IN (${list})`);
  assert.equal(left, '', `tables written by rejected runs: ${left}`);
});

// Knobs with scope 'wrapper' are read by scripts/run or make, not by k6 (test/integration/run-knobs.test.mjs).
const knobs = Object.entries(KNOBS).filter(([, spec]) => (!spec.target || spec.target === TARGET) && spec.scope !== 'wrapper');

test('the table covers every knob of this target', () => {
  const covered = knobs.filter(([name, spec]) => badValues(name, spec).length > 0 || spec.type === 'secret').map(([n]) => n);
  const notCoverable = knobs.filter(([name, spec]) => !covered.includes(name)).map(([n]) => n);
  // THRESHOLDS and RESULTS_DIR accept any path: their bad input is a bad file, tested below.
  assert.deepEqual(notCoverable.sort(), ['RESULTS_DIR', 'THRESHOLDS']);
});

for (const [name, spec] of knobs) {
  const values = badValues(name, spec);
  if (values.length === 0) continue;
  test(`${name}: wrong values are refused with one line naming ${name}, the value and what is allowed`, async () => {
    for (const value of values) {
      const env = { [name]: value };
      // A bad RUN_ID cannot be a run id: let the helper name its result folder.
      const runId = name === 'RUN_ID' ? uniqueRunId('bad') : undefined;
      const msg = await expectRejected(env, { runId, mentions: [`${name}=`, JSON.stringify(value)] });
      if (spec.type !== 'list') {
        assert.match(msg, /is not allowed: \S/, `allowed values named: ${msg}`);
        if (spec.type === 'enum') for (const a of spec.values) assert.ok(msg.includes(a), `allowed value ${a} in: ${msg}`);
        if (spec.type === 'int' || spec.type === 'number') assert.ok(msg.includes(String(spec.min)) && msg.includes(String(spec.max)), msg);
      }
    }
  });
}

test('contradictory combinations are refused before anything is written', async () => {
  const rows = [
    [{ PHASES: 'overwrite,load' }, ['PHASES="overwrite,load"', 'load, overwrite, mixed']],
    [{ PHASES: 'load,bogus' }, ['PHASES="load,bogus"', 'load, overwrite, mixed']],
    [{ PHASES: 'load,load' }, ['PHASES="load,load"', 'at most once']],
    [{ PHASES: ',' }, ['PHASES=', 'load, overwrite, mixed']],
    [{ PHASES: 'overwrite' }, ['PHASES=overwrite', 'need the load phase']],
    [{ PHASES: 'mixed' }, ['PHASES=mixed', 'need the load phase']],
    [{ DOCS: '1000', BATCH_SIZE: '500', VUS: '3' }, ['VUS=3', 'at most 2']],
    [{ DOCS: '1500', BATCH_SIZE: '1000', VUS: '2' }, ['BATCH_SIZE=1000', 'DOCS=1500', 'VUS=2']],
    [{ DOCS: '1500', BATCH_SIZE: '1000', VUS: '2', OVERWRITE_BATCHES: '0', MIXED_NEW_PERCENT: '10' }, ['MIXED_NEW_PERCENT=10', 'only 500']],
    [{ MIXED_NEW_PERCENT: '101' }, ['MIXED_NEW_PERCENT="101"', 'from 0 to 100']],
  ];
  for (const [env, mentions] of rows) await expectRejected(env, { mentions });
  // Without RUN_ID the run would make up a new name, so there is nothing to reuse.
  await expectRejected({ REUSE: '1', RUN_ID: undefined }, { mentions: ['REUSE=1', 'RUN_ID'] });
});

test('malformed or missing threshold files are refused with the file and the fault named', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-thresholds-'));
  const file = (n, text) => { const p = path.join(dir, n); writeFileSync(p, text); return p; };
  const rows = [
    [file('invalid.json', '{"phases": {'), ['is not valid JSON']],
    [file('array.json', '[]'), ['must hold a JSON object']],
    [file('unknown-phase.json', '{"phases": {"warmup": {}}}'), ['unknown phase "warmup"', 'load, overwrite, mixed']],
    [file('unknown-key.json', '{"phases": {"load": {"p95": 5}}}'), ['phases.load.p95 is unknown', 'batch_p95_ms']],
    [file('unknown-top.json', '{"phases": {}, "limits": 1}'), ['unknown key "limits"', 'phases, stages, verify']],
    [file('negative.json', '{"phases": {"load": {"batch_p95_ms": -1}}}'), ['batch_p95_ms=-1', '>= 0']],
    [file('wrong-type.json', '{"phases": {"load": {"failed_docs_max": "0"}}}'), ['failed_docs_max="0"', '>= 0']],
    [file('rate.json', '{"phases": {"load": {"failed_batches_rate_max": 2}}}'), ['failed_batches_rate_max=2', 'from 0 to 1']],
    [file('abort.json', '{"phases": {"load": {"abort_on_fail": "yes"}}}'), ['abort_on_fail="yes"', 'true or false']],
    [file('verify.json', '{"phases": {}, "verify": "no"}'), ['"verify" must be true or false']],
    [path.join(dir, 'missing.json'), ['cannot read the file', 'no such file']],
  ];
  for (const [p, mentions] of rows) await expectRejected({ THRESHOLDS: p }, { mentions: [`THRESHOLDS=${p}`, ...mentions] });
});

test('PG_URL missing or malformed: one line, password never printed', async () => {
  await expectRejected({ PG_URL: undefined }, { mentions: ['PG_URL is not set'] });
  const msg = await expectRejected({ PG_URL: 'postgres://k6wp:Canary-Pw-4711@127.0.0.1:notaport/x' }, { code: 108, mentions: ['PG_URL'] });
  assert.doesNotMatch(msg, /Canary-Pw-4711/);
});

async function timedUnreachable(url) {
  const t0 = Date.now();
  const msg = await expectRejected({ PG_URL: url }, { code: 108, mentions: ['PG_URL: cannot reach PostgreSQL'] });
  const ms = Date.now() - t0;
  assert.ok(ms < 10000, `reported within 10 s, took ${ms} ms`);
  assert.doesNotMatch(msg, /Canary-Pw-4711/);
  return msg;
}

test('an unreachable database (closed port) is reported within 10 seconds in one line', async () => {
  const closed = await new Promise((resolve) => { const s = net.createServer().listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); }); });
  const msg = await timedUnreachable(`postgres://k6wp:Canary-Pw-4711@127.0.0.1:${closed}/writepath?sslmode=disable`);
  assert.match(msg, /connection refused/);
});

test('a database that accepts the connection and never answers is reported within 10 seconds', async () => {
  const held = [];
  const silent = net.createServer((s) => { held.push(s); s.on('error', () => {}); });
  await new Promise((r) => silent.listen(0, '127.0.0.1', r));
  try {
    const msg = await timedUnreachable(`postgres://k6wp:Canary-Pw-4711@127.0.0.1:${silent.address().port}/writepath?sslmode=disable`);
    assert.match(msg, /timeout/);
  } finally {
    for (const s of held) s.destroy();
    silent.close();
  }
});
