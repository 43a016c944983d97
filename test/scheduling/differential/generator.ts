/**
 * A seeded generator of differential cases: WorkloadItem trees of depth 1 to 3 with every building block
 * (valid and not: unions with no or two members, counts around the minimum, 0 to 6 resource claims,
 * label keys and names at their length limits, in ASCII and multi-byte UTF-8), allow-lists, callbacks,
 * updates against old trees (unchanged, changed, children added, removed or moved), the calls on a
 * builder (before and after the build, templates found and not), Workloads a builder only reads, names
 * at the length limits, and Jobs to compile and to validate (created and updated).
 */
import type { Workload } from "../../../src/scheduling/index.js";
import type { CallbackJSON, Case, ConfigJSON, ItemJSON, NameRequest, OptionsJSON, Step } from "./cases.js";
import { jobObject } from "./upstream.js";
import { prng } from "../../support/random.js";

class Gen {
  constructor(private readonly rnd: () => number) {}
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.rnd() * (hi - lo + 1));
  }
  chance(p: number): boolean {
    return this.rnd() < p;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.rnd() * xs.length)]!;
  }
  /** A string of n characters from the alphabet. */
  chars(n: number, alphabet: string): string {
    const cs = [...alphabet];
    let s = "";
    for (let i = 0; i < n; i++) s += this.pick(cs);
    return s;
  }
}

const LOWER = "abcdefghijklmnopqrstuvwxyz0123456789";
const MULTI = ["é", "ü", "中", "ß", "😀", "ø"];

/** A name around the DNS-label limit (63 bytes), sometimes invalid: upper case, dots, multi-byte characters, too long. */
function labelName(g: Gen): string {
  switch (g.int(0, 9)) {
    case 0:
      return g.chars(g.pick([62, 63, 64]), LOWER).replace(/^./, "a").replace(/.$/, "z");
    case 1: {
      // 63 bytes or just over, with multi-byte characters (fewer characters than bytes).
      const m = g.pick(MULTI);
      const bytes = Buffer.byteLength(m);
      const chars = Math.floor(g.pick([61, 63, 64]) / bytes);
      return `a${m.repeat(Math.max(1, chars - 2))}z`;
    }
    case 2:
      return g.pick(["Trainer_0", "has.dot", "-lead", "trail-", "UPPER", "a b"]);
    case 3:
      return `w${g.pick(MULTI)}rk`;
    default:
      return g.pick(["worker", "ps", "driver", "leader", "eval", "rollout", "gpu-0", "x"]);
  }
}

/** A label key: valid, with a prefix, too long in a part, or malformed. */
function labelKey(g: Gen): string {
  switch (g.int(0, 11)) {
    case 0:
      return "";
    case 1:
      return "rack id";
    case 2:
      return "a/b/c";
    case 3:
      return `/${g.chars(3, LOWER)}`;
    case 4:
      return `example.com/`;
    case 5:
      return `${g.chars(g.pick([63, 64]), LOWER)}`;
    case 6:
      return `${"p".repeat(g.pick([253, 254]))}/zone`;
    case 7:
      return `topology.kubernetes.io/z${g.pick(MULTI)}ne`;
    case 8:
      return `Ex_ample.com/zone`;
    default:
      return g.pick(["topology.kubernetes.io/zone", "topology.kubernetes.io/rack", "kubernetes.io/hostname", "zone", "cloud.example.com/block"]);
  }
}

/** A long name (DNS subdomain, 253 bytes) at or around its limit, sometimes invalid. */
function subdomainName(g: Gen): string {
  switch (g.int(0, 6)) {
    case 0:
      return `${g.chars(126, LOWER)}.${g.chars(g.pick([125, 126, 127]), LOWER)}`.replace(/^./, "a").replace(/.$/, "z");
    case 1:
      return `claim-${g.pick(MULTI)}`;
    case 2:
      return g.pick(["Bad_Name", "has..dots", "-x", ""]);
    default:
      return g.pick(["shared-gpu", "h100-x8", "nvlink.domain", "rdma"]);
  }
}

type Claim = { name: string; resourceClaimName?: string; resourceClaimTemplateName?: string };

