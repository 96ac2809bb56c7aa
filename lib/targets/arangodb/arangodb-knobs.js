// What the ArangoDB target (lib/targets/arangodb/arangodb.js, REST through k6/http; docs/arangodb.md)
// declares to the rest of the pack through the registry (lib/targets/index.js): its knobs,
// the names of its failure reasons and what it can do. No k6 module here: lib/config.js, the
// Node scripts and the tests read it too.
/** @type {import('../../../types/targets').Declaration} */
export const ARANGODB = {
  name: 'arangodb',
  prefix: 'ARANGO_',
  knobs: {
    ARANGO_URL:   { type: 'url', plan: false, schemes: ['http', 'https'], path: false, allowed: 'http(s)://host:port without credentials or path (credentials go in ARANGO_USER/ARANGO_PASSWORD)', default: 'http://127.0.0.1:8529', doc: 'ArangoDB server (coordinator or single server).' },
    ARANGO_USER:  { type: 'string', plan: false, pattern: /^[^:\s]{1,64}$/, allowed: '1-64 characters without ":" or spaces', default: 'root', doc: 'User for basic auth or /_open/auth; needs rights to create and drop databases in _system.' },
    ARANGO_PASSWORD: { type: 'secret', plan: false, doc: 'Password of ARANGO_USER, from the environment only; empty or unset = empty password (servers started with ARANGO_NO_AUTH ignore it). Never printed.' },
    ARANGO_AUTH:  { type: 'enum', plan: false, values: ['basic', 'jwt'], default: 'basic', doc: 'basic = Authorization: Basic on every request; jwt = one token per VU from /_open/auth, renewed when less than min(5 minutes, a quarter of its lifetime) remains (server default lifetime 1 h).' },
    ARANGO_WAIT_FOR_SYNC: { type: 'bool', default: false, doc: 'waitForSync property of the run\'s collections (true: every write is synced before the answer, status 201).' },
    ARANGO_INDEXES: { type: 'int', min: 0, max: 9, default: 0, doc: 'Persistent (non-unique) indexes on f0..f8 of the E1 documents; each overwrite must then read the old revision to remove its index entries.' },
    ARANGO_SILENT: { type: 'bool', plan: false, default: false, doc: 'silent=true on batch writes: the answer lists only failed elements, so failures are counted from X-Arango-Error-Codes and cannot be mapped to keys: docs_new is a lower bound, the count is held against a range, and a read-back that could judge no key fails the run (docs/reliability.md).' },
    ARANGO_KEEP_NULL: { type: 'bool', default: true, doc: 'keepNull sent explicitly with OVERWRITE_OP=merge (docs say the default is true, the server source parses false).' },
    OVERWRITE_OP: { type: 'enum', values: ['upsert', 'merge', 'ignore'], default: 'upsert', doc: 'Operation of the E1 overwrite phase on ArangoDB: upsert = overwriteMode=replace, merge = overwriteMode=update, ignore = overwriteMode=ignore (no write).' },
  },
  // The server's own settings in docker-compose*.yml.
  otherEnv: ['ARANGO_ROOT_PASSWORD', 'ARANGO_NO_AUTH', 'ARANGO_RANDOM_ROOT_PASSWORD'],
  // Failure reasons declared to k6 (one sub-metric each): the element errorNums a write can
  // carry (errors.yaml), whole-request HTTP failures, and transport failures. A reason not
  // listed still counts in docs_failed and shows as "unlisted" in the table.
  reasons: [
    'e4', 'e18', 'e21', 'e32', 'e1004', 'e1200', 'e1202', 'e1203', 'e1210', 'e1221', 'e1222', 'e1227', 'e1228', 'e1233', 'e1655',
    'http_400', 'http_401', 'http_404', 'http_409', 'http_410', 'http_412', 'http_500', 'http_503', 'http_other',
    'timeout', 'connection', 'unconfirmed',
  ],
  // unnamedFailures: with silent=true an answer counts failed elements without naming them.
  capabilities: (cfg) => ({ batch: ['insert', 'upsert', 'merge', 'ignore'], collections: Infinity, planIndexes: true, count: true, readback: true, unnamedFailures: Boolean(cfg && cfg.ARANGO_SILENT), undetermined: true }),
  distributed: true,
  // What its VUs hold per batch (lib/memory.js): http requests, one body per request format of
  // the operations a plan writes (every operation posts the same array (only the URL differs)).
  memory: { transport: 'http', formats: (ops) => (ops.length > 0 ? 1 : 0) },
};
