// Package notnow is a fault of the API test servers: a window of "not now" answers (the
// server refuses before doing anything: a node still passive, a server in maintenance) that a
// test opens over a chosen request, so that it falls over the run's verification or teardown
// whatever the machine's speed. Fault JSON {"notNow": {"on": "<METHOD> <route>", "ms": N}}:
// from the first request whose route is `on` (that one included), every request the server
// asks about is refused for N ms. Each server says which routes it asks about, what a route
// is, and how it refuses.
package notnow

import (
	"sync"
	"time"
)

// Config is the fault's JSON.
type Config struct {
	On string `json:"on"`
	Ms int    `json:"ms"`
}

// Window is one configured window, not yet open until its first request.
type Window struct {
	mu    sync.Mutex
	cfg   Config
	until time.Time // zero: not open yet
}

// Set replaces the window (closed until its first request); nil: no window.
func (w *Window) Set(c *Config) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.cfg = Config{}
	if c != nil {
		w.cfg = *c
	}
	w.until = time.Time{}
}

// Refuse reports whether a request with this route falls in the window, opening it when the
// route is the window's first.
func (w *Window) Refuse(route string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cfg.On == "" || w.cfg.Ms <= 0 {
		return false
	}
	if w.until.IsZero() {
		if route != w.cfg.On {
			return false
		}
		w.until = time.Now().Add(time.Duration(w.cfg.Ms) * time.Millisecond)
	}
	return time.Now().Before(w.until)
}
