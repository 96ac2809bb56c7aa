# make experiment-ram: E1 on a private PostgreSQL in a memory-limited cgroup, data in memory
# vs. data several times the budget, 0 vs. N secondary indexes (docs/experiment-ram.md).
# Knobs: DOCS DOC_BYTES BATCH_SIZE OVERWRITE_BATCHES SEED RAM_SMALL_MB RAM_LARGE_MB
# RAM_SHARED_BUFFERS_MB RAM_INDEXES RAM_REGIMES RAM_MIN_RATIO RAM_PG_PORT RAM_READ_IOPS
# RAM_READ_MBPS RAM_OUT RAM_REPORT.
.PHONY: experiment-ram experiment-ram-record experiment-ram-e1 experiment-ram-e1-record

## E1 with data in memory vs. several times the memory budget (root, cgroups; ~5 min)
experiment-ram: bin/k6
	@scripts/experiment-ram

## the same, recorded into docs/experiment-ram-run.md
experiment-ram-record: bin/k6
	@RAM_REPORT=docs/experiment-ram-run.md RAM_COMMAND="make experiment-ram-record" scripts/experiment-ram

# E1's settings, each overridable from the environment: batches of 10 000 documents of ~1200
# bytes, the server's reads capped at E1's volume (375 read IOPS, 60 MB/s), 1 M documents
# (~1.5 GiB, 5.9x the 256 MiB budget), 10 overwrite batches (~30 s each at the cap).
E1_ENV = BATCH_SIZE=$${BATCH_SIZE:-10000} DOC_BYTES=$${DOC_BYTES:-1200} DOCS=$${DOCS:-1000000} \
  OVERWRITE_BATCHES=$${OVERWRITE_BATCHES:-10} RAM_READ_IOPS=$${RAM_READ_IOPS:-375} \
  RAM_READ_MBPS=$${RAM_READ_MBPS:-60} RAM_INDEXES=$${RAM_INDEXES:-0}

## E1 with E1's disk emulated (375 read IOPS, 60 MB/s, batches of 10 000; ~15 min)
experiment-ram-e1: bin/k6
	@$(E1_ENV) RAM_COMMAND="make experiment-ram-e1" scripts/experiment-ram

## the same, recorded into docs/experiment-ram-e1-run.md
experiment-ram-e1-record: bin/k6
	@$(E1_ENV) RAM_REPORT=docs/experiment-ram-e1-run.md RAM_COMMAND="make experiment-ram-e1-record" scripts/experiment-ram
