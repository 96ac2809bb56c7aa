package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/k6-writepath/k6-writepath/test/servers/internal/storelimit"
)

// storeLimit bounds the documents this server keeps (-max-stored-mb, internal/storelimit);
// nil (the package's tests) = no limit.
var storeLimit *storelimit.Limit

// storageFull answers a write this server has no room left for (-max-stored-mb) the way
// ArangoDB answers one RocksDB cannot write for lack of space: rocksutils::convertStatus
// turns rocksdb's IOError/kNoSpace into TRI_ERROR_ARANGO_FILESYSTEM_FULL (1104, "filesystem
// full") carrying the status text ("IO error: No space left on device…"), and
// GeneralResponse::responseCode maps 1104 by its default to 500 (arangodb/arangodb
// lib/Rest/GeneralResponse.cpp, arangod/RocksDBEngine/RocksDBCommon.cpp). The whole request
// fails, as a transaction RocksDB cannot commit does; the text names the test server's limit.
// Returns false (and has answered) when the request is refused.
func storageFits(w http.ResponseWriter, body []byte) bool {
	if storeLimit.Fits(int64(len(body))) {
		return true
	}
	writeError(w, 500, 1104, "IO error: No space left on device: "+storeLimit.Reason())
	return false
}

// server is the whole in-memory state. Locking: s.mu guards the database map,
// db.mu guards a database's collection map, c.mu guards one collection's
// documents and indexes (the hot path only takes c.mu).
type server struct {
	rootPassword string
	noAuth       bool
	version      string
	jwtSecret    []byte
	sessionTTL   time.Duration // lifetime of issued JWTs (-session-timeout)

	mu  sync.RWMutex
	dbs map[string]*database

	faults        *faults
	initialFaults faultConfig
	stats         stats
	trx           *trxManager
}

type database struct {
	name string
	id   string
	mu   sync.RWMutex
	cols map[string]*collection
}

type collection struct {
	db          string
	name        string
	id          string
	guid        string
	typ         int // 2 document, 3 edge
	isSystem    bool
	keyType     string
	allowUser   bool
	keyIncr     uint64
	keyOffset   uint64
	keyLast     atomic.Uint64 // autoincrement state
	mu          sync.RWMutex
	waitForSync bool // guarded by mu
	docs        map[string]*document
	indexes     []*index
	stored      int64 // bytes counted against storeLimit (guarded by mu)
}

// document is stored as its final JSON text (system attributes first) so
// reads and returnNew never re-marshal.
type document struct {
	key string
	rev string
	raw []byte
}

// global tick for ids and generated keys (ArangoDB's traditional key
// generator also uses the server tick, so keys are numeric strings).
var tick atomic.Uint64

func init() { tick.Store(uint64(70000)) }

func nextTick() uint64 { return tick.Add(1) }

func nextID() string { return strconv.FormatUint(nextTick(), 10) }

// Revisions: ArangoDB encodes a hybrid logical clock value with this
// sortable base64 alphabet into strings like "_l6zhVDW---". We do the same
// with a monotonic counter seeded from the wall clock, so revisions are
// unique and increase.
const revAlphabet = "-_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

var revClock atomic.Uint64

func init() { revClock.Store(uint64(time.Now().UnixMilli()) << 20) }

// reserveRevs returns the first of n consecutive revision values.
func reserveRevs(n int) uint64 { return revClock.Add(uint64(n)) - uint64(n) + 1 }

func encodeRev(v uint64) string {
	var b [11]byte
	for i := 10; i >= 0; i-- {
		b[i] = revAlphabet[v&63]
		v >>= 6
	}
	return string(b[:])
}

func newServer(rootPw string, noAuth bool, version string, trxIdle time.Duration) *server {
	s := &server{
		rootPassword: rootPw,
		noAuth:       noAuth,
		version:      version,
		jwtSecret:    randomBytes(32),
		sessionTTL:   time.Hour,
		dbs:          map[string]*database{},
		faults:       &faults{},
	}
	s.trx = newTrxManager(trxIdle)
	s.dbs["_system"] = &database{name: "_system", id: "1", cols: map[string]*collection{}}
	return s
}

