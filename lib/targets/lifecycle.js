// The one home of "a run owns exactly what it created" (docs/reliability.md, "What ours
// means"). Every target adapter hands this module a few database primitives; the protocol
// around them — probe, create / refuse / reuse / join / verify, markers, keep, drop, and
// every refusal message — lives here only, so the three databases behave alike and a fourth
// one adds primitives, not a copy of the protocol.
//
// Primitives an adapter provides (all synchronous, k6 style; `what` names the object):
//   bind(runId)                 name the run's objects (the adapter's own bind)
//   what                        'table public.k6wp_x' | 'database k6wp_x' (after bind)
//   dropHint                    the command a user runs to drop the object by hand (after bind)
//   runId                       the RUN_ID the objects are named for (after bind)
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
//   empty(marker, found)        remove every document, leave the object carrying `marker`
//                               (only while it still carries `found`, where the database can
//                               check and change in one step)
//   mark(marker, found)         replace the marker `found` by `marker`, nothing else (same)
//   drop(marker)                drop the object (may re-check the marker atomically); returns a
//                               string when it removed only its own part (foreign data beside it)
import { InputRefusal } from '../parse.js';
import { sleep } from 'k6';
import crypto from 'k6/crypto';
import { stop } from '../abort.js';
import { durationMs } from '../parse.js';
import { untilNotNowEnds } from './outcome.js';

export const TOOL = 'k6-writepath';
// The probe of a server answers within this bound or the run stops (README: an unreachable
// database is reported within 10 s).
const PROBE_TIMEOUT = '10s';
// The bound of setup's first requests: PROBE_TIMEOUT, or TIMEOUT when that is shorter.
export function probeTimeout(cfg) {
  return durationMs(cfg.TIMEOUT) < durationMs(PROBE_TIMEOUT) ? cfg.TIMEOUT : PROBE_TIMEOUT;
}
// How long a joining instance of a distributed run waits for the creator's marker.
const JOIN_WAIT_S = 10;
// The token of objects shared by the instances of a distributed run.
const SHARED = 'distributed';
// What scripts/k8s-archives puts into an archive for RUN_SECRET (k6 stores -e values in it):
// known to everyone, so a run that still has it (the runner lacks the Secret) proves nothing.
const RUN_SECRET_PLACEHOLDER = 'set-at-run-time-by-the-runner';
// A marker's state: the objects of a process that is (or was, until it was killed) using them,
// and those a run finished with and kept (KEEP=1). Only kept objects may be reused.
const RUNNING = 'running';
const KEPT = 'kept';

// A marker: who made the object (exactly TOOL), for which run, by which process (token), for
// which plan, and the proof: an HMAC-SHA256 of all that and the object's name under the run's
// secret (RUN_SECRET; a process without one draws its own, so that nobody can claim its
// objects later). Everything else in a marker is printed somewhere (the run id, the plan hash
// in a refusal line, the token in summary.json); the proof is what a bystander cannot
// reproduce: a hand-written marker, or one copied onto another object, proves nothing.
function markerProof(secret, m, what) {
  return crypto.hmac('sha256', secret, [m.tool, m.run, m.token, m.plan, what].join('\n'), 'hex');
}

function makeMarker(runId, token, plan, secret, what, state = RUNNING) {
  const m = { tool: TOOL, run: runId, token, plan };
  return { tool: m.tool, run: m.run, token: m.token, plan: m.plan, proof: markerProof(secret, m, what), state };
}

export function markerText(m) {
  return JSON.stringify({ tool: m.tool, run: m.run, token: m.token, plan: m.plan, proof: m.proof, state: m.state });
}

// The marker as stored (a JSON text in a PostgreSQL comment, a document on the HTTP
// databases), or null when it is not a marker of this pack at all. proof and state are null
// when absent (a marker written by hand, or by a version of the pack without them).
function parseMarker(raw) {
  let m = raw;
  if (typeof raw === 'string') {
    try { m = JSON.parse(raw); } catch (_) { return null; }
  }
  if (!m || typeof m !== 'object') return null;
  if (m.tool !== TOOL || typeof m.run !== 'string' || typeof m.token !== 'string' || typeof m.plan !== 'string') return null;
  return { tool: m.tool, run: m.run, token: m.token, plan: m.plan, proof: typeof m.proof === 'string' ? m.proof : null, state: typeof m.state === 'string' ? m.state : null };
}

