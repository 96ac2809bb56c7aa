// Package storelimit bounds what an API test server keeps in memory. The test servers hold
// every document in RAM, where the real databases write to disk: unbounded, a long E4 bulk
// insert (the README's 60 s example) grew the RavenDB test server to 7 GB. This is a limit of
// the test servers, not a model of a database: past it a write is refused, loudly — the server
// answers the way the real database answers a write its storage cannot take (each server
// says how, citing the source), names this limit in that answer, and logs one line to
// stderr — and nothing already acknowledged is ever dropped.
//
// What counts: the bytes a server keeps per document (its JSON, its id, its key in the map)
// plus a fixed PerDocument overhead for the rest of its record; a document replaced or
// deleted gives its bytes back, and so does a dropped database or collection.
package storelimit

import (
	"flag"
	"fmt"
	"log"
	"os"
	"sync/atomic"
)

// PerDocument approximates what a stored document costs beyond its bytes: its struct, its
// map entry, its change vector or revision (measured order of magnitude, Go 1.26, amd64).
const PerDocument = 160

// DefaultMB is -max-stored-mb's default: room for every test and demo run of the pack (the
// largest keeps a few hundred MB) on a laptop, far below what would push a shared machine
// into swap. Go's heap holds about twice what is live, so the process stays near 2x this.
const DefaultMB = 1024

// Limit is one server's budget. The zero value (and a nil *Limit) has no limit.
type Limit struct {
	MaxMB  int64
	server string
	used   atomic.Int64
	warned atomic.Bool
	logger *log.Logger
}

// Register adds -max-stored-mb to the default flag set for the named server (e.g.
// "ravendb-testserver").
func Register(server string) *Limit {
	l := &Limit{server: server, logger: log.New(os.Stderr, server+": ", log.LstdFlags)}
	flag.Int64Var(&l.MaxMB, "max-stored-mb", DefaultMB, "test-server limit: MB of documents kept in memory (their JSON + ids + "+fmt.Sprint(PerDocument)+" bytes each); past it writes are refused as the real database refuses a write its disk cannot take (0 = no limit)")
	return l
}

// Size is what one stored document counts: its JSON, its key (twice: the record and the map)
// and the fixed overhead.
func Size(raw []byte, key string) int64 { return int64(len(raw)) + 2*int64(len(key)) + PerDocument }

// Fits says whether delta more bytes may be stored. When they may not, the first refusal
// logs one line to stderr (then one more each time the store has been below the limit again).
func (l *Limit) Fits(delta int64) bool {
	if l == nil || l.MaxMB <= 0 || delta <= 0 || l.used.Load()+delta <= l.MaxMB<<20 {
		return true
	}
	if !l.warned.Swap(true) {
		l.logger.Printf("TEST-SERVER LIMIT REACHED: %s; writes are refused until documents are deleted (restart with a larger -max-stored-mb, or -max-stored-mb=0, for longer runs)", l.Reason())
	}
	return false
}

// Add records delta stored bytes (negative: given back).
func (l *Limit) Add(delta int64) {
	if l == nil || delta == 0 {
		return
	}
	if l.used.Add(delta) < l.MaxMB<<20 {
		l.warned.Store(false)
	}
}

// Used is the bytes counted now.
func (l *Limit) Used() int64 {
	if l == nil {
		return 0
	}
	return l.used.Load()
}

// Reason is the text the refusals carry: the limit, named as this test server's, and the use.
func (l *Limit) Reason() string {
	return fmt.Sprintf("%s keeps documents in memory and holds %d MB, its limit -max-stored-mb=%d (a limit of this API test server, not of the database it stands in for)", l.server, l.Used()>>20, l.MaxMB)
}
