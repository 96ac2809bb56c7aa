package main

// POST /databases/<db>/bulk_docs (ravendb/ravendb BatchHandler /
// AbstractBatchHandlerProcessorForBulkDocs).
//
//   Content-Type absent or starting with application/json, otherwise
//   500 InvalidOperationException "The requested Content type '...' is not
//   supported" (multipart, used for attachments, is not supported by the double).
//   Body {"Commands":[{"Id","ChangeVector","Type":"PUT","Document":{...}},
//                     {"Id","ChangeVector","Type":"PATCH","Patch":{...}} (patch.go),
//                     {"Id","ChangeVector","Type":"DELETE"}], "TransactionMode":..}
//   The whole batch is ONE transaction: any failure stores nothing.
//   ChangeVector null/absent = upsert; "" = must be new; other = must match.
//   201 {"Results":[{"Type":"PUT","@id","@collection","@change-vector","@last-modified"},
//                   {"Id","Type":"DELETE","Deleted":bool}]}
//   409 {"Url","Type":"Raven.Client.Exceptions.ConcurrencyException","Message",..}
//   The Node client turns a 409 into ConcurrencyException(schema.message)
//   (ExceptionDispatcher._getConflictError), so Message is what users see.
//   waitForIndexesTimeout / waitForIndexThrow / waitForSpecificIndex and the
//   replica options are accepted. Indexes in the double are never stale unless the fault
//   indexLagMs says how long they take to catch up after a commit (waitForIndexes below).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

type putResult struct {
	Type         string `json:"Type"`
	ID           string `json:"@id"`
	Collection   string `json:"@collection"`
	ChangeVector string `json:"@change-vector"`
	LastModified string `json:"@last-modified"`
}

type deleteResult struct {
	ID      string `json:"Id"`
	Type    string `json:"Type"`
	Deleted bool   `json:"Deleted"`
}

type batchCommand struct {
	typ        string
	id         string
	cv         *string
	doc        json.RawMessage
	collection string
	patchField string  // PATCH (patch.go): the incremented field
	patchBy    float64 // and the increment
}

func (s *server) handleBulkDocs(w http.ResponseWriter, r *http.Request, db *database) {
	ct := r.Header.Get("Content-Type")
	if ct != "" && !strings.HasPrefix(strings.ToLower(ct), "application/json") {
		writeError(w, r, http.StatusInternalServerError, "System.InvalidOperationException",
			fmt.Sprintf("The requested Content type '%s' is not supported. Use 'application/json' or 'multipart/mixed'.", ct), "")
		return
	}

	var body io.Reader = r.Body
	drop := s.faults.shouldDrop()
	cut := !drop && s.faults.shouldCut()
	if drop {
		body = &dropReader{r: r.Body, limit: dropLimit(r)}
	}
	raw, err := io.ReadAll(body)
	if err != nil {
		if errors.Is(err, errDropped) {
			// The transaction never started: nothing from this batch is stored.
			hijackAndClose(w)
			return
		}
		writeError(w, r, http.StatusInternalServerError, "System.IO.IOException", "Failed to read the request body: "+err.Error(), "")
		return
	}

	cmds, txMode, err := parseBatch(raw)
	if err != nil {
		writeTxError(w, r, err)
		return
	}

	results := make([]any, 0, len(cmds))
	db.mu.Lock()
	t := db.begin(s.storeBodies)
	for _, c := range cmds {
		switch c.typ {
		case "PUT":
			d, err := t.put(c.id, c.doc, c.collection, c.cv)
			if err != nil {
				db.mu.Unlock()
				writeTxError(w, r, err)
				return
			}
			results = append(results, putResult{"PUT", d.id, d.collection, d.changeVector, d.lastModified.Format(lastModifiedFormat)})
		case "PATCH":
			res, err := t.patch(c)
			if err != nil {
				db.mu.Unlock()
				writeTxError(w, r, err)
				return
			}
			results = append(results, res)
		case "DELETE":
			deleted, err := t.del(c.id, c.cv)
			if err != nil {
				db.mu.Unlock()
				writeTxError(w, r, err)
				return
			}
			results = append(results, deleteResult{c.id, "DELETE", deleted})
		}
	}
	t.commit()
	etag := db.etag
	if lag := s.faults.get().IndexLagMs; lag > 0 {
		db.indexedAt = time.Now().Add(time.Duration(lag) * time.Millisecond)
	}
	indexedAt := db.indexedAt
	waitingFor := db.indexesOver(cmds)
	db.mu.Unlock()

	if cut {
		// cutAfterBodyRate (faults.go): committed, then the connection is lost, no answer.
		hijackAndClose(w)
		return
	}
	if !waitForIndexes(w, r, waitingFor, indexedAt, etag) {
		return
	}

	resp := map[string]any{"Results": results}
	if txMode == "ClusterWide" {
		// Cluster-wide transactions also return TransactionIndex (ravendb/docs batch-commands.markdown);
		// the Node session checks it is > 0.
		resp["TransactionIndex"] = s.raftIndex.Add(1)
	}
	writeJSON(w, http.StatusCreated, resp)
}

