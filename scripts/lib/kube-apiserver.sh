#!/usr/bin/env bash
# A throwaway etcd + kube-apiserver (the release scripts/lib/kube-build.sh pins) on free loopback
# ports, for the demo and benchmarks.
# Same flags as the Java test kit (src/testkit/java/dev/pier/testkit/KubeApiServer.java).
#
# Source it and call the functions:
#   . scripts/lib/kube-apiserver.sh
#   pier_apiserver_start DIR [EXTRA_APISERVER_FLAG...]   # e.g. --v=2
#   kubectl --kubeconfig "DIR/kubeconfig" get ns
#   pier_apiserver_kubeconfig DIR TOKEN OUT              # kubeconfig for another token-file user
#   pier_apiserver_stop DIR
# or run it: scripts/lib/kube-apiserver.sh start DIR [FLAG...] | stop DIR | kubeconfig DIR TOKEN OUT
#
# DIR is created if needed and holds everything: etcd-data/, certs/ (the apiserver's self-signed
# certificate, used as the kubeconfig's CA), sa.key/sa.pub, tokens.csv, kubeconfig, url,
# admin-token, etcd.log, kube-apiserver.log, *.pid. pier_apiserver_stop leaves DIR in place (logs);
# remove it yourself. After a start, PIER_APISERVER_URL, PIER_APISERVER_KUBECONFIG and
# PIER_APISERVER_TOKEN are set in the calling shell.
#
# Extra users: before the start, write token-file lines to DIR/users.csv, one per user:
#   mytoken,myuser,myuid,"group1,group2"
# Audit log: PIER_APISERVER_AUDIT=1 writes DIR/audit.log with a Metadata-level policy.
# Binaries: $PIER_KUBE_BIN_DIR, else where scripts/provision.sh puts them (lib/kube-build.sh). Needs openssl and curl (provision.sh installs both).
#
# The functions return non-zero on failure instead of exiting, and do not change shell options.
# shellcheck disable=SC2034  # PIER_APISERVER_* are set for the sourcing shell

_pier_log() { printf '[kube-apiserver] %s\n' "$*" >&2; }

# shellcheck source=kube-build.sh
source "$(dirname "${BASH_SOURCE[0]}")/kube-build.sh"

_pier_bin_dir() {
  if [ -n "${PIER_KUBE_BIN_DIR:-}" ]; then
    printf '%s\n' "$PIER_KUBE_BIN_DIR"
  else
    printf '%s\n' "$PIER_KUBE_DEFAULT_BIN_DIR"
  fi
}

# True if nothing listens on 127.0.0.1:PORT (or on any address at PORT).
_pier_port_free() {
  local port=$1
  if command -v ss >/dev/null 2>&1; then
    [ -z "$(ss -Htln "sport = :$port" 2>/dev/null)" ]
  else
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then return 1; fi
  fi
}

# Prints a free port from 20000-29999 that is not among the arguments: below Linux's ephemeral
# range (32768-60999), where an outgoing connection's local port can take a port between the check
# and the bind, and below the NodePort range (30000-32767).
_pier_free_port() {
  local port taken attempt
  for attempt in $(seq 1 200); do
    port=$(shuf -i 20000-29999 -n 1)
    for taken in "$@"; do
      [ "$port" = "$taken" ] && continue 2
    done
    if _pier_port_free "$port"; then
      printf '%s\n' "$port"
      return 0
    fi
  done
  _pier_log "found no free port"
  return 1
}

# Writes a kubeconfig for URL and TOKEN to OUT, trusting DIR/certs/apiserver.crt if it exists.
_pier_write_kubeconfig() {
  local dir=$1 url=$2 token=$3 out=$4 trust
  if [ -f "$dir/certs/apiserver.crt" ]; then
    trust="    certificate-authority: \"$dir/certs/apiserver.crt\""
  else
    trust="    insecure-skip-tls-verify: true"
  fi
  cat >"$out" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
- name: pier
  cluster:
    server: "$url"
$trust
users:
- name: pier-user
  user:
    token: "$token"
contexts:
- name: pier
  context:
    cluster: pier
    user: pier-user
    namespace: default
current-context: pier
KUBECONFIG
}

_pier_tail_log() {
  local log=$1
  _pier_log "--- last lines of $log ---"
  tail -n 30 "$log" >&2 || true
  _pier_log "--- end of $log ---"
}

