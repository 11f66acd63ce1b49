# shellcheck shell=bash
# Which kube-apiserver, etcd and kubectl builds the scripts and tests use, and where they are
# cached: sourced by scripts/provision.sh (which builds them there from the wrapper modules in
# scripts/kube/) and scripts/lib/kube-apiserver.sh (which runs them).
# src/testkit/java/dev/pier/testkit/KubeApiServer.java has the same defaults; KubeBuildTest checks it.
# shellcheck disable=SC2034  # set for the sourcing shell

# The current release: the newest patch of the newest minor the Go module proxy serves. The whole
# suite runs against it. Its etcd is the one its build/dependencies.yaml names.
PIER_K8S_VERSION=1.37.2
PIER_ETCD_VERSION=3.7.0
# The oldest minor Pier supports (the Kubernetes project's window: the newest three minors). The
# compatibility tests (tag "compat") run against it too.
PIER_K8S_OLDEST_VERSION=1.35.4
PIER_ETCD_OLDEST_VERSION=3.6.6

# The suffix names how a build is made; a change of the recipe gets a new cache entry.
PIER_KUBE_BUILD_SUFFIX=gomod1
PIER_KUBE_CACHE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/pier"
PIER_KUBE_BUILD_ID="$PIER_K8S_VERSION-$PIER_KUBE_BUILD_SUFFIX"
PIER_KUBE_DEFAULT_BIN_DIR="$PIER_KUBE_CACHE_DIR/kubernetes-$PIER_KUBE_BUILD_ID/bin"
PIER_KUBE_OLDEST_BIN_DIR="$PIER_KUBE_CACHE_DIR/kubernetes-$PIER_K8S_OLDEST_VERSION-$PIER_KUBE_BUILD_SUFFIX/bin"