func writeTxError(w http.ResponseWriter, r *http.Request, err error) {
	var ce *concurrencyError
	if errors.As(err, &ce) {
		writeError(w, r, http.StatusConflict, "Raven.Client.Exceptions.ConcurrencyException", ce.msg, "")
		return
	}
	var ns *notSupportedError
	if errors.As(err, &ns) {
		writeError(w, r, http.StatusInternalServerError, "System.NotSupportedException", ns.msg, "")
		return
	}
	var df *diskFullError
	if errors.As(err, &df) {
		writeError(w, r, http.StatusInternalServerError, diskFullType, df.msg, "")
		return
	}
	writeError(w, r, http.StatusInternalServerError, "System.InvalidOperationException", err.Error(), "")
}

// parseBatch parses {"Commands":[...]} with case-sensitive property names.
func parseBatch(raw []byte) ([]batchCommand, string, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, "", fmt.Errorf("Could not parse the batch request body as a JSON object: %v", err)
	}
	cmdsRaw, ok := top["Commands"]
	if !ok {
		return nil, "", errors.New("Expected 'Commands' property in the batch request body")
	}
	var txMode string
	if tm, ok := top["TransactionMode"]; ok {
		_ = json.Unmarshal(tm, &txMode)
	}
	var list []map[string]json.RawMessage
	if err := json.Unmarshal(cmdsRaw, &list); err != nil {
		return nil, "", fmt.Errorf("'Commands' must be an array of command objects: %v", err)
	}
	cmds := make([]batchCommand, 0, len(list))
	for i, m := range list {
		var c batchCommand
		if t, ok := m["Type"]; ok {
			_ = json.Unmarshal(t, &c.typ)
		}
		var id *string
		if v, ok := m["Id"]; ok {
			if err := json.Unmarshal(v, &id); err != nil {
				return nil, "", fmt.Errorf("Command #%d: 'Id' must be a string", i)
			}
		}
		if id != nil {
			c.id = *id
		}
		if v, ok := m["ChangeVector"]; ok && !bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			var cv string
			if err := json.Unmarshal(v, &cv); err != nil {
				return nil, "", fmt.Errorf("Command #%d: 'ChangeVector' must be a string or null", i)
			}
			c.cv = &cv
		}
		switch c.typ {
		case "PUT":
			if c.id == "" {
				return nil, "", fmt.Errorf("Command #%d: PUT must have a non empty 'Id'", i)
			}
			doc, ok := m["Document"]
			if !ok || len(bytes.TrimSpace(doc)) == 0 || bytes.TrimSpace(doc)[0] != '{' {
				return nil, "", fmt.Errorf("Command #%d: PUT of '%s' must have a 'Document' object", i, c.id)
			}
			c.doc = doc
			coll, err := collectionOf(doc)
			if err != nil {
				return nil, "", fmt.Errorf("Command #%d: invalid document: %v", i, err)
			}
			c.collection = coll
		case "DELETE":
			if c.id == "" {
				return nil, "", fmt.Errorf("Command #%d: DELETE must have a non empty 'Id'", i)
			}
		case "PATCH":
			if err := parsePatch(i, &c, m); err != nil {
				return nil, "", err
			}
		case "":
			return nil, "", fmt.Errorf("Command #%d has no 'Type'", i)
		default:
			return nil, "", fmt.Errorf("Command type '%s' is not supported by the k6-writepath RavenDB test server (only PUT, PATCH and DELETE)", c.typ)
		}
		cmds = append(cmds, c)
	}
	return cmds, txMode, nil
}

