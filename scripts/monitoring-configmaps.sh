#!/usr/bin/env bash
# Regenerates the ConfigMaps in k8s/monitoring/ from the dashboard and rules files in monitoring/
# that they wrap (dev.pier.deploy.ManifestsTest fails when they differ; the chart reads the same
# files). Needs kubectl (scripts/provision.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
kubectl="${KUBECTL:-kubectl}"

wrap() { # configmap-name file label comment
  {
    echo "# $4"
    echo "# Generated from monitoring/$2 by scripts/monitoring-configmaps.sh."
    "$kubectl" create configmap "$1" -n pier --from-file="monitoring/$2" --dry-run=client -o yaml |
      "$kubectl" label --local -f - "$3" app.kubernetes.io/name=pier -o yaml |
      sed '/creationTimestamp: null/d'
  } >"k8s/monitoring/$1.yaml"
}

wrap pier-grafana-dashboard pier-dashboard.json grafana_dashboard=1 \
  "The Grafana dashboard for in-cluster Grafana (its sidecar loads ConfigMaps labelled grafana_dashboard)."
wrap pier-prometheus-rules pier-rules.yaml prometheus_rule=1 \
  "The alert rules for an in-cluster Prometheus: mount this ConfigMap and list the file in rule_files."
