package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// Document API (DOCS:documents; SRC RestDocumentHandler.cpp, Methods.cpp,
// RestVocbaseBaseHandler::generate20x).

// docStore is where an operation reads and writes: the collection itself
// (caller holds c.mu write lock) or a stream transaction's overlay.
type docStore interface {
	get(key string) *document
	put(d, old *document)
	del(old *document)
	uniqueConflict(key string, raw []byte) (string, bool)
}

type baseStore struct{ c *collection }

func (b baseStore) get(k string) *document { return b.c.docs[k] }
func (b baseStore) put(d, old *document)   { b.c.putLocked(d, old) }
func (b baseStore) del(old *document)      { b.c.deleteLocked(old) }
func (b baseStore) uniqueConflict(key string, raw []byte) (string, bool) {
	if len(b.c.indexes) == 0 {
		return "", false
	}
	return b.c.uniqueConflict(key, raw)
}

// withStore runs fn with the right lock held. Inside a transaction the
// collection is only read-locked (writes go to the overlay). Note: unique
// secondary indexes are not checked for writes buffered in a transaction.
func withStore(c *collection, t *transaction, write bool, fn func(st docStore, waitForSync bool)) {
	switch {
	case t != nil:
		c.mu.RLock()
		defer c.mu.RUnlock()
		fn(t.overlay(c), c.waitForSync)
	case write:
		c.mu.Lock()
		defer c.mu.Unlock()
		fn(baseStore{c}, c.waitForSync)
	default:
		c.mu.RLock()
		defer c.mu.RUnlock()
		fn(baseStore{c}, c.waitForSync)
	}
}

const (
	errMsgNotFound    = "document not found"
	errMsgBadKey      = "illegal document key"
	errMsgBadType     = "invalid document type"
	errMsgBadHandle   = "illegal document identifier"
	errMsgRevMismatch = "conflict, _rev values do not match"
)

// errorTexts are the errors.yaml texts used for injected element failures.
var errorTexts = map[int]string{
	4: "internal error", 21: "timeout", 28: "locked", 32: "resource limit exceeded",
	503: "service unavailable", 1004: "read only", 1200: "conflict", 1202: errMsgNotFound,
	1210: "unique constraint violated", 1221: errMsgBadKey, 1227: errMsgBadType,
	1429: "write concern not fulfilled", 1654: "transaction aborted",
}

func errorText(n int) string {
	if t, ok := errorTexts[n]; ok {
		return t
	}
	return "injected failure (errorNum " + strconv.Itoa(n) + ")"
}

func primaryConflictMsg(key string) string {
	// Message format from EX RestTransactionAbortInternal.
	return "unique constraint violated - in index primary of type primary over '_key'; conflicting key: " + key
}

// statusFor maps an errorNum to the HTTP status of a single-document error
// (SRC lib/Rest/GeneralResponse.cpp).
func statusFor(n int) int {
	switch n {
	case 1202, 1203, 1655:
		return 404
	case 1200, 1210:
		return 409
	case 1654:
		return 410
	case 503, 1429:
		return 503
	case 4:
		return 500
	}
	return 400
}

// outcome is the result of one element of a (possibly multi-) document op.
type outcome struct {
	errNum  int
	errMsg  string
	key     string
	rev     string
	oldRev  string
	oldRaw  []byte
	newRaw  []byte
	newNull bool // overwriteMode=ignore hit an existing doc: "new":null, and listed even under silent
	cur     *document
}

func (o *outcome) fail(n int, msg string) { o.errNum, o.errMsg = n, msg }

// writeElements splits a write body into its documents (one, or the elements of an array)
// and fails up front the elements the fault knobs pick (arrays only) and those that are not
// objects (1227); the caller handles the elements whose outcome is still open (errNum 0).
func (s *server) writeElements(body []byte, single bool) ([][]byte, []outcome) {
	elems := [][]byte{body}
	if !single {
		elems = splitArray(body)
	}
	outs := make([]outcome, len(elems))
	var injected []bool
	injNum := 0
	if !single {
		injected, injNum = s.faults.elementFailures(len(elems))
	}
	for i, e := range elems {
		switch {
		case injected != nil && injected[i]:
			outs[i].fail(injNum, errorText(injNum))
		case e[0] != '{':
			outs[i].fail(1227, errMsgBadType)
		}
	}
	return elems, outs
}

