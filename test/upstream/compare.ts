/**
 * Karta's answers against upstream Karta's (tools/karta-upstream), op by op, exactly where both sides
 * answer. Each difference is a {@link Difference} with a class (what differs) and the values of both
 * sides; exceptions.ts decides which are known and deliberate.
 *
 * Values are compared as JSON with members that are null, empty lists or empty objects left out (Go's
 * encoding of nil pointers, nil slices and zero structs; Karta leaves them out), keys in any order. Pod
 * templates are compared after Karta's has gone through the core/v1 type upstream decodes into (the
 * oracle's `canonical` op), so fields the type does not know are dropped on both sides.
 */
import { isDeepStrictEqual } from "node:util";
import type { Diagnostic } from "../../src/definition/index.js";
import type { ComponentView, Interpretation } from "../../src/interpret/index.js";

export interface Difference {
  op: string;
  caseId: string;
  /** What differs: `components/instanceIds`, `status/statuses`, `pods/component`... */
  klass: string;
  /** The component, pod or message the difference is about. */
  at: string;
  karta: unknown;
  upstream: unknown;
}

/** JSON without null members, empty lists and empty objects, keys sorted. */
export function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v !== null && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const x = canonical((v as Record<string, unknown>)[k]);
      if (x === null || x === undefined) continue;
      if (Array.isArray(x) && x.length === 0) continue;
      if (typeof x === "object" && !Array.isArray(x) && Object.keys(x).length === 0) continue;
      out[k] = x;
    }
    return out;
  }
  return v;
}

export const same = (a: unknown, b: unknown): boolean => isDeepStrictEqual(canonical(a) ?? {}, canonical(b) ?? {});

/** Whether a diagnostic's path is `prefix` or below it. */
export function under(d: Diagnostic, prefix: string): boolean {
  return d.path === prefix || d.path.startsWith(`${prefix}.`) || d.path.startsWith(`${prefix}[`);
}

const errorsOf = (r: Interpretation): Diagnostic[] => r.diagnostics.filter((d) => d.severity === "error");

// ------------------------------------------------------------------------------------------ validate

/** Upstream's errors must each be among Karta's, word for word; Karta must not err where upstream accepts. */
export function compareValidate(caseId: string, kartaErrors: readonly string[], upstream: { ok?: boolean; errors?: string[]; decodeError?: string }): Difference[] {
  const out: Difference[] = [];
  const d = (klass: string, at: string, karta: unknown, up: unknown): void => void out.push({ op: "validate", caseId, klass, at, karta, upstream: up });
  if (upstream.decodeError !== undefined) {
    if (kartaErrors.length === 0) d("validate/decode-error-upstream-only", upstream.decodeError, kartaErrors, upstream.decodeError);
    return out;
  }
  const up = upstream.errors ?? [];
  for (const m of up) if (!kartaErrors.includes(m)) d("validate/upstream-error-missing-in-karta", m, kartaErrors, m);
  if (up.length === 0) for (const m of kartaErrors) d("validate/karta-error-upstream-accepts", m, m, []);
  return out;
}

// ---------------------------------------------------------------------------------------- components

type Outcome<T> = { value?: T; error?: string };

export interface UpstreamComponent {
  name: string;
  error?: string;
  instanceIds?: Outcome<string[]>;
  podTemplateSpec?: Outcome<Record<string, unknown>>;
  podSpec?: Outcome<Record<string, unknown>>;
  metadata?: Outcome<Record<string, unknown>>;
  fragmentedPodSpec?: Outcome<Record<string, Record<string, any>>>;
  scale?: Outcome<Record<string, Record<string, number>>>;
  extracted?: Outcome<Record<string, Record<string, any>>>;
}

/** The first error upstream met extracting the component, if any. */
export function upstreamComponentError(c: UpstreamComponent): string | undefined {
  return c.error ?? c.instanceIds?.error ?? c.podTemplateSpec?.error ?? c.podSpec?.error ?? c.metadata?.error ?? c.fragmentedPodSpec?.error ?? c.scale?.error ?? c.extracted?.error;
}

/** Karta's errors about a component's extraction (status, pod selectors and suspend actions aside). */
export function kartaComponentErrors(r: Interpretation, view: ComponentView): Diagnostic[] {
  return errorsOf(r).filter((x) => under(x, view.path) && !/\.(statusDefinition|podSelector|suspendDefinition)\b/.test(x.path) && !x.message.startsWith("subtree scale of"));
}

