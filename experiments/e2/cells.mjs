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

// The baseline the post is named after: MongoDB (the post: 3.0 with WiredTiger, ~10 k upserts/s
// one at a time, 30–50 k/s batched). Cells of the pack's MongoDB scenario on the driver's own
// mongod (scripts/mongo-private.sh, the server version make up runs), with the write concern
// MongoDB acknowledges by default and with a journaled one, and with the secondary indexes the
// PostgreSQL cells use. pack: the per-run knobs of scenarios/mongodb/insert-vs-overwrite.js.
export const MONGO_CELLS = [
  {
    name: 'mongo-default', target: 'mongodb', published: '30–50 k/s (batched)',
    what: 'MongoDB, the server\'s default write concern ({w:1}: acknowledged once applied in memory, journal flushed every 100 ms)',
    pack: { MONGO_W: 'default', MONGO_J: 'default', MONGO_INDEXES: 0 }, server: [],
  },
  {
    name: 'mongo-journaled', target: 'mongodb', published: null,
    what: 'MongoDB, write concern {j:true}: acknowledged once the journal holding the batch is on disk',
    pack: { MONGO_W: 'default', MONGO_J: 'true', MONGO_INDEXES: 0 }, server: [],
  },
  {
    name: 'mongo-2idx', target: 'mongodb', published: null,
    what: 'mongo-default + 2 secondary indexes (the fields of unlogged-2idx)',
    pack: { MONGO_W: 'default', MONGO_J: 'default', MONGO_INDEXES: 2 }, server: [],
  },
  {
    name: 'mongo-8idx', target: 'mongodb', published: null,
    what: 'mongo-default + 8 secondary indexes (the fields of unlogged-8idx)',
    pack: { MONGO_W: 'default', MONGO_J: 'default', MONGO_INDEXES: 8 }, server: [],
  },
];

export const ALL_CELLS = [...CELLS.map((c) => ({ target: 'postgres', ...c })), ...MONGO_CELLS];
export const CELL_NAMES = ALL_CELLS.map((c) => c.name);

// The post's claim, held against pairs of cells that acknowledge alike (same batch size):
// PostgreSQL ÷ MongoDB upserts/s. E2 compared its tuned PostgreSQL with MongoDB's default.
export const COMPARISONS = [
  { pg: 'defaults', mongo: 'mongo-journaled', what: 'durable when acknowledged: synchronous_commit=on vs j:true' },
  { pg: 'sync-off', mongo: 'mongo-default', what: 'acknowledged before the disk: synchronous_commit=off vs {w:1} (the WAL is flushed within 3 × wal_writer_delay = 0.6 s, the journal every 100 ms)' },
  { pg: 'unlogged', mongo: 'mongo-default', what: 'E2\'s unlogged table vs MongoDB\'s default' },
  { pg: 'unlogged-tuned', mongo: 'mongo-default', what: 'E2\'s headline: its tuned PostgreSQL vs MongoDB\'s default (the post: 2–3×)', headline: true },
  { pg: 'unlogged-2idx', mongo: 'mongo-2idx', what: '2 secondary indexes on both' },
  { pg: 'unlogged-8idx', mongo: 'mongo-8idx', what: '8 secondary indexes on both' },
];