function claims(g: Gen): Claim[] {
  const n = g.pick([0, 0, 1, 1, 2, 3, 4, 5, 6]);
  const out: Claim[] = [];
  for (let i = 0; i < n; i++) {
    const c: Claim = {
      name: g.chance(0.15) ? (out[0]?.name ?? "gpu") : g.chance(0.2) ? labelName(g) : g.chance(0.05) ? "" : `claim-${i}`,
    };
    const src = g.int(0, 9);
    if (src <= 3 || src === 8) c.resourceClaimName = subdomainName(g);
    if (src >= 4) c.resourceClaimTemplateName = subdomainName(g);
    out.push(c);
  }
  return out;
}

type Input = NonNullable<ItemJSON["input"]>;

function policyBlock(g: Gen, composite: boolean): Record<string, unknown> {
  const count = (): number | undefined => (g.chance(0.25) ? undefined : g.pick([-1, 0, 1, 1, 2, 3, 4, 8, 16]));
  const gang = (): Record<string, number> => {
    const c = count();
    if (c === undefined) return {};
    return composite ? { minGroupCount: c } : { minCount: c };
  };
  switch (g.int(0, 9)) {
    case 0:
      return {};
    case 1:
      return { basic: {}, gang: gang() };
    case 2:
    case 3:
      return { basic: {} };
    default:
      return { gang: gang() };
  }
}

function modeBlock(g: Gen): Record<string, unknown> {
  return g.pick([{}, { single: {}, all: {} }, { single: {} }, { all: {} }, { all: {} }]);
}

function topologyBlock(g: Gen): { topology?: { key: string }[] } {
  const n = g.pick([0, 1, 1, 1, 2]);
  if (n === 0 && g.chance(0.5)) return {};
  return { topology: Array.from({ length: n }, () => ({ key: labelKey(g) })) };
}

function pathElements(g: Gen, name: string): string[] | undefined {
  if (g.chance(0.04)) return g.pick([[""], ["", name], [name, ""]]);
  return g.chance(0.75) ? [name] : g.chance(0.5) ? undefined : ["x", name];
}

function input(g: Gen, composite: boolean): Input {
  const inp: Input = {};
  const side = composite ? "compositePodGroupData" : "podGroupData";
  const other = composite ? "podGroupData" : "compositePodGroupData";
  if (g.chance(0.8)) inp.policy = { [side]: policyBlock(g, composite), pathElements: pathElements(g, "schedulingPolicy") };
  if (g.chance(0.45)) inp.constraints = { [side]: topologyBlock(g), pathElements: pathElements(g, "schedulingConstraints") };
  if (g.chance(0.5)) inp.disruptionMode = { [side]: modeBlock(g), pathElements: pathElements(g, "disruptionMode") };
  if (!composite && g.chance(0.45)) inp.resourceClaims = { podGroupData: claims(g), pathElements: pathElements(g, "resourceClaims") };
  // Rarely the block of the other level (the input union Validate and BuildWorkload refuse).
  if (g.chance(0.04)) inp.policy = { ...(inp.policy ?? {}), [other]: policyBlock(g, !composite) };
  if (g.chance(0.03)) inp.disruptionMode = { ...(inp.disruptionMode ?? {}), [other]: { single: {} } };
  if (composite && g.chance(0.03)) inp.resourceClaims = { podGroupData: [{ name: "gpu", resourceClaimName: "x" }] };
  for (const k of Object.keys(inp) as (keyof Input)[]) {
    const b = inp[k] as Record<string, unknown>;
    if (b.pathElements === undefined) delete b.pathElements;
  }
  return inp;
}

function defaultConfig(g: Gen): ConfigJSON | undefined {
  if (g.chance(0.3)) return undefined;
  const cfg: ConfigJSON = {};
  const p = g.int(0, 5);
  if (p <= 2) cfg.policy = { basic: {} };
  else if (p === 3) cfg.policy = { gang: { minCount: g.pick([1, 2, 4]) } };
  else if (p === 4) cfg.policy = { gang: {} };
  if (g.chance(0.2)) cfg.disruptionMode = g.pick([{ single: {} }, { all: {} }]);
  if (g.chance(0.15)) cfg.constraints = { topology: [{ key: "topology.kubernetes.io/zone" }] };
  if (g.chance(0.15)) cfg.resourceClaims = [{ name: "default-claim", resourceClaimTemplateName: "tpl" }];
  if (g.chance(0.3)) cfg.priorityClassName = g.pick(["high", "training-high", "system-node-critical"]);
  return cfg;
}

