/**
 * The webhook interpreter layer, client side: for an operation on a kind, the first matching hook of
 * the ResourceInterpreterWebhookConfigurations is sent a ResourceInterpreterContext over HTTPS, and
 * its response is checked and applied as Karmada's webhook interpreter does (with its error wording).
 */
import { findDeepNesting } from "../../input/index.js";
import { randomUUID } from "node:crypto";
import { toComponents, toDependencies, toReplicaRequirements } from "../typed.js";
import { verifyDependencies } from "../dependencies.js";
import {
  fail,
  kindOf,
  ok,
  splitApiVersion,
  type AggregatedStatusItem,
  type Component,
  type DependentObjectReference,
  type Interpreter,
  type JsonValue,
  type KubeObject,
  type Operation,
  type Outcome,
  type ReplicaResult,
  type ResourceKind,
  type TargetComponent,
} from "../types.js";
import { DEFAULT_TIMEOUT_SECONDS, firstRelevantHook, webhookAccessors, type ResourceInterpreterWebhookConfiguration, type WebhookAccessor } from "./config.js";
import { applyJsonPatch, decodeJsonPatch } from "../../jsonpatch/index.js";
import { postJson, resolveEndpoint, type PostOutcome, type ServiceResolver, type WebhookEndpoint } from "./transport.js";

const CONTEXT_API_VERSION = "config.karmada.io/v1alpha1";
const CONTEXT_KIND = "ResourceInterpreterContext";

/** What the layer needs besides the configurations. */
export interface WebhookInterpreterOptions {
  /** Maps a Service reference to the URL dialled (default: https://name.namespace.svc:port/path). */
  resolveService?: ServiceResolver;
  /** Request uids (default: random UUIDs). */
  uid?: () => string;
  /** The transport (default: one HTTPS POST); tests of response handling may replace it. */
  post?: (endpoint: WebhookEndpoint, body: string, timeoutSeconds: number) => Promise<PostOutcome>;
}

/** The operation-specific inputs of a request. */
interface RequestInputs {
  object: KubeObject;
  observedObject?: KubeObject;
  replicas?: number;
  /** ReviseComponents' assignment (Karmada #7830/#7841: `request.components`, and no `replicas`). */
  components?: TargetComponent[];
  aggregatedStatus?: AggregatedStatusItem[];
}

/** `ResourceInterpreterRequest` as sent. */
export interface ResourceInterpreterRequest {
  uid: string;
  kind: { group: string; version: string; kind: string };
  name: string;
  namespace?: string;
  operation: Operation;
  object: KubeObject;
  observedObject?: KubeObject;
  /** Absent only for ReviseComponents, which carries `components` instead. */
  replicas?: number;
  components?: TargetComponent[];
  aggregatedStatus?: AggregatedStatusItem[];
}

/**
 * Builds the ResourceInterpreterContext Karmada sends (`replicas` is 0 unless revising replicas).
 * ReviseComponents, as Karmada PRs #7830/#7841 send it: no `replicas`, the assignment in `components`
 * (list of {name, replicas}; left out when empty, as Go's omitempty does).
 */
export function buildInterpreterContext(uid: string, op: Operation, inputs: RequestInputs): { apiVersion: string; kind: string; request: ResourceInterpreterRequest } {
  const obj = inputs.object;
  const { group, version } = splitApiVersion(str(obj.apiVersion));
  const meta = isObject(obj.metadata) ? obj.metadata : {};
  const request: ResourceInterpreterRequest = {
    uid,
    kind: { group, version, kind: str(obj.kind) },
    name: str(meta.name),
    operation: op,
    object: obj,
    replicas: inputs.replicas ?? 0,
  };
  if (op === "ReviseComponents") {
    delete request.replicas;
    if (inputs.components !== undefined && inputs.components.length > 0) request.components = inputs.components.map((c) => ({ name: c.name, replicas: c.replicas }));
  }
  if (str(meta.namespace) !== "") request.namespace = str(meta.namespace);
  if (inputs.observedObject !== undefined) request.observedObject = inputs.observedObject;
  if (inputs.aggregatedStatus !== undefined && inputs.aggregatedStatus.length > 0) request.aggregatedStatus = inputs.aggregatedStatus;
  return { apiVersion: CONTEXT_API_VERSION, kind: CONTEXT_KIND, request };
}

