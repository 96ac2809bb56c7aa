// Every knob of the pack, read from the environment (k6's __ENV) in this one place and
// validated before anything is written. A bad value stops the run with one line that names
// the knob, the value and what is allowed. docs/configuration.md's knob table lists the same
// knobs (a test keeps the two in step).

export const KNOBS = {
  // Workload (all targets)
  RUN_ID:       { type: 'string', pattern: /^[a-z0-9][a-z0-9_]{0,31}$/, allowed: '1-32 characters a-z 0-9 _ (starting with a letter or digit)', doc: 'Names this run: results/<RUN_ID>/, the testid tag, and every object the run creates (k6wp_<RUN_ID>…). Default: generated from the clock.' },
  PHASES:       { type: 'list', doc: 'Phases to run, in this order, from the experiment\'s list (insert-vs-overwrite: load,overwrite,mixed).' },
  DOCS:         { type: 'int', min: 1, max: 1e9, default: 20000, doc: 'Documents written by the load phase (exact count).' },
  BATCH_SIZE:   { type: 'int', min: 1, max: 100000, default: 1000, doc: 'Documents per batch request/statement (E1 used 10000).' },
  VUS:          { type: 'int', min: 1, max: 1000, default: 2, doc: 'Virtual users (concurrent clients).' },
  OVERWRITE_BATCHES: { type: 'int', min: 0, max: 1e7, default: 20, doc: 'Batches in the overwrite phase; each upserts BATCH_SIZE existing keys (E1: 100 for ArangoDB, 50 for PostgreSQL).' },
  MIXED_BATCHES:     { type: 'int', min: 0, max: 1e7, default: 10, doc: 'Batches in the mixed phase.' },
  MIXED_NEW_PERCENT: { type: 'int', min: 0, max: 100, default: 50, doc: 'Share of new keys in each mixed batch, in percent; the rest overwrite existing keys.' },
  MIXED_OP:     { type: 'enum', values: ['upsert', 'insert'], default: 'upsert', doc: 'Operation of the mixed phase. insert shows what E1\'s client faced without overwrite: every existing key in a batch is a failed document (PostgreSQL fails the whole statement).' },
  KEY_DIST:     { type: 'enum', values: ['uniform', 'zipfian', 'hotspot'], default: 'uniform', doc: 'How overwrite/mixed phases pick existing keys (always distinct within a batch).' },
  ZIPF_THETA:   { type: 'number', min: 0.01, max: 0.999, default: 0.99, doc: 'Skew of KEY_DIST=zipfian (YCSB\'s default 0.99).' },
  HOTSPOT_DATA_PERCENT: { type: 'int', min: 1, max: 99, default: 20, doc: 'KEY_DIST=hotspot: share of keys that are hot, in percent.' },
  HOTSPOT_OPS_PERCENT:  { type: 'int', min: 1, max: 99, default: 80, doc: 'KEY_DIST=hotspot: share of picks that go to hot keys, in percent.' },
  DOC_SHAPE:    { type: 'enum', values: ['e1', 'complexity', 'random-shapes', 'user'], default: 'e1', defaults: { 'ravendb/bulk-insert': 'user' }, doc: 'Document generator: e1 = E1\'s non-compressible number-string payload; complexity = COMPLEXITY string attributes (arangobench); random-shapes = COMPLEXITY attributes whose names differ in every document; user = realistic user records (names, email, address, dates; E4, scenarios/ravendb/bulk-insert.js uses it by default).' },
  DOC_BYTES:    { type: 'int', min: 100, max: 1000000, default: 1200, doc: 'DOC_SHAPE=e1: approximate size of one document in bytes (E1: ~1200).' },
  COMPLEXITY:   { type: 'int', min: 1, max: 10000, default: 10, doc: 'DOC_SHAPE=complexity|random-shapes: attributes per document (E3: 100, 1000, 10000).' },
  DOC_POOL:     { type: 'int', min: 1, max: 100000, default: 1024, defaults: { 'ravendb/bulk-insert': 10000 }, doc: 'Distinct payloads pre-generated per VU (outside the timed path); documents reuse them with their own key and stamp.' },
  SEED:         { type: 'int', min: 0, max: 4294967295, default: 1, doc: 'Seed of every random choice (keys, payloads): same seed, same documents.' },
  THRESHOLDS:   { type: 'string', pattern: /^[^\0]+$/, allowed: 'a path to a JSON file', doc: 'Threshold file, relative to the repository root or absolute. Default: thresholds/<target>/<experiment>.json.' },
  RESULTS_DIR:  { type: 'string', pattern: /^[^\0]+$/, allowed: 'a directory path', default: 'results', doc: 'Where results/<RUN_ID>/ is written, relative to the directory k6 runs in.' },
  READBACK:     { type: 'int', min: 0, max: 1e8, default: 1000, doc: 'Overwritten keys read back (each VU its own, after its last batch) to check they hold the last acknowledged version (0 = none).' },
  TIMEOUT:      { type: 'duration', min: '100ms', max: '24h', default: '60s', doc: 'Timeout of one batch request/statement; a batch that takes longer counts as failed (reason timeout).' },
  MAX_DURATION: { type: 'duration', min: '1s', max: '720h', default: '30m', doc: 'Upper bound on the whole write scenario (k6 maxDuration); unfinished batches are reported, not hidden.' },
  REUSE:        { type: 'enum', values: ['0', '1', 'recreate'], default: '0', doc: 'With an explicit RUN_ID whose objects already exist: 1 = empty and reuse them when their marker is exactly this pack\'s for this RUN_ID and their shape (table kind, indexes, collections, waitForSync…) matches this run\'s settings; recreate = the same, but drop and create them anew when the shape differs. Anything else is refused and never touched (docs/reliability.md).' },
  RUN_SECRET:   { type: 'secret', minLength: 16, doc: 'Proves that objects are this run\'s (docs/reliability.md, "What ours means"): every marker carries an HMAC made with it, which nobody without it can forge. Needed, the same everywhere, by REUSE (the value of the run that kept the objects) and by every instance and the verify step of a distributed run; scripts/run sets it from .run/run-secret (made once, mode 600) when it is not set. At least 16 characters; environment only, never printed.' },
  KEEP:         { type: 'bool', default: false, doc: 'Keep the run\'s table/collection/database after the run instead of dropping it.' },
  // Reports (docs/results.md)
  HTML_REPORTER: { type: 'enum', values: ['builtin', 'k6-reporter', 'none'], default: 'builtin', doc: 'HTML report in results/<RUN_ID>/: builtin = report.html from our own code (offline, self-contained); k6-reporter = also k6-reporter.html from benc-uk/k6-reporter 3.0.4, imported by URL through scripts/run (needs internet; without it scripts/run warns and keeps the builtin report); none = no HTML.' },
  WEB_DASHBOARD: { type: 'bool', default: false, doc: 'scripts/run: also export k6\'s built-in web dashboard to results/<RUN_ID>/k6-dashboard.html (no port opened; k6 skips the export for runs shorter than about 3 x WEB_DASHBOARD_PERIOD).' },
  WEB_DASHBOARD_PERIOD: { type: 'duration', min: '100ms', max: '1h', default: '1s', doc: 'scripts/run with WEB_DASHBOARD=1: sampling period of the web dashboard export (k6 default 10s is too coarse for short runs).' },
  K6_REPORTER_URL: { type: 'string', pattern: /^(https:\/\/|file:\/\/\/)\S+$/, allowed: 'an https:// or file:/// URL (k6 imports remote modules only over https and local ones as file:///absolute/path)', default: 'https://raw.githubusercontent.com/benc-uk/k6-reporter/3.0.4/dist/bundle.js', doc: 'scripts/run with HTML_REPORTER=k6-reporter: where k6 imports benc-uk/k6-reporter from; offline machines point it at a local copy, e.g. file:///opt/k6-reporter/bundle.js (docs/results.md).' },
  // Read by scripts/run and make up/down only (not by k6): listed here so that they are documented and
  // validated in one place; loadConfig skips them.
  REPEAT:       { type: 'int', scope: 'wrapper', min: 1, max: 99, default: 1, doc: 'scripts/run: run the scenario this many times, one after another, each repetition a run of its own (RUN_ID <RUN_ID>_rNN, its own objects and folder results/<RUN_ID>/<RUN_ID>_rNN/), then the aggregate in results/<RUN_ID>/: per phase and figure the median, min – max and a distribution-free 95 % interval (from 6 repetitions on; docs/results.md).' },
  HISTORY:      { type: 'string', scope: 'wrapper', pattern: /^[^\0]+$/, allowed: 'a file path, or 0', doc: 'scripts/run: the history file every run\'s headline figures (docs/s, p50, p99 per phase) are appended to, for scripts/history analyze (Apache Otava\'s change points; docs/results.md). Default: <RESULTS_DIR>/history.csv; 0 = do not append.' },
  WP_INFLUX:    { type: 'bool', scope: 'wrapper', default: true, doc: 'scripts/run: 0 = do not stream to INFLUX_URL even when it is set.' },
  K6:           { type: 'string', scope: 'wrapper', pattern: /^\S+$/, allowed: 'path of a k6 binary', default: 'bin/k6', doc: 'scripts/run, scripts/compare: the k6 binary to run (e.g. a stock k6 for the ArangoDB/RavenDB scenarios: bin/k6-stock).' },
  WP_PG_PORT:   { type: 'int', scope: 'wrapper', min: 1024, max: 65535, default: 17432, doc: 'make up/down/test: port of the private PostgreSQL on 127.0.0.1 (environment only, read by scripts/services.sh).' },
  WP_INFLUX_PORT: { type: 'int', scope: 'wrapper', min: 1024, max: 65533, default: 17086, doc: 'make up/down/test: port of the private InfluxDB on 127.0.0.1 (its RPC port is this + 2; environment only, read by scripts/services.sh).' },
  DISTRIBUTED: { type: 'enum', values: ['0', '1', 'verify'], default: '0', doc: 'Several k6 instances share one run (--execution-segment, k6-operator): 1 = this process is one instance (needs an explicit RUN_ID, the same on every instance; setup creates or joins the run\'s objects; teardown neither verifies nor drops); verify = after all instances: verify the union and drop the objects (scripts/verify-distributed). 0 = a single process.' },
  // Guards (docs/reliability.md)
  INFLUX_URL:   { type: 'url', schemes: ['http', 'https'], path: true, allowed: 'http(s)://host:port/<database> without credentials (those go in K6_INFLUXDB_USERNAME/K6_INFLUXDB_PASSWORD)', doc: 'scripts/run: InfluxDB 1.x to stream the metrics to (make up writes one to .run/env; WP_INFLUX=0 turns it off). Checked before the run; an InfluxDB that does not answer is said in one line and the run goes on without it.' },
  MEMORY_BUDGET_MB: { type: 'int', min: 16, max: 1048576, default: 2048, doc: 'Client memory the workload may plan for, in MiB: every VU holds DOC_POOL documents and builds BATCH_SIZE documents per batch; a run whose estimate (VUs x (pool + 3 x batch)) exceeds it is refused before anything is written.' },
  IGNORE_ENV:   { type: 'list', itemPattern: /^[A-Za-z_][A-Za-z0-9_]*$/, allowed: 'comma-separated environment variable names', doc: 'Names of environment variables that look like a knob (close spelling, or a PG_/ARANGO_/RAVEN_/INFLUX_/MONGO_ prefix) but are meant for something else; without it such a name stops the run with "did you mean …".' },
  ALLOW_HTTP_DEBUG: { type: 'bool', default: false, doc: 'Allow k6 --http-debug: it prints every request\'s headers (ArangoDB Authorization: Basic, i.e. the password) and with =full the bodies (the JWT login body holds the password). Refused without this knob.' },
  // PostgreSQL
  PG_URL:       { type: 'secret', target: 'postgres', url: { schemes: ['postgres', 'postgresql'], credentials: true, path: true }, doc: 'PostgreSQL connection URL, e.g. postgres://user:pass@127.0.0.1:17432/writepath?sslmode=disable (make up writes one to .run/env). Never printed.' },
  PG_SCHEMA:    { type: 'string', target: 'postgres', pattern: /^[a-z_][a-z0-9_]{0,62}$/, allowed: 'a lower-case SQL identifier', default: 'public', doc: 'Schema that holds the run\'s table k6wp_<RUN_ID>.' },
  PG_TABLE:     { type: 'enum', target: 'postgres', values: ['logged', 'unlogged'], default: 'logged', doc: 'E2: UNLOGGED skips WAL (faster, not crash-safe).' },
  PG_SYNC_COMMIT: { type: 'enum', target: 'postgres', values: ['on', 'off', 'local', 'remote_write', 'remote_apply'], default: 'on', doc: 'synchronous_commit for the run\'s connections (E2: off).' },
  PG_INDEXES:   { type: 'int', target: 'postgres', min: 0, max: 9, default: 0, doc: 'Secondary indexes on document fields (E2: 0, 2, 8).' },
  // ArangoDB (REST through k6/http; docs/arangodb.md)
  ARANGO_URL:   { type: 'url', target: 'arangodb', schemes: ['http', 'https'], path: false, allowed: 'http(s)://host:port without credentials or path (credentials go in ARANGO_USER/ARANGO_PASSWORD)', default: 'http://127.0.0.1:8529', doc: 'ArangoDB server (coordinator or single server).' },
  ARANGO_USER:  { type: 'string', target: 'arangodb', pattern: /^[^:\s]{1,64}$/, allowed: '1-64 characters without ":" or spaces', default: 'root', doc: 'User for basic auth or /_open/auth; needs rights to create and drop databases in _system.' },
  ARANGO_PASSWORD: { type: 'secret', target: 'arangodb', doc: 'Password of ARANGO_USER, from the environment only; empty or unset = empty password (servers started with ARANGO_NO_AUTH ignore it). Never printed.' },
  ARANGO_AUTH:  { type: 'enum', target: 'arangodb', values: ['basic', 'jwt'], default: 'basic', doc: 'basic = Authorization: Basic on every request; jwt = one token per VU from /_open/auth, renewed when less than min(5 minutes, a quarter of its lifetime) remains (server default lifetime 1 h).' },
  ARANGO_WAIT_FOR_SYNC: { type: 'bool', target: 'arangodb', default: false, doc: 'waitForSync property of the run\'s collections (true: every write is synced before the answer, status 201).' },
  ARANGO_INDEXES: { type: 'int', target: 'arangodb', min: 0, max: 9, default: 0, doc: 'Persistent (non-unique) indexes on f0..f8 of the E1 documents; each overwrite must then read the old revision to remove its index entries.' },
  ARANGO_SILENT: { type: 'bool', target: 'arangodb', default: false, doc: 'silent=true on batch writes: the answer lists only failed elements, so failures are counted from X-Arango-Error-Codes and cannot be mapped to keys (docs_new of mixed batches becomes a lower bound).' },
  ARANGO_KEEP_NULL: { type: 'bool', target: 'arangodb', default: true, doc: 'keepNull sent explicitly with OVERWRITE_OP=merge (docs say the default is true, the server source parses false).' },
  OVERWRITE_OP: { type: 'enum', target: 'arangodb', values: ['upsert', 'merge', 'ignore'], default: 'upsert', doc: 'Operation of the E1 overwrite phase on ArangoDB: upsert = overwriteMode=replace, merge = overwriteMode=update, ignore = overwriteMode=ignore (no write).' },
  ARANGOBENCH_CASE: { type: 'enum', target: 'arangodb', values: ['document', 'crud', 'crud-append', 'crud-write-read', 'multi-collection', 'random-shapes', 'persistent-index'], default: 'document', doc: 'scenarios/arangodb/arangobench.js: which E3/arangobench test case to run.' },
  REQUESTS:     { type: 'int', target: 'arangodb', min: 1, max: 1e9, default: 10000, doc: 'scenarios/arangodb/arangobench.js: total operations (exact), like arangobench --requests.' },
  // RavenDB (HTTP through k6/http; docs/ravendb.md)
  RAVEN_URL:    { type: 'url', target: 'ravendb', schemes: ['http', 'https'], path: false, allowed: 'http(s)://host:port without credentials or path (the pack supports unsecured servers only)', default: 'http://127.0.0.1:8080', doc: 'RavenDB server (unsecured setup; docs/ravendb.md). The run creates and drops its own database k6wp_<RUN_ID>.' },
  RAVEN_COLLECTION: { type: 'string', target: 'ravendb', pattern: /^[A-Za-z][A-Za-z0-9_]{0,63}$/, allowed: '1-64 characters A-Z a-z 0-9 _ starting with a letter', default: 'Users', doc: 'Collection (@metadata.@collection) the documents are written to.' },
  RAVEN_GZIP:   { type: 'bool', target: 'ravendb', default: false, doc: 'Send bulk insert bodies gzip-compressed (Content-Encoding: gzip; RavenDB does not understand deflate). Costs client CPU, saves network.' },
  RAVEN_INDEXES: { type: 'int', target: 'ravendb', min: 0, max: 9, default: 0, doc: 'Fields f0..f(N-1) of the E1 documents in one static Map index (0 = no index); with RAVEN_WAIT_FOR_INDEXES a batch waits for it.' },
  RAVEN_WAIT_FOR_INDEXES: { type: 'duration', target: 'ravendb', min: '1ms', max: '24h', doc: 'waitForIndexesTimeout on bulk_docs batches (insert/upsert), e.g. 30s: the batch answers once the indexes caught up, so the time per batch is write + index. Empty = do not wait.' },
  LOAD_OP:      { type: 'enum', target: 'ravendb', values: ['insert', 'bulk'], default: 'insert', doc: 'How the E1 load phase writes on RavenDB: insert = bulk_docs with ChangeVector "" (a duplicate fails the batch), bulk = bulk insert (always overwrites).' },
  // MongoDB (the pack's k6/x/writepath/mongodb module on the official Go driver; docs/mongodb.md)
  MONGO_URL:    { type: 'secret', target: 'mongodb', url: { schemes: ['mongodb', 'mongodb+srv'], credentials: true, path: true, hosts: 'many', example: 'mongodb://user:password@127.0.0.1:27017/?authSource=admin' }, doc: 'MongoDB connection URL, e.g. mongodb://user:pass@127.0.0.1:17017/?authSource=admin (make up writes one to .run/env); retryWrites=false unless it says otherwise. The run creates and drops its own database k6wp_<RUN_ID>. Never printed.' },
  MONGO_W:      { type: 'string', target: 'mongodb', pattern: /^(default|majority|[1-9][0-9]?)$/, allowed: 'default (the server\'s default write concern), majority, or a number of members from 1 to 99 (0, no acknowledgement, is refused: nothing could be counted)', default: 'default', doc: 'Write concern w of every batch: default = not sent (the server\'s default, read back and reported: {w:1} on a standalone), majority, or a number of members.' },
  MONGO_J:      { type: 'enum', target: 'mongodb', values: ['default', 'true', 'false'], default: 'default', doc: 'Write concern j of every batch: true = acknowledged only once the journal holding the write is on disk (E2\'s journaled cell); default = not sent.' },
  MONGO_INDEXES: { type: 'int', target: 'mongodb', min: 0, max: 9, default: 0, doc: 'Secondary indexes on document fields f0..f(N-1) of the E1 documents (E2: 0, 2, 8), as PG_INDEXES.' },
  MONGO_ORDERED: { type: 'bool', target: 'mongodb', default: false, doc: 'Ordered batches: the server stops a batch at its first failed document and never attempts the rest (counted as not_attempted). Default: unordered, every document that can be written is.' },
  // Load models (lib/load-model.js; docs/load-models.md), all targets
  STAGES:       { type: 'string', pattern: /^\s*\d+(\.\d+)?(ms|s|m|h)\s*:\s*\d{1,4}\s*(,\s*\d+(\.\d+)?(ms|s|m|h)\s*:\s*\d{1,4}\s*)*$/, allowed: 'comma-separated duration:VUs pairs such as 10s:1,10s:2,10s:4', doc: 'Closed model: ramping-vus stages (duration:target VUs, each held as a step); results per stage. insert-vs-overwrite: the last phase of PHASES ramps (a load phase before it is a pre-load of DOCS in setup). scenarios/ravendb/bulk-insert.js uses 10s:1,10s:2,10s:4 when neither STAGES nor RATE_STAGES is set. Unset: the fixed plan.' },
  RATE_STAGES:  { type: 'string', pattern: /^\s*\d+(\.\d+)?(ms|s|m|h)\s*:\s*\d{1,6}\s*(,\s*\d+(\.\d+)?(ms|s|m|h)\s*:\s*\d{1,6}\s*)*$/, allowed: 'comma-separated duration:batches-per-second pairs such as 10s:20,10s:40', doc: 'Open model: stages of duration:batches per second (one k6 constant-arrival-rate scenario per stage), started whether or not earlier batches finished; iterations k6 could not start for lack of a free VU are counted as dropped_iterations (per stage and in total; threshold key dropped_iterations_max). Same phases as STAGES; VUS VUs are pre-allocated, up to MAX_VUS.' },
  MAX_VUS:      { type: 'int', min: 1, max: 10000, default: 100, doc: 'RATE_STAGES (open model): the most VUs k6 may use to keep the arrival rate.' },
  RAMP_KEYS:    { type: 'enum', values: ['random', 'sequential'], default: 'random', doc: 'insert-vs-overwrite with STAGES/RATE_STAGES and PHASES=load,overwrite: order in which the ramped overwrite walks the pre-loaded keys (random = a seeded permutation, sequential = key order); each key is overwritten at most once, so every key can be read back exactly.' },
};
const KNOB_NAMES = Object.keys(KNOBS);
// suspectKnob()'s lookups, made once per init context: it runs for every environment name in
// every init context k6 runs (six for a 2-VU scenario), where a method call costs ~1 µs.
//   the first knob of each squashed spelling (BATCHSIZE, TIME_OUT -> BATCH_SIZE, TIMEOUT);
const SQUASHED_TO_KNOB = new Map();
//   the first knob that starts with a prefix of 5+ characters (PG_INDEX -> PG_INDEXES);
const PREFIX_TO_KNOB = new Map();
//   per knob: its characters as bits (charBits) and each of its characters' bit.
const KNOB_MASK = []; const KNOB_BITS = [];
for (const k of KNOB_NAMES) {
  const sq = k.replace(/[_-]/g, '');
  if (!SQUASHED_TO_KNOB.has(sq)) SQUASHED_TO_KNOB.set(sq, k);
  for (let n = 5; n <= k.length; n++) if (!PREFIX_TO_KNOB.has(k.slice(0, n))) PREFIX_TO_KNOB.set(k.slice(0, n), k);
  const bits = charBits(k);
  KNOB_BITS.push(bits);
  KNOB_MASK.push(bits.reduce((m, b) => m | b, 0));
}

