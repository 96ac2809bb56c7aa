# k6-writepath — see README.md. Two commands on a fresh machine: `make demo`, `make test`.
SHELL := /bin/bash
K6_SOURCES := $(wildcard xk6/*.go xk6/*/*/*.go) xk6/go.mod xk6/go.sum
SERVER_SOURCES := $(shell find test/servers -name '*.go' 2>/dev/null) test/servers/go.mod
GO_BUILD := go build -trimpath -ldflags='-s -w'

# Targets contributed by other parts of the pack (bench, experiments, compose, …); included
# before the rules so that a fragment can add to TEST_DEPS (prerequisites of make test).
.DEFAULT_GOAL := all
TEST_DEPS :=
-include mk/*.mk

.PHONY: all help k6 testservers up down status demo test test-unit test-integration node-deps clean

## build bin/k6 (the default)
all: k6

## this list: every documented target (## comments in Makefile and mk/*.mk)
help:
	@awk '/^## /{ if (!inblock) doc = substr($$0, 4); inblock = 1; next } { inblock = 0 } \
	  /^[a-z][a-zA-Z0-9_-]*:/ { split($$1, t, ":"); printf "  make %-24s %s\n", t[1], doc; doc = "" }' Makefile mk/*.mk

## bin/k6: k6 v1.8.1 + xk6-sql v1.0.5 + the PostgreSQL driver (pinned in xk6/go.mod)
k6: bin/k6
bin/k6: $(K6_SOURCES)
	@command -v go >/dev/null || { echo "make k6: Go is required (https://go.dev/dl/) to build bin/k6" >&2; exit 1; }
	cd xk6 && $(GO_BUILD) -o ../bin/k6 .
	@bin/k6 version

## API test servers used by the tests (never something to benchmark)
testservers: bin/arangodb-testserver bin/ravendb-testserver
bin/%-testserver: $(SERVER_SOURCES)
	@if [ -d test/servers/$* ]; then cd test/servers && $(GO_BUILD) -o ../../bin/$*-testserver ./$*; \
	 else echo "make: no test server for $* yet (test/servers/$*)"; fi

## private PostgreSQL + InfluxDB + mongod under .run/ (no Docker); URLs in .run/env
up: bin/k6
	@scripts/services.sh up
## stop exactly what `make up` started
down:
	@scripts/services.sh down
## say whether the private services run
status:
	@scripts/services.sh status

## E1 on PostgreSQL at laptop scale, metrics to the local InfluxDB, table on stdout (last: k6 runs --quiet)
demo: bin/k6 up
	@scripts/run scenarios/postgres/insert-vs-overwrite.js --quiet $(K6_ARGS)

node_modules/.package-lock.json: package.json
	npm install --no-audit --no-fund --loglevel=error
	@touch $@
## install the pinned test tooling (arangojs, ravendb) with npm
node-deps: node_modules/.package-lock.json

# Test files by name (a directory argument would make node run helpers and scripts too):
# pure modules first, then the API test servers' fidelity, then real k6 runs.
TEST_FILES = $(sort $(wildcard test/unit/*.test.mjs)) $(sort $(wildcard test/fidelity/*.test.mjs)) $(sort $(wildcard test/integration/*.test.mjs))

## everything: unit tests, fidelity tests, integration tests against real k6 + PostgreSQL + InfluxDB
test: bin/k6 testservers up node-deps $(TEST_DEPS)
	node --test --test-concurrency=1 $(TEST_FILES)

## unit tests of the pure modules only (a minute or two; the statistics are checked against SciPy from .run/otava, installed once)
test-unit: node-deps otava-deps
	node --test $(sort $(wildcard test/unit/*.test.mjs))

## integration tests only: real k6 runs against PostgreSQL, InfluxDB and the API test servers
test-integration: bin/k6 testservers up node-deps $(TEST_DEPS)
	node --test --test-concurrency=1 $(sort $(wildcard test/integration/*.test.mjs))

## remove bin/ and every run's results (all of results/ but its README.md)
clean:
	rm -rf bin
	find results -mindepth 1 -maxdepth 1 ! -name README.md -exec rm -rf {} +
