// Package loadlatency gives the API test servers a latency that depends on the load, so that
// a capacity search (scripts/capacity.mjs) has a knee to find whose position is known in
// advance. It is a test knob, not a model of ArangoDB or RavenDB: real servers have no such
// setting; what it imitates is the shape every server shows under an open-model load (flat,
// then a wall once the offered rate passes what it can serve).
//
// The load is the rate of write requests (POST/PUT/PATCH of documents: ArangoDB
// /_api/document…, RavenDB …/bulk_docs and …/bulk_insert): the number that arrived during
// the last Window (2 s), this one included, divided by the window's seconds. Two seconds
// rather than one halve the effect of a load generator that starts two requests at once
// (k6 does at the edge of two stages, or when a busy machine delays a timer). A write
// request then waits, before it is handled:
//
//	rate <= knee: base · (1 + rate/knee)               (from base up to 2·base at the knee)
//	rate >  knee: over · (1 + (rate-knee)/knee)        (a wall, rising further with the rate)
//
// -load-knee-rps 0 (the default) turns it off.
package loadlatency

import (
	"flag"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Config is filled by the flags Register adds.
type Config struct {
	KneeRPS float64
	BaseMs  float64
	OverMs  float64
}

// Register adds -load-knee-rps, -load-base-ms and -load-over-ms to the default flag set.
func Register() *Config {
	c := &Config{}
	flag.Float64Var(&c.KneeRPS, "load-knee-rps", 0, "test knob: write requests per second (over the last 2 s) above which latency jumps to -load-over-ms; 0 = off")
	flag.Float64Var(&c.BaseMs, "load-base-ms", 5, "test knob: latency of a write request at no load; it rises to twice this at the knee")
	flag.Float64Var(&c.OverMs, "load-over-ms", 1000, "test knob: latency of a write request just above the knee (rising with the rate)")
	return c
}

// IsWrite says whether a request counts as load: document writes of either API.
func IsWrite(r *http.Request) bool {
	if r.Method != http.MethodPost && r.Method != http.MethodPut && r.Method != http.MethodPatch {
		return false
	}
	p := r.URL.Path
	if r.URL.Query().Get("onlyget") == "true" { // ArangoDB's batch read (PUT …?onlyget=true)
		return false
	}
	return strings.Contains(p, "/_api/document") || strings.HasSuffix(p, "/bulk_docs") || strings.HasSuffix(p, "/bulk_insert")
}

// Window is how far back arrivals count towards the rate.
const Window = 2 * time.Second

type limiter struct {
	cfg      Config
	mu       sync.Mutex
	arrivals []time.Time // write requests of the last Window, oldest first
}

// Delay records one write request arriving at now and returns how long it must wait.
func (l *limiter) Delay(now time.Time) time.Duration {
	l.mu.Lock()
	cut := now.Add(-Window)
	i := 0
	for i < len(l.arrivals) && !l.arrivals[i].After(cut) {
		i++
	}
	l.arrivals = append(l.arrivals[i:], now)
	rate := float64(len(l.arrivals)) / Window.Seconds()
	l.mu.Unlock()
	return Latency(l.cfg, rate)
}

// Latency is the model above, as a pure function (tested on its own).
func Latency(c Config, rate float64) time.Duration {
	var ms float64
	if rate <= c.KneeRPS {
		ms = c.BaseMs * (1 + rate/c.KneeRPS)
	} else {
		ms = c.OverMs * (1 + (rate-c.KneeRPS)/c.KneeRPS)
	}
	return time.Duration(ms * float64(time.Millisecond))
}

// Wrap returns h itself when the knob is off, else h behind the load-dependent latency.
func Wrap(h http.Handler, c *Config) http.Handler {
	if c == nil || c.KneeRPS <= 0 {
		return h
	}
	l := &limiter{cfg: *c}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if IsWrite(r) {
			time.Sleep(l.Delay(time.Now()))
		}
		h.ServeHTTP(w, r)
	})
}