func appendErrorElem(b []byte, n int, msg string) []byte {
	// Failed elements: {"error":true,"errorNum":N,"errorMessage":"..."}, no _key
	// (SRC Methods.cpp createBabiesError; EX RestDocumentHandlerPostBadJsonMulti).
	b = append(b, `{"error":true,"errorNum":`...)
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, `,"errorMessage":`...)
	b = appendJSONString(b, msg)
	return append(b, '}')
}

func appendIdentity(b []byte, col string, o *outcome, withOld, withNew bool) []byte {
	b = append(b, `{"_id":"`...)
	b = append(b, col...)
	b = append(b, '/')
	b = append(b, o.key...)
	b = append(b, `","_key":"`...)
	b = append(b, o.key...)
	b = append(b, `","_rev":"`...)
	b = append(b, o.rev...)
	b = append(b, '"')
	if o.oldRev != "" {
		b = append(b, `,"_oldRev":"`...)
		b = append(b, o.oldRev...)
		b = append(b, '"')
	}
	if withOld && o.oldRaw != nil {
		b = append(b, `,"old":`...)
		b = append(b, o.oldRaw...)
	}
	if withNew {
		if o.newRaw != nil {
			b = append(b, `,"new":`...)
			b = append(b, o.newRaw...)
		} else if o.newNull {
			b = append(b, `,"new":null`...)
		}
	}
	return append(b, '}')
}

// writeResults renders a write response. Status: success code (201/202 or
// 200/202 for removes) even when elements failed; X-Arango-Error-Codes only
// for multi-document ops with >=1 error; etag/location only for single docs
// (SRC generate20x). silent: single -> {}; array -> {} if all succeeded
// (SRC Methods.cpp: "if (options.silent && errorCounter.empty()) resDocs->clear()",
// then generate20x emits an empty object; DOCS agree). Otherwise the array the
// server built while processing, in input order: the error object of each failed
// element AND, with overwriteMode=ignore, the identity {_id,_key,_rev} of each
// element that hit an existing document — InsertProcessor::processValue calls
// buildDocumentIdentity for an ignored document whatever `silent` says, while a
// written document gets its identity only `if (!_options.silent)`
// (arangodb/arangodb arangod/Transaction/Methods.cpp, ReplicatedProcessorBase::execute
// and InsertProcessor::processValue, 3.12 line). So the silent answer of a batch with
// one failure can list more elements than failed.
func writeResults(w http.ResponseWriter, r *http.Request, db string, c *collection, single bool, outs []outcome,
	status int, silent, withOld, withNew bool) {
	if single {
		o := &outs[0]
		if o.errNum != 0 {
			writeSingleError(w, c, o)
			return
		}
		w.Header().Set("Etag", `"`+o.rev+`"`)
		w.Header().Set("Location", "/_db/"+db+"/_api/document/"+c.name+"/"+o.key)
		if silent {
			writeRaw(w, status, []byte("{}"))
			return
		}
		writeRaw(w, status, appendIdentity(nil, c.name, o, withOld, withNew))
		return
	}
	counts := map[int]int{}
	for i := range outs {
		if outs[i].errNum != 0 {
			counts[outs[i].errNum]++
		}
	}
	if len(counts) > 0 {
		w.Header().Set("X-Arango-Error-Codes", errorCodesHeader(counts))
	}
	if silent && len(counts) == 0 {
		writeRaw(w, status, []byte("{}"))
		return
	}
	b := make([]byte, 0, 16+len(outs)*(64+2*len(c.name)))
	b = append(b, '[')
	first := true
	for i := range outs {
		o := &outs[i]
		if silent && o.errNum == 0 && !o.newNull {
			continue // written: no entry under silent; ignored (newNull): its identity stays
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		if o.errNum != 0 {
			b = appendErrorElem(b, o.errNum, o.errMsg)
		} else {
			b = appendIdentity(b, c.name, o, withOld, withNew)
		}
	}
	b = append(b, ']')
	writeRaw(w, status, b)
}

func writeSingleError(w http.ResponseWriter, c *collection, o *outcome) {
	if o.errNum == 1200 && o.cur != nil {
		// Precondition failed: 412 with the current identity.
		extra := []byte(`,"_id":"` + c.name + "/" + o.cur.key + `","_key":"` + o.cur.key + `","_rev":"` + o.cur.rev + `"`)
		w.Header().Set("Etag", `"`+o.cur.rev+`"`)
		writeErrorExtra(w, 412, 1200, o.errMsg, extra)
		return
	}
	writeError(w, statusFor(o.errNum), o.errNum, o.errMsg)
}

func readBody(r *http.Request) ([]byte, error) {
	if r.ContentLength > 0 {
		b := make([]byte, r.ContentLength)
		_, err := io.ReadFull(r.Body, b)
		return b, err
	}
	return io.ReadAll(r.Body)
}

// parseBody reads and validates a JSON body: bad JSON -> 400/600 (EX RestDocumentHandlerPostBadJson1).
func parseBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	b, err := readBody(r)
	if err != nil {
		writeError(w, 400, 600, "invalid JSON object")
		return nil, false
	}
	b = trimWS(b)
	if len(b) == 0 || !json.Valid(b) {
		writeError(w, 400, 600, "invalid JSON object")
		return nil, false
	}
	return b, true
}

