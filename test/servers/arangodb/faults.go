package main

import (
	"encoding/json"
	"io"
	"math/rand"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/k6-writepath/k6-writepath/test/servers/internal/notnow"
)

// stats counts what tests assert on besides data (GET /_testserver/stats): calls of
// POST /_open/auth (and /renew), and 401 answers. Reset by /_testserver/reset.
type stats struct {
	openAuth     atomic.Int64
	renew        atomic.Int64
	unauthorized atomic.Int64
}

func (st *stats) snapshot() map[string]int64 {
	return map[string]int64{"openAuth": st.openAuth.Load(), "renew": st.renew.Load(), "unauthorized": st.unauthorized.Load()}
}

func (st *stats) reset() {
	st.openAuth.Store(0)
	st.renew.Store(0)
	st.unauthorized.Store(0)
}

// faultConfig is the JSON shape of /_testserver/faults (and of the flags).
type faultConfig struct {
	LatencyMs              int         `json:"latencyMs"`
	LatencyJitterMs        int         `json:"latencyJitterMs"`
	ElementFailureRate     float64     `json:"elementFailureRate"`
	ElementFailureErrorNum int         `json:"elementFailureErrorNum"`
	Burst503               burstConfig `json:"burst503"`
	DropConnectionRate     float64     `json:"dropConnectionRate"`
	CutAfterBodyRate       float64     `json:"cutAfterBodyRate"`
	AuthFailAfter          int         `json:"authFailAfter"`
	UpsertHoldMs           int         `json:"upsertHoldMs"` // cursor.go: key locks held before commit
	// A window of "not now" answers (internal/notnow) over every /_api route: 503 errorNum 503,
	// as arangod answers in startup or maintenance mode before any handler (CommTask::prepareExecution,
	// arangodb/arangodb arangod/GeneralServer/CommTask.cpp). Its route: "<METHOD> /_api/…" without
	// the /_db/<db> prefix, e.g. "GET /_api/collection".
	NotNow *notnow.Config `json:"notNow,omitempty"`
	Seed   int64          `json:"seed"`
}

type burstConfig struct {
	Every  int `json:"every"`
	Length int `json:"length"`
	// ErrorNum of the 503: 503 (the default) as arangod answers in startup or maintenance mode
	// before any handler runs ("not now"); 1478 as a coordinator answers when a DB server it
	// needs cannot be reached (arangodb/arangodb lib/Basics/errors.dat,
	// TRI_ERROR_CLUSTER_BACKEND_UNAVAILABLE).
	ErrorNum int `json:"errorNum,omitempty"`
}

// faults holds the active config plus its counters; setting a config resets
// the counters and reseeds the random source so runs are reproducible.
type faults struct {
	mu         sync.Mutex
	cfg        faultConfig
	rng        *rand.Rand
	writeCount int // document-write requests seen (for burst503)
	authCount  int // requests seen (for authFailAfter)
	notNow     notnow.Window
}

func (f *faults) set(c faultConfig) {
	if c.ElementFailureErrorNum == 0 {
		c.ElementFailureErrorNum = 1200
	}
	f.mu.Lock()
	f.cfg = c
	f.rng = rand.New(rand.NewSource(c.Seed))
	f.writeCount, f.authCount = 0, 0
	f.notNow.Set(c.NotNow)
	f.mu.Unlock()
}

func (f *faults) get() faultConfig {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cfg
}

// latency is the delay of one request: latencyMs plus, with latencyJitterMs, a seeded uniform
// 0..latencyJitterMs ms (a test knob for timing only: the answers stay the same).
func (f *faults) latency() time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	ms := f.cfg.LatencyMs
	if f.cfg.LatencyJitterMs > 0 {
		ms += f.rng.Intn(f.cfg.LatencyJitterMs + 1)
	}
	return time.Duration(ms) * time.Millisecond
}

// authRevoked counts a request and reports whether auth has been "revoked":
// with authFailAfter N, requests N+1, N+2, ... get 401.
func (f *faults) authRevoked() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cfg.AuthFailAfter <= 0 {
		return false
	}
	f.authCount++
	return f.authCount > f.cfg.AuthFailAfter
}

// answerNotNow answers a request to /_api/… that falls in the notNow window and reports
// whether it did. segs: the path's segments without the /_db/<db> prefix.
func (s *server) answerNotNow(w http.ResponseWriter, r *http.Request, segs []string) bool {
	if len(segs) < 1 || segs[0] != "_api" || !s.faults.notNow.Refuse(r.Method+" /"+strings.Join(segs, "/")) {
		return false
	}
	writeError(w, 503, 503, "service unavailable due to startup or maintenance mode")
	return true
}

// cutAfterBody decides (seeded) whether a document-write request, once read whole and
// committed, loses its connection instead of its answer (cutAfterBodyRate).
func (f *faults) cutAfterBody() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	rate := f.cfg.CutAfterBodyRate
	return rate > 0 && (rate >= 1 || f.rng.Float64() < rate)
}

