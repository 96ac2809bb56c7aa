# Editor support (jsconfig.json, @types/k6 and tsc pinned in package.json, types/*.d.ts for the
# extension modules). make test runs the same check through test/unit/typecheck.test.mjs.

.PHONY: typecheck

## type-check scenarios/ and lib/ against k6's API with tsc (jsconfig.json)
typecheck: node-deps
	node node_modules/typescript/bin/tsc -p jsconfig.json
