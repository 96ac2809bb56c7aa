# The pack's k6 (k6 v1.8.1 + xk6-sql v1.0.5 + lib/pq as k6/x/sql/driver/postgres) as an image.
# Built from xk6/ exactly as `make k6` builds bin/k6: same go.mod/go.sum, same go build flags,
# so versions have one source of truth (make test checks both). Build context: the repo root.

# Go must satisfy xk6/go.mod's `go` directive (make test checks it); this is the toolchain
# bin/k6 is built and tested with on the project machines.
FROM golang:1.26.8-bookworm AS build
WORKDIR /src/xk6
# Modules first: a change to main.go does not download them again.
COPY xk6/go.mod xk6/go.sum ./
RUN go mod download
COPY xk6/ ./
# GOTOOLCHAIN=local: fail instead of silently downloading another Go than the pinned image's.
RUN GOTOOLCHAIN=local go build -trimpath -ldflags='-s -w' -o /out/k6 . && /out/k6 version

# bash and coreutils for scripts/run, the same wrapper as on the host.
FROM debian:12.11-slim
COPY --from=build /out/k6 /usr/local/bin/k6
COPY docker/k6-entrypoint.sh /usr/local/bin/k6-writepath
# scenarios/, lib/, thresholds/, scripts/ are mounted read-only by docker-compose.yml and
# results/ read-write, all under this directory, the same layout as a checkout.
WORKDIR /k6-writepath
ENV K6=/usr/local/bin/k6 WP_ROOT=/k6-writepath
ENTRYPOINT ["/usr/local/bin/k6-writepath"]
CMD ["version"]
