#!/usr/bin/env bash
# The three-cluster mode of scripts/run-local.sh (--clusters 3), sourced by it after
# kube-apiserver.sh: uses its $state directory, sets its $pier_pid and adds what it starts to its
# $pids, so that its cleanup stops everything (Pier, the backends, all three API servers, PowerDNS
# in $state/pdns), and uses its _alive and pier_exited.
#
# DNS: a standalone PowerDNS server (gsqlite3, free loopback ports) in $state/pdns; Pier publishes
# the federated names of default/hello in the zone pier.local there.
#
# Address pools: the members' load balancers take 127.240.1.0/28 (east) and 127.240.2.0/28
# (west); the single-cluster mode uses 127.240.0.x (conf/pier.yaml) and the tests 127.241-247.x.

PIER_FEDERATION_CLUSTERS=(host east west)
# The zone Pier publishes the federated names in (it creates it in PowerDNS when missing).
PIER_FEDERATION_DNS_ZONE=pier.local
PIER_PDNS_SCHEMA=/usr/share/pdns-backend-sqlite3/schema/schema.sqlite3.sql

# True if nothing listens on PORT, TCP or UDP (PowerDNS answers on both).
_pier_fed_port_free() {
  local port=$1
  _pier_port_free "$port" || return 1
  if command -v ss >/dev/null 2>&1; then
    [ -z "$(ss -Huln "sport = :$port" 2>/dev/null)" ]
  fi
}

# Starts a standalone PowerDNS Authoritative server (gsqlite3 backend, no root) in DIR: DNS on a
# free loopback port (TCP and UDP), the HTTP API on another, the API key in DIR/api-key. Sets
# PIER_PDNS_DNS_PORT and PIER_PDNS_API_URL. pier_fed_pdns_stop DIR stops it.
_pier_fed_pdns_start() {
  local dir=$1 tool key dns_port web_port attempt _
  for tool in pdns_server sqlite3 dig; do
    if ! command -v "$tool" >/dev/null 2>&1; then
      echo "[pier] *** $tool is missing; run scripts/provision.sh" >&2
      return 1
    fi
  done
  if [ ! -f "$PIER_PDNS_SCHEMA" ]; then
    echo "[pier] *** $PIER_PDNS_SCHEMA is missing (pdns-backend-sqlite3); run scripts/provision.sh" >&2
    return 1
  fi
  mkdir -p "$dir"
  rm -f "$dir/pdns.sqlite3"
  sqlite3 "$dir/pdns.sqlite3" <"$PIER_PDNS_SCHEMA" || return 1
  key=$(openssl rand -hex 16) || return 1
  printf '%s\n' "$key" >"$dir/api-key"
  chmod 600 "$dir/api-key"
  for attempt in 1 2 3; do
    for _ in $(seq 1 50); do
      dns_port=$(_pier_free_port) || return 1
      _pier_fed_port_free "$dns_port" && break
    done
    web_port=$(_pier_free_port "$dns_port") || return 1
    cat >"$dir/pdns.conf" <<PDNS
launch=gsqlite3
gsqlite3-database=$dir/pdns.sqlite3
local-address=127.0.0.1
local-port=$dns_port
api=yes
api-key=$key
webserver=yes
webserver-address=127.0.0.1
webserver-port=$web_port
webserver-allow-from=127.0.0.0/8
socket-dir=$dir
daemon=no
guardian=no
security-poll-suffix=
loglevel=4
enable-lua-records=yes
edns-subnet-processing=yes
PDNS
    pdns_server --config-dir="$dir" </dev/null >>"$dir/pdns.log" 2>&1 &
    echo $! >"$dir/pdns.pid"
    for _ in $(seq 1 150); do
      kill -0 "$(cat "$dir/pdns.pid")" 2>/dev/null || break
      if curl -fs --max-time 2 -H "X-API-Key: $key" \
        "http://127.0.0.1:$web_port/api/v1/servers/localhost" >/dev/null 2>&1; then
        PIER_PDNS_DNS_PORT=$dns_port
        PIER_PDNS_API_URL="http://127.0.0.1:$web_port"
        return 0
      fi
      sleep 0.2
    done
    _pier_stop_pid "$dir/pdns.pid" pdns_server
    if ! grep -qi "address already in use\|unable to bind" "$dir/pdns.log"; then break; fi
    echo "[pier] a PowerDNS port was taken meanwhile (attempt $attempt); retrying" >&2
  done
  echo "[pier] PowerDNS did not start; last lines of $dir/pdns.log:" >&2
  tail -n 20 "$dir/pdns.log" >&2 || true
  return 1
}

