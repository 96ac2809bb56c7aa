// Command ravendb is an API-faithful RavenDB test double for the k6-writepath
// scenarios and fidelity tests. It is NOT a benchmark target: it keeps
// everything in memory and implements only the HTTP surface our k6 adapter and
// the official clients use. Facts come from the ravendb/ravendb server and client
// sources named in the comments (failure answers: docs/fidelity.md) and from reading the official
// Node client (node_modules/ravendb/dist/esm); comments cite which.
//
// Usage: ravendb -addr 127.0.0.1:0 -version 7.1.2 [-bulk-commit-ops 1000]
//
//	[-latency-ms 0] [-latency-jitter-ms 0] [-burst503-every 0 -burst503-length 0]
//	[-drop-connection-rate 0 -seed 1] [-store-bodies=true] [-max-stored-mb 1024]
//	[-data-dir DIR] [-start-empty500-ms 0 -start-nre-ms 0 -start-passive-ms 0]
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/k6-writepath/k6-writepath/test/servers/internal/loadlatency"
	"github.com/k6-writepath/k6-writepath/test/servers/internal/storelimit"
)

type server struct {
	version       string // e.g. "7.1.2"
	bulkCommitOps int
	storeBodies   bool
	baseURL       string
	// dbNode: the node tag the "cluster" places new databases on (-database-node); another tag
	// than this server's own ("A") reproduces a database created on another cluster node.
	dbNode string

	mu        sync.RWMutex
	dbs       map[string]*database // key: lower-case name (database names are case-insensitive)
	raftIndex atomic.Int64

	faults      *faultState
	logger      *log.Logger
	logRequests bool

	// persist: -data-dir's log (persist.go), nil without one.
	persist *persister
	// started: when this process started; the start windows (faults.go, startWindows) count from it.
	started time.Time
	start   startWindows
}

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address (use 127.0.0.1:0 for a random port)")
	version := flag.String("version", "7.1.2", "RavenDB version to report (/build/version, Raven-Server-Version header)")
	commitOps := flag.Int("bulk-commit-ops", 1000, "bulk insert commits a batch every N operations (the real server: 16 MB / 8192 ops / 5 ms idle)")
	storeBodies := flag.Bool("store-bodies", true, "keep document bodies (false keeps only ids/metadata, for very long runs)")
	latency := flag.Int("latency-ms", 0, "fault: added latency per request in ms")
	jitter := flag.Int("latency-jitter-ms", 0, "fault: a further seeded uniform 0..N ms per request (timing only)")
	burstEvery := flag.Int("burst503-every", 0, "fault: after every N accepted write requests ...")
	burstLen := flag.Int("burst503-length", 0, "fault: ... the next M write requests get 503")
	dropRate := flag.Float64("drop-connection-rate", 0, "fault: share (0..1) of bulk_insert/bulk_docs requests whose connection is dropped mid-body")
	seed := flag.Int64("seed", 1, "fault: random seed for drop-connection decisions")
	logRequests := flag.Bool("log-requests", false, "log every request (method, URI) to stderr")
	dataDir := flag.String("data-dir", "", "keep databases, indexes and documents in DIR (an append-only log, persist.go) so a restarted server has them; empty: memory only")
	startEmpty := flag.Int("start-empty500-ms", 0, "restart window: for N ms after start every route answers 500 with no body (as 4.1.0 before its request handler runs)")
	startNRE := flag.Int("start-nre-ms", 0, "restart window: then for N ms database routes answer 500 NullReferenceException (4.1.0, RouteInformation.CreateDatabase)")
	startPassive := flag.Int("start-passive-ms", 0, "restart window: then for N ms database routes answer 503 NodeIsPassiveException (4.1.0)")
	dbNode := flag.String("database-node", nodeTag, "node tag the create-database answer places new databases on (another tag than \"A\" = the database lives on another cluster node)")
	loadLatency := loadlatency.Register()
	storeLimit = storelimit.Register("ravendb-testserver")
	flag.Parse()

	if *commitOps < 1 {
		fmt.Fprintln(os.Stderr, "-bulk-commit-ops must be >= 1")
		os.Exit(2)
	}
	s := &server{
		version:       *version,
		bulkCommitOps: *commitOps,
		storeBodies:   *storeBodies,
		dbs:           make(map[string]*database),
		logger:        log.New(os.Stderr, "ravendb-testserver: ", log.LstdFlags|log.Lmicroseconds),
		logRequests:   *logRequests,
		dbNode:        *dbNode,
		started:       time.Now(),
		start: startWindows{Empty500: time.Duration(*startEmpty) * time.Millisecond,
			NRE: time.Duration(*startNRE) * time.Millisecond, Passive: time.Duration(*startPassive) * time.Millisecond},
	}
	if *dataDir != "" {
		if err := s.openPersister(*dataDir); err != nil {
			fmt.Fprintln(os.Stderr, "-data-dir:", err)
			os.Exit(1)
		}
	}
	s.faults = newFaultState(faultConfig{
		LatencyMs:          *latency,
		LatencyJitterMs:    *jitter,
		Burst503:           burstConfig{Every: *burstEvery, Length: *burstLen},
		DropConnectionRate: *dropRate,
		Seed:               *seed,
	})

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	s.baseURL = "http://" + ln.Addr().String()
	// The test helper waits for exactly this first stdout line.
	fmt.Printf("listening on %s\n", s.baseURL)
	os.Stdout.Sync()

	srv := &http.Server{Handler: loadlatency.Wrap(s, loadLatency)}
	if err := srv.Serve(ln); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// ServeHTTP routes requests. Unknown routes get what the real server returns:
