#!/usr/bin/env bash
# Pier's benchmark: convergence speed and memory against a fresh real kube-apiserver, compared with
# the apiserver's own limit (the floor). Not a test: it prints a table, writes
# $BUILD_DIR/bench/results.{csv,md} and the plot docs/benchmarks-convergence.png.
#
#   scripts/bench/run.sh                               # N = 1,000 and 10,000, delays 0 and 100 ms
#   scripts/bench/run.sh --sizes 1000 --delays 100     # a quick subset
#   scripts/bench/run.sh federation --services 1000    # the federation benchmark (docs/benchmarks.md)
#   scripts/bench/run.sh informer-stall --rounds 5     # reproduces the informer stall (docs/benchmarks.md)
#   scripts/bench/run.sh verify-drift --services 1000 --minutes 30 --period 60s   # false drift repairs
#   scripts/bench/run.sh --peer upstream               # side by side with upstream's service controller
#   scripts/bench/run.sh webhook [--sizes 1000,10000] [--delays 100,1000] [--runs 3]
#                                                      # the webhook provider against an HTTP stand-in
#                                                      # in its own process, beside the in-process
#                                                      # benchmark provider at the same delay
#
#   scripts/bench/run.sh scale-out [--services 10000] [--delay 1000] [--replicas 1,3] [--settle 30]
#                                  [--concurrency C] (each replica's reconcile.concurrency)
#                                                      # replicas sharing the shards (docs/scale-out.md):
#                                                      # cold start, RSS and CPU per replica, Lease
#                                                      # writes/s, shard move times
#   scripts/bench/run.sh dns-probe [--services 1000] [--members 2] [--probes tcp,http:/healthz:200]
#                                  [--period-ms 10000] [--timeout-ms 2000] [--failures 3]
#                                  [--successes 2] [--window 120] [--stop 10]
#                                                      # the cost of data-path probes (docs/dns.md):
#                                                      # CPU, connections, fds, RSS of the prober's
#                                                      # process; seconds until a stopped load
#                                                      # balancer leaves the names and returns
#   scripts/bench/run.sh scale-out-federation [--services 500] [--members 6] [--replicas 1,3]
#                                  [--delay 100] [--nodes 2] [--member-load-balancers false]
#                                  [--idle SECONDS]
#                                                      # a federation shared per member cluster:
#                                                      # cold start, RSS, live heap, CPU per replica,
#                                                      # and with --idle its CPU while nothing changes
#
# Options (all optional): --sizes N[,N..] --delays MS[,MS..] --nodes M (Ready nodes, default 10;
#   20 with --peer) --floor-in-flight C (default 200) --timeout SECONDS (per phase, default 900)
#   --plot FILE (default docs/benchmarks-convergence.png)
#   --peer upstream: also run upstream's Kubernetes 1.37.2 service controller (built once from its
#   Go module by scripts/bench/upstream/build.sh) and write $BUILD_DIR/bench/side-by-side.csv and
#   its table; with --upstream-workers W (default 50) --upstream-node-sync-cap SECONDS (default 120)
# Federation options (all optional): --services N (default 1000) --delay MS (default 100)
#   --nodes M (Ready nodes per member, default 3) --floor-in-flight C (default 200)
#   --latency-reps R (default 10) --runs K (default 1) --timeout SECONDS (default 900)
# Webhook options (all optional): --sizes N[,N..] (default 1000,10000) --delays MS[,MS..] (default
#   100,1000) --runs K (back-to-back runs per size and delay, the table shows the median; default 3)
#   --nodes M (default 10) --timeout SECONDS (per cold start, default 900); results in
#   $BUILD_DIR/bench/webhook/results.{csv,md}
# Environment: PIER_BUILD_DIR (Maven output directory, default target), PIER_BENCH_JVM (Pier's JVM
# flags, default below), PIER_BENCH_SKIP_BUILD=1 to reuse an existing build.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"

build_dir="${PIER_BUILD_DIR:-target}"
# Pier's JVM flags for the measured process: the shipped ones (conf/jvm.options, which the image and
# the manifests use too), in the 512 MiB the Deployment gives Pier, with the class-data sharing
# archive the build leaves next to the jar.
build_abs="$(mkdir -p "$build_dir" && cd "$build_dir" && pwd)"
jvm_flags="${PIER_BENCH_JVM:-@$root/conf/jvm.options -XX:MaxRAM=512m -XX:SharedArchiveFile=$build_abs/pier.jsa}"

