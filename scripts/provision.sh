#!/usr/bin/env bash
# Provisions what Pier's run and test commands need on a Debian/Ubuntu machine, idempotently:
# Debian packages (openssl, curl, PowerDNS with sqlite3, dig, prometheus, podman, ...), the image's
# base (scripts/image.sh --base-only) and, from the pinned
# Go modules in scripts/kube/, kube-apiserver, kubectl and etcd of the current Kubernetes release
# and of the oldest release Pier supports (versions in scripts/lib/kube-build.sh). Each build takes
# about a quarter of an hour once on two cores; the binaries are cached under
# ${XDG_CACHE_HOME:-$HOME/.cache}/pier/ and guarded by a lock so parallel runs build them only once.
# Needs Go 1.21 or newer on the PATH (the go command fetches the toolchain a module asks for).
# Prints the current release's bin path on its last line.
#   PIER_PROVISION_OLDEST=0 scripts/provision.sh   # skip the oldest release (run-local needs only the current)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=lib/kube-build.sh
source "$here/lib/kube-build.sh"
KUBE_MODULES="$here/kube"
LOCK="$PIER_KUBE_CACHE_DIR/provision.lock"

log() { printf '[provision] %s\n' "$*" >&2; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    log "need root (or sudo) to run: $*"; exit 1; fi
}

need_packages=()
command -v openssl >/dev/null || need_packages+=(openssl)
command -v curl >/dev/null || need_packages+=(curl)
command -v flock >/dev/null || need_packages+=(util-linux)
# scripts/run-local.sh finds what it started with pgrep.
command -v pgrep >/dev/null || need_packages+=(procps)
# DNS tests: a real PowerDNS Authoritative server with the sqlite3 backend, and dig.
command -v pdns_server >/dev/null || need_packages+=(pdns-server)
[ -f /usr/share/pdns-backend-sqlite3/schema/schema.sqlite3.sql ] || need_packages+=(pdns-backend-sqlite3)
command -v dig >/dev/null || need_packages+=(dnsutils)
# DNS strategy tests: a real recursive resolver in front of PowerDNS (the tests start their own on
# a loopback port; the system service the package enables is switched off again below).
install_unbound=0
[ -x /usr/sbin/unbound ] || { need_packages+=(unbound); install_unbound=1; }
command -v sqlite3 >/dev/null || need_packages+=(sqlite3)
command -v ip >/dev/null || need_packages+=(iproute2)
# The monitoring tests run the shipped dashboard and alert expressions on a real Prometheus.
command -v prometheus >/dev/null || need_packages+=(prometheus)
# Pier's image (scripts/image.sh, ImageIT): its base root filesystem, and podman to build it.
command -v mmdebstrap >/dev/null || need_packages+=(mmdebstrap)
command -v podman >/dev/null || need_packages+=(podman)
if [ ${#need_packages[@]} -gt 0 ]; then
  log "installing Debian packages: ${need_packages[*]}"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${need_packages[@]}" >&2
  # Only the binary is wanted: the package's own resolver on port 53 (and its resolv.conf hook)
  # must not take over this machine's name resolution.
  if [ "$install_unbound" = 1 ] && command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then
    as_root systemctl disable --now unbound.service unbound-resolvconf.service >/dev/null 2>&1 || true
  fi
fi

# The local provider's dual-stack tests use the IPv6 pool fd00:7069:6572::/112: route it to lo and
# allow binding addresses no interface has (IPv4's 127.0.0.0/8 needs neither).
as_root ip -6 route replace local fd00:7069:6572::/112 dev lo
as_root sysctl -q -w net.ipv6.ip_nonlocal_bind=1

mkdir -p "$PIER_KUBE_CACHE_DIR"
exec 9>"$PIER_KUBE_CACHE_DIR/provision.lock"
if ! flock -n 9; then
  log "another provisioning run holds $LOCK; waiting for it"
  flock 9
fi

check_go() {
  if ! command -v go >/dev/null; then
    log "*** no go command on the PATH: install Go 1.21 or newer (https://go.dev/doc/install);"
    log "*** the go command then fetches the toolchain the pinned modules ask for."
    exit 1
  fi
  local v
  v=$(go env GOVERSION)
  case "$v" in
    go1.1[0-9]* | go1.20*) log "*** $v is too old to build the pinned modules; install Go 1.21 or newer"; exit 1 ;;
  esac
}

# build KUBERNETES_VERSION ETCD_VERSION BIN_DIR: kube-apiserver and kubectl from
# scripts/kube/kubernetes-vMAJOR.MINOR, etcd from scripts/kube/etcd-vETCD, into BIN_DIR.
build() {
  local kube=$1 etcd=$2 bin=$3
  if [ -x "$bin/kube-apiserver" ] && [ -x "$bin/kubectl" ] && [ -x "$bin/etcd" ]; then
    return 0
  fi
  check_go
  local minor=${kube%.*} major=${kube%%.*} tmp="$bin.tmp" started=$SECONDS
  local kube_module="$KUBE_MODULES/kubernetes-v$minor" etcd_module="$KUBE_MODULES/etcd-v$etcd"
  grep -q "k8s.io/kubernetes v$kube\$" "$kube_module/go.mod" || {
    log "*** $kube_module/go.mod does not pin k8s.io/kubernetes v$kube; run scripts/kube/pin.sh"
    exit 1
  }
  local x ldflags=""
  # What `kubectl version` and the apiserver's /version report (else v0.0.0).
  for x in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $x.gitVersion=v$kube -X $x.gitMajor=$major -X $x.gitMinor=${minor#*.}"
    ldflags+=" -X $x.gitTreeState=clean"
  done
  log "building kube-apiserver and kubectl v$kube and etcd v$etcd from their Go modules" \
    "(about a quarter of an hour on two cores the first time)"
  rm -rf "$tmp" && mkdir -p "$tmp"
  (cd "$kube_module" && CGO_ENABLED=0 go build -mod=readonly -trimpath -ldflags="$ldflags" \
    -o "$tmp/" k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kubectl >&2)
  (cd "$etcd_module" && CGO_ENABLED=0 go build -mod=readonly -trimpath -o "$tmp/etcd" . >&2)
  "$tmp/kube-apiserver" --version | grep -qx "Kubernetes v$kube" || {
    log "*** the built kube-apiserver reports '$("$tmp/kube-apiserver" --version)', not v$kube"
    exit 1
  }
  rm -rf "$bin" && mkdir -p "$(dirname "$bin")" && mv "$tmp" "$bin"
  log "v$kube cached at $bin in $((SECONDS - started)) s"
}

# The image's base, from Debian's mirror (ImageIT's fork has no network): a minute the first time.
as_root "$here/image.sh" --base-only >/dev/null

build "$PIER_K8S_VERSION" "$PIER_ETCD_VERSION" "$PIER_KUBE_DEFAULT_BIN_DIR"
if [ "${PIER_PROVISION_OLDEST:-1}" != 0 ]; then
  build "$PIER_K8S_OLDEST_VERSION" "$PIER_ETCD_OLDEST_VERSION" "$PIER_KUBE_OLDEST_BIN_DIR"
fi
echo "$PIER_KUBE_DEFAULT_BIN_DIR"
