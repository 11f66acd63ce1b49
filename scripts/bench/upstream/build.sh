#!/usr/bin/env bash
# Builds Pier's benchmark peer: upstream's service controller of Kubernetes 1.37.2
# (k8s.io/cloud-provider/controllers/service, module v0.37.2) wired to a delay-only cloud provider
# by scripts/bench/upstream/main.go. Built from this directory's Go module (go.mod and go.sum pin
# k8s.io/cloud-provider and the k8s.io modules it goes with; no Kubernetes source tree, no patches)
# with `CGO_ENABLED=0 go build -trimpath`, idempotently:
#
#   binary   ${XDG_CACHE_HOME:-$HOME/.cache}/pier/upstream-service-controller-1.37.2-gomod1/bin/
#
# A change of main.go, go.mod or go.sum rebuilds (the binary's directory keeps the copies it was
# built from). Guarded by a lock, so parallel runs build once. About four CPU minutes with an empty
# Go build cache, seconds with a warm one (the modules come from the Go module proxy into the
# module cache). Needs Go 1.21 or newer on the PATH (the go command fetches the toolchain go.mod
# asks for). Prints the binary's path on its last line.
#
# To move to another release: change the k8s.io versions in go.mod, run `go mod tidy` here, and
# change K8S_VERSION below (the build checks that go.mod pins the matching k8s.io/cloud-provider).
set -euo pipefail

K8S_VERSION=1.37.2
CACHE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/pier"
# The suffix names how the build is made; a change of the recipe gets a new cache entry.
BUILD_ID="$K8S_VERSION-gomod1"
OUT_DIR="$CACHE_DIR/upstream-service-controller-$BUILD_ID"
BIN="$OUT_DIR/bin/pier-bench-upstream"
HERE="$(cd "$(dirname "$0")" && pwd)"
LOCK="$CACHE_DIR/upstream-build.lock"
# What the binary is built from; a change of any of them rebuilds.
INPUTS=(main.go go.mod go.sum)

log() { printf '[upstream-build] %s\n' "$*" >&2; }

up_to_date() {
  [ -x "$BIN" ] || return 1
  local f
  for f in "${INPUTS[@]}"; do
    cmp -s "$HERE/$f" "$OUT_DIR/$f" || return 1
  done
}

mkdir -p "$CACHE_DIR"
exec 9>"$LOCK"
if ! flock -n 9; then
  log "another build holds $LOCK; waiting for it"
  flock 9
fi

if up_to_date; then
  echo "$BIN"
  exit 0
fi

if ! command -v go >/dev/null; then
  log "*** no go command on the PATH: install Go 1.21 or newer (https://go.dev/doc/install);"
  log "*** the go command then fetches the toolchain $HERE/go.mod asks for."
  exit 1
fi
grep -q "^[[:space:]]*k8s.io/cloud-provider v0\.${K8S_VERSION#1.}\$" "$HERE/go.mod" || {
  log "*** $HERE/go.mod does not require k8s.io/cloud-provider v0.${K8S_VERSION#1.} (Kubernetes" \
    "$K8S_VERSION); change one or the other"
  exit 1
}

log "compiling pier-bench-upstream (Kubernetes $K8S_VERSION's service controller; a few minutes" \
  "the first time)"
started=$SECONDS
tmp="$OUT_DIR.tmp"
rm -rf "$tmp" && mkdir -p "$tmp/bin"
(cd "$HERE" &&
  CGO_ENABLED=0 go build -mod=readonly -trimpath -o "$tmp/bin/pier-bench-upstream" . >&2)
for f in "${INPUTS[@]}"; do
  cp "$HERE/$f" "$tmp/$f"
done
rm -rf "$OUT_DIR" && mv "$tmp" "$OUT_DIR"
log "upstream service controller cached at $BIN in $((SECONDS - started)) s"
echo "$BIN"
