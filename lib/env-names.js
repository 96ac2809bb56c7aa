// The misspelling check of environment names. k6 run puts the whole shell environment into
// __ENV (unless --include-system-env-vars=false), so a name is refused only when it looks
// like a knob: a knob's name in other case (docs), without or with other underscores
// (BATCHSIZE, TIME_OUT), a prefix of one (PG_INDEX, ARANGO_PASS), one or two letters off
// (TRESHOLDS), or an unknown name with a knob prefix (a target's declared prefix: PG_HOST).
// Built over a knob table (lib/config.js composes the pack's), so a new target's knobs and
// prefix are checked as soon as its declaration is in the registry.
import { fail } from './parse.js';

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

// checker(knobs, { known, prefixes }) -> { suspectKnob(name), checkUnknownNames(env) }
//   knobs: the knob table; known: environment names that are no knobs but sit next to them;
//   prefixes: name prefixes that mark a knob family ('PG_', …).
export function envNameChecker(knobs, { known = [], prefixes = [] } = {}) {
  const names = Object.keys(knobs);
  const knownSet = new Set(known);
  const prefixRe = prefixes.length ? new RegExp(`^(${prefixes.map((p) => p.replace(/[^A-Za-z0-9_]/g, '')).join('|')})`) : /$^/;
  // suspectKnob()'s lookups, made on its first call in an init context: it runs for every
  // environment name in every init context that checks them (loadConfig: k6's options pass,
  // setup, teardown, the summary; not the VUs'), where a method call is not cheap. Made per
  // VU, they would cost every VU memory it never uses (bench/memory.mjs "profile").
  //   the first knob of each squashed spelling (BATCHSIZE, TIME_OUT -> BATCH_SIZE, TIMEOUT);
  const squashedToKnob = new Map();
  //   the first knob that starts with a prefix of 5+ characters (PG_INDEX -> PG_INDEXES);
  const prefixToKnob = new Map();
  //   per knob: its characters as bits (charBits) and each of its characters' bit.
  const knobMask = []; const knobBits = [];
  function lookups() {
    if (knobBits.length === names.length) return;
    for (const k of names) {
      const sq = k.replace(/[_-]/g, '');
      if (!squashedToKnob.has(sq)) squashedToKnob.set(sq, k);
      for (let n = 5; n <= k.length; n++) if (!prefixToKnob.has(k.slice(0, n))) prefixToKnob.set(k.slice(0, n), k);
      const bits = charBits(k);
      knobBits.push(bits);
      knobMask.push(bits.reduce((m, b) => m | b, 0));
    }
  }

  // The knob an unknown environment name was probably meant to be, '' when it looks like a
  // knob without a close one (a name with a knob prefix), or null when it does not look like
  // a knob at all.
  function suspectKnob(name) {
    if (knobs[name] || knownSet.has(name) || /^K6_/.test(name)) return null;
    const upper = name.toUpperCase();
    if (knobs[upper]) return upper; // docs, batch_size
    if (!/^[A-Z][A-Z0-9_]*$/.test(name)) return null; // other lower/mixed case: not ours (RAVEN_License, …)
    lookups();
    const same = squashedToKnob.get(name.replace(/[_-]/g, '')); // BATCHSIZE, TIME_OUT
    if (same) return same;
    const prefixOf = name.length >= 5 ? prefixToKnob.get(name) : undefined; // PG_INDEX, ARANGO_PASS
    if (prefixOf) return prefixOf;
    const bits = charBits(name);
    let mask = 0;
    for (let i = 0; i < bits.length; i++) mask |= bits[i];
    let best = null;
    let bestD = Infinity;
    for (let x = 0; x < names.length; x++) {
      const k = names[x];
      // The distance is at least the difference in length and the limit at most 2: every
      // init context of a run (k6 runs several) checks every name against every knob, so the
      // cheap tests first (without them the check cost a noticeable share of each init context).
      const dl = name.length - k.length;
      if (dl > 2 || dl < -2) continue;
      const limit = (name.length < k.length ? name.length : k.length) <= 5 ? 1 : 2;
      // (each side on its own: one substitution covers a position of each)
      let absent = 0;
      const km = knobMask[x];
      for (let i = 0; i < bits.length && absent <= limit; i++) if ((km & bits[i]) === 0) absent++;
      if (absent > limit) continue;
      absent = 0;
      const kb = knobBits[x];
      for (let i = 0; i < kb.length && absent <= limit; i++) if ((mask & kb[i]) === 0) absent++;
      if (absent > limit) continue;
      const d = editDistance(name, k, limit);
      if (d <= limit && d < bestD) { best = k; bestD = d; }
    }
    if (best) return best;
    if (prefixRe.test(name)) return '';
    return null;
  }

  // Stops the run on an environment name that looks like a misspelt knob. The value is not
  // shown: a misspelt ARANGO_PASSWORD holds a password.
  function checkUnknownNames(env) {
    const ignore = String(env.IGNORE_ENV || '').split(',').map((x) => x.trim()).filter(Boolean);
    for (const name of Object.keys(env).sort()) {
      if (ignore.includes(name)) continue;
      const s = suspectKnob(name);
      if (s === null) continue;
      const family = names.filter((k) => k.startsWith(`${name.split('_')[0]}_`));
      fail(`${name} is not a knob of k6-writepath: ${s ? `did you mean ${s}?` : `the ${name.split('_')[0]}_ knobs are ${family.join(', ')}.`}`
        + ' A variable meant for something else: add it to IGNORE_ENV=NAME,… (knobs: docs/configuration.md)');
    }
  }

  return { suspectKnob, checkUnknownNames };
}
