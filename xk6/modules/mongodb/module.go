// Package mongodb is the pack's MongoDB client inside k6: the JavaScript module
// k6/x/writepath/mongodb of bin/k6, on the official Go driver (go.mongodb.org/mongo-driver/v2,
// pinned in xk6/go.mod). docs/mongodb.md says what each call sends and what comes back.
//
// What JavaScript gets:
//
//	connect(url, {appName})        a client (one driver Client per process and URL, shared by
//	                               every VU: the driver's Client is a connection pool meant
//	                               to be shared, "safe for concurrent use by multiple
//	                               goroutines", mongo/client.go)
//	client.write(op, db, coll, body, opts)   one batch of documents given as the pack's JSON
//	                               byte image (lib/docs.js body()), converted to BSON here:
//	                               op insert = insertMany; replace = bulkWrite of ReplaceOne
//	                               upserts; merge = UpdateOne {$set} upserts; ignore =
//	                               UpdateOne {$setOnInsert} upserts
//	client.update(db, coll, ids, update, opts)  one UpdateOne per id (distinct keys) with the
//	                               same update document, e.g. {"$inc":{"n":1}}
//	client.command / find / count   what the target adapter's lifecycle and verification need
//	parseBatch(body)               the BSON a body turns into, as canonical extended JSON (the
//	                               twin test of the conversion)
//	and the pack's per-key loops in Go (xk6/modules/writepath), as the PostgreSQL module has them.
package mongodb

import (
	"go.k6.io/k6/js/modules"
	"go.mongodb.org/mongo-driver/v2/version"

	"github.com/k6-writepath/k6-writepath/xk6/modules/writepath"
)

// ImportPath is the module's JavaScript import path.
const ImportPath = "k6/x/writepath/mongodb"

// APIVersion changes when the JavaScript-visible calls change (lib/targets/mongodb.js checks it).
const APIVersion = 1

func init() {
	modules.Register(ImportPath, new(rootModule))
}

type rootModule struct{}

type moduleInstance struct {
	vu      modules.VU
	exports modules.Exports
}

// NewModuleInstance implements modules.Module.
func (*rootModule) NewModuleInstance(vu modules.VU) modules.Instance {
	mi := &moduleInstance{vu: vu}
	named := writepath.Named(vu)
	named["connect"] = mi.connect
	named["parseBatch"] = mi.parseBatchJS
	named["driverVersion"] = version.Driver
	named["apiVersion"] = APIVersion
	mi.exports = modules.Exports{Named: named}
	return mi
}

// Exports implements modules.Instance.
func (mi *moduleInstance) Exports() modules.Exports { return mi.exports }
