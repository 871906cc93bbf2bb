{{/* Name of the chart, overridable. */}}
{{- define "karpenter-cloudstack.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Prefix of every resource name: 63 characters at most, the limit of a label value. */}}
{{- define "karpenter-cloudstack.fullname" -}}
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

{{- define "karpenter-cloudstack.selectorLabels" -}}
app.kubernetes.io/name: {{ include "karpenter-cloudstack.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "karpenter-cloudstack.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "karpenter-cloudstack.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* Metadata shared by every resource: labels and the user's extra annotations. */}}
{{- define "karpenter-cloudstack.metadata" -}}
labels:
  {{- include "karpenter-cloudstack.labels" . | nindent 2 }}
{{- with .Values.additionalAnnotations }}
annotations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{- define "karpenter-cloudstack.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "karpenter-cloudstack.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "karpenter-cloudstack.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/* The Lease the replicas elect a leader with; the Role grants writes to this name only. */}}
{{- define "karpenter-cloudstack.leaderElectionName" -}}
{{- printf "%s-leader-election" (include "karpenter-cloudstack.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "karpenter-cloudstack.inlineCredentialsSecret" -}}
{{- printf "%s-credentials" (include "karpenter-cloudstack.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Which of the three credential sources the values select: inline, existingSecret or cloudConfig.
Exactly one must be configured, so a half-migrated values file fails at install rather than
starting a controller with a mix of old and new keys.
*/}}
{{- define "karpenter-cloudstack.credentialsMode" -}}
{{- $cs := .Values.cloudstack }}
{{- $modes := list }}
{{- if or $cs.apiKey $cs.secretKey }}{{ $modes = append $modes "inline" }}{{ end }}
{{- if $cs.existingSecret.name }}{{ $modes = append $modes "existingSecret" }}{{ end }}
{{- if $cs.cloudConfigSecret.name }}{{ $modes = append $modes "cloudConfig" }}{{ end }}
{{- if ne (len $modes) 1 }}
{{- fail (printf "set exactly one of cloudstack.apiKey/secretKey, cloudstack.existingSecret.name or cloudstack.cloudConfigSecret.name (got %d)" (len $modes)) }}
{{- end }}
{{- if and (eq (first $modes) "inline") (not (and $cs.apiUrl $cs.apiKey $cs.secretKey)) }}
{{- fail "cloudstack.apiUrl, cloudstack.apiKey and cloudstack.secretKey are all required for inline credentials" }}
{{- end }}
{{- first $modes }}
{{- end }}

{{/* One env entry read from a Secret key. */}}
{{- define "karpenter-cloudstack.secretEnv" -}}
- name: {{ .env }}
  valueFrom:
    secretKeyRef:
      name: {{ .secret }}
      key: {{ .key }}
{{- end }}

{{/* The credential environment of the controller container, for the selected mode. */}}
{{- define "karpenter-cloudstack.credentialsEnv" -}}
{{- $cs := .Values.cloudstack }}
{{- $mode := include "karpenter-cloudstack.credentialsMode" . }}
{{- if eq $mode "cloudConfig" }}
- name: CLOUDSTACK_CLOUD_CONFIG
  value: /etc/cloudstack/cloud-config
{{- else }}
{{- $secret := $cs.existingSecret.name }}
{{- $keys := $cs.existingSecret }}
{{- if eq $mode "inline" }}
{{- $secret = include "karpenter-cloudstack.inlineCredentialsSecret" . }}
{{- $keys = dict "apiUrlKey" "api-url" "apiKeyKey" "api-key" "secretKeyKey" "secret-key" }}
{{- end }}
{{- if and $cs.apiUrl (eq $mode "existingSecret") }}
- name: CLOUDSTACK_API_URL
  value: {{ $cs.apiUrl | quote }}
{{- else }}
{{ include "karpenter-cloudstack.secretEnv" (dict "env" "CLOUDSTACK_API_URL" "secret" $secret "key" $keys.apiUrlKey) }}
{{- end }}
{{ include "karpenter-cloudstack.secretEnv" (dict "env" "CLOUDSTACK_API_KEY" "secret" $secret "key" $keys.apiKeyKey) }}
{{ include "karpenter-cloudstack.secretEnv" (dict "env" "CLOUDSTACK_SECRET_KEY" "secret" $secret "key" $keys.secretKeyKey) }}
- name: CLOUDSTACK_VERIFY_SSL
  value: {{ $cs.verifySSL | quote }}
{{- end }}
{{- end }}

{{/*
Adds the pods' selector labels to every topology spread constraint that has none, so the
default values spread this release's pods without repeating its labels.
*/}}
{{- define "karpenter-cloudstack.topologySpreadConstraints" -}}
{{- $selector := include "karpenter-cloudstack.selectorLabels" . | fromYaml }}
{{- $constraints := list }}
{{- range .Values.topologySpreadConstraints }}
{{- $c := deepCopy . }}
{{- if not $c.labelSelector }}
{{- $_ := set $c "labelSelector" (dict "matchLabels" $selector) }}
{{- end }}
{{- $constraints = append $constraints $c }}
{{- end }}
{{- toYaml $constraints }}
{{- end }}

{{/*
Core's FEATURE_GATES: settings.featureGates plus NodeRepair from repair.enabled, unless the
gates name NodeRepair themselves: the user's explicit gate wins, and no gate appears twice.
*/}}
{{- define "karpenter-cloudstack.featureGates" -}}
{{- /* helm upgrade --reuse-values keeps the old chart's defaults, which have no repair block. */}}
{{- if not (kindIs "map" .Values.repair) }}
{{- fail "the values have no repair block, as after helm upgrade --reuse-values from a chart without one: upgrade with --reset-then-reuse-values, which adds the chart's new defaults" }}
{{- end }}
{{- if not (kindIs "bool" .Values.repair.enabled) }}
{{- fail (printf "repair.enabled is %q: want true or false" (toString .Values.repair.enabled)) }}
{{- end }}
{{- $gates := list }}
{{- $repairNamed := false }}
{{- range splitList "," (.Values.settings.featureGates | default "") }}
{{- $gate := trim . }}
{{- if $gate }}
{{- if eq (trim (first (splitList "=" $gate))) "NodeRepair" }}{{ $repairNamed = true }}{{ end }}
{{- $gates = append $gates $gate }}
{{- end }}
{{- end }}
{{- if not $repairNamed }}
{{- $gates = append $gates (printf "NodeRepair=%t" .Values.repair.enabled) }}
{{- end }}
{{- join "," $gates }}
{{- end }}
