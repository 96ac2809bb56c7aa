// The one home of "a run owns exactly what it created" (docs/reliability.md, "What ours
// means"). Every target adapter hands this module a few database primitives; the protocol
// around them — probe, create / refuse / reuse / join / verify, markers, keep, drop, and
// every refusal message — lives here only, so the three databases behave alike and a fourth
// one adds primitives, not a copy of the protocol.
//
// Primitives an adapter provides (all synchronous, k6 style; `what` names the object):
//   bind(runId)                 name the run's objects (the adapter's own bind)
//   what                        'table public.k6wp_x' | 'database k6wp_x' (after bind)
//   probe()                     { version, serverVersion, testEndpoint? }; throws a one-line
//                               string when the server cannot be reached or is not the
//                               database the knob says (bounded by PROBE_TIMEOUT)
//   create(marker)              'created' when THIS call made the object (the server said so:
//                               201, or a CREATE that succeeded), complete with its shape and
//                               the marker written last; 'exists' when the name was taken.
//                               Anything it made before failing it removes itself, then throws.
//   readMarker()                undefined = no such object; null = the object has no readable
//                               marker; else the raw marker (string or object)
//   shape()                     the object's actual shape, { knob: value } read from the server
//   planned()                   the shape the plan asks for, same keys
//   empty(marker)               remove every document, leave the object carrying `marker`
//   drop(marker)                drop the object (may re-check the marker atomically)
import { sleep } from 'k6';
import exec from 'k6/execution';

export const TOOL = 'k6-writepath';
// The probe of a server answers within this bound or the run stops (README: an unreachable
// database is reported within 10 s).
export const PROBE_TIMEOUT = '10s';
// How long a joining instance of a distributed run waits for the creator's marker.
const JOIN_WAIT_S = 10;
// The token of objects shared by the instances of a distributed run.
const SHARED = 'distributed';

// A marker: who made the object (exactly TOOL), for which run, by which process (token), for
// which plan. It is the whole proof of ownership; prefixes, names and comments that merely
// look alike prove nothing.
export function makeMarker(runId, token, plan) {
  return { tool: TOOL, run: runId, token, plan };
}

export function markerText(m) {
  return JSON.stringify({ tool: m.tool, run: m.run, token: m.token, plan: m.plan });
}

// The marker as stored (a JSON text in a PostgreSQL comment, a document on the HTTP
// databases), or null when it is not exactly a marker of this pack.
export function parseMarker(raw) {
  let m = raw;
  if (typeof raw === 'string') {
    try { m = JSON.parse(raw); } catch (_) { return null; }
  }
  if (!m || typeof m !== 'object') return null;
  if (m.tool !== TOOL || typeof m.run !== 'string' || typeof m.token !== 'string' || typeof m.plan !== 'string') return null;
  return { tool: m.tool, run: m.run, token: m.token, plan: m.plan };
}

export function sameMarker(a, b) {
  return Boolean(a && b) && a.tool === b.tool && a.run === b.run && a.token === b.token && a.plan === b.plan;
}

// A per-process creation token: two processes with one RUN_ID never hold the same one.
export function newToken() {
  let t = '';
  for (let i = 0; i < 4; i++) t += Math.floor(Math.random() * 0x10000).toString(16).padStart(4, '0');
  return t;
}

function shortRaw(raw) {
  const s = typeof raw === 'string' ? raw : JSON.stringify(raw);
  return s.length > 120 ? `${s.slice(0, 117)}...` : s;
}

// "PG_TABLE is unlogged there, the plan says logged; PG_INDEXES is 3 there, the plan says 0"
export function shapeDiff(planned, actual) {
  const out = [];
  for (const k of Object.keys(planned)) {
    const a = actual[k] === undefined ? '(absent)' : actual[k];
    if (JSON.stringify(a) !== JSON.stringify(planned[k])) out.push(`${k} is ${a === '' ? '(none)' : a} there, the plan says ${planned[k] === '' ? '(none)' : planned[k]}`);
  }
  return out;
}

/** @returns {never} */
function refuse(message) {
  exec.test.abort(message);
  throw message; // not reached in k6; keeps plain-JS callers (unit tests) honest
}

