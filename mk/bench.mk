# Load-generator efficiency benchmarks (bench/README.md).
.PHONY: bench bench-sink bench-memory bench-gate bench-gateway
## the null HTTP sink the HTTP benchmark posts to
bench-sink: bin/bench-sink
bin/bench-sink: bench/sink/main.go bench/sink/go.mod
	cd bench/sink && $(GO_BUILD) -o ../../bin/bench-sink .
## load-generator efficiency benchmarks (~10 min) and memory per VU (~45 min); writes bench/RESULTS.md
bench: bin/k6 bin/wp-gateway bin/bench-sink testservers node-deps
	node bench/gateway.mjs --write
	node bench/run.mjs
	node bench/memory.mjs
## PostgreSQL through the gateway vs pgbench, client CPU (k6 + gateway) vs the recorded old bin/k6 (~10 min; bench/gateway.mjs; writes its section of bench/RESULTS.md)
bench-gateway: bin/k6 bin/wp-gateway bin/bench-sink node-deps
	node bench/gateway.mjs --write
## memory per VU beside plain k6, where it goes, the estimate against measured peaks (bench/memory.mjs; writes its section of bench/RESULTS.md)
bench-memory: bin/k6 bin/wp-gateway testservers node-deps
	node bench/memory.mjs
## the verdicts' own proof (~1-2 h): the gate's false-alarm and detection rates, calibrated thresholds, Otava's change points; writes its section of bench/RESULTS.md
bench-gate: bin/k6 testservers node-deps otava-deps
	node bench/gate.mjs
