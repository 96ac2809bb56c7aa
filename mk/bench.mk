# Load-generator efficiency benchmarks (bench/README.md).
#   make bench                 everything below, one after another (~1 h)
#   make bench WHAT=gateway    PostgreSQL through the gateway vs pgbench (bench/gateway.mjs; ~10 min)
#   make bench WHAT=memory     memory per VU, where it goes, the estimate against peaks (bench/memory.mjs)
#   make bench WHAT=gate       the verdicts' own proof (bench/gate.mjs; ~1-2 h)
# Each writes its section of bench/RESULTS.md. bench-gateway, bench-memory and bench-gate (the
# names the docs use) are the same targets.
.PHONY: bench bench-all bench-gate bench-gateway bench-memory
BENCH_WHATS := gateway memory gate

bin/bench-sink: bench/sink/main.go bench/sink/go.mod
	cd bench/sink && $(GO_BUILD) -o ../../bin/bench-sink .

## benchmarks, each writing its section of bench/RESULTS.md: all (~1 h), or WHAT=gateway|memory|gate
bench: $(if $(WHAT),bench-$(WHAT),bench-all)
bench-all: bin/k6 bin/wp-gateway bin/bench-sink testservers node-deps
	node bench/gateway.mjs --write
	node bench/run.mjs
	node bench/memory.mjs
bench-gateway: bin/k6 bin/wp-gateway bin/bench-sink node-deps
	node bench/gateway.mjs --write
bench-memory: bin/k6 bin/wp-gateway testservers node-deps
	node bench/memory.mjs
bench-gate: bin/k6 testservers node-deps otava-deps
	node bench/gate.mjs
bench-%:
	@echo "make bench: WHAT=$* is not allowed: one of $(BENCH_WHATS), or unset for all" >&2; exit 107
