// Stock k6 (no extensions), pinned in go.mod: `make k6-stock` builds bin/k6-stock from it.
// It proves that the HTTP-only scenarios (ArangoDB, RavenDB) need nothing beyond a stock k6
// (test/integration/stock-k6.test.mjs). The same three lines as k6's own main.go
// (github.com/grafana/k6, main.go, v2.2.0).
package main

import "go.k6.io/k6/v2/cmd"

func main() {
	cmd.Execute()
}
