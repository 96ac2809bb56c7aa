package main

// In-memory storage for the RavenDB test double: databases, documents,
// change vectors, collections, HiLo ranges, indexes and operations.
//
// Faithfulness notes (sources: ravendb/ravendb server and client files and the ravendb/docs
// REST pages named in the comments; failure answers are audited in docs/fidelity.md):
//   - Document ids are case-insensitive in RavenDB; we key by strings.ToLower(id)
//     and keep the casing of the latest write.
//   - Collection names are case-insensitive too; the first casing seen is kept.
//   - A document's collection cannot change through an update (ravendb/docs
//     client-api/rest-api/document-commands/put-documents.markdown: "an update must keep the same @collection").
//   - Change vectors look like the real ones: "A:<etag>-<22-char database id>".

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/k6-writepath/k6-writepath/test/servers/internal/storelimit"
)

// storeLimit bounds the documents this server keeps (-max-stored-mb, internal/storelimit);
// nil (the package's tests) = no limit.
var storeLimit *storelimit.Limit

const nodeTag = "A"

// lastModifiedFormat is .NET's round-trip "o" format in UTC, which RavenDB
// uses for @last-modified ("2024-01-02T03:04:05.1234567Z").
const lastModifiedFormat = "2006-01-02T15:04:05.0000000Z"

type document struct {
	id           string
	collection   string // display casing of the collection
	raw          []byte // the document JSON as received (incl. @metadata), nil when bodies are not kept
	changeVector string
	lastModified time.Time
	etag         int64
}

type collectionInfo struct {
	name  string
	count int64
}

type indexDef struct {
	name        string
	maps        []string
	reduce      string
	typ         string
	lockMode    string
	priority    string
	collections []string
	created     time.Time
}

type database struct {
	name string
	dbID string // 22-char base64, the part after "-" in change vectors
	// DatabaseTopology.DatabaseTopologyIdBase64 / ClusterTransactionIdBase64 (see topologyJSON)
	topologyID  string
	clusterTxID string
	created     time.Time
	raftIndex   int64
	mu          sync.RWMutex
	docs        map[string]*document
	colls       map[string]*collectionInfo // lower-case name -> info
	etag        int64
	tombstones  int64
	identities  map[string]int64 // for ids ending in "|"
	stored      int64            // bytes counted against storeLimit (storelimit.Size of each document)
	indexes     map[string]*indexDef

	opsMu  sync.Mutex
	nextOp int64
	ops    map[int64]*operation

	// persist: the data log of -data-dir (persist.go), nil when the server keeps nothing.
	persist *persister
	// unloading: a deletion is under way (deleteWindowMs): requests answer 503 (faults.go).
	unloading atomic.Bool
	// indexedAt: when the indexes will have caught up with the last write (indexLagMs).
	indexedAt time.Time
}

func newDatabaseID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return base64.RawStdEncoding.EncodeToString(b)[:22]
}

func newDatabase(name string, raftIndex int64) *database {
	return &database{
		name:        name,
		dbID:        newDatabaseID(),
		topologyID:  newDatabaseID(),
		clusterTxID: newDatabaseID(),
		created:     time.Now().UTC(),
		raftIndex:   raftIndex,
		docs:        make(map[string]*document),
		colls:       make(map[string]*collectionInfo),
		identities:  make(map[string]int64),
		indexes:     make(map[string]*indexDef),
		ops:         make(map[int64]*operation),
	}
}

func (db *database) changeVectorFor(etag int64) string {
	return fmt.Sprintf("%s:%d-%s", nodeTag, etag, db.dbID)
}

// docMeta extracts @metadata from a document. The lookup of "@metadata" and
// "@collection" is exact (case-sensitive), as in the server's blittable reader.
type docMeta struct {
	Meta map[string]json.RawMessage `json:"@metadata"`
}

