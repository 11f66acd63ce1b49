#!/usr/bin/env bash
# Pier's quick start on a fresh machine: provisions and starts a local real kube-apiserver (the
# first run builds it, about ten minutes), registers this machine as a Node with a small backend
# on a nodePort, starts Pier with the in-process local load balancer, applies
# k8s/examples/hello-lb.yaml and prints the load balancer's address and a curl command.
# Stays in the foreground until Ctrl-C; your own kubeconfig is never touched.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

bin=$(scripts/provision.sh | tail -n 1)
export PATH="$bin:$PATH"

echo "[pier] building target/pier.jar"
mvn -B -q -DskipTests package

state=$(mktemp -d "${TMPDIR:-/tmp}/pier-local.XXXXXX")
pids=()
cleanup() {
  trap - EXIT INT TERM
  echo "[pier] stopping"
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  # Only Pier and the backend: a bare wait would also wait for the API server, which is stopped
  # below, and hang when the script alone gets the signal (timeout, a service manager).
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  pier_apiserver_stop "$state" || true
  rm -rf "$state"
}
trap cleanup EXIT INT TERM

# shellcheck source=lib/kube-apiserver.sh
source scripts/lib/kube-apiserver.sh
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

echo "[pier] starting Pier: java -jar target/pier.jar --config conf/pier.yaml"
PIER_CLUSTER_KUBECONFIG="$kubeconfig" java -jar target/pier.jar --config conf/pier.yaml &
pier_pid=$!
pids+=($pier_pid)

echo "[pier] applying k8s/examples/hello-lb.yaml"
k apply -f k8s/examples/hello-lb.yaml >/dev/null
ip=""
for _ in $(seq 1 120); do
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
[pier] Ctrl-C stops Pier, the backend and the API server.

MSG
wait "$pier_pid"