// 400 with a RouteNotFoundException ("There is no handler for path: ...",
// RequestRouter.HandlePath + RavenServerStartup.MaybeSetExceptionStatusCode),
// and are logged to stderr so missing endpoints are easy to spot.
// testEndpointHeader is the header lib/test-endpoint.js looks for (TEST_ENDPOINT_HEADER).
const testEndpointHeader = "X-K6wp-Test-Endpoint"

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	if s.logRequests {
		s.logger.Printf("request: %s %s", r.Method, r.URL.RequestURI())
	}
	if strings.HasPrefix(path, "/_testserver/") {
		s.handleControl(w, r)
		return
	}

	if s.startAnswer(w, r) {
		return
	}
	s.setHeaders(w)

	s.faults.applyLatency()
	if s.notNowAnswer(w, r) {
		return
	}
	if isWriteRequest(r) && s.faults.next503() {
		// Reference §1.2: DatabaseDisabledException maps to 503.
		db := dbNameFromPath(path)
		writeError(w, r, http.StatusServiceUnavailable, "Raven.Client.Exceptions.Database.DatabaseDisabledException",
			fmt.Sprintf("Database '%s' is unavailable: service unavailable (test server fault injection: burst503)", db), "")
		return
	}

	switch {
	case path == "/build/version" && r.Method == http.MethodGet:
		s.handleBuildVersion(w, r)
	case path == "/cluster/topology" && r.Method == http.MethodGet:
		s.handleClusterTopology(w, r)
	case path == "/cluster/node-info" && r.Method == http.MethodGet:
		s.handleNodeInfo(w, r)
	case path == "/topology" && r.Method == http.MethodGet:
		s.handleDatabaseTopology(w, r)
	case path == "/databases" && r.Method == http.MethodGet:
		s.handleListDatabases(w, r)
	case path == "/admin/databases":
		switch r.Method {
		case http.MethodPut:
			s.handleCreateDatabase(w, r)
		case http.MethodDelete:
			s.handleDeleteDatabases(w, r)
		case http.MethodGet:
			s.handleGetDatabaseRecord(w, r)
		default:
			s.routeNotFound(w, r)
		}
	case strings.HasPrefix(path, "/databases/"):
		s.routeDatabase(w, r)
	default:
		s.routeNotFound(w, r)
	}
}

