package loadlatency

import (
	"net/http/httptest"
	"testing"
	"time"
)

func TestLatencyIsFlatUpToTheKneeThenAWall(t *testing.T) {
	c := Config{KneeRPS: 40, BaseMs: 5, OverMs: 1000}
	cases := []struct {
		rate float64
		want time.Duration
	}{{0, 5 * time.Millisecond}, {20, 7500 * time.Microsecond}, {40, 10 * time.Millisecond}, {41, 1025 * time.Millisecond}, {80, 2000 * time.Millisecond}}
	for _, tc := range cases {
		if got := Latency(c, tc.rate); got != tc.want {
			t.Errorf("rate %v: got %v, want %v", tc.rate, got, tc.want)
		}
	}
}

func TestDelayCountsTheLastWindowOnly(t *testing.T) {
	l := &limiter{cfg: Config{KneeRPS: 1, BaseMs: 10, OverMs: 500}}
	t0 := time.Unix(100, 0)
	if d := l.Delay(t0); d != 15*time.Millisecond { // 1 arrival in 2 s: rate 0.5
		t.Fatalf("first: %v", d)
	}
	if d := l.Delay(t0.Add(100 * time.Millisecond)); d != 20*time.Millisecond { // rate 1 = knee
		t.Fatalf("second: %v", d)
	}
	if d := l.Delay(t0.Add(200 * time.Millisecond)); d != 750*time.Millisecond { // rate 1.5 > knee
		t.Fatalf("third: %v", d)
	}
	// 2.15 s later the first two have left the window: rate 1 again.
	if d := l.Delay(t0.Add(2150 * time.Millisecond)); d != 20*time.Millisecond {
		t.Fatalf("after the window moved: %v", d)
	}
}

func TestOnlyDocumentWritesCount(t *testing.T) {
	for _, tc := range []struct {
		method, path string
		want         bool
	}{
		{"POST", "/_db/k6wp_x/_api/document/c0", true},
		{"PUT", "/_db/k6wp_x/_api/document/c0", true},
		{"PUT", "/_db/k6wp_x/_api/document/c0?onlyget=true", false},
		{"GET", "/_db/k6wp_x/_api/document/c0/K1", false},
		{"POST", "/databases/k6wp_x/bulk_docs", true},
		{"POST", "/databases/k6wp_x/bulk_insert", true},
		{"POST", "/_api/database", false},
		{"PUT", "/admin/databases", false},
	} {
		if got := IsWrite(httptest.NewRequest(tc.method, tc.path, nil)); got != tc.want {
			t.Errorf("%s %s: got %v, want %v", tc.method, tc.path, got, tc.want)
		}
	}
}
