{{/*
The names of Karta's objects: fixed (one Karta per cluster: its CRD, ClusterRole and webhook
configurations are cluster-wide), with fullnameOverride replacing the "karta" prefix.
*/}}
{{- define "karta.prefix" -}}
{{- .Values.fullnameOverride | default "karta" | trunc 40 | trimSuffix "-" -}}
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

{{- define "karta.controller.serviceAccount" -}}
{{- if .Values.controller.serviceAccount.create -}}
{{- .Values.controller.serviceAccount.name | default (include "karta.controller.name" .) -}}
{{- else -}}
{{- .Values.controller.serviceAccount.name | default "default" -}}
{{- end -}}
{{- end -}}

{{- define "karta.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) -}}
{{- end -}}

{{/* Labels on every object: Karta's own, then Helm's (the kustomize bases in deploy/ carry only the first). */}}
{{- define "karta.labels" -}}
app.kubernetes.io/part-of: karta
{{ include "karta.helmLabels" . }}
{{- end -}}

{{/* Helm's labels (and commonLabels): on every object, the CRD too. */}}
{{- define "karta.helmLabels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Labels of karta serve's objects (its kustomization names every object after it). */}}
{{- define "karta.serve.labels" -}}
{{ include "karta.labels" . }}
app.kubernetes.io/name: {{ include "karta.serve.name" . }}
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
A serving certificate for a Service, self-signed by a CA of its own: the Secret's current one when
it has one (an upgrade keeps it, so the webhook configurations' caBundle stays valid), else new.
Returns YAML: {crt, key, ca}, PEM. Args: (dict "ctx" $ "secret" NAME "service" NAME "ca" CA-NAME).
*/}}
{{- define "karta.selfSigned" -}}
{{- $ctx := .ctx -}}
{{- $existing := lookup "v1" "Secret" $ctx.Release.Namespace .secret -}}
{{- if and $existing $existing.data (hasKey $existing.data "ca.crt") (hasKey $existing.data "tls.crt") (hasKey $existing.data "tls.key") -}}
crt: {{ index $existing.data "tls.crt" | b64dec | quote }}
key: {{ index $existing.data "tls.key" | b64dec | quote }}
ca: {{ index $existing.data "ca.crt" | b64dec | quote }}
{{- else -}}
{{- $ca := genCA .ca (int $ctx.Values.certificates.selfSigned.caDays) -}}
{{- $ns := $ctx.Release.Namespace -}}
{{- $names := list (printf "%s.%s.svc" .service $ns) (printf "%s.%s.svc.cluster.local" .service $ns) -}}
{{- $cert := genSignedCert (printf "%s.%s.svc" .service $ns) nil $names (int $ctx.Values.certificates.selfSigned.days) $ca -}}
crt: {{ $cert.Cert | quote }}
key: {{ $cert.Key | quote }}
ca: {{ $ca.Cert | quote }}
{{- end -}}
{{- end -}}