function callbacks(g: Gen): (CallbackJSON | null)[] | undefined {
  if (g.chance(0.35)) return undefined;
  const out: (CallbackJSON | null)[] = [];
  for (let i = g.int(1, 2); i > 0; i--) {
    out.push(
      g.pick<CallbackJSON | null>([
        { defaultGangMinCount: g.pick([1, 2, 4, 8]) },
        { job: true, jobParallelism: g.pick([0, 1, 3, 8]) },
        { job: true },
        { multiplyMinCount: 2 },
        { mark: `cb-${i}` },
        { setPriorityClassName: "from-callback" },
        { setDisruptionMode: g.pick(["single", "all", "none"] as const) },
        { setPolicy: g.pick(["basic", "gang", "both", "none"] as const) },
        { setMinCount: g.pick([0, 3]) },
        null,
      ]),
    );
  }
  return out;
}

interface TreeOptions {
  depth: number;
  names: { next: number };
}

/** A tree `depth` levels deep (1: a leaf). Names are unique except when the case asks otherwise. */
function tree(g: Gen, o: TreeOptions, level = 1, at = "spec"): ItemJSON {
  const composite = level < o.depth;
  const name = g.chance(0.08) ? labelName(g) : `${composite ? "group" : "worker"}-${o.names.next++}`;
  const item: ItemJSON = { name };
  if (g.chance(0.85)) item.path = g.chance(0.05) ? "" : `${at}.scheduling`;
  const dc = defaultConfig(g);
  if (dc !== undefined) item.defaultConfig = dc;
  item.input = input(g, composite);
  const cbs = callbacks(g);
  if (cbs !== undefined) item.callbacks = cbs;
  if (composite) {
    const n = g.int(1, 3);
    item.children = Array.from({ length: n }, (_, i) => {
      const childDepth = g.chance(0.6) ? level + 1 : o.depth;
      return tree(g, { ...o, depth: Math.max(childDepth, level + 1) }, level + 1, `${at}.groups[${i}]`);
    });
  }
  return item;
}

const OWNERS = [
  { apiVersion: "jobset.x-k8s.io/v1alpha2", kind: "JobSet", name: "rl-pipeline", uid: "7d1e2f3a", controller: true, blockOwnerDeletion: true },
  { apiVersion: "batch/v1", kind: "Job", name: "trainer", uid: "job-uid" },
  { apiVersion: "v1", kind: "ReplicationController", name: "rc", uid: "rc-uid" },
];

function options(g: Gen): OptionsJSON {
  const o: OptionsJSON = {};
  if (g.chance(0.9)) o.name = g.pick(["rl-pipeline-wl", "wl", ""]);
  if (g.chance(0.8)) o.namespace = g.pick(["ml-training", "ns", ""]);
  const owner = g.int(0, 19);
  if (owner === 0) o.owner = null;
  else if (owner === 1) o.owner = { apiVersion: g.pick(["a/b/c", "", "/"]), kind: "Thing", name: "t", uid: "u" };
  else if (owner === 2) o.owner = { apiVersion: "apps/v1", kind: "", name: "" } as never;
  else o.owner = g.pick(OWNERS);
  const subset = <T>(all: T[]): T[] => (g.chance(0.75) ? all : all.filter(() => g.chance(0.5)));
  o.allowedPolicies = subset(["Basic", "Gang"]);
  o.allowedDisruptionModes = subset(["Single", "All"]);
  if (g.chance(0.2)) o.disableDeclarativeValidation = true;
  return o;
}

function clone<T>(x: T): T {
  return structuredClone(x);
}

function allItems(root: ItemJSON): ItemJSON[] {
  const out: ItemJSON[] = [root];
  for (const c of root.children ?? []) if (c) out.push(...allItems(c));
  return out;
}

