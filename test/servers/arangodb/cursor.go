package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// POST /_api/cursor, for exactly the query of the contention workload (docs/contention.md,
// docs/fidelity.md rows A14-A17). The double runs no other AQL: any other query text gets
// 501 errorNum 9 (TRI_ERROR_NOT_IMPLEMENTED) naming this limitation.
//
//   FOR k IN @keys UPSERT { _key: k } INSERT { _key: k, n: 1 } UPDATE { n: OLD.n + 1 } IN @@coll
//
// Success (shape of EX RestCursorDeleteQuery, recorded from 3.12.10): 201
//   {"result":[],"hasMore":false,"cached":false,"extra":{"warnings":[],"stats":{"writesExecuted":N,...}},"error":false,"code":201}
// Only writesExecuted and writesIgnored carry meaning here; the other stats are the recorded
// example's fields with this double's values.
//
// Concurrency follows the RocksDB engine of a single server:
//   - an AQL query is one transaction with a snapshot taken when it begins (arangodb/arangodb
//     arangod/RocksDBEngine/Methods/RocksDBTrxBaseMethods.cpp createTransaction:
//     trxOpts.set_snapshot = true, commit a26213cb), so OLD is read from that snapshot;
//   - each write locks its key with a lock timeout of 1 ms (same function: "when trying to lock
//     the same keys, we want to return quickly and not spend the default 1000ms before giving
//     up": trxOpts.lock_timeout = 1; the newest stored revision keeps 1 ms for everything but
//     single-document operations, which lock before their snapshot with 1000 ms);
//   - a key another transaction holds past the timeout is RocksDB Status TimedOut/kLockTimeout,
//     a key written by another transaction after the snapshot is Status Busy; both become
//     TRI_ERROR_ARANGO_CONFLICT 1200, "timeout waiting to lock key ..." and "write-write
//     conflict" (lib/Basics/RocksDBUtils.cpp convertStatus, commit 505b117f), HTTP 409
//     (lib/Rest/GeneralResponse.cpp), and the whole query aborts: nothing of it is applied
//     (DOCS aql/high-level-operations/upsert.md "Transactionality": single-server upserts are
//     all-or-nothing; develop/transactions/locking-and-isolation.md: "one of the transactions
//     aborts with error 1200 (conflict). It is then up to client applications to retry");
//   - AQL errors during execution read "AQL: <message> (while executing)" (SRC Query.cpp
//     catch blocks, QueryExecutionState::toStringWithPrefix). A real server also names the
//     plan node before "(while executing)" ("[node #3: RemoveNode]" in EX
//     RestCursorDeleteQueryFail); the double omits it (node numbers of this plan not verified),
//     and the pack reads only code and errorNum.
// Fault knob upsertHoldMs keeps a query's key locks for that long before it commits (a slow
// commit, e.g. waitForSync), so that concurrent queries on the same keys meet the 1 ms lock
// timeout deterministically in tests.

const upsertIncrementQuery = "FOR k IN @keys UPSERT { _key: k } INSERT { _key: k, n: 1 } UPDATE { n: OLD.n + 1 } IN @@coll"

func normalizeAQL(q string) string { return strings.Join(strings.Fields(q), " ") }

// keyLocks: per collection, which keys a running query holds (RocksDB's lock manager).
type keyLocks struct {
	mu   sync.Mutex
	held map[string]chan struct{}
}

var lockTables sync.Map // *collection -> *keyLocks

func locksOf(c *collection) *keyLocks {
	v, _ := lockTables.LoadOrStore(c, &keyLocks{held: map[string]chan struct{}{}})
	return v.(*keyLocks)
}

// lock waits at most timeout for key; false = lock timeout.
func (l *keyLocks) lock(key string, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for {
		l.mu.Lock()
		ch, busy := l.held[key]
		if !busy {
			l.held[key] = make(chan struct{})
			l.mu.Unlock()
			return true
		}
		l.mu.Unlock()
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		t := time.NewTimer(left)
		select {
		case <-ch:
			t.Stop()
		case <-t.C:
			return false
		}
	}
}

func (l *keyLocks) unlock(key string) {
	l.mu.Lock()
	if ch, ok := l.held[key]; ok {
		close(ch)
		delete(l.held, key)
	}
	l.mu.Unlock()
}

const rocksLockTimeout = time.Millisecond

// Messages of convertStatus (see above); the Status text of a lock timeout is RocksDB's
// "Operation timed out: Timeout waiting to lock key".
const (
	msgWriteWriteConflict = "write-write conflict"
	msgLockTimeout        = "timeout waiting to lock key Operation timed out: Timeout waiting to lock key"
)

