package main

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func newTestServer(t testing.TB) *server {
	s := newServer("", true, "3.12.4", time.Minute)
	s.faults.set(faultConfig{})
	req := httptest.NewRequest("POST", "/_api/collection", strings.NewReader(`{"name":"c"}`))
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	if rec.Code != 200 {
		t.Fatalf("create collection: %d %s", rec.Code, rec.Body)
	}
	return s
}

func batchBody(b, n int) []byte {
	var buf bytes.Buffer
	buf.WriteByte('[')
	pad := strings.Repeat("x", 1100)
	for i := 0; i < n; i++ {
		if i > 0 {
			buf.WriteByte(',')
		}
		fmt.Fprintf(&buf, `{"_key":"k%d_%d","n":%d,"s":"%s","t":{"a":1,"b":[1,2,3]}}`, b, i, i, pad)
	}
	buf.WriteByte(']')
	return buf.Bytes()
}

func BenchmarkInsert1000(b *testing.B) {
	s := newTestServer(b)
	bodies := make([][]byte, b.N)
	for i := range bodies {
		bodies[i] = batchBody(i, 1000)
	}
	b.SetBytes(int64(len(bodies[0])))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		req := httptest.NewRequest("POST", "/_api/document/c", bytes.NewReader(bodies[i]))
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		if rec.Code != 202 {
			b.Fatal(rec.Code, rec.Body.String()[:200])
		}
	}
	b.ReportMetric(float64(b.N*1000)/b.Elapsed().Seconds(), "docs/s")
}

func TestArrayInsertInlineErrors(t *testing.T) {
	s := newTestServer(t)
	req := httptest.NewRequest("POST", "/_api/document/c", strings.NewReader(`[{"_key":"a"},{"_key":"a"},{"_key":"b c"},1]`))
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	if rec.Code != http.StatusAccepted {
		t.Fatalf("status %d", rec.Code)
	}
	if got := rec.Header().Get("X-Arango-Error-Codes"); got != `{"1210":1,"1221":1,"1227":1}` {
		t.Fatalf("header %q", got)
	}
}

func TestSplitObject(t *testing.T) {
	fs := splitObject([]byte(` { "a" : [1, {"x":"}"}], "b\"q":"s\\\"" ,"c":null } `))
	if len(fs) != 3 || fs[0].name != "a" || string(fs[0].val) != `[1, {"x":"}"}]` || fs[1].name != `b"q` || string(fs[2].val) != "null" {
		t.Fatalf("%#v", fs)
	}
}

func do(s *server, method, path, body string, hdr ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	return rec
}

// TestConcurrent exercises the locking (run with -race).
func TestConcurrent(t *testing.T) {
	s := newTestServer(t)
	s.faults.set(faultConfig{ElementFailureRate: 0.1, Seed: 3})
	done := make(chan bool)
	for g := 0; g < 4; g++ {
		go func(g int) {
			for i := 0; i < 20; i++ {
				do(s, "POST", "/_api/document/c?overwriteMode=update", fmt.Sprintf(`[{"_key":"k%d","v":%d},{"_key":"k%d"}]`, i, g, i+1))
				do(s, "PUT", "/_api/document/c?onlyget=true", `["k1","k2"]`)
				do(s, "GET", "/_api/collection/c/count", "")
				b := do(s, "POST", "/_api/transaction/begin", `{"collections":{"write":"c"}}`)
				id := b.Body.String()[strings.Index(b.Body.String(), `"id":"`)+6:]
				id = id[:strings.IndexByte(id, '"')]
				do(s, "DELETE", "/_api/document/c", `["k3"]`, "X-Arango-Trx-Id", id)
				do(s, "GET", "/_api/collection/c/count", "", "X-Arango-Trx-Id", id)
				do(s, "PUT", "/_api/transaction/"+id, "")
			}
			done <- true
		}(g)
	}
	for g := 0; g < 4; g++ {
		<-done
	}
}