function isObject(v: unknown): v is { [k: string]: JsonValue } {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function str(v: JsonValue | undefined): string {
  return typeof v === "string" ? v : "";
}

/** The checked fields of a successful response. */
interface ResponseAttributes {
  response: { [k: string]: JsonValue };
}

type Verified = { ok: true; value: ResponseAttributes } | { ok: false; error: string };

/** Karmada's VerifyResourceInterpreterContext plus the decoding Go's unmarshal would do. */
export function verifyResponse(uid: string, op: Operation, status: number, body: string): Verified {
  let parsed: unknown;
  const deep = findDeepNesting(body);
  if (deep !== undefined) return { ok: false, error: `failed to call webhook: the response is ${deep.message}` };
  try {
    parsed = JSON.parse(body);
  } catch (e) {
    if (status < 200 || status > 299) return { ok: false, error: `failed to call webhook: the server responded with the status code ${status} but did not return more information` };
    return { ok: false, error: `failed to call webhook: ${(e as Error).message}` };
  }
  if (status < 200 || status > 299) {
    const message = isObject(parsed) && typeof parsed.message === "string" ? parsed.message : `the server responded with the status code ${status} but did not return more information`;
    return { ok: false, error: `failed to call webhook: ${message}` };
  }
  if (!isObject(parsed)) return { ok: false, error: "failed to call webhook: json: cannot unmarshal non-object into Go value of type v1alpha1.ResourceInterpreterContext" };
  if (parsed.apiVersion !== CONTEXT_API_VERSION || parsed.kind !== CONTEXT_KIND) {
    return { ok: false, error: `reveived invalid webhook response: unexpected response type ${JSON.stringify(`${str(parsed.apiVersion as JsonValue)}, Kind=${str(parsed.kind as JsonValue)}`)}` };
  }
  const invalid = (m: string): Verified => ({ ok: false, error: `reveived invalid webhook response: ${m}` });
  const r = parsed.response;
  if (!isObject(r)) return invalid("webhook response was absent");
  if (str(r.uid) !== uid) return invalid(`expected response.uid ${JSON.stringify(uid)}, got ${JSON.stringify(str(r.uid))}`);
  if (r.successful !== true) {
    if (!isObject(r.status)) return invalid("webhook require response.status when response.successful is false");
    const code = typeof r.status.code === "number" ? r.status.code : 0;
    return { ok: false, error: `webhook call failed, get status code: ${code}, msg: ${str(r.status.message)}` };
  }
  switch (op) {
    case "InterpretReplica":
      if (r.replicas === undefined || r.replicas === null) return invalid("webhook returned nil response.replicas");
      break;
    case "InterpretStatus":
      if (r.rawStatus === undefined || r.rawStatus === null) return invalid("webhook returned nill response.rawStatus");
      break;
    case "InterpretHealth":
      if (r.healthy === undefined || r.healthy === null) return invalid("webhook returned nil response.healthy");
      if (typeof r.healthy !== "boolean") return invalid(`json: cannot unmarshal ${typeof r.healthy} into Go struct field ResourceInterpreterResponse.response.healthy of type bool`);
      break;
    case "ReviseReplica":
    case "ReviseComponents":
    case "Retain":
    case "AggregateStatus":
    case "Prune": {
      const hasPatch = r.patch !== undefined && r.patch !== null && r.patch !== "";
      const hasType = r.patchType !== undefined && r.patchType !== null;
      if (!hasPatch && !hasType) break;
      if (!hasType) return invalid("webhook returned nil response.patchType");
      if (!hasPatch) return invalid("webhook returned empty response.patch");
      if (r.patchType !== "JSONPatch") return invalid(`webhook returned invalid response.patchType of ${JSON.stringify(r.patchType)}`);
      break;
    }
    default:
      break;
  }
  return { ok: true, value: { response: r } };
}

/** The webhook layer over a set of configurations. */
export class WebhookInterpreter implements Interpreter {
  private readonly hooks: WebhookAccessor[];
  private readonly options: WebhookInterpreterOptions;

  constructor(configurations: readonly ResourceInterpreterWebhookConfiguration[], options: WebhookInterpreterOptions = {}) {
    this.hooks = webhookAccessors(configurations);
    this.options = options;
  }

  /** The hooks in the order they are consulted. */
  get hookUids(): string[] {
    return this.hooks.map((h) => h.uid);
  }

  /** Karmada's HookEnabled: some hook matches this operation on this kind. */
  supports(kind: ResourceKind, op: Operation): boolean {
    return firstRelevantHook(this.hooks, kind, op) !== undefined;
  }

  /** The hook that would answer, or undefined. */
  hookFor(kind: ResourceKind, op: Operation): WebhookAccessor | undefined {
    return firstRelevantHook(this.hooks, kind, op);
  }

  private fail<T>(op: Operation, message: string): Outcome<T> {
    return fail<T>(op, message, undefined, "webhook");
  }

  /** Sends the request to the first relevant hook and returns the verified response, or an error outcome. */
  private async call(op: Operation, inputs: RequestInputs): Promise<{ ok: true; response: { [k: string]: JsonValue }; hook: string } | { ok: false; outcome: Outcome<never> }> {
    const hook = firstRelevantHook(this.hooks, kindOf(inputs.object), op);
    if (!hook) return { ok: false, outcome: this.fail(op, `no webhook matches operation ${op} for ${str(inputs.object.apiVersion)}, Kind=${str(inputs.object.kind)}`) };
    const wrap = (reason: string): { ok: false; outcome: Outcome<never> } => ({
      ok: false,
      outcome: this.fail(op, `Internal error occurred: failed calling webhook ${JSON.stringify(hook.uid)}: ${reason}`),
    });
    const versions = hook.webhook.interpreterContextVersions ?? [];
    if (!versions.includes("v1alpha1")) return wrap("could not create ResourceInterpreterContext objects: webhook does not accept known ResourceInterpreterContext versions (v1alpha1)");
    const endpoint = resolveEndpoint(hook.webhook.clientConfig, this.options.resolveService);
    if (!endpoint.ok) return wrap(`could not get REST client: ${endpoint.error}`);
    const uid = (this.options.uid ?? randomUUID)();
    const body = JSON.stringify(buildInterpreterContext(uid, op, inputs));
    const timeout = hook.webhook.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
    const posted = await (this.options.post ?? postJson)(endpoint.endpoint, body, timeout);
    if (!posted.ok) return wrap(`failed to call webhook: ${posted.error}`);
    const verified = verifyResponse(uid, op, posted.status, posted.body);
    if (!verified.ok) return wrap(verified.error);
    return { ok: true, response: verified.value.response, hook: hook.uid };
  }

  /** Applies the response's JSON Patch to `object` (both empty: the object unchanged). */
  private patched(op: Operation, object: KubeObject, response: { [k: string]: JsonValue }): Outcome<KubeObject> {
    if (response.patch === undefined || response.patch === null || response.patch === "") return ok(object);
    if (typeof response.patch !== "string") return this.fail(op, "json: cannot unmarshal non-string into Go struct field ResourceInterpreterResponse.response.patch of type []uint8");
    const text = Buffer.from(response.patch, "base64").toString("utf8");
    const decoded = decodeJsonPatch(text);
    if (!decoded.ok) return this.fail(op, decoded.error);
    if (decoded.value.length === 0) return ok(object);
    const applied = applyJsonPatch(object, decoded.value);
    if (!applied.ok) return this.fail(op, applied.error);
    if (!isObject(applied.value)) return this.fail(op, "json: cannot unmarshal patched object into Go value of type map[string]interface {}");
    if (str(applied.value.kind) === "") return this.fail(op, `Object 'Kind' is missing in '${JSON.stringify(applied.value)}'`);
    return ok(applied.value);
  }

  /** Decodes typed response fields; a mismatch is reported as the REST client's decoding failure. */
  private decode<T>(op: Operation, hook: string, f: () => T): Outcome<T> {
    try {
      return ok(f());
    } catch (e) {
      return this.fail(op, `Internal error occurred: failed calling webhook ${JSON.stringify(hook)}: failed to call webhook: ${(e as Error).message}`);
    }
  }

  async interpretReplica(object: KubeObject): Promise<Outcome<ReplicaResult>> {
    const op: Operation = "InterpretReplica";
    const r = await this.call(op, { object });
    if (!r.ok) return r.outcome;
    const replicas = r.response.replicas;
    if (typeof replicas !== "number" || !Number.isInteger(replicas) || replicas < -(2 ** 31) || replicas >= 2 ** 31) {
      return this.fail(op, `Internal error occurred: failed calling webhook ${JSON.stringify(r.hook)}: failed to call webhook: json: cannot unmarshal ${JSON.stringify(replicas)} into Go struct field ResourceInterpreterResponse.response.replicas of type int32`);
    }
    const req = r.response.replicaRequirements;
    return this.decode(op, r.hook, () => {
      const result: ReplicaResult = { replicas };
      if (req !== undefined && req !== null) result.replicaRequirements = toReplicaRequirements(req);
      return result;
    });
  }

  /** The response's components as Go decodes them: absent or null is a nil slice (null), `[]` an empty one. */
  async interpretComponent(object: KubeObject): Promise<Outcome<Component[] | null>> {
    const op: Operation = "InterpretComponent";
    const r = await this.call(op, { object });
    if (!r.ok) return r.outcome;
    const comps = r.response.components;
    return this.decode(op, r.hook, () => (comps === undefined || comps === null ? null : toComponents(comps)));
  }

  async reviseReplica(object: KubeObject, replicas: number): Promise<Outcome<KubeObject>> {
    const op: Operation = "ReviseReplica";
    const r = await this.call(op, { object, replicas });
    return r.ok ? this.patched(op, object, r.response) : r.outcome;
  }

  async reviseComponents(object: KubeObject, components: TargetComponent[]): Promise<Outcome<KubeObject>> {
    const op: Operation = "ReviseComponents";
    const r = await this.call(op, { object, components });
    return r.ok ? this.patched(op, object, r.response) : r.outcome;
  }

  async retain(desired: KubeObject, observed: KubeObject): Promise<Outcome<KubeObject>> {
    const op: Operation = "Retain";
    const r = await this.call(op, { object: desired, observedObject: observed });
    return r.ok ? this.patched(op, desired, r.response) : r.outcome;
  }

  async aggregateStatus(object: KubeObject, items: AggregatedStatusItem[] | undefined): Promise<Outcome<KubeObject>> {
    const op: Operation = "AggregateStatus";
    const r = await this.call(op, items === undefined ? { object } : { object, aggregatedStatus: items });
    return r.ok ? this.patched(op, object, r.response) : r.outcome;
  }

  async interpretStatus(object: KubeObject): Promise<Outcome<JsonValue | undefined>> {
    const op: Operation = "InterpretStatus";
    const r = await this.call(op, { object });
    return r.ok ? ok(r.response.rawStatus) : r.outcome;
  }

  async interpretHealth(object: KubeObject): Promise<Outcome<boolean>> {
    const op: Operation = "InterpretHealth";
    const r = await this.call(op, { object });
    return r.ok ? ok(r.response.healthy as boolean) : r.outcome;
  }

  /** The response's dependencies as Go decodes them (absent or null: a nil slice, null), verified as Karmada's client verifies them. */
  async interpretDependency(object: KubeObject): Promise<Outcome<DependentObjectReference[] | null>> {
    const op: Operation = "InterpretDependency";
    const r = await this.call(op, { object });
    if (!r.ok) return r.outcome;
    const deps = r.response.dependencies;
    const decoded = this.decode(op, r.hook, () => (deps === undefined || deps === null ? null : toDependencies(deps)));
    if (!decoded.ok) return decoded;
    const invalid = verifyDependencies(decoded.value ?? []);
    if (invalid) return this.fail(op, `Internal error occurred: failed calling webhook ${JSON.stringify(r.hook)}: reveived invalid webhook response: ${invalid}`);
    return decoded;
  }
}
