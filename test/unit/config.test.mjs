import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { KNOBS, KNOWN_ENV, loadConfig, publicConfig, suspectKnob } from '../../lib/config.js';
import { parseKnob } from '../../lib/parse.js';
import { redact } from '../../lib/urls.js';
import { TARGETS } from '../../lib/targets/index.js';
import { frozenOptionsDiffer } from '../../lib/guards.js';

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
    ['TIMEOUT', '10', /TIMEOUT="10" is not allowed: a duration from 100ms to 24h/],
    ['TIMEOUT', '1ms', /TIMEOUT="1ms" is not allowed: a duration from 100ms to 24h/],
    ['TIMEOUT', '10000000h', /TIMEOUT="10000000h" is not allowed: a duration from 100ms to 24h/],
    ['MAX_DURATION', '10000000h', /MAX_DURATION="10000000h" is not allowed: a duration from 1s to 720h/],
    ['REUSE', 'maybe', /REUSE="maybe" is not allowed: one of 0, 1, recreate/],
    ['RUN_ID', 'Bad-Id', /RUN_ID="Bad-Id" is not allowed: 1-32 characters/],
    ['PHASES', 'load,delete', /PHASES="load,delete" is not allowed: a comma-separated list from load, overwrite, mixed/],
    ['PHASES', 'overwrite,load', /PHASES="overwrite,load" is not allowed: phases in the experiment's order/],
    ['PHASES', 'load,load', /PHASES="load,load" is not allowed: each phase at most once/],
    ['PG_TABLE', 'temp', /PG_TABLE="temp" is not allowed: one of logged, unlogged/],
    ['PG_INDEXES', '10', /PG_INDEXES="10" is not allowed: a whole number from 0 to 9/],
  ];
  for (const [knob, value, re] of cases) {
    const msg = errorOf(() => loadConfig({ PG_URL: 'postgres://u:p@h/db', [knob]: value }, base));
    assert.ok(msg, `${knob}=${value} was accepted`);
    assert.match(msg, re);
    assert.equal(msg.split('\n').length, 1, `one line for ${knob}`);
  }
});

test('required knobs and contradictions are refused', () => {
  assert.match(errorOf(() => loadConfig({}, { ...base, required: ['GATEWAY_URL'] })), /GATEWAY_URL is not set/);
  assert.match(errorOf(() => loadConfig({ PG_URL: 'postgres://u:p@h/db', REUSE: '1' }, base)), /REUSE=1 needs an explicit RUN_ID/);
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
  assert.equal(redact('pq: dial postgres://me:s3cret@h:1/db failed'), 'pq: dial postgres://***@h:1/db failed');
  assert.equal(redact('host=h password=s3cret user=me'), 'host=h password=*** user=me');
});

const PG = 'postgres://u:p@h/db';

test('misspelt knobs stop the run with "did you mean", the value never shown', () => {
  const rows = [
    ['BATCHSIZE', 'BATCH_SIZE'], ['docs', 'DOCS'], ['PG_INDEX', 'PG_INDEXES'], ['TIME_OUT', 'TIMEOUT'], ['ARANGO_PASS', 'ARANGO_PASSWORD'],
    ['batch_size', 'BATCH_SIZE'], ['VU', 'VUS'], ['RESULT_DIR', 'RESULTS_DIR'], ['TRESHOLDS', 'THRESHOLDS'], ['MIXED_OPS', 'MIXED_OP'],
  ];
  for (const [name, meant] of rows) {
    const msg = errorOf(() => loadConfig({ PG_URL: PG, [name]: 'Canary-Secret-77' }, base));
    assert.ok(msg, `${name} was accepted`);
    assert.ok(msg.startsWith(`k6-writepath: ${name} is not a knob of k6-writepath: did you mean ${meant}?`), msg);
    assert.ok(!msg.includes('Canary-Secret-77'), msg);
    assert.equal(msg.split('\n').length, 1);
  }
  // A target prefix without a close knob: the family is listed.
  assert.match(errorOf(() => loadConfig({ PG_URL: PG, PG_HOST: 'db' }, base)), /PG_HOST is not a knob of k6-writepath: the PG_ knobs are PG_URL, PG_SCHEMA/);
  // IGNORE_ENV lets a deliberate variable through.
  assert.doesNotThrow(() => loadConfig({ PG_URL: PG, PG_HOST: 'db', IGNORE_ENV: 'PG_HOST' }, base));
});