func (s *server) handleDocument(w http.ResponseWriter, r *http.Request, db *database, rest []string) {
	q := r.URL.Query()
	var colName, key string
	switch len(rest) {
	case 0:
		// Legacy form POST /_api/document?collection=<name> (SRC insertDocument()).
		colName = q.Get("collection")
		if colName == "" {
			writeError(w, 400, 1204, "parameter 'collection' not found")
			return
		}
	case 1:
		colName = rest[0]
	case 2:
		colName, key = rest[0], rest[1]
	default:
		writeError(w, 400, 1205, errMsgBadHandle)
		return
	}
	onlyget := r.Method == http.MethodPut && q.Has("onlyget") // SRC only checks presence
	isWrite := (r.Method == http.MethodPost || r.Method == http.MethodPut || r.Method == http.MethodPatch ||
		r.Method == http.MethodDelete) && !onlyget
	if isWrite {
		if s.answerWriteFault(w, r) {
			return
		}
		var cut func()
		w, cut = s.cutAfterCommit(w)
		defer cut() // after the transaction's unlock below: the write is committed, then the answer lost
	}
	c := db.getCol(colName)
	if c == nil {
		// EX RestDocumentHandlerPostUnknownCollection1
		writeError(w, 404, 1203, "collection or view not found: "+colName)
		return
	}
	t, ok := s.trxFromRequest(w, r, db)
	if !ok {
		return
	}
	if t != nil {
		defer t.mu.Unlock()
		if isWrite && !t.mayWrite(c.name) {
			// Fails without aborting the transaction (DOCS:stream-transactions).
			writeError(w, 400, 1652, "collection not registered with transaction: '"+c.name+"'")
			return
		}
	}
	switch {
	case (r.Method == http.MethodGet || r.Method == http.MethodHead) && key != "":
		s.readOne(w, r, c, t, key)
	case r.Method == http.MethodPost && key == "":
		s.insert(w, r, db, c, t)
	case onlyget && key == "":
		s.readMany(w, r, c, t)
	case (r.Method == http.MethodPut || r.Method == http.MethodPatch):
		s.modify(w, r, db, c, t, key, r.Method == http.MethodPatch)
	case r.Method == http.MethodDelete:
		s.remove(w, r, db, c, t, key)
	default:
		writeError(w, 405, 405, "method not supported")
	}
}

// ---- reads -----------------------------------------------------------------

