// Package render makes batch bodies in the gateway from a body image that k6 uploads once and a
// small recipe per batch (docs/gateway.md, "Rendered bodies"), so a batch of 1000 documents
// crosses HTTP as a few hundred bytes instead of 1.2 MB, and the per-key loops that k6's
// interpreter runs slowly (the uniform key draw, the key and stamp stores) run here.
//
// The rules stay at home in JavaScript; this is their exact twin, compared byte for byte by
// test/integration/render-twins.test.mjs:
//   - the body layout and its key/stamp regions: bodyBuilder in lib/docs.js;
//   - the uniform draw of an overwrite/mixed batch: BatchPicker.fillMarked in lib/keys.js
//     (sfc32 of lib/rand.js, distinct picks, OwnedKeys.at), with the mixed batch's fresh keys first.
//
// What a recipe names (the SQL text, the operation) is not here: the targets send it.
package render

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"sync"

	"github.com/k6-writepath/k6-writepath/gateway/internal/wire"
)

// MaxImages bounds what the store holds (distinct images; a run has one per request format).
const MaxImages = 64

// MaxImageBytes bounds one image.
const MaxImageBytes = 256 << 20

// Store holds body images by id (the hex SHA-256 of their bytes): every VU of a run uploads
// the same image, kept once.
type Store struct {
	mu     sync.RWMutex
	images map[string][]byte
}

// NewStore returns an empty store.
func NewStore() *Store { return &Store{images: map[string][]byte{}} }

// Register adds POST /render/image (octet-stream: the image) -> {"id", "bytes"}.
func (s *Store) Register(mux *http.ServeMux) {
	mux.HandleFunc("/render/image", func(w http.ResponseWriter, r *http.Request) {
		t := wire.Start()
		if r.Method != http.MethodPost {
			wire.Fail(w, t, wire.Refuse(wire.KindInput, "%s %s: only POST is answered", r.Method, r.URL.Path))
			return
		}
		b, err := io.ReadAll(io.LimitReader(r.Body, MaxImageBytes+1))
		if err != nil {
			wire.Fail(w, t, wire.Refuse(wire.KindInput, "reading the image: %v", err))
			return
		}
		id, ref := s.Put(b)
		if ref != nil {
			wire.Fail(w, t, ref)
			return
		}
		wire.Answer(w, t, map[string]any{"id": id, "bytes": len(b)})
	})
	// POST /render/body (a recipe) -> the body's bytes: what a batch would send, for the twin
	// tests and for anyone who wants to see it.
	mux.HandleFunc("/render/body", func(w http.ResponseWriter, r *http.Request) {
		t := wire.Start()
		if r.Method != http.MethodPost {
			wire.Fail(w, t, wire.Refuse(wire.KindInput, "%s %s: only POST is answered", r.Method, r.URL.Path))
			return
		}
		rc, ref := ReadRecipe(r)
		if ref == nil {
			var body []byte
			var release func()
			if body, release, ref = s.Render(rc); ref == nil {
				defer release()
				w.Header().Set("Content-Type", "application/octet-stream")
				w.Header().Set("Content-Length", strconv.Itoa(len(body)))
				w.WriteHeader(http.StatusOK)
				_, _ = w.Write(body)
				return
			}
		}
		wire.Fail(w, t, ref)
	})
}

// Put stores b (idempotent) and returns its id.
func (s *Store) Put(b []byte) (string, *wire.Refusal) {
	if len(b) == 0 || len(b) > MaxImageBytes {
		return "", wire.Refuse(wire.KindInput, "an image of %d bytes is not allowed: 1 to %d", len(b), MaxImageBytes)
	}
	sum := sha256.Sum256(b)
	id := hex.EncodeToString(sum[:16])
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.images[id]; ok {
		return id, nil
	}
	if len(s.images) >= MaxImages {
		return "", wire.Refuse(wire.KindInput, "this gateway holds %d images already (at most %d): start a gateway per run", len(s.images), MaxImages)
	}
	s.images[id] = append([]byte(nil), b...)
	return id, nil
}

func (s *Store) get(id string) []byte {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.images[id]
}