func (s *server) handleCursor(w http.ResponseWriter, r *http.Request, db *database, rest []string) {
	if r.Method != http.MethodPost || len(rest) != 0 {
		writeError(w, 501, 9, "not implemented: the k6-writepath ArangoDB test server answers only POST /_api/cursor (docs/contention.md)")
		return
	}
	body, ok := parseBody(w, r)
	if !ok {
		return
	}
	var req struct {
		Query    string                     `json:"query"`
		BindVars map[string]json.RawMessage `json:"bindVars"`
	}
	if err := json.Unmarshal(body, &req); err != nil || req.Query == "" {
		// errors.yaml 1502 ERROR_QUERY_EMPTY "query is empty"
		writeError(w, 400, 1502, "query is empty")
		return
	}
	if normalizeAQL(req.Query) != upsertIncrementQuery || r.Header.Get("x-arango-trx-id") != "" {
		writeError(w, 501, 9, "not implemented: the k6-writepath ArangoDB test server runs only the contention workload's query `"+upsertIncrementQuery+"` outside stream transactions (docs/contention.md)")
		return
	}
	// errors.yaml 1551 ERROR_QUERY_BIND_PARAMETER_MISSING, 1553 ..._TYPE (HTTP 400).
	var keys []string
	rawKeys, has := req.BindVars["keys"]
	if !has {
		writeError(w, 400, 1551, "no value specified for declared bind parameter 'keys'")
		return
	}
	if err := json.Unmarshal(rawKeys, &keys); err != nil || keys == nil {
		writeError(w, 400, 1553, "bind parameter 'keys' has an invalid value or type")
		return
	}
	var colName string
	rawCol, has := req.BindVars["@coll"]
	if !has {
		writeError(w, 400, 1551, "no value specified for declared bind parameter '@coll'")
		return
	}
	if err := json.Unmarshal(rawCol, &colName); err != nil || colName == "" {
		writeError(w, 400, 1553, "bind parameter '@coll' has an invalid value or type")
		return
	}
	if s.answerWriteFault(w, r) {
		return
	}
	var cut func()
	w, cut = s.cutAfterCommit(w)
	defer cut()
	c := db.getCol(colName)
	if c == nil {
		// EX RestCursorCreateCursorUnknownCollection
		writeError(w, 404, 1203, "collection or view not found: "+colName)
		return
	}
	for _, k := range keys {
		if !validKey(k) {
			writeError(w, 400, 1221, "AQL: "+errMsgBadKey+" (while executing)")
			return
		}
	}
	started := time.Now()

	// The snapshot: documents are immutable values, so pointers are a consistent view.
	snap := make(map[string]*document, len(keys))
	c.mu.RLock()
	for _, k := range keys {
		snap[k] = c.docs[k]
	}
	c.mu.RUnlock()

	locks := locksOf(c)
	var mine []string
	release := func() {
		for _, k := range mine {
			locks.unlock(k)
		}
	}
	staged := map[string]*document{}
	order := []string{}
	revBase := reserveRevs(len(keys))
	for i, k := range keys {
		old, own := staged[k] // readOwnWrites (DOCS upsert.md, default true)
		if !own {
			old = snap[k]
			if !locks.lock(k, rocksLockTimeout) {
				release()
				writeError(w, 409, 1200, "AQL: "+msgLockTimeout+" (while executing)")
				return
			}
			mine = append(mine, k)
			c.mu.RLock()
			cur := c.docs[k]
			c.mu.RUnlock()
			if cur != snap[k] {
				release()
				writeError(w, 409, 1200, "AQL: "+msgWriteWriteConflict+" (while executing)")
				return
			}
			order = append(order, k)
		}
		rev := encodeRev(revBase + uint64(i))
		var fs []field
		n := int64(1)
		if old != nil {
			fs = splitObject(old.raw)
			if v, ok := getField(fs, "n"); ok {
				// AQL arithmetic: null and non-numbers count as 0 (OLD.n + 1 on a fresh field).
				if x, err := strconv.ParseFloat(string(v), 64); err == nil {
					n = int64(x) + 1
				}
			}
		}
		nv := []byte(strconv.FormatInt(n, 10))
		replaced := false
		for j := range fs {
			if fs[j].name == "n" {
				fs[j].val = nv
				replaced = true
			}
		}
		if !replaced {
			fs = append(fs, field{"n", nv})
		}
		staged[k] = &document{key: k, rev: rev, raw: buildDoc(c.name, k, rev, fs)}
	}
	if ms := s.faults.get().UpsertHoldMs; ms > 0 {
		time.Sleep(time.Duration(ms) * time.Millisecond)
	}
	c.mu.Lock()
	for _, k := range order {
		c.putLocked(staged[k], c.docs[k])
	}
	c.mu.Unlock()
	release()

	var b bytes.Buffer
	b.WriteString(`{"result":[],"hasMore":false,"cached":false,"extra":{"warnings":[],"stats":{"writesExecuted":`)
	b.WriteString(strconv.Itoa(len(keys)))
	b.WriteString(`,"writesIgnored":0,"documentLookups":0,"seeks":0,"scannedFull":0,"scannedIndex":`)
	b.WriteString(strconv.Itoa(len(keys)))
	b.WriteString(`,"searchParallelism":1,"cursorsCreated":0,"cursorsRearmed":0,"cacheHits":0,"cacheMisses":0,"filtered":0,"httpRequests":0,"executionTime":`)
	b.WriteString(strconv.FormatFloat(time.Since(started).Seconds(), 'f', -1, 64))
	b.WriteString(`,"peakMemoryUsage":32768,"intermediateCommits":0}},"error":false,"code":201}`)
	writeRaw(w, 201, b.Bytes())
}