test('ordinary environment variables and the pack\'s own are not mistaken for knobs', () => {
  // What a shell, CI runner, container or make puts into k6's __ENV (k6 run includes the
  // system environment unless --include-system-env-vars=false).
  const ordinary = ['HOME', 'PATH', 'USER', 'SHELL', 'TERM', 'LANG', 'LC_ALL', 'PWD', 'OLDPWD', 'HOSTNAME', 'SHLVL', 'LOGNAME', 'MAIL', 'TMPDIR', 'TZ',
    'CI', 'EDITOR', 'PAGER', 'LESS', 'DISPLAY', 'COLUMNS', 'LINES', 'GOPATH', 'GOCACHE', 'GOFLAGS', 'NODE_ENV', 'NODE_OPTIONS', 'JAVA_HOME',
    'MAKEFLAGS', 'MAKELEVEL', 'MFLAGS', 'DEBIAN_FRONTEND', 'RUNNER_OS', 'RUNNER_TEMP', 'GITHUB_ACTIONS', 'GITHUB_WORKSPACE', 'HOST', 'KEY',
    'KUBERNETES_SERVICE_HOST', 'PGPASSWORD', 'PGHOST', 'RAVEN_License', 'RAVEN_License_Path', 'RAVEN_Setup_Mode', 'K6_OUT', 'K6_NO_USAGE_REPORT',
    'K6_INFLUXDB_USERNAME', 'SSH_AUTH_SOCK', 'XDG_RUNTIME_DIR', 'HISTSIZE', 'LS_COLORS', 'npm_config_cache', 'INIT_CWD'];
  for (const n of [...ordinary, ...KNOWN_ENV, ...Object.keys(process.env)]) assert.equal(suspectKnob(n), null, n);
  assert.doesNotThrow(() => loadConfig({ ...process.env, ...Object.fromEntries(ordinary.map((n) => [n, 'x'])), PG_URL: PG }, base));
});

