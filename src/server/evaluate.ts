/**
 * One interpreter operation through the layered framework, and its answer as Karmada's webhook
 * client reads it: replicas and replicaRequirements, components, a base64 JSON Patch (patchType
 * JSONPatch, none when nothing changed), rawStatus, healthy, dependencies; or `successful: false`
 * with a status code and a message naming the kind, the operation, the layer and the field path.
 */
import type { InterpreterFramework, LayerOutcome } from "../interpreter/framework.js";
import type { DeclarativeInterpreter } from "../interpreter/declarative/interpreter.js";
import type { AggregatedStatusItem, JsonValue, KubeObject, Operation, TargetComponent } from "../interpreter/types.js";
import { createJsonPatch } from "../jsonpatch/diff.js";
import { failureResponse, type InterpreterRequest, type InterpreterResponse, type OperationInput } from "./context.js";

/** Runs the request's operation on the framework (what `karta interpret --operation` runs). */
export async function runOperation(fw: InterpreterFramework, input: OperationInput): Promise<LayerOutcome<unknown>> {
  const obj = input.object;
  switch (input.operation) {
    case "InterpretReplica":
      return fw.interpretReplica(obj);
    case "InterpretComponent":
      return fw.interpretComponents(obj);
    case "ReviseReplica":
      return fw.reviseReplica(obj, input.replicas);
    case "ReviseComponents":
      return fw.reviseComponents(obj, input.components ?? []);
    case "Retain":
      return fw.retain(obj, input.observedObject ?? obj);
    case "AggregateStatus":
      return fw.aggregateStatus(obj, input.aggregatedStatus);
    case "InterpretStatus":
      return fw.reflectStatus(obj);
    case "InterpretHealth":
      return fw.interpretHealth(obj);
    case "InterpretDependency":
      return fw.getDependencies(obj);
    default:
      // Prune: no layer interprets it (the framework's "not found" error, as for an unknown kind).
      return fw.answering({ apiVersion: String(obj.apiVersion), kind: String(obj.kind) }, input.operation) === undefined
        ? { ok: false, error: { operation: input.operation, message: `default ${input.operation} interpreter for ${JSON.stringify(`${String(obj.apiVersion)}, Kind=${String(obj.kind)}`)} not found`, layer: "framework" } }
        : { ok: false, error: { operation: input.operation, message: `operation ${input.operation} is not supported`, layer: "framework" } };
  }
}

/** How an answer went, for logs and metrics. */
export interface AnswerMeta {
  outcome: "success" | "failure" | "bad_request";
  layer: string;
  uid: string;
  /** group/version/kind of the object ("" when the body could not be read). */
  kind: string;
  operation: string;
  /**
   * The HTTP status: 200, also for a body that is not a ResourceInterpreterContext (its code 400 is in
   * the response's status), as Karmada's webhook server answers: its client reads the response only
   * from a 2xx (client-go turns any other status into a generic error and drops the body).
   */
  http: number;
  /** A limit the evaluation hit: lua-deadline, lua-instructions, lua-memory, jq-steps, jq-depth, jq-size. */
  limit?: string;
}

/** The status code of a failure: 404 when no layer answers, 500 for an interpreter error, 504 past a deadline. */
function failureCode(o: Extract<LayerOutcome<unknown>, { ok: false }>): number {
  if (o.error.layer === "framework") return 404;
  if (/context deadline exceeded/.test(o.error.message)) return 504;
  return 500;
}

/** Which limit an error message reports, if any (the Lua VM's and the jq engine's wordings). */
export function limitOf(message: string): string | undefined {
  if (message.includes("context deadline exceeded")) return "lua-deadline";
  if (message.includes("lua script exceeded its instruction budget")) return "lua-instructions";
  if (message.includes("lua script exceeded its memory limit")) return "lua-memory";
  if (/evaluation exceeded its budget of \d+ steps/.test(message)) return "jq-steps";
  if (/evaluation exceeded the recursion depth limit/.test(message)) return "jq-depth";
  if (/evaluation exceeded (its budget of \d+ outputs|the limit of|a size limit)/.test(message)) return "jq-size";
  return undefined;
}

/** The kind as Go prints a GroupVersionKind in messages. */
export function kindText(obj: KubeObject): string {
  return `${typeof obj.apiVersion === "string" ? obj.apiVersion : ""}, Kind=${typeof obj.kind === "string" ? obj.kind : ""}`;
}

/** "group/version/Kind" ("core" group as "", e.g. "v1/Pod"), the metric label of a kind. */
export function gvk(obj: KubeObject): string {
  return `${typeof obj.apiVersion === "string" ? obj.apiVersion : ""}/${typeof obj.kind === "string" ? obj.kind : ""}`;
}

function patchFields(from: KubeObject, to: KubeObject): { [k: string]: JsonValue } {
  const ops = createJsonPatch(from, to);
  if (ops.length === 0) return {};
  return { patch: Buffer.from(JSON.stringify(ops)).toString("base64"), patchType: "JSONPatch" };
}

