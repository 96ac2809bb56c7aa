// What the dashboard tests need of Grafana without Grafana: a strict reader for the small YAML
// subset of provisioning files, the variable interpolation Grafana's InfluxDB datasource does,
// and the list of every query a dashboard sends.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './testserver.mjs';

export const grafanaDir = path.join(repoRoot, 'grafana');
export const dashboardsDir = path.join(grafanaDir, 'provisioning', 'dashboards');

export function dashboardFiles() {
  return readdirSync(dashboardsDir).filter((f) => f.endsWith('.json')).map((f) => path.join(dashboardsDir, f));
}

export function loadDashboards() {
  return dashboardFiles().map((file) => ({ file, dashboard: JSON.parse(readFileSync(file, 'utf8')) }));
}

// A "#" starts a comment at the line start or after a space, outside quotes.
function stripComment(line) {
  let quote = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) { if (c === quote) quote = null; } else if (c === '"' || c === "'") quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]))) return line.slice(0, i);
  }
  return line;
}

// Block-style YAML as provisioning files use it: nested maps, lists of maps or scalars, plain or
// quoted scalars, comments. Anything else (tabs, flow style, anchors, multi-line strings, odd
// indentation, duplicate keys) throws with the line number, so a typo cannot pass unnoticed.
export function parseYamlSubset(text) {
  const lines = [];
  text.split('\n').forEach((raw, i) => {
    if (/\t/.test(raw)) throw new Error(`line ${i + 1}: tab character (YAML indentation must be spaces)`);
    const noComment = stripComment(raw).replace(/\s+$/, '');
    if (noComment.trim() === '') return;
    if (/^\s*[[{&*!|>]/.test(noComment.replace(/^\s*-\s*/, '')) || /:\s*[[{&*!|>]/.test(noComment)) {
      throw new Error(`line ${i + 1}: unsupported YAML (flow style, anchor, tag or block scalar): ${raw.trim()}`);
    }
    lines.push({ n: i + 1, indent: raw.length - raw.trimStart().length, text: noComment.trim() });
  });
  let pos = 0;
  const scalar = (s, n) => {
    if (/^"([^"\\]|\\.)*"$/.test(s)) return JSON.parse(s);
    if (/^'([^']|'')*'$/.test(s)) return s.slice(1, -1).replace(/''/g, "'");
    if (/["']/.test(s[0] || '')) throw new Error(`line ${n}: unterminated quoted string: ${s}`);
    if (s === 'true' || s === 'false') return s === 'true';
    if (s === 'null' || s === '~') return null;
    if (/^-?\d+$/.test(s)) return Number(s);
    if (/^-?\d+\.\d+$/.test(s)) return Number(s);
    return s;
  };
  const keyValue = (t, n) => {
    const m = /^([A-Za-z_][A-Za-z0-9_.-]*):(?:\s+(.*))?$/.exec(t);
    if (!m) throw new Error(`line ${n}: expected "key: value", got: ${t}`);
    return [m[1], m[2] === undefined ? undefined : m[2]];
  };
  function block(indent) {
    const first = lines[pos];
    if (first.indent !== indent) throw new Error(`line ${first.n}: indentation ${first.indent}, expected ${indent}`);
    if (first.text.startsWith('- ') || first.text === '-') {
      const list = [];
      while (pos < lines.length && lines[pos].indent === indent) {
        const l = lines[pos];
        if (!(l.text.startsWith('- ') || l.text === '-')) throw new Error(`line ${l.n}: expected a list item "- …"`);
        const rest = l.text.slice(2).trim();
        if (rest === '') { pos++; list.push(block(lines[pos].indent)); continue; }
        if (/^[A-Za-z_][A-Za-z0-9_.-]*:(\s|$)/.test(rest)) {
          // "- key: value" starts a map whose further keys are indented to the key's column.
          lines[pos] = { n: l.n, indent: indent + 2, text: rest };
          list.push(block(indent + 2));
        } else {
          list.push(scalar(rest, l.n)); pos++;
        }
      }
      return list;
    }
    const map = {};
    while (pos < lines.length && lines[pos].indent === indent) {
      const l = lines[pos];
      if (l.text.startsWith('- ')) throw new Error(`line ${l.n}: list item where a key was expected`);
      const [k, v] = keyValue(l.text, l.n);
      if (Object.prototype.hasOwnProperty.call(map, k)) throw new Error(`line ${l.n}: duplicate key "${k}"`);
      pos++;
      if (v === undefined) {
        if (pos >= lines.length || lines[pos].indent <= indent) {
          map[k] = null;
        } else {
          map[k] = block(lines[pos].indent);
        }
      } else {
        map[k] = scalar(v, l.n);
      }
    }
    if (pos < lines.length && lines[pos].indent > indent) throw new Error(`line ${lines[pos].n}: unexpected indentation`);
    return map;
  }
  if (lines.length === 0) throw new Error('empty YAML document');
  const doc = block(0);
  if (pos !== lines.length) throw new Error(`line ${lines[pos].n}: unexpected indentation`);
  return doc;
}

function escapeRegex(s) {
  return String(s).replace(/[\\^$*+?.()|[\]{}/]/g, '\\$&');
}

// Grafana's InfluxDB datasource: a multi-value or "All" variable used in a regex becomes
// (a|b|c) of regex-escaped values; a single value of such a variable is escaped too.
export function formatVar(values) {
  const esc = values.map(escapeRegex);
  return esc.length === 1 ? esc[0] : `(${esc.join('|')})`;
}

// Fills in what Grafana fills in before sending an InfluxQL query.
export function interpolate(query, vars, { fromMs, toMs, intervalMs }) {
  let q = query
    .replace(/\$timeFilter/g, `time >= ${fromMs}ms and time <= ${toMs}ms`)
    .replace(/\$__interval_ms/g, String(intervalMs))
    .replace(/\$__interval/g, `${intervalMs}ms`);
  q = q.replace(/\$\{(\w+)\}|\[\[(\w+)\]\]|\$(\w+)/g, (m, a, b, c) => {
    const name = a || b || c;
    if (name.startsWith('tag_')) return m; // alias pattern, not a variable
    if (!(name in vars)) throw new Error(`query uses $${name}, which is no variable of the dashboard: ${query}`);
    return formatVar(vars[name]);
  });
  return q;
}

// Every query a dashboard sends: panel targets (panels inside repeated rows once per value of
// the repeat variable), annotation queries. -> [{ title, query, repeat }]
export function dashboardQueries(dashboard) {
  const out = [];
  let repeat = null;
  const visit = (panels) => {
    for (const p of panels) {
      if (p.type === 'row') {
        repeat = p.repeat || null;
        if (p.collapsed && p.panels) visit(p.panels);
        continue;
      }
      for (const t of p.targets || []) out.push({ title: p.title, refId: t.refId, query: t.query, repeat });
    }
  };
  visit(dashboard.panels || []);
  for (const a of (dashboard.annotations || {}).list || []) {
    if (a.builtIn) continue;
    out.push({ title: `annotation: ${a.name}`, refId: 'annotation', query: a.target ? a.target.query : a.query, repeat: null });
  }
  return out;
}

// What Grafana displays for a value under a field's value mappings: the mapping part of
// getValueMappingResult (github.com/grafana/grafana, packages/grafana-data/src/utils/valueMappings.ts,
// read on main) for value and range mappings, ported line by line (including its quirk that a
// null `from`/`to` counts as 0, because isNaN(null) is false). Returns the mapping result or null.
export function valueMappingResult(mappings, value) {
  for (const vm of mappings || []) {
    if (vm.type === 'value') {
      if (value == null) continue;
      if (vm.options[value]) return vm.options[value];
    } else if (vm.type === 'range') {
      if (value == null) continue;
      const n = parseFloat(value);
      if (Number.isNaN(n)) continue;
      if (!isNaN(vm.options.from) && n < vm.options.from) continue;
      if (!isNaN(vm.options.to) && n > vm.options.to) continue;
      return vm.options.result;
    } else {
      throw new Error(`valueMappingResult: mapping type ${vm.type} is not ported`);
    }
  }
  return null;
}
