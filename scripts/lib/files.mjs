// How the Node tools (compare, gate, calibrate, aggregate, capacity, history) read and write
// files: a bad file is refused in one line (exit 107) instead of a stack trace or a figure
// made up from it; a special file is never read (a device like /dev/full never ends); output
// folders are made one component at a time (Node's recursive mkdir spins forever under /proc)
// and never followed through a symbolic link (a planted link would send the outputs into
// another folder); every output file is written whole or not at all (a temporary file renamed
// over it), and a file that cannot be written is an error (exit 108), never a silent exit 0.
import { closeSync, fsyncSync, lstatSync, mkdirSync, openSync, readFileSync, readlinkSync, renameSync, rmSync, statSync, writeSync, accessSync, constants as fsConstants } from 'node:fs';
import path from 'node:path';

// Bad input: one line, exit 107.
export class InputError extends Error {}
// An output that could not be written (full disk, read-only folder…): one line, exit 108.
export class OutputError extends Error {}

const why = (e) => (e && e.code ? `${e.code}${e.code === 'ENOSPC' ? ': no space left on the device' : e.code === 'EACCES' || e.code === 'EPERM' ? ': permission denied' : e.code === 'EROFS' ? ': read-only file system' : ''}` : String(e && e.message).split('\n')[0]);

// The text of a regular file; `what` names it in the refusal ("summary.json of run X").
export function readRegularFile(file, what = file) {
  let st;
  try { st = statSync(file); } catch (e) {
    throw new InputError(`${what}: ${e.code === 'ENOENT' ? 'no such file' : `cannot be read (${why(e)})`}`);
  }
  if (st.isDirectory()) throw new InputError(`${what} is a directory, not a file`);
  if (!st.isFile()) throw new InputError(`${what} is not a regular file (a device, pipe or socket is never read: it may never end)`);
  try { return readFileSync(file, 'utf8'); } catch (e) { throw new InputError(`${what}: cannot be read (${why(e)})`); }
}

// A JSON file's value; empty and truncated files are named as such.
export function readJsonFile(file, what = file) {
  const text = readRegularFile(file, what);
  if (!text.trim()) throw new InputError(`${what} is empty (a run cut off while writing it, or a full disk): not a result`);
  try { return JSON.parse(text); } catch (e) {
    const cut = !/[}\]]\s*$/.test(text) || /end of (JSON )?input/i.test(e.message);
    throw new InputError(`${what} is not valid JSON (${String(e.message).split('\n')[0]}${cut ? '; it ends mid-value: truncated' : ''}): not a result`);
  }
}

const FIG = (x) => x === null || x === undefined || (typeof x === 'number' && Number.isFinite(x) && x >= 0);

// A run's summary.json as the verdict tools read it: an object with a non-empty list of phases,
// every figure a number of at least 0 (or missing). A REPEAT=N folder's aggregate (kind
// "repeat") is checked by its own reader.
export function checkSummary(s, what) {
  if (!s || typeof s !== 'object' || Array.isArray(s)) throw new InputError(`${what} is not a k6-writepath summary (not a JSON object)`);
  if (s.kind === 'repeat') return s;
  if (!Array.isArray(s.phases) || !s.phases.length) throw new InputError(`${what} has no phases (a run that stopped before its first phase, or not a k6-writepath summary): nothing to compare`);
  for (const p of s.phases) {
    if (!p || typeof p.phase !== 'string') throw new InputError(`${what} has a phase without a name: not a k6-writepath summary`);
    const figs = { docs_per_s: p.docs_per_s, mb_per_s: p.mb_per_s, ...Object.fromEntries(Object.entries(p.batch_ms || {}).map(([k, v]) => [`batch_ms.${k}`, v])) };
    for (const [k, v] of Object.entries(figs)) {
      if (!FIG(v)) throw new InputError(`${what}: phase ${p.phase} ${k} = ${JSON.stringify(v)} is not allowed: a figure is a number of at least 0 (an edited or corrupted file)`);
    }
  }
  return s;
}

export const readSummaryFile = (file, what = file) => checkSummary(readJsonFile(file, what), what);

