{{/*
The names of Karta's objects: fixed (one Karta per cluster: its CRD, ClusterRole and webhook
configurations are cluster-wide). nameOverride renames the application (the "karta" of the names, and the
app.kubernetes.io/part-of label); fullnameOverride replaces the prefix of the names alone.
*/}}
{{- define "karta.name" -}}
{{- .Values.nameOverride | default "karta" | trunc 40 | trimSuffix "-" -}}
{{- end -}}

{{- define "karta.prefix" -}}
{{- .Values.fullnameOverride | default (include "karta.name" .) | trunc 40 | trimSuffix "-" -}}
{{- end -}}

{{- define "karta.controller.name" -}}
{{- printf "%s-controller" (include "karta.prefix" .) -}}
{{- end -}}

{{- define "karta.serve.name" -}}
{{- printf "%s-webhook" (include "karta.prefix" .) -}}
{{- end -}}

{{/* The controller's webhook Service (and the prefix of its certificate's names). */}}
{{- define "karta.controller.webhookService" -}}
{{- printf "%s-webhook" (include "karta.controller.name" .) -}}
{{- end -}}

{{/*
The controller's ServiceAccount: the one the chart creates (named controller.serviceAccount.name, else
after the controller), or an existing one, which must be named: never the namespace's `default`, which
every other pod of the namespace runs as.
*/}}
{{- define "karta.controller.serviceAccount" -}}
{{- if .Values.controller.serviceAccount.create -}}
{{- .Values.controller.serviceAccount.name | default (include "karta.controller.name" .) -}}
{{- else if .Values.controller.serviceAccount.name -}}
{{- .Values.controller.serviceAccount.name -}}
{{- else -}}
{{- fail "controller.serviceAccount.create=false needs controller.serviceAccount.name: the existing ServiceAccount the controller runs as (the chart binds its ClusterRole to it)" -}}
{{- end -}}
{{- end -}}

{{/* The image: repository, then :tag (the chart's appVersion when empty and no digest is given), then @digest. */}}
{{- define "karta.image" -}}
{{- $i := .Values.image -}}
{{- $tag := $i.tag | default (ternary "" .Chart.AppVersion (not (empty $i.digest))) -}}
{{- $i.repository -}}
{{- with $tag }}:{{ . }}{{ end -}}
{{- with $i.digest }}@{{ . }}{{ end -}}
{{- end -}}

{{/* app.kubernetes.io/version: the image's tag (else the appVersion) as a label value (63 characters at most, [A-Za-z0-9_.-], alphanumeric at both ends). */}}
{{- define "karta.version" -}}
{{- $v := .Values.image.tag | default .Chart.AppVersion | toString -}}
{{- regexReplaceAll "[^-A-Za-z0-9_.]" (splitList "@" $v | first) "_" | trunc 63 | trimAll "-_." -}}
{{- end -}}

{{/* The labels the chart sets itself: commonLabels and podLabels may not set them. */}}
{{- define "karta.reservedLabels" -}}
{{- toJson (list "app.kubernetes.io/name" "app.kubernetes.io/instance" "app.kubernetes.io/version" "app.kubernetes.io/component" "app.kubernetes.io/part-of" "app.kubernetes.io/managed-by" "helm.sh/chart") -}}
{{- end -}}

{{/* Labels on every object: the application's, then Helm's (the kustomize bases in deploy/ carry only the first). */}}
{{- define "karta.labels" -}}
app.kubernetes.io/part-of: {{ include "karta.name" . }}
{{ include "karta.helmLabels" . }}
{{- end -}}

{{/* Helm's labels (and commonLabels): on every object, the CRD too. */}}
{{- define "karta.helmLabels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ include "karta.version" . | quote }}
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/*
The recommended labels of one component's objects. app.kubernetes.io/name is the component's Deployment
name, which its selector has matched since the chart's first version (a Deployment's selector cannot
change). Args: (dict "ctx" $ "name" NAME "component" COMPONENT).
*/}}
{{- define "karta.componentLabels" -}}
app.kubernetes.io/name: {{ .name }}
app.kubernetes.io/component: {{ .component }}
{{ include "karta.labels" .ctx }}
{{- end -}}

{{- define "karta.controller.labels" -}}
{{- include "karta.componentLabels" (dict "ctx" . "name" (include "karta.controller.name" .) "component" "controller") -}}
{{- end -}}

{{/* Labels of karta serve's objects (its kustomization names every object after it). */}}
{{- define "karta.serve.labels" -}}
{{- include "karta.componentLabels" (dict "ctx" . "name" (include "karta.serve.name" .) "component" "resource-interpreter") -}}
{{- end -}}

{{/*
A pod template's labels: the selector's, the other recommended labels, then the user's podLabels (which
may not replace the chart's: checked in validate.yaml). Args: (dict "ctx" $ "name" NAME "component" C "podLabels" MAP).
*/}}
{{- define "karta.podLabels" -}}
{{- $ctx := .ctx -}}
{{- $labels := dict "app.kubernetes.io/name" .name "app.kubernetes.io/component" .component "app.kubernetes.io/part-of" (include "karta.name" $ctx) "app.kubernetes.io/instance" $ctx.Release.Name "app.kubernetes.io/version" (include "karta.version" $ctx) "app.kubernetes.io/managed-by" $ctx.Release.Service -}}
{{- toYaml (merge $labels (.podLabels | default dict)) -}}
{{- end -}}

{{/* The certificate mode, checked. */}}
{{- define "karta.certificates" -}}
{{- $mode := .Values.certificates.mode -}}
{{- if not (has $mode (list "self-signed" "cert-manager" "manual")) -}}
{{- fail (printf "certificates.mode %q: expected self-signed, cert-manager or manual" $mode) -}}
{{- end -}}
{{- $mode -}}
{{- end -}}

{{/*
Milliseconds of a positive duration as Go's time.ParseDuration reads it (the controller's and serve's
duration flags, cert-manager's durations), or fail naming the value. Args: (list VALUE NAME).
*/}}
{{- define "karta.durationMs" -}}
{{- $v := index . 0 -}}
{{- $ms := 0 -}}
{{- if kindIs "string" $v -}}
{{- $base := toDate "2006-01-02" "2000-01-01" -}}
{{- $ms = sub (dateModify $v $base).UnixMilli $base.UnixMilli -}}
{{- end -}}
{{- if le (int64 $ms) 0 -}}
{{- fail (printf "%s %v: expected a positive duration with its unit, such as 15s, 1m30s or 2h (as Go's time.ParseDuration reads it)" (index . 1) $v) -}}
{{- end -}}
{{- $ms -}}
{{- end -}}

{{/* A whole number from MIN to MAX, or fail naming the value. Args: (list VALUE NAME MIN MAX). */}}
{{- define "karta.checkInt" -}}
{{- $v := index . 0 -}}
{{- $ok := false -}}
{{- if or (kindIs "int" $v) (kindIs "int64" $v) (kindIs "float64" $v) -}}
{{- $ok = and (eq (float64 $v) (floor $v)) (ge (float64 $v) (float64 (index . 2))) (le (float64 $v) (float64 (index . 3))) -}}
{{- end -}}
{{- if not $ok -}}
{{- fail (printf "%s %v: expected a whole number from %v to %v" (index . 1) $v (index . 2) (index . 3)) -}}
{{- end -}}
{{- end -}}
