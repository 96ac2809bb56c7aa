// k6 only (imports k6/encoding): an ASCII string as an ArrayBuffer, converted natively. k6's
// JavaScript runtime has no TextEncoder, and a per-character loop costs about 0.3 s per 1.2 MB
// there (the one-off body-image warm-up that used to land in a VU's first timed batch); the
// base64 round trip is two native calls, about 5 ms per 1.2 MB. ASCII only: b64encode encodes
// a string as UTF-8, which is one byte per character exactly for ASCII (lib/docs.js checks).
import encoding from 'k6/encoding';

export function asciiBuffer(s) {
  return encoding.b64decode(encoding.b64encode(s), 'std');
}

// The largest key number an E1-style run writes (load keys below DOCS, then the fresh keys of
// the mixed batches), for docs.prepare(): images sized for it are built in the init context.
export function maxKeyOf(cfg) {
  const docs = Number(cfg.DOCS) || 0;
  const fresh = (Number(cfg.MIXED_BATCHES) || 0) * (Number(cfg.BATCH_SIZE) || 0);
  return Math.max(1, docs + fresh);
}

// Whether this init runs for a VU that writes batches. k6 also runs the init code for its
// options pass, for setup, for teardown and for the summary, all with __VU = 0: they never
// write batches, so they skip docs.prepare() (and, lazily, the payload pool): about 0.6 s of
// k6 CPU each at the default sizes.
export function writingVu() {
  return typeof __VU === 'undefined' || __VU > 0;
}
