{{/*
cert-manager's objects for one webhook Service: a self-signed Issuer, the CA Certificate it issues, an
Issuer of that CA, and the serving Certificate for the Service's DNS names (secret <secret>).
cert-manager renews the serving certificate; the servers reload its files without a restart.
Args: (dict "ctx" $ "prefix" NAME "service" SERVICE "secret" SECRET "certificate" NAME "labels" YAML).
*/}}
{{- define "karta.certManager" -}}
{{- $ctx := .ctx -}}
{{- $cm := $ctx.Values.certificates.certManager -}}
apiVersion: cert-manager.io/v1
kind: Issuer
metadata:
  name: {{ .prefix }}-selfsigned
  namespace: {{ $ctx.Release.Namespace }}
  labels:
    {{- .labels | nindent 4 }}
spec:
  selfSigned: {}
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: {{ .prefix }}-ca
  namespace: {{ $ctx.Release.Namespace }}
  labels:
    {{- .labels | nindent 4 }}
spec:
  isCA: true
  commonName: {{ .prefix }}-ca
  secretName: {{ .prefix }}-ca
  duration: {{ $cm.caDuration }}
  privateKey:
    algorithm: ECDSA
    size: 256
  issuerRef:
    name: {{ .prefix }}-selfsigned
    kind: Issuer
---
apiVersion: cert-manager.io/v1
kind: Issuer
metadata:
  name: {{ .prefix }}-ca
  namespace: {{ $ctx.Release.Namespace }}
  labels:
    {{- .labels | nindent 4 }}
spec:
  ca:
    secretName: {{ .prefix }}-ca
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: {{ .certificate }}
  namespace: {{ $ctx.Release.Namespace }}
  labels:
    {{- .labels | nindent 4 }}
spec:
  secretName: {{ .secret }}
  duration: {{ $cm.duration }}
  renewBefore: {{ $cm.renewBefore }}
  dnsNames:
    - {{ .service }}.{{ $ctx.Release.Namespace }}.svc
    - {{ .service }}.{{ $ctx.Release.Namespace }}.svc.cluster.local
  privateKey:
    algorithm: ECDSA
    size: 256
    rotationPolicy: Always
  usages:
    - server auth
    - digital signature
  issuerRef:
    name: {{ .prefix }}-ca
    kind: Issuer
{{- end -}}

{{/*
A serving certificate for a Service, self-signed by a CA of its own (certificates.mode self-signed).
The Secret records what it holds in annotations: the certificate's SHA-256 (of its PEM), its DNS names and
when it expires (Sprig cannot parse a certificate, so the chart keeps what it knows when it makes one).
An upgrade keeps the Secret's certificate (so the caBundle given to the API servers stays valid) while that
record matches the certificate and the Service's names and more than 30 days (a third of `days`, if less)
remain; otherwise it makes a
new CA and certificate. A Secret without the record (made by another chart version, or not by the chart)
is renewed only with "renewUnrecorded" (the controller's: the chart rewrites its webhooks' caBundle itself;
karta serve's CA is in the Karmada API server's configuration, which the chart cannot update), else kept
as it is, still without a record.
Returns YAML: {crt, key, ca, bundle, notAfter, names, recorded, renewed}: PEM texts; bundle is the
caBundle, which, when a certificate is replaced, trusts the old CA too, so that the replicas serving the
old certificate until the kubelet updates their files stay trusted.
Args: (dict "ctx" $ "secret" NAME "service" NAME "ca" CA-NAME "renewUnrecorded" BOOL).
*/}}
{{- define "karta.selfSigned" -}}
{{- $ctx := .ctx -}}
{{- $ns := $ctx.Release.Namespace -}}
{{- $names := list (printf "%s.%s.svc" .service $ns) (printf "%s.%s.svc.cluster.local" .service $ns) -}}
{{- $existing := lookup "v1" "Secret" $ns .secret | default dict -}}
{{- $data := get $existing "data" | default dict -}}
{{- $annotations := get (get $existing "metadata" | default dict) "annotations" | default dict -}}
{{- $complete := and (hasKey $data "ca.crt") (hasKey $data "tls.crt") (hasKey $data "tls.key") -}}
{{- $keep := false -}}
{{- $recorded := hasKey $annotations "karta.run.ai/certificate-sha256" -}}
{{- /* Renewed 30 days before it expires, or a third of its lifetime for a shorter one (not at every upgrade). */ -}}
{{- $renewAt := min (mul 30 86400) (div (mul (int $ctx.Values.certificates.selfSigned.days) 86400) 3) -}}
{{- if and $complete $recorded -}}
{{- $left := sub (toDate "2006-01-02T15:04:05Z07:00" (get $annotations "karta.run.ai/certificate-not-after")).Unix now.Unix -}}
{{- $keep = and (eq (get $annotations "karta.run.ai/certificate-sha256") (index $data "tls.crt" | b64dec | sha256sum)) (eq (get $annotations "karta.run.ai/certificate-dns-names") (join "," $names)) (gt (int64 $left) (int64 $renewAt)) -}}
{{- else if and $complete (not .renewUnrecorded) -}}
{{- $keep = true -}}
{{- end -}}
{{- if $keep -}}
crt: {{ index $data "tls.crt" | b64dec | quote }}
key: {{ index $data "tls.key" | b64dec | quote }}
ca: {{ index $data "ca.crt" | b64dec | quote }}
bundle: {{ index $data "ca.crt" | b64dec | quote }}
notAfter: {{ get $annotations "karta.run.ai/certificate-not-after" | quote }}
names: {{ join "," $names | quote }}
recorded: {{ $recorded }}
renewed: false
{{- else -}}
{{- $days := int $ctx.Values.certificates.selfSigned.days -}}
{{- $ca := genCA .ca (int $ctx.Values.certificates.selfSigned.caDays) -}}
{{- $cert := genSignedCert (index $names 0) nil $names $days $ca -}}
{{- $old := get $data "ca.crt" | default "" | b64dec -}}
crt: {{ $cert.Cert | quote }}
key: {{ $cert.Key | quote }}
ca: {{ $ca.Cert | quote }}
bundle: {{ ternary (printf "%s%s" $ca.Cert $old) $ca.Cert (hasPrefix "-----BEGIN CERTIFICATE-----" $old) | quote }}
notAfter: {{ dateInZone "2006-01-02T15:04:05Z07:00" (now | dateModify (printf "+%dh" (mul $days 24))) "UTC" | quote }}
names: {{ join "," $names | quote }}
recorded: true
renewed: {{ $complete }}
{{- end }}
{{- end -}}

{{/* The metadata.annotations of a self-signed Secret: the record karta.selfSigned reads back, if it keeps one. Args: its result. */}}
{{- define "karta.selfSigned.annotations" -}}
{{- if .recorded -}}
annotations:
  karta.run.ai/certificate-sha256: {{ .crt | sha256sum }}
  karta.run.ai/certificate-dns-names: {{ .names | quote }}
  karta.run.ai/certificate-not-after: {{ .notAfter | quote }}
{{- end -}}
{{- end -}}
