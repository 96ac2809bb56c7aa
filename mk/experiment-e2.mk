# make experiment-e2: E2's tuning matrix (PostgreSQL upserts tuned for throughput) on a private
# PostgreSQL restarted with each cell's settings (docs/experiment-e2.md).
# Knobs: E2_CELLS E2_BATCH_SIZES E2_DOCS E2_UPSERTS E2_NEW_PERCENT E2_VUS E2_SHARED_BUFFERS_MB
# DOC_BYTES SEED E2_PG_PORT E2_OUT E2_REPORT.
.PHONY: experiment-e2 experiment-e2-record

## E2's matrix: upserts/s per configuration and batch size, server and client CPU (root; ~5 min)
experiment-e2: bin/k6
	@scripts/experiment-e2

## the same, recorded into docs/experiment-e2-run.md
experiment-e2-record: bin/k6
	@E2_REPORT=docs/experiment-e2-run.md E2_COMMAND="make experiment-e2-record" scripts/experiment-e2