// collectionOf returns the collection from @metadata.@collection, "@empty"
// when absent (the bulk-insert body format read by BatchRequestParser.cs).
func collectionOf(raw []byte) (string, error) {
	var m docMeta
	if err := json.Unmarshal(raw, &m); err != nil {
		return "", err
	}
	if m.Meta == nil || !bytes.Contains(raw, []byte(`"@metadata"`)) {
		return "@empty", nil
	}
	c, ok := m.Meta["@collection"]
	if !ok {
		return "@empty", nil
	}
	var s string
	if err := json.Unmarshal(c, &s); err != nil || s == "" {
		return "@empty", nil
	}
	return s, nil
}

// stagedPut is one validated write waiting to be applied to the database.
type stagedPut struct {
	key string
	doc *document // nil means delete
}

// txn is a write transaction on one database: reads see staged writes first,
// nothing touches the database until commit(). Callers hold db.mu (write).
type txn struct {
	db     *database
	staged map[string]*document // nil value = deleted in this txn
	order  []string
	etag   int64
	now    time.Time
	keep   bool
	idents map[string]int64
	delta  int64 // stored bytes this transaction adds (negative: gives back)
}

func (db *database) begin(keepBodies bool) *txn {
	return &txn{db: db, staged: make(map[string]*document), etag: db.etag, now: time.Now().UTC(), keep: keepBodies}
}

func (t *txn) get(key string) *document {
	if d, ok := t.staged[key]; ok {
		return d
	}
	return t.db.docs[key]
}

func (t *txn) stage(key string, d *document) {
	if _, ok := t.staged[key]; !ok {
		t.order = append(t.order, key)
	}
	t.staged[key] = d
}

// concurrencyError is RavenDB's ConcurrencyException (409).
type concurrencyError struct{ msg string }

func (e *concurrencyError) Error() string { return e.msg }

// diskFullError is what a write gets once this test server holds -max-stored-mb of documents:
// the real server's answer to a write its data file cannot grow for, Voron's
// Sparrow.Server.Exceptions.DiskFullException (ravendb/ravendb
// src/Sparrow.Server/Exceptions/DiskFullException.cs: "There is not enough space to set the
// size of file {path} to {Sizes.Humane(size)}. Currently available space: {…}. Error Message:
// {msg}"), which RavenServerStartup.MaybeSetExceptionStatusCode does not map: 500 (docs/fidelity.md
// R1). The Error Message part names the test server's limit (internal/storelimit).
type diskFullError struct{ msg string }

func (e *diskFullError) Error() string { return e.msg }

const diskFullType = "Sparrow.Server.Exceptions.DiskFullException"

func (t *txn) diskFull(delta int64) error {
	used := storeLimit.Used()
	return &diskFullError{fmt.Sprintf("There is not enough space to set the size of file Databases/%s/Raven.voron to %s. Currently available space: %s. Error Message: %s",
		t.db.name, humane(used+delta), humane(storeLimit.MaxMB<<20-used), storeLimit.Reason())}
}

// humane is Sparrow.Utils.Sizes.Humane (ravendb/ravendb src/Sparrow/Utils/Sizes.cs):
// "{0:#,#.##} GBytes" from 1 GiB, MBytes from 1 MiB, KBytes from 1 KiB, else "{0:#,#} Bytes".
func humane(n int64) string {
	if n < 0 {
		n = 0
	}
	f := float64(n)
	for _, u := range []struct {
		size float64
		name string
	}{{1 << 30, "GBytes"}, {1 << 20, "MBytes"}, {1 << 10, "KBytes"}} {
		if f >= u.size {
			return strings.TrimRight(strings.TrimRight(groupThousands(fmt.Sprintf("%.2f", f/u.size)), "0"), ".") + " " + u.name
		}
	}
	return groupThousands(strconv.FormatInt(n, 10)) + " Bytes"
}

// groupThousands puts .NET's "#,#" separators into the integer part of a decimal text.
func groupThousands(s string) string {
	intPart, frac := s, ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		intPart, frac = s[:i], s[i:]
	}
	for i := len(intPart) - 3; i > 0; i -= 3 {
		intPart = intPart[:i] + "," + intPart[i:]
	}
	return intPart + frac
}

