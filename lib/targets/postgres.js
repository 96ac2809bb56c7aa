// PostgreSQL target: one table (key text primary key, doc jsonb not null) per run, named
// k6wp_<RUN_ID> in PG_SCHEMA, written through xk6-sql. A batch is ONE statement that gets
// the whole batch as one JSON text parameter and expands it server-side with
// jsonb_array_elements (3.4x faster than two array parameters, measurements.md).
//   insert: INSERT … SELECT …            a duplicate key fails the statement (whole batch)
//   upsert: INSERT … ON CONFLICT (key) DO UPDATE SET doc = EXCLUDED.doc
// xk6-sql has no transactions; one statement is atomic, so a failed batch wrote nothing.
import sql from 'k6/x/sql';
import driver from 'k6/x/sql/driver/postgres';
import exec from 'k6/execution';
import { sleep } from 'k6';
import { redact } from '../config.js';
import { bodyBytes, createDocs, INDEX_FIELDS } from '../docs.js';
import { asciiBuffer, maxKeyOf, writingVu } from '../bytes.js';
import { keyName } from '../keys.js';

export const MARKER = 'k6-writepath';
export const REASONS = ['unique_violation', 'cardinality_violation', 'timeout', 'connection', 'auth', 'undefined_table', 'other'];

// lib/pq sends connection-string keys it does not know as server settings at connect time,
// which is how synchronous_commit reaches every pooled connection of every VU.
function connectionUrl(cfg) {
  const u = cfg.PG_URL;
  const extra = [];
  if (!/[?&]connect_timeout=/.test(u)) extra.push('connect_timeout=5');
  if (!/[?&]application_name=/.test(u)) extra.push('application_name=k6-writepath');
  if (!/[?&]binary_parameters=/.test(u)) extra.push('binary_parameters=yes'); // see jsonbBinary()
  extra.push(`synchronous_commit=${cfg.PG_SYNC_COMMIT}`);
  return u + (u.includes('?') ? '&' : '?') + extra.join('&');
}

export function classify(message) {
  const m = String(message);
  if (/duplicate key value violates unique constraint/.test(m)) return 'unique_violation';
  if (/cannot affect row a second time/.test(m)) return 'cardinality_violation';
  if (/context deadline exceeded|canceling statement due to (user request|statement timeout)/.test(m)) return 'timeout';
  if (/password authentication failed|no pg_hba.conf entry|role .* does not exist/.test(m)) return 'auth';
  if (/relation .* does not exist|schema .* does not exist/.test(m)) return 'undefined_table';
  if (/connection refused|broken pipe|connection reset|bad connection|EOF|terminating connection|database system is (starting up|shutting down|in recovery mode|not yet accepting connections)|too many clients already|server closed the connection|no such host|i\/o timeout/.test(m)) return 'connection';
  return 'other';
}

// Batches as binary jsonb parameters. With binary_parameters=yes, lib/pq (v1.12.3, conn.go
// sendBinaryParameters) sends a []byte argument in binary format and every other argument
// as text; xk6-sql passes a Uint8Array as []byte. jsonb's binary input format is a version
// byte 1 followed by the JSON text (PostgreSQL src/backend/utils/adt/jsonb.c, jsonb_recv), so
// a batch is the same patched byte image the HTTP adapters post, behind one 0x01 byte: no
// string is built per batch (lib/docs.js body()). The other statements (DDL, markers,
// count, the read-back's text[] parameter) pass strings and stay text. A PG_URL that sets
// binary_parameters to anything but true keeps the text path: lib/pq would then send the
// bytes as bytea text, which jsonb rejects.
export function jsonbBinary(url) {
  const m = /[?&]binary_parameters=([^&]*)/.exec(url);
  return !m || ['1', 't', 'T', 'true', 'TRUE', 'True', 'yes', 'on'].includes(decodeURIComponent(m[1]));
}
const JSONB_VERSION = '\u0001';

// Pause of a VU after a batch failed for lack of a connection (see write()).
const CONNECTION_BACKOFF_S = 0.5;

// Reasons after which hammering on is pointless: the run stops with one clear line.
const FATAL = { auth: 'PG_URL: authentication failed', undefined_table: 'the run\'s table disappeared during the run' };