# Stops the PowerDNS server started in DIR, if any.
pier_fed_pdns_stop() {
  _pier_stop_pid "$1/pdns.pid" pdns_server
}

# Waits up to TRIES half-seconds until NAME's A answer (directly or through a CNAME) from the
# PowerDNS server on PORT lists every ADDRESS given (at least one); prints the `dig +short` lines.
# Gives up at once when Pier has exited.
_pier_fed_await_dns() {
  local port=$1 tries=$2 name=$3 out="" a all
  shift 3
  for _ in $(seq 1 "$tries"); do
    if [ -n "${pier_pid:-}" ] && ! _alive "$pier_pid"; then return 1; fi
    out=$(dig @127.0.0.1 -p "$port" +time=2 +tries=1 +short "$name" A 2>/dev/null \
      | grep -v '^;;' || true)
    if printf '%s\n' "$out" | grep -Eq '^[0-9]+(\.[0-9]+){3}$'; then
      all=1
      for a in "$@"; do
        printf '%s\n' "$out" | grep -qxF "$a" || all=0
      done
      if [ "$all" = 1 ]; then
        printf '%s\n' "$out"
        return 0
      fi
    fi
    sleep 0.5
  done
  return 1
}

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
# prints it. Gives up at once when Pier has exited.
_pier_fed_await() {
  local kubeconfig=$1 tries=$2 out=""
  shift 2
  for _ in $(seq 1 "$tries"); do
    if [ -n "${pier_pid:-}" ] && ! _alive "$pier_pid"; then return 1; fi
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

  echo "[pier] starting PowerDNS (gsqlite3) in $state/pdns"
  if ! _pier_fed_pdns_start "$state/pdns"; then
    return 1
  fi
  echo "[pier] PowerDNS: DNS 127.0.0.1:$PIER_PDNS_DNS_PORT, API $PIER_PDNS_API_URL (key in $state/pdns/api-key)"

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
dns:
  enabled: true
  zone:
    name: $PIER_FEDERATION_DNS_ZONE
  ownerId: run-local
  powerdns:
    url: "$PIER_PDNS_API_URL"
    apiKeyFile: "$state/pdns/api-key"
CONFIG
  echo "[pier] starting Pier: java ${java_flags[*]} -jar $jar --config $config"
  env -u PIER_KUBE_BIN_DIR java "${java_flags[@]}" -jar "$jar" --config "$config" &
  pier_pid=$!
  pids+=("$pier_pid")

  echo "[pier] opting namespace default in to the federation, applying k8s/examples/hello-federated.yaml to the host"
  kubectl --kubeconfig "$state/host/kubeconfig" label namespace default pier.dev/federation=pier --overwrite >/dev/null
  kubectl --kubeconfig "$state/host/kubeconfig" apply -f k8s/examples/hello-federated.yaml >/dev/null
  kubectl --kubeconfig "$state/host/kubeconfig" apply -f k8s/examples/steered-federated.yaml >/dev/null

  local -A nodeport ip
  for c in east west; do
    if ! nodeport[$c]=$(_pier_fed_await "$state/$c/kubeconfig" 120 \
      get svc hello -o 'jsonpath={.spec.ports[0].nodePort}'); then
      pier_exited && return 1
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
    # would, so that the host's annotation lists the member's ingress (ready endpoints only). Only
    # readiness is read from it (traffic goes to the nodePort), and the API server refuses a
    # loopback address there, so it names a pod address.
    for svc in hello hello-failover hello-weighted; do
      kubectl --kubeconfig "$state/$c/kubeconfig" apply -f - >/dev/null <<SLICE
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: $svc-local
  namespace: default
  labels:
    kubernetes.io/service-name: $svc
addressType: IPv4
endpoints:
  - addresses: ["10.1.0.1"]
    conditions: {ready: true}
ports:
  - name: http
    protocol: TCP
    port: 8080
SLICE
    done
  done

  for c in east west; do
    if ! ip[$c]=$(_pier_fed_await "$state/$c/kubeconfig" 120 \
      get svc hello -o 'jsonpath={.status.loadBalancer.ingress[0].ip}'); then
      pier_exited && return 1
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

  # The federated names (federation "pier", the default): global, then each member's region and
  # zone. Every level has a healthy member here, so each answers with A records: the global name
  # with both members' addresses, east's region and zone with east's, west's with west's.
  local base="hello.default.pier.svc" name answer dns_lines="" digcmd i
  local names=("$base.$PIER_FEDERATION_DNS_ZONE"
    "$base.eu.$PIER_FEDERATION_DNS_ZONE" "$base.us.$PIER_FEDERATION_DNS_ZONE"
    "$base.eu-a.eu.$PIER_FEDERATION_DNS_ZONE" "$base.us-a.us.$PIER_FEDERATION_DNS_ZONE")
  local expect=("${ip[east]} ${ip[west]}" "${ip[east]}" "${ip[west]}" "${ip[east]}" "${ip[west]}")
  echo "[pier] waiting for the federated DNS names on 127.0.0.1:$PIER_PDNS_DNS_PORT"
  # shellcheck disable=SC2086  # the expected addresses are words
  if ! _pier_fed_await_dns "$PIER_PDNS_DNS_PORT" 120 "${names[0]}" ${expect[0]} >/dev/null; then
    pier_exited && return 1
    echo "[pier] the global name ${names[0]} did not answer with ${expect[0]}; Pier's log is above" >&2
    return 1
  fi
  for i in "${!names[@]}"; do
    name=${names[$i]}
    # shellcheck disable=SC2086
    answer=$(_pier_fed_await_dns "$PIER_PDNS_DNS_PORT" 60 "$name" ${expect[$i]} || true)
    digcmd="dig @127.0.0.1 -p $PIER_PDNS_DNS_PORT +short $name A"
    answer=$(printf '%s\n' "${answer:-(no answer yet)}" | paste -sd ' ' -)
    [ -z "$dns_lines" ] || dns_lines+=$'\n'
    dns_lines+="[pier]   $digcmd"$'\n'"[pier]     $answer"
  done

  # The steered Services (k8s/examples/steered-federated.yaml): failover's global name answers
  # west's address (us first); weighted's answers one address per query, east's (eu) about three
  # times in four.
  local -A steered
  for svc in hello-failover hello-weighted; do
    for c in east west; do
      steered[$svc-$c]=$(_pier_fed_await "$state/$c/kubeconfig" 120 \
        get svc "$svc" -o 'jsonpath={.status.loadBalancer.ingress[0].ip}' || true)
    done
  done
  local failover_name="hello-failover.default.pier.svc.$PIER_FEDERATION_DNS_ZONE"
  local weighted_name="hello-weighted.default.pier.svc.$PIER_FEDERATION_DNS_ZONE"
  local failover_answer weighted_counts=""
  failover_answer=$(_pier_fed_await_dns "$PIER_PDNS_DNS_PORT" 60 "$failover_name" \
    "${steered[hello-failover-west]}" | paste -sd ' ' - || true)
  _pier_fed_await_dns "$PIER_PDNS_DNS_PORT" 60 "$weighted_name" >/dev/null || true
  local e=0 w=0 a
  for _ in $(seq 1 40); do
    a=$(dig @127.0.0.1 -p "$PIER_PDNS_DNS_PORT" +time=2 +tries=1 +short "$weighted_name" A 2>/dev/null | head -n 1)
    [ "$a" = "${steered[hello-weighted-east]}" ] && e=$((e + 1))
    [ "$a" = "${steered[hello-weighted-west]}" ] && w=$((w + 1))
  done
  weighted_counts="east (eu) ${steered[hello-weighted-east]}: $e, west (us) ${steered[hello-weighted-west]}: $w"

  cat <<MSG

[pier] Service default/hello, declared in the host, is served in both members:
[pier]   east  ${ip[east]}   curl http://${ip[east]}:8080/
[pier]         $(curl -fsS "http://${ip[east]}:8080/" 2>&1 | head -n 1)
[pier]   west  ${ip[west]}   curl http://${ip[west]}:8080/
[pier]         $(curl -fsS "http://${ip[west]}:8080/" 2>&1 | head -n 1)
[pier] host status.loadBalancer.ingress: $host_status
[pier] host annotation federation.kubernetes.io/service-ingresses:
[pier]   $host_annotation
[pier] DNS (PowerDNS, zone $PIER_FEDERATION_DNS_ZONE): global, regions eu and us, zones eu-a and us-a:
$dns_lines
[pier] Steered global names (k8s/examples/steered-federated.yaml, docs/dns.md "Strategies"):
[pier]   failover us,eu:  dig @127.0.0.1 -p $PIER_PDNS_DNS_PORT +short $failover_name A
[pier]     ${failover_answer:-(no answer yet)}   (west, region us, while it is healthy)
[pier]   weighted eu=3,us=1, 40 queries of  dig @127.0.0.1 -p $PIER_PDNS_DNS_PORT +short $weighted_name A
[pier]     $weighted_counts
[pier] kubectl:  kubectl --kubeconfig $state/host/kubeconfig describe svc hello
[pier]           (east: $state/east/kubeconfig, west: $state/west/kubeconfig)
[pier] Ctrl-C (or SIGTERM, SIGHUP) stops Pier, the backends, PowerDNS and the three API servers.

MSG
  wait "$pier_pid"
}
