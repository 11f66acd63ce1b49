#!/usr/bin/env bash
# Provisions what Pier's run and test commands need on a Debian/Ubuntu machine, idempotently:
# Debian packages (etcd, Go, openssl, curl, kubectl, PowerDNS with sqlite3, dig, prometheus) and a
# kube-apiserver 1.20.2 built from Debian's `kubernetes` source package. The build takes about ten
# minutes once; the binary is cached under
# ${XDG_CACHE_HOME:-$HOME/.cache}/pier/ and guarded by a lock so parallel runs build it only once.
# Prints the cache directory's bin path on its last line.
set -euo pipefail

# shellcheck source=lib/kube-build.sh
source "$(cd "$(dirname "$0")" && pwd)/lib/kube-build.sh"
K8S_VERSION=$PIER_K8S_VERSION
DEB_SOURCE_VERSION=1.20.5+really1.20.2
CACHE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/pier"
BUILD_ID=$PIER_KUBE_BUILD_ID
BIN_DIR=$PIER_KUBE_DEFAULT_BIN_DIR
PATCHES_DIR="$(cd "$(dirname "$0")" && pwd)/patches"
LOCK="$CACHE_DIR/provision.lock"

log() { printf '[provision] %s\n' "$*" >&2; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    log "need root (or sudo) to run: $*"; exit 1; fi
}

need_packages=()
command -v etcd >/dev/null || need_packages+=(etcd-server)
command -v openssl >/dev/null || need_packages+=(openssl)
command -v curl >/dev/null || need_packages+=(curl)
command -v kubectl >/dev/null || need_packages+=(kubernetes-client)
command -v flock >/dev/null || need_packages+=(util-linux)
# scripts/run-local.sh finds what it started with pgrep.
command -v pgrep >/dev/null || need_packages+=(procps)
# DNS tests: a real PowerDNS Authoritative server with the sqlite3 backend, and dig.
command -v pdns_server >/dev/null || need_packages+=(pdns-server)
[ -f /usr/share/pdns-backend-sqlite3/schema/schema.sqlite3.sql ] || need_packages+=(pdns-backend-sqlite3)
command -v dig >/dev/null || need_packages+=(dnsutils)
command -v sqlite3 >/dev/null || need_packages+=(sqlite3)
command -v ip >/dev/null || need_packages+=(iproute2)
# The monitoring tests run the shipped dashboard and alert expressions on a real Prometheus.
command -v prometheus >/dev/null || need_packages+=(prometheus)
if [ ! -x "$BIN_DIR/kube-apiserver" ]; then
  command -v go >/dev/null || need_packages+=(golang-go)
  command -v rsync >/dev/null || need_packages+=(rsync)
  command -v make >/dev/null || need_packages+=(make)
  command -v dpkg-source >/dev/null || need_packages+=(dpkg-dev)
  command -v patch >/dev/null || need_packages+=(patch)
fi
if [ ${#need_packages[@]} -gt 0 ]; then
  log "installing Debian packages: ${need_packages[*]}"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${need_packages[@]}" >&2
fi
# Installing etcd-server may start a system etcd on 2379; Pier's tests never use it.

# The local provider's dual-stack tests use the IPv6 pool fd00:7069:6572::/112: route it to lo and
# allow binding addresses no interface has (IPv4's 127.0.0.0/8 needs neither).
as_root ip -6 route replace local fd00:7069:6572::/112 dev lo
as_root sysctl -q -w net.ipv6.ip_nonlocal_bind=1

mkdir -p "$CACHE_DIR"
exec 9>"$LOCK"
if ! flock -n 9; then
  log "another provisioning run holds $LOCK; waiting for it"
  flock 9
fi

if [ ! -x "$BIN_DIR/kube-apiserver" ]; then
  log "building kube-apiserver $K8S_VERSION from Debian's source package (about 10 minutes, once)"
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
  work="$CACHE_DIR/build"
  rm -rf "$work" && mkdir -p "$work"
  (cd "$work" && apt-get source --download-only kubernetes >&2)
  log "unpacking"
  tar -C "$work" -xzf "$work/kubernetes_${DEB_SOURCE_VERSION}.orig.tar.gz"
  # Kubernetes 1.20 vendors reflect2 v1.0.1, whose map iteration corrupts memory when built with
  # Go 1.18 or newer (the apiserver dies with "fatal error: fault" when it encodes some objects,
  # e.g. on a PATCH of nodes/status). Apply reflect2 v1.0.2's fix.
  # Kubernetes 1.20.0-1.20.9 leave a Service watch open and silent when the watch cache drops a
  # slow watcher, and never end a WebSocket Service watch at its timeoutSeconds
  # (kubernetes/kubernetes#102464). Apply the fix that 1.20.10 shipped (#102542).
  for p in "$PATCHES_DIR"/kube-apiserver-"$K8S_VERSION"-*.patch; do
    log "applying $(basename "$p")"
    patch -d "$work/kubernetes-$K8S_VERSION" -p1 --forward --quiet < "$p" >&2
  done
  log "compiling (progress below)"
  (cd "$work/kubernetes-$K8S_VERSION" && CGO_ENABLED=0 make WHAT=cmd/kube-apiserver >&2)
  mkdir -p "$BIN_DIR"
  cp "$work/kubernetes-$K8S_VERSION/_output/local/bin/linux/amd64/kube-apiserver" "$BIN_DIR/.kube-apiserver.tmp"
  mv "$BIN_DIR/.kube-apiserver.tmp" "$BIN_DIR/kube-apiserver"
  rm -rf "$work"
  log "kube-apiserver cached at $BIN_DIR"
fi
ln -sf "$(command -v etcd)" "$BIN_DIR/etcd"
ln -sf "$(command -v kubectl)" "$BIN_DIR/kubectl"
echo "$BIN_DIR"
