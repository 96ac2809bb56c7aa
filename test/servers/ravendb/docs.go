package main

// Single-document endpoints and HiLo (server DocumentHandler and the official clients).
//
//   GET  /databases/<db>/docs?id=a&id=b[&metadataOnly=true]
//        200 {"Results":[doc|null,...],"Includes":{}}; 404 (no body) when the
//        only requested id is missing; several ids -> null for missing ones.
//        An ETag header (hash of the change vectors) and If-None-Match -> 304.
//   POST /databases/<db>/docs  body {"Ids":[...]}: the Node client's fallback
//        when the ids are longer than 1024 chars (GetDocumentsCommand.prepareRequestWithMultipleIds).
//   GET  /databases/<db>/docs[?startsWith=p&start=0&pageSize=N]: listing
//        (etag descending without startsWith, id order with it).
//   PUT  /databases/<db>/docs?id=...  (If-Match: "<cv>") -> 201 {"Id","ChangeVector"}
//   DELETE /databases/<db>/docs?id=... (If-Match) -> 204
//   GET  /databases/<db>/hilo/next, PUT /databases/<db>/hilo/return: used by the
//        official clients to generate ids ("users/1-A"); HiLo documents are real
//        documents "Raven/Hilo/<tag>" in the "@hilo" collection, as on the server.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

func (s *server) handleGetDocs(w http.ResponseWriter, r *http.Request, db *database) {
	q := r.URL.Query()
	ids := q["id"]
	if r.Method == http.MethodPost {
		var body struct {
			Ids []string `json:"Ids"`
		}
		raw, _ := io.ReadAll(r.Body)
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			writeError(w, r, http.StatusBadRequest, "Raven.Client.Exceptions.BadRequestException", "Could not parse the request body: "+err.Error(), "")
			return
		}
		if v, ok := m["Ids"]; ok {
			_ = json.Unmarshal(v, &body.Ids)
		}
		ids = append(ids, body.Ids...)
	}
	metadataOnly := strings.EqualFold(q.Get("metadataOnly"), "true")

	if len(ids) == 0 {
		s.listDocs(w, r, db, metadataOnly)
		return
	}

	db.mu.RLock()
	found := make([]*document, len(ids))
	for i, id := range ids {
		found[i] = db.docs[strings.ToLower(id)]
	}
	db.mu.RUnlock()

	if len(ids) == 1 && found[0] == nil {
		writeEmpty(w, http.StatusNotFound)
		return
	}

	h := fnv.New64a()
	for _, d := range found {
		if d == nil {
			h.Write([]byte{0})
		} else {
			h.Write([]byte(d.changeVector))
		}
		h.Write([]byte{'|'})
	}
	etag := fmt.Sprintf("\"H:%d\"", h.Sum64())
	if inm := r.Header.Get("If-None-Match"); inm != "" && inm == etag {
		w.Header().Set("ETag", etag)
		writeEmpty(w, http.StatusNotModified)
		return
	}

	var buf bytes.Buffer
	buf.WriteString(`{"Results":[`)
	for i, d := range found {
		if i > 0 {
			buf.WriteByte(',')
		}
		if d == nil {
			buf.WriteString("null")
			continue
		}
		writeDoc(&buf, d, metadataOnly)
	}
	buf.WriteString(`],"Includes":{}}`)
	w.Header().Set("ETag", etag)
	writeJSON(w, http.StatusOK, &buf)
}

func writeDoc(buf *bytes.Buffer, d *document, metadataOnly bool) {
	if metadataOnly {
		md := *d
		md.raw = nil
		renderDocument(buf, &md)
		return
	}
	renderDocument(buf, d)
}

func (s *server) listDocs(w http.ResponseWriter, r *http.Request, db *database, metadataOnly bool) {
	q := r.URL.Query()
	start, _ := strconv.Atoi(q.Get("start"))
	pageSize, err := strconv.Atoi(q.Get("pageSize"))
	if err != nil || pageSize <= 0 {
		pageSize = int(^uint(0) >> 1)
	}
	prefix := strings.ToLower(q.Get("startsWith"))
	db.mu.RLock()
	all := make([]*document, 0, len(db.docs))
	for k, d := range db.docs {
		if prefix == "" || strings.HasPrefix(k, prefix) {
			all = append(all, d)
		}
	}
	db.mu.RUnlock()
	if prefix != "" {
		sort.Slice(all, func(i, j int) bool { return strings.ToLower(all[i].id) < strings.ToLower(all[j].id) })
	} else {
		sort.Slice(all, func(i, j int) bool { return all[i].etag > all[j].etag })
	}
	if start > len(all) {
		start = len(all)
	}
	all = all[start:]
	if len(all) > pageSize {
		all = all[:pageSize]
	}
	var buf bytes.Buffer
	buf.WriteString(`{"Results":[`)
	for i, d := range all {
		if i > 0 {
			buf.WriteByte(',')
		}
		writeDoc(&buf, d, metadataOnly)
	}
	buf.WriteString(`]}`)
	writeJSON(w, http.StatusOK, &buf)
}

func ifMatch(r *http.Request) *string {
	v := r.Header.Get("If-Match")
	if v == "" {
		return nil
	}
	v = strings.Trim(v, "\"")
	return &v
}

