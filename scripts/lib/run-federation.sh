#!/usr/bin/env bash
# The three-cluster mode of scripts/run-local.sh (--clusters 3), sourced by it after
# kube-apiserver.sh: uses its $state directory and adds what it starts to its $pids, so that its
# cleanup stops everything (Pier, the backends, all three API servers).
#
# Address pools: the members' load balancers take 127.240.1.0/28 (east) and 127.240.2.0/28
# (west); the single-cluster mode uses 127.240.0.x (conf/pier.yaml) and the tests 127.241-247.x.

PIER_FEDERATION_CLUSTERS=(host east west)

# Registers this machine (127.0.0.1) as a ready Node NAME in the cluster of KUBECONFIG, with
# topology labels REGION and ZONE. No kubelet runs: the Ready condition and InternalIP go through
# the nodes/status subresource.
_pier_fed_node() {
  local kubeconfig=$1 name=$2 region=$3 zone=$4 server token now
  kubectl --kubeconfig "$kubeconfig" apply -f - >/dev/null <<NODE
apiVersion: v1
kind: Node
metadata:
  name: $name
  labels:
    kubernetes.io/hostname: $name
    topology.kubernetes.io/region: $region
    topology.kubernetes.io/zone: $zone
NODE
  server=$(kubectl --kubeconfig "$kubeconfig" config view --minify -o jsonpath='{.clusters[0].cluster.server}')
  token=$(kubectl --kubeconfig "$kubeconfig" config view --minify --raw -o jsonpath='{.users[0].user.token}')
  now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  curl -fsSk --http1.1 -X PATCH "$server/api/v1/nodes/$name/status" \
    -H "Authorization: Bearer $token" -H "Content-Type: application/merge-patch+json" \
    --data "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\",\"reason\":\"KubeletReady\",\"lastHeartbeatTime\":\"$now\",\"lastTransitionTime\":\"$now\"}],\"addresses\":[{\"type\":\"InternalIP\",\"address\":\"127.0.0.1\"},{\"type\":\"Hostname\",\"address\":\"$name\"}]}}" \
    >/dev/null
}

# Waits up to TRIES half-seconds until `kubectl --kubeconfig KUBECONFIG ARGS...` prints something;
# prints it.
_pier_fed_await() {
  local kubeconfig=$1 tries=$2 out=""
  shift 2
  for _ in $(seq 1 "$tries"); do
    out=$(kubectl --kubeconfig "$kubeconfig" "$@" 2>/dev/null || true)
    if [ -n "$out" ]; then
      printf '%s\n' "$out"
      return 0
    fi
    sleep 0.5
  done
  return 1
}