// One bit per character class: A–Z one each, digits, '_' and anything else one class each.
// Two strings within edit distance d: each has at most d positions whose class is absent from
// the other string (each such position needs its own substitution, deletion or insertion), so
// suspectKnob skips a knob where either side has more such positions than its limit without
// computing the distance: the same answers, far fewer distances.
function charBits(s) {
  const out = new Array(s.length);
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    out[i] = c >= 65 && c <= 90 ? 1 << (c - 65) : c >= 48 && c <= 57 ? 1 << 26 : c === 95 ? 1 << 27 : 1 << 28;
  }
  return out;
}

// Scope and plan membership of every knob: the one home of both facts (issue 19).
//   run          how a run is named, bounded, checked or reported; runs that differ only in
//                these knobs wrote the same workload (scripts/compare puts them side by side)
//   workload     what is written, on any target (read for every target)
//   target:<db>  how one database stores or writes it (read for that target only)
// A KNOBS entry's section gives its default scope: `target: '<db>'` means target:<db>, no
// target means workload. The two lists below declare the exceptions. A knob is part of the
// plan when it decides what is written: every workload knob, and every target knob that is
// not in NOT_PLAN (connection, credentials, transport, accounting). The instances of a
// distributed run must agree on the plan (planSignature); compare refuses runs whose
// workload knobs differ; experiments/ram/driver.mjs takes its ranges from KNOBS.
const RUN_SCOPE = ['RUN_ID', 'THRESHOLDS', 'RESULTS_DIR', 'READBACK', 'TIMEOUT', 'MAX_DURATION', 'REUSE', 'RUN_SECRET', 'KEEP',
  'INFLUX_URL', 'MEMORY_BUDGET_MB', 'IGNORE_ENV', 'ALLOW_HTTP_DEBUG',
  'HTML_REPORTER', 'WEB_DASHBOARD', 'WEB_DASHBOARD_PERIOD', 'K6_REPORTER_URL', 'DISTRIBUTED', 'REPEAT', 'HISTORY'];
