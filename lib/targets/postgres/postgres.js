// PostgreSQL target: one table (key text primary key, doc jsonb not null) per run, named
// k6wp_<RUN_ID> in PG_SCHEMA, written through the pack's gateway (lib/gateway.js,
// docs/gateway.md), which holds PG_URL. A batch is ONE statement that gets
// the whole batch as one JSON text parameter and expands it server-side with
// jsonb_array_elements: one parameter crosses the driver once, and the rows come out on the
// server (two array parameters with unnest were measured much slower; bench/RESULTS.md).
//   insert: INSERT … SELECT …            a duplicate key fails the statement (whole batch)
//   upsert: INSERT … ON CONFLICT (key) DO UPDATE SET doc = EXCLUDED.doc
// One statement is atomic, so a batch the server refused wrote nothing. Each write carries the
// OID of the table the run created (read at setup) in a condition that fails the statement
// when another table holds the run's name (dropped and created again by someone else): that
// table gets no row, and the run stops (a name alone would let it write there).
import { GatewayError, openSql, requireGateway } from '../../gateway.js';
import { durationMs, InputRefusal } from '../../parse.js';
import { redact } from '../../urls.js';
import { POSTGRES } from './postgres-knobs.js';
import { withCapabilities } from '../../capabilities.js';
import { lifecycle, markerText, probeTimeout } from '../lifecycle.js';
import { stop } from '../../abort.js';
import { ACKNOWLEDGED, maybeArrived, request, untilNotNowEnds } from '../outcome.js';
import { createDocs, INDEX_FIELDS } from '../../docs.js';
import { asciiBuffer, writingVu } from '../../bytes.js';
import { keyName } from '../../keys.js';
import { stampsInChunks } from '../../readback.js';
import { COUNTER_FIELD, pgIncrementSql, pgKeysParam } from '../increments.js';
import { NOT_NOW, SWAPPED, classify } from './postgres-answers.js';

const REASONS = POSTGRES.reasons;

// The untimed statements (set-up, verification, teardown, the contention workload's reads and
// ledgers) wait out a "not now" refusal within GIVE_UP as the batches do (outcome.js
// untilNotNowEnds), with one line the first time; a refusal past GIVE_UP is thrown as it came.
// With more VUs than max_connections a VU's read-back may be refused while others still write.
function patient(cfg, db) {
  const giveUpMs = durationMs(cfg.GIVE_UP);
  let told = false;
  const waiting = (fn) => (...args) => {
    const a = untilNotNowEnds(giveUpMs, () => {
      try {
        return { value: fn(...args) };
      } catch (e) {
        const notNow = notNowOf(e);
        if (notNow) return { notNow, error: e };
        throw e;
      }
    }, (refused) => {
      if (!told) console.error(`k6-writepath: PostgreSQL refused the connection: ${NOT_NOW[refused.notNow]} (${refused.notNow}): nothing was done; sent again after a pause (within GIVE_UP=${cfg.GIVE_UP})`);
      told = true;
    });
    if (a.notNow) throw a.error;
    return a.value;
  };
  return { queryWithTimeout: waiting((...a) => db.queryWithTimeout(...a)), execWithTimeout: waiting((...a) => db.execWithTimeout(...a)) };
}

function notNowOf(e) {
  return e instanceof GatewayError && !e.unreachable && e.sent === false && NOT_NOW[e.sqlstate] ? e.sqlstate : null;
}

// Batches as binary jsonb parameters. The gateway opens its pool with binary_parameters=yes
// (unless PG_URL sets it otherwise) and sends an octet-stream parameter in binary format.
// jsonb's binary input format is a version byte 1 followed by the JSON text (PostgreSQL
// src/backend/utils/adt/jsonb.c, jsonb_recv), so a batch is the same patched byte image the
// HTTP adapters post, behind one 0x01 byte: no string is built per batch (lib/docs.js body()).
// A PG_URL that turns binary_parameters off keeps the text path (a JSON text argument).
const JSONB_VERSION = '\u0001';

