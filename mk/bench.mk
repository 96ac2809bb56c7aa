# Load-generator efficiency benchmarks (bench/README.md).
.PHONY: bench bench-sink
## the null HTTP sink the HTTP benchmark posts to
bench-sink: bin/bench-sink
bin/bench-sink: bench/sink/main.go bench/sink/go.mod
	cd bench/sink && $(GO_BUILD) -o ../../bin/bench-sink .
## load-generator efficiency benchmarks (~10 min); writes bench/RESULTS.md
bench: bin/k6 bin/bench-sink
	node bench/run.mjs
