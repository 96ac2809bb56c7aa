## load-generator efficiency benchmarks (bench/README.md); writes bench/RESULTS.md
.PHONY: bench bench-sink
bench-sink: bin/bench-sink
bin/bench-sink: bench/sink/main.go bench/sink/go.mod
	cd bench/sink && $(GO_BUILD) -o ../../bin/bench-sink .
bench: bin/k6 bin/bench-sink
	node bench/run.mjs