// docSize is what a stored document counts against storeLimit.
func docSize(d *document) int64 {
	if d == nil {
		return 0
	}
	return storelimit.Size(d.raw, d.id)
}

// invalidOpError is a System.InvalidOperationException (500).
type invalidOpError struct{ msg string }

func (e *invalidOpError) Error() string { return e.msg }

// resolveID turns "prefix/" into a server-generated id and "prefix|" into an
// identity. For "/" the server appends the etag as 19 digits plus "-<node tag>"
// (e.g. "users/0000000000000000001-A"); for "|" it uses a per-prefix counter.
func (t *txn) resolveID(id string) string {
	if strings.HasSuffix(id, "/") {
		return fmt.Sprintf("%s%019d-%s", id, t.etag+1, nodeTag)
	}
	if strings.HasSuffix(id, "|") {
		prefix := id[:len(id)-1] + "/"
		if t.idents == nil {
			t.idents = make(map[string]int64)
		}
		k := strings.ToLower(prefix)
		v, ok := t.idents[k]
		if !ok {
			v = t.db.identities[k]
		}
		v++
		t.idents[k] = v
		return prefix + strconv.FormatInt(v, 10)
	}
	return id
}

// put stages a document write with RavenDB's change-vector rules:
//   - expectedCV == nil: no check, create or overwrite (last write wins);
//   - *expectedCV == "": the document must not exist ("expecting new document");
//   - otherwise the stored change vector must equal *expectedCV.
//
// The ConcurrencyException texts are the server's ("Document X has change vector …, but Put was
// called with expecting new document. Optimistic concurrency violation, transaction will be
// aborted."): ravendb/ravendb's own tests assert them, and users' logs of real servers show them
// verbatim (e.g. NServiceBus' RavenDB persistence docs, Particular/docs.particular.net).
//
// The messages follow the server's DocumentPutAction.
func (t *txn) put(id string, raw []byte, collection string, expectedCV *string) (*document, error) {
	id = t.resolveID(id)
	key := strings.ToLower(id)
	existing := t.get(key)
	if expectedCV != nil {
		if existing == nil {
			if *expectedCV != "" {
				return nil, &concurrencyError{fmt.Sprintf("Document %s does not exist, but Put was called with change vector: %s. Optimistic concurrency violation, transaction will be aborted.", id, *expectedCV)}
			}
		} else if *expectedCV == "" {
			return nil, &concurrencyError{fmt.Sprintf("Document %s has change vector %s, but Put was called with expecting new document. Optimistic concurrency violation, transaction will be aborted.", id, existing.changeVector)}
		} else if *expectedCV != existing.changeVector {
			return nil, &concurrencyError{fmt.Sprintf("Document %s has change vector %s, but Put was called with change vector %s. Optimistic concurrency violation, transaction will be aborted.", id, existing.changeVector, *expectedCV)}
		}
	}
	display := collection
	if existing != nil && !strings.EqualFold(existing.collection, collection) {
		return nil, &invalidOpError{fmt.Sprintf("Changing '%s' from '%s' to '%s' via update is not supported.\nDelete it and recreate the document %s.", id, existing.collection, collection, id)}
	}
	if existing != nil {
		display = existing.collection
	} else if ci, ok := t.db.colls[strings.ToLower(collection)]; ok {
		display = ci.name
	}
	var kept []byte
	if t.keep {
		kept = raw
	}
	delta := t.delta + storelimit.Size(kept, id) - docSize(existing)
	if delta > t.delta && !storeLimit.Fits(delta) {
		return nil, t.diskFull(delta)
	}
	t.delta = delta
	t.etag++
	d := &document{id: id, collection: display, changeVector: t.db.changeVectorFor(t.etag), lastModified: t.now, etag: t.etag}
	if t.keep {
		d.raw = append([]byte(nil), raw...)
	}
	t.stage(key, d)
	return d, nil
}