func (s *server) getDB(name string) *database {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.dbs[name]
}

// releaseStorage gives back what a dropped database's collections counted against storeLimit.
func (db *database) releaseStorage() {
	db.mu.RLock()
	defer db.mu.RUnlock()
	for _, c := range db.cols {
		c.releaseStorage()
	}
}

// releaseStorage gives back what a dropped collection counted against storeLimit.
func (c *collection) releaseStorage() {
	c.mu.Lock()
	storeLimit.Add(-c.stored)
	c.stored = 0
	c.mu.Unlock()
}

func (db *database) getCol(name string) *collection {
	db.mu.RLock()
	defer db.mu.RUnlock()
	return db.cols[name]
}

// resetData drops every database except an empty _system.
func (s *server) resetData() {
	s.mu.Lock()
	for _, db := range s.dbs {
		db.releaseStorage()
	}
	s.dbs = map[string]*database{"_system": {name: "_system", id: "1", cols: map[string]*collection{}}}
	s.mu.Unlock()
	s.trx.reset()
}

// ---- key rules -------------------------------------------------------------

// validKey implements the documented _key rules: 1..254 bytes of letters,
// digits and _ - : . @ ( ) + , = ; $ ! * ' %  (DOCS "Document keys").
func validKey(k string) bool {
	if len(k) == 0 || len(k) > 254 {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case bytes.IndexByte([]byte("_-:.@()+,=;$!*'%"), c) >= 0:
		default:
			return false
		}
	}
	return true
}

// generateKey follows the collection's keyOptions.type.
func (c *collection) generateKey() string {
	switch c.keyType {
	case "padded":
		s := strconv.FormatUint(nextTick(), 16)
		return string(bytes.Repeat([]byte("0"), 16-len(s))) + s
	case "uuid":
		b := randomBytes(16)
		b[6] = b[6]&0x0f | 0x40
		b[8] = b[8]&0x3f | 0x80
		const hx = "0123456789abcdef"
		out := make([]byte, 0, 36)
		for i, x := range b {
			if i == 4 || i == 6 || i == 8 || i == 10 {
				out = append(out, '-')
			}
			out = append(out, hx[x>>4], hx[x&15])
		}
		return string(out)
	case "autoincrement":
		n := c.keyLast.Add(c.keyIncr)
		if c.keyOffset > 0 {
			n += c.keyOffset - c.keyIncr
		}
		return strconv.FormatUint(n, 10)
	default:
		return nextID()
	}
}

// ---- responses ------------------------------------------------------------

const jsonCT = "application/json; charset=utf-8"

func writeRaw(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", jsonCT)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeError(w, 500, 4, "internal error: "+err.Error())
		return
	}
	writeRaw(w, status, b)
}

// writeError writes ArangoDB's error envelope, e.g.
// {"code":404,"error":true,"errorMessage":"...","errorNum":1203} (EX).
func writeError(w http.ResponseWriter, status, errorNum int, msg string) {
	writeErrorExtra(w, status, errorNum, msg, nil)
}

func writeErrorExtra(w http.ResponseWriter, status, errorNum int, msg string, extra []byte) {
	b := make([]byte, 0, 96+len(msg))
	b = append(b, `{"code":`...)
	b = strconv.AppendInt(b, int64(status), 10)
	b = append(b, `,"error":true,"errorMessage":`...)
	b = appendJSONString(b, msg)
	b = append(b, `,"errorNum":`...)
	b = strconv.AppendInt(b, int64(errorNum), 10)
	b = append(b, extra...)
	b = append(b, '}')
	writeRaw(w, status, b)
}

