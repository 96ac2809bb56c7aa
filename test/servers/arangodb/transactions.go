package main

import (
	"encoding/json"
	"net/http"
	"sync"
	"time"
)

// Stream transactions (DOCS:transactions/stream-transactions). Document
// operations sent with x-arango-trx-id are buffered in a per-collection
// overlay; reads inside the transaction see the overlay first. Commit applies
// all overlays under the collections' write locks (atomic for other readers);
// abort discards them. A transaction ID is used serially: t.mu is held for the
// whole operation (the real server answers concurrent use with error 28; we
// simply serialize).
type trxManager struct {
	mu   sync.Mutex
	idle time.Duration
	m    map[string]*transaction
}

type transaction struct {
	id       string
	db       string
	mu       sync.Mutex
	status   string // running | committed | aborted
	expired  bool   // aborted by the idle timeout
	lastUsed time.Time
	finished time.Time
	write    map[string]bool
	ovs      map[*collection]*overlay
}

type overlay struct {
	c         *collection
	truncated bool
	docs      map[string]*document // nil value = removed in this transaction
}

func newTrxManager(idle time.Duration) *trxManager {
	return &trxManager{idle: idle, m: map[string]*transaction{}}
}

func (m *trxManager) reset() {
	m.mu.Lock()
	m.m = map[string]*transaction{}
	m.mu.Unlock()
}

func (m *trxManager) dropDatabase(db string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for id, t := range m.m {
		if t.db == db {
			delete(m.m, id)
		}
	}
}

// sweep aborts transactions idle for longer than the timeout (default 60 s,
// --transaction.streaming-idle-timeout) and forgets finished ones after 10 min.
func (m *trxManager) sweep(every time.Duration) {
	for range time.Tick(every) {
		m.mu.Lock()
		list := make([]*transaction, 0, len(m.m))
		for _, t := range m.m {
			list = append(list, t)
		}
		m.mu.Unlock()
		now := time.Now()
		for _, t := range list {
			if !t.mu.TryLock() {
				continue // in use, so not idle
			}
			m.expireLocked(t, now)
			old := t.status != "running" && now.Sub(t.finished) > 10*time.Minute
			t.mu.Unlock()
			if old {
				m.mu.Lock()
				delete(m.m, t.id)
				m.mu.Unlock()
			}
		}
	}
}

func (m *trxManager) expireLocked(t *transaction, now time.Time) {
	if t.status == "running" && now.Sub(t.lastUsed) > m.idle {
		t.status, t.expired, t.finished, t.ovs = "aborted", true, now, nil
	}
}

func (m *trxManager) get(id, db string) *transaction {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.m[id]
	if t == nil || t.db != db {
		return nil
	}
	return t
}

func (t *transaction) mayWrite(col string) bool { return t.write[col] }

func (t *transaction) overlay(c *collection) *overlay {
	ov := t.ovs[c]
	if ov == nil {
		ov = &overlay{c: c, docs: map[string]*document{}}
		t.ovs[c] = ov
	}
	return ov
}

// overlay implements docStore; the caller holds c.mu (read lock is enough).
func (ov *overlay) get(key string) *document {
	if d, ok := ov.docs[key]; ok {
		return d
	}
	if ov.truncated {
		return nil
	}
	return ov.c.docs[key]
}
func (ov *overlay) put(d, old *document)                         { ov.docs[d.key] = d }
func (ov *overlay) del(old *document)                            { ov.docs[old.key] = nil }
func (ov *overlay) uniqueConflict(string, []byte) (string, bool) { return "", false }
func (ov *overlay) truncate()                                    { ov.truncated, ov.docs = true, map[string]*document{} }

func (ov *overlay) count() int {
	n := 0
	if !ov.truncated {
		n = len(ov.c.docs)
	}
	for k, d := range ov.docs {
		_, inBase := ov.c.docs[k]
		inBase = inBase && !ov.truncated
		switch {
		case d == nil && inBase:
			n--
		case d != nil && !inBase:
			n++
		}
	}
	return n
}

func (ov *overlay) commit() {
	c := ov.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if ov.truncated {
		c.truncateLocked()
	}
	for k, d := range ov.docs {
		old := c.docs[k]
		if d == nil {
			if old != nil {
				c.deleteLocked(old)
			}
		} else {
			c.putLocked(d, old)
		}
	}
}