# Waits until URL answers a text starting with EXPECTED (at most 60 s) while PID lives; extra args go to curl.
_pier_await() {
  local name=$1 pid=$2 url=$3 expected=$4 log=$5
  shift 5
  local deadline=$((SECONDS + 60)) answer=""
  while [ "$SECONDS" -lt "$deadline" ]; do
    if ! kill -0 "$pid" 2>/dev/null; then
      _pier_log "$name exited early"
      _pier_tail_log "$log"
      if grep -q "address already in use" "$log"; then return 2; fi
      return 1
    fi
    answer=$(curl -sk --max-time 5 "$@" "$url" 2>/dev/null || true)
    # A prefix: etcd 3.6 and newer answer {"health":"true","reason":""}.
    if [ "${answer#"$expected"}" != "$answer" ]; then
      return 0
    fi
    sleep 0.2
  done
  _pier_log "$name was not ready within 60 s; last answer of $url: $answer"
  _pier_tail_log "$log"
  return 1
}

# Stops the process recorded in PIDFILE if it still runs NAME: TERM, then KILL after 10 s.
_pier_stop_pid() {
  local pidfile=$1 name=$2 pid _
  [ -f "$pidfile" ] || return 0
  pid=$(cat "$pidfile")
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null \
    && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$name"; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
      _pier_log "$name ($pid) ignored SIGTERM for 10 s; killing it"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  rm -f "$pidfile"
}

# One start attempt; returns 2 when a port was taken meanwhile (the caller retries).
_pier_apiserver_start_once() {
  local dir=$1 bin=$2
  shift 2
  local etcd_port peer_port api_port admin_token etcd_url peer_url url rc
  etcd_port=$(_pier_free_port) || return 1
  peer_port=$(_pier_free_port "$etcd_port") || return 1
  api_port=$(_pier_free_port "$etcd_port" "$peer_port") || return 1
  etcd_url="http://127.0.0.1:$etcd_port"
  peer_url="http://127.0.0.1:$peer_port"
  url="https://127.0.0.1:$api_port"

  rm -rf "$dir/etcd-data" "$dir/certs"
  mkdir -p "$dir/certs" || return 1
  openssl genrsa -out "$dir/sa.key" 2048 2>/dev/null || { _pier_log "openssl genrsa failed"; return 1; }
  openssl rsa -in "$dir/sa.key" -pubout -out "$dir/sa.pub" 2>/dev/null || return 1
  admin_token="admin-$(openssl rand -hex 16)" || return 1
  {
    printf '%s,admin,admin,system:masters\n' "$admin_token"
    if [ -f "$dir/users.csv" ]; then cat "$dir/users.csv"; fi
  } >"$dir/tokens.csv" || return 1

  "$bin/etcd" --name=pier --data-dir="$dir/etcd-data" \
    --listen-client-urls="$etcd_url" --advertise-client-urls="$etcd_url" \
    --listen-peer-urls="$peer_url" --initial-advertise-peer-urls="$peer_url" \
    --initial-cluster="pier=$peer_url" --heartbeat-interval=10 --election-timeout=100 --logger=zap \
    </dev/null >"$dir/etcd.log" 2>&1 &
  echo $! >"$dir/etcd.pid"
  rc=0
  _pier_await etcd "$(cat "$dir/etcd.pid")" "$etcd_url/health" '{"health":"true"' \
    "$dir/etcd.log" || rc=$?
  if [ "$rc" != 0 ]; then
    _pier_stop_pid "$dir/etcd.pid" etcd
    return "$rc"
  fi

  local audit_flags=()
  if [ "${PIER_APISERVER_AUDIT:-0}" = 1 ]; then
    printf 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n  - level: Metadata\n' \
      >"$dir/audit-policy.yaml"
    audit_flags=(--audit-policy-file="$dir/audit-policy.yaml" --audit-log-path="$dir/audit.log")
  fi
  "$bin/kube-apiserver" \
    --etcd-servers="$etcd_url" --bind-address=127.0.0.1 --secure-port="$api_port" \
    --cert-dir="$dir/certs" \
    --service-account-key-file="$dir/sa.pub" --service-account-signing-key-file="$dir/sa.key" \
    --service-account-issuer=https://kubernetes.default.svc \
    --token-auth-file="$dir/tokens.csv" --authorization-mode=RBAC \
    --service-cluster-ip-range=10.96.0.0/16 \
    --service-node-port-range=10000-32767 \
    ${audit_flags[@]+"${audit_flags[@]}"} "$@" \
    </dev/null >"$dir/kube-apiserver.log" 2>&1 &
  echo $! >"$dir/kube-apiserver.pid"
  rc=0
  _pier_await kube-apiserver "$(cat "$dir/kube-apiserver.pid")" "$url/readyz" ok \
    "$dir/kube-apiserver.log" -H "Authorization: Bearer $admin_token" || rc=$?
  if [ "$rc" != 0 ]; then
    _pier_stop_pid "$dir/kube-apiserver.pid" kube-apiserver
    _pier_stop_pid "$dir/etcd.pid" etcd
    return "$rc"
  fi

  printf '%s\n' "$url" >"$dir/url"
  printf '%s\n' "$admin_token" >"$dir/admin-token"
  _pier_write_kubeconfig "$dir" "$url" "$admin_token" "$dir/kubeconfig" || return 1
  PIER_APISERVER_URL="$url"
  PIER_APISERVER_KUBECONFIG="$dir/kubeconfig"
  PIER_APISERVER_TOKEN="$admin_token"
  _pier_log "ready at $url; kubeconfig $dir/kubeconfig"
}

