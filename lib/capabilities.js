// What a target can do, and what a workload needs: workloads ask for capabilities, never for
// a database, so a workload runs on every target that offers what it needs, and is refused
// with one line at startup (before anything is written) on a target that does not.
//
// A target's declaration (lib/targets/<db>/<db>-knobs.js) states `capabilities(cfg)`:
//   batch:        the batch write operations write(op, nums, stamp, tags) accepts
//   collections:  how many collections the run's objects can hold (a plan asks with plan.collections)
//   planIndexes:  indexes on the workload's own fields (plan.indexFields)
//   count:        count() of the documents (and countAll() per collection with collections > 1)
//   readback:     readStamps(nums): the stamp each stored document carries
//   serverConflicts: where the server counts the conflicts it resolves itself (text); offered
//                 only with increments.serverConflicts() -> that count (GROUPS below)
//   compression:  how the target compresses request bodies ('gzip'), or null (not a need: the
//                 per-stage report says whether MB/s crossed the network as they are)
//   unnamedFailures: true when an answer may count failed documents without naming them
//                 (ArangoDB silent=true): the count is then held against a range (not a need)
//   undetermined: true when a failed batch may be stored after all (its request reached the
//                 server whole and no answer came; lib/targets/outcome.js): also a range
// and createTarget returns the groups of functions as sub-objects, whose flags are derived
// (withCapabilities below), never declared:
//   single:       documents.single(op, collection, key, body): insert / read / update / delete one document
//   transactions: documents.transaction(bodies): one document into each of several collections, atomically
//   increment:    increments.{increment(nums), createCounters(size), readCounters(nums),
//                 putLedger(id, ledger), readLedgers(ids)} (the contention workload, lib/targets/increments.js)
// A workload declares needs(cfg, plan) -> a list of the names below.

// flag -> the sub-object of the target and the functions it must carry for the flag.
const GROUPS = {
  single: { group: 'documents', fns: ['single'] },
  transactions: { group: 'documents', fns: ['transaction'] },
  increment: { group: 'increments', fns: ['increment', 'createCounters', 'readCounters', 'putLedger', 'readLedgers'] },
  serverConflicts: { group: 'increments', fns: ['serverConflicts'] },
};

// The target with its `capabilities`: the declaration's (declared) and a group's flag exactly
// where the target carries the group's functions, so a flag cannot disagree with them.
/**
 * @template T
 * @param {import('../types/targets').DeclaredCapabilities} declared
 * @param {T} target
 * @returns {T & { capabilities: import('../types/targets').Capabilities }}
 */
export function withCapabilities(declared, target) {
  /** @type {any} */
  const caps = Object.assign({}, declared);
  for (const [flag, { group, fns }] of Object.entries(GROUPS)) {
    const g = target[group];
    const has = Boolean(g) && fns.every((f) => typeof g[f] === 'function');
    if (!has) delete caps[flag];
    else if (flag !== 'serverConflicts') caps[flag] = true;
    // The text the report names the server's count by comes from the declaration.
    else if (typeof declared.serverConflicts !== 'string') throw new Error('a target with increments.serverConflicts() declares where the server counts them (capabilities serverConflicts: text)');
  }
  return Object.assign(target, { capabilities: caps });
}

const NAMES = {
  single: 'single-document operations (insert, read, update, delete one document)',
  transactions: 'transactions across collections',
  planIndexes: 'indexes on the workload\'s own fields',
  count: 'a document count',
  readback: 'reading back stored documents',
  increment: 'atomic increments of counter documents (increment, createCounters, readCounters, putLedger, readLedgers)',
};

// need: 'batch:<op>' | 'collections:<n>' | a key of NAMES.
function offers(caps, need) {
  const [kind, arg] = need.split(':');
  if (kind === 'batch') return (caps.batch || []).includes(arg);
  if (kind === 'collections') return (caps.collections || 1) >= Number(arg);
  return caps[kind] === true;
}

function describe(need) {
  const [kind, arg] = need.split(':');
  if (kind === 'batch') return `batch operation ${arg}`;
  if (kind === 'collections') return `${arg} collections`;
  return NAMES[kind] || need;
}

// The one line that refuses a workload on a target, or null when the target offers all it needs.
export function refusal(experiment, needs, target, caps = {}) {
  const missing = needs.filter((n) => !offers(caps, n));
  if (missing.length === 0) return null;
  const has = [...(caps.batch || []).map((op) => `batch ${op}`), ...Object.keys(NAMES).filter((k) => caps[k] === true).map((k) => k)];
  return `${experiment} needs ${missing.map(describe).join(', ')}, which the ${target} target does not offer (it offers: ${has.join(', ') || 'nothing'})`;
}
