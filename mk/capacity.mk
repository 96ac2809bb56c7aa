# Capacity search (docs/capacity.md): the highest arrival rate whose p99 batch time stays within
# the SLO of thresholds/<target>/capacity.json, with the latency-vs-throughput curve.
#   make capacity                                             PostgreSQL upsert on make up's server
#   make capacity CAPACITY_OP=insert K6_ARGS="-e BATCH_SIZE=500"
#   make capacity CAPACITY_TARGET=arangodb K6_ARGS="-e ARANGO_URL=http://db:8529"
#   make capacity-demo                                        PostgreSQL + both API test servers
#   scripts/compare capacity results/capacity-<A> results/<capacity-B>
# Knobs: CAPACITY_TARGET CAPACITY_OP CAPACITY_KEYS CAPACITY_START CAPACITY_FACTOR CAPACITY_MAX
# CAPACITY_RESOLUTION CAPACITY_REPEAT CAPACITY_WARMUP CAPACITY_HOLD CAPACITY_ID CAPACITY_OUT THRESHOLDS.
.PHONY: capacity capacity-demo

## capacity search: knee + latency/throughput curve (CAPACITY_TARGET, CAPACITY_OP, K6_ARGS); DEMO=1: PostgreSQL and both API test servers (capacity-demo)
capacity: $(if $(filter 1,$(DEMO)),capacity-demo,bin/k6 up)
	@$(if $(filter 1,$(DEMO)),:,scripts/lib/make-exit.sh capacity scripts/capacity.mjs $(K6_ARGS))

capacity-demo: bin/k6 testservers up
	@scripts/lib/make-exit.sh capacity-demo scripts/capacity-demo
