{{/* Every object is named after the release (or fullnameOverride). */}}
{{- define "pier.fullname" -}}
{{- default .Release.Name .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "pier.selectorLabels" -}}
app.kubernetes.io/name: pier
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "pier.labels" -}}
{{ include "pier.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{/* Pier runs here: everywhere but in a federation member, which only gets its identity. */}}
{{- define "pier.runs" -}}
{{- if ne .Values.federation.role "member" }}true{{ end -}}
{{- end -}}

{{/* The admin endpoints are served over HTTPS: asked for, or needed by metricsAuth kubernetes. */}}
{{- define "pier.adminTls" -}}
{{- if or .Values.admin.tls.enabled (eq (toString .Values.admin.metricsAuth) "kubernetes") }}true{{ end -}}
{{- end -}}

{{/* The admin server's certificate: the user's Secret, or the one the chart makes. */}}
{{- define "pier.adminTlsSecret" -}}
{{- default (printf "%s-admin-tls" (include "pier.fullname" .)) .Values.admin.tls.existingSecret -}}
{{- end -}}

{{/* The name of the Secret holding a token: the chart's own when the value is set. */}}
{{- define "pier.secretName" -}}
{{- $root := index . 0 -}}{{- $values := index . 1 -}}{{- $suffix := index . 2 -}}{{- $value := index . 3 -}}
{{- if $value -}}
{{ include "pier.fullname" $root }}-{{ $suffix }}
{{- else -}}
{{ $values.existingSecret }}
{{- end -}}
{{- end -}}

{{/* pier.yaml: what the values choose, with .Values.config merged over it. */}}
{{- define "pier.config" -}}
{{- $v := .Values -}}
{{- $c := dict -}}
{{- $_ := set $c "cluster" (dict "name" "kubernetes" "kubeconfig" "") -}}
{{- $_ := set $c "provider" $v.provider -}}
{{- if and (eq $v.provider "local") $v.local.pools -}}
{{- $_ := set $c "local" (dict "pools" $v.local.pools) -}}
{{- end -}}
{{- if eq $v.provider "hetzner" -}}
{{- $h := dict "tokenEnv" "HCLOUD_TOKEN" "networkZone" $v.hetzner.networkZone -}}
{{- if $v.hetzner.location }}{{ $_ := set $h "location" $v.hetzner.location }}{{ end -}}
{{- $_ := set $c "hetzner" $h -}}
{{- end -}}
{{- if eq $v.provider "webhook" -}}
{{- $w := dict "url" (required "webhook.url is required with provider: webhook" $v.webhook.url) -}}
{{- if or $v.webhook.existingSecret $v.webhook.token }}{{ $_ := set $w "tokenFile" (printf "/etc/pier-webhook/%s" $v.webhook.secretKey) }}{{ end -}}
{{- $_ := set $c "webhook" $w -}}
{{- end -}}
{{- if and $v.scaleOut.enabled $v.leaderElection.enabled -}}
{{- fail "scaleOut.enabled and leaderElection.enabled are both true: scale-out's shard Leases replace the single Lease; set leaderElection.enabled=false" -}}
{{- end -}}
{{- $_ := set $c "leaderElection" (dict "enabled" $v.leaderElection.enabled "leaseName" (include "pier.fullname" .) "namespace" "" "leaseDuration" $v.leaderElection.leaseDuration "renewDeadline" $v.leaderElection.renewDeadline "retryPeriod" $v.leaderElection.retryPeriod) -}}
{{- if $v.scaleOut.enabled -}}
{{- $_ := set $c "scaleOut" (dict "enabled" true "shards" $v.scaleOut.shards "kubernetesService" (printf "%s-replicas" (include "pier.fullname" .)) "clusterDomain" $v.scaleOut.clusterDomain "leaseDuration" $v.scaleOut.leaseDuration "renewDeadline" $v.scaleOut.renewDeadline "retryPeriod" $v.scaleOut.retryPeriod "heartbeatTimeout" $v.scaleOut.heartbeatTimeout "eventBusPort" (int $v.scaleOut.eventBusPort) "tls" (dict "certFile" "/etc/pier-scale-out-tls/tls.crt" "keyFile" "/etc/pier-scale-out-tls/tls.key" "caFile" "/etc/pier-scale-out-tls/ca.crt")) -}}
{{- end -}}
{{- $_ := set $c "log" (dict "format" $v.log.format) -}}
{{- $a := dict "host" "0.0.0.0" "port" $v.admin.port "metricsAuth" (default "none" $v.admin.metricsAuth) -}}
{{- if $v.admin.metricsAudiences }}{{ $_ := set $a "metricsAudiences" $v.admin.metricsAudiences }}{{ end -}}
{{- if include "pier.adminTls" . }}{{ $_ := set $a "tls" (dict "certFile" "/etc/pier-admin-tls/tls.crt" "keyFile" "/etc/pier-admin-tls/tls.key") }}{{ end -}}
{{- $_ := set $c "admin" $a -}}
{{- if $v.dns.enabled -}}
{{- $d := dict "enabled" true "provider" $v.dns.provider -}}
{{- if $v.dns.zone }}{{ $_ := set $d "zone" (dict "name" $v.dns.zone) }}{{ end -}}
{{- if eq $v.dns.provider "powerdns" -}}
{{- $_ := set $d "powerdns" (dict "url" $v.dns.powerdns.url "serverId" $v.dns.powerdns.serverId "apiKeyEnv" "PDNS_API_KEY") -}}
{{- else -}}
{{- $_ := set $d "externalDns" (dict "url" $v.dns.externalDns.url) -}}
{{- end -}}
{{- $_ := set $c "dns" $d -}}
{{- end -}}
{{- if eq $v.federation.role "host" -}}
{{- $_ := set $c "federation" (dict "secretNamespace" (default .Release.Namespace $v.federation.secretNamespace)) -}}
{{- end -}}
{{- toYaml (mustMergeOverwrite $c (deepCopy $v.config)) -}}
{{- end -}}
