# shellcheck shell=bash
# Which kube-apiserver build the scripts and tests use, and where it is cached: sourced by
# scripts/provision.sh (which builds it there) and scripts/lib/kube-apiserver.sh (which runs it).
# src/testkit/java/dev/pier/testkit/KubeApiServer.java has the same default; KubeBuildTest checks it.
# shellcheck disable=SC2034  # set for the sourcing shell
PIER_K8S_VERSION=1.20.2
# The suffix names the patch level of the build; a new patch gets a new cache entry.
PIER_KUBE_BUILD_ID="$PIER_K8S_VERSION-pier2"
PIER_KUBE_DEFAULT_BIN_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/pier/kubernetes-$PIER_KUBE_BUILD_ID/bin"
