package mongo

// The MongoDB exchanges of docs/gateway.md, one per operation lib/targets/mongodb/mongodb.js sends,
// with its option fields (writeOptions), result objects (resultObject) and error objects
// (errorObject). A call that is wrong in itself (bad options, a body that is no batch) is a
// 400 refusal.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/version"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"

	"github.com/k6-writepath/k6-writepath/gateway/internal/wire"
	"github.com/k6-writepath/k6-writepath/gateway/render"
)

// APIVersion changes when the calls change (lib/targets/mongodb/mongodb.js checks it); the k6
// module's calls were version 1 and these answer the same.
const APIVersion = 1

// Service answers the MongoDB exchanges for one MONGO_URL ("" when unset).
type Service struct {
	rawURL string
	redact *wire.Redactor
	// Images: the body images rendered bodies are made from (render=1; docs/gateway.md).
	Images *render.Store

	handles *wire.Handles[*Client]
}

// New returns the service for rawURL (MONGO_URL; "" = not configured: every exchange but
// parse-batch answers a config error naming MONGO_URL).
func New(rawURL string) *Service {
	return &Service{Images: render.NewStore(), rawURL: rawURL, redact: wire.NewRedactor("***", secretsOf(rawURL)...), handles: wire.NewHandles[*Client]("m", "MongoDB handle", "/mongo/connect")}
}

// Configured: MONGO_URL is set.
func (s *Service) Configured() bool { return s.rawURL != "" }

type handler func(http.ResponseWriter, *http.Request, *wire.Timing) *wire.Refusal

// Register adds the exchanges to mux.
func (s *Service) Register(mux *http.ServeMux) {
	mux.HandleFunc("/mongo/connect", s.endpoint(s.connect, true))
	mux.HandleFunc("/mongo/write", s.endpoint(s.write, true))
	mux.HandleFunc("/mongo/update", s.endpoint(s.update, true))
	mux.HandleFunc("/mongo/command", s.endpoint(s.command, true))
	mux.HandleFunc("/mongo/find", s.endpoint(s.find, true))
	mux.HandleFunc("/mongo/count", s.endpoint(s.count, true))
	mux.HandleFunc("/mongo/close", s.endpoint(s.close, true))
	mux.HandleFunc("/mongo/parse-batch", s.endpoint(s.parseBatch, false))
}

// Close releases every handle (the gateway's shutdown): the last user of a driver Client
// disconnects it.
func (s *Service) Close() {
	for _, c := range s.handles.TakeAll() {
		c.Close()
	}
}

func (s *Service) endpoint(f handler, needsURL bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		t := wire.Start()
		if r.Method != http.MethodPost {
			wire.Fail(w, t, wire.Refuse(wire.KindInput, "%s %s: only POST is answered", r.Method, r.URL.Path))
			return
		}
		if needsURL && !s.Configured() {
			wire.Fail(w, t, wire.Refuse(wire.KindConfig, "MONGO_URL is not set in the gateway's environment"))
			return
		}
		if ref := f(w, r, t); ref != nil {
			ref.Message = s.redact.Redact(ref.Message)
			wire.Fail(w, t, ref)
		}
	}
}

func (s *Service) client(r *http.Request) (*Client, *wire.Refusal) {
	return s.handles.Of(r)
}

// readJSON decodes the body into v (an empty body = all defaults when allowEmpty).
func readJSON(r *http.Request, v any, allowEmpty bool) *wire.Refusal {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return wire.Refuse(wire.KindInput, "reading the body: %v", err)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		if allowEmpty {
			return nil
		}
		return wire.Refuse(wire.KindInput, "a JSON body is required")
	}
	if err := json.Unmarshal(body, v); err != nil {
		return wire.Refuse(wire.KindInput, "the body is not the JSON expected: %v", err)
	}
	return nil
}

func num(m map[string]any, k string) (float64, bool) {
	switch x := m[k].(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case int:
		return float64(x), true
	}
	return 0, false
}

func ms(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }

