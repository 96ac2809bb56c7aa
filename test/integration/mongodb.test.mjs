// E1 and E4's workload on the real mongod of `make up` with the real bin/k6: exact counts,
// per-document accounting of duplicate keys (ordered and unordered), documents stored exactly
// as the generator made them, refused credentials and bad input, secrets never shown, and what
// lands in InfluxDB. The database's own view comes from the official Node.js driver.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { influxQuery, localEnv, runK6, startK6, uniqueRunId, errorLines } from '../helpers/k6.mjs';
import { closeMongo, databases, dropDatabase, mongo } from '../helpers/mongo.mjs';
import { createDocs } from '../../lib/docs.js';
import { keyRange } from '../../lib/keys.js';
import { loadConfig } from '../../lib/config.js';

const env = localEnv();
const URL_ = env.MONGO_URL;
const E1 = 'scenarios/mongodb/insert-vs-overwrite.js';
const small = { MONGO_URL: URL_, DOCS: '6000', BATCH_SIZE: '500', VUS: '2', OVERWRITE_BATCHES: '6', MIXED_BATCHES: '4', MIXED_NEW_PERCENT: '50' };
const explain = (r) => `exit ${r.code}\n${r.stdout}\n${r.stderr}`;
// k6 quotes its log messages: \" inside them is a plain quote.

after(closeMongo);

