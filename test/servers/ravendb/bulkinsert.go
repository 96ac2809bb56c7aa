package main

// Bulk insert (ravendb/ravendb BulkInsertHandler and AbstractBulkInsertHandlerProcessor) and the operations it registers.
//
// Wire protocol, as read by the server's BatchRequestParser /
// AbstractBulkInsertBatchCommandsReader:
//   POST /databases/<db>/bulk_insert?id=<operation id>[&skipOverwriteIfUnchanged=true|false]
//   body: ONE JSON array of commands, read as a stream (chunked or with
//   Content-Length — nothing checks Transfer-Encoding); Content-Encoding: gzip
//   is decompressed, anything else (deflate!) is parsed as-is and fails.
//   {"Id":"users/1","Type":"PUT","Document":{...,"@metadata":{"@collection":"Users"}}}
//   Property names and Type values are case-sensitive; unknown properties are
//   skipped; ChangeVector is ignored (bulk insert always overwrites).
//   {"Type":"HeartBeat"} is a no-op.
//   Success: 201 with an empty body. Failure: 500 {"Url","Type":
//   "System.InvalidOperationException","Message":"Failed to process bulk
//   insert. Inserted 1,000 items in 1 batches. Last document ID: 'K999'","Error"}
//   with Connection: close, and the operation is Faulted (whatever the cause,
//   a kill through operations/kill included: the processor wraps every
//   exception in that InvalidOperationException, so the task faults).
//   Sources (ravendb/ravendb): the processor's catch block in
//   src/Raven.Server/Documents/Handlers/Processors/BulkInsert/AbstractBulkInsertHandlerProcessor.cs
//   (commit 27c4748a), the progress text BulkInsertProgress.ToString() in
//   src/Raven.Client/Documents/Operations/IOperationProgress.cs (6.x/7.x:
//   "Inserted {Total:#,#;;0} items in {BatchCount:#,#;;0} batches." plus
//   " Last document ID: '{LastProcessedId}'" once a batch was committed), and
//   the operation state in src/Raven.Server/Documents/Operations/AbstractOperations.cs
//   (Faulted: Progress null, Result = OperationExceptionResult of that exception,
//   StatusCode 500). Total and BatchCount grow only when a batch is committed;
//   DocumentsProcessed counts every PUT read from the body, committed or not.
//
// Choices of this double (noted in the report):
//   - Counters / TimeSeriesBulkInsert / TimeSeries / AttachmentPUT commands are
//     rejected with the 500 above (the real server accepts them; our k6
//     scenarios never send them).
//   - Batches are committed every -bulk-commit-ops operations (default 1000)
//     instead of 16 MB / 8192 ops / 5 ms idle, so partial commits are testable.
//   - skipOverwriteIfUnchanged is parsed (bool.TryParse, case-insensitive) but
//     every PUT is written (an unchanged document would get a new change vector).

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

type operation struct {
	id      int64
	kind    string
	mu      sync.Mutex
	status  string // InProgress | Completed | Faulted
	total   int64  // commands committed (BulkInsertProgress.Total)
	batches int64  // batches committed (BatchCount)
	lastID  string // id of the last committed command (LastProcessedId)
	docs    int64  // PUT commands read, committed or not (DocumentsProcessed)
	errType string
	errMsg  string
	errText string
	started time.Time
	cancel  context.CancelFunc
}

func (db *database) registerOperation(id int64, kind string, cancel context.CancelFunc) *operation {
	op := &operation{id: id, kind: kind, status: "InProgress", started: time.Now().UTC(), cancel: cancel}
	db.opsMu.Lock()
	db.ops[id] = op
	db.opsMu.Unlock()
	return op
}

func (db *database) getOperation(id int64) *operation {
	db.opsMu.Lock()
	defer db.opsMu.Unlock()
	return db.ops[id]
}