/** The previous tree of an update: the same, or one change away. */
function oldTree(g: Gen, root: ItemJSON): ItemJSON {
  const old = clone(root);
  const items = allItems(old);
  const target = g.pick(items);
  switch (g.int(0, 9)) {
    case 0:
      break; // unchanged
    case 1: {
      // Another policy, count, or no policy at all.
      const composite = (target.children?.length ?? 0) > 0;
      const side = composite ? "compositePodGroupData" : "podGroupData";
      if (g.chance(0.3)) delete target.input?.policy;
      else target.input = { ...(target.input ?? {}), policy: { [side]: policyBlock(g, composite), pathElements: ["schedulingPolicy"] } };
      break;
    }
    case 2:
      if (target.input) delete target.input.constraints;
      else target.input = { constraints: { podGroupData: { topology: [{ key: "zone" }] } } };
      break;
    case 3:
      target.input = { ...(target.input ?? {}), disruptionMode: { [(target.children?.length ?? 0) > 0 ? "compositePodGroupData" : "podGroupData"]: modeBlock(g) } };
      break;
    case 4:
      if ((target.children?.length ?? 0) === 0) target.input = { ...(target.input ?? {}), resourceClaims: { podGroupData: claims(g) } };
      break;
    case 5:
      // A child the new tree has is missing from the old one (it was added).
      if ((old.children?.length ?? 0) > 1) old.children!.pop();
      break;
    case 6:
      // The old tree had a child the new one lacks (it was removed).
      if (old.children) old.children.push({ name: "retired", input: { policy: { podGroupData: { gang: { minCount: 0 } } } } });
      break;
    case 7:
      // A child moved one level down.
      if (old.children && old.children[0]) old.children = [{ name: "mid", children: old.children }];
      break;
    case 8:
      if (g.chance(0.3)) old.name = `${old.name}-old`;
      break;
    default:
      if (target.input?.resourceClaims?.podGroupData?.[0]) target.input.resourceClaims.podGroupData[0].resourceClaimName = "changed";
  }
  return old;
}

/** Template names of a built tree by level: top leaves, nested leaves, top composites, nested composites. */
function templateNames(root: ItemJSON): { topLeaf: string[]; nestedLeaf: string[]; topComposite: string[]; nestedComposite: string[] } {
  const out = { topLeaf: [] as string[], nestedLeaf: [] as string[], topComposite: [] as string[], nestedComposite: [] as string[] };
  const walk = (i: ItemJSON, top: boolean) => {
    const composite = (i.children?.length ?? 0) > 0;
    (composite ? (top ? out.topComposite : out.nestedComposite) : top ? out.topLeaf : out.nestedLeaf).push(i.name);
    for (const c of i.children ?? []) if (c) walk(c, false);
  };
  walk(root, true);
  return out;
}

function builderCases(g: Gen, n: number, seed: number): Case[] {
  const out: Case[] = [];
  for (let i = 0; i < n; i++) {
    const depth = g.pick([1, 1, 2, 2, 3]);
    const root = tree(g, { depth, names: { next: 0 } });
    // Now and then a tree the builder refuses: a repeated or empty name, a nil child.
    const r = g.int(0, 29);
    if (r === 0 && root.children?.[0]) root.children.push(clone(root.children[0]));
    if (r === 1 && root.children?.[0]) root.children[0].name = "";
    if (r === 2 && root.children) root.children.push(null);
    if (r === 3) root.name = "";
    const opts = options(g);
    const kind = i % 4;
    const id = `generated/${seed}/builder/${i}`;
    const source = `generator seed ${seed} case ${i}`;
    if (kind === 0 || kind === 1) {
      const steps: Step[] = [{ do: "validate" }];
      if (kind === 1 && r !== 2) steps[0] = { do: "validate", oldRoot: oldTree(g, root) };
      out.push({ id, fn: "Validate", source, op: "builder", root, options: opts, steps });
    } else if (kind === 2) {
      out.push({ id, fn: "BuildWorkload", source, op: "builder", root, options: opts, steps: [{ do: "build" }, { do: "build" }] });
    } else {
      const names = templateNames(root);
      const steps: Step[] = [];
      if (g.chance(0.1)) steps.push({ do: "newPodGroup", name: "early", template: root.name });
      steps.push({ do: "build" });
      const pick = (xs: string[], fallback: string) => (xs.length > 0 ? g.pick(xs) : fallback);
      for (let k = g.int(1, 3); k > 0; k--) {
        const which = g.int(0, 5);
        const groupName = g.pick(["pg", `${opts.name ?? "wl"}-pg-${k}`, ""]);
        if (which === 0) steps.push({ do: "newPodGroup", name: groupName, template: pick(names.topLeaf, root.name) });
        else if (which === 1) steps.push({ do: "newPodGroup", name: groupName, template: pick(names.nestedLeaf, "missing") });
        else if (which === 2) steps.push({ do: "newCompositePodGroup", name: groupName, template: pick(names.topComposite, root.name) });
        else if (which === 3) steps.push({ do: "newCompositePodGroup", name: groupName, template: pick(names.nestedComposite, "missing") });
        else if (which === 4) steps.push({ do: "newCompositePodGroup", name: groupName, template: pick(names.topLeaf, "missing") });
        else steps.push({ do: "newPodGroup", name: groupName, template: "missing" });
      }
      const fn = steps.some((s) => s.do === "newCompositePodGroup") ? "NewCompositePodGroup" : "NewPodGroup";
      out.push({ id, fn, source, op: "builder", root, options: opts, steps });
    }
  }
  return out;
}

