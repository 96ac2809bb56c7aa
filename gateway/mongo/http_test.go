package mongo

// The MongoDB exchanges over HTTP (httptest) against the mongod of MONGO_URL.

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

type exchange struct {
	status int
	header http.Header
	raw    string
	body   map[string]any
}

func serve(t *testing.T, s *Service) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	s.Register(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(func() { srv.Close(); s.Close() })
	return srv
}

func post(t *testing.T, srv *httptest.Server, path, contentType string, body []byte) exchange {
	t.Helper()
	res, err := http.Post(srv.URL+path, contentType, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	ex := exchange{status: res.StatusCode, header: res.Header, raw: string(raw)}
	if err := json.Unmarshal(raw, &ex.body); err != nil {
		t.Fatalf("POST %s: %d %q is not JSON: %v", path, res.StatusCode, raw, err)
	}
	return ex
}

func postJSON(t *testing.T, srv *httptest.Server, path string, v any) exchange {
	t.Helper()
	b, _ := json.Marshal(v)
	return post(t, srv, path, "application/json", b)
}

var serverTiming = regexp.MustCompile(`^db;dur=\d+\.\d{3}, gw;dur=\d+\.\d{3}$`)

func checkTiming(t *testing.T, ex exchange) {
	t.Helper()
	if h := ex.header.Get("Server-Timing"); !serverTiming.MatchString(h) {
		t.Fatalf("Server-Timing %q", h)
	}
}

func TestHTTPWriteUpdateFindCount(t *testing.T) {
	u := os.Getenv("MONGO_URL")
	if u == "" {
		t.Skip("MONGO_URL is not set (test/integration/gateway-go.test.mjs sets it)")
	}
	srv := serve(t, New(u))
	ex := postJSON(t, srv, "/mongo/connect", map[string]any{"appName": "k6-writepath-gotest", "serverSelectionTimeoutMs": 5000})
	if ex.status != 200 || ex.body["driverVersion"] != "2.10.0" || ex.body["apiVersion"] != 1.0 {
		t.Fatalf("connect: %s", ex.raw)
	}
	h := ex.body["handle"].(string)
	if got, _ := json.Marshal(ex.body["url"]); string(got) != `{"j":null,"retryWrites":null,"w":null,"wtimeoutMs":null}` {
		t.Fatalf("url of %s: %s", "MONGO_URL", got)
	}
	db := "k6wp_gohttp_" + time.Now().Format("150405000")
	defer func() {
		postJSON(t, srv, "/mongo/command?h="+h, map[string]any{"db": db, "command": map[string]any{"dropDatabase": 1}})
	}()

	w := func(op string, opts string, body string) exchange {
		t.Helper()
		ex := post(t, srv, "/mongo/write?h="+h+"&op="+op+"&db="+db+"&coll=docs&opts="+url.QueryEscape(opts), "application/octet-stream", []byte(body))
		if ex.status != 200 {
			t.Fatalf("write %s: %d %s", op, ex.status, ex.raw)
		}
		checkTiming(t, ex)
		return ex
	}
	ex = w("insert", `{"ordered":false,"w":1,"j":true,"timeoutMs":10000}`, `[{"_id":"K1","w":"l","n":1},{"_id":"K2","w":"l","n":2}]`)
	if ex.body["inserted"] != 2.0 || ex.body["n"] != 2.0 || ex.body["errors"] != nil || ex.body["error"] != nil {
		t.Fatalf("insert: %s", ex.raw)
	}
	ex = w("insert", `{"ordered":true}`, `[{"_id":"K3"},{"_id":"K1"},{"_id":"K4"}]`)
	errs, _ := ex.body["errors"].([]any)
	if ex.body["inserted"] != 1.0 || ex.body["notAttempted"] != 1.0 || len(errs) != 1 || errs[0].(map[string]any)["code"] != 11000.0 || errs[0].(map[string]any)["index"] != 1.0 {
		t.Fatalf("ordered duplicate: %s", ex.raw)
	}
	ex = w("replace", `{}`, `[{"_id":"K1","w":"o1"},{"_id":"K9","w":"o1"}]`)
	if ex.body["matched"] != 1.0 || ex.body["upserted"] != 1.0 || ex.raw == "" || !strings.Contains(ex.raw, `"upsertedIndexes":[1]`) {
		t.Fatalf("replace: %s", ex.raw)
	}
	ex = postJSON(t, srv, "/mongo/update?h="+h, map[string]any{"db": db, "coll": "docs", "ids": []any{1, "K2", 77}, "update": map[string]any{"$inc": map[string]any{"hits": 1}}, "opts": map[string]any{"prefix": "K", "upsert": false}})
	if ex.status != 200 || ex.body["matched"] != 2.0 || ex.body["modified"] != 2.0 {
		t.Fatalf("update: %s", ex.raw)
	}
	checkTiming(t, ex)
	ex = postJSON(t, srv, "/mongo/find?h="+h, map[string]any{"db": db, "coll": "docs", "filter": map[string]any{"_id": "K1"}, "opts": map[string]any{"projection": map[string]any{"w": 1, "hits": 1}}})
	if ex.status != 200 || ex.body["docs"] != `[{"_id":"K1","w":"o1","hits":1}]` {
		t.Fatalf("find: %s", ex.raw)
	}
	ex = postJSON(t, srv, "/mongo/count?h="+h, map[string]any{"db": db, "coll": "docs", "filter": map[string]any{}})
	if ex.status != 200 || ex.body["count"] != 4.0 || ex.body["error"] != nil {
		t.Fatalf("count: %s", ex.raw)
	}
	// A command keeps the key order of the request (the command's name first).
	ex = post(t, srv, "/mongo/command?h="+h, "application/json", []byte(`{"db":"`+db+`","command":{"count":"docs","query":{"w":"o1"}},"opts":{"timeoutMs":5000}}`))
	if ex.status != 200 || ex.body["error"] != nil || !strings.Contains(ex.body["reply"].(string), `"n":2`) {
		t.Fatalf("command: %s", ex.raw)
	}
	ex = postJSON(t, srv, "/mongo/command?h="+h, map[string]any{"db": db, "command": map[string]any{"noSuchCommand": 1}})
	if e, _ := ex.body["error"].(map[string]any); ex.status != 200 || ex.body["reply"] != nil || e["kind"] != "server" || e["code"] != 59.0 {
		t.Fatalf("unknown command: %s", ex.raw)
	}
	// Refusals: bad options and a body that is no batch; an unknown operation.
	for _, c := range []struct{ op, opts, body string }{
		{"insert", `{"w":1.5}`, `[{"_id":"x"}]`},
		{"insert", `{"collectionUUID":"abc"}`, `[{"_id":"x"}]`},
		{"insert", `{}`, `{"_id":"x"}`},
		{"insert", `{}`, `[]`},
		{"upsert", `{}`, `[{"_id":"x"}]`},
	} {
		ex := post(t, srv, "/mongo/write?h="+h+"&op="+c.op+"&db="+db+"&coll=docs&opts="+url.QueryEscape(c.opts), "application/octet-stream", []byte(c.body))
		if e, _ := ex.body["error"].(map[string]any); ex.status != 400 || e["kind"] != "input" {
			t.Errorf("%v: %d %s", c, ex.status, ex.raw)
		}
	}
	ex = postJSON(t, srv, "/mongo/close?h="+h, nil)
	if ex.status != 200 || ex.raw != "{}" {
		t.Fatalf("close: %s", ex.raw)
	}
	if ex = postJSON(t, srv, "/mongo/count?h="+h, map[string]any{"db": db, "coll": "docs"}); ex.status != 404 {
		t.Fatalf("count on a closed handle: %d %s", ex.status, ex.raw)
	}
	// The handle's Client is disconnected: a new handle for the cleanup.
	h = postJSON(t, srv, "/mongo/connect", map[string]any{}).body["handle"].(string)
}

// url: what MONGO_URL itself sets, read with the driver's parser (without a server).
func TestHTTPConnectReportsTheURLsWriteConcern(t *testing.T) {
	srv := serve(t, New("mongodb://me:pw@127.0.0.1:1/?w=majority&journal=true&wtimeoutMS=2500&retryWrites=false"))
	ex := postJSON(t, srv, "/mongo/connect", nil)
	if got, _ := json.Marshal(ex.body["url"]); ex.status != 200 || string(got) != `{"j":true,"retryWrites":false,"w":"majority","wtimeoutMs":2500}` {
		t.Fatalf("connect: %d %s", ex.status, ex.raw)
	}
	checkTiming(t, ex)
	srv = serve(t, New("mongodb://127.0.0.1:1/?w=2"))
	if ex = postJSON(t, srv, "/mongo/connect", nil); !strings.Contains(ex.raw, `"w":2`) {
		t.Fatalf("w=2: %s", ex.raw)
	}
}

func TestHTTPRefusalsAndSecrets(t *testing.T) {
	srv := serve(t, New(""))
	for _, p := range []string{"/mongo/connect", "/mongo/write?h=m1", "/mongo/update?h=m1", "/mongo/command?h=m1", "/mongo/find?h=m1", "/mongo/count?h=m1", "/mongo/close?h=m1"} {
		ex := postJSON(t, srv, p, map[string]any{})
		if e, _ := ex.body["error"].(map[string]any); ex.status != 503 || e["kind"] != "config" || !strings.Contains(e["message"].(string), "MONGO_URL") {
			t.Fatalf("%s without MONGO_URL: %d %s", p, ex.status, ex.raw)
		}
	}
	// parse-batch needs no server.
	ex := post(t, srv, "/mongo/parse-batch", "application/octet-stream", []byte(`[{"_id":"K1","n":7,"big":3000000000,"f":1.5,"o":{"a":[true,null]}}]`))
	if ex.status != 200 || ex.body["extJSON"] != `[{"_id":"K1","n":{"$numberInt":"7"},"big":{"$numberLong":"3000000000"},"f":{"$numberDouble":"1.5"},"o":{"a":[true,null]}}]` {
		t.Fatalf("parse-batch: %d %s", ex.status, ex.raw)
	}
	if ex = post(t, srv, "/mongo/parse-batch", "application/octet-stream", []byte(`[1]`)); ex.status != 400 {
		t.Fatalf("parse-batch of no batch: %d %s", ex.status, ex.raw)
	}
	for _, bad := range []string{"mongodb://u:s3cret@127.0.0.1:99999/", "mongodb://u:s3cr%zzet@127.0.0.1:1/"} {
		srv = serve(t, New(bad))
		ex = postJSON(t, srv, "/mongo/connect", nil)
		if ex.status != 503 || strings.Contains(ex.raw, "s3cr") {
			t.Fatalf("malformed %q: %d %s", bad, ex.status, ex.raw)
		}
	}
	srv = serve(t, New("mongodb://u:s3cret@127.0.0.1:1/"))
	h := postJSON(t, srv, "/mongo/connect", map[string]any{"serverSelectionTimeoutMs": 300}).body["handle"].(string)
	ex = post(t, srv, "/mongo/write?h="+h+"&op=insert&db=x&coll=docs", "application/octet-stream", []byte(`[{"_id":"a"}]`))
	if e, _ := ex.body["error"].(map[string]any); ex.status != 200 || e["kind"] != "connection" || strings.Contains(ex.raw, "s3cret") {
		t.Fatalf("unreachable: %d %s", ex.status, ex.raw)
	}
}
