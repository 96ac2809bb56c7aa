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
//   - cutAfterBodyRate: share of bulk_insert / bulk_docs requests that are read whole and
//     committed, then their connection is closed (RST) without an answer: what a server that
//     dies or loses the connection between its commit and its answer leaves (seen on 4.1.0:
//     killed with SIGKILL mid-run, two batches got "unexpected EOF" and were stored). Not one
//     of RavenDB's answers but a fact of HTTP: the client cannot tell it from a cut before the
//     commit, so such a batch is undetermined (lib/targets/outcome.js maybeArrived).
//   - indexLagMs: a static index catches up this long after each bulk_docs commit (0: never
//     stale). A batch whose waitForIndexesTimeout is shorter is committed, waits that long and
//     is answered 408 (handleBulkDocs, waitForIndexes in batch.go), as 4.1.0 does.
//   - bulkInsertText: "4.x" or "6.x", the words of a failed bulk insert (bulkinsert.go,
//     progressText); "" follows -version (4.x for a 4.* version, else 6.x).
//   - deleteWindowMs: DELETE /admin/databases first unloads the database for this long: its
//     routes answer 503 DatabaseDisabledException, then it is gone (500
//     DatabaseDoesNotExistException), and only then is the DELETE answered, as on 4.1.0.
//   - bulkStartDelayMs: a bulk_insert handler waits this long before it registers its
//     operation, so operations/state answers 404 for it meanwhile: 4.x registers the operation
//     only when its handler runs (BulkInsertHandler.cs, Database.Operations.AddOperation), which
//     a busy 4.1.0 did after the client's TIMEOUT (404 at 150 ms, the documents stored later).
//   - notNow {on, ms}: a window of 503 NodeIsPassiveException over every database route and
//     /admin/databases (internal/notnow), opened by the first request whose route is `on`:
//     "<METHOD> <sub-route>" of a database ("GET collections/stats", as routeDatabase names
//     them) or "<METHOD> <path>" of the server ("DELETE /admin/databases").
//   - seed: seeds the drop and cut decisions; every POST /_testserver/faults re-seeds
//     and restarts the burst counter, so tests are deterministic.
//
// And the start windows of a restarted server (flags -start-empty500-ms, -start-nre-ms,
// -start-passive-ms; startWindows below), counted from the process start.

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/k6-writepath/k6-writepath/test/servers/internal/notnow"
)

type burstConfig struct {
	Every  int `json:"every"`
	Length int `json:"length"`
}

type faultConfig struct {
	LatencyMs          int            `json:"latencyMs"`
	LatencyJitterMs    int            `json:"latencyJitterMs"`
	Burst503           burstConfig    `json:"burst503"`
	DropConnectionRate float64        `json:"dropConnectionRate"`
	CutAfterBodyRate   float64        `json:"cutAfterBodyRate"`
	IndexLagMs         int            `json:"indexLagMs"`
	BulkInsertText     string         `json:"bulkInsertText"`
	DeleteWindowMs     int            `json:"deleteWindowMs"`
	BulkStartDelayMs   int            `json:"bulkStartDelayMs"`
	NotNow             *notnow.Config `json:"notNow,omitempty"`
	Seed               int64          `json:"seed"`
}

