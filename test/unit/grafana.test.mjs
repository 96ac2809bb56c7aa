import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../helpers/testserver.mjs';
import { groupByTags, validateDashboard } from '../../grafana/validate.mjs';
import { dashboardQueries, grafanaDir, interpolate, loadDashboards, parseYamlSubset, valueMappingResult } from '../helpers/grafana.mjs';
import { dashboard as generated } from '../../grafana/src/k6-writepath.mjs';

const versions = Object.fromEntries(readFileSync(path.join(grafanaDir, 'VERSIONS'), 'utf8').split('\n')
  .filter((l) => /^[A-Z_]+=/.test(l)).map((l) => l.split('=')));
const yaml = (rel) => parseYamlSubset(readFileSync(path.join(grafanaDir, 'provisioning', rel), 'utf8'));

test('VERSIONS pins Grafana and InfluxDB images by exact version', () => {
  assert.match(versions.GRAFANA_IMAGE, /^grafana\/grafana:1[23]\.\d+\.\d+$/, 'a current Grafana (12.x or 13.x)');
  assert.match(versions.INFLUXDB_IMAGE, /^influxdb:1\.\d+\.\d+$/, 'k6\'s built-in output speaks InfluxDB 1.x only');
  assert.match(versions.DASHBOARD_SCHEMA_VERSION, /^\d+$/);
});

test('the YAML reader is strict: tabs, duplicate keys, bad indentation and flow style are errors', () => {
  assert.deepEqual(parseYamlSubset('a: 1\nb:\n  - name: x\n    n: 2\n  - y\nc: "q # not a comment" # comment\n'),
    { a: 1, b: [{ name: 'x', n: 2 }, 'y'], c: 'q # not a comment' });
  assert.throws(() => parseYamlSubset('a:\n\tb: 1\n'), /line 2: tab/);
  assert.throws(() => parseYamlSubset('a: 1\na: 2\n'), /line 2: duplicate key "a"/);
  assert.throws(() => parseYamlSubset('a:\n  b: 1\n   c: 2\n'), /line 3: unexpected indentation/);
  assert.throws(() => parseYamlSubset('a: [1, 2]\n'), /line 1: unsupported YAML/);
  assert.throws(() => parseYamlSubset('a 1\n'), /line 1: expected "key: value"/);
});

test('datasource provisioning: one InfluxQL datasource on the compose service, jsonData.dbName k6, fixed uid', () => {
  const doc = yaml('datasources/influxdb.yml');
  assert.equal(doc.apiVersion, 1);
  assert.equal(doc.datasources.length, 1);
  const ds = doc.datasources[0];
  // Grafana's InfluxDB docs ("Provision the data source", InfluxQL): the database goes in jsonData.dbName.
  assert.deepEqual(Object.keys(ds).sort(), ['access', 'editable', 'isDefault', 'jsonData', 'name', 'type', 'uid', 'url']);
  assert.equal(ds.type, 'influxdb');
  assert.equal(ds.uid, versions.DATASOURCE_UID);
  assert.equal(ds.url, 'http://influxdb:8086');
  assert.equal(ds.jsonData.dbName, 'k6');
  assert.equal(ds.jsonData.httpMode, 'GET');
  assert.equal(ds.access, 'proxy');
  assert.equal(ds.jsonData.version, undefined, 'no Flux: the dashboards are InfluxQL');
});

test('dashboard provisioning: a file provider reading the folder the dashboards are in', () => {
  const doc = yaml('dashboards/k6-writepath.yml');
  assert.equal(doc.apiVersion, 1);
  assert.equal(doc.providers.length, 1);
  const p = doc.providers[0];
  assert.equal(p.type, 'file');
  assert.equal(p.folder, 'k6-writepath');
  assert.equal(p.options.path, '/etc/grafana/provisioning/dashboards', 'compose mounts grafana/provisioning at /etc/grafana/provisioning');
});

test('dashboard JSON is what grafana/src generates (run `make dashboards` after editing the source)', () => {
  const file = loadDashboards().find((d) => d.dashboard.uid === 'k6-writepath');
  assert.ok(file, 'k6-writepath.json is provisioned');
  assert.deepEqual(file.dashboard, JSON.parse(JSON.stringify(generated())));
});

