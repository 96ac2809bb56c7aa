// The scripts are thin over lib (issue 19): one .run/env reader and one RUN_ID rule
// (scripts/common.sh, which must stay bash: scripts/run runs in the k6 image without Node),
// in step with lib/config.js; merge-results takes metric names and threshold keys from lib.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { KNOBS, newRunId } from '../../lib/config.js';
import { M } from '../../lib/metric-names.js';
import { readRunEnv } from '../../scripts/run-env.mjs';
import { cliSecretLine, isCliSecret } from '../../scripts/lib/cli-secrets.mjs';
import { RULES_SH, bashRules } from '../../scripts/lib/bash-rules.mjs';
import { checkThresholds } from '../../scripts/merge-results.mjs';
import { repoRoot } from '../helpers/testserver.mjs';

const common = path.join(repoRoot, 'scripts', 'common.sh');
const bash = (script, env = {}) => {
  const base = { ...process.env };
  delete base.PG_URL; delete base.INFLUX_URL;
  return spawnSync('bash', ['-c', `. '${common}'; ${script}`], { encoding: 'utf8', env: { ...base, ...env } });
};

test('one RUN_ID rule: the bash scripts check exactly what lib/config.js checks, and generate the same form', () => {
  const m = /^WP_RUN_ID_RE='(.*)'$/m.exec(readFileSync(RULES_SH, 'utf8'));
  assert.equal(m[1], KNOBS.RUN_ID.pattern.source);
  for (const id of ['a', '0_x', 'abc_def_123', 'a'.repeat(32), '_x', 'A1', 'a-b', 'a'.repeat(33), 'a b']) {
    const r = bash(`wp_check_run_id t '${id}'`);
    assert.equal(r.status === 0, KNOBS.RUN_ID.pattern.test(id), `${id}: ${r.stderr}`);
    if (r.status !== 0) assert.equal(r.stderr, `t: RUN_ID="${id}" is not allowed: 1-32 characters a-z 0-9 _ (starting with a letter or digit)\n`);
  }
  const generated = bash('wp_new_run_id').stdout.trim();
  const shape = /^\d{14}_[0-9a-f]{4}$/;
  assert.match(generated, shape);
  assert.match(newRunId(), shape);
  assert.match(newRunId('cmp_'), /^cmp_\d{14}_[0-9a-f]{4}$/);
});

test('scripts/run refuses a RUN_ID lib/config.js refuses, before k6 starts', () => {
  const r = spawnSync(path.join(repoRoot, 'scripts', 'run'), ['scenarios/postgres/insert-vs-overwrite.js', '-e', 'RUN_ID=_starts_with_underscore'],
    { cwd: repoRoot, encoding: 'utf8', env: { ...process.env, K6: '/bin/false' } });
  assert.equal(r.status, 107);
  assert.equal(r.stderr, 'scripts/run: RUN_ID="_starts_with_underscore" is not allowed: 1-32 characters a-z 0-9 _ (starting with a letter or digit)\n');
});

test('one .run/env reader: KEY=value lines, comments and other lines ignored, the environment wins', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-env-'));
  const file = path.join(dir, 'env');
  writeFileSync(file, '# Written by scripts/services.sh up\nPG_URL=postgres://postgres:pw@127.0.0.1:5/writepath?sslmode=disable\nlower=x\nINFLUX_URL=http://127.0.0.1:6/k6\n\n');
  const want = { PG_URL: 'postgres://postgres:pw@127.0.0.1:5/writepath?sslmode=disable', INFLUX_URL: 'http://127.0.0.1:6/k6' };
  assert.deepEqual(readRunEnv(file), want);
  assert.deepEqual(readRunEnv(path.join(dir, 'missing')), {});
  const r = bash(`wp_run_env '${file}'; echo "$PG_URL|$INFLUX_URL"`, { INFLUX_URL: 'http://mine/k6' });
  assert.equal(r.stdout, `${want.PG_URL}|http://mine/k6\n`);
});

test('merge-results: a threshold key lib/thresholds.js does not know stops it with one line and exit 107, before any query', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-merge-'));
  const file = path.join(dir, 't.json');
  writeFileSync(file, JSON.stringify({ phases: { load: { batch_p99: 10 } } }));
  // Port 9 answers nothing: a query would fail with another message.
  const r = spawnSync('node', [path.join(repoRoot, 'scripts', 'merge-results.mjs'), '--testid', 'x1', '--thresholds', file, '--influx', 'http://127.0.0.1:9/k6'], { encoding: 'utf8' });
  assert.equal(r.status, 107);
  assert.match(r.stderr, /^merge-results: THRESHOLDS=.*t\.json: phases\.load\.batch_p99 is unknown; allowed: batch_avg_ms, /);
  assert.equal(r.stderr.trim().split('\n').length, 1);
});

