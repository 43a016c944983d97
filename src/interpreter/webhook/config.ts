/**
 * ResourceInterpreterWebhookConfiguration (config.karmada.io/v1alpha1): reading and checking the
 * objects, and choosing the hook that answers an operation for a kind — the first matching hook in
 * "<configuration>/<webhook>" order, as Karmada's webhook interpreter does.
 */
import { parseYamlObjects } from "../declarative/yaml-documents.js";
import { splitApiVersion, type JsonValue, type Operation, type ResourceKind } from "../types.js";

/** `ServiceReference`: a webhook reached through a Service of the cluster. */
export interface ServiceReference {
  namespace: string;
  name: string;
  path?: string;
  /** Default 443. */
  port?: number;
}

/** `WebhookClientConfig` (admissionregistration's shape): exactly one of url and service. */
export interface WebhookClientConfig {
  url?: string;
  service?: ServiceReference;
  /** Base64 of PEM CA certificates; the system roots when absent. */
  caBundle?: string;
}

/** `RuleWithOperations`: which operations of which kinds a hook interprets ("*" alone matches all). */
export interface RuleWithOperations {
  operations: string[];
  apiGroups: string[];
  apiVersions: string[];
  kinds: string[];
}

/** `ResourceInterpreterWebhook`. */
export interface ResourceInterpreterWebhook {
  name: string;
  clientConfig: WebhookClientConfig;
  rules: RuleWithOperations[];
  /** 1..30, default 10. */
  timeoutSeconds?: number;
  interpreterContextVersions: string[];
}

/** `ResourceInterpreterWebhookConfiguration` (cluster-scoped). */
export interface ResourceInterpreterWebhookConfiguration {
  apiVersion: "config.karmada.io/v1alpha1";
  kind: "ResourceInterpreterWebhookConfiguration";
  metadata: { name: string; [key: string]: JsonValue };
  webhooks: ResourceInterpreterWebhook[];
}

/** A problem of a configuration, with its field path. */
export interface WebhookConfigIssue {
  file: string;
  line?: number;
  /** 1-based column of a YAML error, when the parser gives one. */
  column?: number;
  /** The text does not parse: unreadable input, not an invalid configuration. */
  unreadable?: true;
  path: string;
  message: string;
}

/** One hook as the interpreter keeps it: its uid "<configuration>/<webhook>" and its definition. */
export interface WebhookAccessor {
  uid: string;
  configurationName: string;
  webhook: ResourceInterpreterWebhook;
}

const API_VERSION = "config.karmada.io/v1alpha1";
const KIND = "ResourceInterpreterWebhookConfiguration";
/** The default webhook timeout of the v1alpha1 API. */
export const DEFAULT_TIMEOUT_SECONDS = 10;

