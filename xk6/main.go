// Command k6 is k6 v1.8.1 with xk6-sql and a PostgreSQL driver compiled in (the driver's
// module also exports the pack's per-key loops in Go: xk6/modules/writepath).
//
// It is what `xk6 build v1.8.1 --with github.com/grafana/xk6-sql@v1.0.5
// --with github.com/grafana/xk6-sql-driver-postgres` produces, built with plain
// `go build` because the xk6 tool and the upstream driver module are not
// reachable from every Go module proxy. Versions are pinned in go.mod. Beside that it refuses
// secrets given with -e to `k6 run` (xk6/clisecrets.go) and the k6 options the knobs own
// (xk6/cliflags.go).
package main

import (
	k6cmd "go.k6.io/k6/cmd"

	_ "github.com/grafana/xk6-sql"

	_ "github.com/k6-writepath/k6-writepath/xk6/driver/postgres"
)

func main() {
	refuseCliSecrets() // xk6/clisecrets.go: before k6 starts anything
	refusePlanFlags()  // xk6/cliflags.go: --vus, --iterations, --duration, --stage, --http-debug
	k6cmd.Execute()
}
