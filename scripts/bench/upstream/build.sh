#!/usr/bin/env bash
# Builds Pier's benchmark peer: upstream's service controller of Kubernetes 1.20.2
# (k8s.io/cloud-provider/controllers/service) wired to a delay-only cloud provider by
# scripts/bench/upstream/main.go. Built from Debian bookworm's `kubernetes` source package (the same
# tree, patch and `make WHAT=...` as the kube-apiserver of scripts/provision.sh), idempotently:
#
#   source tarball  ${XDG_CACHE_HOME:-$HOME/.cache}/pier/src/
#   binary          ${XDG_CACHE_HOME:-$HOME/.cache}/pier/upstream-service-controller-1.20.2-pier1/bin/
#
# A change of main.go rebuilds (the binary's directory keeps the main.go it was built from). The
# unpacked tree is deleted after the build unless PIER_UPSTREAM_KEEP_TREE=1 (then a rebuild after a
# change of main.go takes seconds instead of minutes). Guarded by a lock, so parallel runs build
# once. Prints the binary's path on its last line.
set -euo pipefail

K8S_VERSION=1.20.2
DEB_SOURCE_VERSION=1.20.5+really1.20.2
CACHE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/pier"
# The suffix names the patch level of the build below; a new patch gets a new cache entry.
BUILD_ID="$K8S_VERSION-pier1"
OUT_DIR="$CACHE_DIR/upstream-service-controller-$BUILD_ID"
BIN="$OUT_DIR/bin/pier-bench-upstream"
SRC_DIR="$CACHE_DIR/src"
WORK="$CACHE_DIR/upstream-build"
TREE="$WORK/kubernetes-$K8S_VERSION"
HERE="$(cd "$(dirname "$0")" && pwd)"
MAIN_GO="$HERE/main.go"
PATCHES_DIR="$(cd "$HERE/../../patches" && pwd)"
LOCK="$CACHE_DIR/upstream-build.lock"
TARBALL="kubernetes_${DEB_SOURCE_VERSION}.orig.tar.gz"

log() { printf '[upstream-build] %s\n' "$*" >&2; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    log "need root (or sudo) to run: $*"; exit 1; fi
}

up_to_date() { [ -x "$BIN" ] && cmp -s "$MAIN_GO" "$OUT_DIR/main.go"; }

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

need_packages=()
command -v go >/dev/null || need_packages+=(golang-go)
command -v make >/dev/null || need_packages+=(make)
command -v rsync >/dev/null || need_packages+=(rsync)
command -v dpkg-source >/dev/null || need_packages+=(dpkg-dev)
command -v patch >/dev/null || need_packages+=(patch)
if [ ${#need_packages[@]} -gt 0 ]; then
  log "installing Debian packages: ${need_packages[*]}"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${need_packages[@]}" >&2
fi

if [ ! -f "$SRC_DIR/$TARBALL" ]; then
  if ! grep -rqs "deb-src\|Types: deb-src" /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null; then
    log "adding deb-src for bookworm main"
    as_root tee /etc/apt/sources.list.d/pier-bookworm-src.sources >/dev/null <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    as_root apt-get update -qq
  fi
  log "downloading Debian's kubernetes source package into $SRC_DIR"
  mkdir -p "$SRC_DIR"
  (cd "$SRC_DIR" && apt-get source --download-only kubernetes >&2)
  if [ ! -f "$SRC_DIR/$TARBALL" ]; then
    log "apt-get source did not leave $TARBALL in $SRC_DIR"
    exit 1
  fi
fi

if [ ! -d "$TREE" ]; then
  log "unpacking $TARBALL"
  rm -rf "$WORK" && mkdir -p "$WORK"
  tar -C "$WORK" -xzf "$SRC_DIR/$TARBALL"
  # Kubernetes 1.20 vendors reflect2 v1.0.1, whose map iteration corrupts memory when built with
  # Go 1.18 or newer; the same fix as for the kube-apiserver (scripts/provision.sh).
  for p in "$PATCHES_DIR"/kube-apiserver-"$K8S_VERSION"-*.patch; do
    log "applying $(basename "$p")"
    patch -d "$TREE" -p1 --forward --quiet < "$p" >&2
  done
fi

log "compiling cmd/pier-bench-upstream (about 10 minutes the first time; progress below)"
mkdir -p "$TREE/cmd/pier-bench-upstream"
cp "$MAIN_GO" "$TREE/cmd/pier-bench-upstream/main.go"
# A plain `go build` asks for go.mod updates with Go 1.19; hack/ builds in GOPATH mode.
(cd "$TREE" && CGO_ENABLED=0 make WHAT=cmd/pier-bench-upstream >&2)
mkdir -p "$OUT_DIR/bin"
cp "$TREE/_output/local/bin/linux/amd64/pier-bench-upstream" "$OUT_DIR/bin/.pier-bench-upstream.tmp"
mv "$OUT_DIR/bin/.pier-bench-upstream.tmp" "$BIN"
cp "$MAIN_GO" "$OUT_DIR/main.go"
if [ "${PIER_UPSTREAM_KEEP_TREE:-0}" != 1 ]; then
  rm -rf "$WORK"
fi
log "upstream service controller cached at $BIN"
echo "$BIN"