// Reasons after which hammering on is pointless: the run stops with one clear line once the
// batch that revealed it is counted.
const FATAL = { auth: 'PG_URL: authentication failed', undefined_table: 'the run\'s table disappeared during the run' };

const q = (s) => `'${String(s).replace(/'/g, "''")}'`;

// SQL: true when the relation of the run's table name is the table the run created (its OID,
// run.oid); the regclass literal is resolved when the statement is parsed.
const isRunTable = (run) => `${q(run.table)}::regclass=${run.oid}`;

// The pool: one connection per VU, with the run's synchronous_commit as a server setting.
function open(cfg) {
  return openSql(cfg, { settings: { synchronous_commit: cfg.PG_SYNC_COMMIT } });
}

// What the gateway's refusal of the first call means for the user: no gateway at
// GATEWAY_URL, or one without a usable PG_URL, is bad input (exit 107, nothing written).
function gatewayRefusal(cfg, e) {
  if (e && e.unreachable) {
    return new InputRefusal(`GATEWAY_URL=${cfg.GATEWAY_URL}: ${e.message}: start one with  PG_URL='postgres://…' bin/wp-gateway -ready-file .run/gateway.url  and give k6 -e GATEWAY_URL=$(cat .run/gateway.url) (scripts/run does both; docs/gateway.md)`);
  }
  if (e && e.kind === 'config') return new InputRefusal(String(e.message).replace(/^gateway: /, ''));
  return null;
}

// The declaration of this target (knobs, reasons, capabilities): lib/targets/postgres/postgres-knobs.js.
export const declaration = POSTGRES;

// The primitives of lib/targets/lifecycle.js for the run's table (run: its names, set by the
// target's bind()).
// (db: the handle; calm: the same waiting out "not now", which the probe does with its own line)
function tablePrimitives(cfg, db, calm, run) {
  return Object.assign({ probe: () => probe(cfg, db) }, creation(cfg, calm, run), tableReads(cfg, calm, run), guardedChanges(cfg, calm, run));
}

// The server as the report shows it (lifecycle.js probe): version and the settings that
// decide what an acknowledgement means.
// A "not now" refusal is waited out with the batches' back-off, within GIVE_UP.
function probe(cfg, db) {
  const probeWithin = probeTimeout(cfg);
  const what = (notNow) => `PostgreSQL refused the connection: ${NOT_NOW[notNow]} (${notNow})`;
  let told = false;
  const answer = untilNotNowEnds(durationMs(cfg.GIVE_UP), () => {
    try {
      return { info: db.queryWithTimeout(probeWithin, `SELECT version() AS version, current_setting('synchronous_commit') AS synchronous_commit,
          current_setting('shared_buffers') AS shared_buffers, current_setting('fsync') AS fsync,
          current_setting('server_version') AS server_version`)[0] };
    } catch (e) {
      const refusal = gatewayRefusal(cfg, e);
      if (refusal) throw refusal;
      const message = redact(e);
      const notNow = notNowOf(e);
      if (notNow) return { notNow, message };
      if (classify(message, 0, Infinity, e.sqlstate) === 'auth') throw `PG_URL: PostgreSQL refused the credentials: ${message}`;
      throw `PG_URL: cannot reach PostgreSQL: ${message}`;
    }
  }, (refused) => {
    if (!told) console.error(`k6-writepath: ${what(refused.notNow)}: setup waits and tries again within GIVE_UP=${cfg.GIVE_UP}`);
    told = true;
  });
  if (answer.notNow) throw `PG_URL: ${what(answer.notNow)} for GIVE_UP=${cfg.GIVE_UP}: ${answer.message}; nothing was written`;
  const info = answer.info;
  return {
    version: String(info.version),
    serverVersion: String(info.server_version),
    settings: { synchronous_commit: String(info.synchronous_commit), fsync: String(info.fsync), shared_buffers: String(info.shared_buffers) },
  };
}

