// Checks a dashboard JSON in Grafana's own terms where its TypeScript types leave strings open
// (the types themselves are checked by tsc on grafana/src, grafana/jsconfig.json):
// - panel types: those Grafana's foundation SDK (@grafana/grafana-foundation-sdk, pinned) builds
//   panels for, plus "row";
// - transformation ids: Grafana's DataTransformerID (github.com/grafana/grafana,
//   packages/grafana-data/src/transformations/transformers/ids.ts at commit beaa512eb3cf, not
//   pinned to the 13.2.3 tag: an id Grafana added later is refused until it is added below);
// - InfluxQL queries: resultFormat from Grafana's InfluxQuery type (time_series | table | logs),
//   raw queries only, every $tag_<key> of an alias grouped by in the query (else Grafana prints
//   the pattern literally), every variable resolvable ($timeFilter, $__interval… or a dashboard
//   variable defined before its use);
// - datasource references: the provisioned datasource (type and uid) or Grafana's built-in one;
// - latency legends never average percentiles (no "mean" of a percentile query);
// - range value mappings have numeric bounds: Grafana's getValueMappingResult
//   (packages/grafana-data/src/utils/valueMappings.ts, read on main) checks !isNaN(to), true for
//   null (= 0), so an "open" range written with a null bound silently never matches.
// validateDashboard(json, { datasource: { type, uid } }) -> list of problems (empty = valid).
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
// .../@grafana/grafana-foundation-sdk/dist/dashboard/index.js -> .../dist
const sdkDist = path.dirname(path.dirname(require.resolve('@grafana/grafana-foundation-sdk/dashboard')));

export async function sdkPanelTypes() {
  const types = new Set(['row']);
  for (const name of readdirSync(sdkDist)) {
    if (!existsSync(path.join(sdkDist, name, 'panelBuilder.gen.js'))) continue;
    const mod = await import(`@grafana/grafana-foundation-sdk/${name}`);
    if (!mod.PanelBuilder) continue;
    const t = new mod.PanelBuilder().build().type;
    if (t) types.add(t);
  }
  return types;
}

export const TRANSFORMATION_IDS = new Set(['append', 'reduce', 'order', 'organize', 'rename', 'calculateField', 'seriesToColumns',
  'seriesToRows', 'merge', 'concatenate', 'labelsToFields', 'filterFields', 'filterFieldsByName', 'filterFrames', 'filterByRefId',
  'renameByRegex', 'filterByValue', 'noop', 'ensureColumns', 'groupBy', 'sortBy', 'histogram', 'configFromData', 'rowsToFields',
  'prepareTimeSeries', 'convertFieldType', 'convertFrameType', 'fieldLookup', 'heatmap', 'spatial', 'joinByField', 'joinByLabels',
  'extractFields', 'groupingToMatrix', 'limit', 'partitionByValues', 'timeSeriesTable', 'transpose', 'formatTime', 'formatString',
  'regression', 'groupToNestedTable']);

export const RESULT_FORMATS = new Set(['time_series', 'table', 'logs']);

// Variables Grafana fills in itself for InfluxQL (public/app/plugins/datasource/influxdb and
// Grafana's global variables); $tag_…, $col, $m and $measurement are alias patterns.
const BUILTIN = new Set(['timeFilter', '__interval', '__interval_ms', '__range', '__range_s', '__range_ms', '__from', '__to',
  '__dashboard', '__org', '__user', '__timeFilter']);

const refsOf = (text) => [...String(text).matchAll(/\$\{(\w+)(?::\w+)?\}|\[\[(\w+)\]\]|\$(\w+)/g)].map((m) => m[1] || m[2] || m[3]);

