# Runner image for grafana/k6-operator (docs/scale-out.md). The k6 binary comes from the pack's
# own image, docker/k6.Dockerfile (k6 v1.8.1 + xk6-sql v1.0.5 + the PostgreSQL driver, built
# from xk6/go.mod and go.sum), so the runners run exactly the k6 that `make k6` builds:
#   docker build -f docker/k6.Dockerfile -t k6-writepath-k6:local .
#   docker build -f deploy/k8s/runner.Dockerfile --build-arg K6_IMAGE=k6-writepath-k6:local -t <registry>/k6-writepath-runner:<tag> .run/k8s
# (make k8s-image K8S_IMAGE=<registry>/k6-writepath-runner:<tag> does both.)
ARG K6_IMAGE=k6-writepath-k6:local
FROM ${K6_IMAGE}
# The operator's pods call `k6 …` (and the initializer `sh -c "… k6 archive/inspect …"`) as
# their command; the pack's wrapper entrypoint would only get in the way.
ENTRYPOINT []
CMD ["k6", "version"]
# For spec.script.localFile: the scenario archives (make k8s-archives; build context .run/k8s)
# baked in under /test/, the operator's script directory. ConfigMaps need no rebuild.
COPY archives/ /test/
