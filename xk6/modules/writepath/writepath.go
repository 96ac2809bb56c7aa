// Package writepath holds the per-key loops of an overwrite or mixed batch (drawing its keys,
// patching them into the batch's byte body, and finding the read-back's sampled keys among
// them) in Go instead of k6's JavaScript interpreter, where the draw and the body alone cost
// k6 about 1.4 ms of CPU per batch of 1000 (bench/RESULTS.md).
//
// Each function is the exact twin of a JavaScript loop, which stays the home of the rule
// and the path wherever these functions are absent (stock k6 for ArangoDB and RavenDB, an
// xk6 build with the upstream driver):
//   - fillUniform = BatchPicker.fillMarked in lib/keys.js, uniform keys;
//   - patchKeys   = fill() and the stamp stores of keysBuilder's build() in lib/docs.js;
//   - matchKeys   = the loop of matchKeys() in lib/keys.js (which positions of a batch hold
//     a sampled key: the read-back's writers pass).
//
// They reach JavaScript as named exports of bin/k6's k6/x/sql/driver/postgres module (Named
// below); lib/native.js decides when they are used; test/integration/native-twins.test.mjs
// runs both sides on the same inputs in bin/k6 and compares keys, generator state and bytes.
//
// Numbers cross as float64, as JavaScript holds them; buffers as the ArrayBuffers of the
// caller's typed arrays (no copy: sobek's ArrayBuffer.Bytes is the backing slice).
package writepath

import (
	"encoding/binary"
	"math"
	"sort"

	"github.com/grafana/sobek"
	"go.k6.io/k6/errext"
	"go.k6.io/k6/errext/exitcodes"
	"go.k6.io/k6/js/modules"
)

// Named returns the functions as named exports for a VU. They are exported by the module
// bin/k6 registers as k6/x/sql/driver/postgres (xk6/driver/postgres/register.go), not under
// a path of their own: a binary built by xk6 with the upstream driver extension then simply
// lacks them and lib/native.js keeps the JavaScript loops, so scenario files still run
// unchanged there (README "The pinned k6 build, and stock k6").
func Named(vu modules.VU) map[string]any {
	m := &instance{rt: vu.Runtime()}
	return map[string]any{
		"writepathFillUniform": m.fillUniform,
		"writepathPatchKeys":   m.patchKeys,
		"writepathMatchKeys":   m.matchKeys,
		"writepathAbort":       m.abort,
		"writepathVersion":     1,
	}
}

type instance struct{ rt *sobek.Runtime }

func (m *instance) buffer(v sobek.Value, what string) []byte {
	if ab, ok := v.Export().(sobek.ArrayBuffer); ok {
		return ab.Bytes()
	}
	panic(m.rt.NewTypeError("writepath: %s must be an ArrayBuffer", what))
}

func f64(b []byte, i int) float64 {
	return math.Float64frombits(binary.NativeEndian.Uint64(b[8*i:]))
}

func putF64(b []byte, i int, v float64) {
	binary.NativeEndian.PutUint64(b[8*i:], math.Float64bits(v))
}

// fillUniform(state, marks, keys, at, count, size, gen, batch, vu, vus):
//
//	state: ArrayBuffer of a Float64Array [a, b, c, d], the sfc32 state (lib/rand.js Rng),
//	       read and written back exactly as fillMarked writes rng.a … rng.d;
//	marks: ArrayBuffer of the picker's Uint8Array over the owned space (size bytes);
//	keys:  ArrayBuffer of a Float64Array; key numbers are stored at at … at+count-1.
//
// Distinct uniform picks among the VU's owned keys, OwnedKeys.at applied.
func (m *instance) fillUniform(c sobek.FunctionCall) sobek.Value {
	st := m.buffer(c.Argument(0), "state")
	marks := m.buffer(c.Argument(1), "marks")
	keys := m.buffer(c.Argument(2), "keys")
	at := int(c.Argument(3).ToInteger())
	count := int(c.Argument(4).ToInteger())
	size := uint64(c.Argument(5).ToInteger())
	gen := byte(c.Argument(6).ToInteger())
	batch := uint64(c.Argument(7).ToInteger())
	base := uint64(c.Argument(8).ToInteger()) * batch
	vus := uint64(c.Argument(9).ToInteger())
	if len(st) < 32 || uint64(len(marks)) < size || len(keys) < 8*(at+count) || size == 0 || batch == 0 {
		panic(m.rt.NewTypeError("writepath: fillUniform: buffers too small for the request"))
	}
	// JavaScript holds a as a signed 32-bit value (b ^ (b >>> 9)) and b, c, d unsigned.
	a, b, cc, d := uint32(int64(f64(st, 0))), uint32(int64(f64(st, 1))), uint32(int64(f64(st, 2))), uint32(int64(f64(st, 3)))
	scale := float64(size) / 4294967296
	var t uint32
	draw := func() uint64 {
		t = a + b + d
		d++
		a = b ^ (b >> 9)
		b = cc * 9
		cc = (cc<<21 | cc>>11) + t
		return uint64(float64(t) * scale) // (t * scale) >>> 0: the product is below size <= 2^32
	}
	for i := at; i < at+count; i++ {
		r := draw()
		if marks[r] == gen {
			// taken: up to 8 more draws, then the next free index (pickDistinct's rule)
			for tries := 0; tries < 8 && marks[r] == gen; tries++ {
				r = draw()
			}
			for marks[r] == gen {
				r = (r + 1) % size
			}
		}
		marks[r] = gen
		md := r % batch
		putF64(keys, i, float64(base+vus*(r-md)+md)) // OwnedKeys.at(r)
	}
	putF64(st, 0, float64(int32(a)))
	putF64(st, 1, float64(b))
	putF64(st, 2, float64(cc))
	putF64(st, 3, float64(d))
	return sobek.Undefined()
}