/**
 * The answer to a body that is not a ResourceInterpreterContext: HTTP 200 with `successful: false` and
 * status code 400, with the uid when one could be read (Karmada's server: `Errored(http.StatusBadRequest, err)`).
 */
export function badRequest(uid: string, message: string): { response: InterpreterResponse; meta: AnswerMeta } {
  return { response: failureResponse(uid, 400, message), meta: { outcome: "bad_request", layer: "", uid, kind: "", operation: "", http: 200 } };
}

/** Answers a request: the response and how it went. Never throws. */
export async function answer(fw: InterpreterFramework, request: InterpreterRequest): Promise<{ response: InterpreterResponse; meta: AnswerMeta }> {
  let out: LayerOutcome<unknown>;
  try {
    // Karmada asks InterpretComponent only with the gate on; without it the server does not answer it either.
    out =
      request.operation === "InterpretComponent" && !fw.options.multiplePodTemplatesScheduling
        ? { ok: false, error: { operation: request.operation, message: "InterpretComponent is answered only with the MultiplePodTemplatesScheduling feature gate (--feature-gates MultiplePodTemplatesScheduling=true)", layer: "framework" } }
        : await runOperation(fw, request);
  } catch (e) {
    out = { ok: false, error: { operation: request.operation, message: `internal error: ${e instanceof Error ? e.message : String(e)}`, layer: "framework" } };
  }
  const uid = request.uid;
  if (!out.ok) {
    const e = out.error;
    const message = `${kindText(request.object)} ${request.operation}: ${e.layer} layer: ${e.path ? `${e.path}: ` : ""}${e.message}`;
    const meta: AnswerMeta = { outcome: "failure", layer: e.layer, uid, kind: gvk(request.object), operation: request.operation, http: 200 };
    const limit = limitOf(e.message);
    if (limit !== undefined) meta.limit = limit;
    return { response: failureResponse(uid, failureCode(out), message), meta };
  }
  const meta: AnswerMeta = { outcome: "success", layer: out.layer, uid, kind: gvk(request.object), operation: request.operation, http: 200 };
  const response: InterpreterResponse = { uid, successful: true };
  const v = out.value as JsonValue;
  switch (request.operation) {
    case "InterpretReplica": {
      const r = out.value as { replicas: number; replicaRequirements?: JsonValue };
      response.replicas = r.replicas;
      if (r.replicaRequirements !== undefined) response.replicaRequirements = r.replicaRequirements;
      break;
    }
    case "InterpretComponent":
      // A nil list (null) is left out, as omitempty leaves it out; Karmada's client decodes the absent
      // field as nil again. An empty list is sent as `[]`, which it decodes as the empty list the
      // layer answered (what Karmada's in-process interpreter would have returned).
      if (v !== null) response.components = v;
      break;
    case "ReviseReplica":
    case "ReviseComponents":
    case "Retain":
    case "AggregateStatus":
      Object.assign(response, patchFields(request.object, v as KubeObject));
      break;
    case "InterpretStatus":
      // Karmada's client refuses a missing or null rawStatus ("webhook returned nill response.rawStatus"),
      // so "no status yet" is sent as an empty status, as a Go webhook's zero status struct marshals:
      // Karmada records it instead of failing (and retrying) the reflection until a status appears.
      response.rawStatus = v === undefined || v === null ? {} : v;
      break;
    case "InterpretHealth":
      response.healthy = v;
      break;
    case "InterpretDependency":
      if (v !== null) response.dependencies = v;
      break;
    default:
      break;
  }
  return { response, meta };
}

/**
 * Runs one rule of one customization on a sample (the desired object retargeted to the customization's
 * kind), as `karta interpret --check --desired-file` does: the error message, or undefined.
 */
export async function runCustomizationRule(ipt: DeclarativeInterpreter, op: Operation, sample: KubeObject, observed: KubeObject, items: AggregatedStatusItem[] | undefined, replicas: number, components: TargetComponent[] = []): Promise<string | undefined> {
  const err = (o: { ok: boolean; error?: { message: string } }): string | undefined => (o.ok ? undefined : o.error!.message);
  switch (op) {
    case "Retain":
      return err(await ipt.retain(sample, observed));
    case "InterpretReplica":
      return err(await ipt.interpretReplica(sample));
    case "InterpretComponent":
      return err(await ipt.interpretComponent(sample));
    case "ReviseReplica":
      return err(await ipt.reviseReplica(sample, replicas));
    case "ReviseComponents":
      return err(await ipt.reviseComponents(sample, components));
    case "InterpretStatus":
      return err(await ipt.interpretStatus(observed));
    case "AggregateStatus":
      return err(await ipt.aggregateStatus(sample, items));
    case "InterpretHealth":
      return err(await ipt.interpretHealth(observed));
    case "InterpretDependency":
      return err(await ipt.interpretDependency(sample));
    default:
      return undefined;
  }
}