/** Pod templates of Karta put through the core/v1 types (the oracle's canonical op), by `${component}/${instance}/${kind}`. */
export type Canonicalized = Map<string, unknown>;

export function canonicalRequests(r: Interpretation): { key: string; kind: "PodTemplateSpec" | "PodSpec" | "ObjectMeta"; value: unknown }[] {
  const out: { key: string; kind: "PodTemplateSpec" | "PodSpec" | "ObjectMeta"; value: unknown }[] = [];
  for (const c of r.components) {
    for (const i of c.instances) {
      if (!i.podTemplate) continue;
      out.push({ key: `${c.name}/${i.id}/PodTemplateSpec`, kind: "PodTemplateSpec", value: i.podTemplate });
      out.push({ key: `${c.name}/${i.id}/PodSpec`, kind: "PodSpec", value: i.podTemplate.spec ?? {} });
      out.push({ key: `${c.name}/${i.id}/ObjectMeta`, kind: "ObjectMeta", value: i.podTemplate.metadata ?? {} });
    }
  }
  return out;
}

export function compareComponents(caseId: string, r: Interpretation, upstream: { components?: UpstreamComponent[]; objectError?: string }, canon: Canonicalized): Difference[] {
  const out: Difference[] = [];
  const d = (klass: string, at: string, karta: unknown, up: unknown): void => void out.push({ op: "components", caseId, klass, at, karta, upstream: up });
  for (const u of upstream.components ?? []) {
    const k = r.components.find((c) => c.name === u.name);
    if (!k) continue; // Karta could not evaluate the object at all (reported elsewhere)
    const upErr = upstreamComponentError(u);
    const kErr = kartaComponentErrors(r, k);
    if (upErr !== undefined || kErr.length > 0) {
      if (upErr === undefined) d("components/error-karta-only", u.name, kErr.map((x) => x.message), upstreamSummary(u));
      else if (kErr.length === 0) d("components/error-upstream-only", u.name, k.instances, upErr);
      continue; // both fail: agreed
    }
    const upIds = u.instanceIds?.value ?? [];
    const kIds = k.instances.map((i) => i.id);
    if (!isDeepStrictEqual(upIds, kIds)) {
      d("components/instanceIds", u.name, kIds, upIds);
      continue;
    }
    for (const i of k.instances) {
      const at = `${u.name}[${JSON.stringify(i.id)}]`;
      const upScale = u.scale?.value ? u.scale.value[i.id] : undefined;
      if (!same(i.scale, upScale)) d("components/scale", at, i.scale, upScale);
      const ex = u.extracted?.value?.[i.id] ?? {};
      const key = (kind: string): unknown => canon.get(`${u.name}/${i.id}/${kind}`);
      // Whether there is a template at all, which the canonical form (empties left out) cannot tell: a spec
      // path yielding null is an empty template upstream.
      const upTemplate = ex.podTemplateSpec ?? ex.podSpec;
      if (upTemplate !== undefined && i.podTemplate === undefined) d("components/podTemplate", at, i.podTemplate, upTemplate);
      if (ex.podTemplateSpec !== undefined) {
        const kt = i.podTemplate ? key("PodTemplateSpec") : undefined;
        if (!same(kt, ex.podTemplateSpec)) d("components/podTemplateSpec", at, kt, ex.podTemplateSpec);
      }
      if (ex.podSpec !== undefined) {
        const ks = i.podTemplate ? key("PodSpec") : undefined;
        if (!same(ks, ex.podSpec)) d("components/podSpec", at, ks, ex.podSpec);
      }
      if (ex.metadata !== undefined) {
        const km = i.podTemplate ? key("ObjectMeta") : undefined;
        if (!same(km, ex.metadata)) d("components/metadata", at, km, ex.metadata);
      }
      if (ex.fragmentedPodSpec !== undefined) {
        for (const [field, karta, up] of fragmentFields(i.podTemplate ? (key("PodTemplateSpec") as any) : undefined, ex.fragmentedPodSpec)) {
          if (!same(karta, up)) d(`components/fragmentedPodSpec.${field}`, at, karta, up);
        }
      }
    }
  }
  return out;
}

