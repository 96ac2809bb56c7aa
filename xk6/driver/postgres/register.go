// Package postgres registers a PostgreSQL driver with xk6-sql under the JavaScript import
// path "k6/x/sql/driver/postgres", the same path the upstream
// github.com/grafana/xk6-sql-driver-postgres extension uses, so scenario files run
// unchanged on a binary built with xk6.
//
// The driver is lib/pq wrapped by this package (driver.go) so that a batch is never
// re-executed behind the pack's back and always ends at its timeout; lib/pq registers
// itself as "postgres" in database/sql, so the wrapper is registered as "k6wp-postgres"
// and the JavaScript module hands that name to sql.open().
package postgres

import (
	"database/sql"

	"github.com/grafana/sobek"
	xsql "github.com/grafana/xk6-sql/sql"
	"go.k6.io/k6/js/modules"

	"github.com/k6-writepath/k6-writepath/xk6/modules/writepath"
)

// DriverName is the database/sql name of the wrapped driver.
const DriverName = "k6wp-postgres"

func init() {
	sql.Register(DriverName, Driver{})
	modules.Register("k6/x/sql/driver/postgres", &rootModule{id: xsql.RegisterDriver(DriverName)})
}

// rootModule exports the driver id Symbol as the module's default export, as xk6-sql's own
// RegisterModule does (github.com/grafana/xk6-sql v1.0.5, sql/drivers.go).
type rootModule struct{ id *sobek.Symbol }

type instance struct{ exports modules.Exports }

// Named exports: the pack's per-key loops in Go (xk6/modules/writepath, lib/native.js). The
// upstream driver extension has none, and the scenarios then use their JavaScript twins.
func (r *rootModule) NewModuleInstance(vu modules.VU) modules.Instance {
	return &instance{exports: modules.Exports{Default: r.id, Named: writepath.Named(vu)}}
}

func (i *instance) Exports() modules.Exports { return i.exports }