// GET /databases/<db>/operations/next-operation-id -> {"Id":N,"NodeTag":"A"}
// (OperationsHandler; clients read Id and NodeTag: Python client bulkinsert.py GetNextOperationIdCommand).
func (s *server) handleNextOperationID(w http.ResponseWriter, r *http.Request, db *database) {
	db.opsMu.Lock()
	db.nextOp++
	id := db.nextOp
	db.opsMu.Unlock()
	writeJSON(w, http.StatusOK, struct {
		ID      int64  `json:"Id"`
		NodeTag string `json:"NodeTag"`
	}{id, nodeTag})
}

// operationOf finds the operation named by ?id=, or answers 400 (no valid id) / 404 (unknown
// id, no body) and returns nil.
func operationOf(w http.ResponseWriter, r *http.Request, db *database) *operation {
	id, err := strconv.ParseInt(r.URL.Query().Get("id"), 10, 64)
	if err != nil {
		writeError(w, r, http.StatusBadRequest, "Raven.Client.Exceptions.BadRequestException",
			"Query string id is mandatory, but wasn't specified or is not a valid long.", "")
		return nil
	}
	op := db.getOperation(id)
	if op == nil {
		writeEmpty(w, http.StatusNotFound)
	}
	return op
}

// GET /databases/<db>/operations/state?id=N
// {"Status":..,"Result":..,"Progress":..}; unknown id -> 404 with no body.
func (s *server) handleOperationState(w http.ResponseWriter, r *http.Request, db *database) {
	op := operationOf(w, r, db)
	if op == nil {
		return
	}
	writeJSON(w, http.StatusOK, op.state())
}

// BulkInsertProgress.ToJson() (IOperationProgress.cs): Processed is the obsolete alias of
// DocumentsProcessed.
type bulkInsertProgress struct {
	Type                 string `json:"$type"`
	Total                int64  `json:"Total"`
	BatchCount           int64  `json:"BatchCount"`
	LastProcessedId      any    `json:"LastProcessedId"`
	Processed            int64  `json:"Processed"`
	DocumentsProcessed   int64  `json:"DocumentsProcessed"`
	AttachmentsProcessed int64  `json:"AttachmentsProcessed"`
	CountersProcessed    int64  `json:"CountersProcessed"`
	TimeSeriesProcessed  int64  `json:"TimeSeriesProcessed"`
}

func (op *operation) state() map[string]any {
	op.mu.Lock()
	defer op.mu.Unlock()
	st := map[string]any{"Status": op.status, "Result": nil, "Progress": nil}
	switch op.status {
	case "InProgress":
		var last any
		if op.lastID != "" {
			last = op.lastID
		}
		st["Progress"] = bulkInsertProgress{Type: "Raven.Client.Documents.Operations.BulkInsertProgress, Raven.Client",
			Total: op.total, BatchCount: op.batches, LastProcessedId: last, Processed: op.docs, DocumentsProcessed: op.docs}
	case "Completed":
		if op.kind == deleteByQueryKind {
			st["Result"] = map[string]any{
				"$type":   "Raven.Client.Documents.Operations.BulkOperationResult, Raven.Client",
				"Total":   op.total,
				"Message": fmt.Sprintf("Processed %d items.", op.total),
				"Details": []any{},
				"Query":   nil,
			}
			break
		}
		st["Result"] = map[string]any{
			"$type":                "Raven.Client.Documents.Operations.BulkInsertResult, Raven.Client",
			"Total":                op.total,
			"DocumentsProcessed":   op.docs,
			"AttachmentsProcessed": 0,
			"CountersProcessed":    0,
			"TimeSeriesProcessed":  0,
		}
	case "Faulted":
		st["Result"] = map[string]any{
			"$type":      "Raven.Client.Documents.Operations.OperationExceptionResult, Raven.Client",
			"Type":       op.errType,
			"Message":    op.errMsg,
			"Error":      op.errText,
			"StatusCode": 500,
		}
	}
	return st
}

