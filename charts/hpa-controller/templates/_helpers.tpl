{{/* The chart name, overridable. */}}
{{- define "hpa-controller.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The name of the release's objects: the release name, prefixed with the chart name unless it contains it. */}}
{{- define "hpa-controller.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* Labels that select the controller's pods. */}}
{{- define "hpa-controller.selectorLabels" -}}
app.kubernetes.io/name: {{ include "hpa-controller.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* Labels of every object. helm.sh/chart and managed-by are left out of deploy/. */}}
{{- define "hpa-controller.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "hpa-controller.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "hpa-controller.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "hpa-controller.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The namespace of the leader-election Lease. */}}
{{- define "hpa-controller.leaseNamespace" -}}
{{- default .Release.Namespace .Values.leaderElection.resourceNamespace }}
{{- end }}

{{/* The controller's command line: the run command, then every flag. */}}
{{- define "hpa-controller.args" -}}
- run
{{- range .Values.watchNamespaces }}
- --namespace={{ . }}
{{- end }}
- --hpa-apis={{ if .Values.takeOverBuiltinHpas }}autoscaling/v2,{{ end }}autoscaling.hpa-controller.io/v1
- --shadow={{ .Values.shadow }}
- --persist-history={{ .Values.persistHistory }}
- --horizontal-pod-autoscaler-sync-period={{ .Values.hpa.syncPeriod }}
- --horizontal-pod-autoscaler-tolerance={{ .Values.hpa.tolerance }}
- --horizontal-pod-autoscaler-downscale-stabilization={{ .Values.hpa.downscaleStabilization }}
- --horizontal-pod-autoscaler-cpu-initialization-period={{ .Values.hpa.cpuInitializationPeriod }}
- --horizontal-pod-autoscaler-initial-readiness-delay={{ .Values.hpa.initialReadinessDelay }}
- --concurrent-horizontal-pod-autoscaler-syncs={{ .Values.hpa.concurrentSyncs }}
- --sync-cadence={{ .Values.syncCadence.default }}
- --fresh-sync-spread={{ .Values.syncCadence.freshSpread }}
- --metrics-max-response-bytes={{ .Values.metricsApis.maxResponseBytes }}
- --metrics-max-items={{ int .Values.metricsApis.maxItems }}
- --metrics-request-timeout={{ .Values.metricsApis.requestTimeout }}
- --metrics-max-inflight-per-source={{ int .Values.metricsApis.maxInflightPerSource }}
{{- with .Values.featureGates }}
{{- $gates := list }}
{{- range $name, $enabled := . }}
{{- $gates = append $gates (printf "%s=%v" $name $enabled) }}
{{- end }}
- --feature-gates={{ join "," $gates }}
{{- end }}
- --kube-api-qps={{ .Values.kubeApi.qps }}
- --kube-api-burst={{ .Values.kubeApi.burst }}
- --leader-elect={{ .Values.leaderElection.enabled }}
- --sharding={{ .Values.sharding.enabled }}
{{- if or .Values.leaderElection.enabled .Values.sharding.enabled }}
- --leader-elect-lease-duration={{ .Values.leaderElection.leaseDuration }}
- --leader-elect-renew-deadline={{ .Values.leaderElection.renewDeadline }}
- --leader-elect-retry-period={{ .Values.leaderElection.retryPeriod }}
- --leader-elect-resource-lock={{ .Values.leaderElection.resourceLock }}
- --leader-elect-resource-name={{ .Values.leaderElection.resourceName }}
- --leader-elect-resource-namespace={{ include "hpa-controller.leaseNamespace" . }}
{{- end }}
- --metrics-bind-address=:{{ .Values.metrics.port }}
- --metrics-secure={{ .Values.metrics.secure }}
{{- if and .Values.metrics.secure .Values.metrics.tlsSecretName }}
- --tls-cert-file=/tls/tls.crt
- --tls-private-key-file=/tls/tls.key
{{- end }}
- --health-probe-bind-address=:{{ .Values.health.port }}
- --log-format={{ .Values.logFormat }}
{{- with .Values.extraArgs }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* Refuse combinations of values that would make a broken or unsafe install (values.schema.json checks each value). */}}
{{- define "hpa-controller.validate" -}}
{{- if and (not .Values.leaderElection.enabled) (gt (int .Values.replicaCount) 1) }}
{{- fail "leaderElection.enabled=false needs replicaCount=1: without a lease every replica would scale the same targets" }}
{{- end }}
{{- if and .Values.shadow .Values.takeOverBuiltinHpas }}
{{- fail "shadow=true computes the autoscaling/v2 HPAs read-only beside the built-in controller; takeOverBuiltinHpas=true reconciles them: choose one" }}
{{- end }}
{{- if and .Values.metrics.tlsSecretName (not .Values.metrics.secure) }}
{{- fail "metrics.tlsSecretName is the certificate of the HTTPS metrics port: it needs metrics.secure=true" }}
{{- end }}
{{- end }}