// The lifecycle of one target's run objects. prims: see the header. Returns the adapter's
// setup(runId, signature, mode) and teardown(runId, owned, keep) for lib/experiment.js.
export function lifecycle(cfg, prims) {
  // setup(runId, signature, mode): mode 'own' (a single process), 'join' (one instance of a
  // distributed run), 'verify' (after all instances). Returns what summary.json keeps as
  // `server`: versions, objects, settings (read back from the object, never assumed), and
  // `owned`: the marker teardown must find to drop anything.
  function setup(runId, signature, mode) {
    prims.bind(runId);
    let server;
    try {
      server = prims.probe();
    } catch (e) {
      return refuse(String(e));
    }
    const what = prims.what;
    const own = makeMarker(runId, mode === 'own' ? newToken() : SHARED, signature);
    let reused = false;
    let created = false;
    if (mode === 'verify') {
      const raw = prims.readMarker();
      if (raw === undefined) refuse(`${what} does not exist: nothing to verify for RUN_ID=${runId}`);
      checkShared(what, raw, own);
    } else {
      let made;
      try {
        made = prims.create(own);
      } catch (e) {
        return refuse(`cannot create ${what}: ${String(e)}`);
      }
      if (made === 'exists') reused = adopt(what, own, mode);
      else created = true;
    }
    const diff = shapeDiff(prims.planned(), prims.shape());
    // Only possible when someone changed the object between our check and now, when a
    // distributed instance created it with another shape, or when the server did not make
    // what it was asked for: never write into it, and undo what this process made.
    if (diff.length) {
      if (created || reused) {
        try { prims.drop(own); } catch (_) { /* the refusal below says what matters */ }
      }
      refuse(`${what} does not match this run's settings (${diff.join('; ')}): refusing to write to it`);
    }
    // The report's settings: the server's, the adapter's, and the knob-named parts of the
    // object's shape as read back from the server (PG_TABLE, PG_INDEXES, …), never the plan's.
    const shape = prims.shape();
    const knobbed = {};
    for (const k of Object.keys(shape)) if (/^[A-Z][A-Z0-9_]*$/.test(k)) knobbed[k] = shape[k];
    return Object.assign({}, server, { objects: prims.objects, reused, settings: Object.assign({}, server.settings || {}, prims.settings ? prims.settings() : {}, knobbed), owned: own });
  }

  function checkShared(what, raw, own) {
    const m = parseMarker(raw);
    if (!m) refuse(`${what} exists and was not created by k6-writepath (${raw === null ? 'no marker' : `marker ${shortRaw(raw)}`}): refusing to touch it; choose another RUN_ID`);
    if (m.run !== own.run) refuse(`${what} carries the marker of another k6-writepath run (run=${m.run}): refusing to touch it; choose another RUN_ID`);
    if (m.token !== SHARED || m.plan !== own.plan) {
      refuse(`${what} belongs to ${m.token === SHARED ? 'instances with other workload knobs' : 'a single-process run'} (marker plan ${m.plan}, this instance ${own.plan}): use the same knobs on every instance, or a new RUN_ID`);
    }
  }

  // The name is taken: decide whether this run may use the object. Returns true when it
  // was emptied for reuse (REUSE=1 / recreate), false when joined (distributed).
  function adopt(what, own, mode) {
    let raw = prims.readMarker();
    // A creating instance writes its marker last: give it the time to finish.
    for (let t = 0; mode === 'join' && raw === null && t < JOIN_WAIT_S * 4; t++) {
      sleep(0.25);
      raw = prims.readMarker();
    }
    if (raw === undefined) refuse(`${what} existed a moment ago and is gone now (another process is creating and dropping it?): refusing to go on; choose another RUN_ID`);
    if (mode === 'join') {
      checkShared(what, raw, own);
      return false;
    }
    const m = parseMarker(raw);
    if (!m) refuse(`${what} exists and was not created by k6-writepath (${raw === null ? 'no marker' : `marker ${shortRaw(raw)}`}): refusing to touch it; choose another RUN_ID`);
    if (m.run !== own.run) refuse(`${what} carries the marker of another k6-writepath run (run=${m.run}): refusing to touch it; choose another RUN_ID`);
    if (m.token === SHARED) refuse(`${what} belongs to a distributed run (DISTRIBUTED=1): finish it with scripts/verify-distributed, or choose another RUN_ID`);
    if (cfg.REUSE === '0') {
      refuse(`${what} already exists (made by k6-writepath for RUN_ID=${own.run}: kept by an earlier run, or in use by a running one): set REUSE=1 to empty and reuse it, or choose another RUN_ID`);
    }
    const diff = shapeDiff(prims.planned(), prims.shape());
    if (diff.length && cfg.REUSE !== 'recreate') {
      refuse(`${what} was made for RUN_ID=${own.run} with other settings (${diff.join('; ')}): REUSE=recreate drops and creates it anew, or choose another RUN_ID`);
    }
    try {
      if (diff.length) {
        prims.drop(m);
        if (prims.create(own) !== 'created') refuse(`${what} was taken by another process while this run recreated it: refusing to touch it; choose another RUN_ID`);
      } else {
        prims.empty(own, m);
      }
    } catch (e) {
      return refuse(`cannot ${diff.length ? 'recreate' : 'empty'} ${what} for REUSE=${cfg.REUSE}: ${String(e)}`);
    }
    // Another process with the same RUN_ID may have done the same a moment ago.
    if (!sameMarker(parseMarker(prims.readMarker()), own)) refuse(`${what} was taken over by another process with RUN_ID=${own.run} while this run emptied it: refusing to write to it`);
    return true;
  }

  // After the run: drop the object only when it still carries exactly the marker this run
  // put on it (KEEP=1 keeps it). Returns what happened, for the log line and the report.
  function teardown(runId, owned, keep) {
    prims.bind(runId);
    let raw;
    try {
      raw = prims.readMarker();
    } catch (e) {
      return `left alone: cannot read its marker (${String(e)})`;
    }
    if (raw === undefined) return 'absent (dropped by someone else during the run)';
    const m = parseMarker(raw);
    if (!owned || !sameMarker(m, owned)) return `left alone: it no longer carries this run's marker (${raw === null ? 'no marker' : shortRaw(raw)})`;
    if (keep) return 'kept (KEEP=1)';
    try {
      prims.drop(owned);
    } catch (e) {
      return `NOT dropped: ${String(e)}`;
    }
    return 'dropped';
  }

  return { setup, teardown };
}