// Listed under the database they were first built for, but knobs of a workload that runs on
// any target offering the capabilities it needs (lib/capabilities.js).
const WORKLOAD_SCOPE = ['ARANGOBENCH_CASE', 'REQUESTS', 'STAGES', 'RATE_STAGES', 'MAX_VUS'];
const NOT_PLAN = ['PG_URL', 'PG_SCHEMA', 'PG_SYNC_COMMIT', 'ARANGO_URL', 'ARANGO_USER', 'ARANGO_PASSWORD', 'ARANGO_AUTH',
  'ARANGO_SILENT', 'RAVEN_URL', 'RAVEN_GZIP', 'RAVEN_WAIT_FOR_INDEXES', 'MONGO_URL', 'MONGO_W', 'MONGO_J'];

// -> { scope: 'run' | 'workload' | 'target:<db>', plan: boolean }, or null for a name that is
// no knob (derived values such as timeoutMs).
export function knobScope(name) {
  const spec = KNOBS[name];
  if (!spec) return null;
  const scope = RUN_SCOPE.includes(name) ? 'run' : WORKLOAD_SCOPE.includes(name) || !spec.target ? 'workload' : `target:${spec.target}`;
  return { scope, plan: scope !== 'run' && !NOT_PLAN.includes(name) };
}

