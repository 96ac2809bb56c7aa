package mongodb

// JavaScript bindings: argument conversion and result objects. Calls are synchronous (like
// xk6-sql's): a VU waits for its batch, as the pack's workloads expect.

import (
	"encoding/base64"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/grafana/sobek"
	"go.k6.io/k6/js/common"
	"go.mongodb.org/mongo-driver/v2/bson"
)

func (mi *moduleInstance) rt() *sobek.Runtime { return mi.vu.Runtime() }

func (mi *moduleInstance) throw(format string, args ...any) {
	panic(mi.rt().NewTypeError("k6/x/writepath/mongodb: " + fmt.Sprintf(format, args...)))
}

// connect(url, {appName, serverSelectionTimeoutMs, connectTimeoutMs}) -> client object.
func (mi *moduleInstance) connect(call sobek.FunctionCall) sobek.Value {
	rawURL := call.Argument(0).String()
	co := ConnectOptions{AppName: "k6-writepath"}
	if o := mi.options(call.Argument(1)); o != nil {
		if v, ok := o["appName"].(string); ok {
			co.AppName = v
		}
		if ms, ok := num(o, "serverSelectionTimeoutMs"); ok && ms > 0 {
			co.ServerSelectionTimeout = time.Duration(ms * float64(time.Millisecond))
		}
		if ms, ok := num(o, "connectTimeoutMs"); ok && ms > 0 {
			co.ConnectTimeout = time.Duration(ms * float64(time.Millisecond))
		}
	}
	c, err := Open(rawURL, co)
	if err != nil {
		// A string, as the pack's config errors: the adapter prefixes the knob name.
		panic(mi.rt().ToValue(err.Error()))
	}
	return mi.clientObject(c)
}

func (mi *moduleInstance) options(v sobek.Value) map[string]any {
	if common.IsNullish(v) {
		return nil
	}
	m, ok := v.Export().(map[string]any)
	if !ok {
		mi.throw("options must be an object")
	}
	return m
}

func (mi *moduleInstance) bytes(v sobek.Value, what string) []byte {
	b, err := common.ToBytes(v.Export())
	if err != nil {
		mi.throw("%s: %v", what, err)
	}
	return b
}