func (s *server) setHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Raven-Server-Version", s.serverVersionHeader())
	// Not a RavenDB header: it tells the pack (lib/test-endpoint.js) that a test double
	// answered, so every result of the run is labelled TEST ENDPOINT.
	h.Set(testEndpointHeader, "ravendb-testserver")
}

func (s *server) routeDatabase(w http.ResponseWriter, r *http.Request) {
	rest := strings.TrimPrefix(r.URL.Path, "/databases/")
	name, sub, _ := strings.Cut(rest, "/")
	if name == "" || sub == "" {
		s.routeNotFound(w, r)
		return
	}
	route := r.Method + " " + sub
	switch route {
	case "GET operations/next-operation-id", "GET operations/state", "POST operations/kill",
		"POST bulk_insert", "POST bulk_docs",
		"GET docs", "POST docs", "PUT docs", "DELETE docs",
		"GET stats", "GET collections/stats",
		"PUT admin/indexes", "GET indexes", "DELETE indexes", "GET indexes/stats",
		"DELETE queries", "GET configuration/client", "GET hilo/next", "PUT hilo/return":
	default:
		s.routeNotFound(w, r)
		return
	}
	db := s.getDB(name)
	if db == nil {
		// RouteInformation.CreateDatabase throws DatabaseDoesNotExistException
		// ("Database 'X' does not exist."); RavenServerStartup does not map that
		// type to a special status, so it is a 500 (the 503 + Database-Missing
		// header is what GET /topology returns, see handleDatabaseTopology).
		writeError(w, r, http.StatusInternalServerError, "Raven.Client.Exceptions.Database.DatabaseDoesNotExistException",
			fmt.Sprintf("Database '%s' does not exist.", name), "")
		return
	}
	if db.unloading.Load() {
		disabledAnswer(w, r, db)
		return
	}
	switch route {
	case "GET operations/next-operation-id":
		s.handleNextOperationID(w, r, db)
	case "GET operations/state":
		s.handleOperationState(w, r, db)
	case "POST operations/kill":
		s.handleKillOperation(w, r, db)
	case "POST bulk_insert":
		s.handleBulkInsert(w, r, db)
	case "POST bulk_docs":
		s.handleBulkDocs(w, r, db)
	case "GET docs", "POST docs":
		s.handleGetDocs(w, r, db)
	case "PUT docs":
		s.handlePutDoc(w, r, db)
	case "DELETE docs":
		s.handleDeleteDoc(w, r, db)
	case "GET stats":
		s.handleStats(w, r, db)
	case "GET collections/stats":
		s.handleCollectionStats(w, r, db)
	case "PUT admin/indexes":
		s.handlePutIndexes(w, r, db)
	case "GET indexes":
		s.handleGetIndexes(w, r, db)
	case "DELETE indexes":
		s.handleDeleteIndex(w, r, db)
	case "GET indexes/stats":
		s.handleIndexStats(w, r, db)
	case "DELETE queries":
		s.handleDeleteByQuery(w, r, db)
	case "GET configuration/client":
		s.handleClientConfiguration(w, r, db)
	case "GET hilo/next":
		s.handleHiloNext(w, r, db)
	case "PUT hilo/return":
		s.handleHiloReturn(w, r, db)
	}
}

func (s *server) routeNotFound(w http.ResponseWriter, r *http.Request) {
	s.logger.Printf("unknown route: %s %s", r.Method, r.URL.RequestURI())
	writeError(w, r, http.StatusBadRequest, "Raven.Client.Exceptions.Routing.RouteNotFoundException",
		fmt.Sprintf("There is no handler for path: %s %s%s", r.Method, r.URL.Path, queryWithMark(r)), "")
}

