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