// Does knob `name` apply to a run on `target`?
export function knobApplies(name, target) {
  const s = knobScope(name).scope;
  return !s.startsWith('target:') || s === `target:${target}`;
}

// The knobs that decide what a run writes, in KNOBS order.
export const PLAN_KNOBS = Object.keys(KNOBS).filter((k) => knobScope(k).plan);

// With DISTRIBUTED, every instance and the verify step must agree on the plan knobs: their
// hash is part of the shared objects' marker, so an instance started with another DOCS,
// SEED or RATE_STAGES refuses to join instead of corrupting the counts.
export function planSignature(cfg) {
  const text = PLAN_KNOBS.filter((k) => cfg[k] !== undefined).map((k) => `${k}=${cfg[k]}`).join(';');
  let h = 0x811c9dc5; // FNV-1a, 32 bits
  for (let i = 0; i < text.length; i++) { h ^= text.charCodeAt(i); h = Math.imul(h, 0x01000193) >>> 0; }
  return `${cfg.experiment}-${h.toString(16).padStart(8, '0')}`;
}

// A generated RUN_ID: the UTC clock to the second and 4 random hex digits (scripts/common.sh
// wp_new_run_id makes the same for the bash scripts), e.g. 20260101120000_ab12.
export function newRunId(prefix = '') {
  const d = new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return `${prefix}${d}_${Math.floor(Math.random() * 0x10000).toString(16).padStart(4, '0')}`;
}