func (s *server) readOne(w http.ResponseWriter, r *http.Request, c *collection, t *transaction, key string) {
	var d *document
	withStore(c, t, false, func(st docStore, _ bool) { d = st.get(key) })
	if d == nil {
		// EX RestDocumentHandlerReadDocumentUnknownHandle
		writeError(w, 404, 1202, errMsgNotFound)
		return
	}
	etag := `"` + d.rev + `"`
	if inm := r.Header.Get("If-None-Match"); inm != "" && strings.Trim(inm, `"`) == d.rev {
		w.Header().Set("Etag", etag)
		w.WriteHeader(304)
		return
	}
	if im := r.Header.Get("If-Match"); im != "" && strings.Trim(im, `"`) != d.rev {
		writeSingleError(w, c, &outcome{errNum: 1200, errMsg: errMsgRevMismatch, cur: d})
		return
	}
	w.Header().Set("Etag", etag)
	writeRaw(w, 200, d.raw)
}

// selectorKey extracts the key from a selector: "key", "coll/key" or {_key[,_rev]}.
func selectorKey(c *collection, e []byte) (key, rev string, errNum int) {
	switch e[0] {
	case '"':
		k := unquote(e)
		if i := strings.IndexByte(k, '/'); i >= 0 {
			if k[:i] != c.name {
				return "", "", 1205
			}
			k = k[i+1:]
		}
		return k, "", 0
	case '{':
		fs := splitObject(e)
		kv, ok := getField(fs, "_key")
		if !ok {
			if idv, ok := getField(fs, "_id"); ok && idv[0] == '"' {
				return selectorKey(c, idv)
			}
			return "", "", 1205
		}
		if kv[0] != '"' {
			return "", "", 1221
		}
		if rv, ok := getField(fs, "_rev"); ok && rv[0] == '"' {
			rev = unquote(rv)
		}
		return unquote(kv), rev, 0
	}
	return "", "", 1205
}

// readMany: PUT /_api/document/<c>?onlyget=true. Always 200, missing
// documents inline as {"error":true,"errorNum":1202,"errorMessage":"document not found"}
// and NO X-Arango-Error-Codes (SRC: goes through generateDocument; no recorded example exists).
func (s *server) readMany(w http.ResponseWriter, r *http.Request, c *collection, t *transaction) {
	body, ok := parseBody(w, r)
	if !ok {
		return
	}
	if body[0] != '[' {
		if body[0] != '{' && body[0] != '"' {
			writeError(w, 400, 1227, errMsgBadType)
			return
		}
		k, _, n := selectorKey(c, body)
		if n != 0 {
			writeError(w, 400, n, errMsgBadHandle)
			return
		}
		s.readOne(w, r, c, t, k)
		return
	}
	ignoreRevs := boolParam(r, "ignoreRevs", true)
	elems := splitArray(body)
	out := make([]byte, 0, 1024)
	out = append(out, '[')
	withStore(c, t, false, func(st docStore, _ bool) {
		for i, e := range elems {
			if i > 0 {
				out = append(out, ',')
			}
			k, rev, n := selectorKey(c, e)
			if n != 0 {
				out = appendErrorElem(out, n, errMsgBadHandle)
				continue
			}
			d := st.get(k)
			if d == nil {
				out = appendErrorElem(out, 1202, errMsgNotFound)
				continue
			}
			if !ignoreRevs && rev != "" && rev != d.rev {
				out = appendErrorElem(out, 1200, "conflict")
				continue
			}
			out = append(out, d.raw...)
		}
	})
	out = append(out, ']')
	writeRaw(w, 200, out)
}

// ---- insert ----------------------------------------------------------------

type overwriteMode int

const (
	modeConflict overwriteMode = iota
	modeIgnore
	modeReplace
	modeUpdate
)

// prepared is an element parsed outside the collection lock.
type prepared struct {
	fs  []field
	raw []byte // document as it would be stored on insert/replace
}

