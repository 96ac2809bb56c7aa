// Package postgres registers the lib/pq driver with xk6-sql under the JavaScript
// import path "k6/x/sql/driver/postgres", the same path the upstream
// github.com/grafana/xk6-sql-driver-postgres extension uses, so scenario files
// run unchanged on a binary built with xk6.
package postgres

import (
	"github.com/grafana/xk6-sql/sql"

	// The database/sql driver registered as "postgres".
	_ "github.com/lib/pq"
)

func init() {
	sql.RegisterModule("postgres")
}
