# make experiment-ram: E1 on a private PostgreSQL in a memory-limited cgroup, data in memory
# vs. data several times the budget, 0 vs. N secondary indexes (docs/experiment-ram.md).
# Knobs: DOCS DOC_BYTES BATCH_SIZE OVERWRITE_BATCHES SEED RAM_SMALL_MB RAM_LARGE_MB
# RAM_SHARED_BUFFERS_MB RAM_INDEXES RAM_REGIMES RAM_MIN_RATIO RAM_PG_PORT RAM_OUT RAM_REPORT.
.PHONY: experiment-ram experiment-ram-record

## E1 with data in memory vs. several times the memory budget (root, cgroups; ~5 min)
experiment-ram: bin/k6
	@scripts/experiment-ram

## the same, recorded into docs/experiment-ram-run.md
experiment-ram-record: bin/k6
	@RAM_REPORT=docs/experiment-ram-run.md RAM_COMMAND="make experiment-ram-record" scripts/experiment-ram
