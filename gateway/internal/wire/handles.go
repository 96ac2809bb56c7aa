package wire

import (
	"fmt"
	"net/http"
	"sync"
)

// Handles are the open connections of one service (a pool, a driver client) by id, as k6
// names them in the query parameter h; every handler of the service shares them under one lock.
type Handles[T any] struct {
	prefix string // of the ids: "p1", "m1", …
	what   string // in refusals: "PostgreSQL handle"
	opener string // the exchange that gives one: "/pg/open"
	mu     sync.Mutex
	next   int
	m      map[string]T
}

// NewHandles: ids prefix1, prefix2, …; refusals name what and the exchange opener.
func NewHandles[T any](prefix, what, opener string) *Handles[T] {
	return &Handles[T]{prefix: prefix, what: what, opener: opener, m: map[string]T{}}
}

// Add keeps v and returns its new id.
func (h *Handles[T]) Add(v T) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.next++
	id := fmt.Sprintf("%s%d", h.prefix, h.next)
	h.m[id] = v
	return id
}

// Of: the handle a request names (query parameter h), or the refusal k6 gets.
func (h *Handles[T]) Of(r *http.Request) (T, *Refusal) {
	var zero T
	id := r.URL.Query().Get("h")
	if id == "" {
		return zero, Refuse(KindInput, "the query parameter h (a handle of %s) is required", h.opener)
	}
	h.mu.Lock()
	v, ok := h.m[id]
	h.mu.Unlock()
	if !ok {
		return zero, h.unknown(id)
	}
	return v, nil
}

// Take removes the handle a request names and returns it (close), or the refusal.
func (h *Handles[T]) Take(r *http.Request) (T, *Refusal) {
	var zero T
	id := r.URL.Query().Get("h")
	h.mu.Lock()
	v, ok := h.m[id]
	delete(h.m, id)
	h.mu.Unlock()
	if !ok {
		return zero, h.unknown(id)
	}
	return v, nil
}

// TakeAll removes every handle and returns them (the gateway's shutdown).
func (h *Handles[T]) TakeAll() []T {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]T, 0, len(h.m))
	for _, v := range h.m {
		out = append(out, v)
	}
	h.m = map[string]T{}
	return out
}

func (h *Handles[T]) unknown(id string) *Refusal {
	return Refuse(KindHandle, "no %s %q (closed, or opened through another gateway)", h.what, id)
}
