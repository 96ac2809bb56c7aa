// Markdown report of experiment-e2: E2's table (upserts/s per configuration and batch size)
// beside the blog post's figures, with the server's and the client's CPU per cell so that a
// client-bound cell is visible. Every figure comes from experiment-e2.json.
import { ALL_CELLS as CELLS, COMPARISONS } from './cells.mjs';

function f(v, digits = 1) {
  if (v === null || v === undefined || Number.isNaN(v)) return '–';
  return Number(v).toFixed(digits);
}

function k(v) { return v === null || v === undefined ? '–' : `${(v / 1000).toFixed(1)} k`; }

const phaseOf = (c, name) => (c.phases || []).find((p) => p.phase === name);

// A cell the tables may hold: its k6 run ended on its own with every threshold met (exit 0)
// and its phases were measured. A killed run (105: k6 interrupted) or a failed one is partial.
export function finishedCell(c) { return !c.error && c.k6_exit === 0 && Array.isArray(c.phases); }

// What k6's exit codes mean (docs/results.md, "In a pipeline").
const EXIT = { 99: 'a threshold failed', 105: 'k6 interrupted (Ctrl-C, SIGTERM)', 107: 'bad input', 108: 'the run was aborted' };

// The campaign as far as it went: how many cells were planned, ran, finished; why it stopped.
export function campaign(r) {
  const planned = r.planned_cells ?? r.cells.length;
  const finished = r.cells.filter(finishedCell);
  return { planned, ran: r.cells.length, finished, left: r.cells.filter((c) => !finishedCell(c)), interrupted: r.interrupted || null };
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
// median (min–max) over repetitions; one value: just the value.
function spreadText(xs, show) {
  const v = xs.filter((x) => x !== null && x !== undefined && Number.isFinite(x));
  if (v.length === 0) return '–';
  if (v.length === 1) return show(v[0]);
  return `${show(median(v))} (${show(Math.min(...v))}–${show(Math.max(...v))})`;
}

// The table column "as the run found it": PostgreSQL's table, MongoDB's collection.
function asFound(c) {
  const t = c.table || {};
  if (c.target === 'mongodb') return `collection, ${t.secondary_indexes ?? '?'} idx, write concern ${t.write_concern || '?'}`;
  return `${t.persistence || '?'}, ${t.secondary_indexes ?? '?'} idx, synchronous_commit=${(c.server && c.server.settings && c.server.settings.synchronous_commit) || '?'}`;
}

// The post's claim, PostgreSQL ÷ MongoDB upserts/s, for each comparison and batch size that
// both sides ran, per repetition (cells of one repetition ran minutes apart, interleaved).
export function comparisons(r) {
  const out = [];
  const reps = Array.from(new Set(r.cells.map((c) => c.rep || 1))).sort((a, b) => a - b);
  const find = (name, batch, rep) => r.cells.find((c) => c.config === name && c.batch_size === batch && (c.rep || 1) === rep && finishedCell(c));
  for (const cmp of COMPARISONS) {
    for (const batch of r.knobs.E2_BATCH_SIZES) {
      const pairs = reps.map((rep) => [find(cmp.pg, batch, rep), find(cmp.mongo, batch, rep)]).filter(([a, b]) => a && b);
      if (pairs.length === 0) continue;
      const up = (c) => phaseOf(c, 'mixed');
      const ratio = pairs.map(([a, b]) => up(a).rows_per_s / up(b).rows_per_s);
      const cpu = (c) => (up(c).docs_ok > 0 ? up(c).server_cpu_s / up(c).docs_ok * 1e6 : null); // µs of server CPU per upsert
      out.push({ ...cmp, batch, n: pairs.length, ratio,
        pg_rate: pairs.map(([a]) => up(a).rows_per_s), mongo_rate: pairs.map(([, b]) => up(b).rows_per_s),
        pg_cpu_us: pairs.map(([a]) => cpu(a)), mongo_cpu_us: pairs.map(([, b]) => cpu(b)),
        pg_share: pairs.map(([a]) => up(a).client_share), mongo_share: pairs.map(([, b]) => up(b).client_share) });
    }
  }
  return out;
}

// Where the measured ratios lie against the post's 2–3×. With one repetition there is no spread
// to speak of: said so instead of a verdict.
export function claimVerdict(ratios) {
  const lo = Math.min(...ratios); const hi = Math.max(...ratios);
  const where = (x) => (x < 1 ? 'MongoDB faster' : x < 2 ? 'PostgreSQL faster, by less than 2×' : x <= 3 ? 'within 2–3×' : 'PostgreSQL faster, by more than 3×');
  if (ratios.length < 3) return `${where(median(ratios))} (n = ${ratios.length}: too few repetitions for a verdict; E2_REPS=3 or more)`;
  if (lo >= 2 && hi <= 3) return `reproduced: every repetition within 2–3× (n = ${ratios.length})`;
  if (hi < 2) return `refuted: every repetition below 2× (n = ${ratios.length}; ${where(hi)})`;
  if (lo > 3) return `refuted: every repetition above 3× (n = ${ratios.length})`;
  return `not settled: the repetitions straddle ${lo < 2 ? '2×' : '3×'} (n = ${ratios.length})`;
}

// A cell is marked client-bound when k6 used more CPU than the server during the upserts:
// then the figure says more about the load generator than about PostgreSQL.
export function clientBound(p) { return p && p.client_share !== null && p.client_share > 0.5; }

export function renderE2(r, { command }) {
  const kn = r.knobs;
  const m = r.machine || {};
  const out = [];
  const run = campaign(r);
  const cells = run.finished;
  // The title promises only the targets whose cells are in the tables.
  const hasPg = cells.some((c) => c.target !== 'mongodb');
  const hasMongo = cells.some((c) => c.target === 'mongodb');
  out.push(`# experiment-e2: ${hasPg ? 'PostgreSQL upserts tuned for throughput (E2\'s matrix)' : hasMongo ? 'MongoDB upserts' : 'no cell finished'}${hasPg && hasMongo ? ', and MongoDB beside them' : ''}`);
  out.push('');
  if (run.interrupted || run.ran < run.planned) {
    out.push(`**Interrupted${run.interrupted ? ` (${run.interrupted})` : ''}: ${run.ran} of ${run.planned} cells ran, ${cells.length} finished; the tables hold only those ${cells.length}.** The cells that did not run are missing${run.left.length ? `, and the ${run.left.length} cut short or failed are listed under "Cells left out"` : ''}. Run the command again for the whole matrix.`);
    out.push('');
  } else if (run.left.length > 0) {
    out.push(`**${run.left.length} of ${run.planned} cells failed or were killed: left out of the tables, listed under "Cells left out".**`);
    out.push('');
  }
  out.push(`Generated by \`${command}\` (experiments/e2/driver.mjs) from ${r.started_at} to ${r.finished_at}. Do not edit by hand: run the command again.`);
  out.push('');
  out.push('## Machine and settings');
  out.push('');
  const pgCell = cells.find((c) => c.target !== 'mongodb' && c.server);
  const mongoCell = cells.find((c) => c.target === 'mongodb' && c.server);
  out.push(`- machine: ${m.cpus} CPUs (${m.cpu_model}), ${m.mem_total_mib} MiB RAM, Linux ${m.kernel}, data on ${m.disk}; ${pgCell ? `PostgreSQL ${pgCell.server.serverVersion || '?'}` : ''}${pgCell && mongoCell ? ' and ' : ''}${mongoCell ? `MongoDB ${mongoCell.server.serverVersion || '?'} (WiredTiger cache ${(mongoCell.server_in_force || {}).wiredtiger_cache || '?'}; E2 measured MongoDB 3.0, also WiredTiger)` : ''}, the driver's own servers, restarted for every cell with that cell's settings`);
  out.push(`- machine load: 1-minute load average ${cells.map((c) => `${c.load1_start ?? '?'}→${c.load1_end ?? '?'}`).join(', ')} at the start→end of each cell; "others" below is the CPU the rest of the machine used during the upserts (2 cores shared with other work)`);
  out.push(`- workload per cell: the pack's scenario (scenarios/postgres/insert-vs-overwrite.js, scenarios/mongodb/insert-vs-overwrite.js; PHASES=load,mixed): E2_DOCS=${kn.E2_DOCS} rows loaded, then E2_UPSERTS=${kn.E2_UPSERTS} rows upserted as \`INSERT … ON CONFLICT (key) DO UPDATE\` (PostgreSQL: key + jsonb table) or a bulkWrite of \`ReplaceOne\` upserts (MongoDB), ${kn.E2_NEW_PERCENT}% new keys per batch, by E2_VUS=${kn.E2_VUS} clients; the same documents on both (DOC_BYTES=${kn.DOC_BYTES}, SEED=${kn.SEED})${(kn.E2_REPS || 1) > 1 ? `; the whole matrix ${kn.E2_REPS} times, interleaved (figures: median (min–max) over the repetitions)` : ''}`);
  out.push(`- measured: upserts/s = rows upserted ÷ the upsert phase's wall time (first batch start to last batch end, writepath_phase_clock); CPU from cgroup counters (${m.cgroup || '?'}: the server in one group, k6 in another) polled every ${r.poll_ms} ms and cut at the same window; cores = CPU-seconds ÷ wall seconds; client share = k6 ÷ (k6 + server)`);
  out.push('');
  out.push('## Upserts per second');
  out.push('');
  out.push('| configuration | batch | upserts/s | published (E2) | upserts per server CPU-second | load rows/s | server cores | client cores | client share | others cores | verified rows | table, as the run found it |');
  out.push('|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const c of cells) {
    const def = CELLS.find((d) => d.name === c.config) || {};
    const up = phaseOf(c, 'mixed');
    const load = phaseOf(c, 'load');
    const v = c.verification || {};
    out.push(`| ${c.config}${(kn.E2_REPS || 1) > 1 ? ` (${c.rep})` : ''} | ${c.batch_size} | ${k(up && up.rows_per_s)} | ${def.published || '–'} | ${k(up && up.server_cpu_s > 0 ? up.docs_ok / up.server_cpu_s : null)} | ${k(load && load.rows_per_s)} | ${f(up && up.server_cores, 2)} | ${f(up && up.client_cores, 2)} | ${up && up.client_share !== null ? `${f(up.client_share * 100, 0)}%${clientBound(up) ? ' (client-bound)' : ''}` : '–'} | ${f(up && up.others_cores, 2)} | ${v.found ?? '–'} of ${v.expected ?? '–'} | ${asFound(c)} |`);
  }
  out.push('');
  const ups = cells.map((c) => phaseOf(c, 'mixed')).filter((p) => p && p.others_cores !== null);
  if (ups.length > 0) {
    const others = ups.reduce((a, p) => a + p.others_cores, 0) / ups.length;
    const cores = m.cpus || 0;
    out.push(`During the upserts the rest of the machine used ${f(others, 2)} of its ${cores} cores on average${cores && others > cores / 4 ? ': the rates above are what PostgreSQL and k6 got of a shared machine, not what it can do alone. Upserts per server CPU-second (rows ÷ the server\'s CPU time) depend much less on what else ran and are the column to compare between cells, except for what the server spends waiting rather than computing (the commit\'s WAL flush with synchronous_commit=on), which only the rate shows' : ''}.`);
    out.push('');
  }
  out.push('Published figures: "How we tweaked Postgres upsert performance to be 2-3* faster than MongoDB" (PostgreSQL 9.5, that author\'s hardware: a SAN SSD at up to 500 MB/s; batches of 100–1000 rows; client count and row size not stated). They are the post\'s round numbers for the step, not for a batch size; the shape to compare is the order of the steps, not the absolute rates.');
  out.push('');
  const cmp = comparisons(r);
  if (cmp.length > 0) {
    out.push('## PostgreSQL vs MongoDB: the post\'s 2–3×');
    out.push('');
    out.push('The post\'s title claims its tuned PostgreSQL upserted 2–3× faster than MongoDB (MongoDB 3.0: ~10 k upserts/s one at a time, 30–50 k/s batched). Each row holds a PostgreSQL cell against the MongoDB cell that acknowledges alike, at the same batch size; the ratio is computed within each repetition (the two cells ran minutes apart), then summarised as median (min–max). Server CPU per upsert is the server cgroup\'s CPU time in the upsert window over the rows upserted: it depends far less on what else the machine ran than the rate does.');
    out.push('');
    out.push('| comparison | batch | PostgreSQL upserts/s | MongoDB upserts/s | PostgreSQL ÷ MongoDB | the post\'s 2–3× | server CPU per upsert, PostgreSQL / MongoDB (µs) | client share, PostgreSQL / MongoDB |');
    out.push('|---|---|---|---|---|---|---|---|');
    const kk = (v) => `${(v / 1000).toFixed(1)} k`;
    const pct = (v) => `${(v * 100).toFixed(0)}%`;
    for (const x of cmp) {
      out.push(`| ${x.pg} vs ${x.mongo}: ${x.what} | ${x.batch} | ${spreadText(x.pg_rate, kk)} | ${spreadText(x.mongo_rate, kk)} | ${spreadText(x.ratio, (v) => `${v.toFixed(2)}×`)} | ${claimVerdict(x.ratio)} | ${spreadText(x.pg_cpu_us, (v) => v.toFixed(1))} / ${spreadText(x.mongo_cpu_us, (v) => v.toFixed(1))} | ${spreadText(x.pg_share, pct)} / ${spreadText(x.mongo_share, pct)} |`);
    }
    out.push('');
    out.push('Reading: "reproduced" needs every repetition inside 2–3×, "refuted" every repetition outside on one side; anything else is not settled by this run. The verdict is about this machine, these server versions and these documents, not about the post\'s hardware.');
    out.push('');
  }
  out.push('## Configurations');
  out.push('');
  out.push('| configuration | what | pack knobs (per run: connections and table) | server-wide settings in force (pg_settings after the start) |');
  out.push('|---|---|---|---|');
  const seen = new Set();
  for (const c of cells) {
    if (seen.has(c.config)) continue;
    seen.add(c.config);
    const def = CELLS.find((d) => d.name === c.config) || {};
    const s = c.server_in_force || {};
    out.push(`| ${c.config} | ${def.what || ''} | ${Object.entries(c.pack || {}).map(([n, v]) => `${n}=${v}`).join(' ')} | ${Object.entries(s).map(([n, v]) => `${n}=${v}`).join(', ')} |`);
  }
  out.push('');
  if (run.left.length > 0) {
    out.push('## Cells left out');
    out.push('');
    out.push('Cut short or failed: none of their figures is in the tables above (a killed run measured part of its plan only).');
    out.push('');
    for (const c of run.left) {
      const code = c.k6_exit ?? null;
      out.push(`- ${c.config} batch ${c.batch_size}${(kn.E2_REPS || 1) > 1 ? ` (${c.rep})` : ''}: k6 exit ${code ?? '– (k6 did not end)'}${EXIT[code] ? ` (${EXIT[code]})` : ''}${c.error ? `; ${c.error.split('\n')[0]}` : ''}`);
    }
    out.push('');
  }
  out.push('## Checks');
  out.push('');
  for (const c of r.cells) {
    const up = phaseOf(c, 'mixed');
    const v = c.verification || {};
    out.push(`- ${c.config} batch ${c.batch_size}: k6 exit ${c.k6_exit ?? '–'}; upserted ${up ? up.docs_ok : '–'} rows in ${up ? up.batches : '–'} batches, ${up ? up.docs_failed : '–'} failed; expected ${v.expected ?? '–'} rows, found ${v.found ?? '–'}; read-back ${v.readback_checked ?? '–'} keys, ${v.readback_stale_or_missing ?? '–'} stale or missing; cgroups removed: ${c.cgroups_removed ? 'yes' : 'NO'}${c.error ? `; ERROR: ${c.error}` : ''}`);
  }
  out.push('');
  return out.join('\n');
}