// create() of the run's table, and what a name it finds taken means.
function creation(cfg, db, run) {
  const timeout = cfg.TIMEOUT;
  // One simple-protocol statement list = one implicit transaction: nobody ever sees the
  // table without its marker and indexes. A name that is taken fails with 42P07 (or, when
  // two sessions create it at once, with a unique violation in the catalog).
  function create(marker) {
    const indexes = [];
    for (let i = 0; i < cfg.PG_INDEXES; i++) indexes.push(`CREATE INDEX ${run.name}_${INDEX_FIELDS[i]} ON ${run.table} ((doc->>'${INDEX_FIELDS[i]}'));`);
    try {
      db.execWithTimeout(timeout, `CREATE ${cfg.PG_TABLE === 'unlogged' ? 'UNLOGGED ' : ''}TABLE ${run.table} (key text PRIMARY KEY, doc jsonb NOT NULL);
        COMMENT ON TABLE ${run.table} IS ${q(markerText(marker))}; ${indexes.join(' ')}`);
      return 'created';
    } catch (e) {
      const taken = takenName(String(e));
      // A relation of the table's name: ours or not, lifecycle.js reads its marker. A type of
      // that name without a relation (42710), or any other name the table needs: not ours.
      if ((taken === run.name && /relation "/.test(String(e))) || /duplicate key value violates unique constraint "pg_(type|class)_/.test(String(e))) return 'exists';
      if (taken) throw `${cfg.PG_SCHEMA}.${taken} already exists and was not created by this run (${whatNeeds(taken)}): refusing to touch it; choose another RUN_ID`;
      throw redact(e);
    }
  }

  // The name a CREATE found taken: relation "x" (42P07) or type "x" (42710), or null.
  function takenName(message) {
    const m = /(?:relation|type) "([^"]+)" already exists/.exec(message);
    return m ? m[1] : null;
  }

  // Which of the run's objects needs a name: the table's row type, its primary key, an index.
  function whatNeeds(taken) {
    if (taken === run.name) return 'a type of this name; the run\'s table needs it for its row type';
    if (taken === `${run.name}_pkey`) return 'the run\'s table needs it for its primary key';
    const f = INDEX_FIELDS.find((x) => taken === `${run.name}_${x}`);
    return f ? `the run's table needs it for its index on ${f} (PG_INDEXES)` : 'the run\'s table needs it';
  }
  return { create };
}

// What the run's table holds and is: its marker, its shape, the shape the plan asks for.
function tableReads(cfg, db, run) {
  const timeout = cfg.TIMEOUT;
  // undefined: no such relation; null: no comment.
  function readMarker() {
    const rows = db.queryWithTimeout(timeout, `SELECT coalesce(obj_description(c.oid, 'pg_class'), '') AS marker
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2`, cfg.PG_SCHEMA, run.name);
    if (rows.length === 0) return undefined;
    return String(rows[0].marker) || null;
  }

  // What the relation really is: kind, columns, primary key, and the document fields with
  // an expression index (any other index is named as it is).
  function shape() {
    const rel = db.queryWithTimeout(timeout, `SELECT c.relkind, c.relpersistence,
        (SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || CASE WHEN a.attnotnull THEN ' not null' ELSE '' END, ', ' ORDER BY a.attnum)
           FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped) AS columns,
        (SELECT string_agg(pg_get_indexdef(i.indexrelid), ' | ' ORDER BY pg_get_indexdef(i.indexrelid)) FROM pg_index i WHERE i.indrelid = c.oid AND i.indisprimary) AS pkey,
        (SELECT string_agg(pg_get_indexdef(i.indexrelid), ' | ' ORDER BY pg_get_indexdef(i.indexrelid)) FROM pg_index i WHERE i.indrelid = c.oid AND NOT i.indisprimary) AS indexes
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2`, cfg.PG_SCHEMA, run.name);
    if (rel.length === 0) return {};
    const r = rel[0];
    const fields = String(r.indexes || '').split(' | ').filter(Boolean).map((d) => {
      const m = /USING btree \(+doc ->> '(\w+)'::text\)+$/.exec(d);
      return m ? m[1] : `other index: ${d.replace(/^CREATE (UNIQUE )?INDEX /, '')}`;
    }).sort();
    return {
      kind: String(r.relkind) === 'r' ? 'table' : `relkind ${r.relkind}`,
      columns: String(r.columns || ''),
      primary_key: /USING btree \(key\)$/.test(String(r.pkey || '')) ? 'key' : String(r.pkey || '(none)'),
      PG_TABLE: String(r.relpersistence) === 'u' ? 'unlogged' : String(r.relpersistence) === 'p' ? 'logged' : `relpersistence ${r.relpersistence}`,
      PG_INDEXES: fields.length ? fields.join('+') : '0',
    };
  }

  function planned() {
    return {
      kind: 'table',
      columns: 'key text not null, doc jsonb not null',
      primary_key: 'key',
      PG_TABLE: cfg.PG_TABLE,
      PG_INDEXES: cfg.PG_INDEXES ? INDEX_FIELDS.slice(0, cfg.PG_INDEXES).slice().sort().join('+') : '0',
    };
  }
  return { readMarker, shape, planned };
}