// The same owner (the state may differ).
function sameMarker(a, b) {
  return Boolean(a && b) && a.tool === b.tool && a.run === b.run && a.token === b.token && a.plan === b.plan && a.proof === b.proof;
}

function randomHex(bytes) {
  return Array.from(new Uint8Array(crypto.randomBytes(bytes)), (b) => b.toString(16).padStart(2, '0')).join('');
}

// A per-process creation token: two processes with one RUN_ID never hold the same one.
function newToken() {
  return randomHex(8);
}

function shortRaw(raw) {
  const s = typeof raw === 'string' ? raw : JSON.stringify(raw);
  return s.length > 120 ? `${s.slice(0, 117)}...` : s;
}

// "PG_TABLE is unlogged there, the plan says logged; PG_INDEXES is 3 there, the plan says 0"
function shapeDiff(planned, actual) {
  const out = [];
  for (const k of Object.keys(planned)) {
    const a = actual[k] === undefined ? '(absent)' : actual[k];
    if (JSON.stringify(a) !== JSON.stringify(planned[k])) out.push(`${k} is ${a === '' ? '(none)' : a} there, the plan says ${planned[k] === '' ? '(none)' : planned[k]}`);
  }
  return out;
}

/** @returns {never} */
function refuse(message) {
  return stop(message);
}

// fn()'s value, or the refusal `why` + what it threw.
function attempt(fn, why) {
  try {
    return fn();
  } catch (e) {
    if (e instanceof InputRefusal) throw e.message; // bad input: k6 exits 107, one line
    return refuse(`${why}${String(e)}`);
  }
}

// The set-up, teardown and verification requests of a target (never timed): a "not now"
// answer (notNowOf(res) -> a reason, or null: the server refused before doing anything) is
// sent again after the batches' back-off until GIVE_UP has passed (outcome.js untilNotNowEnds),
// with one line the first time this process waits. Only a refusal is sent again, never a
// request left without an answer (it may have been carried out). name: 'RavenDB', …;
// describe(res): the answer in a few words. Returns (what, send) -> the last answer, still
// "not now" when GIVE_UP ran out (the caller's failure line says what is left).
export function patiently(cfg, name, notNowOf, describe) {
  const giveUpMs = durationMs(cfg.GIVE_UP);
  let told = false;
  return (what, send) => untilNotNowEnds(giveUpMs, () => {
    const res = send();
    return { res, notNow: notNowOf(res) };
  }, (refused) => {
    if (!told) console.error(`k6-writepath: ${name} refused ${what} for now (${describe(refused.res)}): nothing was done; waiting and sending it again within GIVE_UP=${cfg.GIVE_UP}`);
    told = true;
  }).res;
}

// For a primitive create(): complete() fills the object this call just made (collections,
// indexes, the marker last); whatever fails, undo() removes the object again and the error
// goes on. Returns 'created'.
export function completeOrUndo(complete, undo) {
  try {
    complete();
  } catch (e) {
    undo();
    throw e;
  }
  return 'created';
}

// The lifecycle of one target's run objects. prims: see the header. Returns the adapter's
// setup(runId, signature, mode) and teardown(runId, owned, keep, contradiction) for
// lib/scenario.js.
export function lifecycle(cfg, prims) {
  // The secret proofs are made with: the run's (RUN_SECRET, the same for every process that
  // may claim the run's objects), else one of this process's own.
  let processSecret = null;
  const secret = () => cfg.RUN_SECRET || (processSecret ||= randomHex(32));
  // What the steps below share: the knobs, the primitives and this process's secret.
  const lc = {
    cfg,
    prims,
    secret,
    proven: (m, what) => Boolean(m && m.proof) && m.proof === markerProof(secret(), m, what),
    dropIt: () => `drop it yourself once you have looked at it: ${prims.dropHint}`,
  };
  return {
    setup: (runId, signature, mode) => setupObjects(lc, runId, signature, mode),
    teardown: (runId, owned, keep, contradiction = null) => teardownObjects(lc, runId, owned, keep, contradiction),
    leftBehind: () => leftBehind(prims),
  };
}