func queryWithMark(r *http.Request) string {
	if r.URL.RawQuery == "" {
		return ""
	}
	return "?" + r.URL.RawQuery
}

func (s *server) getDB(name string) *database {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.dbs[strings.ToLower(name)]
}

// serverVersionHeader is the Raven-Server-Version header (RavenServerStartup
// sets it to the assembly version). The Node client parses major.minor.patch
// from it to decide whether bulk insert may send HeartBeat commands
// (BulkInsertOperation._checkServerVersion).
func (s *server) serverVersionHeader() string {
	return s.version + "." + strconv.Itoa(s.buildVersion())
}

// buildVersion: 7.1.x -> 71 (major*10+minor), matching BuildVersion in /build/version.
func (s *server) buildVersion() int {
	parts := strings.Split(s.version, ".")
	maj, _ := strconv.Atoi(parts[0])
	min := 0
	if len(parts) > 1 {
		min, _ = strconv.Atoi(parts[1])
	}
	return maj*10 + min
}

func (s *server) productVersion() string {
	parts := strings.Split(s.version, ".")
	if len(parts) >= 2 {
		return parts[0] + "." + parts[1]
	}
	return s.version
}

// isWriteRequest: the requests burst503 applies to — document writes.
// POST /docs is a multi-id read (GetDocumentsCommand falls back to POST for
// long id lists), so it is not a write.
func isWriteRequest(r *http.Request) bool {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return false
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/databases/")
	if !ok {
		return false
	}
	_, sub, _ := strings.Cut(rest, "/")
	switch sub {
	case "bulk_insert", "bulk_docs":
		return r.Method == http.MethodPost
	case "docs":
		return r.Method == http.MethodPut || r.Method == http.MethodDelete
	}
	return false
}

func dbNameFromPath(p string) string {
	rest, ok := strings.CutPrefix(p, "/databases/")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, "/")
	return name
}

// writeJSON writes v with status code. Content-Length is always set, because
// the Node client treats "Content-Length: 0" as "no body" (RavenCommand.processResponse).
func writeJSON(w http.ResponseWriter, status int, v any) {
	var b []byte
	switch t := v.(type) {
	case []byte:
		b = t
	case *bytes.Buffer:
		b = t.Bytes()
	default:
		// No HTML escaping: the server writes "&" in Url as-is.
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			buf.Reset()
			buf.WriteString("{}")
		}
		b = bytes.TrimRight(buf.Bytes(), "\n")
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// errorBody is the JSON RavenServerStartup.RequestHandler writes for any
// exception: {"Url","Type","Message","Error"} (Error = exception.ToString()).
type errorBody struct {
	URL     string `json:"Url"`
	Type    string `json:"Type"`
	Message string `json:"Message"`
	Error   string `json:"Error"`
}

func writeError(w http.ResponseWriter, r *http.Request, status int, typ, msg, inner string) {
	errText := typ + ": " + msg
	if inner != "" {
		errText += "\n ---> " + inner
	}
	errText += "\n   at Raven.Server (k6-writepath test double)"
	writeJSON(w, status, errorBody{URL: r.URL.Path + queryWithMark(r), Type: typ, Message: msg, Error: errText})
}

// writeErrorTrace: writeError with the recorded frames of the real server's Error text.
func writeErrorTrace(w http.ResponseWriter, r *http.Request, status int, typ, msg, trace string) {
	writeJSON(w, status, errorBody{URL: r.URL.Path + queryWithMark(r), Type: typ, Message: msg, Error: typ + ": " + msg + "\n" + trace})
}

// writeEmpty answers without a body (204, 304, 404 of a missing document...).
func writeEmpty(w http.ResponseWriter, status int) {
	w.Header().Del("Content-Type")
	if status != http.StatusNoContent && status != http.StatusNotModified {
		w.Header().Set("Content-Length", "0")
	}
	w.WriteHeader(status)
}