// The changes lifecycle.js makes to a table it found: empty, re-mark, drop.
function guardedChanges(cfg, db, run) {
  const timeout = cfg.TIMEOUT;
  // Empty, re-mark, and (drop) only while the table still carries the marker `expected` and,
  // once setup read it, is the table the run created (its OID): the check and the change are
  // one transaction, under a lock on the table.
  function guarded(expected, action) {
    db.execWithTimeout(timeout, `DO $k6wp$ BEGIN
      LOCK TABLE ${run.table} IN ACCESS EXCLUSIVE MODE;
      ${run.oid ? `IF NOT ${isRunTable(run)} THEN
        RAISE EXCEPTION 'the table is not the one this run created (another OID)';
      END IF;` : ''}
      IF coalesce(obj_description(${q(`${cfg.PG_SCHEMA}.${run.name}`)}::regclass, 'pg_class'), '') <> ${q(markerText(expected))} THEN
        RAISE EXCEPTION 'the table no longer carries the expected marker';
      END IF;
      ${action}
    END $k6wp$`);
  }

  function empty(marker, found) {
    guarded(found, `TRUNCATE ${run.table}; COMMENT ON TABLE ${run.table} IS ${q(markerText(marker))};`);
  }

  function mark(marker, found) {
    guarded(found, `COMMENT ON TABLE ${run.table} IS ${q(markerText(marker))};`);
  }

  function drop(marker) {
    guarded(marker, `DROP TABLE ${run.table};`);
  }
  return { empty, mark, drop };
}

