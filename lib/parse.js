// Values of knobs: one parser per declared type (lib/knobs.js, lib/targets/<db>/<db>-knobs.js), and
// the one-line refusal. A bad value stops the run with one line that names the knob, the
// value and what is allowed (exit 107 in k6's init context); a secret's value is never shown.
import { redact, urlProblem } from './urls.js';

export const DURATION_RE = /^(\d+(\.\d+)?(ms|s|m|h))+$/;

/** @returns {never} */
export function fail(message) {
  // A string, not an Error: k6 then prints the one line without a stack trace.
  throw `k6-writepath: ${message}`;
}

// Bad input found once the run has begun to talk to a server (setup): thrown through the
// lifecycle (lib/targets/lifecycle.js lets it pass) to k6, which prints the one line and exits
// 107, before anything was written.
export class InputRefusal {
  constructor(message) { this.message = `k6-writepath: ${message}`; }

  toString() { return this.message; }
}

// A value as the refusal shows it: quoted, control characters (C0, DEL, C1) escaped so that
// nothing reaches the terminal raw, and a long value cut (a 100 KB knob is not echoed whole).
export const SHOW_MAX = 80;
export function shown(raw) {
  const s = String(raw);
  const cut = s.length > SHOW_MAX ? `${s.slice(0, SHOW_MAX)}` : s;
  const q = JSON.stringify(cut).replace(/[\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return s.length > SHOW_MAX ? `${q.slice(0, -1)}…" (${s.length} characters)` : q;
}

export function bad(name, raw, allowed) {
  fail(`${name}=${shown(raw)} is not allowed: ${allowed}`);
}

// duration:target stages (STAGES, RATE_STAGES, a workload's own default): the one reader of
// their text; lib/load-model.js builds the load model from what it returns.
export function parseStages(text) {
  return String(text).split(',').map((s) => {
    const [duration, target] = s.split(':').map((x) => x.trim());
    return { duration, target: Number(target) };
  });
}

export function durationMs(s) {
  const units = { ms: 1, s: 1000, m: 60000, h: 3600000 };
  let total = 0;
  for (const m of String(s).matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) total += parseFloat(m[1]) * units[m[2]];
  return total;
}

// Empty is not a value: one rule per kind of knob, for k6 and every wrapper alike
// (docs/configuration.md, "Empty values"). An empty knob is unset — its default, a generated
// RUN_ID, no InfluxDB — because CI systems and docker-compose.yml pass unset variables as
// empty ones; except a target's URL, whose default is a local address: empty there is refused,
// so that an unset CI variable never aims a run at whatever listens on 127.0.0.1.
export function emptyIs(spec) {
  return spec.type === 'url' && spec.target ? 'refused' : 'unset';
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
      // Exactly the values the refusal lists (yes/no/on were taken too, and not said).
      if (raw === '1' || raw === 'true') return true;
      if (raw === '0' || raw === 'false') return false;
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
    case 'stages': {
      // The text, checked: pairs as spec.pattern has them, each duration up to spec.durationMax,
      // each target up to spec.max, and one stage that holds a target above 0 for a time above 0
      // (STAGES=0s:1 would run nothing and pass).
      if (!spec.pattern.test(raw)) bad(name, raw, spec.allowed);
      let work = 0;
      for (const { duration, target } of parseStages(raw)) {
        if (durationMs(duration) > durationMs(spec.durationMax)) bad(name, raw, `stage durations up to ${spec.durationMax}`);
        if (target > spec.max) bad(name, raw, `targets up to ${spec.max} ${spec.unit}`);
        work += durationMs(duration) * target;
      }
      if (work <= 0) bad(name, raw, `at least one stage with a duration above 0 and a target of 1 or more ${spec.unit}`);
      return raw;
    }
    case 'secret':
      if (!raw) fail(`${name} is empty: set it in the environment`);
      if (spec.minLength && raw.length < spec.minLength) fail(`${name} (value not shown) is not allowed: at least ${spec.minLength} characters`);
      // Blanks or control characters are no secret a user chose (sixteen spaces pass a length).
      if (spec.minLength && /[\s\u0000-\u001f\u007f]/.test(raw)) fail(`${name} (value not shown) is not allowed: at least ${spec.minLength} characters without spaces or control characters`);
      // The value is never shown, not even redacted: a malformed URL may put part of the
      // password where the host or port should be.
      if (spec.url) {
        const why = urlProblem(raw, spec.url);
        if (why) fail(`${name} (value not shown) is not allowed: a ${spec.url.schemes.join(':// or ')}:// URL${spec.url.example ? ` such as ${spec.url.example}` : ''}; ${why}`);
      }
      return raw;
    case 'list': {
      const all = raw.split(',').map((s) => s.trim());
      // A blank item ("load, ,mixed", "1,,10") is a typo, not a wish to drop it: said, not skipped.
      const blank = all.findIndex((x) => !x);
      if (raw.trim() && blank >= 0 && all.length > 1) bad(name, raw, `${spec.allowed || 'a comma-separated list'} without blank items (item ${blank + 1} is blank)`);
      const items = all.filter(Boolean);
      if (spec.itemPattern && !items.every((x) => spec.itemPattern.test(x))) bad(name, raw, spec.allowed);
      // A list of named values or of items is never empty: set but blank would run nothing.
      if ((spec.values || spec.item) && items.length === 0) bad(name, raw, spec.allowed);
      if (spec.values && !items.every((x) => spec.values.includes(x))) bad(name, raw, spec.allowed);
      // spec.item: the declaration each item is (E2_BATCH_SIZES: BATCH_SIZE), so its bounds have one home.
      const itemOk = (x) => { try { parseKnob(name, x, spec.item); return true; } catch (e) { if (typeof e === 'string') return false; throw e; } };
      if (spec.item && !items.every(itemOk)) bad(name, raw, spec.allowed);
      if (spec.distinct && new Set(items).size !== items.length) bad(name, raw, spec.allowed);
      return spec.item ? items.map((x) => parseKnob(name, x, spec.item)) : items;
    }
    default:
      throw new Error(`unknown knob type ${spec.type}`);
  }
}
