#!/usr/bin/env bash
# Regenerates src/main/cds/pier.classlist, the classes that Pier's class-data sharing archive
# (target/pier.jsa, built by `mvn package`) holds: the classes a real cold start loads. It runs one
# benchmark round (1,000 Services against a fresh kube-apiserver, a node sync) with the JVM
# recording every class it loads, then keeps that list. Run it when CdsArchiveIT says the list has
# gone stale, or after a change that loads many new classes; commit the result.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
list="$root/src/main/cds/pier.classlist"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

PIER_BENCH_JVM="@$root/conf/jvm.options -XX:MaxRAM=512m -XX:DumpLoadedClassList=$tmp/pier.classlist" \
  timeout 1200 scripts/bench/run.sh --sizes 1000 --delays 100 --floor-protocols h2 \
  --plot "$tmp/plot.png" >&2
if ! grep -q '^dev/pier/Main' "$tmp/pier.classlist" 2>/dev/null; then
  echo "cds-classlist: the benchmark run left no class list with dev/pier/Main in $tmp" >&2
  exit 1
fi
cp "$tmp/pier.classlist" "$list"
echo "wrote $list ($(grep -vc '^#' "$list") entries); rebuild with mvn package to use it" >&2
