// Command arangodb is an API-faithful ArangoDB test double for the project's tests.
// It is NOT a database to benchmark: it keeps everything in memory and
// implements only the HTTP surface the k6 scenarios and the arangojs fidelity
// tests use. Behaviour follows the ArangoDB docs (arangodb/docs-hugo "DOCS"),
// the examples recorded there from real servers (site/data/3.12/cache.json, "EX") and the
// server source (arangodb/arangodb, "SRC"); comments cite them where the behaviour is
// subtle, and failure answers are audited in docs/fidelity.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/k6-writepath/k6-writepath/test/servers/internal/loadlatency"
	"github.com/k6-writepath/k6-writepath/test/servers/internal/storelimit"
)

func main() {
	var (
		addr        = flag.String("addr", "127.0.0.1:8529", "listen address")
		rootPw      = flag.String("root-password", "", "password of user root")
		noAuth      = flag.Bool("no-auth", false, "disable authentication (like --server.authentication false)")
		version     = flag.String("version", "3.12.4", "version reported by /_api/version")
		trxIdle     = flag.Duration("trx-idle-timeout", 60*time.Second, "stream transaction idle timeout")
		sessionTTL  = flag.Duration("session-timeout", 3600*time.Second, "lifetime of the JWTs /_open/auth issues (like --server.session-timeout); an expired token gets 401")
		latency     = flag.Int("latency-ms", 0, "fault: added latency per request (ms)")
		jitter      = flag.Int("latency-jitter-ms", 0, "fault: a further seeded uniform 0..N ms per request (timing only; with -latency-ms, a server whose answer times vary)")
		elemRate    = flag.Float64("element-failure-rate", 0, "fault: share of array-write elements that fail")
		elemErr     = flag.Int("element-failure-errornum", 1200, "fault: errorNum of injected element failures")
		burstEvery  = flag.Int("burst503-every", 0, "fault: a 503 burst in every N document-write requests")
		burstLength = flag.Int("burst503-length", 0, "fault: length of each 503 burst")
		dropRate    = flag.Float64("drop-connection-rate", 0, "fault: share of document-write requests whose connection is dropped mid-body")
		cutRate     = flag.Float64("cut-after-body-rate", 0, "fault: share of document-write requests read whole and committed whose connection is then reset without an answer")
		authFail    = flag.Int("auth-fail-after", 0, "fault: answer 401 to every request after N requests (0 = off)")
		upsertHold  = flag.Int("upsert-hold-ms", 0, "fault: an AQL upsert holds its key locks this long before it commits (ms)")
		seed        = flag.Int64("seed", 1, "fault: random seed")
	)
	loadLatency := loadlatency.Register()
	storeLimit = storelimit.Register("arangodb-testserver")
	flag.Parse()

	s := newServer(*rootPw, *noAuth, *version, *trxIdle)
	if *sessionTTL < time.Second {
		fmt.Fprintln(os.Stderr, "-session-timeout must be at least 1s (JWT exp has whole seconds)")
		os.Exit(2)
	}
	s.sessionTTL = *sessionTTL
	s.initialFaults = faultConfig{
		LatencyMs:              *latency,
		LatencyJitterMs:        *jitter,
		ElementFailureRate:     *elemRate,
		ElementFailureErrorNum: *elemErr,
		Burst503:               burstConfig{Every: *burstEvery, Length: *burstLength},
		DropConnectionRate:     *dropRate,
		CutAfterBodyRate:       *cutRate,
		AuthFailAfter:          *authFail,
		UpsertHoldMs:           *upsertHold,
		Seed:                   *seed,
	}
	s.faults.set(s.initialFaults)

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	srv := &http.Server{Handler: loadlatency.Wrap(s, loadLatency), ReadHeaderTimeout: 30 * time.Second}
	// The test helper waits for exactly this first stdout line.
	fmt.Printf("listening on http://%s\n", ln.Addr().String())
	os.Stdout.Sync()

	go s.trx.sweep(time.Second)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// ServeHTTP strips the optional /_db/<db> prefix, applies auth and faults and routes.
// testEndpointHeader is the header lib/test-endpoint.js looks for (TEST_ENDPOINT_HEADER).
const testEndpointHeader = "X-K6wp-Test-Endpoint"

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Always consume the request body before the response goes out: when we
	// answer early (503 burst, 401, 404) with a large unread body, Go's server
	// would otherwise close the connection and a client still uploading a
	// 10 MB batch would see a reset instead of the error response.
	defer io.Copy(io.Discard, r.Body)
	w.Header().Set("Server", "ArangoDB")
	// Not an ArangoDB header: it tells the pack (lib/test-endpoint.js) that a test double
	// answered, so every result of the run is labelled TEST ENDPOINT.
	w.Header().Set(testEndpointHeader, "arangodb-testserver")
	// Every response carries the queue-time header since 3.9 (DOCS:general-request-handling).
	w.Header().Set("X-Arango-Queue-Time-Seconds", "0.000000")

	segs := splitPath(r.URL.EscapedPath())
	dbName := "_system"
	if len(segs) >= 2 && segs[0] == "_db" {
		dbName = segs[1]
		segs = segs[2:]
	}

	// Test-only control endpoints: no auth, no faults.
	if len(segs) >= 1 && segs[0] == "_testserver" {
		s.handleTestServer(w, r, segs[1:])
		return
	}

	if !s.authorize(w, r, segs) {
		return
	}
	if d := s.faults.latency(); d > 0 {
		time.Sleep(d)
	}
	if s.answerNotNow(w, r, segs) {
		return
	}

	if len(segs) >= 2 && segs[0] == "_open" && segs[1] == "auth" {
		s.handleOpenAuth(w, r, segs[2:])
		return
	}
	if len(segs) < 2 || segs[0] != "_api" {
		writeError(w, 404, 404, "unknown path '"+r.URL.Path+"'")
		return
	}
	db := s.getDB(dbName)
	if db == nil {
		writeError(w, 404, 1228, "database not found")
		return
	}
	rest := segs[2:]
	switch segs[1] {
	case "version":
		s.handleVersion(w, r)
	case "database":
		s.handleDatabase(w, r, db, rest)
	case "collection":
		s.handleCollection(w, r, db, rest)
	case "index":
		s.handleIndex(w, r, db, rest)
	case "document":
		s.handleDocument(w, r, db, rest)
	case "transaction":
		s.handleTransaction(w, r, db, rest)
	case "cursor":
		s.handleCursor(w, r, db, rest)
	default:
		writeError(w, 404, 404, "unknown path '"+r.URL.Path+"'")
	}
}

// splitPath splits an escaped URL path into unescaped, non-empty segments.
func splitPath(p string) []string {
	parts := strings.Split(p, "/")
	out := parts[:0]
	for _, part := range parts {
		if part == "" {
			continue
		}
		if u, err := url.PathUnescape(part); err == nil {
			part = u
		}
		out = append(out, part)
	}
	return out
}