type faultState struct {
	mu      sync.Mutex
	initial faultConfig
	cfg     faultConfig
	writes  int64
	rng     *rand.Rand
	notNow  notnow.Window
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
	f.notNow.Set(cfg.NotNow)
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

// shouldCut decides (seeded) whether this request, once read whole and committed, loses its
// connection instead of its answer.
func (f *faultState) shouldCut() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	rate := f.cfg.CutAfterBodyRate
	if rate <= 0 {
		return false
	}
	return rate >= 1 || f.rng.Float64() < rate
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
		if cfg.BulkInsertText != "" && cfg.BulkInsertText != "4.x" && cfg.BulkInsertText != "6.x" {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": `bulkInsertText must be "", "4.x" or "6.x"`})
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

// startWindows: what a restarted 4.1.0 answers before it serves again. Recorded
// (scripts/raven-private.sh; the database written, the server killed with SIGKILL and started
// on its data directory, a bulk_docs POST every few ms from the moment the port accepted):
//
//	+0.0 s  connection refused (the process starts)
//	+3.3 s  500, no body, only "Server: Kestrel" and "Content-Length: 0" (no
//	        Raven-Server-Version: RavenServerStartup.RequestHandler has not run)
//	+5.1 s  500 {"Type":"System.NullReferenceException","Message":"Object reference not set to
//	        an instance of an object.","Error":"… at Raven.Server.Routing.RouteInformation.
//	        CreateDatabase(RequestHandlerContext context) in …RouteInformation.cs:line 75 …"}
//	+6.2 s  503 {"Type":"Raven.Client.Exceptions.Cluster.NodeIsPassiveException","Message":
//	        "Can't perform actions on the database 'recrs' while the node is passive."}
//	+6.4 s  201, the 2 000 documents of before the kill all there
//
// The windows' lengths vary from run to run (the passive one lasted 0.2 s here, 3-7 s in
// earlier runs); the NodeIsPassiveException is thrown by RouteInformation.CreateDatabase
// (ravendb/ravendb v4.1, src/Raven.Server/Routing/RouteInformation.cs: "Can't perform actions
// on the database '{databaseName}' while the node is passive.") for every database route.
type startWindows struct {
	Empty500 time.Duration // every route: 500 with no body
	NRE      time.Duration // database routes: 500 NullReferenceException
	Passive  time.Duration // database routes: 503 NodeIsPassiveException
}

// startAnswer answers a request that falls in a start window and reports whether it did.
// notNowAnswer answers a request that falls in the notNow window and reports whether it did.
// The refusal is the passive node's (startAnswer's recorded text); for /admin/databases, which
// names its database in the body, the message says "the databases".
func (s *server) notNowAnswer(w http.ResponseWriter, r *http.Request) bool {
	route := r.Method + " " + r.URL.Path
	db := dbNameFromPath(r.URL.Path)
	if db != "" {
		_, sub, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/databases/"), "/")
		route = r.Method + " " + sub
	} else if r.URL.Path != "/admin/databases" {
		return false
	}
	if !s.faults.notNow.Refuse(route) {
		return false
	}
	what := "the databases"
	if db != "" {
		what = "the database '" + db + "'"
	}
	writeErrorTrace(w, r, http.StatusServiceUnavailable, "Raven.Client.Exceptions.Cluster.NodeIsPassiveException",
		fmt.Sprintf("Can't perform actions on %s while the node is passive.", what), passiveTrace)
	return true
}

// passiveTrace: the recorded frames of a NodeIsPassiveException (startWindows).
const passiveTrace = "   at Raven.Server.Routing.RouteInformation.CreateDatabase(RequestHandlerContext context) in C:\\Builds\\RavenDB-Stable-4.1\\src\\Raven.Server\\Routing\\RouteInformation.cs:line 88\n" +
	"   at Raven.Server.Routing.RequestRouter.HandlePath(HttpContext context, String method, String path)"

func (s *server) startAnswer(w http.ResponseWriter, r *http.Request) bool {
	since := time.Since(s.started)
	win := s.start
	if since >= win.Empty500+win.NRE+win.Passive {
		return false
	}
	if since < win.Empty500 {
		w.Header().Set("Content-Length", "0")
		w.WriteHeader(http.StatusInternalServerError)
		return true
	}
	db := dbNameFromPath(r.URL.Path)
	if db == "" {
		return false
	}
	s.setHeaders(w)
	if since < win.Empty500+win.NRE {
		writeErrorTrace(w, r, http.StatusInternalServerError, "System.NullReferenceException", "Object reference not set to an instance of an object.",
			"   at Raven.Server.Routing.RouteInformation.CreateDatabase(RequestHandlerContext context) in C:\\Builds\\RavenDB-Stable-4.1\\src\\Raven.Server\\Routing\\RouteInformation.cs:line 75\n"+
				"   at Raven.Server.Routing.RouteInformation.TryGetHandler(RequestHandlerContext context)\n   at Raven.Server.Routing.RequestRouter.HandlePath(HttpContext context, String method, String path)")
		return true
	}
	writeErrorTrace(w, r, http.StatusServiceUnavailable, "Raven.Client.Exceptions.Cluster.NodeIsPassiveException",
		fmt.Sprintf("Can't perform actions on the database '%s' while the node is passive.", db), passiveTrace)
	return true
}

// disabledAnswer: a request to a database whose deletion is under way (deleteWindowMs).
// Recorded from 4.1.0 (a bulk_docs loop while DELETE /admin/databases ran; the DELETE
// answered 200 after 0.70 s): 201s, then from +0.17 s 503 {"Type":"Raven.Client.Exceptions.
// Database.DatabaseDisabledException","Message":"The database recdel1 has been unloaded and
// locked by DeleteDatabase","Error":"… at Raven.Server.Routing.RouteInformation.
// UnlikelyWaitForDatabaseToLoad …RouteInformation.cs:line 126 …"}, then from +0.69 s 500
// DatabaseDoesNotExistException "Database 'recdel1' does not exist." (RouteInformation.cs:line 88).
func disabledAnswer(w http.ResponseWriter, r *http.Request, db *database) {
	writeErrorTrace(w, r, http.StatusServiceUnavailable, "Raven.Client.Exceptions.Database.DatabaseDisabledException",
		fmt.Sprintf("The database %s has been unloaded and locked by DeleteDatabase", db.name),
		"   at Raven.Server.Routing.RouteInformation.UnlikelyWaitForDatabaseToLoad(RequestHandlerContext context, Task`1 database, DatabasesLandlord databasesLandlord, StringSegment databaseName) in C:\\Builds\\RavenDB-Stable-4.1\\src\\Raven.Server\\Routing\\RouteInformation.cs:line 126\n"+
			"   at Raven.Server.Routing.RequestRouter.HandlePath(HttpContext context, String method, String path)")
}