export const DURATION_RE = /^(\d+(\.\d+)?(ms|s|m|h))+$/;

export function fail(message) {
  // A string, not an Error: k6 then prints the one line without a stack trace.
  throw `k6-writepath: ${message}`;
}

function bad(name, raw, allowed) {
  fail(`${name}=${JSON.stringify(raw)} is not allowed: ${allowed}`);
}

export function durationMs(s) {
  const units = { ms: 1, s: 1000, m: 60000, h: 3600000 };
  let total = 0;
  for (const m of String(s).matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) total += parseFloat(m[1]) * units[m[2]];
  return total;
}

export function parseKnob(name, raw, spec) {
  switch (spec.type) {
    case 'int': {
      const allowed = `a whole number from ${spec.min} to ${spec.max}`;
      if (!/^-?\d+$/.test(raw.trim())) bad(name, raw, allowed);
      const n = Number(raw);
      if (!Number.isSafeInteger(n) || n < spec.min || n > spec.max) bad(name, raw, allowed);
      return n;
    }
    case 'number': {
      const allowed = `a number from ${spec.min} to ${spec.max}`;
      if (!/^-?\d+(\.\d+)?$/.test(raw.trim())) bad(name, raw, allowed);
      const n = Number(raw);
      if (n < spec.min || n > spec.max) bad(name, raw, allowed);
      return n;
    }
    case 'enum':
      if (!spec.values.includes(raw)) bad(name, raw, `one of ${spec.values.join(', ')}`);
      return raw;
    case 'bool':
      if (['1', 'true', 'yes'].includes(raw.toLowerCase())) return true;
      if (['0', 'false', 'no', ''].includes(raw.toLowerCase())) return false;
      return bad(name, raw, 'one of 1, 0, true, false');
    case 'duration': {
      const allowed = spec.min ? `a duration from ${spec.min} to ${spec.max} such as 500ms, 60s, 5m, 1h30m` : 'a positive duration such as 500ms, 60s, 5m, 1h30m';
      if (!DURATION_RE.test(raw) || durationMs(raw) <= 0) bad(name, raw, allowed);
      if (spec.min && (durationMs(raw) < durationMs(spec.min) || durationMs(raw) > durationMs(spec.max))) bad(name, raw, allowed);
      return raw;
    }
    case 'url': {
      const why = urlProblem(raw, spec);
      if (why) bad(name, redact(raw), `${spec.allowed} (${why})`);
      return raw;
    }
    case 'string':
      if (!spec.pattern.test(raw)) bad(name, spec.redact ? redact(raw) : raw, spec.allowed);
      return raw;
    case 'secret':
      if (!raw) fail(`${name} is empty: set it in the environment`);
      if (spec.minLength && raw.length < spec.minLength) fail(`${name} (value not shown) is not allowed: at least ${spec.minLength} characters`);
      // The value is never shown, not even redacted: a malformed URL may put part of the
      // password where the host or port should be.
      if (spec.url) {
        const why = urlProblem(raw, spec.url);
        if (why) fail(`${name} (value not shown) is not allowed: a ${spec.url.schemes.join(':// or ')}:// URL such as ${spec.url.example || 'postgres://user:password@host:5432/database?sslmode=disable'}; ${why}`);
      }
      return raw;
    case 'list': {
      const items = raw.split(',').map((s) => s.trim()).filter(Boolean);
      if (spec.itemPattern && !items.every((x) => spec.itemPattern.test(x))) bad(name, raw, spec.allowed);
      return items;
    }
    default:
      throw new Error(`unknown knob type ${spec.type}`);
  }
}