func (s *server) insert(w http.ResponseWriter, r *http.Request, db *database, c *collection, t *transaction) {
	body, ok := parseBody(w, r)
	if !ok || !storageFits(w, body) {
		return
	}
	q := r.URL.Query()
	single := body[0] != '['
	if single && body[0] != '{' {
		writeError(w, 400, 1227, errMsgBadType)
		return
	}
	// overwrite=true means replace; a valid overwriteMode supersedes it; an
	// invalid overwriteMode value is silently ignored (SRC: maps to Unknown,
	// the previous mode stays).
	mode := modeConflict
	if boolParam(r, "overwrite", false) {
		mode = modeReplace
	}
	if q.Has("overwriteMode") {
		switch q.Get("overwriteMode") {
		case "ignore":
			mode = modeIgnore
		case "replace":
			mode = modeReplace
		case "update":
			mode = modeUpdate
		case "conflict":
			mode = modeConflict
		}
	}
	returnNew := boolParam(r, "returnNew", false)
	// SRC: returnOld = param && isOverwriteModeUpdateReplace()
	returnOld := boolParam(r, "returnOld", false) && (mode == modeUpdate || mode == modeReplace)
	silent := boolParam(r, "silent", false)
	// keepNull/mergeObjects are only read for overwriteMode=update. NOTE: the
	// docs say keepNull defaults to true, but SRC parses it with default FALSE
	// in this update-insert path (three stored versions of RestDocumentHandler.cpp);
	// we follow the source. Clients should always send keepNull explicitly.
	keepNull := boolParam(r, "keepNull", false)
	mergeObjects := boolParam(r, "mergeObjects", true)
	waitForSync := boolParam(r, "waitForSync", false)

	elems, outs := s.writeElements(body, single)
	n := len(elems)
	preps := make([]prepared, n)
	revBase := reserveRevs(n)
	for i, e := range elems {
		o := &outs[i]
		if o.errNum != 0 {
			continue
		}
		fs := splitObject(e)
		if kv, has := getField(fs, "_key"); has {
			if !c.allowUser {
				o.fail(1222, "unexpected document key")
				continue
			}
			if kv[0] != '"' {
				o.fail(1221, errMsgBadKey)
				continue
			}
			o.key = unquote(kv)
			if !validKey(o.key) {
				o.fail(1221, errMsgBadKey)
				continue
			}
		} else {
			o.key = c.generateKey()
		}
		if c.typ == 3 && !validEdge(fs) {
			o.fail(1233, "edge attribute missing or invalid")
			continue
		}
		o.rev = encodeRev(revBase + uint64(i))
		preps[i] = prepared{fs: fs, raw: buildDoc(c.name, o.key, o.rev, fs)}
	}

	var collWFS bool
	withStore(c, t, true, func(st docStore, wfs bool) {
		collWFS = wfs
		for i := range outs {
			o := &outs[i]
			if o.errNum != 0 {
				continue
			}
			p := &preps[i]
			old := st.get(o.key)
			newRaw := p.raw
			if old != nil {
				switch mode {
				case modeConflict:
					o.fail(1210, primaryConflictMsg(o.key))
					continue
				case modeIgnore:
					// No write; identity of the EXISTING revision, no _oldRev,
					// returnNew gives new:null (SRC Methods.cpp buildDocumentIdentity(..., oldRevisionId, none)).
					o.rev, o.newNull = old.rev, true
					continue
				case modeUpdate:
					newRaw = buildDoc(c.name, o.key, o.rev, mergeFields(splitObject(old.raw), p.fs, keepNull, mergeObjects))
				}
			}
			if msg, bad := st.uniqueConflict(o.key, newRaw); bad {
				o.fail(1210, msg)
				continue
			}
			d := &document{key: o.key, rev: o.rev, raw: newRaw}
			st.put(d, old)
			if old != nil {
				o.oldRev, o.oldRaw = old.rev, old.raw
			}
			o.newRaw = newRaw
		}
	})
	// 201 if the effective waitForSync (query OR collection property) is true,
	// otherwise 202 — also for arrays with failed elements (SRC generate20x;
	// EX RestDocumentHandlerPostCreate1/PostAccept1/PostWait1/PostBadJsonMulti).
	status := 202
	if waitForSync || collWFS {
		status = 201
	}
	writeResults(w, r, db.name, c, single, outs, status, silent, returnOld, returnNew)
}

