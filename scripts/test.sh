#!/usr/bin/env bash
# Runs Pier's whole test suite: unit tests and the integration tests (tagged "kube") against a real
# etcd + kube-apiserver of the current Kubernetes release, then the compatibility tests (tagged
# "compat") again against the oldest release Pier supports (both in scripts/lib/kube-build.sh).
# Provisions those first (idempotent; about half an hour the first time on a fresh machine, a
# no-op afterwards). Extra arguments go to Maven, e.g.
#   scripts/test.sh -Dtest=KubeApiServerTest
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

bin_dir="$(scripts/provision.sh | tail -n 1)"
# shellcheck source=lib/kube-build.sh
source scripts/lib/kube-build.sh
for dir in "$bin_dir" "$PIER_KUBE_OLDEST_BIN_DIR"; do
  if [ ! -x "$dir/kube-apiserver" ]; then
    echo "scripts/provision.sh did not leave a kube-apiserver in '$dir'" >&2
    exit 1
  fi
done
export PIER_KUBE_BIN_DIR="$bin_dir"
export PIER_KUBE_OLDEST_BIN_DIR

exec mvn -B verify "$@"