// KindImage: the recipe names an image this gateway does not hold (k6 uploads it and retries).
const KindImage = "image"

// Recipe of one batch body: the image's documents 0 … Count-1 (the image holds at least that
// many), their key and stamp regions patched, Close written over the last document's ','.
type Recipe struct {
	Image  string `json:"image"`
	Count  int    `json:"count"`
	Base   int    `json:"base"`   // byte offset of document 0
	Stride int    `json:"stride"` // bytes per document
	Key0   int    `json:"key0"`   // byte offset of document 0's key region
	Width  int    `json:"width"`  // bytes of a key region
	Stamp0 int    `json:"stamp0"` // byte offset of document 0's stamp region
	Stamp  string `json:"stamp"`  // the stamp region's bytes (`<stamp>"` and spaces)
	Prefix string `json:"prefix"` // the key prefix (one ASCII character)
	Close  string `json:"close"`  // ']' and what follows the array
	Keys   Keys   `json:"keys"`
}

// Keys of a batch: exactly one of Range ([start, count]: start … start+count-1), List, Draw.
type Keys struct {
	Range []float64 `json:"range,omitempty"`
	List  []float64 `json:"list,omitempty"`
	Draw  *Draw     `json:"draw,omitempty"`
}

// Draw: Fresh keys First … First+Fresh-1, then Count-Fresh distinct uniform picks among the
// Size keys VU Vu of Vus loaded in batches of Batch (lib/keys.js OwnedKeys), from the sfc32
// state State (lib/rand.js Rng after its constructor: a as a signed 32-bit value, b, c, d unsigned).
type Draw struct {
	State [4]float64 `json:"state"`
	Size  uint64     `json:"size"`
	Batch uint64     `json:"batch"`
	Vu    uint64     `json:"vu"`
	Vus   uint64     `json:"vus"`
	Fresh int        `json:"fresh"`
	First float64    `json:"first"`
}

// KeyList returns the batch's count key numbers.
func (k *Keys) KeyList(count int) ([]float64, error) {
	set := 0
	if k.Range != nil {
		set++
	}
	if k.List != nil {
		set++
	}
	if k.Draw != nil {
		set++
	}
	if set != 1 {
		return nil, fmt.Errorf("keys: exactly one of range, list, draw")
	}
	switch {
	case k.Range != nil:
		if len(k.Range) != 2 || int(k.Range[1]) != count {
			return nil, fmt.Errorf("keys.range: [start, %d] expected", count)
		}
		out := make([]float64, count)
		for i := range out {
			out[i] = k.Range[0] + float64(i)
		}
		return out, nil
	case k.List != nil:
		if len(k.List) != count {
			return nil, fmt.Errorf("keys.list: %d keys for a body of %d", len(k.List), count)
		}
		return k.List, nil
	}
	return k.Draw.keys(count)
}

// keys: the twin of batchKeys() in lib/workloads/insert-vs-overwrite.js for uniform keys.
func (d *Draw) keys(count int) ([]float64, error) {
	picks := count - d.Fresh
	if d.Fresh < 0 || picks < 0 || d.Batch == 0 || d.Vus == 0 || d.Vu >= d.Vus || d.Size == 0 || d.Size > 1<<32 || uint64(picks) > d.Size {
		return nil, fmt.Errorf("keys.draw: %d distinct picks of %d owned keys (batch %d, VU %d of %d) cannot be drawn", picks, d.Size, d.Batch, d.Vu, d.Vus)
	}
	out := make([]float64, count)
	for i := 0; i < d.Fresh; i++ {
		out[i] = d.First + float64(i)
	}
	a, b, c, dd := uint32(int64(d.State[0])), uint32(int64(d.State[1])), uint32(int64(d.State[2])), uint32(int64(d.State[3]))
	scale := float64(d.Size) / 4294967296
	var t uint32
	draw := func() uint64 {
		t = a + b + dd
		dd++
		a = b ^ (b >> 9)
		b = c * 9
		c = (c<<21 | c>>11) + t
		return uint64(float64(t) * scale) // (t * scale) >>> 0: below Size
	}
	taken := make(map[uint64]struct{}, picks)
	base := d.Vu * d.Batch
	for i := d.Fresh; i < count; i++ {
		r := draw()
		// taken: up to 8 more draws, then the next free index (pickDistinct's rule)
		for tries := 0; tries < 8; tries++ {
			if _, hit := taken[r]; !hit {
				break
			}
			r = draw()
		}
		for {
			if _, hit := taken[r]; !hit {
				break
			}
			r = (r + 1) % d.Size
		}
		taken[r] = struct{}{}
		m := r % d.Batch
		out[i] = float64(base + d.Vus*(r-m) + m) // OwnedKeys.at(r)
	}
	return out, nil
}