func (mi *moduleInstance) json(v sobek.Value, what string) bson.Raw {
	if common.IsNullish(v) {
		return nil
	}
	var text string
	switch x := v.Export().(type) {
	case string:
		text = x
	default:
		j, err := v.ToObject(mi.rt()).MarshalJSON()
		if err != nil {
			mi.throw("%s: %v", what, err)
		}
		text = string(j)
	}
	var raw bson.Raw
	if err := bson.UnmarshalExtJSON([]byte(text), false, &raw); err != nil {
		mi.throw("%s is not a JSON document: %v", what, err)
	}
	return raw
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

func (mi *moduleInstance) writeOptions(v sobek.Value) WriteOptions {
	o := WriteOptions{Timeout: 60 * time.Second}
	m := mi.options(v)
	if m == nil {
		return o
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
	case int64:
		o.W = fmt.Sprint(w)
	case float64:
		if w != math.Trunc(w) || w < 0 {
			mi.throw("w must be a whole number or a string, not %v", w)
		}
		o.W = fmt.Sprint(int64(w))
	default:
		mi.throw("w must be a whole number or a string")
	}
	if j, ok := m["j"].(bool); ok {
		o.J = &j
	}
	if ms, ok := num(m, "timeoutMs"); ok {
		if ms <= 0 {
			mi.throw("timeoutMs must be above 0")
		}
		o.Timeout = time.Duration(ms * float64(time.Millisecond))
	}
	if s, ok := m["collectionUUID"].(string); ok && s != "" {
		u, err := base64.StdEncoding.DecodeString(s)
		if err != nil || len(u) != 16 {
			mi.throw("collectionUUID must be the base64 text of 16 bytes")
		}
		o.CollectionUUID = u
	}
	return o
}

func timeoutOf(m map[string]any) time.Duration {
	if ms, ok := num(m, "timeoutMs"); ok && ms > 0 {
		return time.Duration(ms * float64(time.Millisecond))
	}
	return 60 * time.Second
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

func (mi *moduleInstance) clientObject(c *Client) sobek.Value {
	rt := mi.rt()
	o := rt.NewObject()
	set := func(name string, fn func(sobek.FunctionCall) sobek.Value) {
		if err := o.Set(name, fn); err != nil {
			panic(err)
		}
	}
	// write(op, db, collection, body, {ordered, w, j, timeoutMs, collectionUUID}) -> result
	set("write", func(call sobek.FunctionCall) sobek.Value {
		body := mi.bytes(call.Argument(3), "body")
		r, err := c.Write(mi.vu.Context(), call.Argument(0).String(), call.Argument(1).String(), call.Argument(2).String(), body, mi.writeOptions(call.Argument(4)))
		if err != nil {
			mi.throw("write: %v", err)
		}
		return rt.ToValue(resultObject(r))
	})
	// update(db, collection, ids, update, {upsert, ordered, w, j, timeoutMs, prefix}) -> result.
	// ids: strings, or numbers written as prefix + the number (the pack's keys: "K" + n).
	set("update", func(call sobek.FunctionCall) sobek.Value {
		opts := mi.writeOptions(call.Argument(4))
		prefix := ""
		if m := mi.options(call.Argument(4)); m != nil {
			if p, ok := m["prefix"].(string); ok {
				prefix = p
			}
		}
		ids := mi.ids(call.Argument(2), prefix)
		r, err := c.Update(mi.vu.Context(), call.Argument(0).String(), call.Argument(1).String(), ids, mi.json(call.Argument(3), "update"), opts)
		if err != nil {
			mi.throw("update: %v", err)
		}
		return rt.ToValue(resultObject(r))
	})
	// command(db, command, {timeoutMs}) -> {reply: relaxed extended JSON text | null, error}
	set("command", func(call sobek.FunctionCall) sobek.Value {
		cmd := mi.json(call.Argument(1), "command")
		if cmd == nil {
			mi.throw("command: a command document is required")
		}
		reply, e := c.Command(mi.vu.Context(), call.Argument(0).String(), cmd, timeoutOf(mi.options(call.Argument(2))))
		if e != nil {
			return rt.ToValue(map[string]any{"reply": nil, "error": errorObject(e)})
		}
		return rt.ToValue(map[string]any{"reply": extJSON(reply), "error": nil})
	})
	// find(db, collection, filter, {projection, limit, timeoutMs}) -> {docs: JSON array text | null, error}
	set("find", func(call sobek.FunctionCall) sobek.Value {
		m := mi.options(call.Argument(3))
		var proj bson.Raw
		var limit int64
		if m != nil {
			if p, ok := m["projection"]; ok && p != nil {
				proj = mi.json(rt.ToValue(p), "projection")
			}
			if l, ok := num(m, "limit"); ok {
				limit = int64(l)
			}
		}
		filter := mi.json(call.Argument(2), "filter")
		if filter == nil {
			filter = bson.Raw{5, 0, 0, 0, 0}
		}
		docs, e := c.Find(mi.vu.Context(), call.Argument(0).String(), call.Argument(1).String(), filter, proj, limit, timeoutOf(m))
		if e != nil {
			return rt.ToValue(map[string]any{"docs": nil, "error": errorObject(e)})
		}
		parts := make([]string, len(docs))
		for i, d := range docs {
			parts[i] = extJSON(d)
		}
		return rt.ToValue(map[string]any{"docs": "[" + strings.Join(parts, ",") + "]", "error": nil})
	})
	// count(db, collection, filter, {timeoutMs}) -> {count, error}
	set("count", func(call sobek.FunctionCall) sobek.Value {
		filter := mi.json(call.Argument(2), "filter")
		if filter == nil {
			filter = bson.Raw{5, 0, 0, 0, 0}
		}
		n, e := c.Count(mi.vu.Context(), call.Argument(0).String(), call.Argument(1).String(), filter, timeoutOf(mi.options(call.Argument(3))))
		return rt.ToValue(map[string]any{"count": n, "error": errorObject(e)})
	})
	set("close", func(sobek.FunctionCall) sobek.Value {
		c.Close()
		return sobek.Undefined()
	})
	return o
}

func (mi *moduleInstance) ids(v sobek.Value, prefix string) []any {
	key := func(x any) any {
		switch k := x.(type) {
		case string:
			return k
		case int64:
			return fmt.Sprintf("%s%d", prefix, k)
		case float64:
			if k != math.Trunc(k) || k < 0 {
				mi.throw("update: ids must be strings or whole numbers")
			}
			return fmt.Sprintf("%s%d", prefix, int64(k))
		}
		mi.throw("update: ids must be strings or whole numbers")
		return nil
	}
	switch x := v.Export().(type) {
	case []any:
		out := make([]any, len(x))
		for i, k := range x {
			out[i] = key(k)
		}
		return out
	case []float64:
		out := make([]any, len(x))
		for i, k := range x {
			out[i] = key(k)
		}
		return out
	case []string:
		out := make([]any, len(x))
		for i, k := range x {
			out[i] = k
		}
		return out
	}
	mi.throw("update: ids must be an array")
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

// parseBatch(body) -> the BSON documents body turns into, as one canonical extended JSON
// array (types explicit: {"$numberInt":"7"}): the twin test of the conversion.
func (mi *moduleInstance) parseBatchJS(call sobek.FunctionCall) sobek.Value {
	b, err := parseBatch(mi.bytes(call.Argument(0), "body"), 0)
	if err != nil {
		mi.throw("parseBatch: %v", err)
	}
	parts := make([]string, b.len())
	for i := range parts {
		j, err := bson.MarshalExtJSON(bson.Raw(b.doc(i)), true, false)
		if err != nil {
			mi.throw("parseBatch: %v", err)
		}
		parts[i] = string(j)
	}
	return mi.rt().ToValue("[" + strings.Join(parts, ",") + "]")
}