func validEdge(fs []field) bool {
	for _, n := range []string{"_from", "_to"} {
		v, ok := getField(fs, n)
		if !ok || v[0] != '"' || !strings.Contains(unquote(v), "/") {
			return false
		}
	}
	return true
}

// ---- update / replace ------------------------------------------------------

// mergeFields applies a patch to a document's fields (PATCH semantics):
// null removes the attribute unless keepNull; with mergeObjects, object values
// are merged recursively into existing objects, otherwise they replace them.
// System attributes in the patch are ignored. Nested nulls are removed only
// while merging into an existing object (like VPackCollection::merge with
// nullMeansRemove); a new object value is stored as sent.
func mergeFields(old, patch []field, keepNull, mergeObjects bool) []field {
	out := append([]field(nil), old...)
	for _, pf := range patch {
		switch pf.name {
		case "_key", "_id", "_rev", "_oldRev":
			continue
		}
		idx := -1
		for i := range out {
			if out[i].name == pf.name {
				idx = i
				break
			}
		}
		if !keepNull && bytes.Equal(pf.val, []byte("null")) {
			if idx >= 0 {
				out = append(out[:idx], out[idx+1:]...)
			}
			continue
		}
		val := pf.val
		if mergeObjects && val[0] == '{' && idx >= 0 && out[idx].val[0] == '{' {
			val = buildObject(mergeFields(splitObject(out[idx].val), splitObject(val), keepNull, true))
		}
		if idx >= 0 {
			out[idx].val = val
		} else {
			out = append(out, field{pf.name, val})
		}
	}
	return out
}

func buildObject(fs []field) []byte {
	b := []byte{'{'}
	for i, f := range fs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, f.name)
		b = append(b, ':')
		b = append(b, f.val...)
	}
	return append(b, '}')
}

// modify handles PUT (replace) and PATCH (update), single (/c/key) and many
// (/c with an array). ignoreRevs defaults to true; false makes _rev a
// precondition (per-element 1200). PATCH: keepNull default TRUE, mergeObjects
// default true (SRC PATCH handler).
func (s *server) modify(w http.ResponseWriter, r *http.Request, db *database, c *collection, t *transaction, urlKey string, isPatch bool) {
	body, ok := parseBody(w, r)
	if !ok || !storageFits(w, body) {
		return
	}
	single := urlKey != "" || body[0] != '['
	if single && body[0] != '{' {
		writeError(w, 400, 1227, errMsgBadType)
		return
	}
	ignoreRevs := boolParam(r, "ignoreRevs", true)
	returnOld := boolParam(r, "returnOld", false)
	returnNew := boolParam(r, "returnNew", false)
	silent := boolParam(r, "silent", false)
	keepNull := boolParam(r, "keepNull", true)
	mergeObjects := boolParam(r, "mergeObjects", true)
	waitForSync := boolParam(r, "waitForSync", false)
	ifMatch := strings.Trim(r.Header.Get("If-Match"), `"`)

	elems, outs := s.writeElements(body, single)
	n := len(elems)
	fss := make([][]field, n)
	expect := make([]string, n)
	revBase := reserveRevs(n)
	for i, e := range elems {
		o := &outs[i]
		if o.errNum != 0 {
			continue
		}
		fs := splitObject(e)
		fss[i] = fs
		if single && urlKey != "" {
			o.key = urlKey
			expect[i] = ifMatch
		} else {
			kv, has := getField(fs, "_key")
			if !has {
				// Inferred from SRC (RocksDBCollection update/replace): missing
				// _key -> 1205 "illegal document identifier", non-string -> 1221.
				o.fail(1205, errMsgBadHandle)
				continue
			}
			if kv[0] != '"' {
				o.fail(1221, errMsgBadKey)
				continue
			}
			o.key = unquote(kv)
		}
		if !ignoreRevs && expect[i] == "" {
			if rv, ok := getField(fs, "_rev"); ok && rv[0] == '"' {
				expect[i] = unquote(rv)
			}
		}
		o.rev = encodeRev(revBase + uint64(i))
	}
	var collWFS bool
	withStore(c, t, true, func(st docStore, wfs bool) {
		collWFS = wfs
		for i := range outs {
			o := &outs[i]
			if o.errNum != 0 {
				continue
			}
			old := st.get(o.key)
			if old == nil {
				o.fail(1202, errMsgNotFound)
				continue
			}
			if expect[i] != "" && expect[i] != old.rev {
				o.fail(1200, errMsgRevMismatch)
				o.cur = old
				continue
			}
			var fs []field
			if isPatch {
				fs = mergeFields(splitObject(old.raw), fss[i], keepNull, mergeObjects)
			} else {
				fs = fss[i]
				if c.typ == 3 && !validEdge(fs) {
					o.fail(1233, "edge attribute missing or invalid")
					continue
				}
			}
			newRaw := buildDoc(c.name, o.key, o.rev, fs)
			if msg, bad := st.uniqueConflict(o.key, newRaw); bad {
				o.fail(1210, msg)
				continue
			}
			st.put(&document{key: o.key, rev: o.rev, raw: newRaw}, old)
			o.oldRev, o.oldRaw, o.newRaw = old.rev, old.raw, newRaw
		}
	})
	status := 202
	if waitForSync || collWFS {
		status = 201
	}
	writeResults(w, r, db.name, c, single, outs, status, silent, returnOld, returnNew)
}

