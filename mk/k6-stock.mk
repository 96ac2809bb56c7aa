# A stock k6 (no extensions) for proving that the ArangoDB and RavenDB scenarios need none
# (test/integration/stock-k6.test.mjs, part of make test). Pinned in k6-stock/go.mod, fetched
# from the Go module proxy like bin/k6, rebuilt only when k6-stock/ changes.

.PHONY: k6-stock
TEST_DEPS += bin/k6-stock

## bin/k6-stock: stock k6 v2.2.0 without extensions (pinned in k6-stock/go.mod)
k6-stock: bin/k6-stock
bin/k6-stock: k6-stock/main.go k6-stock/go.mod k6-stock/go.sum
	@command -v go >/dev/null || { echo "make k6-stock: Go is required (https://go.dev/dl/) to build bin/k6-stock" >&2; exit 1; }
	cd k6-stock && $(GO_BUILD) -o ../bin/k6-stock .
	@bin/k6-stock version
