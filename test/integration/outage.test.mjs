// Outages end in counted failures with a few lines, never a flood (docs/reliability.md):
//   - a server that accepts connections and never answers is reported by setup within the
//     documented 10 s, on ArangoDB and RavenDB (PostgreSQL: bad-input.test.mjs);
//   - a RavenDB bulk insert whose server dies mid-run: VUs back off, the failed documents are
//     bounded by the back-off, the log has a few lines, and the table stays aligned.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { runK6, startK6, uniqueRunId } from '../helpers/k6.mjs';
import { startTestServer } from '../helpers/testserver.mjs';

const explain = (r) => `exit ${r.code}\n${r.stdout}\n${r.stderr}`;

for (const [name, knob, scenario] of [['arangodb', 'ARANGO_URL', 'scenarios/arangodb/insert-vs-overwrite.js'], ['ravendb', 'RAVEN_URL', 'scenarios/ravendb/insert-vs-overwrite.js']]) {
  test(`${name}: an address that accepts connections and never answers is reported by setup within 10 s`, async () => {
    const sockets = [];
    const silent = net.createServer((s) => { sockets.push(s); });
    await new Promise((r) => silent.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${silent.address().port}`;
    const t0 = Date.now();
    const r = await runK6(scenario, { [knob]: url, DOCS: '1000', BATCH_SIZE: '100' });
    const took = (Date.now() - t0) / 1000;
    for (const s of sockets) s.destroy();
    silent.close();
    assert.equal(r.code, 108, explain(r));
    assert.match(r.stderr, new RegExp(`test aborted: ${knob}=${url}: cannot reach ${name === 'arangodb' ? 'ArangoDB' : 'RavenDB'} within 10s`));
    // Not a speed check: the 10 s probe ended it, not the 60 s TIMEOUT of each request
    // (which alone would take longer than this bound).
    assert.ok(took < 60, `reported after ${took.toFixed(1)} s`);
  });
}

test('ravendb: a bulk insert whose server dies mid-run backs off; failures bounded, few lines, table aligned', async () => {
  const server = await startTestServer('ravendb');
  const runId = uniqueRunId('ou');
  const run = startK6('scenarios/ravendb/bulk-insert.js', { RAVEN_URL: server.url, STAGES: '6s:2', BATCH_SIZE: '100' }, { runId });
  await run.waitFor(/writing to database/);
  await new Promise((res) => setTimeout(res, 1000));
  const killedAt = Date.now();
  server.proc.kill('SIGKILL');
  const r = await run.done;
  const downS = Math.max(1, (Date.now() - killedAt) / 1000);
  // The database is gone with the server: teardown cannot count it, and says so.
  assert.equal(r.code, 108, explain(r));
  assert.match(r.stdout, /verification: did not run: failed before its end/);
  const bulk = r.summary.phases.find((p) => p.phase === 'bulk');
  const conn = (bulk.failed_by_reason.connection || 0) / 100;
  assert.ok(conn >= 1, `failures counted as connection: ${JSON.stringify(bulk)}`);
  // Back-off 0.5, 1, 2, 4 s per VU: at most 2 + log2(down/0.5) + down/4 attempts per VU.
  const perVu = 2 + Math.ceil(Math.log2(Math.max(1, downS / 0.5))) + Math.ceil(downS / 4);
  assert.ok(conn <= 2 * perVu, `${conn} failed batches in ${downS.toFixed(1)} s: no back-off?`);
  const lines = r.stderr.split('\n').filter((l) => /level=(error|warning)/.test(l));
  assert.ok(lines.length <= 2 * perVu + 8, `a few lines: ${lines.length}\n${r.stderr}`);
  // Every row of the phase table has its columns where the header has them.
  const table = r.stdout.split('\n');
  const header = table.find((l) => l.startsWith('phase '));
  const row = table.find((l) => l.startsWith('bulk '));
  const ends = (l) => Array.from(l.matchAll(/\S+/g)).map((m) => m.index + m[0].length);
  const h = ends(header); // phase op batches docs ok failed docs/s …
  assert.deepEqual(ends(row).slice(2, 6), [h[2], h[4], h[5], h[6]], `columns aligned:\n${header}\n${row}`);
});