// loadConfig(__ENV, { target: 'postgres', experiment: 'insert-vs-overwrite', phases: [...] })
// returns a plain object with every knob of the pack (defaults applied) plus derived values.
// Knobs of other targets are ignored; a name that looks like a misspelt knob stops the run
// (checkUnknownNames: "did you mean …").
export function loadConfig(env, { target, experiment, phases, required = [] }) {
  checkUnknownNames(env);
  const cfg = { target, experiment };
  for (const [name, spec] of Object.entries(KNOBS)) {
    if (!knobApplies(name, target)) continue;
    if (spec.scope === 'wrapper') continue; // read by scripts/run or make, not by k6
    const raw = env[name];
    if (raw === undefined || raw === '') {
      if (required.includes(name)) fail(`${name} is not set: ${spec.doc}`);
      cfg[name] = spec.default;
    } else {
      cfg[name] = parseKnob(name, String(raw), spec);
    }
  }

  const allPhases = phases;
  if (cfg.PHASES === undefined) { cfg.PHASES = allPhases.slice(); cfg.phasesDefault = true; }
  if (cfg.PHASES.length === 0) bad('PHASES', env.PHASES, `a comma-separated list from ${allPhases.join(', ')}`);
  for (const p of cfg.PHASES) {
    if (!allPhases.includes(p)) bad('PHASES', env.PHASES, `a comma-separated list from ${allPhases.join(', ')}`);
  }
  if (new Set(cfg.PHASES).size !== cfg.PHASES.length) bad('PHASES', env.PHASES, 'each phase at most once');
  const order = cfg.PHASES.map((p) => allPhases.indexOf(p));
  if (order.some((v, i) => i > 0 && v < order[i - 1])) bad('PHASES', env.PHASES, `phases in the experiment's order: ${allPhases.join(', ')}`);
  if (cfg.REUSE !== '0' && !env.RUN_ID) fail(`REUSE=${cfg.REUSE} needs an explicit RUN_ID: it only applies to objects of a named earlier run`);
  if (cfg.DISTRIBUTED !== '0' && !env.RUN_ID) fail(`DISTRIBUTED=${cfg.DISTRIBUTED} needs an explicit RUN_ID, the same on every instance: it names the objects the instances share`);
  if (cfg.REUSE !== '0' && !cfg.RUN_SECRET) fail(`REUSE=${cfg.REUSE} needs RUN_SECRET in the environment, the one the run that kept the objects had: it proves they are this run's (scripts/run sets it from .run/run-secret)`);
  if (cfg.DISTRIBUTED !== '0' && !cfg.RUN_SECRET) fail(`DISTRIBUTED=${cfg.DISTRIBUTED} needs RUN_SECRET in the environment, the same on every instance and the verify step: it proves the shared objects are this run's (scripts/run sets it from .run/run-secret)`);
  if (cfg.DISTRIBUTED !== '0' && cfg.REUSE !== '0') fail(`REUSE=${cfg.REUSE} is not allowed with DISTRIBUTED=${cfg.DISTRIBUTED}: emptying the shared objects would erase the other instances' writes; choose a new RUN_ID`);
  if (cfg.THRESHOLDS === undefined) cfg.THRESHOLDS = `thresholds/${target}/${experiment}.json`;
  if (cfg.STAGES !== undefined && env.STAGES) checkStages('STAGES', cfg.STAGES, KNOBS.VUS.max, 'VUs');
  if (cfg.RATE_STAGES) checkStages('RATE_STAGES', cfg.RATE_STAGES, 100000, 'batches per second');
  checkMemory(cfg);
  cfg.timeoutMs = durationMs(cfg.TIMEOUT);
  return cfg;
}

// duration:target stages (k6 ramping executors, as the workloads step through them): each
// duration within MAX_DURATION's range, each target within the cap, and at least one stage
// that holds a target above 0 for a time above 0 (STAGES=0s:1 would run nothing and pass).
function checkStages(name, text, cap, unit) {
  const stages = text.split(',').map((x) => x.split(':').map((y) => y.trim()));
  let work = 0;
  for (const [duration, target] of stages) {
    if (durationMs(duration) > durationMs(KNOBS.MAX_DURATION.max)) bad(name, text, `stage durations up to ${KNOBS.MAX_DURATION.max}`);
    if (Number(target) > cap) bad(name, text, `targets up to ${cap} ${unit}`);
    work += durationMs(duration) * Number(target);
  }
  if (work <= 0) bad(name, text, `at least one stage with a duration above 0 and a target of 1 or more ${unit}`);
}

// Approximate bytes of one document of the configured shape (lib/docs.js builds them).
function docBytes(cfg) {
  if (cfg.DOC_SHAPE === 'e1') return cfg.DOC_BYTES;
  if (cfg.DOC_SHAPE === 'user') return 400;
  return 40 + cfg.COMPLEXITY * 28; // "testN":"some test value" / "aN_i":"vi" attributes
}

