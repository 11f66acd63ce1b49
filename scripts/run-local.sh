#!/usr/bin/env bash
# Pier's quick start on a fresh machine: provisions and starts a local real kube-apiserver (the
# first run builds it, about ten minutes), registers this machine as a Node with a small backend
# on a nodePort, starts Pier with the in-process local load balancer, applies
# k8s/examples/hello-lb.yaml and prints the load balancer's address and a curl command.
# Stays in the foreground until Ctrl-C; your own kubeconfig is never touched.
#
# --clusters 3: a federation instead, on three API servers: a host (where federated Services are
# declared, no load balancers of its own) and two members, east (region eu, zone eu-a) and west
# (us, us-a), each with this machine as its Node and Pier's local load balancer on its own pool
# (127.240.1.0/28, 127.240.2.0/28). Applies k8s/examples/hello-federated.yaml to the host, starts a
# backend on each member copy's nodePort that names its member, and prints both members' addresses
# with a curl each, and the host Service's aggregated status and annotation. It also starts a
# standalone PowerDNS server on free loopback ports, lets Pier publish the federated names there
# (zone pier.local: global, per region and per zone) and prints a dig command for each.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

clusters=1
jar=""
usage="usage: $0 [--clusters 1|3] [--jar FILE]"
while [ $# -gt 0 ]; do
  case "$1" in
    --jar)
      jar=${2:-}
      shift 2 || { echo "--jar needs a file" >&2; exit 2; }
      ;;
    --jar=*)
      jar=${1#--jar=}
      shift
      ;;
    --clusters)
      clusters=${2:-}
      shift 2 || { echo "--clusters needs a value: 1 or 3" >&2; exit 2; }
      ;;
    --clusters=*)
      clusters=${1#--clusters=}
      shift
      ;;
    -h | --help)
      sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'
      echo "$usage"
      exit 0
      ;;
    *)
      echo "unknown argument: $1 ($usage)" >&2
      exit 2
      ;;
  esac
done
case "$clusters" in
  1 | 3) ;;
  *)
    echo "--clusters takes 1 or 3, not '$clusters'" >&2
    exit 2
    ;;
esac

# shellcheck source=lib/kube-apiserver.sh
source scripts/lib/kube-apiserver.sh

# Everything this script starts lives in $state and below this process. On any way out (the end,
# an error, Ctrl-C, SIGTERM from a service manager or timeout, SIGHUP from a closed terminal) the
# traps stop it all: Pier and the backends, then the API servers and PowerDNS, then whatever else
# still runs below this script; each gets SIGTERM and, past its deadline, SIGKILL.
state=$(mktemp -d "${TMPDIR:-/tmp}/pier-local.XXXXXX")
pids=()
pier_pid=""

# True if PID runs (a zombie that is not reaped yet has exited).
_alive() {
  kill -0 "$1" 2>/dev/null && [ "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)" != Z ]
}

# The processes below PID, children after their own children.
_descendants() {
  local child
  for child in $(pgrep -P "$1" 2>/dev/null); do
    _descendants "$child"
    echo "$child"
  done
}