test('merge-results checks every threshold key of lib/thresholds.js against the merged figures', () => {
  const merged = {
    phases: [{ phase: 'bulk', docs_failed: 300, docs_undetermined: 300, docs_failed_known: 0, failed_batches_rate: 0, batch_ms: { min: 1, p50: 5, avg: 6, p90: 9, p95: 10, p99: 12, max: 20 } }],
    dropped_iterations: 3,
    verification: { found: 10, expected: 10, readback_stale: 0, ok: true },
  };
  const doc = { phases: { bulk: { batch_p50_ms: 5, batch_p99_ms: 11, dropped_iterations_max: 2, failed_docs_max: 0, undetermined_docs_max: 100, abort_on_fail: true } }, verify: true };
  const checks = checkThresholds(merged, doc);
  assert.deepEqual(checks.map((c) => [c.name, c.value, c.ok]), [
    ['bulk batch p50 <= 5 ms', 5, true],
    ['bulk batch p99 <= 11 ms', 12, false],
    ['dropped iterations (all instances) <= 2', 3, false],
    // the undetermined documents are not known failures: failed_docs_max holds, its own limit not
    ['bulk failed docs (known) <= 0', 0, true],
    ['bulk undetermined docs <= 100', 300, false],
    ['verification (count and read-back of the union)', '10/10, 0 stale', true],
  ]);
  assert.equal(M.batchDuration, 'writepath_batch_duration');
});

test('one list of secrets: the bash wrappers refuse with -e exactly the knobs lib/config.js declares secret (and any credentials-looking name or URL)', () => {
  const m = /^WP_SECRET_KNOBS='(.*)'$/m.exec(readFileSync(RULES_SH, 'utf8'));
  assert.deepEqual(m[1].split(' ').sort(), Object.keys(KNOBS).filter((k) => KNOBS[k].type === 'secret').sort());
  const secretOf = (...args) => bash(`wp_cli_secret ${args.map((a) => `'${a}'`).join(' ')}`).stdout.trim();
  assert.equal(secretOf('-e', 'DOCS=1', '-e', 'PG_URL=postgres://h/x'), 'PG_URL');
  assert.equal(secretOf('-eARANGO_PASSWORD='), 'ARANGO_PASSWORD');
  assert.equal(secretOf('--env=MY_API_TOKEN=x'), 'MY_API_TOKEN');
  assert.equal(secretOf('--env', 'INFLUX_URL=http://Secret@h/k6'), 'INFLUX_URL');
  assert.equal(secretOf('-e', 'DOCS=1', '-e', 'INFLUX_URL=http://h:8086/k6', '--vus', '2', '-e', 'ARANGO_USER=root'), '');
  // The Node wrappers' twin (scripts/compare, scripts/capacity) gives the same answers.
  for (const [k, v] of [['PG_URL', 'postgres://h/x'], ['ARANGO_PASSWORD', ''], ['MY_API_TOKEN', 'x'], ['X_SECRET', 'y'], ['INFLUX_URL', 'http://Secret@h/k6'],
    ['RAVEN_URL', 'https://u:p@h'], ['DOCS', '1'], ['INFLUX_URL', 'http://h:8086/k6'], ['ARANGO_USER', 'root'], ['PASSWORD_HINT', 'x']]) {
    assert.equal(isCliSecret(k, v), secretOf('-e', `${k}=${v}`) === k, `${k}=${v}`);
  }
});

test('the rules bash applies are generated from their JS homes, not copied: scripts/lib/rules.sh is what scripts/lib/bash-rules.mjs makes, and common.sh holds no rule text of its own', () => {
  assert.equal(readFileSync(RULES_SH, 'utf8'), bashRules(), 'run: node scripts/lib/bash-rules.mjs --write');
  const sh = readFileSync(common, 'utf8');
  for (const copy of ['PASSWORD|PASSWD', '[a-z0-9_]{0,31}', '1-32 characters', 'visible to every local user', 'PG_URL ARANGO_PASSWORD']) assert.ok(!sh.includes(copy), `scripts/common.sh copies a rule: ${copy}`);
  // The bash refusal is the Node one with bash's own "instead".
  const r = bash("wp_cli_secret_line PG_URL");
  assert.equal(r.stdout, `${cliSecretLine('PG_URL', 'export PG_URL=… in the environment (or keep it in .run/env)')}\n`);
});