// setup(runId, signature, mode): mode 'own' (a single process), 'join' (one instance of a
// distributed run), 'verify' (after all instances). Returns what summary.json keeps as
// `server`: versions, objects, settings (read back from the object, never assumed), and
// `owned`: the marker teardown must find to drop anything.
function setupObjects(lc, runId, signature, mode) {
  const { cfg, prims } = lc;
  if (cfg.RUN_SECRET === RUN_SECRET_PLACEHOLDER) refuse('RUN_SECRET is the placeholder scripts/k8s-archives builds archives with: give the runners the real one in their environment (the Secret, deploy/k8s/secret.example.yaml)');
  prims.bind(runId);
  const server = attempt(prims.probe, '');
  const what = prims.what;
  const own = makeMarker(runId, mode === 'own' ? newToken() : SHARED, signature, lc.secret(), what);
  let reused = false;
  let created = false;
  if (mode === 'verify') {
    const raw = prims.readMarker();
    if (raw === undefined) refuse(`${what} does not exist: nothing to verify for RUN_ID=${runId}`);
    checkShared(lc, what, raw, own);
  } else {
    const made = attempt(() => prims.create(own), `cannot create ${what}: `);
    if (made === 'exists') reused = adopt(lc, what, own, mode);
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
  const settings = reportedSettings(prims, server);
  return Object.assign({}, server, { objects: prims.objects, reused, settings, owned: own });
}

// The report's settings: the server's, the adapter's, and the knob-named parts of the
// object's shape as read back from the server (PG_TABLE, PG_INDEXES, …), never the plan's.
function reportedSettings(prims, server) {
  const shape = prims.shape();
  const knobbed = {};
  for (const k of Object.keys(shape)) if (/^[A-Z][A-Z0-9_]*$/.test(k)) knobbed[k] = shape[k];
  return Object.assign({}, server.settings || {}, prims.settings ? prims.settings() : {}, knobbed);
}

// The marker must be exactly this pack's, for this RUN_ID, and carry a proof made with this
// run's secret for this very object: nothing else is ever touched. Returns the parsed marker.
function checkOurs(lc, what, raw, own) {
  const m = parseMarker(raw);
  if (!m) refuse(`${what} exists and was not created by k6-writepath (${raw === null ? 'no marker' : `marker ${shortRaw(raw)}`}): refusing to touch it; choose another RUN_ID`);
  if (m.run !== own.run) refuse(`${what} carries the marker of another k6-writepath run (run=${m.run}): refusing to touch it; choose another RUN_ID`);
  if (!lc.proven(m, what)) {
    refuse(`${what} carries a k6-writepath marker for RUN_ID=${own.run} that this run cannot prove is its own (${m.proof ? 'made with another RUN_SECRET' : 'no proof: written by hand, or by an older version of the pack'}): refusing to touch it; with the RUN_SECRET of the run that made it, or choose another RUN_ID, or ${lc.dropIt()}`);
  }
  return m;
}

function checkShared(lc, what, raw, own) {
  const m = checkOurs(lc, what, raw, own);
  if (m.token !== SHARED || m.plan !== own.plan) {
    refuse(`${what} belongs to ${m.token === SHARED ? 'instances with other workload knobs' : 'a single-process run'} (marker plan ${m.plan}, this instance ${own.plan}): use the same knobs on every instance, or a new RUN_ID`);
  }
}

// The name is taken: decide whether this run may use the object. Returns true when it
// was emptied for reuse (REUSE=1 / recreate), false when joined (distributed).
function adopt(lc, what, own, mode) {
  const { cfg, prims } = lc;
  let raw = prims.readMarker();
  // A creating instance writes its marker last: give it the time to finish.
  for (let t = 0; mode === 'join' && raw === null && t < JOIN_WAIT_S * 4; t++) {
    sleep(0.25);
    raw = prims.readMarker();
  }
  if (raw === undefined) refuse(`${what} existed a moment ago and is gone now (another process is creating and dropping it?): refusing to go on; choose another RUN_ID`);
  if (mode === 'join') {
    checkShared(lc, what, raw, own);
    return false;
  }
  const m = checkOurs(lc, what, raw, own);
  if (m.token === SHARED) refuse(`${what} belongs to a distributed run (DISTRIBUTED=1): finish it with scripts/verify-distributed, or choose another RUN_ID`);
  if (cfg.REUSE === '0') {
    refuse(`${what} already exists (made by k6-writepath for RUN_ID=${own.run}: kept by an earlier run, or in use by a running one): set REUSE=1 to empty and reuse it, or choose another RUN_ID`);
  }
  // Two processes of one RUN_ID: the second must not empty what the first still writes to.
  // Only an object its run finished with and kept is reused; one whose process was killed
  // before its teardown stays "running" until a person decides.
  if (m.state !== KEPT) {
    refuse(`${what} is in use by another process with RUN_ID=${own.run} (its marker says ${m.state || 'nothing of its state'}; a run that was killed before its teardown leaves it so): REUSE=${cfg.REUSE} empties only objects a finished run kept; wait for that run, or choose another RUN_ID, or, if no process uses it any more, ${lc.dropIt()}`);
  }
  return reuse(lc, what, own, m);
}

// The run's own kept object, taken over for REUSE: emptied, or (other settings, REUSE=recreate)
// dropped and created anew. Returns true.
function reuse(lc, what, own, m) {
  const { cfg, prims } = lc;
  const diff = shapeDiff(prims.planned(), prims.shape());
  if (diff.length && cfg.REUSE !== 'recreate') {
    refuse(`${what} was made for RUN_ID=${own.run} with other settings (${diff.join('; ')}): REUSE=recreate drops and creates it anew, or choose another RUN_ID`);
  }
  try {
    if (diff.length) {
      // Only the run's part removed (the rest is someone else's): nothing to create anew.
      const said = prims.drop(m);
      if (typeof said === 'string') throw said;
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
// put on it and its content does not contradict the run (contradiction: a sentence, e.g. the
// verify step of a distributed run finding another count than the instances' plan: it did
// not write the object itself and cannot vouch for it). KEEP=1 keeps it, marked kept (a
// later REUSE=1 may empty it). Returns what happened, for the log line and the report.
function teardownObjects(lc, runId, owned, keep, contradiction) {
  const { prims } = lc;
  prims.bind(runId);
  let raw;
  try {
    raw = prims.readMarker();
  } catch (e) {
    return `left in place: cannot read its marker (${String(e)}); ${lc.dropIt()}`;
  }
  if (raw === undefined) return 'absent (dropped by someone else during the run)';
  const m = parseMarker(raw);
  // owned is what this run's setup wrote (k6 hands it over in the setup data: setup and
  // teardown run in different VUs, so a process secret drawn in one is unknown to the other).
  if (!owned || !sameMarker(m, owned)) return `left alone: it no longer carries this run's marker (${raw === null ? 'no marker' : shortRaw(raw)})`;
  if (keep || contradiction) {
    const kept = Object.assign({}, m, { state: KEPT });
    let marked = '';
    try { prims.mark(kept, m); } catch (e) { marked = `; its marker still says ${m.state} (${String(e)}), so REUSE=1 will refuse it`; }
    if (contradiction) return `left in place: ${contradiction}, so this run does not vouch for its content${marked}; ${lc.dropIt()}`;
    return `kept (KEEP=1)${marked}; ${prims.dropHint} drops it`;
  }
  let said;
  try {
    // A target that found something it did not make beside its objects removes only its own
    // and says so (a string); else the objects are gone.
    said = prims.drop(owned);
  } catch (e) {
    return `NOT dropped: ${String(e)}; ${lc.dropIt()}`;
  }
  return typeof said === 'string' ? said : 'dropped';
}

// What a run that could not drop its objects (its database stopped answering) leaves behind,
// and how to remove it (outcome.js's give-up line).
function leftBehind(prims) {
  // (a setup cut short may have made the object before it wrote the marker)
  return `${prims.what} may be left on the server (named for run ${prims.runId}, with its marker if setup got that far); once the server answers, drop it with ${prims.dropHint}`;
}