bin_dir="$(scripts/provision.sh | tail -n 1)"
if [ ! -x "$bin_dir/kube-apiserver" ]; then
  echo "scripts/provision.sh did not leave a kube-apiserver in '$bin_dir'" >&2
  exit 1
fi
export PIER_KUBE_BIN_DIR="$bin_dir"

# --peer upstream: the peer binary, built once (before Pier's build, so that a failure shows early).
peer_args=()
prev=""
for arg in "$@"; do
  if [ "$prev" = --peer ] && [ "$arg" = upstream ]; then
    upstream_bin="$(scripts/bench/upstream/build.sh | tail -n 1)"
    if [ ! -x "$upstream_bin" ]; then
      echo "scripts/bench/upstream/build.sh did not leave a binary at '$upstream_bin'" >&2
      exit 1
    fi
    peer_args=(--upstream-bin "$upstream_bin")
  fi
  prev="$arg"
done

if [ "${PIER_BENCH_SKIP_BUILD:-0}" != 1 ]; then
  mvn -B -q -Pbench -Dpier.buildDir="$build_dir" -DskipTests -Dspotless.check.skip=true package
  mvn -B -q -Pbench -Dpier.buildDir="$build_dir" dependency:build-classpath \
    -Dmdep.includeScope=test -Dmdep.outputFile="$build_dir/bench-classpath.txt"
fi

mkdir -p "$build_dir/bench"
classpath="$build_dir/test-classes:$build_dir/classes:$(cat "$build_dir/bench-classpath.txt")"
if [ "${1:-}" = informer-stall ]; then
  shift
  exec java -Xmx1g -cp "$classpath" dev.pier.bench.InformerStallRepro "$@"
fi
if [ "${1:-}" = verify-drift ]; then
  shift
  exec java -Xmx1g -cp "$classpath" dev.pier.bench.VerifyDriftBench "$@"
fi
if [ "${1:-}" = webhook ]; then
  shift
  revision="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src pom.xml conf || echo -dirty)"
  exec java -Xmx1g -cp "$classpath" dev.pier.bench.WebhookBench \
    --jar "$build_dir/pier.jar" --out "$build_dir/bench/webhook" --jvm "$jvm_flags" \
    --revision "$revision" "$@"
fi
if [ "${1:-}" = scale-out ]; then
  shift
  revision="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src pom.xml conf || echo -dirty)"
  exec java -Xmx1g -cp "$classpath" dev.pier.bench.ScaleOutBench \
    --jar "$build_dir/pier.jar" --out "$build_dir/bench/scale-out" --jvm "$jvm_flags" \
    --revision "$revision" "$@"
fi
if [ "${1:-}" = scale-out-federation ]; then
  shift
  revision="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src pom.xml conf || echo -dirty)"
  exec java -Xmx1g -cp "$classpath" dev.pier.bench.ScaleOutFederationBench \
    --jar "$build_dir/pier.jar" --out "$build_dir/bench/scale-out-federation" --jvm "$jvm_flags" \
    --revision "$revision" "$@"
fi
if [ "${1:-}" = dns-probe ]; then
  shift
  revision="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src pom.xml conf || echo -dirty)"
  exec java -Xmx1g -cp "$classpath" dev.pier.bench.DnsProbeBench \
    --out "$build_dir/bench/dns-probe" --jvm "$jvm_flags" --revision "$revision" "$@"
fi
if [ "${1:-}" = federation ]; then
  shift
  exec java -Xmx1g -cp "$classpath" dev.pier.bench.FederationBench \
    --jar "$build_dir/pier.jar" --out "$build_dir/bench/federation" --jvm "$jvm_flags" "$@"
fi
exec java -Xmx1g -cp "$classpath" \
  dev.pier.bench.BenchDriver \
  --jar "$build_dir/pier.jar" --out "$build_dir/bench" --jvm "$jvm_flags" \
  --plot docs/benchmarks-convergence.png "${peer_args[@]}" "$@"