/** A Workload as a parent controller (or a person) wrote it: every field a template has. */
function existingWorkload(g: Gen): Workload {
  const leaf = (name: string) => {
    const t: Record<string, unknown> = { name, schedulingPolicy: g.chance(0.5) ? { basic: {} } : { gang: { minCount: g.int(1, 8) } } };
    if (g.chance(0.4)) t.schedulingConstraints = g.chance(0.2) ? {} : { topology: [{ key: labelKey(g) }] };
    if (g.chance(0.05)) delete t.schedulingPolicy;
    if (g.chance(0.4)) t.disruptionMode = g.pick([{ single: {} }, { all: {} }]);
    if (g.chance(0.4)) t.resourceClaims = claims(g);
    if (g.chance(0.5)) t.priorityClassName = g.pick(["high", "low"]);
    if (g.chance(0.4)) t.priority = g.pick([0, 1000, 2_000_000_000]);
    if (g.chance(0.4)) t.preemptionPolicy = g.pick(["Never", "PreemptLowerPriority"]);
    return t;
  };
  const composite = (name: string, depth: number): Record<string, unknown> => {
    const t = leaf(name);
    delete t.resourceClaims;
    t.schedulingPolicy = g.chance(0.5) ? { basic: {} } : { gang: { minGroupCount: g.int(1, 4) } };
    t.podGroupTemplates = Array.from({ length: g.int(0, 2) }, (_, i) => leaf(`${name}-leaf-${i}`));
    if (depth > 1) t.compositePodGroupTemplates = Array.from({ length: g.int(1, 2) }, (_, i) => composite(`${name}-inner-${i}`, depth - 1));
    return t;
  };
  const meta: Record<string, unknown> = g.chance(0.1) ? {} : { name: g.pick(["parent-wl", "trainer-wl"]) };
  if (g.chance(0.8)) meta.namespace = "ml";
  if (g.chance(0.5)) meta.uid = "wl-uid";
  const spec: Record<string, unknown> = {};
  if (g.chance(0.6)) spec.podGroupTemplates = Array.from({ length: g.int(1, 3) }, (_, i) => leaf(`pgt-${i}`));
  if (g.chance(0.6)) spec.compositePodGroupTemplates = [composite("cpgt-0", g.int(1, 3))];
  return { metadata: meta, spec } as unknown as Workload;
}

function existingCases(g: Gen, n: number, seed: number): Case[] {
  const out: Case[] = [];
  for (let i = 0; i < n; i++) {
    const existing = existingWorkload(g);
    const names: string[] = [];
    const walk = (list: unknown) => {
      for (const t of (list as { name: string; podGroupTemplates?: unknown; compositePodGroupTemplates?: unknown }[]) ?? []) {
        names.push(t.name);
        walk(t.podGroupTemplates);
        walk(t.compositePodGroupTemplates);
      }
    };
    walk(existing.spec.podGroupTemplates);
    walk(existing.spec.compositePodGroupTemplates);
    names.push("missing");
    const steps: Step[] = [];
    for (let k = g.int(1, 4); k > 0; k--) {
      const w = g.int(0, 5);
      if (w === 0) steps.push({ do: "build" });
      else if (w === 1) steps.push({ do: "validate" });
      else steps.push({ do: g.chance(0.5) ? "newPodGroup" : "newCompositePodGroup", name: `group-${k}`, template: g.pick(names) });
    }
    const opts: OptionsJSON = g.chance(0.8) ? { owner: g.pick(OWNERS) } : {};
    out.push({ id: `generated/${seed}/existing/${i}`, fn: "FromExistingWorkload", source: `generator seed ${seed} existing ${i}`, op: "builder", existing, options: opts, steps });
  }
  return out;
}

