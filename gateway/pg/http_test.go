package pg

// The PostgreSQL exchanges over HTTP (httptest) against the PostgreSQL of PG_URL.

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
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
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&ex.body); err != nil {
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

func open(t *testing.T, srv *httptest.Server, body any) string {
	t.Helper()
	ex := postJSON(t, srv, "/pg/open", body)
	if ex.status != 200 || ex.body["binary"] != true {
		t.Fatalf("open: %d %s", ex.status, ex.raw)
	}
	checkTiming(t, ex)
	return ex.body["handle"].(string)
}

func errorOf(ex exchange) map[string]any {
	e, _ := ex.body["error"].(map[string]any)
	return e
}

func TestHTTPStatementsAndRows(t *testing.T) {
	u := pgURL(t)
	srv := serve(t, New(u))
	h := open(t, srv, map[string]any{"settings": map[string]any{"synchronous_commit": "off", "work_mem": "8MB"}, "max_conns": 2})
	table := name("gw_http")
	q := "?h=" + h + "&timeout_ms=20000"
	ex := postJSON(t, srv, "/pg/exec"+q, map[string]any{"sql": "CREATE TABLE " + table + " (key text PRIMARY KEY, doc jsonb NOT NULL)"})
	if ex.status != 200 || ex.body["rows_affected"] == nil {
		t.Fatalf("create: %s", ex.raw)
	}
	defer postJSON(t, srv, "/pg/exec"+q, map[string]any{"sql": "DROP TABLE " + table})
	checkTiming(t, ex)

	// A binary jsonb batch: the version byte 1, then the JSON text (PostgreSQL
	// src/backend/utils/adt/jsonb.c, jsonb_recv), as the octet-stream $1.
	batch := append([]byte{1}, `[{"key":"K1","w":"l","n":1},{"key":"K2","w":"l","n":2},{"key":"K3","w":"l","s":"é\"x"}]`...)
	insert := "INSERT INTO " + table + " (key, doc) SELECT e->>'key', e FROM jsonb_array_elements($1::jsonb) AS e"
	ex = post(t, srv, "/pg/exec"+q+"&sql="+url.QueryEscape(insert), "application/octet-stream", batch)
	if ex.status != 200 || ex.body["rows_affected"] != json.Number("3") {
		t.Fatalf("binary batch: %d %s", ex.status, ex.raw)
	}
	checkTiming(t, ex)

	// The same batch again: the server's unique violation, as lib/pq words it.
	ex = post(t, srv, "/pg/exec"+q+"&sql="+url.QueryEscape(insert), "application/octet-stream", batch)
	e := errorOf(ex)
	if ex.status != 200 || e == nil || !strings.HasPrefix(e["message"].(string), "pq: duplicate key value violates unique constraint") ||
		e["sqlstate"] != "23505" || e["sent"] != true {
		t.Fatalf("duplicate batch: %d %s", ex.status, ex.raw)
	}
	t.Logf("duplicate batch: %s", ex.raw)
	checkTiming(t, ex)

	// Rows: the statement's column order, and each type as docs/gateway.md says.
	ex = postJSON(t, srv, "/pg/query"+q, map[string]any{
		"sql": `SELECT key, (doc->>'n')::int8 AS n, doc->>'s' AS s, doc AS doc, 1.5::float8 AS f, 2.25::numeric AS num, true AS b,
			NULL::text AS nothing, '\x0102'::bytea AS bytes, '2024-01-02T03:04:05Z'::timestamptz AS at, current_setting('synchronous_commit') AS sync,
			current_setting('application_name') AS app, $2::text AS arg
			FROM ` + table + ` WHERE key = ANY($1::text[]) ORDER BY key`,
		"args": []any{"{K1,K3}", "x"},
	})
	if ex.status != 200 {
		t.Fatalf("query: %s", ex.raw)
	}
	checkTiming(t, ex)
	want := `{"rows":[{"key":"K1","n":1,"s":null,"doc":"{\"n\": 1, \"w\": \"l\", \"key\": \"K1\"}","f":1.5,"num":"2.25","b":true,"nothing":null,"bytes":"\u0001\u0002","at":"2024-01-02T03:04:05Z","sync":"off","app":"k6-writepath","arg":"x"},` +
		`{"key":"K3","n":null,"s":"é\"x","doc":"{\"s\": \"é\\\"x\", \"w\": \"l\", \"key\": \"K3\"}","f":1.5,"num":"2.25","b":true,"nothing":null,"bytes":"\u0001\u0002","at":"2024-01-02T03:04:05Z","sync":"off","app":"k6-writepath","arg":"x"}]}`
	if ex.raw != want {
		t.Fatalf("rows\n got %s\nwant %s", ex.raw, want)
	}
	// The octet-stream form of a query.
	ex = post(t, srv, "/pg/query"+q+"&sql="+url.QueryEscape("SELECT count(*) AS n FROM jsonb_array_elements($1::jsonb)"), "application/octet-stream", batch)
	if ex.raw != `{"rows":[{"n":3}]}` {
		t.Fatalf("octet-stream query: %s", ex.raw)
	}

	// timeout_ms: the statement ends at the deadline.
	ex = postJSON(t, srv, "/pg/exec?h="+h+"&timeout_ms=300", map[string]any{"sql": "SELECT pg_sleep(5)"})
	if e := errorOf(ex); e == nil || !regexp.MustCompile(`context deadline exceeded|canceling statement due to user request`).MatchString(e["message"].(string)) || e["sent"] != true {
		t.Fatalf("timeout: %s", ex.raw)
	}

	ex = postJSON(t, srv, "/pg/close?h="+h, nil)
	if ex.status != 200 || ex.raw != "{}" {
		t.Fatalf("close: %d %s", ex.status, ex.raw)
	}
	ex = postJSON(t, srv, "/pg/exec"+q, map[string]any{"sql": "SELECT 1"})
	if ex.status != 404 || errorOf(ex)["kind"] != "handle" {
		t.Fatalf("exec on a closed handle: %d %s", ex.status, ex.raw)
	}
}

func TestHTTPRefusals(t *testing.T) {
	// No PG_URL: every exchange is a config error naming the variable.
	srv := serve(t, New(""))
	for _, p := range []string{"/pg/open", "/pg/exec?h=p1", "/pg/query?h=p1", "/pg/close?h=p1"} {
		ex := postJSON(t, srv, p, map[string]any{"sql": "SELECT 1"})
		if ex.status != 503 || errorOf(ex)["kind"] != "config" || !strings.Contains(errorOf(ex)["message"].(string), "PG_URL") {
			t.Fatalf("%s without PG_URL: %d %s", p, ex.status, ex.raw)
		}
		checkTiming(t, ex)
	}
	srv = serve(t, New("postgres://u:pw@127.0.0.1:1/db?sslmode=disable"))
	for _, c := range []struct {
		path   string
		body   string
		status int
		kind   string
	}{
		{"/pg/exec?h=p9", `{"sql":"SELECT 1"}`, 404, "handle"},
		{"/pg/close?h=p9", `{}`, 404, "handle"},
		{"/pg/exec", `{"sql":"SELECT 1"}`, 400, "input"},
		{"/pg/open", `{"max_conns":0}`, 400, "input"},
		{"/pg/open", `{"settings":{"a b":"x"}}`, 400, "input"},
		{"/pg/open", `not json`, 400, "input"},
	} {
		ex := post(t, srv, c.path, "application/json", []byte(c.body))
		if ex.status != c.status || errorOf(ex)["kind"] != c.kind {
			t.Errorf("%s %s: %d %s, want %d %s", c.path, c.body, ex.status, ex.raw, c.status, c.kind)
		}
	}
	h := open(t, srv, nil)
	for _, c := range []struct{ path, body string }{
		{"/pg/exec?h=" + h + "&timeout_ms=x", `{"sql":"SELECT 1"}`},
		{"/pg/exec?h=" + h, `{"args":[1]}`},
		{"/pg/query?h=" + h, `{"sql":`},
	} {
		if ex := post(t, srv, c.path, "application/json", []byte(c.body)); ex.status != 400 || errorOf(ex)["kind"] != "input" {
			t.Errorf("%s %s: %d %s", c.path, c.body, ex.status, ex.raw)
		}
	}
	if ex := postJSON(t, srv, "/pg/exec?h="+h, nil); ex.status != 400 {
		t.Errorf("GET-less empty exec: %d %s", ex.status, ex.raw)
	}
	res, err := http.Get(srv.URL + "/pg/open")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 400 {
		t.Errorf("GET /pg/open: %d", res.StatusCode)
	}
}

// No answer shows a password of PG_URL: refused credentials, a server that is not there, a
// malformed URL; user names stay.
func TestHTTPPasswordNeverInAnswers(t *testing.T) {
	u := pgURL(t)
	p, err := url.Parse(u)
	if err != nil || !isURL(u) {
		t.Fatalf("PG_URL must be a postgres:// URL for this test: %v", err)
	}
	const secret = "Wr0ng-s3cret-PW"
	p.User = url.UserPassword(p.User.Username(), secret)
	check := func(what string, ex exchange) {
		t.Helper()
		all := ex.raw
		for k, v := range ex.header {
			all += k + strings.Join(v, "")
		}
		if strings.Contains(all, secret) || strings.Contains(all, "s3cret") {
			t.Fatalf("%s shows the password: %s", what, ex.raw)
		}
	}
	srv := serve(t, New(p.String()))
	h := open(t, srv, nil)
	ex := postJSON(t, srv, "/pg/exec?h="+h+"&timeout_ms=10000", map[string]any{"sql": "SELECT 1"})
	e := errorOf(ex)
	if e == nil || !strings.Contains(e["message"].(string), "password authentication failed for user \""+p.User.Username()+"\"") || e["sent"] != false {
		t.Fatalf("wrong password: %s", ex.raw)
	}
	check("refused credentials", ex)
	t.Logf("refused credentials: %s", e["message"])

	srv = serve(t, New("postgres://me:"+secret+"@127.0.0.1:1/db?sslmode=disable"))
	h = open(t, srv, nil)
	ex = postJSON(t, srv, "/pg/query?h="+h+"&timeout_ms=5000", map[string]any{"sql": "SELECT 1"})
	if e := errorOf(ex); e == nil || !strings.Contains(e["message"].(string), "connection refused") {
		t.Fatalf("no server: %s", ex.raw)
	}
	check("no server", ex)

	for _, bad := range []string{
		"postgres://me:" + secret + "@h:99x/db",
		"postgres://me:" + secret + "@h/db?sslmode=bogus",
		"postgres://me:" + secret + "%zz@h/db",
	} {
		srv = serve(t, New(bad))
		ex = postJSON(t, srv, "/pg/open", nil)
		if ex.status != 503 || errorOf(ex)["kind"] != "config" || strings.Contains(ex.raw, "@h") {
			t.Fatalf("malformed %q: %d %s", bad, ex.status, ex.raw)
		}
		check("a malformed URL", ex)
		if strings.Contains(bad, "sslmode") && !strings.Contains(errorOf(ex)["message"].(string), `wrong value for "sslmode"`) {
			t.Fatalf("the refusal does not name the option: %s", ex.raw)
		}
		t.Logf("malformed PG_URL: %s", errorOf(ex)["message"])
	}
}

// A k6 connection that goes away mid-request cancels the statement (the request's context
// ends: the driver cancels and cuts it as at a deadline); nothing of it is committed.
func TestHTTPClientGoneCancelsTheStatement(t *testing.T) {
	u := pgURL(t)
	adm := admin(t, u)
	table := name("gw_gone")
	mustExec(t, adm, `CREATE TABLE `+table+` (stamp text)`)
	t.Cleanup(func() { adm.Exec(`DROP TABLE IF EXISTS ` + table) })
	app := name("gw_gone")
	srv := serve(t, New(withApp(u, app)))
	h := open(t, srv, nil)
	client := &http.Client{Timeout: 500 * time.Millisecond}
	body, _ := json.Marshal(map[string]any{"sql": `INSERT INTO ` + table + ` SELECT 'x' FROM pg_sleep(20)`})
	t0 := time.Now()
	if res, err := client.Post(srv.URL+"/pg/exec?h="+h, "application/json", bytes.NewReader(body)); err == nil {
		res.Body.Close()
		t.Fatalf("answered %d before the client gave up", res.StatusCode)
	}
	// The backend stops within the cancel's grace (designed), long before its 20 s (asserted:
	// half of them, as a busy machine may add seconds).
	for {
		n := one[int](t, adm, `SELECT count(*) FROM pg_stat_activity WHERE application_name = $1 AND state = 'active'`, app)
		if n == 0 {
			break
		}
		if time.Since(t0) > 10*time.Second {
			t.Fatalf("the statement still runs %v after its client went away (pg_sleep(20))", time.Since(t0))
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("statement gone %v after the request started (client timeout 500ms)", time.Since(t0))
	if n := one[int](t, adm, `SELECT count(*) FROM `+table); n != 0 {
		t.Fatalf("the abandoned statement committed %d rows", n)
	}
}