// failureText is the Message of a failed bulk insert, in the words of the server's generation:
//   - 6.x/7.x: "Failed to process bulk insert. " + BulkInsertProgress.ToString()
//     (IOperationProgress.cs): .NET's "#,#;;0" prints thousands separators (the invariant
//     culture's ",") and "0" for zero.
//   - 4.x (ravendb/ravendb v4.1 src/Raven.Server/Documents/Handlers/BulkInsertHandler.cs, and
//     its BulkInsertProgress.ToString()): "Failed to process bulk insert " + "Inserted {n}
//     documents in {b} batches." + " Last document id: '{id}'" once a batch was committed.
//     Recorded from 4.1.0 (5 000 PUTs then a PATCH without 'Patch'): POST answered 500 with
//     Connection: close, Message "Failed to process bulk insert Inserted 4759 documents in 7
//     batches. Last document id: 'K4758'", the operation state Faulted with the same Message
//     and StatusCode 500, and collections/stats counted 4759; with nothing committed: "Failed
//     to process bulk insert Inserted 0 documents in 0 batches."
func (op *operation) failureText(form string) string {
	if form == "4.x" {
		msg := fmt.Sprintf("Failed to process bulk insert Inserted %d documents in %d batches.", op.total, op.batches)
		if op.lastID != "" {
			msg += fmt.Sprintf(" Last document id: '%s'", op.lastID)
		}
		return msg
	}
	msg := fmt.Sprintf("Failed to process bulk insert. Inserted %s items in %s batches.", thousands(op.total), thousands(op.batches))
	if op.lastID != "" {
		msg += fmt.Sprintf(" Last document ID: '%s'", op.lastID)
	}
	return msg
}

// bulkInsertForm: the failure text's generation, bulkInsertText or else by -version.
func (s *server) bulkInsertForm() string {
	if f := s.faults.get().BulkInsertText; f != "" {
		return f
	}
	if strings.HasPrefix(s.version, "4.") {
		return "4.x"
	}
	return "6.x"
}

// thousands formats n like .NET's "#,#;;0" under the invariant culture: 0 -> "0",
// 1234567 -> "1,234,567".
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// POST /databases/<db>/operations/kill?id=N -> 204 (KillOperationCommand).
// Unknown id -> 404 (the Node client then reports "Unable to kill bulk insert
// operation, because it was not found on the server").
func (s *server) handleKillOperation(w http.ResponseWriter, r *http.Request, db *database) {
	op := operationOf(w, r, db)
	if op == nil {
		return
	}
	if op.cancel != nil {
		op.cancel()
	}
	writeEmpty(w, http.StatusNoContent)
}

// bulkCommand is one parsed command of the bulk insert array.
type bulkCommand struct {
	id         string
	typ        string
	doc        json.RawMessage
	collection string
}

// bulkInsertError carries the inner exception of a failed bulk insert.
type bulkInsertError struct {
	typ string
	msg string
}

func (e *bulkInsertError) Error() string { return e.typ + ": " + e.msg }

