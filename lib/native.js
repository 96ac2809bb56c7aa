// The per-key loops of random-key batches in Go, where the k6 binary has them.
// bin/k6 (xk6/) exports, beside the driver of its k6/x/sql/driver/postgres module, the exact
// twins of BatchPicker.fillMarked's uniform draw and of matchKeys (lib/keys.js) and of
// bodyBuilder's key and stamp stores (lib/docs.js), and a process-wide store of body images
// (every VU of the run copies the one image instead of making its own), and PostgreSQL batch
// bodies rendered in Go for its driver (lib/docs.js render mode): xk6/modules/writepath/writepath.go. The
// JavaScript loops stay the home of these rules and the path everywhere else: only the
// PostgreSQL target, which imports that module anyway, hands it over here, so the ArangoDB
// and RavenDB scenarios keep running on stock k6, and an xk6 build with the upstream driver
// (no such exports) keeps the JavaScript loops. test/integration/native-twins.test.mjs compares both sides.
//
// Why: in k6's interpreter the key draw and the body stores of a batch of random keys cost
// about as much CPU as everything else k6 does for a PostgreSQL batch, in Go a small fraction
// of it (bench/micro-keys.js measures both; bench/RESULTS.md). Keys and bytes are the same.

/** @type {any} */
let mod = null;

// Called with the namespace of k6/x/sql/driver/postgres (null or a module without the
// exports: the JavaScript loops).
export function useNative(m) {
  mod = m && m.writepathVersion === 2
    ? { fillUniform: m.writepathFillUniform, patchKeys: m.writepathPatchKeys, matchKeys: m.writepathMatchKeys, image: m.writepathImage, fill: m.writepathFill, abort: m.writepathAbort || null,
      // bodies rendered per batch for this binary's PostgreSQL driver (lib/docs.js render mode)
      newBody: m.writepathBody || null, render: m.writepathRender || null }
    : null;
}

// The module, or null when the loops run in JavaScript.
export function native() {
  return mod;
}

// Key lists of overwrite and mixed batches: a Float64Array when Go fills them (its buffer is
// shared with Go, no copy), else a plain array (cheaper to read in the interpreter).
export function keyList(n) {
  return mod ? new Float64Array(n) : new Array(n);
}
