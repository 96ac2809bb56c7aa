#!/usr/bin/env node
// The aggregate of a repeated run (scripts/run … -e REPEAT=N calls it; docs/results.md):
//   scripts/aggregate.mjs results/<RUN_ID> [--exits 0,0,99,…]
// reads the repetitions' folders results/<RUN_ID>/<RUN_ID>_rNN/ (their summary.json, in the
// order they ran), writes summary.txt, summary.json, junit.xml and report.html of the
// aggregate into results/<RUN_ID>/ and prints summary.txt. --exits: k6's exit code of each
// repetition (scripts/run knows them; a repetition that left no summary.json still counts).
// Also the reader of such a folder for scripts/compare (readRepeat).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { aggregate, aggregateJunit, aggregateText } from './lib/repeat.mjs';
import { renderRepeatHtml } from './lib/report-repeat.mjs';
import { InputError, ensureDir, readJsonFile, readSummaryFile, runTool, writeFileAtomic } from './lib/files.mjs';

export const REP_RE = /^(.+)_r(\d{2})$/;

// The repetitions of results/<id>/: [{ run_id, dir, summary|null }] in repetition order.
export function repetitionsOf(dir) {
  const id = path.basename(path.resolve(dir));
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && REP_RE.test(e.name) && REP_RE.exec(e.name)[1] === id)
    .map((e) => e.name).sort()
    .map((name) => {
      const f = path.join(dir, name, 'summary.json');
      return { run_id: name, dir: path.join(dir, name), summary: existsSync(f) ? readSummaryFile(f) : null };
    });
}

// A folder written by REPEAT=N (its summary.json has kind "repeat"), or null.
export function readRepeat(dir) {
  const f = path.join(dir, 'summary.json');
  if (!existsSync(f)) return null;
  const s = readJsonFile(f);
  return s && s.kind === 'repeat' ? s : null;
}

// server:/settings:/workload: lines of the first repetition's table (its own words).
function headerOf(rep) {
  const f = path.join(rep.dir, 'summary.txt');
  if (!existsSync(f)) return [];
  return readFileSync(f, 'utf8').split('\n').filter((l) => /^(server|settings|workload): /.test(l));
}

export function writeAggregate(dir, exits = []) {
  const reps = repetitionsOf(dir).map((r, i) => ({ ...r, dir: r.run_id, exit: exits[i] ?? null, abs: r.dir }));
  const runId = path.basename(path.resolve(dir));
  const agg = aggregate(reps, { runId });
  if (!agg) return null;
  const first = reps.find((r) => r.summary);
  const text = aggregateText(agg, { header: headerOf({ dir: first.abs }), resultsAt: `${dir.replace(/\/$/, '')}/` });
  writeFileAtomic(path.join(dir, 'summary.json'), `${JSON.stringify(agg, null, 2)}\n`);
  writeFileAtomic(path.join(dir, 'summary.txt'), text);
  writeFileAtomic(path.join(dir, 'junit.xml'), aggregateJunit(agg));
  writeFileAtomic(path.join(dir, 'report.html'), renderRepeatHtml(agg));
  return { agg, text };
}

function main(argv) {
  const dir = argv[0];
  if (!dir || argv.length > 3 || (argv.length > 1 && argv[1] !== '--exits')) {
    process.stderr.write('usage: scripts/aggregate.mjs results/<RUN_ID> [--exits 0,99,…]\n');
    return 2;
  }
  const exits = argv[2] ? argv[2].split(',').map((x) => (x === '' ? null : Number(x))) : [];
  if (!existsSync(dir)) throw new InputError(`${dir}: no such result folder`);
  // The aggregate goes into the folder itself: never through a planted link.
  ensureDir(dir, 'result folder');
  const r = writeAggregate(dir, exits);
  if (!r) {
    process.stderr.write(`scripts/aggregate.mjs: ${dir}: no repetition left a summary.json (folders ${path.basename(path.resolve(dir))}_rNN)\n`);
    return 108;
  }
  process.stdout.write(r.text);
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) runTool('scripts/aggregate.mjs', () => main(process.argv.slice(2)));