test('a passing E1 run: exit 0, exact counts, read-back, the server\'s version and write concern, database dropped', async () => {
  const r = await runK6(E1, small);
  assert.equal(r.code, 0, explain(r));
  const s = r.summary;
  assert.deepEqual(s.phases.map((p) => [p.phase, p.batches, p.docs_ok, p.docs_new, p.docs_failed]),
    [['load', 12, 6000, 6000, 0], ['overwrite', 6, 3000, 0, 0], ['mixed', 4, 2000, 1000, 0]]);
  assert.equal(s.verification.expected, 7000);
  assert.equal(s.verification.found, 7000);
  assert.ok(s.verification.readback_checked >= 900, `read back ${s.verification.readback_checked}`);
  assert.equal(s.verification.readback_stale_or_missing, 0);
  assert.equal(s.verification.ok, true);
  assert.match(s.server.serverVersion, /^6\.0\.5 \(MongoDB Community, standalone\)$/, 'the real server version, read from it');
  assert.equal(s.server.settings.topology, 'standalone');
  assert.equal(s.server.settings.write_concern, 'server default {w:1} (implicit: a standalone)');
  assert.equal(s.server.settings.MONGO_INDEXES, '0');
  assert.equal(s.server.settings.storage_engine, 'wiredTiger');
  assert.match(s.server.settings.wiredtiger_cache, /^\d+MB$/);
  // k6 never carries the database URL (the gateway does); its token is hidden like every secret.
  assert.equal(s.config.MONGO_URL, undefined);
  assert.match(s.config.GATEWAY_URL, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal(s.config.WP_GATEWAY_TOKEN, '(set, not shown)');
  assert.equal(s.passed, true);
  assert.match(r.stdout, /^server: 6\.0\.5 \(MongoDB Community, standalone\)$/m);
  assert.match(r.junit, /<testsuite name="k6-writepath mongodb insert-vs-overwrite" tests="\d+" failures="0">/);
  assert.ok(!(await databases(URL_)).includes(`k6wp_${r.runId}`), 'teardown dropped the run\'s database');
});

test('the stored documents are the generator\'s, with the same types; write concern and indexes as asked', async () => {
  const runId = uniqueRunId('md');
  const knobs = { ...small, PHASES: 'load,overwrite', OVERWRITE_BATCHES: '2', MONGO_J: 'true', MONGO_INDEXES: '3', KEEP: '1' };
  const r = await runK6(E1, knobs, { runId });
  assert.equal(r.code, 0, explain(r));
  assert.equal(r.summary.server.settings.write_concern, '{j:true} (MONGO_W/MONGO_J)');
  assert.equal(r.summary.server.settings.MONGO_INDEXES, 'f0+f1+f2', 'read back from the server');
  const db = (await mongo(URL_)).db(`k6wp_${runId}`);
  try {
    const coll = db.collection('docs');
    assert.equal(await coll.countDocuments(), 6000);
    assert.deepEqual((await coll.listIndexes().toArray()).map((i) => i.name).sort(), ['_id_', 'f0_1', 'f1_1', 'f2_1']);
    // The generator, as the run configured it (lib/docs.js with the run's knobs).
    const cfg = loadConfig({ MONGO_URL: URL_, DOCS: '6000', BATCH_SIZE: '500' }, { target: 'mongodb', experiment: 'insert-vs-overwrite', phases: ['load', 'overwrite', 'mixed'] });
    const gen = createDocs(cfg, { keyField: '_id' });
    // A load document is the one its batch's byte body held (a key range: lib/docs.js rangeBody).
    const loadDoc = (n) => {
      const start = n - (n % 500);
      const body = gen.body(keyRange(start, 500), 'l');
      return JSON.parse(typeof body === 'string' ? body : Buffer.from(body).toString('latin1'))[n - start];
    };
    const sample = await coll.find({ w: 'l', _id: { $in: ['K0', 'K1', 'K999', 'K1000', 'K1499', 'K4321', 'K5999'] } }, { promoteValues: false }).toArray();
    assert.ok(sample.length >= 4, `${sample.length} of the sampled keys kept their load version`);
    for (const d of sample) {
      const want = loadDoc(Number(d._id.toString().slice(1)));
      const plain = JSON.parse(JSON.stringify(d, (k, v) => (v && typeof v === 'object' && v._bsontype ? v.valueOf() : v)));
      assert.deepEqual(plain, want, `${d._id}: stored = generated`);
      assert.deepEqual(Object.keys(plain), Object.keys(want), 'field order kept');
      // JSON integers become int32 (they fit), strings stay strings.
      assert.equal(d.Hallo._bsontype, 'Int32');
      assert.equal(d.f0._bsontype, 'Int32');
      assert.equal(typeof d.s.valueOf(), 'string');
    }
    // Overwritten keys hold the overwrite's stamp, the others the load's.
    assert.equal(await coll.countDocuments({ w: 'l' }) + await coll.countDocuments({ w: /^o/ }), 6000);
    assert.ok(await coll.countDocuments({ w: /^o/ }) > 500);
  } finally {
    await db.dropDatabase();
  }
});

// MIXED_OP=insert: each mixed batch holds 100 fresh keys first, then 150 that exist.
test('duplicate keys in unordered and ordered batches are counted per document, exactly', async () => {
  const knobs = { MONGO_URL: URL_, PHASES: 'load,mixed', DOCS: '2000', BATCH_SIZE: '250', MIXED_BATCHES: '2', MIXED_NEW_PERCENT: '40', MIXED_OP: 'insert', KEEP: '1' };
  for (const ordered of ['0', '1']) {
    const runId = uniqueRunId(`dk${ordered}`);
    const r = await runK6(E1, { ...knobs, MONGO_ORDERED: ordered }, { runId });
    assert.equal(r.code, 99, `failed documents fail the threshold: ${explain(r)}`);
    const mixed = r.summary.phases.find((p) => p.phase === 'mixed');
    assert.equal(mixed.batches, 2);
    assert.equal(mixed.docs_ok, 200, 'the 100 fresh keys of each batch come first and are written');
    assert.equal(mixed.docs_failed, 300);
    // Unordered: the server tries every document, each existing key is its own 11000.
    // Ordered: it stops at the first existing key; the other 149 were never attempted.
    assert.deepEqual(mixed.failed_by_reason, ordered === '0' ? { e11000: 300 } : { e11000: 2, not_attempted: 298 });
    assert.equal(r.summary.verification.found, 2200);
    assert.equal(r.summary.verification.count_ok, true);
    assert.equal(r.summary.verification.readback_stale_or_missing, 0);
    const coll = (await mongo(URL_)).db(`k6wp_${runId}`).collection('docs');
    assert.equal(await coll.countDocuments({ w: /^m/ }), 200, 'the database holds exactly the acknowledged mixed documents');
    assert.equal(await coll.countDocuments({ w: 'l' }), 2000, 'no existing document was overwritten by an insert');
    assert.match(r.stdout, ordered === '0' ? /mixed: 300 documents failed: e11000 300/ : /mixed: 300 documents failed: (e11000 2, not_attempted 298|not_attempted 298, e11000 2)/);
    assert.match(errorLines(r).join('\n'), /E11000 duplicate key error collection: k6wp_\w+\.docs index: _id_ dup key: \{ _id: "K\d+" \}/);
    await dropDatabase(URL_, `k6wp_${runId}`);
  }
});

test('E4\'s bulk insert on MongoDB: ramped stages, the database holds exactly what it acknowledged', async () => {
  const r = await runK6('scenarios/mongodb/bulk-insert.js', { MONGO_URL: URL_, STAGES: '2s:1,2s:2', BATCH_SIZE: '500' });
  assert.equal(r.code, 0, explain(r));
  const bulk = r.summary.phases.find((p) => p.phase === 'bulk');
  assert.ok(bulk.docs_ok >= 1000, JSON.stringify(bulk));
  assert.equal(bulk.docs_failed, 0);
  assert.equal(r.summary.verification.found, bulk.docs_ok);
  assert.equal(r.summary.verification.count_ok, true);
  assert.equal(r.summary.config.DOC_SHAPE, 'user');
});

test('credentials refused: one line, exit 108, nothing written, the password never shown', async () => {
  const u = new URL(URL_);
  u.password = 'Canary-Mongo-Wrong-Pw-7';
  const runId = uniqueRunId('ma');
  const r = await runK6(E1, { ...small, MONGO_URL: u.toString() }, { runId });
  assert.equal(r.code, 108, explain(r));
  assert.equal(errorLines(r).length, 1, r.stderr);
  assert.match(errorLines(r)[0], /MONGO_URL: authentication failed: .*\(AuthenticationFailed\) Authentication failed/);
  const everything = r.stdout + r.stderr + JSON.stringify(r.summary) + (r.junit || '');
  assert.ok(!everything.includes('Canary-Mongo'), 'the password is not shown');
  assert.ok(!(await databases(URL_)).includes(`k6wp_${runId}`));
});

test('bad MONGO_URL and MONGO_* values: one line naming the knob and what is allowed, exit 107, nothing created', async () => {
  const cases = [
    [{ MONGO_URL: 'mongodb://writepath:Sec%zzret-9@127.0.0.1:1/' }, /MONGO_URL \(value not shown\) is not allowed: a mongodb:\/\/ or mongodb\+srv:\/\/ URL .*percent-encoded/],
    [{ MONGO_URL: 'postgres://writepath:Secret-9@127.0.0.1:1/' }, /MONGO_URL \(value not shown\) is not allowed: .*scheme postgres:\/\/ is not allowed/],
    [{ MONGO_URL: 'mongodb+srv://writepath:Secret-9@cluster.example:27017/' }, /MONGO_URL \(value not shown\) is not allowed: .*names one host without a port/],
    [{ MONGO_URL: '' }, /MONGO_URL is empty: MongoDB connection URL/],
    [{ MONGO_URL: undefined }, /MONGO_URL is not set: MongoDB connection URL/],
    [{ MONGO_W: '0' }, /MONGO_W="0" is not allowed: default \(the server's default write concern\), majority, or a number of members from 1 to 99 \(0, no acknowledgement, is refused/],
    [{ MONGO_W: 'all' }, /MONGO_W="all" is not allowed/],
    [{ MONGO_J: 'yes' }, /MONGO_J="yes" is not allowed: one of default, true, false/],
    [{ MONGO_INDEXES: '10' }, /MONGO_INDEXES="10" is not allowed: a whole number from 0 to 9/],
    [{ MONGO_ORDERED: 'maybe' }, /MONGO_ORDERED="maybe" is not allowed: one of 1, 0, true, false/],
    [{ MONGO_INDEX: '2' }, /MONGO_INDEX is not a knob of k6-writepath: did you mean MONGO_INDEXES\?/],
  ];
  for (const [extra, want] of cases) {
    const runId = uniqueRunId('mb');
    const r = await runK6(E1, { ...small, ...extra }, { runId });
    assert.equal(r.code, 107, `${JSON.stringify(extra)}: ${explain(r)}`);
    assert.equal(errorLines(r).length, 1, r.stderr);
    assert.match(errorLines(r)[0], want);
    assert.ok(!(r.stdout + r.stderr).includes('Sec%zzret') && !(r.stdout + r.stderr).includes('Secret-9'), 'no password shown');
    assert.ok(!(await databases(URL_)).includes(`k6wp_${runId}`), `${JSON.stringify(extra)}: nothing created`);
  }
  // w: 2 on a standalone is valid input the server cannot satisfy: refused in setup, before any
  // document, with the server's own message, and nothing left behind.
  const runId = uniqueRunId('mw');
  const r = await runK6(E1, { ...small, MONGO_W: '2' }, { runId });
  assert.equal(r.code, 108, explain(r));
  assert.match(errorLines(r)[0], /the marker document was not acknowledged with write concern \{w:2\}: \(BadValue\) cannot use 'w' > 1 when a host is not replicated/);
  assert.ok(!(await databases(URL_)).includes(`k6wp_${runId}`), 'the half-made database was dropped');
});

test('a password in MONGO_URL is never printed or saved: not in the output, not in any result file', async () => {
  const user = `k6wp_canary_${process.pid}`;
  const pw = 'Canary-Mongo-Pw-4711';
  const admin = (await mongo(URL_)).db('admin');
  await admin.command({ createUser: user, pwd: pw, roles: ['root'] });
  try {
    const u = new URL(URL_);
    u.username = user;
    u.password = pw;
    const r = await runK6(E1, { ...small, MONGO_URL: u.toString(), HTML_REPORTER: 'builtin' });
    assert.equal(r.code, 0, explain(r));
    assert.ok(!(r.stdout + r.stderr).includes(pw));
    const files = readdirSync(r.dir);
    assert.ok(files.includes('summary.json') && files.includes('report.html') && files.includes('junit.xml'), files.join(','));
    for (const f of files) assert.ok(!readFileSync(path.join(r.dir, f), 'utf8').includes(pw), `${f} holds the password`);
  } finally {
    await admin.command({ dropUser: user });
  }
});

test('metrics in InfluxDB are tagged target=mongodb, with the phase and op tags the dashboards group by', async () => {
  const runId = uniqueRunId('mi');
  const r = await runK6(E1, { ...small, PHASES: 'load', DOCS: '2000' }, { runId, args: ['--out', `influxdb=${env.INFLUX_URL}`, '--tag', `testid=${runId}`] });
  assert.equal(r.code, 0, explain(r));
  const q = await influxQuery(env.INFLUX_URL, `SELECT count("value") FROM "writepath_batch_duration" WHERE "testid" = '${runId}' GROUP BY "target", "phase", "op"`);
  const series = (q.results[0].series || []).map((s) => [s.tags.target, s.tags.phase, s.tags.op, s.values[0][1]]);
  assert.deepEqual(series, [['mongodb', 'load', 'insert', 4]]);
});

// The write concern of MONGO_URL itself is read by the gateway (k6 never sees the URL) and
// reported; w=0 is refused wherever it comes from; the knobs' concern replaces the URL's whole.
test('MONGO_URL\'s own write concern: w=0 refused (107, nothing created), w=majority and retryWrites shown as the URL\'s, the knobs replace it', { timeout: 180000 }, async () => {
  const withQuery = (q) => `${URL_}${URL_.includes('?') ? '&' : '?'}${q}`;
  const runId = uniqueRunId('wz');
  const refused = await runK6(E1, { ...small, MONGO_URL: withQuery('w=0') }, { runId });
  assert.equal(refused.code, 107, explain(refused));
  assert.match(errorLines(refused)[0], /MONGO_URL \(value not shown\) sets w=0: the server would acknowledge nothing/);
  assert.ok(!(await databases(URL_)).includes(`k6wp_${runId}`), "nothing created");
  const maj = await runK6(E1, { ...small, DOCS: '1000', OVERWRITE_BATCHES: '1', MIXED_BATCHES: '1', MONGO_URL: withQuery('w=majority&retryWrites=true') });
  assert.equal(maj.code, 0, explain(maj));
  assert.match(maj.stdout, /write_concern=\{w:"majority"\} \(MONGO_URL\)/);
  assert.match(maj.stdout, /retry_writes=true \(MONGO_URL\): the driver may send a batch again/);
  const knob = await runK6(E1, { ...small, DOCS: '1000', OVERWRITE_BATCHES: '1', MIXED_BATCHES: '1', MONGO_W: '1', MONGO_URL: withQuery('w=0') });
  assert.equal(knob.code, 0, explain(knob));
  assert.match(knob.stdout, /write_concern=\{w:1\} \(MONGO_W\/MONGO_J; replaces MONGO_URL's \{w:0\}\)/);
});

// Teardown removes only what the run made: a collection someone created in the run's database
// mid-run stays, and so does the database (issue of data the run did not create).
test('a collection created by someone else in the run\'s database survives teardown: the run drops its own collections only and says the database was left', { timeout: 180000 }, async () => {
  const runId = uniqueRunId('fr');
  const run = startK6(E1, { ...small, DOCS: '20000', OVERWRITE_BATCHES: '40' }, { runId });
  await run.waitFor(/writing to database/);
  await (await mongo(URL_)).db(`k6wp_${runId}`).collection('bystander').insertOne({ _id: 'mine', note: 'not the run\'s' });
  const r = await run.done;
  try {
    assert.equal(r.code, 0, explain(r));
    assert.match(r.stderr, new RegExp(`the run's collections dropped \\(docs, k6wp_meta\\); database k6wp_${runId} left in place: it also holds collections the run did not create \\(bystander\\)`));
    const names = (await (await mongo(URL_)).db(`k6wp_${runId}`).listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
    assert.deepEqual(names, ['bystander']);
    assert.equal((await (await mongo(URL_)).db(`k6wp_${runId}`).collection('bystander').findOne({ _id: 'mine' })).note, 'not the run\'s');
  } finally {
    await dropDatabase(URL_, `k6wp_${runId}`);
  }
});
