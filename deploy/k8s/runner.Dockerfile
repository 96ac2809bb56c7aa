# Runner image for grafana/k6-operator (docs/scale-out.md). It builds on the pack's own image,
# docker/k6.Dockerfile: the official k6 v1.1.0 binary (the release `make k6` installs; nothing of
# k6 is built) and bin/wp-gateway built from gateway/. The same image serves both containers of
# a runner pod: k6, and the gateway sidecar (/usr/local/bin/wp-gateway, deploy/k8s/testrun-e1-*.yaml).
#   docker build -f docker/k6.Dockerfile -t k6-writepath-k6:local .
#   docker build -f deploy/k8s/runner.Dockerfile --build-arg K6_IMAGE=k6-writepath-k6:local -t <registry>/k6-writepath-runner:<tag> .run/k8s
# (make k8s-image K8S_IMAGE=<registry>/k6-writepath-runner:<tag> does both.)
ARG K6_IMAGE=k6-writepath-k6:local
FROM ${K6_IMAGE}
# The operator's pods call `k6 …` (and the initializer `sh -c "… k6 archive/inspect …"`) as
# their command, the sidecar names wp-gateway as its own; the pack's wrapper entrypoint would
# only get in the way.
ENTRYPOINT []
CMD ["k6", "version"]
# For spec.script.localFile: the scenario archives (make k8s-archives; build context .run/k8s)
# baked in under /test/, the operator's script directory. ConfigMaps need no rebuild.
COPY archives/ /test/
