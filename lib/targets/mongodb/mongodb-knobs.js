// What the MongoDB target (lib/targets/mongodb/mongodb.js, through the pack's gateway on the
// official Go driver; docs/mongodb.md, docs/gateway.md) declares to the rest of
// the pack through the registry (lib/targets/index.js): its knobs, the names of its failure
// reasons and what it can do. No k6 module here: lib/config.js, the Node scripts and the
// tests read it too.
/** @type {import('../../../types/targets').Declaration} */
export const MONGODB = {
  name: 'mongodb',
  prefix: 'MONGO_',
  knobs: {
    MONGO_URL:    { type: 'secret', wrapper: true, plan: false, url: { schemes: ['mongodb', 'mongodb+srv'], credentials: true, path: true, hosts: 'many', example: 'mongodb://user:password@127.0.0.1:27017/?authSource=admin' }, doc: 'MongoDB connection URL, e.g. mongodb://user:pass@127.0.0.1:17017/?authSource=admin (make up writes one to .run/env). Read by the gateway (bin/wp-gateway, docs/gateway.md) from its environment, never by k6; scripts/run hands it to the private gateway it starts; retryWrites=false unless it says otherwise. The run creates and drops its own database k6wp_<RUN_ID>. Never printed.' },
    MONGO_W:      { type: 'string', plan: false, pattern: /^(default|majority|[1-9][0-9]?)$/, allowed: 'default (the server\'s default write concern), majority, or a number of members from 1 to 99 (0, no acknowledgement, is refused: nothing could be counted)', default: 'default', doc: 'Write concern w of every batch: default = not sent (the server\'s default, read back and reported: {w:1} on a standalone), majority, or a number of members.' },
    MONGO_J:      { type: 'enum', plan: false, values: ['default', 'true', 'false'], default: 'default', doc: 'Write concern j of every batch: true = acknowledged only once the journal holding the write is on disk (E2\'s journaled cell); default = not sent.' },
    MONGO_INDEXES: { type: 'int', min: 0, max: 9, default: 0, doc: 'Secondary indexes on document fields f0..f(N-1) of the E1 documents (E2: 0, 2, 8), as PG_INDEXES.' },
    MONGO_ORDERED: { type: 'bool', default: false, doc: 'Ordered batches: the server stops a batch at its first failed document and never attempts the rest (counted as not_attempted). Default: unordered, every document that can be written is.' },
  },
  // Names next to its knobs that are no knobs: the official image's settings in
  // docker-compose*.yml (MONGO_INITDB_*) and the pack's own for them (MONGO_ROOT_PASSWORD),
  // and make up's private mongod (scripts/services.sh: its port, its WiredTiger cache).
  otherEnv: ['MONGO_ROOT_PASSWORD', 'MONGO_INITDB_ROOT_USERNAME', 'MONGO_INITDB_ROOT_PASSWORD', 'WP_MONGO_PORT', 'WP_MONGO_CACHE_GB'],
  // Failure reasons (one sub-metric each; lib/targets/mongodb/mongodb.js writeErrorReason/errorReason).
  //   e11000           duplicate key (11000), per document
  //   write_conflict   WriteConflict (112)
  //   not_attempted    documents of an ordered batch after its first failure: never sent to storage
  //   write_concern    the write was applied but the write concern was not satisfied (writeConcernError)
  //   write_error      any other per-document write error
  //   unconfirmed      (contention) fewer counters matched or upserted than increments sent
  //   collection_gone  the run's collection was dropped (361 CollectionUUIDMismatch, 175 QueryPlanKilled, 26)
  //   server_error     the command failed as a whole with another server code
  //   timeout          TIMEOUT reached (the module's context deadline)
  //   connection       no server to send to (server selection failed, connection closed)
  //   auth             credentials or privileges refused
  reasons: ['e11000', 'write_conflict', 'not_attempted', 'write_concern', 'write_error', 'unconfirmed', 'collection_gone', 'server_error',
    'timeout', 'connection', 'auth', 'other'],
  // serverConflicts: where the server counts the write conflicts it retried itself, offered with
  // the adapter's increments.serverConflicts() (lib/workloads/contention.js samples it).
  capabilities: (_cfg) => ({ batch: ['insert', 'upsert', 'merge', 'ignore', 'bulk'], count: true, readback: true, undetermined: true, serverConflicts: 'serverStatus metrics.operation.writeConflicts' }),
  // Reached through the pack's gateway (docs/gateway.md): its Server-Timing is recorded per batch.
  gateway: true,
  // Instances of one run may share its database (docs/scale-out.md).
  distributed: true,
  // What its VUs hold per batch (lib/memory.js): http requests (each batch is posted to the
  // gateway, which makes the BSON), one body per VU whatever the operation (every operation
  // sends the same byte image, lib/targets/mongodb/mongodb.js batchBody()).
  memory: { transport: 'http', formats: (ops) => (ops.length > 0 ? 1 : 0) },
};