// Client memory the plan needs, against MEMORY_BUDGET_MB: each VU keeps DOC_POOL documents
// and holds about three copies of a batch while it is built and sent (the JSON text, the
// engine's UTF-16 string, the request buffer).
function checkMemory(cfg) {
  const d = docBytes(cfg);
  const stagePeak = cfg.STAGES ? Math.max(...cfg.STAGES.split(',').map((x) => Number(x.split(':')[1]))) : 0;
  const vus = Math.max(cfg.VUS, cfg.RATE_STAGES ? cfg.MAX_VUS || 0 : stagePeak);
  const vuKnob = cfg.RATE_STAGES && cfg.MAX_VUS >= cfg.VUS ? `MAX_VUS=${cfg.MAX_VUS}` : stagePeak > cfg.VUS ? `${stagePeak} VUs (STAGES)` : `VUS=${cfg.VUS}`;
  const perVu = (cfg.DOC_SHAPE === 'e1' || cfg.DOC_SHAPE === 'user' ? cfg.DOC_POOL * d : 0) + 3 * cfg.BATCH_SIZE * d;
  const mib = Math.ceil((vus * perVu) / 1048576);
  if (mib > cfg.MEMORY_BUDGET_MB) {
    const knobs = cfg.DOC_SHAPE === 'e1' ? `DOC_BYTES=${cfg.DOC_BYTES}` : cfg.DOC_SHAPE === 'user' ? 'DOC_SHAPE=user' : `COMPLEXITY=${cfg.COMPLEXITY}`;
    bad('BATCH_SIZE', String(cfg.BATCH_SIZE), `with ${knobs}, DOC_POOL=${cfg.DOC_POOL} and ${vuKnob} the client needs about ${mib} MiB, more than MEMORY_BUDGET_MB=${cfg.MEMORY_BUDGET_MB}; lower BATCH_SIZE, the document size, DOC_POOL or the VUs, or raise MEMORY_BUDGET_MB`);
  }
}

// What may be shown of the configuration (summary.json, logs): everything but secrets.
export function publicConfig(cfg) {
  const out = {};
  for (const [k, v] of Object.entries(cfg)) {
    if (KNOBS[k] && KNOBS[k].type === 'secret') out[k] = v ? '(set, not shown)' : '(not set)';
    else out[k] = v;
  }
  return out;
}

// Removes passwords from a URL-ish string before it reaches a log line. The user info of a
// URL ends at the LAST "@" before the path (as Go's net/url reads it), so a password may hold
// "@", ":" or (malformed, refused by urlProblem, but still redacted) a space; password=
// values may be quoted ('a b') as in libpq key=value strings.
export function redact(text) {
  return String(text)
    .replace(/([a-z][a-z0-9+.-]*:\/\/)([^\s/?#@:]*):[^/?#]*@(?=[^@/?#\s]*(?:[/?#\s"'\\]|$))/gi, '$1$2:***@')
    .replace(/(password\s*=\s*)('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^&\s"']+)/gi, '$1***');
}

// Why a URL knob's value is not acceptable, or null. The rules follow what the clients do
// with it: Go's net/url (lib/pq, k6/http, k6's InfluxDB output) takes the user info up to
// the last "@" of the authority, accepts only these characters in it, and needs a port from
// 1 to 65535 and an IPv6 address in brackets.
// hosts: 'many' accepts a comma-separated host list (MongoDB's seed lists: h1:27017,h2:27017).
export function urlProblem(raw, { schemes, credentials = false, path = false, hosts = 'one' }) {
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/.exec(raw);
  if (!m) {
    if (/^\s*\w+\s*=/.test(raw)) return 'a key=value connection string is not accepted, only a URL';
    return `not a URL of the form ${schemes[0]}://host:port`;
  }
  const [, scheme, authority, pathPart, query, fragment] = m;
  if (!schemes.includes(scheme.toLowerCase())) return `scheme ${scheme}:// is not allowed, only ${schemes.map((x) => `${x}://`).join(' or ')}`;
  const at = authority.lastIndexOf('@');
  const userinfo = at >= 0 ? authority.slice(0, at) : null;
  const hostport = authority.slice(at + 1);
  if (userinfo !== null) {
    if (!credentials) return 'credentials in the URL are not accepted here';
    if (!/^[A-Za-z0-9\-._~!$&'()*+,;=:@]*(%[0-9A-Fa-f]{2}[A-Za-z0-9\-._~!$&'()*+,;=:@]*)*$/.test(userinfo)) {
      return 'the user or password holds a character that must be percent-encoded (space, %, /, ?, #, …: encodeURIComponent)';
    }
  }
  if (hosts === 'many' && hostport.includes(',')) {
    for (const one of hostport.split(',')) {
      const why = urlProblem(`${scheme}://${one}/`, { schemes, credentials: false, path: false });
      if (why) return why;
    }
    return lateParts(pathPart, query, fragment, { path, credentials });
  }
  const hp = /^(\[[^\]]*\]|[^:[\]]*)(?::([^:]*))?$/.exec(hostport);
  if (!hp) return 'the host is malformed (an IPv6 address goes in brackets: [::1]:5432)';
  const [, host, port] = hp;
  if (host.startsWith('[')) {
    const ip6 = host.slice(1, -1).replace(/%25[A-Za-z0-9._~-]+$/, '');
    if (!/^[0-9A-Fa-f:.]+$/.test(ip6) || !ip6.includes(':') || (ip6.match(/::/g) || []).length > 1 || /:::/.test(ip6)
        || ip6.split(':').some((g) => g.length > 4 && !/^\d+\.\d+\.\d+\.\d+$/.test(g))) return `the IPv6 address ${host} is malformed`;
  } else if (host === '' ? !credentials : !/^[A-Za-z0-9]([A-Za-z0-9_.-]*[A-Za-z0-9])?$/.test(host)) {
    return host === '' ? 'the host is missing' : 'the host name is malformed';
  }
  if (port !== undefined && !(/^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535)) return 'the port must be a number from 1 to 65535';
  if (scheme.toLowerCase() === 'mongodb+srv' && port !== undefined) return 'a mongodb+srv:// URL names one host without a port (the DNS SRV record lists the servers)';
  return lateParts(pathPart, query, fragment, { path, credentials });
}

function lateParts(pathPart, query, fragment, { path, credentials }) {
  if (path === false && pathPart !== '' && pathPart !== '/') return 'a path is not accepted here';
  if (path === false && query) return 'a query is not accepted here';
  if (path === true && credentials === false && !/^\/[^/]+\/?$/.test(pathPart)) return 'the path must name the database: /<database>';
  if (fragment !== undefined) return 'a #fragment is not accepted';
  return null;
}

