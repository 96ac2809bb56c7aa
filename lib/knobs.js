// The knobs of the run and of the workloads, on every target: what is written (scope
// workload, part of the plan unless plan: false) and how a run is named, bounded, checked
// and reported (scope run, never part of the plan). Each database declares its own knobs
// next to its code (lib/targets/<db>/<db>-knobs.js, listed by lib/targets/index.js); lib/config.js
// composes both. A declaration: type (int, number, enum, bool, duration, url, string,
// secret, list) with its bounds (min/max, values, pattern + allowed, schemes…), default,
// scope, plan, required, wrapper (read by scripts/run or make, not by k6), defaults per
// scenario, and doc (the line of docs/configuration.md's table, which a test keeps in step).
// Bounds that stages share with the knobs they stand for (a stage's VUs, its duration).
const VUS_MAX = 1000;
const DURATION_MAX = '720h';
// The RUN_ID rule, for RUN_ID and for names that a RUN_ID is made of (CAPACITY_ID + a step's suffix).
export const RUN_ID_MAX = 32;
const idPattern = (max) => new RegExp(`^[a-z0-9][a-z0-9_]{0,${max - 1}}$`);
const idAllowed = (max) => `1-${max} characters a-z 0-9 _ (starting with a letter or digit)`;
export const CORE_KNOBS = {
  // What a run writes (scope workload, part of the plan) and how it is named, bounded and
  // checked (scope run); docs/configuration.md lists them by scope.
  RUN_ID:       { type: 'string', scope: 'run', pattern: idPattern(RUN_ID_MAX), allowed: idAllowed(RUN_ID_MAX), doc: 'Names this run: results/<RUN_ID>/, the testid tag, and every object the run creates (k6wp_<RUN_ID>…). Default: generated from the clock.' },
  PHASES:       { type: 'list', doc: 'Phases to run, in this order, from the workload\'s list (insert-vs-overwrite: load,overwrite,mixed).' },
  DOCS:         { type: 'int', min: 1, max: 1e9, default: 20000, doc: 'Documents written by the load phase (exact count).' },
  BATCH_SIZE:   { type: 'int', min: 1, max: 100000, default: 1000, defaults: { 'postgres/contention': 1, 'arangodb/contention': 1, 'ravendb/contention': 1, 'mongodb/contention': 1 }, doc: 'Documents per batch request/statement (E1 used 10000); contention: distinct counters per operation.' },
  VUS:          { type: 'int', min: 1, max: VUS_MAX, default: 2, doc: 'Virtual users (concurrent clients).' },
  OVERWRITE_BATCHES: { type: 'int', min: 0, max: 1e7, default: 20, doc: 'Batches in the overwrite phase; each upserts BATCH_SIZE existing keys (E1: 100 for ArangoDB, 50 for PostgreSQL).' },
  MIXED_BATCHES: { type: 'int', min: 0, max: 1e7, default: 10, doc: 'Batches in the mixed phase.' },
  MIXED_NEW_PERCENT: { type: 'int', min: 0, max: 100, default: 50, doc: 'Share of new keys in each mixed batch, in percent; the rest overwrite existing keys.' },
  MIXED_OP:     { type: 'enum', values: ['upsert', 'insert'], default: 'upsert', doc: 'Operation of the mixed phase. insert shows what E1\'s client faced without overwrite: every existing key in a batch is a failed document (PostgreSQL fails the whole statement).' },
  KEY_DIST:     { type: 'enum', values: ['uniform', 'zipfian', 'hotspot'], default: 'uniform', doc: 'How overwrite/mixed phases pick existing keys (always distinct within a batch).' },
  ZIPF_THETA:   { type: 'number', min: 0.01, max: 0.999, default: 0.99, doc: 'Skew of KEY_DIST=zipfian (YCSB\'s default 0.99).' },
  HOTSPOT_DATA_PERCENT: { type: 'int', min: 1, max: 99, default: 20, doc: 'KEY_DIST=hotspot: share of keys that are hot, in percent.' },
  HOTSPOT_OPS_PERCENT: { type: 'int', min: 1, max: 99, default: 80, doc: 'KEY_DIST=hotspot: share of picks that go to hot keys, in percent.' },
  DOC_SHAPE:    { type: 'enum', values: ['e1', 'complexity', 'random-shapes', 'user'], default: 'e1', defaults: { 'ravendb/bulk-insert': 'user' }, doc: 'Document generator: e1 = E1\'s non-compressible number-string payload; complexity = COMPLEXITY string attributes (arangobench); random-shapes = COMPLEXITY attributes whose names differ in every document; user = realistic user records (names, email, address, dates; E4, scenarios/ravendb/bulk-insert.js uses it by default).' },
  DOC_BYTES:    { type: 'int', min: 100, max: 1000000, default: 1200, doc: 'DOC_SHAPE=e1: approximate size of one document in bytes (E1: ~1200).' },
  COMPLEXITY:   { type: 'int', min: 1, max: 10000, default: 10, doc: 'DOC_SHAPE=complexity|random-shapes: attributes per document (E3: 100, 1000, 10000).' },
  DOC_POOL:     { type: 'int', min: 1, max: 100000, default: 1024, defaults: { 'ravendb/bulk-insert': 10000 }, doc: 'Distinct payloads pre-generated per VU (outside the timed path); documents reuse them with their own key and stamp.' },
  SEED:         { type: 'int', min: 0, max: 4294967295, default: 1, doc: 'Seed of every random choice (keys, payloads): same seed, same documents.' },
  THRESHOLDS:   { type: 'string', scope: 'run', pattern: /^[^\0]+$/, allowed: 'a path to a JSON file', doc: 'Threshold file, relative to the repository root or absolute. Default: thresholds/<target>/<scenario>.json (insert-vs-overwrite.json beside scenarios/<target>/insert-vs-overwrite.js).' },
  RESULTS_DIR:  { type: 'string', scope: 'run', pattern: /^[^\0]+$/, allowed: 'a directory path', default: 'results', doc: 'Where results/<RUN_ID>/ is written, relative to the directory k6 runs in.' },
  READBACK:     { type: 'int', scope: 'run', min: 0, max: 1e8, default: 1000, doc: 'Overwritten keys read back (each VU its own, after its last batch) to check they hold the last acknowledged version (0 = none).' },
  GIVE_UP:      { type: 'duration', scope: 'run', min: '1s', max: '24h', default: '60s', doc: 'A database that gives no answer to any batch of a VU for this long (every attempt failed with reason connection and no word from the server: refused, reset, unreachable; a server that answers too many connections or starting up is there) ends the run with one line, exit 108, naming what was acknowledged before, that verification did not run, and the objects left behind with how to remove them. A database back within this time lets the run go on. A server that accepts connections but never answers is bounded by TIMEOUT per batch instead. Also the bound of resending a batch the server answered "not now" (RavenDB 503, ArangoDB 503 in startup or maintenance, PostgreSQL 53300/57P03 too many clients or starting up, …) and of each wait for such a server in setup, verification and teardown (k6\'s setup and teardown timeouts grow by GIVE_UP).' },
  TIMEOUT:      { type: 'duration', scope: 'run', min: '100ms', max: '24h', default: '60s', doc: 'Timeout of one batch request/statement; a batch that takes longer counts as failed (reason timeout).' },
  MAX_DURATION: { type: 'duration', scope: 'run', min: '1s', max: DURATION_MAX, default: '30m', doc: 'Upper bound on the whole write scenario (k6 maxDuration); unfinished batches are reported, not hidden.' },
  REUSE:        { type: 'enum', scope: 'run', values: ['0', '1', 'recreate'], default: '0', doc: 'With an explicit RUN_ID whose objects already exist: 1 = empty and reuse them when their marker is exactly this pack\'s for this RUN_ID and their shape (table kind, indexes, collections, waitForSync…) matches this run\'s settings; recreate = the same, but drop and create them anew when the shape differs. Anything else is refused and never touched (docs/reliability.md).' },
  RUN_SECRET:   { type: 'secret', scope: 'run', minLength: 16, doc: 'Proves that objects are this run\'s (docs/reliability.md, "What ours means"): every marker carries an HMAC made with it, which nobody without it can forge. Needed, the same everywhere, by REUSE (the value of the run that kept the objects) and by every instance and the verify step of a distributed run; scripts/run sets it from .run/run-secret (made once, mode 600) when it is not set. At least 16 characters; environment only, never printed.' },
  KEEP:         { type: 'bool', scope: 'run', default: false, doc: 'Keep the run\'s table/collection/database after the run instead of dropping it.' },
  // Reports (docs/results.md)
  HTML_REPORTER: { type: 'enum', scope: 'run', values: ['builtin', 'k6-reporter', 'none'], default: 'builtin', doc: 'HTML report in results/<RUN_ID>/: builtin = report.html from our own code (offline, self-contained); k6-reporter = also k6-reporter.html from benc-uk/k6-reporter 3.0.4, imported by URL through scripts/run (needs internet; without it scripts/run warns and keeps the builtin report); none = no HTML.' },
  WEB_DASHBOARD: { type: 'bool', scope: 'run', default: false, doc: 'scripts/run: also export k6\'s built-in web dashboard to results/<RUN_ID>/k6-dashboard.html (no port opened; k6 skips the export for runs shorter than about 3 x WEB_DASHBOARD_PERIOD).' },
  WEB_DASHBOARD_PERIOD: { type: 'duration', scope: 'run', min: '100ms', max: '1h', default: '1s', doc: 'scripts/run with WEB_DASHBOARD=1: sampling period of the web dashboard export (k6 default 10s is too coarse for short runs).' },
  K6_REPORTER_URL: { type: 'string', scope: 'run', pattern: /^(https:\/\/|file:\/\/\/)\S+$/, allowed: 'an https:// or file:/// URL (k6 imports remote modules only over https and local ones as file:///absolute/path)', default: 'https://raw.githubusercontent.com/benc-uk/k6-reporter/3.0.4/dist/bundle.js', doc: 'scripts/run with HTML_REPORTER=k6-reporter: where k6 imports benc-uk/k6-reporter from; offline machines point it at a local copy, e.g. file:///opt/k6-reporter/bundle.js (docs/results.md).' },
  // Read by scripts/run and make up/down only (not by k6): declared here so that they are
  // documented and validated in one place; loadConfig skips them.
  REPEAT:       { type: 'int', scope: 'run', wrapper: true, min: 1, max: 99, default: 1, doc: 'scripts/run: run the scenario this many times, one after another, each repetition a run of its own (RUN_ID <RUN_ID>_rNN, its own objects and folder results/<RUN_ID>/<RUN_ID>_rNN/), then the aggregate in results/<RUN_ID>/: per phase and figure the median, min – max and a distribution-free 95 % interval (from 6 repetitions on; docs/results.md).' },
  HISTORY:      { type: 'string', scope: 'run', wrapper: true, pattern: /^[^\0]+$/, allowed: 'a file path, or 0', doc: 'scripts/run: the history file every run\'s headline figures (docs/s, p50, p99 per phase) are appended to, for scripts/history analyze (Apache Otava\'s change points; docs/results.md). Default: <RESULTS_DIR>/history.csv; 0 = do not append.' },
  WP_INFLUX:    { type: 'bool', scope: 'run', wrapper: true, default: true, doc: 'scripts/run: 0 = do not stream to INFLUX_URL even when it is set.' },
  K6:           { type: 'string', scope: 'run', wrapper: true, pattern: /^\S+$/, allowed: 'path of a k6 binary', default: 'bin/k6', doc: 'scripts/run, scripts/compare: the k6 binary to run (e.g. a stock k6 for the ArangoDB/RavenDB scenarios: bin/k6-stock).' },
  WP_PG_PORT:   { type: 'int', scope: 'run', wrapper: true, min: 1024, max: 65535, default: 17432, doc: 'make up/down/test: port of the private PostgreSQL on 127.0.0.1 (environment only, read by scripts/services.sh).' },
  WP_INFLUX_PORT: { type: 'int', scope: 'run', wrapper: true, min: 1024, max: 65533, default: 17086, doc: 'make up/down/test: port of the private InfluxDB on 127.0.0.1 (its RPC port is this + 2; environment only, read by scripts/services.sh).' },
  // Guards and scale-out (docs/reliability.md, docs/scale-out.md)
  DISTRIBUTED:  { type: 'enum', scope: 'run', values: ['0', '1', 'verify'], default: '0', doc: 'Several k6 instances share one run (--execution-segment, k6-operator): 1 = this process is one instance (needs an explicit RUN_ID, the same on every instance; setup creates or joins the run\'s objects; teardown neither verifies nor drops); verify = after all instances: verify the union and drop the objects (scripts/verify-distributed). 0 = a single process.' },
  GATEWAY_URL:  { type: 'url', scope: 'run', schemes: ['http', 'https'], allowed: 'http://host:port of a running bin/wp-gateway (docs/gateway.md), without credentials', doc: 'PostgreSQL and MongoDB scenarios: the pack\'s gateway that holds PG_URL/MONGO_URL in its own environment (k6 never sees them); scripts/run starts a private one. Plain k6: PG_URL=… bin/wp-gateway -ready-file .run/gateway.url & then -e GATEWAY_URL=$(cat .run/gateway.url).' },
  WP_GATEWAY_TOKEN: { type: 'secret', scope: 'run', minLength: 16, doc: 'The token a gateway started with WP_GATEWAY_TOKEN in its environment asks of every request (scripts/run sets one per private gateway, so no other local user can write through it). Environment only.' },
  INFLUX_URL:   { type: 'url', scope: 'run', schemes: ['http', 'https'], path: true, allowed: 'http(s)://host:port/<database> without credentials (those go in K6_INFLUXDB_USERNAME/K6_INFLUXDB_PASSWORD)', doc: 'scripts/run: InfluxDB 1.x to stream the metrics to (make up writes one to .run/env; WP_INFLUX=0 turns it off). Checked before the run; an InfluxDB that does not answer is said in one line and the run goes on without it.' },
  MEMORY_BUDGET_MB: { type: 'int', scope: 'run', min: 16, max: 1048576, default: 2048, doc: 'Client memory the run may use, in MiB: a run whose estimated peak RSS of k6 (k6 itself plus, per VU at the peak, its runtime, one body of BATCH_SIZE documents per request format, the transport\'s copy of a batch; docs/capacity.md "Memory") exceeds it is refused before anything is written, with the estimate and what to lower. The setup log shows the estimate of every run. The pack\'s gateway (PostgreSQL, MongoDB) is another process and is not in the estimate: bench/RESULTS.md measures it (~5 MiB per PostgreSQL VU; MongoDB with large batches far more).' },
  IGNORE_ENV:   { type: 'list', scope: 'run', itemPattern: /^[A-Za-z_][A-Za-z0-9_]*$/, allowed: 'comma-separated environment variable names', doc: 'Names of environment variables that look like a knob (close spelling, or the prefix of a family of knobs: INFLUX_ and each target\'s, e.g. PG_) but are meant for something else; without it such a name stops the run with "did you mean …".' },
  ALLOW_HTTP_DEBUG: { type: 'bool', scope: 'run', default: false, doc: 'Allow k6 --http-debug: it prints every request\'s headers (ArangoDB Authorization: Basic, i.e. the password) and with =full the bodies (the JWT login body holds the password). Refused without this knob.' },
  // arangobench (lib/workloads/arangobench.js): E3's cases, on any target offering them
  ARANGOBENCH_CASE: { type: 'enum', values: ['document', 'crud', 'crud-append', 'crud-write-read', 'multi-collection', 'random-shapes', 'persistent-index'], default: 'document', doc: 'scenarios/arangodb/arangobench.js: which E3/arangobench test case to run.' },
  REQUESTS:     { type: 'int', min: 1, max: 1e9, default: 10000, doc: 'scenarios/arangodb/arangobench.js: total operations (exact), like arangobench --requests.' },
  // Load models (lib/load-model.js; docs/load-models.md), all targets
  STAGES:       { type: 'stages', max: VUS_MAX, unit: 'VUs', durationMax: DURATION_MAX, pattern: /^\s*\d+(\.\d+)?(ms|s|m|h)\s*:\s*\d{1,4}\s*(,\s*\d+(\.\d+)?(ms|s|m|h)\s*:\s*\d{1,4}\s*)*$/, allowed: 'comma-separated duration:VUs pairs such as 10s:1,10s:2,10s:4', doc: 'Closed model: ramping-vus stages (duration:target VUs, each held as a step); results per stage. insert-vs-overwrite: the last phase of PHASES ramps (a load phase before it is a pre-load of DOCS in setup). scenarios/ravendb/bulk-insert.js uses 10s:1,10s:2,10s:4 when neither STAGES nor RATE_STAGES is set. Unset: the fixed plan.' },
  RATE_STAGES:  { type: 'stages', max: 100000, unit: 'batches per second', durationMax: DURATION_MAX, pattern: /^\s*\d+(\.\d+)?(ms|s|m|h)\s*:\s*\d{1,6}\s*(,\s*\d+(\.\d+)?(ms|s|m|h)\s*:\s*\d{1,6}\s*)*$/, allowed: 'comma-separated duration:batches-per-second pairs such as 10s:20,10s:40', doc: 'Open model: stages of duration:batches per second (one k6 constant-arrival-rate scenario per stage), started whether or not earlier batches finished; iterations k6 could not start for lack of a free VU are counted as dropped_iterations (per stage and in total; threshold key dropped_iterations_max). Same phases as STAGES; VUS VUs are pre-allocated, up to MAX_VUS.' },
  // The contention workload (lib/workloads/contention.js, docs/contention.md), all targets
  HOT_KEYS:     { type: 'list', itemPattern: /^[1-9][0-9]{0,6}$/, allowed: 'comma-separated hot-set sizes from 1 to 1000000, e.g. 1,10,100,10000', default: ['1', '10', '100', '10000'], doc: 'scenarios/<target>/contention.js: hot-set sizes (number of counters the VUs increment), one pass of the stages each; every operation increments BATCH_SIZE distinct counters of the hot set.' },
  SPREAD_KEYS:  { type: 'int', min: 0, max: 1000000, default: 100000, doc: 'scenarios/<target>/contention.js: counters of the spread baseline, the same operation with almost no contention, run after the hot sets (its ops/s is the "vs spread" ratio); 0 = no baseline. Above the largest HOT_KEYS.' },
  CONFLICT_RETRIES: { type: 'int', min: 0, max: 100, default: 3, doc: 'scenarios/<target>/contention.js: how often an operation is sent again after the database answered "not applied, retry" (ArangoDB 1200 conflict, PostgreSQL deadlock/serialization failure); each retry is counted by reason, the operation\'s time includes them.' },
  MAX_VUS:      { type: 'int', min: 1, max: 10000, default: 100, doc: 'RATE_STAGES (open model): the most VUs k6 may use to keep the arrival rate.' },
  RAMP_KEYS:    { type: 'enum', values: ['random', 'sequential'], default: 'random', doc: 'insert-vs-overwrite with STAGES/RATE_STAGES and PHASES=load,overwrite: order in which the ramped overwrite walks the pre-loaded keys (random = a seeded permutation, sequential = key order); each key is overwritten at most once, so every key can be read back exactly.' },
};