// errorCodesHeader renders X-Arango-Error-Codes as a JSON object mapping
// errorNum (string) -> count, e.g. {"1210":3}. SRC generate20x builds it with
// a VPackBuilder and sends toJson(); EX RestDocumentHandlerDeleteDocumentUnknownMulti
// shows {"1202":2}. The prose form "1200:17,1205:10" is outdated.
func errorCodesHeader(counts map[int]int) string {
	nums := make([]int, 0, len(counts))
	for n := range counts {
		nums = append(nums, n)
	}
	sort.Ints(nums)
	b := []byte{'{'}
	for i, n := range nums {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = strconv.AppendInt(b, int64(n), 10)
		b = append(b, `":`...)
		b = strconv.AppendInt(b, int64(counts[n]), 10)
	}
	b = append(b, '}')
	return string(b)
}

// ---- JSON helpers ---------------------------------------------------------

// appendJSONString appends s as a JSON string literal; fast path for the
// common case of nothing to escape.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

func isWS(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func trimWS(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && isWS(b[i]) {
		i++
	}
	for j > i && isWS(b[j-1]) {
		j--
	}
	return b[i:j]
}

// skipValue returns the index just past the JSON value starting at b[i]
// (b must already be valid JSON; the caller validated it with json.Valid).
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		i++
		for i < len(b) {
			switch b[i] {
			case '\\':
				i += 2
				continue
			case '"':
				return i + 1
			}
			i++
		}
		return i
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipValue(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	default:
		for i < len(b) {
			c := b[i]
			if c == ',' || c == '}' || c == ']' || isWS(c) {
				return i
			}
			i++
		}
		return i
	}
}

// splitArray splits a valid JSON array into its raw elements.
func splitArray(b []byte) [][]byte {
	b = trimWS(b)
	var out [][]byte
	i := 1
	for {
		for i < len(b) && (isWS(b[i]) || b[i] == ',') {
			i++
		}
		if i >= len(b) || b[i] == ']' {
			return out
		}
		j := skipValue(b, i)
		out = append(out, b[i:j])
		i = j
	}
}

type field struct {
	name string
	val  []byte
}

// splitObject splits a valid JSON object into its top-level fields in input
// order. Duplicate names keep the last value (like a JSON decoder would).
func splitObject(b []byte) []field {
	b = trimWS(b)
	var out []field
	i := 1
	for {
		for i < len(b) && (isWS(b[i]) || b[i] == ',') {
			i++
		}
		if i >= len(b) || b[i] == '}' {
			return out
		}
		j := skipValue(b, i)
		name := unquote(b[i:j])
		i = j
		for i < len(b) && (isWS(b[i]) || b[i] == ':') {
			i++
		}
		j = skipValue(b, i)
		val := b[i:j]
		i = j
		dup := false
		for k := range out {
			if out[k].name == name {
				out[k].val = val
				dup = true
			}
		}
		if !dup {
			out = append(out, field{name, val})
		}
	}
}

func unquote(q []byte) string {
	if bytes.IndexByte(q, '\\') < 0 {
		return string(q[1 : len(q)-1])
	}
	var s string
	json.Unmarshal(q, &s)
	return s
}

func getField(fs []field, name string) ([]byte, bool) {
	for _, f := range fs {
		if f.name == name {
			return f.val, true
		}
	}
	return nil, false
}

// buildDoc renders a stored document: _key, _id, _rev first, then the user
// attributes in input order (system attributes from the input are dropped;
// ArangoDB always sets them itself).
func buildDoc(col, key, rev string, fs []field) []byte {
	n := 64 + len(col) + 2*len(key)
	for _, f := range fs {
		n += len(f.name) + len(f.val) + 4
	}
	b := make([]byte, 0, n)
	b = append(b, `{"_key":"`...)
	b = append(b, key...)
	b = append(b, `","_id":"`...)
	b = append(b, col...)
	b = append(b, '/')
	b = append(b, key...)
	b = append(b, `","_rev":"`...)
	b = append(b, rev...)
	b = append(b, '"')
	for _, f := range fs {
		switch f.name {
		case "_key", "_id", "_rev", "_oldRev":
			continue
		}
		b = append(b, ',')
		b = appendJSONString(b, f.name)
		b = append(b, ':')
		b = append(b, f.val...)
	}
	return append(b, '}')
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	if _, err := cryptoRand(b); err != nil {
		panic(err)
	}
	return b
}