test('KNOWN_ENV lists every variable the compose files, make fragments and scripts use next to the knobs', () => {
  const files = ['docker-compose.yml', 'docker-compose.constrained.yml', 'mk/compose.mk', 'mk/scale-out.mk', 'scripts/run', 'scripts/run-distributed', 'scripts/compose-env.sh'];
  const used = new Set();
  for (const f of files) {
    let text = '';
    try { text = readFileSync(new URL(`../../${f}`, import.meta.url), 'utf8'); } catch { continue; }
    for (const m of text.matchAll(/\$\{?([A-Z][A-Za-z0-9_]*)/g)) used.add(m[1]);
  }
  const flagged = [...used].filter((n) => suspectKnob(n) !== null);
  assert.deepEqual(flagged, [], 'add these to CORE_ENV in lib/knobs.js or a target\'s otherEnv (or make them knobs)');
});

// PG_URL is the gateway's (scripts/gateway-check.mjs applies the knob's rule before it starts one).
test('URLs: scheme, credentials, host, IPv6, port, path, key=value strings', () => {
  const pg = (u) => errorOf(() => parseKnob('PG_URL', u, KNOBS.PG_URL));
  for (const ok of ['postgres://u:p@127.0.0.1:5432/db?sslmode=disable', 'postgresql://u@h/db', 'postgres://u:p%20q@h/db', 'postgres://u:p@ss@h:1/db',
    'postgres://u:p@[::1]:5432/db', 'postgres://u:p@[fe80::1%25eth0]:5432/db', 'postgres:///db?host=/var/run/postgresql', 'postgres://u:p@my-db_1.internal:65535/db']) {
    assert.equal(pg(ok), null, ok);
  }
  const rows = [
    ['host=h user=u password=Canary-Pw dbname=db', /key=value connection string is not accepted/],
    ['mysql://u:Canary-Pw@h/db', /scheme mysql:\/\/ is not allowed, only postgres:\/\/ or postgresql:\/\//],
    ['postgres://u:Canary-Pw@h:0/db', /port must be a number from 1 to 65535/],
    ['postgres://u:Canary-Pw@h:65536/db', /port must be a number from 1 to 65535/],
    ['postgres://u:Canary-Pw@h:5x/db', /port must be a number from 1 to 65535/],
    ['postgres://u:Canary-Pw@[::1:5432/db', /host is malformed/],
    ['postgres://u:Canary-Pw@[::g]:5432/db', /IPv6 address .* is malformed/],
    ['postgres://u:Canary-Pw@[1::2::3]/db', /IPv6 address .* is malformed/],
    ['postgres://u:Canary Pw@h/db', /must be percent-encoded/],
    ['postgres://u:Canary-Pw@h/db#x', /#fragment/],
    ['postgres://u:Canary-Pw@h_/db', /host name is malformed/],
  ];
  for (const [u, re] of rows) {
    const msg = pg(u);
    assert.ok(msg, `${u} accepted`);
    assert.match(msg, /^k6-writepath: PG_URL \(value not shown\) is not allowed: /);
    assert.match(msg, re);
    assert.ok(!msg.includes('Canary'), msg);
  }
  const http = (knob, u, target) => errorOf(() => loadConfig({ [knob]: u }, { target, experiment: 'insert-vs-overwrite', phases: ['load', 'overwrite', 'mixed'] }));
  for (const [knob, target] of [['ARANGO_URL', 'arangodb'], ['RAVEN_URL', 'ravendb']]) {
    assert.equal(http(knob, 'http://127.0.0.1:8529', target), null);
    assert.equal(http(knob, 'https://[::1]:8529/', target), null);
    const cred = http(knob, 'http://admin:Canary-Pw@127.0.0.1:8529', target);
    assert.match(cred, new RegExp(`${knob}="http://\\*\\*\\*@127.0.0.1:8529" is not allowed: .*credentials in the URL are not accepted`));
    assert.ok(!cred.includes('Canary'));
    assert.match(http(knob, 'http://h:99999', target), /port must be a number from 1 to 65535/);
    assert.match(http(knob, 'http://h/_db/x', target), /a path is not accepted/);
    assert.match(http(knob, 'ftp://h', target), /scheme ftp/);
  }
  assert.match(http('INFLUX_URL', 'http://u:Canary-Pw@h:8086/k6', 'postgres'), /INFLUX_URL=.*\(credentials in the URL are not accepted/);
  assert.match(http('INFLUX_URL', 'http://h:8086', 'postgres'), /the path must name the database/);
  assert.match(http('INFLUX_URL', 'http://h:80866/k6', 'postgres'), /port/);
});

test('redaction survives "@", ":" and spaces in passwords, quoted key=value passwords, several URLs', () => {
  assert.equal(redact('dial postgres://me:p@ss:w@rd@h:1/db failed'), 'dial postgres://***@h:1/db failed');
  assert.equal(redact('parse "postgres://me:two words@h/db": net/url: invalid userinfo'), 'parse "postgres://***@h/db": net/url: invalid userinfo');
  assert.equal(redact("host=h password='a b c' user=me"), 'host=h password=*** user=me');
  assert.equal(redact('a http://u:x@h:1/ and http://v:y@k'), 'a http://***@h:1/ and http://***@k');
  // The user name too: it may be a password typed in the wrong place.
  assert.equal(redact('postgres://me@h/db'), 'postgres://***@h/db');
});

test('bounds that protect the machine: stages, empty ramps (memory: test/unit/memory.test.mjs)', () => {
  const rv = (env) => errorOf(() => loadConfig(env, { target: 'ravendb', experiment: 'bulk-insert', phases: ['bulk'] }));
  assert.match(rv({ STAGES: '0s:1' }), /STAGES="0s:1" is not allowed: at least one stage with a duration above 0/);
  assert.match(rv({ STAGES: '10s:0,0s:3' }), /at least one stage with a duration above 0/);
  assert.match(rv({ STAGES: '10s:1001' }), /STAGES="10s:1001" is not allowed: targets up to 1000 VUs/);
  assert.match(rv({ STAGES: '800h:1' }), /stage durations up to 720h/);
  assert.match(rv({ RATE_STAGES: '0s:50' }), /RATE_STAGES="0s:50" is not allowed: at least one stage/);
  assert.match(rv({ RATE_STAGES: '10s:200000' }), /targets up to 100000 batches per second/);
  assert.equal(rv({ STAGES: '0s:4,10s:4' }), null);
});

test('one stages type: the knob parser checks the syntax and the bounds of STAGES and RATE_STAGES, whoever reads them (a tool too)', () => {
  const p = (name, raw) => errorOf(() => parseKnob(name, raw, KNOBS[name]));
  assert.equal(p('STAGES', '10s:1001'), 'k6-writepath: STAGES="10s:1001" is not allowed: targets up to 1000 VUs');
  assert.equal(p('STAGES', '800h:1'), 'k6-writepath: STAGES="800h:1" is not allowed: stage durations up to 720h');
  assert.equal(p('RATE_STAGES', '0s:50'), 'k6-writepath: RATE_STAGES="0s:50" is not allowed: at least one stage with a duration above 0 and a target of 1 or more batches per second');
  assert.equal(p('RATE_STAGES', '10s:x'), 'k6-writepath: RATE_STAGES="10s:x" is not allowed: comma-separated duration:batches-per-second pairs such as 10s:20,10s:40');
  assert.equal(parseKnob('STAGES', ' 10s : 4 ,5s:1', KNOBS.STAGES), ' 10s : 4 ,5s:1');
  // The bounds are the knobs' own: a stage's VUs are VUS's, its duration MAX_DURATION's.
  assert.equal(KNOBS.STAGES.max, KNOBS.VUS.max);
  assert.equal(KNOBS.STAGES.durationMax, KNOBS.MAX_DURATION.max);
  assert.equal(KNOBS.CAPACITY_MAX.max, KNOBS.RATE_STAGES.max);
});

test('options frozen with other knobs (k6 archive, --vus) are recognised', () => {
  const planned = { load: { executor: 'per-vu-iterations', vus: 12, iterations: 25, maxDuration: '30m' } };
  assert.equal(frozenOptionsDiffer(planned, { load: { executor: 'per-vu-iterations', vus: 12, iterations: 25, maxDuration: '30m0s', startTime: null } }), null);
  assert.match(frozenOptionsDiffer(planned, { load: { executor: 'per-vu-iterations', vus: 2, iterations: 25 } }), /load.vus=2 instead of 12/);
  assert.match(frozenOptionsDiffer(planned, { default: { executor: 'constant-vus', vus: 5 } }), /scenarios default instead of load/);
  const ramp = { bulk: { executor: 'ramping-vus', stages: [{ duration: '10s', target: 4 }] } };
  assert.equal(frozenOptionsDiffer(ramp, { bulk: { executor: 'ramping-vus', stages: [{ duration: '10s', target: 4 }] } }), null);
  assert.match(frozenOptionsDiffer(ramp, { bulk: { executor: 'ramping-vus', stages: [{ duration: '10s', target: 2 }] } }), /bulk.stages differ/);
});

// scripts/run's RUN_ID rule: test/unit/scripts-over-lib.test.mjs (scripts/common.sh keeps lib's pattern).

test('editDistance with a bound agrees with the full distance wherever the bound matters', async () => {
  // suspectKnob asks editDistance(name, knob, limit) (early exit: every init context of a run
  // checks the whole shell environment against every knob); its answer must be the same.
  const { editDistance } = await import('../../lib/env-names.js');
  const words = ['', 'a', 'ab', 'ba', 'abc', 'DOCS', 'DCOS', 'SEED', 'SEDE', 'PG_URL', 'PGURL', 'BATCH_SIZE', 'BATCHSIZE', 'BACTH_SIZE', 'KEY_DIST', 'KYE_DIST', 'RAVEN_URL', 'RAVN_URL', 'ARANGO_PASSWORD', 'TIMEOUT', 'TIME_OUT'];
  assert.equal(editDistance('BATCH_SIZE', 'BACTH_SIZE'), 1, 'a swap of neighbours is one edit');
  assert.equal(editDistance('DOCS', 'SEED'), 4);
  for (const a of words) {
    for (const b of words) {
      const full = editDistance(a, b);
      for (const max of [0, 1, 2, 3]) {
        const bounded = editDistance(a, b, max);
        if (full <= max) assert.equal(bounded, full, `${a}/${b} max ${max}`);
        else assert.ok(bounded > max, `${a}/${b} max ${max}: ${bounded}`);
      }
    }
  }
});

test('suspectKnob\'s shortcuts (lookups, character-class filter) give the answers of the plain search', async () => {
  // The plain search, as suspectKnob did it before its shortcuts: first knob by squashed
  // spelling, then by prefix, then the closest within the limit (first on ties).
  const { editDistance } = await import('../../lib/env-names.js');
  const names = Object.keys(KNOBS);
  const plain = (name) => {
    if (KNOBS[name] || KNOWN_ENV.includes(name) || /^K6_/.test(name)) return null;
    if (KNOBS[name.toUpperCase()]) return name.toUpperCase();
    if (!/^[A-Z][A-Z0-9_]*$/.test(name)) return null;
    const sq = (s) => s.replace(/[_-]/g, '');
    const same = names.find((k) => sq(k) === sq(name));
    if (same) return same;
    const prefixOf = names.find((k) => name.length >= 5 && k.startsWith(name));
    if (prefixOf) return prefixOf;
    let best = null; let bestD = Infinity;
    for (const k of names) {
      const limit = Math.min(name.length, k.length) <= 5 ? 1 : 2;
      const d = editDistance(name, k);
      if (d <= limit && d < bestD) { best = k; bestD = d; }
    }
    if (best) return best;
    return ['INFLUX_', ...TARGETS.map((x) => x.prefix)].some((p) => name.startsWith(p)) ? '' : null;
  };
  const alpha = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789';
  let seed = 7;
  const rnd = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
  const tried = new Set(Object.keys(process.env));
  for (const k of names) {
    for (let r = 0; r < 40; r++) {
      const s = k.split('');
      for (let e = 1 + rnd(3); e > 0; e--) {
        const i = rnd(s.length + 1); const op = rnd(4);
        if (op === 0) s.splice(i, 0, alpha[rnd(alpha.length)]);
        else if (op === 1) s.splice(i, 1);
        else if (op === 2) s[i] = alpha[rnd(alpha.length)];
        else if (i + 1 < s.length) [s[i], s[i + 1]] = [s[i + 1], s[i]];
      }
      tried.add(s.join(''));
    }
  }
  let flagged = 0;
  for (const n of tried) {
    if (!n) continue;
    assert.equal(suspectKnob(n), plain(n), n);
    if (suspectKnob(n)) flagged++;
  }
  assert.ok(flagged > tried.size / 4, `near misses among the names tried: ${flagged} of ${tried.size}`);
});
