package pg

// The PostgreSQL exchanges of docs/gateway.md: /pg/open, /pg/exec, /pg/query, /pg/close.
// A handle is one *sql.DB of at most max_conns connections (default 1: one per k6 VU, as the
// pack always had).

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/k6-writepath/k6-writepath/gateway/internal/wire"
	"github.com/k6-writepath/k6-writepath/gateway/render"
)

// Service answers the PostgreSQL exchanges for one PG_URL ("" when unset).
type Service struct {
	rawURL string
	redact *wire.Redactor
	// Images: the body images rendered bodies are made from (render=1; docs/gateway.md).
	Images *render.Store

	handles *wire.Handles[*handle]
}

type handle struct {
	db     *sql.DB
	binary bool
}

// CheckURL: why lib/pq refuses PG_URL, as one line that never shows the URL (the parser quotes
// what it stumbled on, which may be part of a password), or "" when it takes it. The gateway
// refuses to start with such a URL (main.go), and /pg/open answers the same line.
func (s *Service) CheckURL() string {
	if _, _, err := OpenDB(ConnectionURL(s.rawURL, nil)); err != nil {
		return "PG_URL (value not shown) is not allowed: " + s.redact.Redact(wire.HideQuoted(err.Error(), paramNames))
	}
	return ""
}

// paramNames: libpq's connection parameter key words (PostgreSQL 15 documentation, "Parameter
// Key Words", libpq-connect.html) and lib/pq's own: public names a refusal may show.
var paramNames = map[string]bool{}

func init() {
	for _, n := range strings.Fields(`host hostaddr port dbname user password passfile channel_binding
		connect_timeout client_encoding options application_name fallback_application_name keepalives
		keepalives_idle keepalives_interval keepalives_count tcp_user_timeout replication gssencmode
		sslmode requiressl sslcompression sslcert sslkey sslpassword sslrootcert sslcrl sslcrldir
		sslsni requirepeer ssl_min_protocol_version ssl_max_protocol_version krbsrvname gsslib
		service target_session_attrs load_balance_hosts binary_parameters disable_prepared_binary_result
		sslinline sslnegotiation`) {
		paramNames[n] = true
	}
}

// New returns the service for rawURL (PG_URL; "" = not configured: every exchange answers
// a config error naming PG_URL).
func New(rawURL string) *Service {
	return &Service{Images: render.NewStore(), rawURL: rawURL, redact: wire.NewRedactor("(password)", secretsOf(rawURL)...), handles: wire.NewHandles[*handle]("p", "PostgreSQL handle", "/pg/open")}
}

// Configured: PG_URL is set.
func (s *Service) Configured() bool { return s.rawURL != "" }

// Register adds the exchanges to mux.
func (s *Service) Register(mux *http.ServeMux) {
	mux.HandleFunc("/pg/open", s.endpoint(s.open))
	mux.HandleFunc("/pg/exec", s.endpoint(func(w http.ResponseWriter, r *http.Request, t *wire.Timing) *wire.Refusal {
		return s.run(w, r, t, false)
	}))
	mux.HandleFunc("/pg/query", s.endpoint(func(w http.ResponseWriter, r *http.Request, t *wire.Timing) *wire.Refusal {
		return s.run(w, r, t, true)
	}))
	mux.HandleFunc("/pg/close", s.endpoint(s.close))
}

// Close closes every pool (the gateway's shutdown).
func (s *Service) Close() {
	for _, h := range s.handles.TakeAll() {
		_ = h.db.Close()
	}
}

func (s *Service) endpoint(f func(http.ResponseWriter, *http.Request, *wire.Timing) *wire.Refusal) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		t := wire.Start()
		if r.Method != http.MethodPost {
			wire.Fail(w, t, wire.Refuse(wire.KindInput, "%s %s: only POST is answered", r.Method, r.URL.Path))
			return
		}
		if !s.Configured() {
			wire.Fail(w, t, wire.Refuse(wire.KindConfig, "PG_URL is not set in the gateway's environment"))
			return
		}
		if ref := f(w, r, t); ref != nil {
			ref.Message = s.redact.Redact(ref.Message)
			wire.Fail(w, t, ref)
		}
	}
}

