// The configuration of a run: the knobs of the run and workloads (lib/knobs.js) composed with
// the knobs each target declares (lib/targets/index.js), read from the environment (k6's
// __ENV) in this one place and validated before anything is written. What each knob may be
// is parsed in lib/parse.js (URLs: lib/urls.js); names that look like misspelt knobs are
// refused by lib/env-names.js. docs/configuration.md's knob table is generated from KNOBS
// (scripts/knobs-table.mjs; a test keeps the two in step).
import { CORE_ENV, CORE_KNOBS, CORE_PREFIXES } from './knobs.js';
import { TARGETS } from './targets/index.js';
import { bad, durationMs, emptyIs, fail, parseKnob } from './parse.js';
import { envNameChecker } from './env-names.js';
import { typedCredentials, userinfoOf } from './urls.js';

// The knob table of a pack made of these targets: the run's and workloads' knobs, then each
// target's, each marked with the target that declared it.
export function composeKnobs(targets) {
  const out = Object.assign({}, CORE_KNOBS);
  for (const t of targets) {
    for (const [name, spec] of Object.entries(t.knobs)) {
      if (out[name]) throw new Error(`knob ${name} of target ${t.name} is declared twice`);
      out[name] = Object.assign({ target: t.name }, spec);
    }
  }
  return out;
}

export const KNOBS = composeKnobs(TARGETS);

// Names next to the knobs that are no knobs (the pack's own variables, the servers' settings).
export const KNOWN_ENV = [...CORE_ENV, ...TARGETS.flatMap((t) => t.otherEnv)];
// Made on first use: only k6's __VU 0 contexts check the names (loadConfig), so a VU never
// makes the checker's closures and tables (memory every VU would hold).
let checker = null;
const nameChecker = () => checker || (checker = envNameChecker(KNOBS, { known: KNOWN_ENV, prefixes: [...CORE_PREFIXES, ...TARGETS.map((t) => t.prefix)] }));
/** @param {string} name */
export const suspectKnob = (name) => nameChecker().suspectKnob(name);
/** @param {Record<string, string>} env */
export const checkUnknownNames = (env) => nameChecker().checkUnknownNames(env);

// Scope and plan membership of every knob, from its declaration:
//   run          how a run is named, bounded, checked or reported; runs that differ only in
//                these knobs wrote the same workload (scripts/compare puts them side by side)
//   workload     what is written, on any target (read for every target)
//   target:<db>  how one database stores or writes it (read for that target only)
// A knob is part of the plan when it decides what is written: every workload knob, and every
// target knob not declared plan: false (connection, credentials, transport, accounting). The
// instances of a distributed run must agree on the plan (planSignature); compare refuses runs
// whose workload knobs differ; experiments/ram/driver.mjs takes its ranges from KNOBS.
// -> { scope: 'run' | 'workload' | 'target:<db>', plan: boolean }, or null for a name that is
// no knob (derived values such as timeoutMs).
export function knobScope(name) {
  const spec = KNOBS[name];
  if (!spec) return null;
  const scope = spec.target ? `target:${spec.target}` : spec.scope || 'workload';
  return { scope, plan: scope !== 'run' && spec.plan !== false };
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
// SEED or RATE_STAGES refuses to join instead of corrupting the counts. By name, so that the
// order in which targets are registered does not matter.
export function planSignature(cfg) {
  const text = PLAN_KNOBS.filter((k) => cfg[k] !== undefined).sort().map((k) => `${k}=${cfg[k]}`).join(';');
  let h = 0x811c9dc5; // FNV-1a, 32 bits
  for (let i = 0; i < text.length; i++) { h ^= text.charCodeAt(i); h = Math.imul(h, 0x01000193) >>> 0; }
  return `${cfg.experiment}-${h.toString(16).padStart(8, '0')}`;
}

// A generated RUN_ID: the UTC clock to the second and 4 random hex digits, e.g. 20260101120000_ab12.
// scripts/common.sh wp_new_run_id makes the same in bash, which works where Node is missing.
export function newRunId(prefix = '') {
  const d = new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return `${prefix}${d}_${Math.floor(Math.random() * 0x10000).toString(16).padStart(4, '0')}`;
}

// loadConfig(__ENV, { target: 'postgres', experiment: 'insert-vs-overwrite', phases: [...] })
// returns a plain object with every knob of the pack (defaults applied) plus derived values.
// Knobs of other targets are ignored; a name that looks like a misspelt knob stops the run
// (checkUnknownNames: "did you mean …").
export function loadConfig(env, { target, experiment, phases, required = [] }) {
  // Every init context of a run sees the same environment: k6's options pass (__VU 0) checks
  // it before any VU starts, so the VUs' own init contexts skip the check and its lookups.
  if (!(typeof __VU === 'number' && __VU > 0)) checkUnknownNames(env);
  const cfg = { target, experiment };
  for (const [name, spec] of Object.entries(KNOBS)) {
    if (!knobApplies(name, target)) continue;
    if (spec.wrapper) continue; // read by scripts/run or make, not by k6
    const raw = env[name];
    if (raw === '' && emptyIs(spec) === 'refused') {
      fail(`${name} is empty: give the server's URL, e.g. ${spec.default} (an empty value is refused, not read as the default: an unset variable would aim the run at whatever listens there)`);
    }
    if (raw === undefined || raw === '') {
      if (spec.required || required.includes(name)) fail(`${name} is ${raw === '' ? 'empty' : 'not set'}: ${spec.doc}`);
      // A scenario may have its own default (spec.defaults['<target>/<experiment>']), e.g.
      // E4's DOC_SHAPE=user or contention's BATCH_SIZE=1: applied here, so that every check
      // below (memory, plan) sees the value the run will use.
      const own = spec.defaults && spec.defaults[`${target}/${experiment}`];
      cfg[name] = own !== undefined ? own : spec.default;
    } else {
      // What was typed as a credential is hidden in every line the pack writes or relays,
      // a server's message included (lib/urls.js redact), even a password typed as a user name.
      if (spec.type === 'secret') {
        const { user, password } = spec.url ? userinfoOf(raw) : { user: null, password: String(raw) };
        typedCredentials({ secrets: [password], users: [user] });
      }
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
  cfg.timeoutMs = durationMs(cfg.TIMEOUT);
  return cfg;
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