function upstreamSummary(u: UpstreamComponent): unknown {
  return { instanceIds: u.instanceIds?.value, scale: u.scale?.value };
}

/**
 * The fragments upstream extracted, each beside the field of Karta's (canonical) pod template that
 * holds it: labels and annotations in the metadata; scheduler name, priority class, affinities and
 * resource claims in the spec; a container list as the containers (when the fragment is a list alone);
 * a single container among them by name; resources and image on the first container.
 */
function fragmentFields(t: any, f: Record<string, any>): [string, unknown, unknown][] {
  const spec = t?.spec ?? {};
  const meta = t?.metadata ?? {};
  const containers: any[] = spec.containers ?? [];
  const out: [string, unknown, unknown][] = [
    ["labels", meta.labels, f.labels],
    ["annotations", meta.annotations, f.annotations],
    ["schedulerName", spec.schedulerName, f.schedulerName],
    ["priorityClassName", spec.priorityClassName, f.priorityClassName],
    ["nodeAffinity", spec.affinity?.nodeAffinity, f.nodeAffinity],
    ["podAffinity", spec.affinity?.podAffinity, f.podAffinity],
    ["resourceClaims", spec.resourceClaims, f.resourceClaims],
  ];
  if (f.containers && !f.container) out.push(["containers", containers, f.containers]);
  if (f.container) out.push(["container", containers.find((c) => c.name === f.container.name), f.container]);
  if (f.resources && !f.containers && !f.container) out.push(["resources", containers[0]?.resources, f.resources]);
  if (f.image && !f.containers && !f.container) out.push(["image", containers[0]?.image, f.image]);
  return out;
}

// -------------------------------------------------------------------------------------------- status

export function compareStatus(caseId: string, r: Interpretation, upstream: { status?: { phase?: string; matchedStatuses?: string[] }; error?: string; objectError?: string }, rootPath: string): Difference[] {
  const out: Difference[] = [];
  const d = (klass: string, karta: unknown, up: unknown): void => void out.push({ op: "status", caseId, klass, at: "status", karta, upstream: up });
  const kErr = errorsOf(r).filter((x) => under(x, `${rootPath}.statusDefinition`));
  if (upstream.error !== undefined || kErr.length > 0) {
    if (upstream.error === undefined) d("status/error-karta-only", kErr.map((x) => x.message), upstream.status?.matchedStatuses);
    else if (kErr.length === 0) d("status/error-upstream-only", r.status.statuses, upstream.error);
    return out;
  }
  const up = upstream.status?.matchedStatuses ?? [];
  if (!isDeepStrictEqual(r.status.statuses, up)) d("status/statuses", r.status.statuses, up);
  // Exactly: "" (a phase read as null) is not an absent phase.
  if (r.status.phase !== upstream.status?.phase) d("status/phase", r.status.phase, upstream.status?.phase);
  return out;
}

// ---------------------------------------------------------------------------------------------- pods

export interface UpstreamPod {
  name: string;
  decodeError?: string;
  component?: string;
  componentError?: string;
  instance?: string;
  instanceError?: string;
  effective?: { component: string; podGroup: string; groupByKeyPaths: string[] | null; filters: string[] | null };
  effectiveError?: string;
  groupKeys?: Outcome<string[]>;
  subtreeScale?: Outcome<number>;
  instanceSubtreeScale?: Outcome<number>;
}

export function comparePods(caseId: string, r: Interpretation, upstream: { pods?: UpstreamPod[]; objectError?: string; summaryError?: string }): Difference[] {
  const out: Difference[] = [];
  const d = (klass: string, at: string, karta: unknown, up: unknown): void => void out.push({ op: "pods", caseId, klass, at, karta, upstream: up });
  (upstream.pods ?? []).forEach((u, index) => {
    const k = r.pods.find((p) => p.index === index);
    if (!k || u.decodeError !== undefined) return;
    const at = u.name;
    if (u.componentError !== undefined) {
      if (k.component !== undefined) d("pods/component-karta-only", at, k.component, u.componentError);
      return;
    }
    if (k.component !== u.component) {
      d(k.component === undefined ? "pods/component-upstream-only" : "pods/component", at, { component: k.component, reason: k.reason }, u.component);
      return;
    }
    if (u.instanceError !== undefined) {
      if (k.instance !== undefined) d("pods/instance-karta-only", at, k.instance, u.instanceError);
      return;
    }
    if (k.instance !== u.instance) d("pods/instance", at, { instance: k.instance, reason: k.reason }, u.instance ?? null);
  });
  return out;
}