// secretsOf: the password of a postgres:// URL (as written and decoded) or of a key=value
// connection string, for redaction.
func secretsOf(raw string) []string {
	if raw == "" {
		return nil
	}
	var out []string
	if strings.HasPrefix(raw, "postgres://") || strings.HasPrefix(raw, "postgresql://") {
		rest := raw[strings.Index(raw, "://")+3:]
		host := rest
		if i := strings.IndexAny(rest, "/?#"); i >= 0 {
			host = rest[:i]
		}
		if at := strings.LastIndex(host, "@"); at >= 0 {
			// A lone user info may be a password typed where the user goes: hidden too. Beside
			// a password, the user name is not a secret and stays readable.
			if user, _, found := strings.Cut(host[:at], ":"); !found && user != "" {
				out = append(out, user)
				if dec, err := url.PathUnescape(user); err == nil && dec != user {
					out = append(out, dec)
				}
			}
			if _, pw, found := strings.Cut(host[:at], ":"); found && pw != "" {
				out = append(out, pw)
				if dec, err := url.PathUnescape(pw); err == nil && dec != pw {
					out = append(out, dec)
				}
			}
		}
		// password=… in the query string (lib/pq reads every query parameter as a setting).
		if _, q, ok := strings.Cut(raw, "?"); ok {
			for _, kv := range strings.Split(q, "&") {
				if v, ok := strings.CutPrefix(kv, "password="); ok && v != "" {
					out = append(out, v)
					if dec, err := url.QueryUnescape(v); err == nil && dec != v {
						out = append(out, dec)
					}
				}
			}
		}
		return out
	}
	for _, m := range kvPassword.FindAllStringSubmatch(raw, -1) {
		v := m[1]
		if strings.HasPrefix(v, "'") {
			v = strings.TrimSuffix(strings.TrimPrefix(v, "'"), "'")
			out = append(out, v, strings.NewReplacer(`\'`, `'`, `\\`, `\`).Replace(v))
		} else if v != "" {
			out = append(out, v)
		}
	}
	return out
}

var kvPassword = regexp.MustCompile(`(?:^|\s)password\s*=\s*('(?:[^'\\]|\\.)*'|\S+)`)

func isURL(raw string) bool {
	return strings.HasPrefix(raw, "postgres://") || strings.HasPrefix(raw, "postgresql://")
}

// ConnectionURL: PG_URL plus what it does not set itself, then the settings as run-time
// parameters (lib/pq sends connection-string keys it does not know to the server at connect
// time: github.com/lib/pq v1.12.3, connector.go, Config.Runtime). Mirrors connectionUrl()
// of lib/targets/postgres/postgres.js for a URL; a key=value PG_URL gets the same keys in its form.
func ConnectionURL(raw string, settings [][2]string) string {
	var extra [][2]string
	if isURL(raw) {
		for _, d := range [][2]string{{"connect_timeout", "5"}, {"application_name", "k6-writepath"}, {"binary_parameters", "yes"}} {
			if !regexp.MustCompile(`[?&]` + d[0] + `=`).MatchString(raw) {
				extra = append(extra, d)
			}
		}
		extra = append(extra, settings...)
		if len(extra) == 0 {
			return raw
		}
		parts := make([]string, len(extra))
		for i, kv := range extra {
			parts[i] = url.QueryEscape(kv[0]) + "=" + url.QueryEscape(kv[1])
		}
		sep := "?"
		if strings.Contains(raw, "?") {
			sep = "&"
		}
		return raw + sep + strings.Join(parts, "&")
	}
	for _, d := range [][2]string{{"connect_timeout", "5"}, {"application_name", "k6-writepath"}, {"binary_parameters", "yes"}} {
		if !regexp.MustCompile(`(?:^|\s)` + d[0] + `\s*=`).MatchString(raw) {
			extra = append(extra, d)
		}
	}
	extra = append(extra, settings...)
	out := raw
	for _, kv := range extra {
		out += " " + kv[0] + "='" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(kv[1]) + "'"
	}
	return strings.TrimSpace(out)
}

var settingName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.]*$`)

func (s *Service) open(w http.ResponseWriter, r *http.Request, t *wire.Timing) *wire.Refusal {
	var req struct {
		Settings map[string]any `json:"settings"`
		MaxConns *json.Number   `json:"max_conns"`
	}
	if ref := readOptionalJSON(r, &req); ref != nil {
		return ref
	}
	maxConns := 1
	if req.MaxConns != nil {
		n, err := req.MaxConns.Int64()
		if err != nil || n < 1 || n > 10000 {
			return wire.Refuse(wire.KindInput, "max_conns must be a whole number from 1 to 10000, not %s", *req.MaxConns)
		}
		maxConns = int(n)
	}
	// The URL alone first: a malformed PG_URL is the gateway's configuration, not the input.
	if msg := s.CheckURL(); msg != "" {
		return wire.Refuse(wire.KindConfig, "%s", msg)
	}
	settings := make([][2]string, 0, len(req.Settings))
	for k, v := range req.Settings {
		if !settingName.MatchString(k) {
			return wire.Refuse(wire.KindInput, "setting name %q is not a PostgreSQL parameter name", k)
		}
		var text string
		switch x := v.(type) {
		case string:
			text = x
		case json.Number:
			text = x.String()
		case bool:
			text = strconv.FormatBool(x)
		default:
			return wire.Refuse(wire.KindInput, "setting %s: a string, number or boolean is required", k)
		}
		settings = append(settings, [2]string{k, text})
	}
	// Stable order (a map's is random): the server applies them in the order given.
	sortPairs(settings)
	db, binary, err := OpenDB(ConnectionURL(s.rawURL, settings))
	if err != nil {
		return wire.Refuse(wire.KindInput, "settings are not allowed: %s", wire.HideQuoted(err.Error(), paramNames))
	}
	db.SetMaxOpenConns(maxConns)
	db.SetMaxIdleConns(maxConns)
	id := s.handles.Add(&handle{db: db, binary: binary})
	wire.Answer(w, t, map[string]any{"handle": id, "binary": binary})
	return nil
}

func sortPairs(p [][2]string) {
	for i := 1; i < len(p); i++ {
		for j := i; j > 0 && p[j][0] < p[j-1][0]; j-- {
			p[j], p[j-1] = p[j-1], p[j]
		}
	}
}

// readOptionalJSON: an empty body means all defaults.
func readOptionalJSON(r *http.Request, v any) *wire.Refusal {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return wire.Refuse(wire.KindInput, "reading the body: %v", err)
	}
	if strings.TrimSpace(string(body)) == "" {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return wire.Refuse(wire.KindInput, "the body is not the JSON expected: %v", err)
	}
	return nil
}

func (s *Service) handle(r *http.Request) (*handle, *wire.Refusal) {
	return s.handles.Of(r)
}

func (s *Service) close(w http.ResponseWriter, r *http.Request, t *wire.Timing) *wire.Refusal {
	h, ref := s.handles.Take(r)
	if ref != nil {
		return ref
	}
	t.Driver(func() { _ = h.db.Close() })
	wire.Answer(w, t, struct{}{})
	return nil
}

// timeoutOf: timeout_ms (milliseconds, above 0), or 0 when absent: then only the request's
// own context (k6's connection) bounds the statement.
func timeoutOf(r *http.Request) (time.Duration, *wire.Refusal) {
	v := r.URL.Query().Get("timeout_ms")
	if v == "" {
		return 0, nil
	}
	ms, err := strconv.ParseFloat(v, 64)
	if err != nil || ms < 0 || math.IsInf(ms, 0) || math.IsNaN(ms) {
		return 0, wire.Refuse(wire.KindInput, "timeout_ms must be a number of milliseconds, not %q", v)
	}
	return time.Duration(ms * float64(time.Millisecond)), nil
}

// Batch bodies (~1.2 MB at BATCH_SIZE=1000) are read into a pooled buffer of exactly
// Content-Length bytes, reused once the statement returned (lib/pq has copied the parameter
// into its message by then). Why: io.ReadAll starts at 512 bytes and doubles, so every batch
// allocated, zeroed and copied ~2.5 MB and left it to the garbage collector: a quarter of the
// gateway's CPU in its profile, and with the GC it drove more than half: the gateway's CPU per
// 1000 documents went from 4.4 to 1.8 ms with the pool (A/B, bench/gateway.mjs, bench/RESULTS.md).
var bodyPool sync.Pool // of *[]byte

// maxPooledBody: larger bodies (or no Content-Length) are read as before.
const maxPooledBody = 64 << 20

// readBody -> the body and a release func to call once nothing reads the body any more.
func readBody(r *http.Request) ([]byte, func(), error) {
	n := r.ContentLength
	if n < 0 || n > maxPooledBody {
		b, err := io.ReadAll(r.Body)
		return b, func() {}, err
	}
	bp, _ := bodyPool.Get().(*[]byte)
	if bp == nil || int64(cap(*bp)) < n {
		b := make([]byte, 0, n)
		bp = &b
	}
	buf := (*bp)[:n] // never nil: an empty body stays an empty parameter, not NULL
	release := func() { bodyPool.Put(bp) }
	if _, err := io.ReadFull(r.Body, buf); err != nil {
		release()
		return nil, nil, err
	}
	return buf, release, nil
}

// statement reads one of three forms: JSON {"sql","args"}; the sql query parameter with the
// body as the one parameter $1 (a []byte: binary format with binary_parameters); or, with
// render=1 too, a recipe (package render) whose body is $1. release: to call once the
// statement has returned (the body's buffer goes back to the pool).
func statement(r *http.Request, images *render.Store) (string, []any, func(), *wire.Refusal) {
	release := func() {}
	q := r.URL.Query()
	if q.Has("sql") && q.Get("render") == "1" {
		if q.Get("sql") == "" {
			return "", nil, release, wire.Refuse(wire.KindInput, "the sql query parameter is empty")
		}
		rc, ref := render.ReadRecipe(r)
		if ref != nil {
			return "", nil, release, ref
		}
		body, rel, ref := images.Render(rc)
		if ref != nil {
			return "", nil, release, ref
		}
		return q.Get("sql"), []any{body}, rel, nil
	}
	if q.Has("sql") {
		body, rel, err := readBody(r)
		if err != nil {
			return "", nil, release, wire.Refuse(wire.KindInput, "reading the body: %v", err)
		}
		if q.Get("sql") == "" {
			rel()
			return "", nil, release, wire.Refuse(wire.KindInput, "the sql query parameter is empty")
		}
		return q.Get("sql"), []any{body}, rel, nil
	}
	var req struct {
		SQL  string `json:"sql"`
		Args []any  `json:"args"`
	}
	if ref := wire.ReadJSON(r, &req); ref != nil {
		return "", nil, release, ref
	}
	if req.SQL == "" {
		return "", nil, release, wire.Refuse(wire.KindInput, "sql is required")
	}
	args := make([]any, len(req.Args))
	for i, a := range req.Args {
		switch x := a.(type) {
		case json.Number:
			if n, err := x.Int64(); err == nil {
				args[i] = n
			} else if f, err := x.Float64(); err == nil {
				args[i] = f
			} else {
				args[i] = x.String()
			}
		case map[string]any, []any:
			// A JSON value as its JSON text (e.g. for a $n::jsonb parameter).
			b, err := json.Marshal(x)
			if err != nil {
				return "", nil, release, wire.Refuse(wire.KindInput, "args[%d]: %v", i, err)
			}
			args[i] = string(b)
		default: // string, bool, nil
			args[i] = x
		}
	}
	return req.SQL, args, release, nil
}

// errorObject: the database's answer to a failed statement.
func (s *Service) errorObject(err error, tr *Trace) map[string]any {
	code := ""
	var st interface{ SQLState() string }
	if errors.As(err, &st) {
		code = st.SQLState()
	}
	return map[string]any{"error": map[string]any{"message": s.redact.Redact(err.Error()), "sqlstate": code, "sent": tr.Sent()}}
}

func (s *Service) run(w http.ResponseWriter, r *http.Request, t *wire.Timing, query bool) *wire.Refusal {
	h, ref := s.handle(r)
	if ref != nil {
		return ref
	}
	timeout, ref := timeoutOf(r)
	if ref != nil {
		return ref
	}
	text, args, release, ref := statement(r, s.Images)
	defer release()
	if ref != nil {
		return ref
	}
	// The request's context: a k6 connection that goes away cancels the statement (the
	// driver cuts it as at a deadline).
	ctx := r.Context()
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	tr := &Trace{}
	ctx = WithTrace(ctx, tr)
	if !query {
		var res sql.Result
		var err error
		t.Driver(func() { res, err = h.db.ExecContext(ctx, text, args...) })
		if err != nil {
			wire.Answer(w, t, s.errorObject(err, tr))
			return nil
		}
		n, _ := res.RowsAffected()
		wire.Answer(w, t, map[string]any{"rows_affected": n})
		return nil
	}
	var cols []string
	var rows [][]any
	var err error
	t.Driver(func() { cols, rows, err = collect(ctx, h.db, text, args) })
	if err != nil {
		wire.Answer(w, t, s.errorObject(err, tr))
		return nil
	}
	b, err := encodeRows(cols, rows)
	if err != nil {
		return wire.Refuse(wire.KindInput, "the rows cannot be written as JSON: %v", err)
	}
	wire.Write(w, t, http.StatusOK, b)
	return nil
}

func collect(ctx context.Context, db *sql.DB, text string, args []any) ([]string, [][]any, error) {
	rs, err := db.QueryContext(ctx, text, args...)
	if err != nil {
		return nil, nil, err
	}
	defer rs.Close()
	cols, err := rs.Columns()
	if err != nil {
		return nil, nil, err
	}
	var out [][]any
	for rs.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			return nil, nil, err
		}
		out = append(out, vals)
	}
	if err := rs.Err(); err != nil {
		return nil, nil, err
	}
	return cols, out, nil
}

// encodeRows: {"rows":[{col:value,…}]} with the columns in the statement's order. Values:
// NULL -> null, integers and floats -> numbers, booleans, text and bytes -> strings, times ->
// RFC 3339 strings (docs/gateway.md).
func encodeRows(cols []string, rows [][]any) ([]byte, error) {
	names := make([][]byte, len(cols))
	for i, c := range cols {
		b, err := json.Marshal(c)
		if err != nil {
			return nil, err
		}
		names[i] = b
	}
	out := []byte(`{"rows":[`)
	for ri, row := range rows {
		if ri > 0 {
			out = append(out, ',')
		}
		out = append(out, '{')
		for i, v := range row {
			if i > 0 {
				out = append(out, ',')
			}
			out = append(out, names[i]...)
			out = append(out, ':')
			var err error
			if out, err = appendValue(out, v); err != nil {
				return nil, err
			}
		}
		out = append(out, '}')
	}
	return append(out, "]}"...), nil
}

func appendValue(out []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(out, "null"...), nil
	case int64:
		return strconv.AppendInt(out, x, 10), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return strconv.AppendQuote(out, strconv.FormatFloat(x, 'g', -1, 64)), nil
		}
		return strconv.AppendFloat(out, x, 'g', -1, 64), nil
	case bool:
		return strconv.AppendBool(out, x), nil
	case []byte:
		return appendString(out, string(x))
	case string:
		return appendString(out, x)
	case time.Time:
		return appendString(out, x.Format(time.RFC3339Nano))
	}
	return appendString(out, fmt.Sprint(v))
}

func appendString(out []byte, s string) ([]byte, error) {
	b, err := wire.Marshal(s)
	if err != nil {
		return nil, err
	}
	return append(out, b...), nil
}