// A folder for outputs: made component by component; an existing component that is a
// symbolic link, or not a folder, is refused (`what` names the option or knob).
const named = (what, v) => (/^-|\s/.test(what) ? `${what} ${v}` : `${what}=${v}`);
// create: false checks the folder could be made (every existing part a real folder, the last
// one writable) without making it: a refusal before the runs then leaves nothing behind.
export function ensureDir(dir, what, { create = true } = {}) {
  const abs = path.resolve(dir);
  const parts = abs.split(path.sep).filter(Boolean);
  let cur = path.sep;
  for (const part of parts) {
    cur = path.join(cur, part);
    let st = null;
    try { st = lstatSync(cur); } catch (e) { if (e.code !== 'ENOENT') throw new InputError(`${named(what, dir)} is not allowed: ${cur} cannot be examined (${why(e)})`); }
    if (st === null && !create) {
      try { accessSync(path.dirname(cur), fsConstants.W_OK); } catch (e) {
        throw new InputError(`${named(what, dir)} is not allowed: ${cur} cannot be created (${why(e)}); give a folder this user may write`);
      }
      return abs;
    }
    if (st === null) {
      try { mkdirSync(cur); } catch (e) {
        if (e.code !== 'EEXIST') throw new InputError(`${named(what, dir)} is not allowed: ${cur} cannot be created (${why(e)}); give a folder this user may write`);
        st = lstatSync(cur);
      }
    }
    if (st && st.isSymbolicLink()) {
      // Links above the working folder (a home or /tmp that is a link) are the machine's
      // layout; the output folder itself or a link below the working folder is a planted one.
      if (cur === abs || cur.startsWith(`${process.cwd()}${path.sep}`)) {
        throw new InputError(`${named(what, dir)} is not allowed: ${cur} is a symbolic link (to ${safeReadlink(cur)}); results are never written through a link: remove it or name the real folder`);
      }
    } else if (st && !st.isDirectory()) {
      throw new InputError(`${named(what, dir)} is not allowed: ${cur} exists and is not a folder`);
    }
  }
  return abs;
}

function safeReadlink(p) {
  try { return path.resolve(path.dirname(p), readlinkSync(p)); } catch { return '?'; }
}

// The file whole or not at all: written to a temporary file beside it, flushed, renamed over it.
// A file that is a symbolic link is never written through (the link is replaced only if the
// caller removed it; here it is refused).
export function writeFileAtomic(file, text) {
  let st = null;
  try { st = lstatSync(file); } catch { /* new file */ }
  if (st && st.isSymbolicLink()) throw new InputError(`${file} is a symbolic link; results are never written through a link: remove it`);
  if (st && !st.isFile()) throw new InputError(`${file} exists and is not a regular file`);
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  let fd = null;
  try {
    fd = openSync(tmp, 'wx', 0o644);
    const buf = Buffer.from(text);
    let off = 0;
    while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
    fsyncSync(fd);
    closeSync(fd); fd = null;
    renameSync(tmp, file);
  } catch (e) {
    if (fd !== null) try { closeSync(fd); } catch { /* already failing */ }
    rmSync(tmp, { force: true });
    throw new OutputError(`${file} could not be written (${why(e)}); nothing was left half-written there`);
  }
}

// A tool's main, run with its own refusal class(es): bad input and bad files one line + 107, an
// output that cannot be written one line + 108, anything else one line + 1 (no stack: set
// K6WP_DEBUG=1 to see it).
export function runTool(name, fn, inputErrors = []) {
  const done = (code) => process.exit(typeof code === 'number' ? code : 0);
  const failed = (e) => {
    if (e instanceof InputError || inputErrors.some((C) => e instanceof C)) { process.stderr.write(`${name}: ${e.message}\n`); process.exit(107); }
    if (e instanceof OutputError) { process.stderr.write(`${name}: ${e.message}\n`); process.exit(108); }
    if (e && ['ENOSPC', 'EIO', 'EROFS', 'EDQUOT'].includes(e.code)) { process.stderr.write(`${name}: an output could not be written (${why(e)})\n`); process.exit(108); }
    if (process.env.K6WP_DEBUG) process.stderr.write(`${e && e.stack}\n`);
    process.stderr.write(`${name}: internal error: ${String(e && e.message).split('\n')[0]} (a bug of the pack: K6WP_DEBUG=1 shows where)\n`);
    process.exit(1);
  };
  try {
    const r = fn();
    if (r && typeof r.then === 'function') r.then(done, failed); else done(r);
  } catch (e) { failed(e); }
}
