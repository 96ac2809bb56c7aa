# Editor support (jsconfig.json, @types/k6 and tsc pinned in package.json, types/k6-globals.d.ts
# for k6's console; no extension modules: k6 is the official binary). make test runs the same
# check through test/unit/typecheck.test.mjs.

.PHONY: typecheck

## type-check scenarios/ and lib/ against k6's API with tsc (jsconfig.json)
typecheck: node-deps
	node node_modules/typescript/bin/tsc -p jsconfig.json