test('every dashboard: uid, title, schemaVersion, panels with targets on the provisioned datasource, templating', () => {
  const dashboards = loadDashboards();
  assert.ok(dashboards.length >= 1);
  const uids = new Set();
  for (const { file, dashboard: d } of dashboards) {
    const where = path.basename(file);
    assert.match(d.uid, /^[a-z0-9-]{1,40}$/, `${where}: uid`);
    assert.ok(!uids.has(d.uid), `${where}: uid ${d.uid} is unique`); uids.add(d.uid);
    assert.ok(d.title, `${where}: title`);
    assert.equal(d.schemaVersion, Number(versions.DASHBOARD_SCHEMA_VERSION), `${where}: schemaVersion matches grafana/VERSIONS`);
    assert.ok(Array.isArray(d.panels) && d.panels.length > 0, `${where}: panels`);
    const ids = new Set();
    for (const p of d.panels) {
      assert.ok(Number.isInteger(p.id) && !ids.has(p.id), `${where}: panel id ${p.id} unique`); ids.add(p.id);
      assert.ok(p.title, `${where}: panel ${p.id} has a title`);
      for (const k of ['h', 'w', 'x', 'y']) assert.ok(Number.isInteger(p.gridPos[k]), `${where}: ${p.title} gridPos.${k}`);
      if (p.type === 'row') continue;
      assert.ok(p.targets && p.targets.length > 0, `${where}: ${p.title} has targets`);
      for (const t of [p, ...p.targets]) {
        assert.deepEqual(t.datasource, { type: 'influxdb', uid: versions.DATASOURCE_UID }, `${where}: ${p.title} uses the provisioned datasource`);
      }
      for (const t of p.targets) {
        assert.equal(t.rawQuery, true, `${where}: ${p.title} ${t.refId} is a raw InfluxQL query`);
        assert.match(t.query, /\$timeFilter/, `${where}: ${p.title} ${t.refId} is limited to the dashboard time range`);
        assert.match(t.query, /"testid" =~ \/\^\$testid\$\//, `${where}: ${p.title} ${t.refId} is limited to the selected run`);
        // Percentiles of percentiles lie: latency panels aggregate raw batch times only.
        assert.doesNotMatch(t.query, /(mean|median|sum)\("p\(|percentile\("p/, `${where}: ${p.title} aggregates a percentile`);
        if (/writepath_batch_duration/.test(t.query)) assert.match(t.query, /(percentile|max)\("value"/, `${where}: ${p.title} latency from raw values`);
      }
    }
    const vars = d.templating.list.map((v) => v.name);
    for (const name of ['testid', 'target', 'phase']) assert.ok(vars.includes(name), `${where}: variable ${name}`);
    for (const v of d.templating.list) {
      assert.equal(v.type, 'query'); assert.match(v.query, /^SHOW TAG VALUES FROM "\w+" WITH KEY = "\w+"/);
      assert.deepEqual(v.datasource, { type: 'influxdb', uid: versions.DATASOURCE_UID });
    }
    const fill = Object.fromEntries(vars.map((n) => [n, ['x']]));
    for (const q of dashboardQueries(d)) interpolate(q.query, fill, { fromMs: 0, toMs: 1, intervalMs: 1000 }); // throws on an undefined variable
    assert.ok(d.panels.some((p) => p.type === 'row' && p.repeat === 'phase'), `${where}: a row per phase`);
  }
});

test('interpolation matches Grafana: regex-escaped values, (a|b) for several, $__interval_ms, $timeFilter', () => {
  const q = 'SELECT sum("value") * 1000 / $__interval_ms FROM m WHERE "phase" =~ /^$phase$/ AND "t" =~ /^$target$/ AND $timeFilter GROUP BY time($__interval), "x" -- $tag_phase';
  assert.equal(interpolate(q, { phase: ['load', 'mixed'], target: ['a.b'] }, { fromMs: 10, toMs: 20, intervalMs: 2000 }),
    'SELECT sum("value") * 1000 / 2000 FROM m WHERE "phase" =~ /^(load|mixed)$/ AND "t" =~ /^a\\.b$/ AND time >= 10ms and time <= 20ms GROUP BY time(2000ms), "x" -- $tag_phase');
  assert.throws(() => interpolate('x = $nope', {}, { fromMs: 0, toMs: 1, intervalMs: 1 }), /\$nope, which is no variable/);
});

// --- Grafana's own terms: the SDK types (tsc) and the validator, each shown to catch mutations ---
const DS = () => ({ type: 'influxdb', uid: versions.DATASOURCE_UID });
const tsc = path.join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');

test('the dashboard source type-checks against Grafana\'s foundation SDK (tsc -p grafana/jsconfig.json)', { timeout: 120000 }, () => {
  const r = spawnSync(process.execPath, [tsc, '-p', 'grafana/jsconfig.json'], { cwd: repoRoot, encoding: 'utf8' });
  assert.equal(r.stdout + r.stderr, '');
  assert.equal(r.status, 0);
});

// A copy of grafana/src at the same depth (its imports are relative), mutated, checked by tsc.
function tscOnMutatedSource(from, to) {
  const dir = mkdtempSync(path.join(grafanaDir, 'src-mutant-'));
  try {
    const src = readFileSync(path.join(grafanaDir, 'src', 'k6-writepath.mjs'), 'utf8');
    assert.ok(src.includes(from), `the source contains ${from}`);
    writeFileSync(path.join(dir, 'k6-writepath.mjs'), src.replace(from, to));
    copyFileSync(path.join(grafanaDir, 'src', 'influxql.d.ts'), path.join(dir, 'influxql.d.ts'));
    const r = spawnSync(process.execPath, [tsc, '--noEmit', '--allowJs', '--checkJs', '--module', 'esnext', '--moduleResolution', 'bundler',
      '--target', 'es2022', '--skipLibCheck', path.join(dir, 'k6-writepath.mjs'), path.join(grafanaDir, 'process.d.ts')], { cwd: repoRoot, encoding: 'utf8' });
    return r.stdout.split('\n').filter((l) => / error TS/.test(l)).map((l) => l.replace(/^.*k6-writepath\.mjs\(\d+,\d+\): /, ''));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('mutations of the source are type errors: misspelt field config key, wrong resultFormat, misspelt legend option', { timeout: 180000 }, () => {
  assert.deepEqual(tscOnMutatedSource('spanNulls: false, fillOpacity:', 'spanNulls: false, fillOpacty:').map((e) => e.slice(0, 16)), ['error TS2561: Ob'], 'fillOpacty');
  const rf = tscOnMutatedSource("resultFormat = 'time_series'", "resultFormat = 'timeseries'");
  assert.equal(rf.length, 1); assert.match(rf[0], /error TS(2322|2820): Type '"timeseries"' is not assignable to type '"time_series" \| "table" \| "logs"'/);
  const lg = tscOnMutatedSource('showLegend: true,', 'showLegends: true,');
  assert.ok(lg.length >= 1 && lg.every((e) => /TS2561|TS2353|TS2741/.test(e)), lg.join('\n'));
});

test('every provisioned dashboard passes the validator', async () => {
  for (const { file, dashboard: d } of loadDashboards()) assert.deepEqual(await validateDashboard(d, { datasource: DS() }), [], file);
});

test('GROUP BY tags are read from InfluxQL as Grafana names series', () => {
  assert.deepEqual(groupByTags('SELECT x FROM m WHERE a GROUP BY time($__interval), "phase", target fill(none)'), ['phase', 'target']);
  assert.deepEqual(groupByTags('SELECT x FROM m GROUP BY "phase"'), ['phase']);
  assert.deepEqual(groupByTags('SELECT x FROM m'), []);
});

// Each mutation of the generated JSON must turn the validator red with a message naming it.
const MUTATIONS = [
  ['misspelt panel type', (d) => { d.panels.find((p) => p.type === 'timeseries').type = 'timeserie'; }, /type "timeserie" is no Grafana panel type/],
  ['unknown transformation id', (d) => { d.panels.find((p) => p.transformations).transformations[0].id = 'seriesToRow'; }, /transformation id "seriesToRow" is not a Grafana transformation/],
  ['wrong resultFormat', (d) => { d.panels.find((p) => p.targets).targets[0].resultFormat = 'timeseries'; }, /resultFormat "timeseries" is not one of time_series, table, logs/],
  ['alias naming a tag the query does not group by', (d) => { const t = d.panels.find((p) => p.title === 'Documents written per second, per phase and target').targets[0]; t.alias = '$tag_reason $tag_target'; }, /alias uses \$tag_reason but the query does not GROUP BY "reason"/],
  ['unresolved variable in a query', (d) => { const t = d.panels.find((p) => p.targets).targets[0]; t.query = t.query.replace('$testid', '$testidd'); }, /query uses \$testidd, which is no variable/],
  ['unresolved variable in a title', (d) => { d.panels.find((p) => /\$phase/.test(p.title) && p.type !== 'row').title = 'Latency in $phases'; }, /title uses \$phases, which is no variable/],
  ['variable used before it is defined', (d) => { d.templating.list.reverse(); }, /its query uses \$testid, which is not defined before it/],
  ['repeat over an unknown variable', (d) => { d.panels.find((p) => p.repeat).repeat = 'phases'; }, /repeats over "phases"/],
  ['datasource uid not provisioned', (d) => { d.panels.find((p) => p.targets).targets[0].datasource = { type: 'influxdb', uid: 'influx' }; }, /datasource \{"type":"influxdb","uid":"influx"\} is not the provisioned/],
  ['legend averaging percentiles', (d) => { d.panels.find((p) => /Batch latency p50/.test(p.title)).options.legend.calcs = ['max', 'mean']; }, /legend max, mean averages or adds percentiles/],
  ['open range mapping written with a null bound', (d) => { d.panels.find((p) => p.type === 'stat').fieldConfig.defaults.mappings[0].options.to = null; }, /range mapping "TEST ENDPOINT[^"]*" has to=null; Grafana treats a non-numeric bound as 0/],
  ['annotation mapping a column the query does not return', (d) => { d.annotations.list.find((a) => !a.builtIn).mappings.text.value = 'op'; }, /mapping text <- column "op"/],
];
for (const [name, mutate, expected] of MUTATIONS) {
  test(`mutation turns the validator red: ${name}`, async () => {
    const d = JSON.parse(JSON.stringify(generated()));
    mutate(d);
    const problems = await validateDashboard(d, { datasource: DS() });
    assert.ok(problems.some((p) => expected.test(p)), `expected ${expected} in:\n${problems.join('\n')}`);
  });
}

test('value mappings as Grafana applies them (ported getValueMappingResult), including its null-bound quirk', () => {
  const range = (from, to) => [{ type: 'range', options: { from, to, result: { text: 'T' } } }];
  assert.equal(valueMappingResult(range(1, 10), 5).text, 'T');
  assert.equal(valueMappingResult(range(1, 10), 0), null);
  assert.equal(valueMappingResult(range(1, 10), null), null, 'no value: the panel shows noValue');
  assert.equal(valueMappingResult(range(1, null), 5), null, 'a null "to" is 0 to Grafana (isNaN(null) is false)');
  assert.equal(valueMappingResult([{ type: 'value', options: { 3: { text: 'three' } } }], 3).text, 'three');
  assert.throws(() => valueMappingResult([{ type: 'regex', options: {} }], 'x'), /not ported/);
});

test('the dashboard: a TEST ENDPOINT banner on top, a stage row with docs/s, raw p50/p99, failures by reason and drops per stage', () => {
  const d = generated();
  const [banner] = d.panels;
  assert.equal(banner.type, 'stat');
  assert.deepEqual(banner.gridPos, { h: 3, w: 24, x: 0, y: 0 }, 'full width above everything');
  assert.match(banner.targets[0].query, /"test_endpoint" = 'true'/);
  assert.equal(valueMappingResult(banner.fieldConfig.defaults.mappings, 1).text, 'TEST ENDPOINT (API test server, not a database)');
  assert.equal(valueMappingResult(banner.fieldConfig.defaults.mappings, 0), null);
  assert.ok(d.panels.slice(1).every((p) => p.gridPos.y >= 3), 'nothing overlaps the banner');
  const anno = d.annotations.list.find((a) => a.name === 'TEST ENDPOINT');
  assert.deepEqual(anno.mappings.text.source, 'text');
  const rows = d.panels.filter((p) => p.type === 'row');
  const stageRow = rows.findIndex((p) => /^Stages/.test(p.title));
  assert.ok(stageRow >= 0 && stageRow < rows.length - 1 && rows[rows.length - 1].repeat === 'phase' && rows.filter((r) => r.repeat).length === 1, 'the stage row sits before the repeated phase row, which comes last (a repeat takes every panel up to the next row)');
  const start = d.panels.indexOf(rows[stageRow]);
  const inRow = d.panels.slice(start + 1, d.panels.indexOf(rows[stageRow + 1]));
  const queries = inRow.flatMap((p) => p.targets.map((t) => t.query));
  for (const q of queries.filter((x) => !/dropped_iterations/.test(x))) assert.match(q, /"stage" =~ \/\^\[0-9\]\+\$\/.*GROUP BY .*"stage"/, q);
  assert.deepEqual(queries.filter((q) => /percentile/.test(q)).map((q) => q.match(/percentile\("value", (\d+)\)/g).join(' ')),
    ['percentile("value", 50)', 'percentile("value", 99)', 'percentile("value", 50) percentile("value", 99)']);
  assert.ok(queries.some((q) => /FROM "writepath_docs_failed" .*GROUP BY .*"stage", "reason"/.test(q)));
  assert.ok(queries.some((q) => /FROM "dropped_iterations" .*"scenario" =~ \/-s\[0-9\]\+\$\//.test(q)));
  for (const g of [0, 1, 2]) {
    // Each y band of the stage row is filled side by side without overlap.
    const band = inRow.filter((p) => p.gridPos.y === inRow[0].gridPos.y + 8 * g);
    assert.equal(band.reduce((a, p) => a + p.gridPos.w, 0), 24, `band ${g}`);
  }
});

test('the dashboard: a contention row with operations/s and raw p50/p99 per hot set, conflicts by reason and lost/phantom increments per counter', () => {
  const d = generated();
  const rows = d.panels.filter((p) => p.type === 'row');
  const at = d.panels.findIndex((p) => p.type === 'row' && /^Contention/.test(p.title));
  assert.ok(at > 0 && !d.panels[at].repeat);
  const next = d.panels.findIndex((p, i) => i > at && p.type === 'row');
  const panels = d.panels.slice(at + 1, next);
  const q = (title) => panels.find((p) => p.title === title).targets.map((t) => t.query);
  assert.match(q('Increment operations/s per hot set')[0], /count\("value"\) \* 1000 \/ \$__interval_ms FROM "writepath_docs_ok" .*"phase" = 'contention'.*GROUP BY time\(\$__interval\), "hot_keys", "target"/);
  assert.deepEqual(q('Operation latency p50 / p99 per hot set').map((x) => /percentile\("value", (\d+)\) FROM "writepath_batch_duration"/.exec(x)[1]), ['50', '99']);
  const conflicts = q('Conflicts by reason: retries and failed increments');
  assert.match(conflicts[0], /FROM "writepath_retries" .*GROUP BY time\(\$__interval\), "reason", "hot_keys", "target"/);
  assert.match(conflicts[1], /FROM "writepath_docs_failed" .*"reason", "hot_keys"/);
  const lost = q('Lost and phantom increments per counter');
  assert.match(lost[0], /sum\("value"\) AS "lost" FROM "writepath_counter_lost" .*GROUP BY "counter"/);
  assert.match(lost[1], /sum\("value"\) AS "phantom" FROM "writepath_counter_phantom" .*GROUP BY "counter"/);
  assert.equal(rows[rows.length - 1].repeat, 'phase');
});
