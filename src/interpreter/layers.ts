/**
 * The layers Karta answers with, assembled in one place for every command and server that runs the
 * framework (`karta interpret`, `karta serve` and its workers, `karta webhook-config`): the user's
 * customizations (declarative), webhook configurations, the Kartas (the given ones, then the bundled
 * ones, which leave Kubernetes' own kinds to the built-in interpreters), the bundled thirdparty
 * customizations and the built-in (native) interpreters. Only the layers a run has parts for are made;
 * the Lua and webhook layers are loaded on demand, so a command that needs neither does not pay for them.
 */
import type { Definition } from "../definition/index.js";
import type { CustomizationIssue } from "./declarative/customization.js";
import { createInterpreterFramework, type FrameworkLayers, type InterpreterFramework } from "./framework.js";
import { createKartaInterpreter } from "./karta/index.js";
import { KindTable } from "./kind-table.js";
import { createNativeInterpreter, NATIVE_HANDLERS } from "./native/index.js";
import type { Operation, ResourceInterpreterCustomization, ResourceKind } from "./types.js";
import type { ResourceInterpreterWebhookConfiguration } from "./webhook/config.js";

/** What to assemble: each part that is absent or empty leaves its layer out. */
export interface LayerParts {
  /** The user's Karta definitions; for their kinds they replace the bundled ones. */
  kartas?: readonly Definition[];
  /** The user's ResourceInterpreterCustomizations (the declarative layer). */
  customizations?: readonly ResourceInterpreterCustomization[];
  /** ResourceInterpreterWebhookConfigurations to consult (the webhook layer). */
  webhooks?: readonly ResourceInterpreterWebhookConfiguration[];
  /** Whether to load the bundled thirdparty customizations (and start their Lua VM). */
  thirdparty: boolean;
  /** Karmada's MultiplePodTemplatesScheduling feature gate. */
  multiplePodTemplatesScheduling?: boolean;
}

/** An assembled framework, what its parts reported, and how to release its Lua states. */
export interface AssembledLayers {
  framework: InterpreterFramework;
  layers: FrameworkLayers;
  /** Problems of the Kartas: of the user's when some were given (errors), else of the bundled ones. */
  kartaIssues: string[];
  /** Problems of the bundled customizations; when there are any, the thirdparty layer is left out. */
  thirdpartyIssues: CustomizationIssue[];
  /** Every kind some layer has an interpreter for (customizations, Kartas, thirdparty, native). */
  kinds: ResourceKind[];
  /**
   * Whether answering `op` for this kind may run a Lua script (a user customization or a bundled one)
   * or call a webhook: work that only a worker thread can be stopped in.
   */
  needsWorker(kind: ResourceKind, op: Operation): boolean;
  close(): void;
}

/** Builds the framework from its parts, in Karmada's layer order. */
export async function assembleLayers(parts: LayerParts): Promise<AssembledLayers> {
  const closers: (() => void)[] = [];
  const layers: FrameworkLayers = { native: createNativeInterpreter() };
  const targets: ResourceKind[] = [];
  if (parts.customizations !== undefined && parts.customizations.length > 0) {
    const { createDeclarativeInterpreter } = await import("./declarative/interpreter.js");
    const declarative = await createDeclarativeInterpreter(parts.customizations);
    closers.push(() => declarative.close());
    layers.declarative = declarative;
    targets.push(...declarative.targets);
  }
  if (parts.webhooks !== undefined && parts.webhooks.length > 0) {
    const { WebhookInterpreter } = await import("./webhook/interpreter.js");
    layers.webhook = new WebhookInterpreter(parts.webhooks);
  }
  const karta = createKartaInterpreter({ definitions: [...(parts.kartas ?? [])], builtin: layers.native });
  layers.karta = karta.interpreter;
  let thirdpartyIssues: CustomizationIssue[] = [];
  let bundledScripts: { supports(kind: ResourceKind, op: Operation): boolean } | undefined;
  if (parts.thirdparty) {
    const { createThirdpartyInterpreter } = await import("./thirdparty/index.js");
    const thirdparty = await createThirdpartyInterpreter();
    closers.push(() => thirdparty.interpreter.close());
    thirdpartyIssues = thirdparty.issues;
    if (thirdparty.issues.length === 0) {
      layers.thirdparty = thirdparty.interpreter;
      bundledScripts = thirdparty.interpreter.customizations;
      targets.push(...thirdparty.interpreter.targets);
    }
  }
  const framework = createInterpreterFramework(layers, { multiplePodTemplatesScheduling: parts.multiplePodTemplatesScheduling ?? false });
  const kinds = new Map<string, ResourceKind>();
  const add = (k: ResourceKind): void => void kinds.set(`${k.apiVersion}\0${k.kind}`, { apiVersion: k.apiVersion, kind: k.kind });
  targets.forEach(add);
  karta.interpreter.kinds.forEach(add);
  for (const k of NATIVE_HANDLERS.keys()) {
    const [apiVersion, kind] = k.split("\0") as [string, string];
    add({ apiVersion, kind });
  }
  const workerRoutes = new KindTable<boolean>(4096);
  return {
    framework,
    layers,
    kartaIssues: karta.issues,
    thirdpartyIssues,
    kinds: [...kinds.values()],
    needsWorker: (kind, op) => {
      // Asked for every request the server routes: kept per kind and operation, like the framework's routes.
      let needs = workerRoutes.get(kind.apiVersion, kind.kind, op);
      if (needs === undefined) {
        needs = framework.layersFor(kind, op).some((l) => l === "declarative" || l === "webhook" || (l === "thirdparty" && bundledScripts?.supports(kind, op) === true));
        workerRoutes.set(kind.apiVersion, kind.kind, op, needs);
      }
      return needs;
    },
    close: () => {
      for (const c of closers) c();
    },
  };
}