// Tags a query groups by: GROUP BY time(…), "a", b fill(…) -> ['a', 'b'].
export function groupByTags(query) {
  const m = /\bGROUP\s+BY\s+(.+?)(?:\s+fill\(|\s+ORDER\s+|\s+LIMIT\s+|\s+SLIMIT\s+|\s+tz\(|$)/is.exec(query);
  if (!m) return [];
  return m[1].split(',').map((s) => s.trim()).filter((s) => !/^time\(/i.test(s)).map((s) => s.replace(/^"(.*)"$/, '$1'));
}

export async function validateDashboard(d, { datasource }) {
  const problems = [];
  const panelTypes = await sdkPanelTypes();
  const vars = [];
  for (const v of (d.templating && d.templating.list) || []) {
    for (const r of refsOf(v.query || '')) if (!BUILTIN.has(r) && !vars.includes(r)) problems.push(`variable ${v.name}: its query uses $${r}, which is not defined before it`);
    vars.push(v.name);
    checkDs(v.datasource, `variable ${v.name}`);
  }
  const known = (name) => BUILTIN.has(name) || vars.includes(name);
  function checkDs(ds, where) {
    if (!ds) return;
    if (ds.uid === '-- Grafana --' && ds.type === 'grafana') return;
    if (ds.type !== datasource.type || ds.uid !== datasource.uid) problems.push(`${where}: datasource ${JSON.stringify(ds)} is not the provisioned ${JSON.stringify(datasource)}`);
  }
  function checkQuery(t, where) {
    checkDs(t.datasource, where);
    if (t.rawQuery !== true) problems.push(`${where}: not a raw InfluxQL query (rawQuery must be true)`);
    if (t.resultFormat !== undefined && !RESULT_FORMATS.has(t.resultFormat)) problems.push(`${where}: resultFormat "${t.resultFormat}" is not one of ${[...RESULT_FORMATS].join(', ')}`);
    for (const r of refsOf(t.query || '')) if (!r.startsWith('tag_') && !known(r)) problems.push(`${where}: query uses $${r}, which is no variable of the dashboard`);
    const grouped = groupByTags(t.query || '');
    for (const r of refsOf(t.alias || '')) {
      if (r.startsWith('tag_')) {
        if (!grouped.includes(r.slice(4))) problems.push(`${where}: alias uses $${r} but the query does not GROUP BY "${r.slice(4)}"`);
      } else if (!['col', 'm', 'measurement'].includes(r) && !known(r)) problems.push(`${where}: alias uses $${r}, which is no alias pattern or variable`);
    }
  }
  let repeat = null;
  for (const p of d.panels || []) {
    const where = `panel "${p.title}"`;
    if (!panelTypes.has(p.type)) problems.push(`${where}: type "${p.type}" is no Grafana panel type (${[...panelTypes].sort().join(', ')})`);
    for (const r of refsOf(p.title || '')) if (!known(r)) problems.push(`${where}: title uses $${r}, which is no variable of the dashboard`);
    if (p.type === 'row') {
      repeat = p.repeat || null;
      if (p.repeat && !vars.includes(p.repeat)) problems.push(`${where}: repeats over "${p.repeat}", which is no variable of the dashboard`);
      continue;
    }
    checkDs(p.datasource, where);
    for (const tr of p.transformations || []) if (!TRANSFORMATION_IDS.has(tr.id)) problems.push(`${where}: transformation id "${tr.id}" is not a Grafana transformation`);
    for (const t of p.targets || []) checkQuery(t, `${where} [${t.refId}]`);
    const pctQuery = (p.targets || []).some((t) => /percentile\(/i.test(t.query || ''));
    const calcs = (p.options && p.options.legend && p.options.legend.calcs) || [];
    if (pctQuery && calcs.some((c) => ['mean', 'sum', 'median'].includes(c))) problems.push(`${where}: legend ${calcs.join(', ')} averages or adds percentiles`);
    if (/\$phase/.test(p.title || '') && repeat !== 'phase') problems.push(`${where}: title uses $phase outside the row repeated per phase`);
    const fc = p.fieldConfig || {};
    for (const m of [fc.defaults || {}, ...(fc.overrides || []).flatMap((o) => (o.properties || []).filter((x) => x.id === 'mappings').map((x) => ({ mappings: x.value })))].flatMap((x) => x.mappings || [])) {
      if (m.type !== 'range') continue;
      for (const b of ['from', 'to']) {
        if (typeof (m.options || {})[b] !== 'number') problems.push(`${where}: range mapping "${(m.options.result || {}).text}" has ${b}=${JSON.stringify(m.options[b])}; Grafana treats a non-numeric bound as 0, so give a number`);
      }
    }
  }
  for (const a of (d.annotations && d.annotations.list) || []) {
    if (a.builtIn) continue;
    const where = `annotation "${a.name}"`;
    checkDs(a.datasource, where);
    if (!a.target) { problems.push(`${where}: no target query (current Grafana keeps the annotation query in target)`); continue; }
    checkQuery(a.target, where);
    const grouped = groupByTags(a.target.query || '');
    for (const [field, m] of Object.entries(a.mappings || {})) {
      if (m.source === 'field' && !['time', 'Time', 'value'].includes(m.value) && !grouped.includes(m.value)) problems.push(`${where}: mapping ${field} <- column "${m.value}", which the query does not return`);
    }
  }
  return problems;
}
