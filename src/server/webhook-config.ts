/**
 * The ResourceInterpreterWebhookConfiguration for what a `karta serve` with the same configuration
 * answers: one rule per kind listing the operations some loaded layer implements. Kinds Karmada
 * interprets natively are left out unless asked for, since a webhook rule would override Karmada's
 * built-in interpreter for them; for other kinds, operations only the built-in interpreters answer
 * (e.g. the whole-status InterpretStatus every kind has) are left to Karmada.
 */
import type { InterpreterFramework } from "../interpreter/framework.js";
import { nativeHandlers } from "../interpreter/native/index.js";
import { OPERATIONS, PROPOSED_OPERATIONS, splitApiVersion, type ResourceKind } from "../interpreter/types.js";

/** Where Karmada reaches the server. */
export type WebhookTarget = { url: string } | { service: { name: string; namespace: string; port: number; path: string } };

/** Options of the configuration. */
export interface WebhookConfigOptions {
  name: string;
  target: WebhookTarget;
  /** PEM CA bundle (base64-encoded into caBundle). */
  caPem?: string;
  timeoutSeconds: number;
  includeNative: boolean;
}

/** One rule of the configuration. */
export interface WebhookRule {
  operations: string[];
  apiGroups: string[];
  apiVersions: string[];
  kinds: string[];
}

/** The rules: per kind (sorted by group, version, kind), the operations the server answers. */
export function webhookRules(fw: InterpreterFramework, kinds: readonly ResourceKind[], includeNative: boolean): WebhookRule[] {
  const rules: (WebhookRule & { sort: string })[] = [];
  for (const kind of kinds) {
    const native = nativeHandlers(kind) !== undefined;
    if (native && !includeNative) continue;
    const operations = OPERATIONS.filter((op) => {
      // Prune: never interpreted; proposed operations: a released Karmada rejects them in a configuration.
      if (op === "Prune" || PROPOSED_OPERATIONS.includes(op)) return false;
      if (op === "InterpretComponent" && !fw.options.multiplePodTemplatesScheduling) return false;
      const layer = fw.answering(kind, op);
      return layer !== undefined && (native || layer !== "native");
    });
    if (operations.length === 0) continue;
    const { group, version } = splitApiVersion(kind.apiVersion);
    rules.push({ operations: [...operations], apiGroups: [group], apiVersions: [version], kinds: [kind.kind], sort: `${group}\0${version}\0${kind.kind}` });
  }
  rules.sort((a, b) => (a.sort < b.sort ? -1 : a.sort > b.sort ? 1 : 0));
  return rules.map(({ sort: _sort, ...r }) => r);
}

/** A webhook's clientConfig: its URL or Service, with the CA bundle when one is given. */
export function clientConfigOf(target: WebhookTarget, caPem: string | undefined): Record<string, unknown> {
  return { ...target, ...(caPem !== undefined ? { caBundle: Buffer.from(caPem).toString("base64") } : {}) };
}

/** The configuration object (config.karmada.io/v1alpha1). */
export function webhookConfiguration(fw: InterpreterFramework, kinds: readonly ResourceKind[], o: WebhookConfigOptions): Record<string, unknown> {
  const clientConfig = clientConfigOf(o.target, o.caPem);
  return {
    apiVersion: "config.karmada.io/v1alpha1",
    kind: "ResourceInterpreterWebhookConfiguration",
    metadata: { name: o.name },
    webhooks: [
      {
        name: `${o.name}.interpreter.karta.dev`,
        clientConfig,
        rules: webhookRules(fw, kinds, o.includeNative),
        timeoutSeconds: o.timeoutSeconds,
        interpreterContextVersions: ["v1alpha1"],
      },
    ],
  };
}

/** Options of the controller's MutatingWebhookConfiguration. */
export interface AdmissionConfigOptions {
  name: string;
  target: WebhookTarget;
  caPem?: string;
  timeoutSeconds: number;
  /** The controller's own namespace, left out with kube-system (its own pods must start without it). */
  controllerNamespace: string;
}

/**
 * The MutatingWebhookConfiguration routing Pod CREATE to `karta controller`'s webhook: failurePolicy
 * Ignore (a controller that is down delays no pod; its reconcile still creates the groups), no side
 * effects, AdmissionReview v1, every namespace but kube-system and the controller's own.
 */
export function admissionWebhookConfiguration(o: AdmissionConfigOptions): Record<string, unknown> {
  const clientConfig = clientConfigOf(o.target, o.caPem);
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "MutatingWebhookConfiguration",
    metadata: { name: o.name },
    webhooks: [
      {
        name: "podgroupname.karta.run.ai",
        clientConfig,
        rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"], scope: "Namespaced" }],
        failurePolicy: "Ignore",
        matchPolicy: "Equivalent",
        namespaceSelector: { matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "NotIn", values: [...new Set(["kube-system", o.controllerNamespace])] }] },
        sideEffects: "None",
        timeoutSeconds: o.timeoutSeconds,
        admissionReviewVersions: ["v1"],
        reinvocationPolicy: "Never",
      },
    ],
  };
}