// del stages a delete. A non-empty expected change vector must match.
func (t *txn) del(id string, expectedCV *string) (bool, error) {
	key := strings.ToLower(id)
	existing := t.get(key)
	if expectedCV != nil && *expectedCV != "" {
		if existing == nil {
			return false, &concurrencyError{fmt.Sprintf("Document %s does not exist, but delete was called with change vector '%s'. Optimistic concurrency violation, transaction will be aborted.", id, *expectedCV)}
		}
		if existing.changeVector != *expectedCV {
			return false, &concurrencyError{fmt.Sprintf("Document %s has change vector '%s', but Delete was called with change vector '%s'. Optimistic concurrency violation, transaction will be aborted.", id, existing.changeVector, *expectedCV)}
		}
	}
	if existing == nil {
		return false, nil
	}
	t.delta -= docSize(existing)
	t.etag++
	t.stage(key, nil)
	return true, nil
}

// commit applies staged writes; the caller holds db.mu for writing.
func (t *txn) commit() {
	db := t.db
	for _, key := range t.order {
		nd := t.staged[key]
		old := db.docs[key]
		if old != nil {
			if ci := db.colls[strings.ToLower(old.collection)]; ci != nil {
				ci.count--
			}
		}
		if nd == nil {
			if old != nil {
				delete(db.docs, key)
				db.tombstones++
			}
			continue
		}
		db.docs[key] = nd
		lc := strings.ToLower(nd.collection)
		ci := db.colls[lc]
		if ci == nil {
			ci = &collectionInfo{name: nd.collection}
			db.colls[lc] = ci
		}
		ci.count++
	}
	for k, v := range t.idents {
		db.identities[k] = v
	}
	db.etag = t.etag
	db.stored += t.delta
	storeLimit.Add(t.delta)
	t.persistTx()
}

// renderDocument writes the document as the server returns it from GET /docs:
// the stored properties followed by @metadata with @collection, the other
// stored metadata, @change-vector, @id and @last-modified.
func renderDocument(buf *bytes.Buffer, d *document) {
	buf.WriteByte('{')
	first := true
	var meta []kv
	if d.raw != nil {
		fields, m := splitTopLevel(d.raw)
		meta = m
		for _, f := range fields {
			if !first {
				buf.WriteByte(',')
			}
			first = false
			writeKey(buf, f.k)
			buf.Write(f.v)
		}
	}
	if !first {
		buf.WriteByte(',')
	}
	buf.WriteString(`"@metadata":{`)
	writeKey(buf, "@collection")
	writeJSONString(buf, d.collection)
	for _, m := range meta {
		switch m.k {
		case "@collection", "@change-vector", "@id", "@last-modified", "@flags", "@etag":
			continue
		}
		buf.WriteByte(',')
		writeKey(buf, m.k)
		buf.Write(m.v)
	}
	buf.WriteString(`,"@change-vector":`)
	writeJSONString(buf, d.changeVector)
	buf.WriteString(`,"@id":`)
	writeJSONString(buf, d.id)
	buf.WriteString(`,"@last-modified":`)
	writeJSONString(buf, d.lastModified.Format(lastModifiedFormat))
	buf.WriteString("}}")
}

type kv struct {
	k string
	v json.RawMessage
}

// splitTopLevel returns the top-level properties (without @metadata) in
// their original order, and the @metadata properties.
func splitTopLevel(raw []byte) (fields, meta []kv) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return nil, nil
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return
		}
		if k == "@metadata" {
			md := json.NewDecoder(bytes.NewReader(v))
			if tok, err := md.Token(); err == nil && tok == json.Delim('{') {
				for md.More() {
					mt, err := md.Token()
					if err != nil {
						break
					}
					var mv json.RawMessage
					if err := md.Decode(&mv); err != nil {
						break
					}
					mk, _ := mt.(string)
					meta = append(meta, kv{mk, mv})
				}
			}
			continue
		}
		fields = append(fields, kv{k, v})
	}
	return
}

func writeKey(buf *bytes.Buffer, k string) {
	writeJSONString(buf, k)
	buf.WriteByte(':')
}

func writeJSONString(buf *bytes.Buffer, s string) {
	b, _ := json.Marshal(s)
	buf.Write(b)
}
