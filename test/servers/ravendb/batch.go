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
//   replica options are accepted: indexes in the double are never stale.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
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
	db.mu.Unlock()

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