// Environment names that are not knobs of this pack but legitimately sit next to them:
// the pack's own non-knob variables (scripts/run, make, compose) and the servers' own
// settings from docker-compose*.yml (test/unit/config.test.mjs keeps this list in step).
export const KNOWN_ENV = [
  'INSTANCES', 'PWD', 'K6', 'K6_REPORTER_URL', 'WP_INFLUX', 'WP_PG_PORT', 'WP_INFLUX_PORT', 'WP_ARANGO_PORT', 'WP_RAVEN_PORT', 'WP_GRAFANA_PORT', 'WP_MEMORY_BUDGET',
  'WP_MONGO_PORT', 'WP_MONGO_CACHE_GB',
  'ARANGO_ROOT_PASSWORD', 'ARANGO_NO_AUTH', 'ARANGO_RANDOM_ROOT_PASSWORD', 'POSTGRES_PASSWORD', 'MONGO_ROOT_PASSWORD', 'MONGO_INITDB_ROOT_USERNAME', 'MONGO_INITDB_ROOT_PASSWORD', 'GRAFANA_ADMIN_PASSWORD',
  'PG_SYNCHRONOUS_COMMIT', 'PG_FSYNC', 'PG_FULL_PAGE_WRITES', 'PG_WAL_LEVEL', 'PG_COMMIT_DELAY', 'PG_MAX_WAL_SIZE', 'PG_MIN_WAL_SIZE',
  'PG_SHARED_BUFFERS', 'PG_EFFECTIVE_IO_CONCURRENCY', 'PG_WORK_MEM', 'PG_TEMP_BUFFERS',
];
const KNOB_PREFIX = /^(PG|ARANGO|RAVEN|INFLUX|MONGO)_/;

// Optimal string alignment distance (Levenshtein plus swapped neighbours). With max: any
// value above max once two consecutive rows exceed it (no later cell can come back below:
// every cell builds on the row above or, for a swap, the one above that), which is all
// suspectKnob needs; no Math.min calls (a call costs ~1 µs in k6's interpreter).
export function editDistance(a, b, max = Infinity) {
  const d = [];
  for (let i = 0; i <= a.length; i++) { d.push([i]); }
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  let prevMin = 0;
  for (let i = 1; i <= a.length; i++) {
    const row = d[i]; const up = d[i - 1];
    let rowMin = row[0];
    for (let j = 1; j <= b.length; j++) {
      let v = up[j] + 1;
      const left = row[j - 1] + 1;
      if (left < v) v = left;
      const diag = up[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1);
      if (diag < v) v = diag;
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1] && d[i - 2][j - 2] + 1 < v) v = d[i - 2][j - 2] + 1;
      row[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max && prevMin > max) return max + 1;
    prevMin = rowMin;
  }
  return d[a.length][b.length];
}

// The knob an unknown environment name was probably meant to be, '' when it looks like a
// knob without a close one (a PG_/ARANGO_/RAVEN_/INFLUX_/MONGO_ name), or null when it does not
// look like a knob at all. k6 run puts the whole shell environment into __ENV (unless
// --include-system-env-vars=false), so the rules stay clear of ordinary variable names.
export function suspectKnob(name) {
  if (KNOBS[name] || KNOWN_ENV.includes(name) || /^K6_/.test(name)) return null;
  const upper = name.toUpperCase();
  const squash = (/** @type {string} */ s) => s.replace(/[_-]/g, '');
  const names = KNOB_NAMES;
  if (KNOBS[upper]) return upper; // docs, batch_size
  if (!/^[A-Z][A-Z0-9_]*$/.test(name)) return null; // other lower/mixed case: not ours (RAVEN_License, …)
  const same = SQUASHED_TO_KNOB.get(squash(name)); // BATCHSIZE, TIME_OUT
  if (same) return same;
  const prefixOf = name.length >= 5 ? PREFIX_TO_KNOB.get(name) : undefined; // PG_INDEX, ARANGO_PASS
  if (prefixOf) return prefixOf;
  const bits = charBits(name);
  let mask = 0;
  for (let i = 0; i < bits.length; i++) mask |= bits[i];
  let best = null;
  let bestD = Infinity;
  for (let x = 0; x < names.length; x++) {
    const k = names[x];
    // The distance is at least the difference in length and the limit at most 2: k6 puts the
    // whole shell environment into __ENV, and every init context of a run (k6 runs several)
    // checks every name against every knob, so the cheap tests first (~0.5 s of k6 CPU per
    // init context without them).
    const dl = name.length - k.length;
    if (dl > 2 || dl < -2) continue;
    const limit = (name.length < k.length ? name.length : k.length) <= 5 ? 1 : 2;
    // (each side on its own: one substitution covers a position of each)
    let absent = 0;
    const km = KNOB_MASK[x];
    for (let i = 0; i < bits.length && absent <= limit; i++) if ((km & bits[i]) === 0) absent++;
    if (absent > limit) continue;
    absent = 0;
    const kb = KNOB_BITS[x];
    for (let i = 0; i < kb.length && absent <= limit; i++) if ((mask & kb[i]) === 0) absent++;
    if (absent > limit) continue;
    const d = editDistance(name, k, limit);
    if (d <= limit && d < bestD) { best = k; bestD = d; }
  }
  if (best) return best;
  if (KNOB_PREFIX.test(name)) return '';
  return null;
}

// Stops the run on an environment name that looks like a misspelt knob. The value is not
// shown: a misspelt ARANGO_PASSWORD holds a password.
export function checkUnknownNames(env) {
  const ignore = String(env.IGNORE_ENV || '').split(',').map((x) => x.trim()).filter(Boolean);
  for (const name of Object.keys(env).sort()) {
    if (ignore.includes(name)) continue;
    const s = suspectKnob(name);
    if (s === null) continue;
    const family = Object.keys(KNOBS).filter((k) => k.startsWith(`${name.split('_')[0]}_`));
    fail(`${name} is not a knob of k6-writepath: ${s ? `did you mean ${s}?` : `the ${name.split('_')[0]}_ knobs are ${family.join(', ')}.`}`
      + ' A variable meant for something else: add it to IGNORE_ENV=NAME,… (knobs: docs/configuration.md)');
  }
}