// ---------------------------------------------------------------------------------------------- gang

export interface UpstreamGang {
  components?: { name: string; subtreeScale: Outcome<number>; instances?: Record<string, Outcome<number>> }[];
  pods?: UpstreamPod[];
  objectError?: string;
  summaryError?: string;
}

/**
 * Subtree scales per component (whole, and per instance), and, for the older podGroups form, each pod's
 * group membership. How KAI's Karta grouper composes the library's answers into a group (reference/
 * kai-podgrouper.md; src/interpret/groups.ts): the pod-group member is GetPodGroupingEffectiveComponent's,
 * the group key ExtractGroupKeys' of the member's groupByKeyPaths, and minMember CalculateSubtreeScale of
 * the member component, of the pod's instance when the member is the pod's own component. A pod for which
 * any of these fails, or that no member takes, is in no group.
 */
export function compareGang(
  caseId: string,
  r: Interpretation,
  upstream: UpstreamGang,
  kartaScale: (component: string, instance: string | undefined) => { ok: true; value: number } | { ok: false; error: string },
  olderForm: boolean,
): Difference[] {
  const out: Difference[] = [];
  const d = (klass: string, at: string, karta: unknown, up: unknown): void => void out.push({ op: "gang", caseId, klass, at, karta, upstream: up });
  const outcome = (s: ReturnType<typeof kartaScale>): Outcome<number> => (s.ok ? { value: s.value } : { error: s.error });
  const cmp = (klass: string, at: string, k: Outcome<number>, u: Outcome<number>): void => {
    if (k.error !== undefined || u.error !== undefined) {
      if (k.error === undefined) d(`${klass}-error-upstream-only`, at, k.value, u.error);
      else if (u.error === undefined) d(`${klass}-error-karta-only`, at, k.error, u.value);
      return;
    }
    if ((k.value ?? 0) !== (u.value ?? 0)) d(klass, at, k.value, u.value);
  };
  for (const u of upstream.components ?? []) {
    cmp("gang/subtreeScale", u.name, outcome(kartaScale(u.name, undefined)), u.subtreeScale);
    for (const [id, s] of Object.entries(u.instances ?? {})) cmp("gang/instanceSubtreeScale", `${u.name}[${JSON.stringify(id)}]`, outcome(kartaScale(u.name, id)), s);
  }
  if (!olderForm) return out;
  const memberOf = new Map<string, { group: Interpretation["groups"][number]; member: Interpretation["groups"][number]["members"][number] }>();
  for (const g of r.groups) for (const m of g.members) memberOf.set(m.pod, { group: g, member: m });
  for (const u of upstream.pods ?? []) {
    if (u.decodeError !== undefined) continue;
    const k = memberOf.get(u.name);
    const scale = u.effective && u.effective.component === u.component && u.instance !== undefined ? u.instanceSubtreeScale : u.subtreeScale;
    const failed = u.componentError ?? u.instanceError ?? u.effectiveError ?? u.groupKeys?.error ?? scale?.error;
    if (failed !== undefined || !u.effective) {
      if (k) d(failed !== undefined ? "gang/member-karta-only" : "gang/member-karta-only-no-candidate", u.name, { group: k.group.name, minMember: k.member.minMember }, failed ?? null);
      continue;
    }
    const upMember = { definition: u.effective.podGroup, memberComponent: u.effective.component, keys: u.groupKeys?.value ?? [], minMember: scale?.value ?? 0 };
    if (!k) {
      d("gang/member-upstream-only", u.name, null, upMember);
      continue;
    }
    const kMember = { definition: k.group.definition, memberComponent: k.member.memberComponent, keys: k.group.keys ?? [], minMember: k.member.minMember };
    if (kMember.definition !== upMember.definition || kMember.memberComponent !== upMember.memberComponent) d("gang/member-definition", u.name, kMember, upMember);
    else if (!isDeepStrictEqual(kMember.keys, upMember.keys)) d("gang/member-keys", u.name, kMember.keys, upMember.keys);
    else if (kMember.minMember !== upMember.minMember) d("gang/member-minMember", u.name, kMember.minMember, upMember.minMember);
  }
  return out;
}