export function createTarget(cfg) {
  const db = sql.open(driver, connectionUrl(cfg), { max_open_conns: 1, max_idle_conns: 1 });
  const docs = createDocs(cfg, { keyField: 'key', toBytes: asciiBuffer });
  const binary = jsonbBinary(cfg.PG_URL);
  const bodyOpts = { lead: JSONB_VERSION };
  // Body images built here, in the init context, not by the first timed batch of a VU.
  if (binary && writingVu()) docs.prepare({ count: cfg.BATCH_SIZE, maxKey: maxKeyOf(cfg), lead: JSONB_VERSION, stamps: ['l'] });
  const timeout = cfg.TIMEOUT;
  const logged = {};
  let table = null;
  let insertSql = null;
  let upsertSql = null;

  function bind(runId) {
    if (table) return;
    table = `"${cfg.PG_SCHEMA}".k6wp_${runId}`;
    const select = `SELECT e->>'key', e FROM jsonb_array_elements($1::jsonb) AS e`;
    insertSql = `INSERT INTO ${table} (key, doc) ${select}`;
    upsertSql = `INSERT INTO ${table} (key, doc) ${select} ON CONFLICT (key) DO UPDATE SET doc = EXCLUDED.doc`;
  }

  function one(query, ...args) {
    const rows = db.queryWithTimeout(timeout, query, ...args);
    return rows[0];
  }

  // The marker of a table shared by the instances of a distributed run: the run and the
  // hash of its plan knobs, so only instances of the same run with the same plan join it.
  const sharedMarker = (runId, signature) => `${MARKER} run=${runId} distributed=${signature}`;

  // DISTRIBUTED (docs/scale-out.md): every instance creates the table if it is absent or
  // joins it when it carries this run's shared marker. One DO block under a transaction-level
  // advisory lock: concurrent instances do not race on CREATE TABLE, and nobody sees the table
  // without its marker and indexes. mode verify: the table must exist; nothing is created.
  function createOrJoin(runId, { mode, signature }) {
    const name = `k6wp_${runId}`;
    const marker = sharedMarker(runId, signature);
    if (mode === 'join') {
      const indexes = [];
      for (let i = 0; i < cfg.PG_INDEXES; i++) indexes.push(`CREATE INDEX ${name}_${INDEX_FIELDS[i]} ON ${table} ((doc->>'${INDEX_FIELDS[i]}'));`);
      try {
        db.execWithTimeout(timeout, `DO $k6wp$ BEGIN
          PERFORM pg_advisory_xact_lock(hashtext('${cfg.PG_SCHEMA}.${name}'));
          IF NOT EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = '${cfg.PG_SCHEMA}' AND c.relname = '${name}') THEN
            CREATE ${cfg.PG_TABLE === 'unlogged' ? 'UNLOGGED ' : ''}TABLE ${table} (key text PRIMARY KEY, doc jsonb NOT NULL);
            COMMENT ON TABLE ${table} IS '${marker}';
            ${indexes.join(' ')}
          END IF;
        END $k6wp$`);
      } catch (e) {
        exec.test.abort(`cannot create or join table ${cfg.PG_SCHEMA}.${name}: ${redact(e)}`);
      }
    }
    const rows = db.queryWithTimeout(timeout, `SELECT coalesce(obj_description(c.oid, 'pg_class'), '') AS marker
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2`, cfg.PG_SCHEMA, name);
    if (rows.length === 0) exec.test.abort(`table ${cfg.PG_SCHEMA}.${name} does not exist: nothing to verify for RUN_ID=${runId}`);
    const found = String(rows[0].marker);
    if (!found.startsWith(MARKER)) exec.test.abort(`table ${cfg.PG_SCHEMA}.${name} exists and was not created by k6-writepath: refusing to touch it; choose another RUN_ID`);
    if (found !== marker) {
      exec.test.abort(`table ${cfg.PG_SCHEMA}.${name} belongs to another run or to instances with other workload knobs (marker "${found}", this instance "${marker}"): use the same knobs on every instance, or a new RUN_ID`);
    }
  }

  function setup(runId, distributed = null) {
    let info;
    try {
      info = one(`SELECT version() AS version, current_setting('synchronous_commit') AS synchronous_commit,
        current_setting('shared_buffers') AS shared_buffers, current_setting('fsync') AS fsync,
        current_setting('server_version') AS server_version`);
    } catch (e) {
      exec.test.abort(`PG_URL: cannot reach PostgreSQL: ${redact(e)}`);
    }
    bind(runId);
    const name = `k6wp_${runId}`;
    let reused = false;
    if (distributed) createOrJoin(runId, distributed);
    const existing = distributed ? [] : db.queryWithTimeout(timeout, `SELECT coalesce(obj_description(c.oid, 'pg_class'), '') AS marker
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2`, cfg.PG_SCHEMA, name);
    if (distributed) {
      // created or joined above
    } else if (existing.length > 0) {
      const marker = String(existing[0].marker);
      if (!marker.startsWith(MARKER)) {
        exec.test.abort(`table ${cfg.PG_SCHEMA}.${name} exists and was not created by k6-writepath: refusing to touch it; choose another RUN_ID`);
      }
      if (!cfg.REUSE) {
        exec.test.abort(`table ${cfg.PG_SCHEMA}.${name} already exists (an earlier k6-writepath run): set REUSE=1 to empty and reuse it, or choose another RUN_ID`);
      }
      db.execWithTimeout(timeout, `TRUNCATE ${table}`);
      reused = true;
    } else {
      try {
        db.execWithTimeout(timeout, `CREATE ${cfg.PG_TABLE === 'unlogged' ? 'UNLOGGED ' : ''}TABLE ${table} (key text PRIMARY KEY, doc jsonb NOT NULL)`);
        db.execWithTimeout(timeout, `COMMENT ON TABLE ${table} IS '${MARKER} run=${runId}'`);
        for (let i = 0; i < cfg.PG_INDEXES; i++) {
          db.execWithTimeout(timeout, `CREATE INDEX ${name}_${INDEX_FIELDS[i]} ON ${table} ((doc->>'${INDEX_FIELDS[i]}'))`);
        }
      } catch (e) {
        try { db.execWithTimeout(timeout, `DROP TABLE IF EXISTS ${table}`); } catch (_) { /* nothing more to undo */ }
        exec.test.abort(`cannot create table ${cfg.PG_SCHEMA}.${name}: ${redact(e)}`);
      }
    }
    return {
      version: String(info.version),
      serverVersion: String(info.server_version),
      objects: [`table ${cfg.PG_SCHEMA}.${name}`],
      reused,
      settings: {
        synchronous_commit: String(info.synchronous_commit),
        fsync: String(info.fsync),
        shared_buffers: String(info.shared_buffers),
        table: cfg.PG_TABLE,
        secondary_indexes: cfg.PG_INDEXES,
      },
    };
  }

  // The batch parameter: binary jsonb bytes (a Uint8Array over the image docs.body() patched),
  // or the JSON text where no byte path applies.
  function batchParam(nums, stamp) {
    if (!binary) return docs.batch(nums, stamp);
    const b = docs.body(nums, stamp, bodyOpts);
    return typeof b === 'string' ? b : new Uint8Array(b);
  }

  function write(op, nums, stamp, tags) {
    const body = batchParam(nums, stamp);
    const query = op === 'insert' ? insertSql : upsertSql;
    const t0 = exec.instance.currentTestRunDuration; // sub-millisecond, unlike Date.now()
    let failedReason = null;
    let message = '';
    try {
      db.execWithTimeout(timeout, query, body);
    } catch (e) {
      message = String(e);
      failedReason = classify(message);
    }
    const ms = exec.instance.currentTestRunDuration - t0;
    if (!failedReason) return { n: nums.length, ms, bytes: bodyBytes(body), failed: 0, byReason: {}, failedIndexes: null };
    if (!logged[failedReason]) {
      logged[failedReason] = true;
      console.error(`[${tags.phase}] batch of ${nums.length} failed (${failedReason}): ${redact(message)}`);
    }
    // The workload aborts after it has counted this batch (abort: …), so the batch that
    // revealed the fault is in the results too.
    const abort = FATAL[failedReason] ? `${FATAL[failedReason]}: ${redact(message)}` : null;
    // A refused connection fails in well under a millisecond: without a pause a VU would burn
    // hundreds of batches of its phase during a two-second restart. The pause is outside the
    // timed batch, and the batch still counts as failed.
    if (failedReason === 'connection') sleep(CONNECTION_BACKOFF_S);
    return { n: nums.length, ms, bytes: bodyBytes(body), failed: nums.length, byReason: { [failedReason]: nums.length }, failedIndexes: null, abort };
  }

  function count() {
    return Number(one(`SELECT count(*)::int8 AS n FROM ${table}`).n);
  }

  // key number -> stamp ("w") of the stored document.
  function readStamps(nums) {
    const out = new Map();
    for (let i = 0; i < nums.length; i += 5000) {
      const chunk = nums.slice(i, i + 5000);
      const rows = db.queryWithTimeout(timeout, `SELECT key, doc->>'w' AS w FROM ${table} WHERE key = ANY($1::text[])`,
        `{${chunk.map(keyName).join(',')}}`);
      for (const r of rows) out.set(Number(String(r.key).slice(1)), String(r.w));
    }
    return out;
  }

  function teardown(runId, keep) {
    const rows = db.queryWithTimeout(timeout, `SELECT coalesce(obj_description(c.oid, 'pg_class'), '') AS marker
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2`, cfg.PG_SCHEMA, `k6wp_${runId}`);
    if (rows.length === 0) return 'absent';
    if (!String(rows[0].marker).startsWith(MARKER)) return 'not ours, left alone';
    if (keep) return 'kept (KEEP=1)';
    db.execWithTimeout(timeout, `DROP TABLE ${table}`);
    return 'dropped';
  }

  return { name: 'postgres', reasons: REASONS, distributed: true, bind, setup, write, batchParam, count, readStamps, teardown };
}