# pier_apiserver_start DIR [EXTRA_APISERVER_FLAG...]
pier_apiserver_start() {
  if [ $# -lt 1 ]; then
    _pier_log "usage: pier_apiserver_start DIR [EXTRA_APISERVER_FLAG...]"
    return 2
  fi
  local dir=$1 bin attempt rc tool
  shift
  bin=$(_pier_bin_dir)
  if [ ! -x "$bin/kube-apiserver" ] || [ ! -x "$bin/etcd" ]; then
    _pier_log "*** kube-apiserver or etcd is missing from $bin."
    _pier_log "*** Run scripts/provision.sh once (it builds and caches kube-apiserver, etcd and"
    _pier_log "*** kubectl $PIER_K8S_VERSION), or set PIER_KUBE_BIN_DIR to a directory holding them."
    return 1
  fi
  for tool in openssl curl shuf; do
    if ! command -v "$tool" >/dev/null 2>&1; then
      _pier_log "*** $tool is missing; run scripts/provision.sh"
      return 1
    fi
  done
  mkdir -p "$dir" || return 1
  dir=$(cd "$dir" && pwd) || return 1
  if [ -f "$dir/kube-apiserver.pid" ] && kill -0 "$(cat "$dir/kube-apiserver.pid")" 2>/dev/null; then
    _pier_log "an apiserver from $dir already runs; pier_apiserver_stop $dir first"
    return 1
  fi
  for attempt in 1 2 3; do
    rc=0
    _pier_apiserver_start_once "$dir" "$bin" "$@" || rc=$?
    if [ "$rc" = 0 ]; then
      return 0
    elif [ "$rc" != 2 ]; then
      _pier_log "start failed; logs kept in $dir"
      return 1
    fi
    _pier_log "a port was taken meanwhile (attempt $attempt); retrying with other ports"
  done
  _pier_log "start failed; logs kept in $dir"
  return 1
}

# pier_apiserver_kubeconfig DIR TOKEN OUT: a kubeconfig for a user from DIR/users.csv (or any token).
pier_apiserver_kubeconfig() {
  if [ $# -ne 3 ] || [ ! -f "$1/url" ]; then
    _pier_log "usage: pier_apiserver_kubeconfig DIR TOKEN OUT (after pier_apiserver_start DIR)"
    return 2
  fi
  local dir
  dir=$(cd "$1" && pwd) || return 1
  _pier_write_kubeconfig "$dir" "$(cat "$dir/url")" "$2" "$3"
}

# pier_apiserver_stop DIR: stops the apiserver, then etcd. Leaves DIR (and its logs) in place.
pier_apiserver_stop() {
  if [ $# -ne 1 ]; then
    _pier_log "usage: pier_apiserver_stop DIR"
    return 2
  fi
  [ -d "$1" ] || return 0
  _pier_stop_pid "$1/kube-apiserver.pid" kube-apiserver
  _pier_stop_pid "$1/etcd.pid" etcd
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  command=${1:-}
  shift || true
  case "$command" in
    start)
      pier_apiserver_start "$@"
      printf 'PIER_APISERVER_URL=%s\nPIER_APISERVER_KUBECONFIG=%s\n' \
        "$PIER_APISERVER_URL" "$PIER_APISERVER_KUBECONFIG"
      ;;
    stop) pier_apiserver_stop "$@" ;;
    kubeconfig) pier_apiserver_kubeconfig "$@" ;;
    *)
      echo "usage: $0 start DIR [FLAG...] | stop DIR | kubeconfig DIR TOKEN OUT" >&2
      exit 2
      ;;
  esac
fi
