import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { END, START, knobsTable } from '../../scripts/knobs-table.mjs';

test('docs/configuration.md documents every knob exactly as lib/config.js defines it', () => {
  const readme = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
  const a = readme.indexOf(START); const b = readme.indexOf(END);
  assert.ok(a >= 0 && b > a, 'docs/configuration.md has the knobs markers');
  assert.equal(readme.slice(a + START.length, b).trim(), knobsTable().trim(),
    'the knob table in docs/configuration.md is stale: run `node scripts/knobs-table.mjs --write`');
});

// --- README and docs/ as a newcomer meets them ---
import { readdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const read = (rel) => readFileSync(path.join(root, rel), 'utf8');
const docFiles = ['README.md', ...readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

test('README stays short (≲ 200 lines): the long chapters live in docs/', () => {
  const n = read('README.md').split('\n').length;
  assert.ok(n <= 200, `README.md has ${n} lines`);
});

test('every relative link in README.md and docs/*.md points to a file of the repository', () => {
  const broken = [];
  for (const f of docFiles) {
    for (const m of read(f).matchAll(/\]\(([^)\s#]+)(#[^)]*)?\)/g)) {
      const target = m[1];
      if (/^[a-z]+:/.test(target)) continue; // https:, mailto:
      if (!existsSync(path.resolve(root, path.dirname(f), target))) broken.push(`${f}: ${target}`);
    }
  }
  assert.deepEqual(broken, []);
});

test('no document points outside the repository', () => {
  const outside = docFiles.flatMap((f) => read(f).split('\n').map((l, i) => [f, i + 1, l]))
    .filter(([, , l]) => /\/work\/|\.\.\/shared\b|\bshared\/(reference|DESIGN)/.test(l)).map(([f, n, l]) => `${f}:${n}: ${l.trim()}`);
  assert.deepEqual(outside, []);
});

function makeTargets() {
  const out = new Set();
  for (const f of ['Makefile', ...readdirSync(path.join(root, 'mk')).filter((x) => x.endsWith('.mk')).map((x) => `mk/${x}`)]) {
    for (const m of read(f).matchAll(/^([a-zA-Z0-9_./%-]+(?:\s+[a-zA-Z0-9_./%-]+)*)\s*:(?!=)/gm)) for (const t of m[1].split(/\s+/)) out.add(t);
  }
  return out;
}

test('every `make <target>` the docs name exists', () => {
  const targets = makeTargets();
  const missing = [];
  let seen = 0;
  for (const f of docFiles) {
    // Commands: `make …` in backticks, and lines of code blocks that start with make.
    const text = read(f);
    const cmds = [...text.matchAll(/`make ([^`]+)`/g), ...text.matchAll(/^\s*(?:\$ )?make ([^\n#]*)/gm)].map((m) => m[1]);
    for (const cmd of cmds) {
      for (const t of cmd.trim().split(/\s+/)) {
        if (!/^[a-z][a-z0-9-]*$/.test(t)) break; // VAR=…, -j, (…
        seen += 1;
        if (!targets.has(t)) missing.push(`${f}: make ${t}`);
      }
    }
  }
  assert.deepEqual(missing, []);
  assert.ok(seen >= 10, `the check saw ${seen} make commands`);
});

test('the Needs line names every package the make targets install and the policy-rc.d they write', () => {
  const readme = read('README.md');
  const needs = readme.slice(readme.indexOf('Needs:'), readme.indexOf('`make demo` prints'));
  const pkgs = new Set();
  const sources = ['scripts/services.sh', ...readdirSync(path.join(root, 'mk')).map((x) => `mk/${x}`), 'Makefile'];
  for (const f of sources) {
    const text = read(f);
    for (const m of text.matchAll(/apt_install ([a-z0-9. -]+?)(?:;|\n|\)|$)/gm)) for (const p of m[1].trim().split(/\s+/)) pkgs.add(p);
    for (const m of text.matchAll(/apt-get install [^\n;|&>]*?--no-install-recommends ([a-z0-9.-]+)/g)) pkgs.add(m[1]);
  }
  pkgs.delete('ca-certificates'); // comes with curl's line
  assert.ok(pkgs.has('postgresql') && pkgs.has('influxdb') && pkgs.has('chromium') && pkgs.has('docker-compose'), [...pkgs].join(' '));
  for (const p of pkgs) assert.match(needs, new RegExp(`\`${p.replace(/[.]/g, '\\.')}\``), `Needs names ${p}`);
  assert.match(needs, /\/usr\/sbin\/policy-rc\.d/);
});

test('scripts and files the README names exist', () => {
  const missing = [...read('README.md').matchAll(/`((?:scripts|scenarios|lib|grafana|thresholds|docs|gateway|docker|deploy)\/[A-Za-z0-9_./-]+)`/g)]
    .map((m) => m[1]).filter((p) => /\.[a-z]+$|\/$/.test(p) && !p.includes('<') && !existsSync(path.join(root, p)));
  assert.deepEqual(missing, []);
});

// docs/reliability.md "Exit codes" is the one table; README's short list names every code a run
// ends with there (the wrapper's 2 for a missing scenario aside) and points to it.
test('README lists every exit code of docs/reliability.md "Exit codes" and links that table', () => {
  const rel = read('docs/reliability.md');
  const table = rel.slice(rel.indexOf('## Exit codes'), rel.indexOf('\n## ', rel.indexOf('## Exit codes') + 1));
  const codes = [...new Set([...table.matchAll(/^\| (\d+) \|/gm)].map((m) => m[1]))].filter((c) => c !== '2');
  assert.ok(codes.length >= 5, `codes found: ${codes}`);
  const readme = read('README.md');
  const missing = codes.filter((c) => !readme.includes(`\`${c}\``));
  assert.deepEqual(missing, [], `README does not list exit code(s) ${missing.join(', ')}`);
  assert.match(readme, /\(docs\/reliability\.md#exit-codes\)/);
});

// A newcomer types the first block as written on a machine without k6: it must fetch the k6 it
// runs (make k6) and call that one, not a `k6` the PATH may not have (exit 127).
test('README\'s first commands run on a machine without k6: make k6, then bin/k6', () => {
  const blocks = [...read('README.md').matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]).slice(0, 2);
  assert.match(blocks[0], /\bmake k6\b/);
  for (const b of blocks) {
    const bare = b.split('\n').filter((l) => /(^|[;&|]\s*)k6 run\b/.test(l.replace(/#.*/, '')));
    assert.deepEqual(bare, [], 'a `k6 run` the set-up does not install');
  }
});
