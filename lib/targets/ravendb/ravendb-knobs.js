// What the RavenDB target (lib/targets/ravendb/ravendb.js, HTTP through k6/http; docs/ravendb.md)
// declares to the rest of the pack through the registry (lib/targets/index.js): its knobs,
// the names of its failure reasons and what it can do. No k6 module here: lib/config.js, the
// Node scripts and the tests read it too.
/** @type {import('../../../types/targets').Declaration} */
export const RAVENDB = {
  name: 'ravendb',
  prefix: 'RAVEN_',
  knobs: {
    RAVEN_URL:    { type: 'url', plan: false, schemes: ['http', 'https'], path: false, allowed: 'http(s)://host:port without credentials or path (the pack supports unsecured servers only)', default: 'http://127.0.0.1:8080', doc: 'RavenDB server (unsecured setup; docs/ravendb.md). The run creates and drops its own database k6wp_<RUN_ID>.' },
    RAVEN_COLLECTION: { type: 'string', pattern: /^[A-Za-z][A-Za-z0-9_]{0,63}$/, allowed: '1-64 characters A-Z a-z 0-9 _ starting with a letter', default: 'Users', doc: 'Collection (@metadata.@collection) the documents are written to.' },
    RAVEN_GZIP:   { type: 'bool', plan: false, default: false, doc: 'Send bulk insert bodies gzip-compressed (Content-Encoding: gzip; RavenDB does not understand deflate). Costs client CPU, saves network.' },
    RAVEN_INDEXES: { type: 'int', min: 0, max: 9, default: 0, doc: 'Fields f0..f(N-1) of the E1 documents in one static Map index (0 = no index); with RAVEN_WAIT_FOR_INDEXES a batch waits for it.' },
    RAVEN_WAIT_FOR_INDEXES: { type: 'duration', plan: false, min: '1ms', max: '24h', doc: 'waitForIndexesTimeout on bulk_docs batches (insert/upsert), e.g. 30s: the batch answers once the indexes caught up, so the time per batch is write + index. Empty = do not wait.' },
    LOAD_OP:      { type: 'enum', values: ['insert', 'bulk'], default: 'insert', doc: 'How the E1 load phase writes on RavenDB: insert = bulk_docs with ChangeVector "" (a duplicate fails the batch), bulk = bulk insert (always overwrites).' },
  },
  // (RavenDB's own settings, RAVEN_License, RAVEN_Setup_Mode, …, are mixed case: never taken for knobs.)
  otherEnv: [],
  reasons: ['conflict', 'missing', 'unconfirmed', 'connection', 'timeout', 'http_400', 'http_402', 'http_403', 'http_404', 'http_408',
    'http_413', 'http_429', 'http_500', 'http_502', 'http_503', 'http_other'],
  // compression: how request bodies travel (the per-stage report says so).
  // undetermined: a batch may end stored or not without the pack knowing (lib/targets/outcome.js).
  capabilities: (cfg) => ({ batch: ['insert', 'upsert', 'bulk'], count: true, readback: true, undetermined: true, compression: cfg.RAVEN_GZIP ? 'gzip' : null }),
  distributed: true,
  // What its VUs hold per batch (lib/memory.js): http requests, one body per request format of
  // the operations a plan writes: the bulk insert command array, and bulk_docs (insert and
  // upsert share one body, lib/targets/ravendb/ravendb.js).
  memory: { transport: 'http', formats: (ops) => (ops.includes('bulk') ? 1 : 0) + (ops.some((o) => o !== 'bulk') ? 1 : 0) },
};