// patchKeys(body, keys, count, key0, stride, words, stamp0, stamp, prefix) -> index:
//
//	body:   ArrayBuffer of the batch image (keysBuilder's layout in lib/docs.js);
//	keys:   ArrayBuffer of a Float64Array of count key numbers;
//	key0:   byte offset of document 0's key region (4*words bytes, ends before `",`);
//	stride: bytes per document; stamp0: byte offset of document 0's stamp region;
//	stamp:  ArrayBuffer whose bytes are the stamp region (`<stamp>"` and spaces, 4t bytes);
//	prefix: the key prefix character code ('K').
//
// Writes `"` prefix and the decimal digits right-aligned in each key region, spaces before,
// and the stamp region, for documents 0 … until a key does not fit (a non-integer, negative
// or too wide key): returns its index, or count when all fit (fill()'s contract).
func (m *instance) patchKeys(c sobek.FunctionCall) sobek.Value {
	body := m.buffer(c.Argument(0), "body")
	keys := m.buffer(c.Argument(1), "keys")
	count := int(c.Argument(2).ToInteger())
	key0 := int(c.Argument(3).ToInteger())
	stride := int(c.Argument(4).ToInteger())
	words := int(c.Argument(5).ToInteger())
	stamp0 := int(c.Argument(6).ToInteger())
	stamp := m.buffer(c.Argument(7), "stamp")
	prefix := byte(c.Argument(8).ToInteger())
	width := 4 * words
	if count < 0 || len(keys) < 8*count || words < 1 || stride <= 0 ||
		(count > 0 && (key0+(count-1)*stride+width > len(body) || stamp0+(count-1)*stride+len(stamp) > len(body))) {
		panic(m.rt.NewTypeError("writepath: patchKeys: buffers too small for the request"))
	}
	limit := math.Pow10(width - 2) // `"`, the prefix, then up to width-2 digits
	for i := 0; i < count; i++ {
		f := f64(keys, i)
		if !(f >= 0 && f < limit && f == math.Trunc(f)) {
			return m.rt.ToValue(i)
		}
		n := uint64(f)
		region := body[key0+i*stride : key0+i*stride+width]
		p := width
		for {
			p--
			region[p] = byte('0' + n%10)
			n /= 10
			if n == 0 {
				break
			}
		}
		region[p-1] = prefix
		region[p-2] = '"'
		for x := 0; x < p-2; x++ {
			region[x] = ' '
		}
		copy(body[stamp0+i*stride:], stamp)
	}
	return m.rt.ToValue(count)
}

// matchKeys(keys, count, sorted, n, out) -> matches:
//
//	keys:   ArrayBuffer of a Float64Array of count key numbers;
//	sorted: ArrayBuffer of a Float64Array whose first n entries are ascending key numbers;
//	out:    ArrayBuffer of an Int32Array of at least count entries.
//
// Stores at out[0 …] the positions t (ascending) whose keys[t] is among sorted[0 … n-1].
func (m *instance) matchKeys(c sobek.FunctionCall) sobek.Value {
	keys := m.buffer(c.Argument(0), "keys")
	count := int(c.Argument(1).ToInteger())
	sorted := m.buffer(c.Argument(2), "sorted")
	n := int(c.Argument(3).ToInteger())
	out := m.buffer(c.Argument(4), "out")
	if count < 0 || n < 0 || len(keys) < 8*count || len(sorted) < 8*n || len(out) < 4*count {
		panic(m.rt.NewTypeError("writepath: matchKeys: buffers too small for the request"))
	}
	set := make([]float64, n)
	for i := range set {
		set[i] = f64(sorted, i)
	}
	found := 0
	for t := 0; t < count; t++ {
		k := f64(keys, t)
		if i := sort.SearchFloat64s(set, k); i < n && set[i] == k {
			binary.NativeEndian.PutUint32(out[4*found:], uint32(t))
			found++
		}
	}
	return m.rt.ToValue(found)
}

// abort(message) ends the test run as k6/execution's test.abort does (exit code 108, teardown
// and handleSummary still run), but its reason keeps to the one line it is given. k6 v1.8.1
// rewrites the reason of an abort raised in a VU's iteration into sobek's error text, which
// appends the JavaScript frame the interrupt met (go.k6.io/k6 internal/js/runner.go,
// runIteration: v.Reason = x.Error()); it does so only for an *errext.InterruptError, so this
// reason is another type that errors.As still takes for one (lib/executor/helpers.go
// handleInterrupt) and that names the exit code itself (errext.HasExitCode). lib/abort.js uses
// it where the binary has it; stock k6 keeps test.abort and its frame.
func (m *instance) abort(c sobek.FunctionCall) sobek.Value {
	m.rt.Interrupt(&lineAbort{reason: errext.AbortTest + ": " + c.Argument(0).String()})
	return sobek.Undefined()
}

type lineAbort struct{ reason string }

func (a *lineAbort) Error() string                   { return a.reason }
func (a *lineAbort) ExitCode() exitcodes.ExitCode    { return exitcodes.ScriptAborted }
func (a *lineAbort) AbortReason() errext.AbortReason { return errext.AbortedByScriptAbort }

// As lets errors.As see an *errext.InterruptError: k6 ends the run for those.
func (a *lineAbort) As(target any) bool {
	if t, ok := target.(**errext.InterruptError); ok {
		*t = &errext.InterruptError{Reason: a.reason}
		return true
	}
	return false
}