// indexesOver: how many static indexes map a collection the batch wrote (a PATCH or DELETE,
// whose collection the double does not look up, counts every index). Callers hold db.mu.
func (db *database) indexesOver(cmds []batchCommand) int {
	colls := map[string]bool{}
	all := false
	for _, c := range cmds {
		if c.typ == "PUT" {
			colls[strings.ToLower(c.collection)] = true
		} else {
			all = true
		}
	}
	n := 0
	for _, ix := range db.indexes {
		hit := all || len(ix.collections) == 0
		for _, c := range ix.collections {
			hit = hit || colls[strings.ToLower(c)]
		}
		if hit {
			n++
		}
	}
	return n
}

// waitForIndexes follows ?waitForIndexesTimeout= after the commit, as the batch handler does
// (ravendb/ravendb v4.1 src/Raven.Server/Documents/Handlers/BatchHandler.cs: BulkDocs runs the
// merged command, then WaitForIndexesAsync). Indexes that have not caught up within the timeout
// make it throw System.TimeoutException (unless waitForIndexThrow=false), which
// RavenServerStartup maps to 408: the batch IS committed. Recorded from 4.1.0 (300 PUTs into a
// new database with one 3-field Map index over the collection, waitForIndexesTimeout=00:00:00.0010000):
//
//	HTTP/1.1 408 Request Timeout
//	{"Url":"/databases/rec408/bulk_docs?waitForIndexesTimeout=00:00:00.0010000","Type":"System.TimeoutException",
//	 "Message":"After waiting for 00:00:00.0117638, could not verify that 1 indexes has caught up with the changes as of etag: 300",
//	 "Error":"System.TimeoutException: … at Raven.Server.Documents.Handlers.BatchHandler.WaitForIndexesAsync(…) in …BatchHandler.cs:line 299 …"}
//
// and collections/stats then counted the 300 documents. Returns false when it answered.
func waitForIndexes(w http.ResponseWriter, r *http.Request, indexes int, indexedAt time.Time, etag int64) bool {
	q := r.URL.Query()
	timeout, ok := parseTimeSpan(q.Get("waitForIndexesTimeout"))
	if !ok || indexes == 0 {
		return true
	}
	began := time.Now()
	need := time.Until(indexedAt)
	if need <= timeout {
		if need > 0 {
			time.Sleep(need)
		}
		return true
	}
	time.Sleep(timeout)
	if strings.EqualFold(q.Get("waitForIndexThrow"), "false") {
		return true
	}
	writeErrorTrace(w, r, http.StatusRequestTimeout, "System.TimeoutException",
		fmt.Sprintf("After waiting for %s, could not verify that %d indexes has caught up with the changes as of etag: %d", timeSpan(time.Since(began)), indexes, etag),
		"   at Raven.Server.Documents.Handlers.BatchHandler.WaitForIndexesAsync(…) in C:\\Builds\\RavenDB-Stable-4.1\\src\\Raven.Server\\Documents\\Handlers\\BatchHandler.cs:line 299\n"+
			"   at Raven.Server.Documents.Handlers.BatchHandler.BulkDocs() in C:\\Builds\\RavenDB-Stable-4.1\\src\\Raven.Server\\Documents\\Handlers\\BatchHandler.cs:line 108")
	return false
}

// .NET TimeSpan's constant format: [d.]hh:mm:ss[.fffffff].
var timeSpanRe = regexp.MustCompile(`^(?:(\d+)\.)?(\d+):(\d+):(\d+)(?:\.(\d{1,7}))?$`)

func parseTimeSpan(v string) (time.Duration, bool) {
	m := timeSpanRe.FindStringSubmatch(v)
	if m == nil {
		return 0, false
	}
	n := func(s string) int64 { x, _ := strconv.ParseInt(s, 10, 64); return x }
	d := time.Duration(n(m[1]))*24*time.Hour + time.Duration(n(m[2]))*time.Hour + time.Duration(n(m[3]))*time.Minute + time.Duration(n(m[4]))*time.Second
	if m[5] != "" {
		d += time.Duration(n((m[5] + "0000000")[:7])) * 100 // ticks of 100 ns
	}
	return d, true
}

func timeSpan(d time.Duration) string {
	ticks := int64(d / 100)
	sec := ticks / 10_000_000
	return fmt.Sprintf("%02d:%02d:%02d.%07d", sec/3600, sec/60%60, sec%60, ticks%10_000_000)
}
