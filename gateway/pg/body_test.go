package pg

// The octet-stream $1 is read into a pooled buffer (readBody in http.go): a buffer reused by
// the next request must never leak bytes of an earlier, longer body into a shorter one, an
// empty body stays an empty parameter (not NULL), and a body without Content-Length (chunked)
// is read whole.

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"testing"
)

func TestHTTPOctetStreamBodiesThroughThePool(t *testing.T) {
	srv := serve(t, New(pgURL(t)))
	h := open(t, srv, map[string]any{"max_conns": 2})
	path := "/pg/query?h=" + h + "&timeout_ms=20000&sql=" + url.QueryEscape("SELECT coalesce(encode($1::bytea, 'hex'), 'NULL') AS x")
	want := func(b []byte) string { return fmt.Sprintf(`{"rows":[{"x":"%s"}]}`, hex.EncodeToString(b)) }
	long := bytes.Repeat([]byte("0123456789abcdef"), 80000) // 1.28 MB, a batch's size
	for i, body := range [][]byte{long, []byte("short"), long[:700000], {}, {0, 1, 2}, long} {
		if ex := post(t, srv, path, "application/octet-stream", body); ex.status != 200 || ex.raw != want(body) {
			t.Fatalf("body %d (%d bytes): %d %.200s", i, len(body), ex.status, ex.raw)
		}
	}
	// No Content-Length: chunked transfer, read as before.
	res, err := http.Post(srv.URL+path, "application/octet-stream", io.MultiReader(bytes.NewReader([]byte("chun")), bytes.NewReader([]byte("ked"))))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || string(raw) != want([]byte("chunked")) {
		t.Fatalf("chunked body: %d %s", res.StatusCode, raw)
	}
}
