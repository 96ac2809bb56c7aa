package main

import (
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
)

// deleteByQueryKind names the operation DELETE /databases/<db>/queries registers.
const deleteByQueryKind = "DeleteByQuery"

// fromCollection is the one query form this server runs: "from <Collection>".
var fromCollection = regexp.MustCompile(`^\s*from\s+([A-Za-z_@][A-Za-z0-9_]*)\s*$`)

// DELETE /databases/<db>/queries body {"Query":"from Docs"}: delete by query, as recorded on the
// real 4.1.0 (scripts/raven-private.sh): 200 {"OperationId":N}; GET operations/state?id=N then
// answers Completed with a BulkOperationResult {"Total":2,"Message":"Processed 2 items.",
// "Details":[],"Query":null} (Total 0 for a collection that holds nothing); a query that does
// not parse answers 500 QueryParser+ParseException ("1:1 Expected FROM clause but got: frm").
// Here the deletion is done before the answer, so the operation is Completed at once.
func (s *server) handleDeleteByQuery(w http.ResponseWriter, r *http.Request, db *database) {
	raw, _ := io.ReadAll(r.Body)
	var q struct{ Query string }
	_ = json.Unmarshal(raw, &q)
	m := fromCollection.FindStringSubmatch(q.Query)
	if m == nil {
		writeError(w, r, http.StatusInternalServerError, "Raven.Server.Documents.Queries.Parser.QueryParser+ParseException",
			"this test server runs only 'from <Collection>' (Query: "+q.Query+")", "")
		return
	}
	coll := strings.ToLower(m[1])
	db.mu.Lock()
	t := db.begin(s.storeBodies)
	var n int64
	for key, d := range db.docs {
		if d != nil && strings.ToLower(d.collection) == coll {
			if ok, _ := t.del(key, nil); ok {
				n++
			}
		}
	}
	t.commit()
	db.mu.Unlock()
	db.opsMu.Lock()
	db.nextOp++
	id := db.nextOp
	db.opsMu.Unlock()
	op := db.registerOperation(id, deleteByQueryKind, nil)
	op.mu.Lock()
	op.total = n
	op.status = "Completed"
	op.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"OperationId": id})
}