// CheckURL: why the driver refuses MONGO_URL (connstring.ParseAndValidate, the check Open
// makes first), as one line that never shows the password, or "" when it takes it.
func (s *Service) CheckURL() string {
	// (a name that does not resolve is the server out of reach, said by the run's setup)
	if _, err := connstring.ParseAndValidate(s.rawURL); err != nil && !lookupFailed(err) {
		return "MONGO_URL (value not shown) is not allowed: " + redactWith(quoted.ReplaceAllString(err.Error(), "(…)"), secretsOf(s.rawURL))
	}
	return ""
}

// connect {appName, serverSelectionTimeoutMs, connectTimeoutMs} -> {handle, driverVersion,
// apiVersion, url}. (the shape the k6 module of earlier releases returned.)
func (s *Service) connect(w http.ResponseWriter, r *http.Request, t *wire.Timing) *wire.Refusal {
	var o map[string]any
	if ref := readJSON(r, &o, true); ref != nil {
		return ref
	}
	co := ConnectOptions{AppName: "k6-writepath"}
	if v, ok := o["appName"].(string); ok {
		co.AppName = v
	}
	if v, ok := num(o, "serverSelectionTimeoutMs"); ok && v > 0 {
		co.ServerSelectionTimeout = ms(v)
	}
	if v, ok := num(o, "connectTimeoutMs"); ok && v > 0 {
		co.ConnectTimeout = ms(v)
	}
	var c *Client
	var err error
	t.Driver(func() { c, err = Open(s.rawURL, co) })
	var lookup *LookupError
	if errors.As(err, &lookup) {
		return wire.Refuse(wire.KindServer, "%s", lookup.msg)
	}
	if err != nil {
		// Open's message never holds the password; the URL is the gateway's configuration.
		return wire.Refuse(wire.KindConfig, "MONGO_URL (value not shown) is not allowed: %s", err.Error())
	}
	id := s.handles.Add(c)
	wire.Answer(w, t, map[string]any{"handle": id, "driverVersion": version.Driver, "apiVersion": APIVersion, "url": urlConcern(s.rawURL)})
	return nil
}

// urlConcern: the write concern and retryWrites that the URL itself sets (null where it sets
// none), read with the driver's own parser. wtimeoutMS is reported as written: driver v2
// no longer applies it (its connstring keeps it among UnknownOptions; mongo-driver v2
// x/mongo/driver/connstring/connstring.go), so a report can show that it is ignored.
func urlConcern(raw string) map[string]any {
	out := map[string]any{"w": nil, "j": nil, "wtimeoutMs": nil, "retryWrites": nil}
	cs, err := connstring.Parse(raw)
	if err != nil {
		return out
	}
	if cs.WNumberSet {
		out["w"] = cs.WNumber
	} else if cs.WString != "" {
		out["w"] = cs.WString
	}
	if cs.JSet {
		out["j"] = cs.J
	}
	if vs := cs.UnknownOptions["wtimeoutms"]; len(vs) > 0 {
		if n, err := strconv.ParseInt(vs[len(vs)-1], 10, 64); err == nil {
			out["wtimeoutMs"] = n
		} else {
			out["wtimeoutMs"] = vs[len(vs)-1]
		}
	}
	if cs.RetryWritesSet {
		out["retryWrites"] = cs.RetryWrites
	}
	return out
}

