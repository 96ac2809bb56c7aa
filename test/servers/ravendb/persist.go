package main

// Persistence across a restart (-data-dir): a real RavenDB commits every transaction to its
// Voron journal before it answers, so a server killed with SIGKILL and started again on the
// same data directory still holds every acknowledged document. Recorded from 4.1.0
// (scripts/raven-private.sh): 2 000 documents written, SIGKILL, restart on the data directory:
// collections/stats answers {"CountOfDocuments":2000,…,"Collections":{"Users":2000}}.
//
// The double keeps an append-only log of JSON lines, <dir>/ravendb-testserver.log: databases
// created and deleted, index definitions, and each committed transaction's documents. A
// record is written (not fsynced: a killed process loses nothing the kernel already has)
// before the answer leaves, under the database's write lock, so replaying the log at start
// gives back exactly what was acknowledged. Not kept, as on the real server after a restart:
// bulk-insert operations (their state answers 404) and HiLo ranges handed out.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

type persister struct {
	mu sync.Mutex
	f  *os.File
	w  *bufio.Writer
}

// One log line. T: db (created), drop (deleted), ix (PUT admin/indexes body), ixdel, tx.
type logRecord struct {
	T       string           `json:"t"`
	DB      string           `json:"db"`
	ID      string           `json:"id,omitempty"`
	TopoID  string           `json:"topo,omitempty"`
	CtxID   string           `json:"ctx,omitempty"`
	Raft    int64            `json:"raft,omitempty"`
	Raw     json.RawMessage  `json:"raw,omitempty"`
	Name    string           `json:"name,omitempty"`
	Etag    int64            `json:"etag,omitempty"`
	Docs    []logDoc         `json:"docs,omitempty"`
	Idents  map[string]int64 `json:"idents,omitempty"`
	Created time.Time        `json:"created,omitempty"`
}

type logDoc struct {
	Key  string          `json:"k"`
	Del  bool            `json:"del,omitempty"`
	ID   string          `json:"id,omitempty"`
	Coll string          `json:"c,omitempty"`
	CV   string          `json:"cv,omitempty"`
	LM   time.Time       `json:"lm,omitempty"`
	Etag int64           `json:"e,omitempty"`
	Raw  json.RawMessage `json:"raw,omitempty"`
}

const persistFile = "ravendb-testserver.log"

// openPersister replays <dir>/ravendb-testserver.log into s.dbs and opens it for appending.
func (s *server) openPersister(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(dir, persistFile)
	if err := s.replay(path); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	s.persist = &persister{f: f, w: bufio.NewWriterSize(f, 1<<20)}
	for _, db := range s.dbs {
		db.persist = s.persist
	}
	return nil
}

func (p *persister) write(rec *logRecord) {
	if p == nil {
		return
	}
	b, err := json.Marshal(rec)
	if err != nil {
		panic(err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.w.Write(b)
	p.w.WriteByte('\n')
	// Flushed to the kernel before the answer: SIGKILL of this process loses none of it.
	if err := p.w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "ravendb-testserver: cannot write the data log:", err)
		os.Exit(1)
	}
}

func (s *server) persistCreate(db *database) {
	s.persist.write(&logRecord{T: "db", DB: db.name, ID: db.dbID, TopoID: db.topologyID, CtxID: db.clusterTxID, Raft: db.raftIndex, Created: db.created})
}

func (s *server) persistDrop(name string) {
	s.persist.write(&logRecord{T: "drop", DB: name})
}

// Callers hold db.mu.
func (db *database) persistIndexes(raw []byte) {
	if db.persist != nil {
		db.persist.write(&logRecord{T: "ix", DB: db.name, Raw: json.RawMessage(raw)})
	}
}

func (db *database) persistIndexDelete(name string) {
	if db.persist != nil {
		db.persist.write(&logRecord{T: "ixdel", DB: db.name, Name: name})
	}
}

// persistTx logs a committed transaction (txn.commit, under db.mu).
func (t *txn) persistTx() {
	db := t.db
	if db.persist == nil || len(t.order) == 0 && len(t.idents) == 0 {
		return
	}
	rec := &logRecord{T: "tx", DB: db.name, Etag: t.etag, Idents: t.idents, Docs: make([]logDoc, 0, len(t.order))}
	for _, key := range t.order {
		d := t.staged[key]
		if d == nil {
			rec.Docs = append(rec.Docs, logDoc{Key: key, Del: true})
			continue
		}
		rec.Docs = append(rec.Docs, logDoc{Key: key, ID: d.id, Coll: d.collection, CV: d.changeVector, LM: d.lastModified, Etag: d.etag, Raw: d.raw})
	}
	db.persist.write(rec)
}

func (s *server) replay(path string) error {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	line := 0
	for sc.Scan() {
		line++
		var rec logRecord
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			// A line cut by a kill mid-write was never acknowledged: the log ends there.
			fmt.Fprintf(os.Stderr, "ravendb-testserver: %s line %d is incomplete, ignored\n", path, line)
			break
		}
		key := strings.ToLower(rec.DB)
		db := s.dbs[key]
		switch rec.T {
		case "db":
			db = newDatabase(rec.DB, rec.Raft)
			db.dbID, db.topologyID, db.clusterTxID, db.created = rec.ID, rec.TopoID, rec.CtxID, rec.Created
			s.dbs[key] = db
			if rec.Raft > s.raftIndex.Load() {
				s.raftIndex.Store(rec.Raft)
			}
		case "drop":
			if db != nil {
				storeLimit.Add(-db.stored)
			}
			delete(s.dbs, key)
		case "ix":
			if db != nil {
				defs, _, _, _ := parseIndexDefs(rec.Raw)
				for _, ix := range defs {
					db.indexes[ix.name] = ix
				}
			}
		case "ixdel":
			if db != nil {
				delete(db.indexes, rec.Name)
			}
		case "tx":
			if db == nil {
				continue
			}
			t := db.begin(true)
			for _, d := range rec.Docs {
				old := t.get(d.Key)
				if d.Del {
					t.delta -= docSize(old)
					t.stage(d.Key, nil)
					continue
				}
				nd := &document{id: d.ID, collection: d.Coll, changeVector: d.CV, lastModified: d.LM, etag: d.Etag}
				if len(d.Raw) > 0 && string(d.Raw) != "null" {
					nd.raw = []byte(d.Raw)
				}
				t.delta += docSize(nd) - docSize(old)
				t.stage(d.Key, nd)
			}
			t.etag = rec.Etag
			t.idents = rec.Idents
			t.commit()
		}
	}
	return sc.Err()
}