// The requests of the batch runner (lib/targets/outcome.js) on the run's table, and its count.
function requests(cfg, db, run, docs, bodyOpts, calm) {
  const timeout = cfg.TIMEOUT;
  const timeoutMs = durationMs(timeout);

  // (the count: verification's, untimed)
  function one(query, ...args) {
    const rows = calm.queryWithTimeout(timeout, query, ...args);
    return rows[0];
  }

  // The batch parameter: binary jsonb bytes (the body docs.body() patched, posted to the
  // gateway as they are), or the JSON text where no byte path applies (binary_parameters off,
  // a key the byte body cannot hold).
  // With binary parameters the gateway renders the body from a recipe (lib/docs.js recipe()).
  function batchBody(nums, stamp) {
    if (!db.binary()) return docs.batch(nums, stamp);
    return docs.recipe(nums, stamp, bodyOpts) || docs.body(nums, stamp, bodyOpts);
  }

  // One batch = one statement (lib/targets/outcome.js runs it). send() is the statement call
  // and nothing else: its k6 timing is the batch's time; what failed is worked out in
  // settle(), after the clock.
  function batch(op, nums, stamp) {
    const n = nums.length;
    let body;
    try {
      body = batchBody(nums, stamp); // a VU's first batch opens its handle (binary or text)
    } catch (e) {
      if (!(e instanceof GatewayError)) throw e;
      return request(n, null, (tags) => ({ settle: (ms) => failure(e, n, tags, ms) }));
    }
    const query = op === 'insert' ? run.insertSql : run.upsertSql;
    return request(n, body, (tags) => {
      try {
        if (typeof body === 'string') db.execWithTimeout(timeout, query, body);
        else if (body.image) return { responses: [db.execRecipe(timeout, query, body, tags)] };
        else return { responses: [db.execBytes(timeout, query, body, tags)] };
        return ACKNOWLEDGED;
      } catch (e) {
        return { responses: e.res ? [e.res] : undefined, settle: (ms) => failure(e, n, tags, ms) };
      }
    });
  }

  function failure(e, n, tags, ms) {
    const message = redact(String(e).replace(/^GoError: /, ''));
    // No answer from the gateway: k6's own timeout (error code 1050) or a connection problem.
    const reason = e.unreachable ? (e.code === 1050 ? 'timeout' : 'connection') : classify(message, ms, timeoutMs, e.sqlstate);
    // A SQLSTATE in the message: the server answered (too many clients, starting up, …).
    const answered = /\((SQLSTATE )?[0-9A-Z]{5}\)/.test(message);
    // Stored or not, nobody knows: the statement was sent (a byte of it at least) and the
    // server never answered (connection lost, the deadline), or the gateway got the whole
    // request and k6 no answer. A server's own error (a SQLSTATE) rolled it back.
    const unknown = e.unreachable ? !e.opening && maybeArrived(e.res) : e.sent !== false && !answered && (reason === 'connection' || reason === 'timeout');
    // Refused at connection time, nothing sent: the runner sends it again (notNow).
    const notNow = notNowOf(e);
    if (notNow) {
      return { reason, answered, notNow: reason, log: `[${tags.phase}] batch of ${n} failed (${reason}): not sent, the server refused the connection ("not now", ${notNow}): ${message}` };
    }
    if (unknown) {
      return { reason, undetermined: true, log: `[${tags.phase}] batch of ${n} got no answer (${reason}): stored or not, counted failed and undetermined (the verification resolves it): ${message}` };
    }
    // The OID guard (bind): the batch met a table that is not the run's.
    if (message.includes(SWAPPED)) {
      return { reason, answered, log: `[${tags.phase}] batch of ${n} wrote nothing (${reason}): table ${cfg.PG_SCHEMA}.${run.name} is not the table this run created (another OID)`,
        fatal: `the run's table ${cfg.PG_SCHEMA}.${run.name} was replaced during the run (dropped or renamed, and another table created under its name: another OID): nothing was written into the table the run did not create` };
    }
    return { reason, answered, log: `[${tags.phase}] batch of ${n} failed (${reason}): ${message}`,
      fatal: FATAL[reason] ? `${FATAL[reason]}: ${message}` : null };
  }

  // Only the run's own table is counted (the verification never reads someone else's).
  function count() {
    if (!run.oid) return Number(one(`SELECT count(*)::int8 AS n FROM ${run.table}`).n);
    const r = one(`SELECT CASE WHEN ${isRunTable(run)} THEN (SELECT count(*)::int8 FROM ${run.table}) END AS n`);
    if (r.n === null || r.n === undefined) throw new Error(`table ${cfg.PG_SCHEMA}.${run.name} is not the table this run created (another OID): not counted`);
    return Number(r.n);
  }

  // --- the contention workload (lib/workloads/contention.js; lib/targets/increments.js) -----
  // One operation = one statement incrementing distinct counters (key numbers, ascending).
  function increment(nums) {
    const body = pgKeysParam(nums.map(keyName));
    const n = nums.length;
    return request(n, body, (tags) => {
      let rows;
      try {
        rows = Number(db.execWithTimeout(timeout, run.incrementSql, body).rowsAffected());
      } catch (e) {
        return { settle: (ms) => failure(e, n, tags, ms) };
      }
      if (rows === n) return ACKNOWLEDGED;
      // Fewer rows than counters: some increments were not applied, which ones is not said.
      return { reason: 'unconfirmed', failed: n, log: `[${tags.phase}] statement of ${n} increments reported ${rows} rows: counted undetermined` };
    });
  }
  return { batchBody, batch, count, increment };
}