// writeOptions: the options of a write (a bad one is a refusal).
func writeOptions(m map[string]any) (WriteOptions, *wire.Refusal) {
	o := WriteOptions{Timeout: 60 * time.Second}
	if m == nil {
		return o, nil
	}
	if b, ok := m["ordered"].(bool); ok {
		o.Ordered = b
	}
	if b, ok := m["upsert"].(bool); ok {
		o.Upsert = b
	}
	switch w := m["w"].(type) {
	case nil:
	case string:
		o.W = w
	case float64:
		if w != math.Trunc(w) || w < 0 {
			return o, wire.Refuse(wire.KindInput, "w must be a whole number or a string, not %v", w)
		}
		o.W = fmt.Sprint(int64(w))
	default:
		return o, wire.Refuse(wire.KindInput, "w must be a whole number or a string")
	}
	if j, ok := m["j"].(bool); ok {
		o.J = &j
	}
	if v, ok := num(m, "timeoutMs"); ok {
		if v <= 0 {
			return o, wire.Refuse(wire.KindInput, "timeoutMs must be above 0")
		}
		o.Timeout = ms(v)
	}
	if s, ok := m["collectionUUID"].(string); ok && s != "" {
		u, err := base64.StdEncoding.DecodeString(s)
		if err != nil || len(u) != 16 {
			return o, wire.Refuse(wire.KindInput, "collectionUUID must be the base64 text of 16 bytes")
		}
		o.CollectionUUID = u
	}
	return o, nil
}

func timeoutOf(m map[string]any) time.Duration {
	if v, ok := num(m, "timeoutMs"); ok && v > 0 {
		return ms(v)
	}
	return 60 * time.Second
}

// document: a JSON value given as an object or as its text -> BSON, read as
// (relaxed) extended JSON, so the key order of the request is kept. null/absent -> nil.
func document(raw json.RawMessage, what string) (bson.Raw, *wire.Refusal) {
	text := bytes.TrimSpace(raw)
	if len(text) == 0 || string(text) == "null" {
		return nil, nil
	}
	if text[0] == '"' {
		var s string
		if err := json.Unmarshal(text, &s); err != nil {
			return nil, wire.Refuse(wire.KindInput, "%s: %v", what, err)
		}
		text = []byte(s)
	}
	var out bson.Raw
	if err := bson.UnmarshalExtJSON(text, false, &out); err != nil {
		return nil, wire.Refuse(wire.KindInput, "%s is not a JSON document: %v", what, err)
	}
	return out, nil
}

func errorObject(e *OpError) map[string]any {
	if e == nil {
		return nil
	}
	labels := e.Labels
	if labels == nil {
		labels = []string{}
	}
	return map[string]any{"kind": e.Kind, "code": e.Code, "name": e.Name, "labels": labels, "message": e.Message}
}

func resultObject(r Result) map[string]any {
	out := map[string]any{
		"n": r.N, "inserted": r.Inserted, "matched": r.Matched, "modified": r.Modified, "upserted": r.Upserted,
		"notAttempted": r.NotAttempted, "errors": nil, "writeConcernError": errorObject(r.WriteConcernError), "error": errorObject(r.Err),
	}
	if len(r.Errors) > 0 {
		errs := make([]any, len(r.Errors))
		for i, e := range r.Errors {
			errs[i] = map[string]any{"index": e.Index, "code": e.Code, "message": e.Message}
		}
		out["errors"] = errs
	}
	if r.UpsertedIndexes != nil {
		out["upsertedIndexes"] = r.UpsertedIndexes
	}
	return out
}

// writeFailure: Write and Update answer an error only for a call that is wrong itself (an
// InputError; or the driver refusing the collectionUUID option, a refusal too).
func writeFailure(what string, err error) *wire.Refusal {
	return wire.Refuse(wire.KindInput, "%s: %v", what, err)
}

// write?op=&db=&coll=&opts=<JSON>, body = the batch (a JSON array of documents) -> result.
func (s *Service) write(w http.ResponseWriter, r *http.Request, t *wire.Timing) *wire.Refusal {
	c, ref := s.client(r)
	if ref != nil {
		return ref
	}
	q := r.URL.Query()
	var m map[string]any
	if o := q.Get("opts"); o != "" {
		if err := json.Unmarshal([]byte(o), &m); err != nil {
			return wire.Refuse(wire.KindInput, "opts is not a JSON object: %v", err)
		}
	}
	o, ref := writeOptions(m)
	if ref != nil {
		return ref
	}
	var body []byte
	if q.Get("render") == "1" {
		// the body rendered from a recipe (package render)
		rc, ref := render.ReadRecipe(r)
		if ref != nil {
			return ref
		}
		b, release, ref := s.Images.Render(rc)
		if ref != nil {
			return ref
		}
		defer release()
		body = b
	} else {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return wire.Refuse(wire.KindInput, "reading the body: %v", err)
		}
		body = b
	}
	res, err := c.Write(wire.WithTiming(r.Context(), t), q.Get("op"), q.Get("db"), q.Get("coll"), body, o)
	if err != nil {
		return writeFailure("write", err)
	}
	wire.Answer(w, t, resultObject(res))
	return nil
}