// trxFromRequest resolves the x-arango-trx-id header. On success the returned
// transaction (if any) is LOCKED and the caller must unlock t.mu. Unknown ID
// -> 404/1655; aborted, expired or committed -> 410/1654 (arangodb/docs-hugo
// develop/http-api/transactions/stream-transactions.md: a canceled or timed-out transaction: 410).
func (s *server) trxFromRequest(w http.ResponseWriter, r *http.Request, db *database) (*transaction, bool) {
	id := r.Header.Get("X-Arango-Trx-Id")
	if id == "" {
		return nil, true
	}
	t := s.trx.get(id, db.name)
	if t == nil {
		writeError(w, 404, 1655, "transaction '"+id+"' not found")
		return nil, false
	}
	t.mu.Lock()
	now := time.Now()
	s.trx.expireLocked(t, now)
	if t.status != "running" {
		t.mu.Unlock()
		writeError(w, 410, 1654, "transaction aborted")
		return nil, false
	}
	t.lastUsed = now
	return t, true
}

func trxResult(t *transaction) map[string]any {
	return map[string]any{"id": t.id, "status": t.status}
}

func (s *server) handleTransaction(w http.ResponseWriter, r *http.Request, db *database, rest []string) {
	if len(rest) == 0 {
		if r.Method != http.MethodGet {
			// JavaScript transactions (POST /_api/transaction) are not implemented.
			writeError(w, 501, 9, "JavaScript transactions are not supported by the test server")
			return
		}
		s.trx.mu.Lock()
		list := []map[string]any{}
		for _, t := range s.trx.m {
			if t.db == db.name && t.status == "running" {
				list = append(list, map[string]any{"id": t.id, "state": "running"})
			}
		}
		s.trx.mu.Unlock()
		writeJSON(w, 200, map[string]any{"transactions": list})
		return
	}
	if rest[0] == "begin" && len(rest) == 1 {
		if r.Method != http.MethodPost {
			writeError(w, 405, 405, "method not supported")
			return
		}
		s.beginTransaction(w, r, db)
		return
	}
	t := s.trx.get(rest[0], db.name)
	if t == nil {
		writeError(w, 404, 1655, "transaction '"+rest[0]+"' not found")
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	now := time.Now()
	s.trx.expireLocked(t, now)
	switch r.Method {
	case http.MethodGet:
		writeJSON(w, 200, map[string]any{"code": 200, "error": false, "result": trxResult(t)})
	case http.MethodPut: // commit
		switch t.status {
		case "running":
			for _, ov := range t.ovs {
				ov.commit()
			}
			t.status, t.finished, t.ovs = "committed", now, nil
		case "aborted":
			// Inferred from SRC transaction Manager: a timed-out transaction is
			// 410/1654; committing an explicitly aborted one is a disallowed
			// state change (400/1653).
			if t.expired {
				writeError(w, 410, 1654, "transaction aborted")
			} else {
				writeError(w, 400, 1653, "transaction was already aborted")
			}
			return
		}
		writeJSON(w, 200, map[string]any{"code": 200, "error": false, "result": trxResult(t)})
	case http.MethodDelete: // abort
		switch t.status {
		case "running":
			t.status, t.finished, t.ovs = "aborted", now, nil
		case "committed":
			writeError(w, 400, 1653, "transaction was already committed")
			return
		}
		writeJSON(w, 200, map[string]any{"code": 200, "error": false, "result": trxResult(t)})
	default:
		writeError(w, 405, 405, "method not supported")
	}
}

// stringOrList accepts the "string or array" collection lists of /begin.
type stringOrList []string

func (l *stringOrList) UnmarshalJSON(b []byte) error {
	var one string
	if json.Unmarshal(b, &one) == nil {
		*l = []string{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return err
	}
	*l = many
	return nil
}

func (s *server) beginTransaction(w http.ResponseWriter, r *http.Request, db *database) {
	var body struct {
		Collections struct {
			Read      stringOrList `json:"read"`
			Write     stringOrList `json:"write"`
			Exclusive stringOrList `json:"exclusive"`
		} `json:"collections"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeError(w, 400, 600, "invalid JSON object")
		return
	}
	write := map[string]bool{}
	all := append(append(append([]string{}, body.Collections.Read...), body.Collections.Write...), body.Collections.Exclusive...)
	for _, n := range all {
		if db.getCol(n) == nil {
			// EX: unknown collection -> 404/1203
			writeError(w, 404, 1203, "collection or view not found: "+n)
			return
		}
	}
	for _, n := range append(body.Collections.Write, body.Collections.Exclusive...) {
		write[n] = true
	}
	t := &transaction{id: nextID(), db: db.name, status: "running", lastUsed: time.Now(),
		write: write, ovs: map[*collection]*overlay{}}
	s.trx.mu.Lock()
	s.trx.m[t.id] = t
	s.trx.mu.Unlock()
	// EX RestTransactionBeginSingle: 201 {"code":201,"error":false,"result":{"id":"74719","status":"running"}}
	writeJSON(w, 201, map[string]any{"code": 201, "error": false, "result": trxResult(t)})
}
