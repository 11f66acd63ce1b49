#!/usr/bin/env bash
# Runs Pier's whole test suite: unit tests and the integration tests (tagged "kube") against a real
# etcd + kube-apiserver of the current Kubernetes release, and the compatibility twins
# (@OldestKubernetes, tagged "compat") against the oldest release Pier supports (both in
# scripts/lib/kube-build.sh).
# Provisions those first (idempotent; about half an hour the first time on a fresh machine, a
# no-op afterwards). The test classes run in parallel forks (PIER_TEST_FORKS, by default 3.5 times the
# CPUs, at most 8: they mostly wait on servers), each in a network namespace of its own
# (scripts/lib/isolated-fork); where no namespace can be made, in one fork. Extra arguments go to
# Maven, e.g.
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

fork_jvm="$root/scripts/lib/isolated-fork/bin/java"
java_bin="${JAVA_HOME:+$JAVA_HOME/bin/}java"
forks=(-Dpier.forks=1)
if PIER_FORK_JAVA="$(command -v "$java_bin")" "$fork_jvm" -version >/dev/null 2>&1; then
  cpus="$(nproc)"
  default_forks=$((cpus * 7 / 2 > 8 ? 8 : cpus * 7 / 2))
  forks=(-Dpier.forks="${PIER_TEST_FORKS:-$default_forks}" -Dpier.forkJvm="$fork_jvm")
else
  echo "warning: cannot give a test fork a network namespace of its own" \
    "(unshare --net, ip link): the tests run in one fork, which takes much longer" >&2
fi

# The whole suite runs as one pool of forks after the jar is built (pom.xml, profile
# one-test-pool); a run of chosen tests (-Dtest=..., -Dit.test=...) keeps surefire and failsafe apart.
pool=(-Dpier.oneTestPool=true)
for arg in "$@"; do
  case "$arg" in
    -Dtest=* | -Dit.test=*) pool=() ;;
  esac
done

# A failed run's reports (each failed class's output included) outlive the checkout: CI runs in a
# fresh clone that goes afterwards.
status=0
mvn -B verify "${forks[@]}" "${pool[@]}" "$@" || status=$?
if [ "$status" -ne 0 ]; then
  kept="${TMPDIR:-/tmp}/pier-test-reports-$(date -u +%Y%m%dT%H%M%SZ)"
  mkdir -p "$kept"
  for reports in target/surefire-reports target/failsafe-reports; do
    if [ -d "$reports" ]; then
      cp -r "$reports" "$kept/"
    fi
  done
  echo "The test reports of this failed run are kept in $kept" >&2
fi
exit "$status"
