# The ArangoDB slice alone (docs/arangodb.md): its unit tests and its k6 runs against the
# project's ArangoDB API test server (a test double, never something to benchmark).
#   make test-arangodb
.PHONY: test-arangodb
## the ArangoDB slice's tests only
test-arangodb: bin/k6 testservers up node-deps
	node --test --test-concurrency=1 --test-reporter=spec test/unit/arangodb-answers.test.mjs test/integration/arangodb.test.mjs
