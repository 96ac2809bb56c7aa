// scripts/pg-private.* refuses what it cannot start safely, before any server process: a
// server setting that is not plain name=value (pg_ctl hands -o to a shell), and a cgroup it
// cannot join (the experiments' figures would otherwise count a server outside the cgroup).
// The successful paths run in test/integration/experiment-{ram,e2}.test.mjs and pg-faults.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PG_PRIVATE, PgServer } from '../../scripts/pg-private.mjs';

test('a server setting that is not name=value is refused before anything starts', () => {
  const server = new PgServer('unit/pg-private-settings', 1);
  for (const bad of ['shared_buffers=32MB; rm -rf /', 'fsync', '-c fsync=off', 'work_mem=$(id)']) {
    assert.throws(() => server.start(['max_connections=20', bad]), new RegExp(`^Error: server setting ${JSON.stringify(bad).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not name=value$`));
  }
  assert.equal(existsSync(path.join(server.data, 'postmaster.pid')), false);
});

test('start: a cgroup that cannot be joined stops the helper with one line, before pg_ctl', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'k6wp-pgp-'));
  const procs = path.join(dir, 'no-such-cgroup', 'cgroup.procs');
  const r = spawnSync('bash', [PG_PRIVATE, 'start', dir, '1', '', procs], { encoding: 'utf8' });
  assert.equal(r.status, 1);
  assert.match(r.stderr, new RegExp(`^pg-private: cannot join the cgroup of ${procs.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
  assert.doesNotMatch(r.stderr, /did not start/);
  assert.equal(existsSync(path.join(dir, 'server.log')), false);
});