function resolveCases(g: Gen, n: number, seed: number): Case[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `generated/${seed}/resolve/${i}`,
    fn: "resolveSchedulingConfig" as const,
    source: `generator seed ${seed} resolve ${i}`,
    op: "resolve" as const,
    item: tree(g, { depth: g.pick([1, 2]), names: { next: 0 } }),
  }));
}

/** A name of n bytes (ASCII, or multi-byte characters so a cut can fall inside one). */
function bytesName(g: Gen, bytes: number): string {
  if (g.chance(0.5)) return g.chars(bytes, LOWER);
  const m = g.pick(MULTI);
  let s = "";
  while (Buffer.byteLength(s) + Buffer.byteLength(m) <= bytes) s += g.chance(0.5) ? m : g.pick([...LOWER]);
  while (Buffer.byteLength(s) < bytes) s += "a";
  return s;
}

function nameCases(g: Gen, n: number, seed: number): Case[] {
  const out: Case[] = [];
  for (let i = 0; i < n; i++) {
    const names: NameRequest[] = [];
    for (let k = 0; k < 6; k++) {
      const kind = g.int(0, 4);
      if (kind <= 1) {
        names.push({ kind: "workload", jobName: bytesName(g, g.pick([0, 1, 63, 241, 242, 243, 244, 245, 252, 253, 254, 300])), jobUID: g.pick(["", "uid-123", "0f5c7f64-8b1d-4a8e-9d0a-2b3c4d5e6f70", `${g.int(0, 1e9)}`]) });
      } else if (kind <= 3) {
        const sizes = [0, 1, 60, 119, 120, 121, 122, 200, 240, 250, 260];
        names.push({ kind: "podGroup", workloadName: bytesName(g, g.pick(sizes)), templateName: bytesName(g, g.pick(sizes)) });
      } else names.push({ kind: "template", jobName: bytesName(g, g.pick([0, 5, 57, 58, 63])) });
    }
    out.push({ id: `generated/${seed}/names/${i}`, fn: "naming", source: `generator seed ${seed} names ${i}`, op: "names", names });
  }
  return out;
}

/** spec.scheduling of a Job, valid or not. */
function jobScheduling(g: Gen, validOnly: boolean): Record<string, unknown> | undefined {
  if (g.chance(0.15)) return undefined;
  const s: Record<string, unknown> = {};
  if (g.chance(0.8)) {
    const p = validOnly ? g.pick([{ basic: {} }, { gang: {} }, { gang: { minCount: g.int(1, 4) } }]) : policyBlock(g, false);
    s.schedulingPolicy = p;
  }
  if (g.chance(0.35)) s.schedulingConstraints = validOnly ? { topology: [{ key: "topology.kubernetes.io/rack" }] } : topologyBlock(g);
  if (g.chance(0.4)) s.disruptionMode = validOnly ? g.pick([{ single: {} }, { all: {} }]) : modeBlock(g);
  if (g.chance(0.35)) s.resourceClaims = validOnly ? [{ name: "gpu", resourceClaimTemplateName: "h100" }] : claims(g);
  return s;
}

function uuid(g: Gen): string {
  const hex = (n: number) => g.chars(n, "0123456789abcdef");
  return `${hex(8)}-${hex(4)}-4${hex(3)}-${g.pick(["8", "9", "a", "b"])}${hex(3)}-${hex(12)}`;
}

function jobName(g: Gen): string {
  return g.pick(["trainer", "llm-pretrain", g.chars(g.pick([57, 58, 63]), LOWER).replace(/^./, "j").replace(/.$/, "b")]);
}

/**
 * Sometimes a Job that is not a root: its pods already naming a group, owned by a controller that did or
 * did not delegate its PodGroup (with the parent's Workload stored, or not yet, or another owner's).
 */