// ---- remove ----------------------------------------------------------------

// remove: DELETE /c/key or DELETE /c with an array of keys, "c/key" ids or
// {_key[,_rev]} objects. 200 if waitForSync else 202; missing -> 1202 inline
// plus the error-codes header (EX RestDocumentHandlerDeleteDocumentUnknownMulti).
func (s *server) remove(w http.ResponseWriter, r *http.Request, db *database, c *collection, t *transaction, urlKey string) {
	single := urlKey != ""
	ignoreRevs := boolParam(r, "ignoreRevs", true)
	returnOld := boolParam(r, "returnOld", false)
	silent := boolParam(r, "silent", false)
	waitForSync := boolParam(r, "waitForSync", false)

	var keys, expect []string
	var pre []int // errNum per element found while parsing
	if single {
		keys = []string{urlKey}
		expect = []string{strings.Trim(r.Header.Get("If-Match"), `"`)}
		pre = []int{0}
	} else {
		body, ok := parseBody(w, r)
		if !ok {
			return
		}
		if body[0] != '[' {
			writeError(w, 400, 1227, errMsgBadType)
			return
		}
		for _, e := range splitArray(body) {
			k, rev, n := selectorKey(c, e)
			if ignoreRevs {
				rev = ""
			}
			keys, expect, pre = append(keys, k), append(expect, rev), append(pre, n)
		}
	}
	n := len(keys)
	outs := make([]outcome, n)
	var injected []bool
	injNum := 0
	if !single {
		injected, injNum = s.faults.elementFailures(n)
	}
	var collWFS bool
	withStore(c, t, true, func(st docStore, wfs bool) {
		collWFS = wfs
		for i := range outs {
			o := &outs[i]
			switch {
			case injected != nil && injected[i]:
				o.fail(injNum, errorText(injNum))
				continue
			case pre[i] != 0:
				o.fail(pre[i], errMsgBadHandle)
				continue
			}
			old := st.get(keys[i])
			if old == nil {
				o.fail(1202, errMsgNotFound)
				continue
			}
			if expect[i] != "" && expect[i] != old.rev {
				o.fail(1200, errMsgRevMismatch)
				o.cur = old
				continue
			}
			st.del(old)
			o.key, o.rev, o.oldRaw = old.key, old.rev, old.raw
		}
	})
	status := 202
	if waitForSync || collWFS {
		status = 200
	}
	writeResults(w, r, db.name, c, single, outs, status, silent, returnOld, false)
}
