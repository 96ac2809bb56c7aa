package main

// Fault injection for testing how the k6 scenarios report failures.
//
//   - latencyMs: sleep before handling every RavenDB request (not /_testserver);
//     latencyJitterMs: plus a seeded uniform 0..latencyJitterMs ms (timing only: the answers
//     stay the same).
//   - burst503 {every, length}: counting write requests (POST bulk_insert,
//     POST bulk_docs, PUT/DELETE docs) from 1, after every `every` accepted
//     writes the next `length` writes get 503 DatabaseDisabledException
//     (cycle of every+length: writes every+1..every+length of each cycle fail).
//     The real server answers 503 for a disabled/loading database
//     (RavenServerStartup.MaybeSetExceptionStatusCode, ravendb/ravendb).
//   - dropConnectionRate: share of bulk_insert / bulk_docs requests whose
//     connection is hijacked and closed after reading about half of the body
//     (half of Content-Length; 64 KiB for chunked bodies). For bulk insert the
//     batches committed before the drop stay committed and the operation is
//     Faulted, like the real server's internal batches (AbstractBulkInsertHandlerProcessor, ravendb/ravendb).
//   - seed: seeds the drop decisions; every POST /_testserver/faults re-seeds
//     and restarts the burst counter, so tests are deterministic.

import (
	"encoding/json"
	"io"
	"math/rand"
	"net/http"
	"sync"
	"time"
)

type burstConfig struct {
	Every  int `json:"every"`
	Length int `json:"length"`
}

type faultConfig struct {
	LatencyMs          int         `json:"latencyMs"`
	LatencyJitterMs    int         `json:"latencyJitterMs"`
	Burst503           burstConfig `json:"burst503"`
	DropConnectionRate float64     `json:"dropConnectionRate"`
	Seed               int64       `json:"seed"`
}

type faultState struct {
	mu      sync.Mutex
	initial faultConfig
	cfg     faultConfig
	writes  int64
	rng     *rand.Rand
}

func newFaultState(cfg faultConfig) *faultState {
	f := &faultState{initial: cfg}
	f.set(cfg)
	return f
}

func (f *faultState) set(cfg faultConfig) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cfg = cfg
	f.writes = 0
	f.rng = rand.New(rand.NewSource(cfg.Seed))
}

func (f *faultState) get() faultConfig {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cfg
}

func (f *faultState) applyLatency() {
	f.mu.Lock()
	ms := f.cfg.LatencyMs
	if f.cfg.LatencyJitterMs > 0 {
		ms += f.rng.Intn(f.cfg.LatencyJitterMs + 1)
	}
	f.mu.Unlock()
	if ms > 0 {
		time.Sleep(time.Duration(ms) * time.Millisecond)
	}
}

// next503 counts one write request and reports whether it must get a 503.
func (f *faultState) next503() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	b := f.cfg.Burst503
	if b.Every <= 0 || b.Length <= 0 {
		return false
	}
	f.writes++
	pos := (f.writes - 1) % int64(b.Every+b.Length)
	return pos >= int64(b.Every)
}

// shouldDrop decides (seeded) whether this request's connection is dropped.
func (f *faultState) shouldDrop() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	rate := f.cfg.DropConnectionRate
	if rate <= 0 {
		return false
	}
	if rate >= 1 {
		return true
	}
	return f.rng.Float64() < rate
}

// errDropped is returned by dropReader once the drop point is reached.
type dropError struct{}

func (dropError) Error() string {
	return "Unable to read data from the transport connection: Connection reset by peer (test server fault injection: dropConnection)"
}

var errDropped error = dropError{}

// dropReader passes through up to limit bytes, then fails with errDropped.
type dropReader struct {
	r     io.Reader
	limit int64
	n     int64
}

func (d *dropReader) Read(p []byte) (int, error) {
	if d.n >= d.limit {
		return 0, errDropped
	}
	if rem := d.limit - d.n; int64(len(p)) > rem {
		p = p[:rem]
	}
	n, err := d.r.Read(p)
	d.n += int64(n)
	return n, err
}

func dropLimit(r *http.Request) int64 {
	if r.ContentLength > 0 {
		return r.ContentLength / 2
	}
	return 64 << 10
}

// hijackAndClose closes the client connection without a response.
func hijackAndClose(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			if tc, ok := conn.(interface{ SetLinger(int) error }); ok {
				_ = tc.SetLinger(0) // RST rather than FIN: the client sees a reset mid-request
			}
			_ = conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler)
}

// handleControl serves /_testserver/faults (GET, POST) and /_testserver/reset (POST).
func (s *server) handleControl(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	switch {
	case r.URL.Path == "/_testserver/faults" && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, s.faults.get())
	case r.URL.Path == "/_testserver/faults" && r.Method == http.MethodPost:
		// Fields present in the body replace the current values; absent ones stay.
		cfg := s.faults.get()
		dec := json.NewDecoder(r.Body)
		dec.DisallowUnknownFields()
		if err := dec.Decode(&cfg); err != nil && err != io.EOF {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "bad faults JSON: " + err.Error()})
			return
		}
		s.faults.set(cfg)
		writeJSON(w, http.StatusOK, s.faults.get())
	case r.URL.Path == "/_testserver/reset" && r.Method == http.MethodPost:
		// Drops all databases and restores the faults given on the command line.
		s.mu.Lock()
		s.dbs = make(map[string]*database)
		s.mu.Unlock()
		s.faults.set(s.faults.initial)
		writeJSON(w, http.StatusOK, map[string]any{"reset": true, "faults": s.faults.get()})
	default:
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "unknown test server control route " + r.Method + " " + r.URL.Path})
	}
}