function isObject(v: unknown): v is { [k: string]: JsonValue } {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function stringList(v: JsonValue | undefined): string[] | undefined {
  return Array.isArray(v) && v.every((x) => typeof x === "string") ? (v as string[]) : undefined;
}

/** A DNS-1123 subdomain, the form Kubernetes requires of webhook names (a fully qualified name). */
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * Checks one decoded object and returns it typed, or the issues (all of them, with field paths).
 * Rules follow Karmada's validating webhook: unique fully qualified hook names, exactly one of url and
 * service, https urls without user info, fragment or query, "*" alone in a rule list, timeouts 1..30,
 * and `v1alpha1` among the context versions.
 */
export function parseWebhookConfigurationObject(value: JsonValue, file: string, line?: number): { configuration?: ResourceInterpreterWebhookConfiguration; issues: WebhookConfigIssue[] } {
  const issues: WebhookConfigIssue[] = [];
  const issue = (path: string, message: string): void => {
    issues.push(line === undefined ? { file, path, message } : { file, line, path, message });
  };
  if (!isObject(value)) {
    issue("", `expected a ${KIND} object`);
    return { issues };
  }
  if (value.apiVersion !== API_VERSION) issue("apiVersion", `must be ${API_VERSION}, got ${JSON.stringify(value.apiVersion ?? null)}`);
  if (value.kind !== KIND) issue("kind", `must be ${KIND}, got ${JSON.stringify(value.kind ?? null)}`);
  if (!isObject(value.metadata) || typeof value.metadata.name !== "string" || value.metadata.name === "") issue("metadata.name", "Required value");
  const hooks = value.webhooks ?? [];
  if (!Array.isArray(hooks)) {
    issue("webhooks", "must be a list");
    return { issues };
  }
  const names = new Set<string>();
  hooks.forEach((hook, i) => {
    const p = `webhooks[${i}]`;
    if (!isObject(hook)) {
      issue(p, "must be an object");
      return;
    }
    if (typeof hook.name !== "string" || hook.name === "") issue(`${p}.name`, "Required value");
    else {
      if (!DNS1123_SUBDOMAIN.test(hook.name) || hook.name.split(".").length < 3) issue(`${p}.name`, `Invalid value: ${JSON.stringify(hook.name)}: should be a domain with at least three segments separated by dots`);
      if (names.has(hook.name)) issue(`${p}.name`, `Duplicate value: ${JSON.stringify(hook.name)}`);
      names.add(hook.name);
    }
    checkClientConfig(hook.clientConfig, `${p}.clientConfig`, issue);
    const rules = hook.rules ?? [];
    if (!Array.isArray(rules)) issue(`${p}.rules`, "must be a list");
    else rules.forEach((rule, j) => checkRule(rule, `${p}.rules[${j}]`, issue));
    if (hook.timeoutSeconds !== undefined && hook.timeoutSeconds !== null) {
      const t = hook.timeoutSeconds;
      if (typeof t !== "number" || !Number.isInteger(t) || t < 1 || t > 30) issue(`${p}.timeoutSeconds`, `Invalid value: ${JSON.stringify(t)}: the timeout value must be between 1 and 30 seconds`);
    }
    const versions = stringList(hook.interpreterContextVersions);
    if (versions === undefined || versions.length === 0) issue(`${p}.interpreterContextVersions`, "Required value: must specify one of v1alpha1");
    else if (!versions.includes("v1alpha1")) issue(`${p}.interpreterContextVersions`, `Unsupported value: ${JSON.stringify(versions)}: must include at least one of v1alpha1`);
  });
  if (issues.length > 0) return { issues };
  return { configuration: value as unknown as ResourceInterpreterWebhookConfiguration, issues };
}

function checkClientConfig(cc: JsonValue | undefined, p: string, issue: (path: string, message: string) => void): void {
  if (!isObject(cc)) {
    issue(p, "Required value");
    return;
  }
  const hasUrl = cc.url !== undefined && cc.url !== null;
  const hasService = cc.service !== undefined && cc.service !== null;
  if (hasUrl === hasService) {
    issue(p, "Required value: exactly one of url or service is required");
    return;
  }
  if (hasUrl) {
    if (typeof cc.url !== "string") issue(`${p}.url`, "must be a string");
    else {
      let u: URL | undefined;
      try {
        u = new URL(cc.url);
      } catch {
        issue(`${p}.url`, `Invalid value: ${JSON.stringify(cc.url)}: host must be specified`);
      }
      if (u) {
        if (u.protocol !== "https:") issue(`${p}.url`, `Unsupported value: ${JSON.stringify(u.protocol.slice(0, -1))}: supported values: "https"`);
        if (u.username || u.password) issue(`${p}.url`, `Invalid value: ${JSON.stringify(cc.url)}: user information is not permitted in the URL`);
        if (u.hash) issue(`${p}.url`, `Invalid value: ${JSON.stringify(cc.url)}: fragments are not permitted in the URL`);
        if (u.search) issue(`${p}.url`, `Invalid value: ${JSON.stringify(cc.url)}: query parameters are not permitted in the URL`);
      }
    }
  } else {
    const s = cc.service;
    if (!isObject(s)) issue(`${p}.service`, "must be an object");
    else {
      if (typeof s.namespace !== "string" || s.namespace === "") issue(`${p}.service.namespace`, "Required value: service namespace is required");
      if (typeof s.name !== "string" || s.name === "") issue(`${p}.service.name`, "Required value: service name is required");
      if (s.path !== undefined && s.path !== null && (typeof s.path !== "string" || !s.path.startsWith("/"))) issue(`${p}.service.path`, `Invalid value: ${JSON.stringify(s.path)}: must start with a '/'`);
      if (s.port !== undefined && s.port !== null && (typeof s.port !== "number" || !Number.isInteger(s.port) || s.port < 1 || s.port > 65535)) issue(`${p}.service.port`, `Invalid value: ${JSON.stringify(s.port)}: port is not valid: must be between 1 and 65535, inclusive`);
    }
  }
  if (cc.caBundle !== undefined && cc.caBundle !== null && typeof cc.caBundle !== "string") issue(`${p}.caBundle`, "must be a base64 string");
}

function checkRule(rule: JsonValue, p: string, issue: (path: string, message: string) => void): void {
  if (!isObject(rule)) {
    issue(p, "must be an object");
    return;
  }
  for (const field of ["operations", "apiGroups", "apiVersions", "kinds"] as const) {
    const list = stringList(rule[field]);
    if (list === undefined || list.length === 0) {
      issue(`${p}.${field}`, "Required value");
      continue;
    }
    if (list.includes("*") && list.length > 1) issue(`${p}.${field}`, `Invalid value: ${JSON.stringify(list)}: if '*' is present, must not specify other ${field === "operations" ? "operations" : field}`);
  }
}

/** Reads configurations from YAML or JSON text (several documents, or a `List`). */
export function parseWebhookConfigurations(text: string, file: string): { configurations: ResourceInterpreterWebhookConfiguration[]; issues: WebhookConfigIssue[] } {
  const out = { configurations: [] as ResourceInterpreterWebhookConfiguration[], issues: [] as WebhookConfigIssue[] };
  const { objects, errors } = parseYamlObjects(text);
  for (const err of errors) out.issues.push({ file, line: err.line, ...(err.column !== undefined ? { column: err.column } : {}), path: "", message: err.message, unreadable: true });
  for (const { value, line } of objects) {
    const { configuration, issues } = parseWebhookConfigurationObject(value, file, line);
    out.issues.push(...issues);
    if (configuration) out.configurations.push(configuration);
  }
  return out;
}

/** Every hook of the configurations, sorted by uid "<configuration>/<webhook>". */
export function webhookAccessors(configurations: readonly ResourceInterpreterWebhookConfiguration[]): WebhookAccessor[] {
  const out: WebhookAccessor[] = [];
  for (const c of configurations) for (const webhook of c.webhooks ?? []) out.push({ uid: `${c.metadata.name}/${webhook.name}`, configurationName: c.metadata.name, webhook });
  return out.sort((a, b) => (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0));
}

export { splitApiVersion };

const matchesOne = (list: readonly string[], value: string): boolean => list.some((x) => x === "*" || x === value);

/** Whether a rule covers this operation on this kind. */
export function ruleMatches(rule: RuleWithOperations, kind: ResourceKind, op: Operation): boolean {
  const { group, version } = splitApiVersion(kind.apiVersion);
  return matchesOne(rule.operations, op) && matchesOne(rule.apiGroups, group) && matchesOne(rule.apiVersions, version) && matchesOne(rule.kinds, kind.kind);
}

/** The first hook (by uid) with a rule covering this operation on this kind, or undefined. */
export function firstRelevantHook(hooks: readonly WebhookAccessor[], kind: ResourceKind, op: Operation): WebhookAccessor | undefined {
  return hooks.find((h) => (h.webhook.rules ?? []).some((r) => ruleMatches(r, kind, op)));
}