var pool sync.Pool // of *[]byte

// Render makes the recipe's body in a pooled buffer; release gives the buffer back (call it
// once nothing reads the body).
func (s *Store) Render(rc *Recipe) ([]byte, func(), *wire.Refusal) {
	img := s.get(rc.Image)
	if img == nil {
		return nil, nil, wire.Refuse(KindImage, "no image %q in this gateway (upload it to /render/image)", rc.Image)
	}
	n := rc.Base + rc.Count*rc.Stride - 1 + len(rc.Close)
	if rc.Count <= 0 || rc.Stride <= 0 || rc.Width < 4 || rc.Width > 20 || len(rc.Prefix) != 1 || len(rc.Close) == 0 ||
		rc.Base < 0 || rc.Base+rc.Count*rc.Stride-1 > len(img) || rc.Key0 < rc.Base || rc.Stamp0 < rc.Base ||
		rc.Key0+(rc.Count-1)*rc.Stride+rc.Width > n || rc.Stamp0+(rc.Count-1)*rc.Stride+len(rc.Stamp) > n {
		return nil, nil, wire.Refuse(wire.KindInput, "a recipe whose layout does not fit its image of %d bytes", len(img))
	}
	keys, err := rc.Keys.KeyList(rc.Count)
	if err != nil {
		return nil, nil, wire.Refuse(wire.KindInput, "%v", err)
	}
	bp, _ := pool.Get().(*[]byte)
	if bp == nil || cap(*bp) < n {
		b := make([]byte, 0, n)
		bp = &b
	}
	buf := (*bp)[:n]
	release := func() { pool.Put(bp) }
	at := rc.Base + rc.Count*rc.Stride - 1
	copy(buf, img[:at])
	copy(buf[at:], rc.Close)
	if i := patch(buf, keys, rc.Key0, rc.Stride, rc.Width, rc.Stamp0, []byte(rc.Stamp), rc.Prefix[0]); i < len(keys) {
		release()
		return nil, nil, wire.Refuse(wire.KindInput, "key %s of document %d does not fit a key region of %d bytes", strconv.FormatFloat(keys[i], 'f', -1, 64), i, rc.Width)
	}
	return buf, release, nil
}

// patch stores the key and stamp regions of documents 0 … len(keys)-1 as bodyBuilder's fills do
// (lib/docs.js): `"`, the prefix, the digits and `"` right-aligned in the key region, spaces
// before; the stamp bytes at the stamp region. Returns the index of the first key that does not
// fit (not a whole number in [0, 2^53), or too wide), or len(keys).
func patch(body []byte, keys []float64, key0, stride, width, stamp0 int, stamp []byte, prefix byte) int {
	limit := math.Pow10(width - 3) // `"`, the prefix, up to width-3 digits, `"`
	if limit > 1<<53 {
		limit = 1 << 53
	}
	for i, f := range keys {
		if !(f >= 0 && f < limit && f == math.Trunc(f)) {
			return i
		}
		n := uint64(f)
		region := body[key0+i*stride : key0+i*stride+width]
		p := width - 1
		region[p] = '"'
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
	return len(keys)
}

// ReadRecipe decodes a recipe body.
func ReadRecipe(r *http.Request) (*Recipe, *wire.Refusal) {
	var rc Recipe
	dec := json.NewDecoder(io.LimitReader(r.Body, 64<<20))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rc); err != nil {
		return nil, wire.Refuse(wire.KindInput, "the recipe is not valid JSON: %v", err)
	}
	return &rc, nil
}