function ownership(g: Gen, job: Record<string, unknown>, c: Case, namespace: string): void {
  if (c.op !== "jobCompile") return;
  const meta = job.metadata as Record<string, unknown>;
  switch (g.int(0, 9)) {
    case 0:
      ((job.spec as { template: { spec: Record<string, unknown> } }).template.spec).schedulingGroup = { podGroupName: "chosen-by-hand" };
      return;
    case 1:
    case 2:
    case 3: {
      const parent = { apiVersion: "jobset.x-k8s.io/v1alpha2", kind: "JobSet", name: "pipeline", uid: uuid(g), controller: true, blockOwnerDeletion: true };
      meta.ownerReferences = [parent];
      const delegated = g.int(0, 4);
      if (delegated === 0) return;
      meta.annotations = { "scheduling.k8s.io/group-template-name": g.pick(["workers", "driver", "", "missing"]) };
      if (delegated === 1) return;
      const template = (name: string, gang: boolean) => ({ name, schedulingPolicy: gang ? { gang: { minCount: g.int(1, 4) } } : { basic: {} }, ...(g.chance(0.3) ? { priorityClassName: "high" } : {}) });
      c.parentWorkload = {
        apiVersion: "scheduling.k8s.io/v1beta1",
        kind: "Workload",
        // Sometimes in another namespace than the Job's, where the Job controller does not look.
        metadata: { name: "pipeline-wl", namespace: g.chance(0.15) ? "elsewhere" : namespace, uid: uuid(g) },
        spec: {
          controllerRef: delegated === 2 ? { apiGroup: "jobset.x-k8s.io", kind: "JobSet", name: "other" } : { apiGroup: "jobset.x-k8s.io", kind: "JobSet", name: "pipeline" },
          podGroupTemplates: [template("driver", false), template("workers", true)],
        },
      } as unknown as Workload;
      return;
    }
    default:
  }
}

function jobCases(g: Gen, n: number, seed: number): Case[] {
  const out: Case[] = [];
  for (let i = 0; i < n; i++) {
    const parallelism = g.chance(0.2) ? undefined : g.pick([0, 1, 2, 4, 8]);
    const name = jobName(g);
    // UIDs are the API server's UUIDs (the Job controller labels pods with them).
    const extra = { uid: uuid(g), namespace: g.pick(["default", "ml"]), ...(g.chance(0.3) ? { priorityClassName: "training-high" } : {}) };
    if (i % 2 === 0) {
      let sched = jobScheduling(g, true);
      // Keep a gang's minCount within parallelism: the API server would not store the Job otherwise.
      const gang = (sched?.schedulingPolicy as { gang?: { minCount?: number } } | undefined)?.gang;
      if (gang?.minCount !== undefined && gang.minCount > (parallelism ?? 1)) gang.minCount = Math.max(1, parallelism ?? 1);
      if ((sched?.schedulingPolicy as { basic?: object } | undefined)?.basic && (sched?.disruptionMode as { all?: object } | undefined)?.all) sched = { ...sched, disruptionMode: { single: {} } };
      const job = jobObject(name, parallelism, sched, extra);
      if (g.chance(0.2)) (job.spec as Record<string, unknown>).suspend = true;
      if (g.chance(0.2)) (job.spec as Record<string, unknown>).completions = g.int(1, 8);
      const c: Case = { id: `generated/${seed}/jobCompile/${i}`, fn: "Job compilation", source: `generator seed ${seed} jobCompile ${i}`, op: "jobCompile", job, workloadUID: "wl-uid" };
      ownership(g, job, c, extra.namespace);
      // Sometimes managed by the Job controller by name, or by another controller (which it leaves alone).
      if (g.chance(0.15)) (job.spec as Record<string, unknown>).managedBy = g.pick(["kubernetes.io/job-controller", "kueue.x-k8s.io/multikueue"]);
      out.push(c);
    } else {
      const job = jobObject(name, parallelism, jobScheduling(g, false), extra);
      const c: Case = { id: `generated/${seed}/jobValidate/${i}`, fn: "Job validation", source: `generator seed ${seed} jobValidate ${i}`, op: "jobValidate", job };
      if (g.chance(0.5)) {
        const oldSched = g.chance(0.4) ? structuredClone((job.spec as Record<string, unknown>).scheduling) : jobScheduling(g, g.chance(0.5));
        c.oldJob = jobObject(name, g.chance(0.7) ? parallelism : g.pick([1, 4, 8]), oldSched as Record<string, unknown> | undefined, extra);
      }
      out.push(c);
    }
  }
  return out;
}

/** The generated cases of one seed (about 700). */
export function generatedCases(seed: number): Case[] {
  const g = new Gen(prng(seed));
  return [
    ...builderCases(g, 360, seed),
    ...existingCases(g, 60, seed),
    ...resolveCases(g, 40, seed),
    ...nameCases(g, 60, seed),
    ...jobCases(g, 180, seed),
  ];
}