// The reads of verification, and the contention workload's counters and ledgers.
function reads(cfg, db, run) {
  const timeout = cfg.TIMEOUT;
  // key number -> stamp ("w") of the stored document.
  function readStamps(nums) {
    return stampsInChunks(nums, 5000, (chunk, out) => {
      const rows = db.queryWithTimeout(timeout, `SELECT key, doc->>'w' AS w FROM ${run.table} WHERE key = ANY($1::text[])`,
        `{${chunk.map(keyName).join(',')}}`);
      for (const r of rows) out.set(Number(String(r.key).slice(1)), String(r.w));
    });
  }

  // setup(): the counters K0 … K{size-1}, {"n": 0}, in one statement.
  function createCounters(size) {
    db.execWithTimeout(timeout, `INSERT INTO ${run.table} (key, doc) SELECT 'K' || i, '{"${COUNTER_FIELD}":0}'::jsonb FROM generate_series(0, $1::int8 - 1) AS i`, String(size));
  }

  // key number -> n of the counter, for the counters that exist.
  function readCounters(nums) {
    const out = new Map();
    for (let i = 0; i < nums.length; i += 10000) {
      const chunk = nums.slice(i, i + 10000);
      const rows = db.queryWithTimeout(timeout, `SELECT key, (doc->>'${COUNTER_FIELD}')::int8 AS n FROM ${run.table} WHERE key = ANY($1::text[])`, pgKeysParam(chunk.map(keyName)));
      for (const r of rows) out.set(Number(String(r.key).slice(1)), Number(r.n));
    }
    return out;
  }

  // A VU's ledger (lib/ledger.js toJSON()) under key L<vu>; teardown reads them back by id.
  function putLedger(id, ledger) {
    db.execWithTimeout(timeout, `INSERT INTO ${run.table} (key, doc) VALUES ($1, $2::jsonb) ON CONFLICT (key) DO UPDATE SET doc = EXCLUDED.doc`, id, JSON.stringify(ledger));
  }

  function readLedgers(ids) {
    return db.queryWithTimeout(timeout, `SELECT doc::text AS doc FROM ${run.table} WHERE key = ANY($1::text[]) ORDER BY key`, pgKeysParam(ids)).map((r) => JSON.parse(String(r.doc)));
  }
  return { readStamps, createCounters, readCounters, putLedger, readLedgers };
}

// prepared: what the plan asks of the target (lib/workloads/*.js plan().target).
/**
 * @param {any} cfg
 * @param {import('../../../types/targets').Workload} [prepared]
 * @returns {import('../../../types/targets').Target}
 */