func (s *server) handlePutDoc(w http.ResponseWriter, r *http.Request, db *database) {
	id := r.URL.Query().Get("id")
	if id == "" {
		writeError(w, r, http.StatusBadRequest, "Raven.Client.Exceptions.BadRequestException", "Query string id is mandatory, but wasn't specified.", "")
		return
	}
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, r, http.StatusInternalServerError, "System.IO.IOException", "Failed to read the request body: "+err.Error(), "")
		return
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' || !json.Valid(raw) {
		writeError(w, r, http.StatusInternalServerError, "System.IO.InvalidDataException", "The document body must be a JSON object", "")
		return
	}
	coll, err := collectionOf(raw)
	if err != nil {
		writeError(w, r, http.StatusInternalServerError, "System.IO.InvalidDataException", "Invalid document: "+err.Error(), "")
		return
	}
	db.mu.Lock()
	t := db.begin(s.storeBodies)
	d, err := t.put(id, raw, coll, ifMatch(r))
	if err != nil {
		db.mu.Unlock()
		writeTxError(w, r, err)
		return
	}
	t.commit()
	db.mu.Unlock()
	writeJSON(w, http.StatusCreated, struct {
		ID           string `json:"Id"`
		ChangeVector string `json:"ChangeVector"`
	}{d.id, d.changeVector})
}

func (s *server) handleDeleteDoc(w http.ResponseWriter, r *http.Request, db *database) {
	id := r.URL.Query().Get("id")
	if id == "" {
		writeError(w, r, http.StatusBadRequest, "Raven.Client.Exceptions.BadRequestException", "Query string id is mandatory, but wasn't specified.", "")
		return
	}
	db.mu.Lock()
	t := db.begin(s.storeBodies)
	if _, err := t.del(id, ifMatch(r)); err != nil {
		db.mu.Unlock()
		writeTxError(w, r, err)
		return
	}
	t.commit()
	db.mu.Unlock()
	writeEmpty(w, http.StatusNoContent)
}

// handleHiloNext: GET hilo/next?tag=users&lastBatchSize=..&lastRangeAt=..&identityPartsSeparator=/&lastMax=..
// -> {"Prefix":"users/","Low":1,"High":32,"LastSize":32,"ServerTag":"A","LastRangeAt":".."}
// (NextHiloCommand / HiloIdGenerator read prefix, low, high, lastSize, serverTag, lastRangeAt).
// Capacity: 32, doubled (up to 1M) when the previous range was taken less than
// a minute ago — a simplification of the server's HiLoHandler.
func (s *server) handleHiloNext(w http.ResponseWriter, r *http.Request, db *database) {
	q := r.URL.Query()
	tag := q.Get("tag")
	if tag == "" {
		writeError(w, r, http.StatusBadRequest, "Raven.Client.Exceptions.BadRequestException", "Query string tag is mandatory, but wasn't specified.", "")
		return
	}
	sep := q.Get("identityPartsSeparator")
	if sep == "" {
		sep = "/"
	}
	lastSize, _ := strconv.ParseInt(q.Get("lastBatchSize"), 10, 64)
	lastMax, _ := strconv.ParseInt(q.Get("lastMax"), 10, 64)
	capacity := int64(32)
	if lastSize > 0 {
		capacity = lastSize
		if at, err := time.Parse(time.RFC3339Nano, q.Get("lastRangeAt")); err == nil && time.Since(at) < time.Minute {
			capacity = min(lastSize*2, 1024*1024)
		}
	}
	hiloID := "Raven/Hilo/" + tag
	db.mu.Lock()
	var oldMax int64
	if d := db.docs[strings.ToLower(hiloID)]; d != nil && d.raw != nil {
		var v struct{ Max int64 }
		_ = json.Unmarshal(d.raw, &v)
		oldMax = v.Max
	} else if d != nil {
		oldMax = db.identities["@hilo:"+strings.ToLower(tag)]
	}
	oldMax = max(oldMax, lastMax)
	newMax := oldMax + capacity
	s.writeHilo(db, hiloID, tag, newMax)
	db.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{
		"Prefix": tag + sep, "Low": oldMax + 1, "High": newMax, "LastSize": capacity,
		"ServerTag": nodeTag, "LastRangeAt": time.Now().UTC().Format(lastModifiedFormat),
	})
}

// writeHilo stores the HiLo document; the caller holds db.mu.
func (s *server) writeHilo(db *database, hiloID, tag string, maxVal int64) {
	t := db.begin(true)
	_, _ = t.put(hiloID, []byte(fmt.Sprintf(`{"Max":%d,"@metadata":{"@collection":"@hilo"}}`, maxVal)), "@hilo", nil)
	t.commit()
	db.identities["@hilo:"+strings.ToLower(tag)] = maxVal
}

// handleHiloReturn: PUT hilo/return?tag=&end=&last= gives back an unused range
// when the document store is disposed (HiloReturnCommand).
func (s *server) handleHiloReturn(w http.ResponseWriter, r *http.Request, db *database) {
	q := r.URL.Query()
	tag := q.Get("tag")
	end, _ := strconv.ParseInt(q.Get("end"), 10, 64)
	last, _ := strconv.ParseInt(q.Get("last"), 10, 64)
	hiloID := "Raven/Hilo/" + tag
	db.mu.Lock()
	if cur, ok := db.identities["@hilo:"+strings.ToLower(tag)]; ok && cur == end && db.docs[strings.ToLower(hiloID)] != nil {
		s.writeHilo(db, hiloID, tag, last)
	}
	db.mu.Unlock()
	writeEmpty(w, http.StatusNoContent)
}
