// E2's tuning matrix: one home for the configurations, what each sets, and the figure the
// blog post published for it. Source of the figures: "How we tweaked Postgres upsert
// performance to be 2-3* faster than MongoDB" (PostgreSQL 9.5, on that author's hardware with
// a SAN SSD; docs/experiments.md summarises it). The steps are cumulative as in the post:
// synchronous_commit off first, then an unlogged table, then indexes or server tuning on top.
//
// pack: the pack's own per-run knobs (lib/config.js) — they act on the run's connections and
//       table, exactly as a user of scenarios/postgres/insert-vs-overwrite.js sets them;
// server: settings the driver starts its private server with (postgres -c name=value).
export const CELLS = [
  {
    name: 'defaults', published: null,
    what: 'logged table, synchronous_commit=on, PostgreSQL defaults',
    pack: { PG_SYNC_COMMIT: 'on', PG_TABLE: 'logged', PG_INDEXES: 0 }, server: [],
  },
  {
    name: 'sync-off', published: '≈50 k/s',
    what: 'synchronous_commit=off (per connection, as SET LOCAL in the post)',
    pack: { PG_SYNC_COMMIT: 'off', PG_TABLE: 'logged', PG_INDEXES: 0 }, server: [],
  },
  {
    name: 'unlogged', published: '≈85 k/s',
    what: 'sync-off + CREATE UNLOGGED TABLE',
    pack: { PG_SYNC_COMMIT: 'off', PG_TABLE: 'unlogged', PG_INDEXES: 0 }, server: [],
  },
  {
    name: 'unlogged-2idx', published: null,
    what: 'unlogged + 2 secondary indexes',
    pack: { PG_SYNC_COMMIT: 'off', PG_TABLE: 'unlogged', PG_INDEXES: 2 }, server: [],
  },
  {
    name: 'unlogged-8idx', published: '≈35 k/s',
    what: 'unlogged + 8 secondary indexes',
    pack: { PG_SYNC_COMMIT: 'off', PG_TABLE: 'unlogged', PG_INDEXES: 8 }, server: [],
  },
  {
    // The post: shared_buffers=3GB, effective_io_concurrency=8, commit_delay=100000 on the
    // unlogged table. shared_buffers is E2_SHARED_BUFFERS_MB here (this machine is shared).
    name: 'unlogged-tuned', published: '≈100 k/s',
    what: 'unlogged + larger shared_buffers, effective_io_concurrency=8, commit_delay=100000',
    pack: { PG_SYNC_COMMIT: 'off', PG_TABLE: 'unlogged', PG_INDEXES: 0 },
    server: ['effective_io_concurrency=8', 'commit_delay=100000'], bigBuffers: true,
  },
  {
    name: 'logged-wal', published: '80–90 k/s',
    what: 'sync-off on a logged table + max_wal_size=10GB, min_wal_size=1GB (fewer checkpoints and full-page writes)',
    pack: { PG_SYNC_COMMIT: 'off', PG_TABLE: 'logged', PG_INDEXES: 0 },
    server: ['max_wal_size=10GB', 'min_wal_size=1GB'],
  },
];

export const CELL_NAMES = CELLS.map((c) => c.name);
