{{/*
The name of the chart, and the full name of the release's objects: the
release name, with the chart name appended unless the release name holds it.
Both are cut to 63 characters, the limit of a DNS label.
*/}}
{{- define "listkeeper.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "listkeeper.fullname" -}}
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

{{/*
Labels of every object: the chart's own, over commonLabels.
*/}}
{{- define "listkeeper.labels" -}}
{{- $own := dict
  "helm.sh/chart" (printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-")
  "app.kubernetes.io/version" .Chart.AppVersion
  "app.kubernetes.io/managed-by" .Release.Service }}
{{- $own = merge $own (include "listkeeper.selectorLabels" . | fromYaml) }}
{{- toYaml (merge $own (deepCopy (default dict .Values.commonLabels))) }}
{{- end }}

{{/*
Labels of an object that has labels of its own: (list $ extra...), the
first of the extra dicts winning, over the labels of every object.
*/}}
{{- define "listkeeper.labelsWith" -}}
{{- $labels := dict }}
{{- range (rest .) }}
{{- $labels = merge $labels (deepCopy (default dict .)) }}
{{- end }}
{{- toYaml (merge $labels (include "listkeeper.labels" (first .) | fromYaml)) }}
{{- end }}

{{/*
The directory of the metrics certificate (--metrics-cert-path), or "":
metrics.certSecret's mount, or metrics.certPath.
*/}}
{{- define "listkeeper.metricsCertPath" -}}
{{- if and .Values.metrics.enabled .Values.metrics.certSecret -}}
/etc/listkeeper/metrics-cert
{{- else if .Values.metrics.enabled -}}
{{- .Values.metrics.certPath -}}
{{- end -}}
{{- end }}

{{/* Labels that select the manager's pods. */}}
{{- define "listkeeper.selectorLabels" -}}
app.kubernetes.io/name: {{ include "listkeeper.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* The manager's ServiceAccount. */}}
{{- define "listkeeper.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "listkeeper.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The manager's image: repository, then @digest or :tag (default appVersion). */}}
{{- define "listkeeper.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/* The metrics port's name: https when served with authentication, else http. */}}
{{- define "listkeeper.metricsPortName" -}}
{{- if .Values.metrics.secure }}https{{ else }}http{{ end }}
{{- end }}