pier_run_federation() {
  local c p started=() failed=0 config="$state/pier-federation.yaml"

  echo "[pier] starting three etcd + kube-apiserver pairs (host, east, west) in $state"
  for c in "${PIER_FEDERATION_CLUSTERS[@]}"; do
    mkdir -p "$state/$c"
    pier_apiserver_start "$state/$c" >"$state/$c.start.log" 2>&1 &
    started+=($!)
  done
  for p in "${started[@]}"; do wait "$p" || failed=1; done
  if [ "$failed" = 1 ]; then
    for c in "${PIER_FEDERATION_CLUSTERS[@]}"; do cat "$state/$c.start.log" >&2; done
    echo "[pier] an API server did not start" >&2
    return 1
  fi
  for c in "${PIER_FEDERATION_CLUSTERS[@]}"; do
    echo "[pier] $c: $(cat "$state/$c/url"), kubeconfig $state/$c/kubeconfig"
  done

  echo "[pier] registering Nodes east-1 (eu/eu-a) in east and west-1 (us/us-a) in west (this machine)"
  _pier_fed_node "$state/east/kubeconfig" east-1 eu eu-a
  _pier_fed_node "$state/west/kubeconfig" west-1 us us-a

  cat >"$config" <<CONFIG
# Written by scripts/run-local.sh --clusters 3.
clusters:
  - name: host
    kubeconfig: "$state/host/kubeconfig"
    federation: host
    loadBalancers: false
  - name: east
    kubeconfig: "$state/east/kubeconfig"
    federation: member
    labels: {tier: gold}
    local:
      pools: ["127.240.1.0/28"]
  - name: west
    kubeconfig: "$state/west/kubeconfig"
    federation: member
    labels: {tier: silver}
    local:
      pools: ["127.240.2.0/28"]
federation:
  health: {period: 2s, timeout: 1s}
CONFIG
  echo "[pier] starting Pier: java -jar target/pier.jar --config $config"
  java -jar target/pier.jar --config "$config" &
  pier_pid=$!
  pids+=("$pier_pid")

  echo "[pier] applying k8s/examples/hello-federated.yaml to the host"
  kubectl --kubeconfig "$state/host/kubeconfig" apply -f k8s/examples/hello-federated.yaml >/dev/null

  local -A nodeport ip
  for c in east west; do
    if ! nodeport[$c]=$(_pier_fed_await "$state/$c/kubeconfig" 120 \
      get svc hello -o 'jsonpath={.spec.ports[0].nodePort}'); then
      echo "[pier] no copy of default/hello appeared in $c; Pier's log is above" >&2
      return 1
    fi
  done
  # Both members' Nodes are this machine: two copies on the same nodePort cannot both have a
  # backend here. Rare (each member picks at random); move west's then.
  if [ "${nodeport[east]}" = "${nodeport[west]}" ]; then
    nodeport[west]=$((nodeport[east] == 32767 ? 10000 : nodeport[east] + 1))
    kubectl --kubeconfig "$state/west/kubeconfig" patch svc hello --type=json \
      -p "[{\"op\":\"replace\",\"path\":\"/spec/ports/0/nodePort\",\"value\":${nodeport[west]}}]" \
      >/dev/null
  fi
  for c in east west; do
    echo "[pier] $c: copy of default/hello has nodePort ${nodeport[$c]}; starting its backend there"
    java scripts/demo/Backend.java 127.0.0.1 "${nodeport[$c]}" "cluster $c (node $c-1)" &
    pids+=($!)
    # No controller-manager runs here: write the EndpointSlice the member's endpoint controller
    # would, so that the host's annotation lists the member's ingress (ready endpoints only).
    kubectl --kubeconfig "$state/$c/kubeconfig" apply -f - >/dev/null <<SLICE
apiVersion: discovery.k8s.io/v1beta1
kind: EndpointSlice
metadata:
  name: hello-local
  namespace: default
  labels:
    kubernetes.io/service-name: hello
addressType: IPv4
endpoints:
  - addresses: ["127.0.0.1"]
    conditions: {ready: true}
ports:
  - name: http
    protocol: TCP
    port: 8080
SLICE
  done

  for c in east west; do
    if ! ip[$c]=$(_pier_fed_await "$state/$c/kubeconfig" 120 \
      get svc hello -o 'jsonpath={.status.loadBalancer.ingress[0].ip}'); then
      echo "[pier] the copy in $c got no load balancer address; Pier's log is above" >&2
      return 1
    fi
    for _ in $(seq 1 40); do
      curl -fs "http://${ip[$c]}:8080/" >/dev/null 2>&1 && break
      sleep 0.5
    done
  done
  local host_status="" host_annotation=""
  for _ in $(seq 1 60); do
    host_status=$(kubectl --kubeconfig "$state/host/kubeconfig" get svc hello \
      -o 'jsonpath={.status.loadBalancer.ingress[*].ip}' 2>/dev/null || true)
    host_annotation=$(kubectl --kubeconfig "$state/host/kubeconfig" get svc hello \
      -o 'jsonpath={.metadata.annotations.federation\.kubernetes\.io/service-ingresses}' \
      2>/dev/null || true)
    case "$host_annotation" in
      *"${ip[east]}"*"${ip[west]}"*) break ;;
    esac
    sleep 0.5
  done

  cat <<MSG

[pier] Service default/hello, declared in the host, is served in both members:
[pier]   east  ${ip[east]}   curl http://${ip[east]}:8080/
[pier]         $(curl -fsS "http://${ip[east]}:8080/" 2>&1 | head -n 1)
[pier]   west  ${ip[west]}   curl http://${ip[west]}:8080/
[pier]         $(curl -fsS "http://${ip[west]}:8080/" 2>&1 | head -n 1)
[pier] host status.loadBalancer.ingress: $host_status
[pier] host annotation federation.kubernetes.io/service-ingresses:
[pier]   $host_annotation
[pier] kubectl:  kubectl --kubeconfig $state/host/kubeconfig describe svc hello
[pier]           (east: $state/east/kubeconfig, west: $state/west/kubeconfig)
[pier] Ctrl-C stops Pier, the backends and the three API servers.

MSG
  wait "$pier_pid"
}
