// What the PostgreSQL target (lib/targets/postgres/postgres.js) declares to the rest of the pack through
// the registry (lib/targets/index.js): its knobs, the names of its failure reasons and what it
// can do. No k6 module here: lib/config.js, the Node scripts and the tests read it too.
/** @type {import('../../../types/targets').Declaration} */
export const POSTGRES = {
  name: 'postgres',
  // Environment names with this prefix look like its knobs (a misspelling is refused).
  prefix: 'PG_',
  knobs: {
    PG_URL:       { type: 'secret', wrapper: true, plan: false, url: { schemes: ['postgres', 'postgresql'], credentials: true, path: true, example: 'postgres://user:password@host:5432/database?sslmode=disable' }, doc: 'PostgreSQL connection URL, e.g. postgres://user:pass@127.0.0.1:17432/writepath?sslmode=disable (make up writes one to .run/env). Read by the gateway (bin/wp-gateway, docs/gateway.md) from its environment, never by k6; scripts/run hands it to the private gateway it starts. Never printed.' },
    PG_SCHEMA:    { type: 'string', plan: false, pattern: /^[a-z_][a-z0-9_]{0,62}$/, allowed: 'a lower-case SQL identifier', default: 'public', doc: 'Schema that holds the run\'s table k6wp_<RUN_ID>.' },
    PG_TABLE:     { type: 'enum', values: ['logged', 'unlogged'], default: 'logged', doc: 'E2: UNLOGGED skips WAL (faster, not crash-safe).' },
    PG_SYNC_COMMIT: { type: 'enum', plan: false, values: ['on', 'off', 'local', 'remote_write', 'remote_apply'], default: 'on', doc: 'synchronous_commit for the run\'s connections (E2: off).' },
    PG_INDEXES:   { type: 'int', min: 0, max: 9, default: 0, doc: 'Secondary indexes on document fields (E2: 0, 2, 8).' },
  },
  // Names next to its knobs that are no knobs: the server's own settings in docker-compose*.yml.
  otherEnv: ['POSTGRES_PASSWORD', 'PG_SYNCHRONOUS_COMMIT', 'PG_FSYNC', 'PG_FULL_PAGE_WRITES', 'PG_WAL_LEVEL', 'PG_COMMIT_DELAY', 'PG_MAX_WAL_SIZE', 'PG_MIN_WAL_SIZE',
    'PG_SHARED_BUFFERS', 'PG_EFFECTIVE_IO_CONCURRENCY', 'PG_WORK_MEM', 'PG_TEMP_BUFFERS'],
  // Failure reasons (one sub-metric each; lib/targets/postgres/postgres.js classify()).
  // cancelled: the server cancelled the statement before TIMEOUT (SQLSTATE 57014: pg_cancel_backend,
  // statement_timeout); the same code at TIMEOUT is the pack's own cancel, reason timeout.
  reasons: ['unique_violation', 'cardinality_violation', 'deadlock', 'serialization', 'unconfirmed', 'timeout', 'cancelled', 'connection', 'auth', 'undefined_table', 'other'],
  // What workloads may ask of it (lib/capabilities.js).
  capabilities: (_cfg) => ({ batch: ['insert', 'upsert'], count: true, readback: true, undetermined: true }),
  // Reached through the pack's gateway (docs/gateway.md): its Server-Timing is recorded per batch.
  gateway: true,
  // Instances of one run may share its table (docs/scale-out.md).
  distributed: true,
  // What its VUs hold per batch (lib/memory.js): http requests (each batch is posted to the
  // gateway), one body per request format of the operations a plan writes (every batch is the
  // same binary jsonb parameter, whatever the statement).
  memory: { transport: 'http', formats: (ops) => (ops.length > 0 ? 1 : 0) },
};