func (s *server) handleBulkInsert(w http.ResponseWriter, r *http.Request, db *database) {
	q := r.URL.Query()
	idStr := q.Get("id")
	if idStr == "" {
		// GetLongQueryString("id") is required (BulkInsertHandler.cs).
		writeError(w, r, http.StatusBadRequest, "Raven.Client.Exceptions.BadRequestException",
			"Query string id is mandatory, but wasn't specified.", "")
		return
	}
	opID, err := strconv.ParseInt(idStr, 10, 64)
	if err != nil {
		writeError(w, r, http.StatusBadRequest, "Raven.Client.Exceptions.BadRequestException",
			fmt.Sprintf("Could not parse query string 'id' header as long, value: %s", idStr), "")
		return
	}
	if v := q.Get("skipOverwriteIfUnchanged"); v != "" {
		if _, err := strconv.ParseBool(strings.ToLower(v)); err != nil {
			writeError(w, r, http.StatusBadRequest, "Raven.Client.Exceptions.BadRequestException",
				fmt.Sprintf("Could not parse query string 'skipOverwriteIfUnchanged' as bool, value: %s", v), "")
			return
		}
	}

	if d := s.faults.get().BulkStartDelayMs; d > 0 {
		time.Sleep(time.Duration(d) * time.Millisecond) // bulkStartDelayMs (faults.go): the handler runs late
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	op := db.registerOperation(opID, "BulkInsert", cancel)

	drop := s.faults.shouldDrop()
	cut := !drop && s.faults.shouldCut()
	var body io.Reader = r.Body
	if drop {
		body = &dropReader{r: r.Body, limit: dropLimit(r)}
	}

	err = s.runBulkInsert(ctx, body, r.Header.Get("Content-Encoding"), db, op)
	if err == nil {
		op.mu.Lock()
		op.status = "Completed"
		op.mu.Unlock()
		if cut {
			// cutAfterBodyRate: everything read and committed, the answer lost.
			hijackAndClose(w)
			return
		}
		// 201 Created and no body (the processor sets 201 Created and writes nothing).
		w.Header().Del("Content-Type")
		w.Header().Set("Content-Length", "0")
		w.WriteHeader(http.StatusCreated)
		return
	}

	inner := err.Error()
	op.mu.Lock()
	msg := op.failureText(s.bulkInsertForm())
	op.status = "Faulted"
	op.errType = "System.InvalidOperationException"
	op.errMsg = msg
	op.errText = "System.InvalidOperationException: " + msg + "\n ---> " + inner
	op.mu.Unlock()

	if errors.Is(err, errDropped) {
		hijackAndClose(w)
		return
	}
	w.Header().Set("Connection", "close")
	writeError(w, r, http.StatusInternalServerError, "System.InvalidOperationException", msg, inner)
}

// runBulkInsert parses the array command by command with json.Decoder
// Token/More (never reading the whole body) and commits every bulkCommitOps.
func (s *server) runBulkInsert(ctx context.Context, body io.Reader, contentEncoding string, db *database, op *operation) error {
	// Only gzip is recognized (RequestHandler.GetDecompressedStream, 4.x/5.x HeadersAllowGzip);
	// other encodings fall through and the compressed bytes fail to parse as JSON.
	if strings.Contains(strings.ToLower(contentEncoding), "gzip") {
		gz, err := gzip.NewReader(body)
		if err != nil {
			if errors.Is(err, errDropped) {
				return err
			}
			return &bulkInsertError{"System.IO.InvalidDataException", "The archive entry was compressed using an unsupported compression method: " + err.Error()}
		}
		defer gz.Close()
		body = gz
	}
	dec := json.NewDecoder(body)
	dec.UseNumber()

	tok, err := dec.Token()
	if err != nil {
		return parseErr(err, "Expected start of array, but got end of stream or invalid JSON")
	}
	if tok != json.Delim('[') {
		return &bulkInsertError{"System.InvalidOperationException", fmt.Sprintf("Expected start of array, but got %v", tok)}
	}

	batch := make([]bulkCommand, 0, s.bulkCommitOps)
	for dec.More() {
		if ctx.Err() != nil {
			return &bulkInsertError{"System.OperationCanceledException", "The operation was canceled."}
		}
		cmd, err := readBulkCommand(dec)
		if err != nil {
			return err
		}
		if cmd.typ == "HeartBeat" {
			continue
		}
		op.mu.Lock()
		op.docs++ // counted when read (the server's DocumentsProcessed), before any commit
		op.mu.Unlock()
		batch = append(batch, cmd)
		if len(batch) >= s.bulkCommitOps {
			if err := s.commitBulkBatch(db, op, batch); err != nil {
				return err
			}
			batch = batch[:0]
		}
	}
	if _, err := dec.Token(); err != nil { // the closing ']'
		return parseErr(err, "Unexpected end of stream while reading the bulk insert array")
	}
	if ctx.Err() != nil {
		return &bulkInsertError{"System.OperationCanceledException", "The operation was canceled."}
	}
	if len(batch) > 0 {
		if err := s.commitBulkBatch(db, op, batch); err != nil {
			return err
		}
	}
	return nil
}

func parseErr(err error, what string) error {
	if errors.Is(err, errDropped) {
		return err
	}
	var bie *bulkInsertError
	if errors.As(err, &bie) {
		return err
	}
	return &bulkInsertError{"Sparrow.Json.Parsing.InvalidStartOfObjectException", what + ": " + err.Error()}
}

// readBulkCommand reads one {"Id":..,"Type":..,"Document":..} object with
// case-sensitive property names (the server compares bytes, GetPropertyType).
func readBulkCommand(dec *json.Decoder) (bulkCommand, error) {
	var cmd bulkCommand
	tok, err := dec.Token()
	if err != nil {
		return cmd, parseErr(err, "Invalid JSON in bulk insert command")
	}
	if tok != json.Delim('{') {
		return cmd, &bulkInsertError{"System.InvalidOperationException", fmt.Sprintf("Expected start of object, but got %v", tok)}
	}
	hasID := false
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return cmd, parseErr(err, "Invalid JSON in bulk insert command")
		}
		key, _ := kt.(string)
		switch key {
		case "Id":
			var v *string
			if err := dec.Decode(&v); err != nil {
				return cmd, parseErr(err, "Expected string for 'Id'")
			}
			if v != nil {
				cmd.id = *v
				hasID = true
			}
		case "Type":
			var v string
			if err := dec.Decode(&v); err != nil {
				return cmd, parseErr(err, "Expected string for 'Type'")
			}
			cmd.typ = v
		case "Document":
			if err := dec.Decode(&cmd.doc); err != nil {
				return cmd, parseErr(err, "Invalid JSON in 'Document'")
			}
		default:
			// Unknown properties (and ChangeVector, which bulk insert ignores) are skipped.
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return cmd, parseErr(err, "Invalid JSON in bulk insert command")
			}
		}
	}
	if _, err := dec.Token(); err != nil {
		return cmd, parseErr(err, "Invalid JSON in bulk insert command")
	}
	switch cmd.typ {
	case "HeartBeat":
		return cmd, nil
	case "PUT":
	case "Counters", "TimeSeries", "TimeSeriesBulkInsert", "AttachmentPUT":
		return cmd, &bulkInsertError{"System.NotSupportedException", fmt.Sprintf("Command type '%s' is not supported by the k6-writepath RavenDB test server (only PUT and HeartBeat)", cmd.typ)}
	case "":
		return cmd, &bulkInsertError{"System.InvalidOperationException", "Command must have a 'Type' property"}
	default:
		return cmd, &bulkInsertError{"System.InvalidOperationException", fmt.Sprintf("The command type %s is not supported", cmd.typ)}
	}
	if !hasID || cmd.id == "" {
		return cmd, &bulkInsertError{"System.InvalidOperationException", "Command PUT must have a non empty 'Id' property"}
	}
	if len(cmd.doc) == 0 || cmd.doc[0] != '{' {
		return cmd, &bulkInsertError{"System.InvalidOperationException", fmt.Sprintf("Command PUT for document '%s' must have a 'Document' object", cmd.id)}
	}
	coll, err := collectionOf(cmd.doc)
	if err != nil {
		return cmd, &bulkInsertError{"System.InvalidOperationException", "Invalid document: " + err.Error()}
	}
	cmd.collection = coll
	return cmd, nil
}

// commitBulkBatch writes one batch in one transaction. Bulk insert ignores
// change vectors: DocumentsStorage.Put(context, id, null, doc) is
// unconditional. If a document would change collection the server's Put throws
// InvalidOperationException, which aborts that batch and fails the bulk insert;
// we do the same (earlier batches stay committed).
func (s *server) commitBulkBatch(db *database, op *operation, batch []bulkCommand) error {
	db.mu.Lock()
	t := db.begin(s.storeBodies)
	for i := range batch {
		c := &batch[i]
		if _, err := t.put(c.id, c.doc, c.collection, nil); err != nil {
			db.mu.Unlock()
			var df *diskFullError
			if errors.As(err, &df) {
				return &bulkInsertError{diskFullType, df.msg}
			}
			return &bulkInsertError{"System.InvalidOperationException", err.Error()}
		}
	}
	t.commit()
	db.mu.Unlock()
	n := int64(len(batch))
	op.mu.Lock()
	op.total += n
	op.batches++
	op.lastID = batch[len(batch)-1].id
	op.mu.Unlock()
	return nil
}