export function createTarget(cfg, prepared = {}) {
  requireGateway(cfg, 'PG_URL', 'postgres://user:password@host:5432/database');
  const db = open(cfg);
  const calm = patient(cfg, db);
  const docs = createDocs(cfg, { keyField: 'key', toBytes: asciiBuffer });
  const bodyOpts = { lead: JSONB_VERSION };
  // Body images built here, in the init context, not by the first timed batch of a VU.
  if (writingVu()) docs.prepareFor(prepared, bodyOpts);
  const timeout = cfg.TIMEOUT;
  // The run's table, named by bind(); oid: the table setup created or adopted (info.tableOid).
  const run = { name: null, table: null, oid: null, insertSql: null, upsertSql: null, incrementSql: null };

  function bind(runId, info) {
    if (!run.table) {
      run.name = `k6wp_${runId}`;
      run.table = `"${cfg.PG_SCHEMA}".${run.name}`;
      run.incrementSql = pgIncrementSql(run.table);
    }
    const oid = info && /^[0-9]+$/.test(String(info.tableOid)) ? String(info.tableOid) : null;
    if (run.insertSql && (!oid || oid === run.oid)) return;
    if (oid) run.oid = oid;
    // The regclass literal (isRunTable) is resolved when the statement is parsed, right after
    // the INSERT target was (and locked): both name the same table. The condition is folded while
    // planning: nothing per row, and on another OID the cast of SWAPPED to int fails the
    // statement. A table dropped under a prepared statement makes PostgreSQL parse it again.
    // An error, not 0 rows: a trigger may skip rows of the run's own table (read-back's case).
    // Short: the gateway client URL-encodes the SQL text with every batch.
    const guard = run.oid ? ` WHERE (CASE WHEN ${isRunTable(run)} THEN '1' ELSE ${q(SWAPPED)} END)::int=1` : '';
    const select = `SELECT e->>'key', e FROM jsonb_array_elements($1::jsonb) AS e${guard}`;
    run.insertSql = `INSERT INTO ${run.table} (key, doc) ${select}`;
    run.upsertSql = `INSERT INTO ${run.table} (key, doc) ${select} ON CONFLICT (key) DO UPDATE SET doc = EXCLUDED.doc`;
  }

  // The OID of the relation holding the run's table name now (null: none).
  function currentOid() {
    const rows = calm.queryWithTimeout(timeout, `SELECT to_regclass($1::text)::oid::text AS oid`, run.table);
    return rows.length && rows[0].oid !== null ? String(rows[0].oid) : null;
  }

  const lc = lifecycle(cfg, Object.assign({
    bind,
    get what() { return `table ${cfg.PG_SCHEMA}.${run.name}`; },
    get objects() { return [`table ${cfg.PG_SCHEMA}.${run.name}`]; },
    get runId() { return run.name.slice(5); },
    get dropHint() { return `psql "$PG_URL" -c 'DROP TABLE ${run.table}'`; },
  }, tablePrimitives(cfg, db, calm, run)));
  const leftBehind = lc.leftBehind;

  // The lifecycle's setup, plus the OID of the table it created or adopted: every write is
  // guarded by it (bind), and teardown drops only that table.
  function setup(runId, signature, mode) {
    const info = lc.setup(runId, signature, mode);
    const oid = currentOid();
    if (!oid) stop(`table ${cfg.PG_SCHEMA}.${run.name} disappeared right after setup made it ready: refusing to write; choose another RUN_ID`);
    info.tableOid = oid;
    bind(runId, info);
    return info;
  }

  // A table of the run's name that is not the run's (dropped and created again by someone
  // else) is left alone, whatever marker it carries.
  function teardown(runId, owned, keep, contradiction) {
    bind(runId);
    let now = run.oid;
    try { now = currentOid(); } catch (_) { /* the lifecycle's teardown says why it cannot act */ }
    if (run.oid && now && now !== run.oid) {
      return `left alone: it is not the table this run created (OID ${now}, the run's was ${run.oid}: someone dropped or renamed the run's table during the run and created this one); nothing dropped`;
    }
    return lc.teardown(runId, owned, keep, contradiction);
  }

  // A VU done with its plan gives its connection back (issue 27): with more VUs than the
  // server's max_connections, teardown — a connection of its own — must still get one to verify
  // and drop the run's table.
  function release() {
    db.close();
  }

  const { batchBody, batch, count, increment } = requests(cfg, db, run, docs, bodyOpts, calm);
  const { readStamps, createCounters, readCounters, putLedger, readLedgers } = reads(cfg, calm, run);
  // lazyKeys: overwrite and mixed batches come as DrawnKeys (the gateway draws them).
  return withCapabilities(POSTGRES.capabilities(cfg), { name: POSTGRES.name, reasons: REASONS, distributed: POSTGRES.distributed, lazyKeys: true, bind, setup, batch, batchBody, count, readStamps, release, teardown, leftBehind,
    increments: { increment, createCounters, readCounters, putLedger, readLedgers } });
}