// Environment names that are not knobs but legitimately sit next to them: the pack's own
// variables of scripts/run, make and compose (each target declares the names of its own
// servers' settings, lib/targets/<db>/<db>-knobs.js); test/unit/config.test.mjs keeps the lists in
// step with the files that use them.
export const CORE_ENV = ['INSTANCES', 'PWD', 'K6', 'K6_REPORTER_URL', 'WP_INFLUX', 'WP_PG_PORT', 'WP_INFLUX_PORT', 'WP_ARANGO_PORT', 'WP_RAVEN_PORT', 'WP_GRAFANA_PORT', 'WP_MEMORY_BUDGET', 'GRAFANA_ADMIN_PASSWORD'];

// Names with these prefixes look like knobs of the pack (besides each target's own prefix):
// an unknown one is refused with the list of its family.
export const CORE_PREFIXES = ['INFLUX_'];

// The tools' own knobs (scope tool:<name>): read by the Node tools outside k6 (the capacity
// search, the experiment drivers) with the same parser (lib/parse.js), never by k6
// (wrapper), never part of a run's plan. Each tool may add a rule across knobs of its own.
const tool = (name, spec) => Object.assign({ scope: `tool:${name}`, wrapper: true, plan: false }, spec);
const PATH = { type: 'string', pattern: /^[^\0]+$/, allowed: 'a path' };
export const TOOL_KNOBS = {
  CAPACITY_TARGET: tool('capacity', { type: 'enum', values: ['postgres', 'arangodb', 'ravendb', 'mongodb'], default: 'postgres', doc: 'scripts/capacity.mjs: the database searched.' }),
  CAPACITY_OP: tool('capacity', { type: 'enum', values: ['insert', 'upsert', 'merge', 'bulk'], doc: 'scripts/capacity.mjs: the operation searched, one its target offers (postgres, mongodb: insert, upsert, and mongodb bulk; arangodb: insert, upsert, merge; ravendb: insert, upsert, bulk). Default: upsert, on ravendb bulk.' }),
  CAPACITY_KEYS: tool('capacity', { type: 'enum', values: ['random', 'sequential'], default: 'random', doc: 'scripts/capacity.mjs: order in which an upsert step walks the pre-loaded keys (RAMP_KEYS of each step).' }),
  // A step's rate is one RATE_STAGES stage, whose cap (RATE_STAGES.max) bounds the ladder.
  CAPACITY_START: tool('capacity', { type: 'int', min: 1, max: CORE_KNOBS.RATE_STAGES.max, default: 10, doc: 'scripts/capacity.mjs: the first step\'s rate, batches per second.' }),
  CAPACITY_FACTOR: tool('capacity', { type: 'number', min: 1, max: 100, default: 2, above: 'a number above 1 and at most 100 (each coarse step multiplies the rate by it)', doc: 'scripts/capacity.mjs: each coarse step multiplies the rate by it (above 1).' }),
  CAPACITY_MAX: tool('capacity', { type: 'int', min: 1, max: CORE_KNOBS.RATE_STAGES.max, default: 400, doc: 'scripts/capacity.mjs: the highest rate tried, batches per second (at least CAPACITY_START).' }),
  CAPACITY_RESOLUTION: tool('capacity', { type: 'number', min: 0, max: 1, default: 0.1, above: 'a share above 0 and at most 1 (bisection stops when the last pass and the first failure are this share of the rate apart, or 1 batch/s)', doc: 'scripts/capacity.mjs: bisection stops when the last pass and the first failure are this share of the rate apart, or 1 batch/s (above 0).' }),
  // Each is one RATE_STAGES stage of a step: within a stage's range (lib/parse.js, type stages).
  CAPACITY_WARMUP: tool('capacity', { type: 'duration', min: '1s', max: CORE_KNOBS.MAX_DURATION.max, default: '2s', doc: 'scripts/capacity.mjs: the warm-up stage of every step, not measured.' }),
  CAPACITY_HOLD: tool('capacity', { type: 'duration', min: '1s', max: CORE_KNOBS.MAX_DURATION.max, default: '5s', doc: 'scripts/capacity.mjs: the measured stage of every step.' }),
  CAPACITY_REPEAT: tool('capacity', { type: 'int', min: 1, max: 20, default: 3, doc: 'scripts/capacity.mjs: how often the rates around the knee are tried.' }),
  // Each step's RUN_ID is CAPACITY_ID_sNN: the RUN_ID rule, shorter by that suffix.
  CAPACITY_ID: tool('capacity', { type: 'string', pattern: idPattern(RUN_ID_MAX - '_sNN'.length), allowed: idAllowed(RUN_ID_MAX - '_sNN'.length), doc: 'scripts/capacity.mjs: names the search (results/capacity-<id>/, steps <id>_sNN). Default: generated from the clock.' }),
  CAPACITY_OUT: tool('capacity', { ...PATH, allowed: 'a directory path', doc: 'scripts/capacity.mjs: the search\'s folder. Default: <RESULTS_DIR>/capacity-<id>.' }),
  // The cells' names live with the cells (experiments/e2/cells.mjs): the driver adds them as values.
  E2_CELLS: tool('e2', { type: 'list', distinct: true, allowed: 'a comma-separated list of distinct cells (experiments/e2/cells.mjs)', doc: 'make experiment NAME=e2: the cells (server configurations) to run, by name. Default: all.' }),
  E2_BATCH_SIZES: tool('e2', { type: 'list', item: CORE_KNOBS.BATCH_SIZE, distinct: true, allowed: `a comma-separated list of distinct batch sizes from ${CORE_KNOBS.BATCH_SIZE.min} to ${CORE_KNOBS.BATCH_SIZE.max}, e.g. 100,1000`, default: ['100', '1000'], doc: 'make experiment NAME=e2: the batch sizes every cell runs.' }),
  E2_DOCS: tool('e2', { type: 'int', min: 1000, max: 100000000, default: 200000, doc: 'rows loaded per cell before the upserts' }),
  E2_UPSERTS: tool('e2', { type: 'int', min: 1000, max: 100000000, default: 400000, doc: 'rows upserted per cell (the measured phase)' }),
  E2_NEW_PERCENT: tool('e2', { type: 'int', min: 0, max: 100, default: 50, doc: 'share of new keys in each upsert batch, in percent' }),
  E2_VUS: tool('e2', { type: 'int', min: 1, max: 16, default: 2, doc: 'concurrent clients (k6 VUs), each with its own connection' }),
  E2_SHARED_BUFFERS_MB: tool('e2', { type: 'int', min: 16, max: 65536, default: 1024, doc: 'shared_buffers of the unlogged-tuned cell, MiB (the post: 3 GB)' }),
  E2_PG_PORT: tool('e2', { type: 'int', min: 1024, max: 65533, default: 17542, doc: 'port of the experiment\'s own PostgreSQL on 127.0.0.1' }),
  E2_MONGO_PORT: tool('e2', { type: 'int', min: 1024, max: 65535, default: 17543, doc: 'port of the experiment\'s own mongod on 127.0.0.1' }),
  E2_MONGO_CACHE_MB: tool('e2', { type: 'int', min: 256, max: 1048576, default: 1024, doc: 'WiredTiger cache of the experiment\'s mongod, MiB (as E2_SHARED_BUFFERS_MB; MongoDB\'s own default is half of (RAM - 1 GB))' }),
  E2_REPS: tool('e2', { type: 'int', min: 1, max: 20, default: 1, doc: 'repetitions of the whole matrix, interleaved (every cell once, then again): ratios per repetition, shown with their spread' }),
  E2_OUT: tool('e2', { ...PATH, allowed: 'a directory path', doc: 'make experiment NAME=e2: the folder of the cells\' results. Default: results/experiment-e2/<UTC time>.' }),
  E2_REPORT: tool('e2', { ...PATH, allowed: 'a file path', doc: 'make experiment NAME=e2: the report (its data beside it as .json). Default: <E2_OUT>/report.md.' }),
  E2_COMMAND: tool('e2', { type: 'string', pattern: /^[^\0]+$/, allowed: 'text', doc: 'make experiment NAME=e2: the command the report names as how it was made.' }),
  RAM_TARGET: tool('ram', { type: 'enum', values: ['postgres', 'mongodb'], default: 'postgres', doc: 'make experiment NAME=ram: the database in the memory-limited cgroup.' }),
  // Each item is a count the target's own index knob takes: the driver adds that declaration as item.
  RAM_INDEXES: tool('ram', { type: 'list', distinct: true, allowed: 'a comma-separated list of distinct index counts (PG_INDEXES / MONGO_INDEXES), e.g. 0,3', default: ['0', '3'], doc: 'make experiment NAME=ram: secondary index counts, one cell each.' }),
  RAM_REGIMES: tool('ram', { type: 'list', values: ['fits', 'exceeds'], distinct: true, allowed: 'fits, exceeds or fits,exceeds', default: ['fits', 'exceeds'], doc: 'make experiment NAME=ram: the memory regimes, one cell each.' }),
  RAM_SMALL_MB: tool('ram', { type: 'int', min: 32, max: 1048576, default: 256, doc: 'memory budget of the "exceeds" regime, MiB' }),
  RAM_LARGE_MB: tool('ram', { type: 'int', min: 64, max: 1048576, default: 4096, doc: 'memory budget of the "fits" regime, MiB' }),
  RAM_SHARED_BUFFERS_MB: tool('ram', { type: 'int', min: 1, max: 65536, default: 32, doc: 'PostgreSQL shared_buffers in both regimes, MiB' }),
  RAM_MIN_RATIO: tool('ram', { type: 'int', min: 1, max: 1000, default: 3, doc: 'the estimated data must be at least this many times RAM_SMALL_MB' }),
  RAM_PG_PORT: tool('ram', { type: 'int', min: 1024, max: 65533, default: 17532, doc: 'port of the experiment\'s own PostgreSQL on 127.0.0.1' }),
  RAM_MONGO_PORT: tool('ram', { type: 'int', min: 1024, max: 65535, default: 17533, doc: 'RAM_TARGET=mongodb: port of the experiment\'s own mongod on 127.0.0.1' }),
  RAM_WT_CACHE_MB: tool('ram', { type: 'int', min: 256, max: 1048576, default: 256, doc: 'RAM_TARGET=mongodb: mongod\'s WiredTiger cache in both regimes, MiB (256 is its minimum)' }),
  RAM_READ_IOPS: tool('ram', { type: 'int', min: 0, max: 10000000, default: 0, doc: 'cap on the server\'s read operations per second on the data disk, 0 = none (E1\'s volume: 375)' }),
  RAM_READ_MBPS: tool('ram', { type: 'int', min: 0, max: 100000, default: 0, doc: 'cap on the server\'s read MB/s (10^6 bytes) on the data disk, 0 = none (E1\'s volume: 60)' }),
  RAM_OUT: tool('ram', { ...PATH, allowed: 'a directory path', doc: 'make experiment NAME=ram: the folder of the cells\' results. Default: results/experiment-ram/<UTC time>.' }),
  RAM_REPORT: tool('ram', { ...PATH, allowed: 'a file path', doc: 'make experiment NAME=ram: the report. Default: <RAM_OUT>/report.md.' }),
  RAM_COMMAND: tool('ram', { type: 'string', pattern: /^[^\0]+$/, allowed: 'text', doc: 'make experiment NAME=ram: the command the report names as how it was made.' }),
  // make bench (bench/*.mjs, bench/README.md): the load generator's benchmarks and the gate's worth.
  BENCH_REPS: tool('bench', { type: 'int', min: 1, max: 100, default: 3, doc: 'make bench: repetitions of every measurement, interleaved (A, B, C, A, B, C, …).' }),
  BENCH_SECONDS: tool('bench', { type: 'int', min: 1, max: 3600, default: 5, doc: 'make bench: length of each HTTP generation run, seconds (bench/run.mjs).' }),
  BENCH_PGBENCH_SECONDS: tool('bench', { type: 'int', min: 1, max: 3600, default: 10, doc: 'make bench: length of each pgbench run and of the gateway floors, seconds.' }),
  BENCH_PG_DOCS: tool('bench', { type: 'int', min: 1000, max: 100000000, default: 100000, doc: 'make bench: rows of the PostgreSQL comparison\'s table (bench/run.mjs).' }),
  BENCH_PG_BATCHES: tool('bench', { type: 'int', min: 1, max: 10000000, default: 300, doc: 'make bench: k6 overwrite batches of the PostgreSQL comparison (bench/run.mjs).' }),
  BENCH_PG_PORT: tool('bench', { type: 'int', min: 1024, max: 65535, default: 17499, doc: 'make bench: port of the benchmark\'s own PostgreSQL on 127.0.0.1 (bench/run.mjs).' }),
  BENCH_MEM_SMALL: tool('bench', { type: 'int', min: 1000, max: 1000000000, default: 200000, doc: 'make bench: documents of the smaller memory run (bench/run.mjs).' }),
  BENCH_MEM_LARGE: tool('bench', { type: 'int', min: 1000, max: 1000000000, default: 2000000, doc: 'make bench: documents of the larger memory run (bench/run.mjs).' }),
  // bench/memory.mjs (bench/README.md "Memory per VU")
  BENCH_MEM_REPS: tool('bench', { type: 'int', min: 1, max: 100, doc: 'bench/memory.mjs per-vu: repetitions, interleaved. Default: BENCH_REPS.' }),
  BENCH_MEM_VUS: tool('bench', { type: 'list', item: CORE_KNOBS.VUS, distinct: true, allowed: `a comma-separated list of distinct VU counts from ${CORE_KNOBS.VUS.min} to ${CORE_KNOBS.VUS.max}, e.g. 1,10,50,200`, default: ['1', '10', '50', '200'], doc: 'bench/memory.mjs per-vu: the VU counts measured (MiB per VU against the same client at 1 VU).' }),
  BENCH_MEM_MAX_MB: tool('bench', { type: 'int', min: 16, max: CORE_KNOBS.MEMORY_BUDGET_MB.max, default: 8000, doc: 'bench/memory.mjs estimate: grid cells whose estimate exceeds this many MiB are listed as not run.' }),
  BENCH_MEM_GRID_REPS: tool('bench', { type: 'int', min: 1, max: 100, default: 3, doc: 'bench/memory.mjs estimate: repetitions of the whole grid.' }),
  // The targets' names live with the grid (bench/memory.mjs): it adds them as values.
  BENCH_MEM_GRID_TARGETS: tool('bench', { type: 'list', distinct: true, allowed: 'a comma-separated list of distinct targets of the grid', doc: 'bench/memory.mjs estimate: run only the grid cells of these targets. Default: all.' }),
  BENCH_MEM_PROFILE_VUS: tool('bench', { type: 'int', min: 2, max: VUS_MAX, default: 20, doc: 'bench/memory.mjs profile: the VUs whose Go heap is held against 1 VU\'s.' }),
  BENCH_MEM_INIT_VUS: tool('bench', { type: 'int', min: 2, max: VUS_MAX, default: 40, doc: 'bench/memory.mjs init: the initialised VUs whose live heap is held against 1 VU\'s.' }),
  BENCH_MEM_PG_PORT: tool('bench', { type: 'int', min: 1024, max: 65535, default: 17497, doc: 'bench/memory.mjs: port of the memory runs\' own PostgreSQL on 127.0.0.1.' }),
  BENCH_MEM_MONGO_PORT: tool('bench', { type: 'int', min: 1024, max: 65535, default: 17495, doc: 'bench/memory.mjs estimate: port of the grid\'s own mongod on 127.0.0.1.' }),
  BENCH_MONGO_DOCS: tool('bench', { type: 'int', min: 1000, max: 100000000, default: 100000, doc: 'make bench: documents loaded for the MongoDB floor (bench/mongo.mjs).' }),
  BENCH_MONGO_BATCHES: tool('bench', { type: 'int', min: 1, max: 10000000, default: 300, doc: 'make bench: overwrite batches of the MongoDB floor (bench/mongo.mjs).' }),
  BENCH_MONGO_PORT: tool('bench', { type: 'int', min: 1024, max: 65535, default: 17496, doc: 'make bench: port of the benchmark\'s own mongod on 127.0.0.1 (bench/mongo.mjs).' }),
  BENCH_GW_VUS: tool('bench', { type: 'list', itemPattern: /^[1-9][0-9]{0,2}$/, allowed: 'a comma-separated list of VU counts from 1 to 999, e.g. 2,4', default: ['2', '4'], doc: 'make bench WHAT=gateway: the VU counts measured (bench/gateway.mjs).' }),
  BENCH_GW_DOCS: tool('bench', { type: 'int', min: 1000, max: 100000000, default: 200000, doc: 'make bench WHAT=gateway: rows loaded before the overwrite phase.' }),
  BENCH_GW_BATCHES: tool('bench', { type: 'int', min: 1, max: 10000000, default: 300, doc: 'make bench WHAT=gateway: overwrite batches (E1\'s overwrite phase).' }),
  BENCH_GW_PG_PORT: tool('bench', { type: 'int', min: 1024, max: 65535, default: 17494, doc: 'make bench WHAT=gateway: port of its own PostgreSQL on 127.0.0.1.' }),
  BENCH_GW_SIDES: tool('bench', { type: 'list', allowed: 'a comma-separated list of sides (bench/gateway.mjs)', doc: 'make bench WHAT=gateway: the sides measured. Default: every side that applies.' }),
  BENCH_GW_BIN: tool('bench', { ...PATH, allowed: 'a file path', doc: 'make bench WHAT=gateway: the gateway binary measured. Default: bin/wp-gateway.' }),
  BENCH_GW_B_BIN: tool('bench', { ...PATH, allowed: 'a file path', doc: 'make bench WHAT=gateway: a second gateway binary, measured as the sides gateway-b and floor-b (A/B of a gateway change).' }),
  BENCH_GW_B_ENV: tool('bench', { type: 'string', pattern: /^[^\0]+$/, allowed: 'space-separated NAME=value pairs', doc: 'make bench WHAT=gateway: the environment of the sides gateway-b and floor-b, e.g. GOGC=200.' }),
  BENCH_GW_PPROF: tool('bench', { ...PATH, allowed: 'a directory path', doc: 'make bench WHAT=gateway: a folder for the gateway\'s -cpuprofile of every run.' }),
  BENCH_GW_JSON: tool('bench', { ...PATH, allowed: 'a file path', doc: 'make bench WHAT=gateway: a file for the raw repetitions.' }),
  OLD_K6: tool('bench', { ...PATH, allowed: 'a file path', doc: 'make bench WHAT=gateway: an older bin/k6, measured as the side old (with OLD_TREE).' }),
  OLD_TREE: tool('bench', { ...PATH, allowed: 'a directory path', doc: 'make bench WHAT=gateway: the checkout whose scenario OLD_K6 runs.' }),
  BENCH_GATE_BLOCKS: tool('bench', { type: 'int', min: 1, max: 1000, default: 20, doc: 'make bench WHAT=gate: interleaved comparison blocks (A, A again, the regression).' }),
  BENCH_GATE_N: tool('bench', { type: 'int', min: 1, max: 100, default: 5, doc: 'make bench WHAT=gate: runs per side in each block.' }),
  BENCH_GATE_WARMUP: tool('bench', { type: 'int', min: 0, max: 100, default: 1, doc: 'make bench WHAT=gate: warm-up runs per block, not measured.' }),
  BENCH_GATE_TARGETS: tool('bench', { type: 'list', itemPattern: /^(api|api-j\d{1,4}|pg|history)$/, allowed: 'a comma-separated list from api, api-j<jitter ms>, pg, history', default: ['api', 'pg', 'history'], doc: 'make bench WHAT=gate: the parts measured.' }),
  BENCH_GATE_DOCS: tool('bench', { type: 'int', min: 1000, max: 100000000, default: 100000, doc: 'make bench WHAT=gate: DOCS of every run (DOCS/1000 load batches).' }),
  BENCH_GATE_BATCHES: tool('bench', { type: 'int', min: 1, max: 10000000, default: 100, doc: 'make bench WHAT=gate: overwrite and mixed batches of every run.' }),
  BENCH_GATE_HISTORY_RUNS: tool('bench', { type: 'int', min: 1, max: 1000, default: 12, doc: 'make bench WHAT=gate: runs per half of the Otava history.' }),
  BENCH_GATE_HISTORY_WARMUP: tool('bench', { type: 'int', min: 0, max: 1000, default: 8, doc: 'make bench WHAT=gate: warm-up runs before the history, not recorded.' }),
  BENCH_GATE_SLOW_MS: tool('bench', { type: 'int', min: 1, max: 10000, default: 27, doc: 'make bench WHAT=gate: the API regression, the slow test server\'s latency and jitter scale, ms (against 20).' }),
  BENCH_GATE_JITTER_MS: tool('bench', { type: 'int', min: 0, max: 10000, default: 20, doc: 'make bench WHAT=gate: the baseline test server\'s jitter, uniform 0 to this many ms on top of 20 ms.' }),
  BENCH_GATE_PG_INDEXES: tool('bench', { type: 'int', min: 0, max: 9, default: 2, doc: 'make bench WHAT=gate: the PostgreSQL regression, this many secondary indexes.' }),
  BENCH_GATE_PG_PORT: tool('bench', { type: 'int', min: 1024, max: 65535, default: 17498, doc: 'make bench WHAT=gate: port of its own PostgreSQL on 127.0.0.1.' }),
  BENCH_GATE_OUT: tool('bench', { ...PATH, allowed: 'a directory path', doc: 'make bench WHAT=gate: the runs and gate folders (kept). Default: results/bench-gate-<UTC time>.' }),
  BENCH_GATE_REUSE: tool('bench', { type: 'list', itemPattern: /^(api|api-j\d{1,4}|pg|history)$/, allowed: 'a comma-separated list from api, api-j<jitter ms>, pg, history', doc: 'make bench WHAT=gate: parts whose runs are taken from BENCH_GATE_OUT (an earlier run\'s folder) instead of made again.' }),
  BENCH_GATE_STOP_AT: tool('bench', { type: 'string', pattern: /^\d{4}-\d\d-\d\d([T ][0-9:.]+(Z|[+-]\d\d:?\d\d)?)?$/, allowed: 'an ISO time such as 2026-11-25T03:10:00Z', doc: 'make bench WHAT=gate: no new block starts after this time.' }),
  // make capacity-demo (scripts/capacity-demo)
  DEMO_KNEE: tool('capacity-demo', { type: 'int', min: 1, max: CORE_KNOBS.RATE_STAGES.max, default: 22, doc: 'make capacity-demo: the knee the API test servers are given (-load-knee-rps), batches per second, which their searches must find.' }),
  DEMO_PG_START: tool('capacity-demo', { type: 'int', min: 1, max: CORE_KNOBS.RATE_STAGES.max, default: 20, doc: 'make capacity-demo: CAPACITY_START of the PostgreSQL search.' }),
  DEMO_PG_MAX: tool('capacity-demo', { type: 'int', min: 1, max: CORE_KNOBS.RATE_STAGES.max, default: 320, doc: 'make capacity-demo: CAPACITY_MAX of the PostgreSQL search.' }),
};
Object.assign(CORE_KNOBS, TOOL_KNOBS);
