// k6 archives for k6-operator carry the knobs they run with: `make k8s-manifests` renders the
// TestRuns with K8S_KNOBS, scripts/k8s-archives builds one archive per TestRun with the -e
// values of its arguments, and the archives then run as the operator runs them (the same -e
// values again on the command line, beside a gateway that holds PG_URL as the runner pod's
// sidecar does, k6 with only GATEWAY_URL and the token in its environment). A k6 archive freezes the
// run's options (VUs, iterations) at build time, so an archive run with other knobs must be
// refused instead of running the frozen shape (before this, the shipped TestRun ran 2 VUs x 25
// iterations of the defaults and failed its count).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { localEnv, psql, runK6, uniqueRunId } from '../helpers/k6.mjs';
import { repoRoot } from '../helpers/testserver.mjs';
import { startGateway } from '../helpers/gateway.mjs';

const { PG_URL } = localEnv();
const runId = uniqueRunId('k8s');
const KNOBS = '-e DOCS=3000 -e BATCH_SIZE=500 -e VUS=3 -e OVERWRITE_BATCHES=6 -e MIXED_BATCHES=3 -e READBACK=100000';
// The runner pod's gateway sidecar (deploy/k8s/testrun-e1-postgres.yaml): PG_URL in its
// environment; k6 gets its URL and token (which win over the archive's placeholder), no PG_URL.
let sidecar = null;
function podEnv(extra = {}) {
  sidecar ||= startGateway({ PG_URL });
  return { GATEWAY_URL: sidecar.url, WP_GATEWAY_TOKEN: sidecar.token, PG_URL: undefined, MONGO_URL: undefined, ...extra };
}

after(async () => {
  if (sidecar) sidecar.stop();
  await psql(PG_URL, `DROP TABLE IF EXISTS k6wp_${runId}`);
});

function argumentsOf(file) {
  const text = readFileSync(file, 'utf8');
  const block = /\n {2}arguments: >-\n((?: {4}.*\n)+)/.exec(text)[1];
  return [...block.matchAll(/-e ([A-Z_]+)=(\S+)/g)].map((m) => ['-e', `${m[1]}=${m[2]}`]).flat();
}

test('archives are built with their TestRun\'s knobs and run them: instance + verify count exactly; other knobs at run time are refused', { timeout: 240000 }, async () => {
  const make = spawnSync('make', ['-s', 'k8s-manifests', `K8S_RUN_ID=${runId}`, `K8S_KNOBS=${KNOBS}`], { cwd: repoRoot, encoding: 'utf8' });
  assert.equal(make.status, 0, make.stderr);
  const out = mkdtempSync(path.join(tmpdir(), 'k6wp-archives-'));
  const built = spawnSync(path.join(repoRoot, 'scripts', 'k8s-archives'), [path.join(repoRoot, '.run', 'k8s'), out], { cwd: repoRoot, encoding: 'utf8' });
  assert.equal(built.status, 0, built.stderr);
  const e1 = path.join(out, 'e1-postgres.tar');
  // What the archive froze: the knobs' shape, not the defaults (2 VUs).
  const meta = JSON.parse(spawnSync('tar', ['-xOf', e1, 'metadata.json'], { encoding: 'utf8' }).stdout);
  assert.equal(meta.options.scenarios['insert-vs-overwrite'].vus, 3);
  assert.equal(meta.env.DOCS, '3000');
  assert.ok(!JSON.stringify(meta).includes(PG_URL), 'the real PG_URL is not in the archive');
  assert.equal(meta.env.PG_URL, undefined, 'k6 never holds PG_URL: not even a placeholder');
  assert.equal(meta.env.GATEWAY_URL, 'http://gateway.set-at-run-time.invalid', 'a placeholder gateway: the runner\'s environment names the sidecar');

  const rel = (f) => path.relative(repoRoot, f);
  const manifests = path.join(repoRoot, '.run', 'k8s');
  // One instance (the whole segment), as a runner pod runs it: the TestRun's arguments again.
  const inst = await runK6(rel(e1), podEnv(), { runId, args: argumentsOf(path.join(manifests, 'testrun-e1-postgres.yaml')) });
  assert.equal(inst.code, 0, `${inst.stdout}\n${inst.stderr}`);
  const verify = await runK6(rel(path.join(out, 'e1-postgres-verify.tar')), podEnv(), { runId, args: argumentsOf(path.join(manifests, 'testrun-e1-postgres-verify.yaml')) });
  assert.equal(verify.code, 0, `${verify.stdout}\n${verify.stderr}`);
  // 3000 loaded + half of 3 mixed batches of 500 are new.
  assert.match(verify.stdout, /verification: expected 3750, found 3750 — OK/);

  // A runner without the Secret's RUN_SECRET has only the archive's placeholder, which anyone
  // can read: refused before anything is created (its proofs would prove nothing).
  const noSecret = uniqueRunId('k8sn');
  const unproven = await runK6(rel(e1), podEnv({ RUN_SECRET: undefined }), { runId: noSecret, args: [...argumentsOf(path.join(manifests, 'testrun-e1-postgres.yaml')), '-e', `RUN_ID=${noSecret}`] });
  assert.equal(unproven.code, 108, `${unproven.stdout}\n${unproven.stderr}`);
  assert.match(unproven.stderr, /RUN_SECRET is the placeholder scripts\/k8s-archives builds archives with: give the runners the real one/);
  assert.equal(await psql(PG_URL, `SELECT count(*) FROM pg_class WHERE relname = 'k6wp_${noSecret}'`), '0');

  // The same archive with other knobs at run time: refused before anything is written.
  const other = uniqueRunId('k8sx');
  const bad = await runK6(rel(e1), podEnv(), { runId: other, args: [...argumentsOf(path.join(manifests, 'testrun-e1-postgres.yaml')), '-e', `RUN_ID=${other}`, '-e', 'VUS=2'] });
  assert.equal(bad.code, 108, `${bad.stdout}\n${bad.stderr}`);
  assert.match(bad.stderr, /test aborted: k6-writepath: the run's scenarios differ from what the knobs plan \(insert-vs-overwrite\.vus=3 instead of 2\): a k6 archive built with other -e values/);
  assert.equal(await psql(PG_URL, `SELECT count(*) FROM pg_class WHERE relname = 'k6wp_${other}'`), '0');
});

test('scripts/k8s-archives refuses a secret in a TestRun\'s arguments', () => {
  for (const [kv, name] of [['PG_URL=postgres://u:Canary-Pw@db/x', 'PG_URL'], ['MONGO_URL=mongodb://u:Canary-Pw@db/', 'MONGO_URL'], ['RUN_SECRET=Canary-Pw-0123456789', 'RUN_SECRET'], ['WP_GATEWAY_TOKEN=Canary-Pw-0123456789', 'WP_GATEWAY_TOKEN']]) {
    const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-manifests-'));
    const text = readFileSync(path.join(repoRoot, 'deploy', 'k8s', 'testrun-e1-postgres.yaml'), 'utf8')
      .replace('-e DOCS=3000000', `-e ${kv} -e DOCS=3000000`);
    spawnSync('sh', ['-c', `cat > ${dir}/testrun-e1-postgres.yaml`], { input: text });
    const r = spawnSync(path.join(repoRoot, 'scripts', 'k8s-archives'), [dir, dir], { cwd: repoRoot, encoding: 'utf8' });
    assert.equal(r.status, 107);
    assert.match(r.stderr, new RegExp(`passes ${name} in arguments: secrets belong in the runner's environment`));
    assert.doesNotMatch(r.stderr, /Canary-Pw/);
  }
});
