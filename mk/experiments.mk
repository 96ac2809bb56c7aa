# The experiments (docs/experiments.md), each on a private server of its own:
#   make experiment NAME=e2       E2's tuning matrix: PostgreSQL upserts tuned for throughput, and
#                                 MongoDB's cells (docs/experiment-e2.md; knobs E2_*)
#   make experiment NAME=ram      E1 in a memory-limited cgroup, data in memory vs. several times
#                                 the budget, 0 vs. N secondary indexes (docs/experiment-ram.md; RAM_*)
#   make experiment NAME=ram-e1   the same with E1's settings and E1's disk emulated (~15 min)
#   RECORD=1                      the report into docs/experiment-<NAME>-run.md (tracked)
# The knobs are environment variables, declared in lib/knobs.js (docs/configuration.md).
# experiment-e2, experiment-ram, experiment-ram-e1 and their -record twins (the names the docs
# use) are the same targets.
.PHONY: experiment experiment-e2 experiment-e2-record experiment-ram experiment-ram-record experiment-ram-e1 experiment-ram-e1-record
EXPERIMENTS := e2 ram ram-e1

## an experiment on private servers (root, cgroups; docs/experiments.md): NAME=e2|ram|ram-e1; RECORD=1 writes docs/experiment-<NAME>-run.md
experiment: $(if $(filter $(NAME),$(EXPERIMENTS)),experiment-$(NAME)$(if $(filter 1,$(RECORD)),-record),experiment-bad-name)
experiment-bad-name:
	@echo "make experiment: NAME=$(NAME) is not allowed: one of $(EXPERIMENTS)" >&2; exit 107

E2_DRIVER = scripts/lib/make-exit.sh experiment-e2 node experiments/e2/driver.mjs
RAM_DRIVER = scripts/lib/make-exit.sh experiment-ram node experiments/ram/driver.mjs
experiment-e2: bin/k6 bin/wp-gateway
	@$(E2_DRIVER)
experiment-e2-record: bin/k6 bin/wp-gateway
	@E2_REPORT=docs/experiment-e2-run.md E2_COMMAND="make experiment NAME=e2 RECORD=1" $(E2_DRIVER)
experiment-ram: bin/k6 bin/wp-gateway
	@$(RAM_DRIVER)
experiment-ram-record: bin/k6 bin/wp-gateway
	@RAM_REPORT=docs/experiment-ram-run.md RAM_COMMAND="make experiment NAME=ram RECORD=1" $(RAM_DRIVER)

# E1's settings, each overridable from the environment: batches of 10 000 documents of ~1200
# bytes, the server's reads capped at E1's volume (375 read IOPS, 60 MB/s), 1 M documents
# (~1.5 GiB, 5.9x the 256 MiB budget), 10 overwrite batches (~30 s each at the cap).
E1_ENV = BATCH_SIZE=$${BATCH_SIZE:-10000} DOC_BYTES=$${DOC_BYTES:-1200} DOCS=$${DOCS:-1000000} \
  OVERWRITE_BATCHES=$${OVERWRITE_BATCHES:-10} RAM_READ_IOPS=$${RAM_READ_IOPS:-375} \
  RAM_READ_MBPS=$${RAM_READ_MBPS:-60} RAM_INDEXES=$${RAM_INDEXES:-0}
experiment-ram-e1: bin/k6 bin/wp-gateway
	@$(E1_ENV) RAM_COMMAND="make experiment NAME=ram-e1" $(RAM_DRIVER)
experiment-ram-e1-record: bin/k6 bin/wp-gateway
	@$(E1_ENV) RAM_REPORT=docs/experiment-ram-e1-run.md RAM_COMMAND="make experiment NAME=ram-e1 RECORD=1" $(RAM_DRIVER)
