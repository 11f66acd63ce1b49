#!/usr/bin/env bash
# Runs Pier's whole test suite: unit tests and the integration tests (tagged "kube") against a real
# etcd + kube-apiserver 1.20.2. Provisions those first (idempotent; about ten minutes the first
# time on a fresh machine, a no-op afterwards). Extra arguments go to Maven, e.g.
#   scripts/test.sh -Dtest=KubeApiServerTest
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

bin_dir="$(scripts/provision.sh | tail -n 1)"
if [ ! -x "$bin_dir/kube-apiserver" ]; then
  echo "scripts/provision.sh did not leave a kube-apiserver in '$bin_dir'" >&2
  exit 1
fi
export PIER_KUBE_BIN_DIR="$bin_dir"

exec mvn -B verify "$@"