type request struct {
	DB      string          `json:"db"`
	Coll    string          `json:"coll"`
	IDs     []any           `json:"ids"`
	Update  json.RawMessage `json:"update"`
	Command json.RawMessage `json:"command"`
	Filter  json.RawMessage `json:"filter"`
	Opts    json.RawMessage `json:"opts"`
}

func (q *request) opts() (map[string]any, map[string]json.RawMessage, *wire.Refusal) {
	t := bytes.TrimSpace(q.Opts)
	if len(t) == 0 || string(t) == "null" {
		return nil, nil, nil
	}
	var m map[string]any
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(t, &m); err != nil {
		return nil, nil, wire.Refuse(wire.KindInput, "opts must be an object: %v", err)
	}
	_ = json.Unmarshal(t, &raw)
	return m, raw, nil
}

// ids: strings, or whole numbers written as prefix + the number.
func ids(list []any, prefix string) ([]any, *wire.Refusal) {
	if list == nil {
		return nil, wire.Refuse(wire.KindInput, "update: ids must be an array")
	}
	out := make([]any, len(list))
	for i, x := range list {
		switch k := x.(type) {
		case string:
			out[i] = k
		case float64:
			if k != math.Trunc(k) || k < 0 {
				return nil, wire.Refuse(wire.KindInput, "update: ids must be strings or whole numbers")
			}
			out[i] = fmt.Sprintf("%s%d", prefix, int64(k))
		default:
			return nil, wire.Refuse(wire.KindInput, "update: ids must be strings or whole numbers")
		}
	}
	return out, nil
}

// jsonCall: what every JSON operation reads first — the client of the handle h, the request
// body, its opts (as values and as raw JSON).
func (s *Service) jsonCall(r *http.Request) (*Client, request, map[string]any, map[string]json.RawMessage, *wire.Refusal) {
	var q request
	c, ref := s.client(r)
	if ref != nil {
		return nil, q, nil, nil, ref
	}
	if ref := readJSON(r, &q, false); ref != nil {
		return nil, q, nil, nil, ref
	}
	m, raw, ref := q.opts()
	return c, q, m, raw, ref
}

// update {db, coll, ids, update, opts: {upsert, ordered, w, j, timeoutMs, prefix,
// collectionUUID}} -> result.
func (s *Service) update(w http.ResponseWriter, r *http.Request, t *wire.Timing) *wire.Refusal {
	c, q, m, _, ref := s.jsonCall(r)
	if ref != nil {
		return ref
	}
	o, ref := writeOptions(m)
	if ref != nil {
		return ref
	}
	prefix, _ := m["prefix"].(string)
	keys, ref := ids(q.IDs, prefix)
	if ref != nil {
		return ref
	}
	upd, ref := document(q.Update, "update")
	if ref != nil {
		return ref
	}
	res, err := c.Update(wire.WithTiming(r.Context(), t), q.DB, q.Coll, keys, upd, o)
	if err != nil {
		return writeFailure("update", err)
	}
	wire.Answer(w, t, resultObject(res))
	return nil
}

// command {db, command, opts: {timeoutMs}} -> {reply: relaxed extended JSON text | null, error}
func (s *Service) command(w http.ResponseWriter, r *http.Request, t *wire.Timing) *wire.Refusal {
	c, q, m, _, ref := s.jsonCall(r)
	if ref != nil {
		return ref
	}
	cmd, ref := document(q.Command, "command")
	if ref != nil {
		return ref
	}
	if cmd == nil {
		return wire.Refuse(wire.KindInput, "command: a command document is required")
	}
	reply, e := c.Command(wire.WithTiming(r.Context(), t), q.DB, cmd, timeoutOf(m))
	if e != nil {
		wire.Answer(w, t, map[string]any{"reply": nil, "error": errorObject(e)})
		return nil
	}
	wire.Answer(w, t, map[string]any{"reply": extJSON(reply), "error": nil})
	return nil
}

