/**
 * The admission configurations of `karta controller`, as `karta webhook-config --admission` prints them:
 * the MutatingWebhookConfiguration with the pod webhook (src/server/webhook-config.ts) and upstream's
 * `mkarta.run.ai` (CREATE of a Karta: its labels), and the ValidatingWebhookConfiguration with
 * `vkarta.run.ai` (CREATE and UPDATE of a Karta). The Karta webhooks are cluster-scoped and reach the
 * same server as the pod webhook, each on its own path. Labelling fails open (failurePolicy Ignore: the
 * controller stamps the labels anyway); validation fails closed (Fail: an invalid Karta is never
 * stored, even while the controller is down).
 */
import { admissionWebhookConfiguration, clientConfigOf, type AdmissionConfigOptions, type WebhookTarget } from "../server/webhook-config.js";
import { KARTA_MUTATE_PATH, KARTA_MUTATING_WEBHOOK, KARTA_VALIDATE_PATH, KARTA_VALIDATING_WEBHOOK } from "./karta-admission.js";

/** The same server at another path: a URL keeps its scheme, host and port; a Service its name and port. */
export function atPath(target: WebhookTarget, path: string): WebhookTarget {
  if ("url" in target) return { url: new URL(path, target.url).toString() };
  return { service: { ...target.service, path } };
}

function kartaWebhook(name: string, path: string, operations: string[], failurePolicy: "Ignore" | "Fail", o: AdmissionConfigOptions): Record<string, unknown> {
  return {
    name,
    clientConfig: clientConfigOf(atPath(o.target, path), o.caPem),
    rules: [{ operations, apiGroups: ["run.ai"], apiVersions: ["v1alpha1"], resources: ["kartas"], scope: "Cluster" }],
    failurePolicy,
    matchPolicy: "Equivalent",
    sideEffects: "None",
    timeoutSeconds: o.timeoutSeconds,
    admissionReviewVersions: ["v1"],
  };
}

/** The MutatingWebhookConfiguration (pods, then Kartas) and the ValidatingWebhookConfiguration (Kartas). */
export function controllerAdmissionConfigurations(o: AdmissionConfigOptions): [Record<string, unknown>, Record<string, unknown>] {
  const mutating = admissionWebhookConfiguration(o) as { webhooks: Record<string, unknown>[] } & Record<string, unknown>;
  mutating.webhooks.push({ ...kartaWebhook(KARTA_MUTATING_WEBHOOK, KARTA_MUTATE_PATH, ["CREATE"], "Ignore", o), reinvocationPolicy: "Never" });
  const validating = {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: { name: o.name },
    webhooks: [kartaWebhook(KARTA_VALIDATING_WEBHOOK, KARTA_VALIDATE_PATH, ["CREATE", "UPDATE"], "Fail", o)],
  };
  return [mutating, validating];
}
