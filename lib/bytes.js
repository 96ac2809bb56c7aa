// k6 only (imports k6/encoding): an ASCII string as an ArrayBuffer, converted natively. k6's
// JavaScript runtime has no TextEncoder, and a per-character loop in its interpreter is slow
// enough to matter for every body image; the base64 round trip is two native calls (figures:
// bench/RESULTS.md). ASCII only: b64encode encodes a string as UTF-8, which is one byte per
// character exactly for ASCII (lib/docs.js checks).
import encoding from 'k6/encoding';

export function asciiBuffer(s) {
  return encoding.b64decode(encoding.b64encode(s), 'std');
}

// Whether this init runs for a VU that writes batches. k6 also runs the init code for its
// options pass, for setup, for teardown and for the summary, all with __VU = 0: they never
// write batches, so they skip docs.prepare() (and, lazily, the payload pool), which would cost
// each of them as much CPU as a writing VU's whole warm-up.
export function writingVu() {
  return typeof __VU === 'undefined' || __VU > 0;
}