// writeFault decides, for one document-write request, whether to drop the
// connection mid-body or answer 503. Bursts: of every `every` consecutive
// document-write requests the LAST `length` get 503 (so with every=5,
// length=2 requests 4,5,9,10,... fail).
func (f *faults) writeFault() (drop bool, burst int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.writeCount++
	if f.cfg.DropConnectionRate > 0 && f.rng.Float64() < f.cfg.DropConnectionRate {
		return true, 0
	}
	b := f.cfg.Burst503
	if b.Every > 0 && b.Length > 0 {
		pos := (f.writeCount - 1) % b.Every
		if pos >= b.Every-b.Length {
			if b.ErrorNum != 0 {
				return false, b.ErrorNum
			}
			return false, 503
		}
	}
	return false, 0
}

// answerWriteFault applies writeFault to one write request: it drops the connection or answers
// 503 (as documented beside writeFault) and returns true when it did, so the handler stops.
func (s *server) answerWriteFault(w http.ResponseWriter, r *http.Request) bool {
	drop, burst := s.faults.writeFault()
	if drop {
		dropConnection(w, r)
	} else if burst == 503 {
		writeError(w, 503, 503, "service unavailable due to startup or maintenance mode")
	} else if burst != 0 {
		writeError(w, 503, burst, "A cluster backend which was required for the operation could not be reached")
	}
	return drop || burst != 0
}

// cutAfterCommit: with cutAfterBodyRate, a write request is handled in full (read whole,
// committed) into a writer that keeps its answer, and then its connection is reset (RST)
// instead of answered. Not an ArangoDB answer but a fact of HTTP: a server killed, or a
// connection lost, between the commit and the answer leaves exactly this (the real RavenDB
// 4.1.0 killed with SIGKILL did, test/servers/ravendb/faults.go), and the client cannot tell
// it from a cut before the commit (lib/targets/outcome.js maybeArrived). Returns the writer
// the handler answers into and what to run once it has returned.
func (s *server) cutAfterCommit(w http.ResponseWriter) (http.ResponseWriter, func()) {
	if !s.faults.cutAfterBody() {
		return w, func() {}
	}
	return &lostAnswer{h: http.Header{}}, func() { resetConnection(w) }
}

// lostAnswer is a ResponseWriter whose answer never leaves the server.
type lostAnswer struct{ h http.Header }

func (l *lostAnswer) Header() http.Header         { return l.h }
func (l *lostAnswer) Write(b []byte) (int, error) { return len(b), nil }
func (l *lostAnswer) WriteHeader(int)             {}

// resetConnection hijacks the client connection and closes it with SO_LINGER 0: an RST, no
// answer.
func resetConnection(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(interface{ SetLinger(int) error }); ok {
		_ = tc.SetLinger(0)
	}
	conn.Close()
}

// elementFailures returns, for an array write of n elements, which indexes
// fail (nil if none) and the errorNum to report.
func (f *faults) elementFailures(n int) ([]bool, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rate := f.cfg.ElementFailureRate
	if rate <= 0 {
		return nil, 0
	}
	out := make([]bool, n)
	for i := range out {
		out[i] = f.rng.Float64() < rate
	}
	return out, f.cfg.ElementFailureErrorNum
}

// dropConnection reads part of the request body, then hijacks and closes the
// TCP connection: the client sees the connection reset mid-request.
func dropConnection(w http.ResponseWriter, r *http.Request) {
	n := r.ContentLength / 2
	if n <= 0 {
		n = 1
	}
	io.CopyN(io.Discard, r.Body, n)
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	conn.Close()
}

// handleTestServer serves /_testserver/faults (GET, POST), /_testserver/stats (GET) and
// /_testserver/reset (POST).
// POST /faults replaces the whole config: omitted fields take their zero
// value (elementFailureErrorNum defaults to 1200).
func (s *server) handleTestServer(w http.ResponseWriter, r *http.Request, rest []string) {
	switch {
	case len(rest) == 1 && rest[0] == "faults" && r.Method == http.MethodGet:
		writeJSON(w, 200, s.faults.get())
	case len(rest) == 1 && rest[0] == "faults" && r.Method == http.MethodPost:
		var c faultConfig
		if err := json.NewDecoder(r.Body).Decode(&c); err != nil {
			writeError(w, 400, 600, "invalid JSON object: "+err.Error())
			return
		}
		s.faults.set(c)
		writeJSON(w, 200, s.faults.get())
	case len(rest) == 1 && rest[0] == "stats" && r.Method == http.MethodGet:
		writeJSON(w, 200, s.stats.snapshot())
	case len(rest) == 1 && rest[0] == "reset" && r.Method == http.MethodPost:
		// Clears all data, transactions and stats and restores the startup faults.
		s.resetData()
		s.faults.set(s.initialFaults)
		s.stats.reset()
		writeJSON(w, 200, map[string]any{"error": false, "code": 200})
	default:
		writeError(w, 404, 404, "unknown path '"+r.URL.Path+"'")
	}
}