// find {db, coll, filter, opts: {projection, limit, timeoutMs}} -> {docs: JSON array text | null, error}
func (s *Service) find(w http.ResponseWriter, r *http.Request, t *wire.Timing) *wire.Refusal {
	c, q, m, raw, ref := s.jsonCall(r)
	if ref != nil {
		return ref
	}
	var proj bson.Raw
	var limit int64
	if p, ok := raw["projection"]; ok {
		if proj, ref = document(p, "projection"); ref != nil {
			return ref
		}
	}
	if l, ok := num(m, "limit"); ok {
		limit = int64(l)
	}
	filter, ref := document(q.Filter, "filter")
	if ref != nil {
		return ref
	}
	if filter == nil {
		filter = bson.Raw{5, 0, 0, 0, 0}
	}
	docs, e := c.Find(wire.WithTiming(r.Context(), t), q.DB, q.Coll, filter, proj, limit, timeoutOf(m))
	if e != nil {
		wire.Answer(w, t, map[string]any{"docs": nil, "error": errorObject(e)})
		return nil
	}
	parts := make([]string, len(docs))
	for i, d := range docs {
		parts[i] = extJSON(d)
	}
	wire.Answer(w, t, map[string]any{"docs": "[" + strings.Join(parts, ",") + "]", "error": nil})
	return nil
}

// count {db, coll, filter, opts: {timeoutMs}} -> {count, error}
func (s *Service) count(w http.ResponseWriter, r *http.Request, t *wire.Timing) *wire.Refusal {
	c, q, m, _, ref := s.jsonCall(r)
	if ref != nil {
		return ref
	}
	filter, ref := document(q.Filter, "filter")
	if ref != nil {
		return ref
	}
	if filter == nil {
		filter = bson.Raw{5, 0, 0, 0, 0}
	}
	n, e := c.Count(wire.WithTiming(r.Context(), t), q.DB, q.Coll, filter, timeoutOf(m))
	wire.Answer(w, t, map[string]any{"count": n, "error": errorObject(e)})
	return nil
}

func (s *Service) close(w http.ResponseWriter, r *http.Request, t *wire.Timing) *wire.Refusal {
	c, ref := s.handles.Take(r)
	if ref != nil {
		return ref
	}
	t.Driver(c.Close)
	wire.Answer(w, t, struct{}{})
	return nil
}

// parse-batch, body = a batch -> {extJSON: the BSON documents it turns into, as one
// canonical extended JSON array (types explicit: {"$numberInt":"7"})}: the twin test of the
// conversion.
func (s *Service) parseBatch(w http.ResponseWriter, r *http.Request, t *wire.Timing) *wire.Refusal {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return wire.Refuse(wire.KindInput, "reading the body: %v", err)
	}
	b, err := parseBatch(body, 0)
	if err != nil {
		return wire.Refuse(wire.KindInput, "parseBatch: %v", err)
	}
	parts := make([]string, b.len())
	for i := range parts {
		j, err := bson.MarshalExtJSON(bson.Raw(b.doc(i)), true, false)
		if err != nil {
			return wire.Refuse(wire.KindInput, "parseBatch: %v", err)
		}
		parts[i] = string(j)
	}
	wire.Answer(w, t, map[string]any{"extJSON": "[" + strings.Join(parts, ",") + "]"})
	return nil
}

// extJSON: relaxed extended JSON of a document ("" when it cannot be written).
func extJSON(raw bson.Raw) string {
	b, err := bson.MarshalExtJSON(raw, false, false)
	if err != nil {
		return ""
	}
	return string(b)
}