# _stop SECONDS PID...: SIGTERM, then SIGKILL to those still running after SECONDS.
_stop() {
  local grace=$1 p deadline running
  shift
  [ $# -gt 0 ] || return 0
  kill -TERM "$@" 2>/dev/null
  deadline=$((SECONDS + grace))
  while :; do
    running=()
    for p in "$@"; do _alive "$p" && running+=("$p"); done
    [ ${#running[@]} -gt 0 ] || return 0
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "[pier] still running after ${grace} s, killing: ${running[*]}" >&2
      kill -KILL "${running[@]}" 2>/dev/null
      return 0
    fi
    sleep 0.1
  done
}

cleanup() {
  set +e
  trap '' INT TERM HUP
  trap - EXIT
  echo "[pier] stopping"
  # Pier first (it lets go of its load balancers), and the backends.
  _stop 15 ${pids[@]+"${pids[@]}"}
  # The single API server in $state, or the federation's in $state/host, east and west.
  for d in "$state" "$state/host" "$state/east" "$state/west"; do
    pier_apiserver_stop "$d"
  done
  # The federation's PowerDNS server, if it started one.
  if declare -F pier_fed_pdns_stop >/dev/null; then pier_fed_pdns_stop "$state/pdns"; fi
  # Whatever still runs below this script: a build, a kubectl or curl, a server caught halfway
  # through its start (its pid file not written yet).
  # shellcheck disable=SC2046  # pids are words
  _stop 5 $(_descendants $$)
  rm -rf "$state"
}
on_signal() {
  echo "[pier] got SIG$1" >&2
  cleanup
  exit $((128 + $2))
}
trap 'rc=$?; cleanup; exit $rc' EXIT
trap 'on_signal INT 2' INT
trap 'on_signal TERM 15' TERM
trap 'on_signal HUP 1' HUP

# True, after saying so, when Pier has exited: a start that failed; the script then exits.
pier_exited() {
  local status=0
  [ -n "$pier_pid" ] && ! _alive "$pier_pid" || return 1
  wait "$pier_pid" || status=$?
  echo "[pier] Pier exited with status $status; its log is above" >&2
  return 0
}

# Long steps run in the background and are waited for: a signal interrupts a wait at once, where
# it would wait for a foreground command to finish first.
# Only the current release: the oldest supported one is for the compatibility tests.
PIER_PROVISION_OLDEST=0 scripts/provision.sh >"$state/provision.out" &
wait $!
bin=$(tail -n 1 "$state/provision.out")
export PATH="$bin:$PATH"
# Where lib/kube-apiserver.sh finds the binaries provision.sh just reported.
export PIER_KUBE_BIN_DIR="$bin"

if [ -z "$jar" ]; then
  echo "[pier] building target/pier.jar"
  mvn -B -q -DskipTests package &
  wait $!
  jar=target/pier.jar
elif [ ! -f "$jar" ]; then
  echo "--jar $jar: no such file" >&2
  exit 2
fi
# Pier's JVM flags (one set for every way Pier runs), and the class-data sharing archive that the
# build leaves next to the jar (the JVM ignores it if it does not match the jar).
java_flags=("@conf/jvm.options")
if [ -f "${jar%.jar}.jsa" ]; then java_flags+=("-XX:SharedArchiveFile=${jar%.jar}.jsa"); fi

# The admin endpoints on a free port: a fixed one may be taken (another Pier, another run).
PIER_ADMIN_PORT=${PIER_ADMIN_PORT:-$(_pier_free_port)}
export PIER_ADMIN_PORT
if [ "$clusters" = 3 ]; then
  # shellcheck source=lib/run-federation.sh
  source scripts/lib/run-federation.sh
  pier_run_federation
  exit 0
fi
echo "[pier] starting etcd and kube-apiserver in $state"
pier_apiserver_start "$state"
kubeconfig="$state/kubeconfig"
k() { kubectl --kubeconfig "$kubeconfig" "$@"; }

echo "[pier] registering Node demo-node (this machine, 127.0.0.1)"
k apply -f k8s/examples/demo-node.yaml >/dev/null
server=$(k config view --minify -o jsonpath='{.clusters[0].cluster.server}')
token=$(k config view --minify --raw -o jsonpath='{.users[0].user.token}')
now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
curl -fsSk --http1.1 -X PATCH "$server/api/v1/nodes/demo-node/status" \
  -H "Authorization: Bearer $token" -H "Content-Type: application/merge-patch+json" \
  --data "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\",\"reason\":\"KubeletReady\",\"lastHeartbeatTime\":\"$now\",\"lastTransitionTime\":\"$now\"}],\"addresses\":[{\"type\":\"InternalIP\",\"address\":\"127.0.0.1\"},{\"type\":\"Hostname\",\"address\":\"demo-node\"}]}}" \
  >/dev/null

echo "[pier] starting the demo backend on 127.0.0.1:30080 (the Service's nodePort)"
java scripts/demo/Backend.java 127.0.0.1 30080 &
pids+=($!)

echo "[pier] starting Pier: java ${java_flags[*]} -jar $jar --config conf/pier.yaml"
# PIER_KUBE_BIN_DIR is the scripts' own (where provision.sh keeps the binaries), not an option.
env -u PIER_KUBE_BIN_DIR PIER_CLUSTER_KUBECONFIG="$kubeconfig" java "${java_flags[@]}" -jar "$jar" --config conf/pier.yaml &
pier_pid=$!
pids+=($pier_pid)

echo "[pier] applying k8s/examples/hello-lb.yaml"
k apply -f k8s/examples/hello-lb.yaml >/dev/null
ip=""
for _ in $(seq 1 120); do
  if pier_exited; then exit 1; fi
  ip=$(k get svc hello -o jsonpath='{.status.loadBalancer.ingress[0].ip}' 2>/dev/null || true)
  [ -n "$ip" ] && break
  sleep 0.5
done
if [ -z "$ip" ]; then
  echo "[pier] the Service got no load balancer address; Pier's log is above" >&2
  exit 1
fi
for _ in $(seq 1 20); do curl -fs "http://$ip:8080/" >/dev/null 2>&1 && break; sleep 0.5; done

cat <<MSG

[pier] Service default/hello has the load balancer address $ip
[pier] try it:   curl http://$ip:8080/
[pier]           $(curl -fsS "http://$ip:8080/" 2>&1 | head -n 1)
[pier] kubectl:  kubectl --kubeconfig $kubeconfig describe svc hello
[pier] admin endpoints: http://127.0.0.1:$PIER_ADMIN_PORT/ (healthz, readyz, metrics)
[pier] Ctrl-C (or SIGTERM, SIGHUP) stops Pier, the backend and the API server.

MSG
wait "$pier_pid"
