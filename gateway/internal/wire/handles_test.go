package wire

import (
	"net/http"
	"net/http/httptest"
	"sort"
	"testing"
)

// The handles of a service: ids in order, the refusals k6 gets for a missing or unknown id, a
// closed handle gone for good, and the shutdown taking every one.
func TestHandlesLifecycle(t *testing.T) {
	h := NewHandles[int]("p", "PostgreSQL handle", "/pg/open")
	req := func(q string) *http.Request { return httptest.NewRequest("POST", "/pg/exec"+q, nil) }
	if a, b := h.Add(10), h.Add(20); a != "p1" || b != "p2" {
		t.Fatalf("ids %s %s", a, b)
	}
	if v, ref := h.Of(req("?h=p2")); ref != nil || v != 20 {
		t.Fatalf("Of p2: %v %v", v, ref)
	}
	if _, ref := h.Of(req("")); ref == nil || ref.Kind != KindInput || ref.Message != "the query parameter h (a handle of /pg/open) is required" {
		t.Fatalf("no h: %+v", ref)
	}
	if _, ref := h.Of(req("?h=p9")); ref == nil || ref.Kind != KindHandle || ref.Message != `no PostgreSQL handle "p9" (closed, or opened through another gateway)` {
		t.Fatalf("unknown: %+v", ref)
	}
	if v, ref := h.Take(req("?h=p1")); ref != nil || v != 10 {
		t.Fatalf("Take p1: %v %v", v, ref)
	}
	if _, ref := h.Take(req("?h=p1")); ref == nil || ref.Kind != KindHandle {
		t.Fatalf("p1 taken twice: %+v", ref)
	}
	if _, ref := h.Of(req("?h=p1")); ref == nil {
		t.Fatal("a closed handle still answers")
	}
	h.Add(30)
	all := h.TakeAll()
	sort.Ints(all)
	if len(all) != 2 || all[0] != 20 || all[1] != 30 {
		t.Fatalf("TakeAll %v", all)
	}
	if len(h.TakeAll()) != 0 {
		t.Fatal("handles left after TakeAll")
	}
	if id := h.Add(40); id != "p4" {
		t.Fatalf("an id used again after the shutdown: %s", id)
	}
}
