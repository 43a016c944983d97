/**
 * Our validation against the real kube-apiserver's: every case of the object validation tests
 * (test/scheduling/validation-cases.ts) and of the builder's tests (test/scheduling/builder-cases.ts) is
 * sent to the server, on create and, for updates, as a replacement of the old object; the server's field
 * errors (path, type and message) must be the ones our validator gives. The table of disagreements is
 * printed at the end and must be empty.
 */
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { KubernetesObject } from "@kubernetes/client-node";
import { newBuilder, type CompositePodGroupTemplate, type PodGroupTemplate, type Workload, type WorkloadItem } from "../../src/scheduling/index.js";
import { validateCompositePodGroup, validatePodGroup, validateWorkload } from "../../src/scheduling/index.js";
import { createCases, updateCases } from "../scheduling/builder-cases.js";
import { allOptions, render } from "../scheduling/fixtures.js";
import { groupCases, workloadCreateCases, workloadUpdateCases, type SchedulingObject } from "../scheduling/validation-cases.js";
import { attempt, inNamespace, testCluster, testNamespace, type ServerResult, type TestCluster } from "../support/cluster.js";

const cluster = await testCluster();
const skip = typeof cluster === "string" ? cluster : false;

interface Row {
  case: string;
  ours: string[];
  server: string[];
}
const disagreements: Row[] = [];
const notComparable: { case: string; why: string }[] = [];
let compared = 0;

/** A refused request's field errors rendered as `(*field.Error).Error()` renders them: `path: body`. */
function serverErrors(r: ServerResult<unknown>): string[] {
  if (r.ok) return [];
  if (r.causes.length === 0) return [`<no field>: ${r.reason}: ${r.message}`];
  return r.causes.map((c) => `${c.field}: ${c.message}`);
}

const TYPES = ["Not found", "Required value", "Duplicate value", "Invalid value", "Unsupported value", "Forbidden", "Too long", "Too many", "Internal error"];

/** `path: type` of a rendered field error: what must agree (the value shown and the wording may differ). */
function pathAndType(e: string): string {
  for (const t of TYPES) {
    const i = e.indexOf(`: ${t}`);
    if (i >= 0) return e.slice(0, i + 2 + t.length);
  }
  return e;
}

const wordings: { case: string; ours: string; server: string }[] = [];

/** Our errors and the server's agree on every field path and error type; differing wording is listed, not failed. */
function record(name: string, ours: string[], server: string[]): void {
  compared++;
  const a = [...new Set(ours.map(pathAndType))].sort();
  const b = [...new Set(server.map(pathAndType))].sort();
  if (JSON.stringify(a) !== JSON.stringify(b)) disagreements.push({ case: name, ours: [...ours].sort(), server: [...server].sort() });
  else {
    for (const o of ours) {
      const twin = server.find((x) => pathAndType(x) === pathAndType(o));
      if (twin !== undefined && twin !== o) wordings.push({ case: name, ours: o, server: twin });
    }
  }
  assert.deepEqual(b, a, `the server's field errors differ from ours\nours:   ${JSON.stringify(ours)}\nserver: ${JSON.stringify(server)}`);
}

/**
 * The builder validates the controller's input (`spec.replicatedJobs[1].scheduling`), the server the
 * Workload made from it: whatever the server refuses, the builder must refuse at the same path; what the
 * builder refuses and the server accepts must be an input-level or controller-policy check, which the
 * emitted Workload (valid for our object validator too, checked separately) cannot show.
 */
function recordBuilder(name: string, builder: string[], serverMapped: string[]): void {
  if (builder.some((e) => e.includes(": Internal error: "))) {
    // A caller bug (trees that do not pair up), not a user error: nothing the server could agree with.
    notComparable.push({ case: name, why: `the builder reports a caller bug: ${builder.join("; ")}` });
    return;
  }
  compared++;
  const builderPaths = builder.map((e) => e.slice(0, e.indexOf(": ")));
  // At the same path, or at the input field that holds it (the builder reports a block added after
  // creation at the block, the server at the member it sees change).
  const covered = (p: string): boolean => builderPaths.some((b) => p === b || p.startsWith(`${b}.`) || p.startsWith(`${b}[`));
  const missed = serverMapped.filter((e) => !covered(e.slice(0, e.indexOf(": "))));
  if (missed.length > 0) disagreements.push({ case: name, ours: [...builder].sort(), server: [...serverMapped].sort() });
  else if (serverMapped.length === 0 && builder.length > 0) inputOnly.push({ case: name, errors: builder });
  assert.deepEqual(missed, [], `the server refuses what the builder lets through, or at another path\nbuilder: ${JSON.stringify(builder)}\nserver: ${JSON.stringify(serverMapped)}`);
}
const inputOnly: { case: string; errors: string[] }[] = [];

function ourErrors(o: SchedulingObject, old?: SchedulingObject): string[] {
  if (o.kind === "Workload") return render(validateWorkload(o, old as Workload | undefined));
  if (o.kind === "PodGroup") return render(validatePodGroup(o, old as never));
  return render(validateCompositePodGroup(o, old as never));
}

async function create(c: TestCluster, o: SchedulingObject): Promise<ServerResult<KubernetesObject>> {
  return attempt(() => c.objects.create(o as unknown as KubernetesObject));
}

/** Creates `old`, then replaces it with `updated`: the answer to the replacement. */
async function update(c: TestCluster, name: string, old: SchedulingObject, updated: SchedulingObject): Promise<ServerResult<KubernetesObject> | undefined> {
  const created = await create(c, old);
  if (!created.ok) {
    notComparable.push({ case: name, why: `the server refuses the old object itself: ${serverErrors(created).join("; ")}` });
    return undefined;
  }
  const next = structuredClone(updated) as unknown as KubernetesObject & { spec: Record<string, unknown> };
  next.metadata = { ...next.metadata, resourceVersion: created.object.metadata!.resourceVersion! };
  // An update starts from the stored object: keep what admission set on create (the group's priority).
  const stored = (created.object as unknown as { spec?: Record<string, unknown> }).spec ?? {};
  if (old.kind !== "Workload" && next.spec.priority === undefined && stored.priority !== undefined && (old.spec as { priority?: unknown }).priority === undefined) next.spec.priority = stored.priority;
  return attempt(() => c.objects.replace(next));
}

/** Template name -> its path in the Workload (`spec.compositePodGroupTemplates[0].podGroupTemplates[1]`). */
function templatePaths(w: Workload): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (leaves: PodGroupTemplate[] | undefined, composites: CompositePodGroupTemplate[] | undefined, at: string): void => {
    leaves?.forEach((t, i) => out.set(t.name, `${at}.podGroupTemplates[${i}]`));
    composites?.forEach((t, i) => {
      const p = `${at}.compositePodGroupTemplates[${i}]`;
      out.set(t.name, p);
      walk(t.podGroupTemplates, t.compositePodGroupTemplates, p);
    });
  };
  walk(w.spec.podGroupTemplates, w.spec.compositePodGroupTemplates, "spec");
  return out;
}

/**
 * The builder reports at the item's path in the controller's object (`spec.replicatedJobs[1].scheduling`),
 * the server at the template's path in the Workload: rewrite the server's paths into the builder's. A
 * template's name is the item's name, so an error on `<template>.name` is the item's own.
 */
function toItemPaths(errors: string[], w: Workload, root: WorkloadItem): string[] {
  const items = new Map<string, string>();
  const walk = (i: WorkloadItem): void => {
    items.set(i.name, i.path ?? "");
    i.children?.forEach(walk);
  };
  walk(root);
  const prefixes = [...templatePaths(w)].map(([name, p]) => ({ p, item: items.get(name) })).sort((a, b) => b.p.length - a.p.length);
  return errors.map((e) => {
    const sep = e.indexOf(": ");
    const field = e.slice(0, sep);
    for (const { p, item } of prefixes) {
      if (item === undefined) continue;
      if (field === `${p}.name`) return `${item}${e.slice(sep)}`;
      if (field === p || field.startsWith(`${p}.`) || field.startsWith(`${p}[`)) return `${item}${field.slice(p.length)}${e.slice(sep)}`;
    }
    return e;
  });
}

/** Every error of the builder, as the server always validates whatever the controller's options say. */
function allErrors(root: WorkloadItem, options: ReturnType<typeof allOptions>, oldRoot?: WorkloadItem): string[] {
  return render(newBuilder(root, { ...options, disableDeclarativeValidation: false }).validate(oldRoot ? { oldRoot } : {}));
}

function built(root: WorkloadItem, options: ReturnType<typeof allOptions>, namespace: string): Workload | string {
  const r = newBuilder(root, { ...options, namespace }).buildWorkload();
  return r.ok ? r.value : r.error;
}

describe("our validation agrees with the real API server's", { skip }, () => {
  const c = cluster as TestCluster;

  after(() => {
    const lines = [`validation agreement: ${compared} cases compared with the API server, ${disagreements.length} disagreements`];
    for (const d of disagreements) lines.push(`  DISAGREE ${d.case}\n    ours:   ${JSON.stringify(d.ours)}\n    server: ${JSON.stringify(d.server)}`);
    for (const n of notComparable) lines.push(`  not comparable: ${n.case}: ${n.why}`);
    for (const i of inputOnly) lines.push(`  input-level or controller-policy only (the emitted Workload is valid): ${i.case}: ${i.errors.join("; ")}`);
    for (const w of wordings) lines.push(`  same path and type, other wording: ${w.case}\n    ours:   ${w.ours}\n    server: ${w.server}`);
    console.log(lines.join("\n"));
  });

  describe("Workload, PodGroup and CompositePodGroup objects", () => {
    for (const oc of [...workloadCreateCases, ...workloadUpdateCases, ...groupCases]) {
      test(oc.name, async (t) => {
        const ns = await testNamespace(t, c);
        const object = inNamespace(oc.object() as never, ns) as SchedulingObject;
        const old = oc.old ? (inNamespace(oc.old() as never, ns) as SchedulingObject) : undefined;
        assert.deepEqual(ourErrors(object, old), oc.want, "the unit test's expectation");
        const answer = old ? await update(c, oc.name, old, object) : await create(c, object);
        if (answer === undefined) return;
        record(oc.name, oc.want, serverErrors(answer));
      });
    }
  });

  describe("the Workloads the builder makes from its test trees", () => {
    for (const bc of createCases) {
      test(`create: ${bc.name}`, async (t) => {
        const ns = await testNamespace(t, c);
        const options = bc.options ?? allOptions();
        const w = built(bc.root, options, ns);
        if (typeof w === "string") {
          // The builder refuses to make a Workload at all (a caller bug such as duplicate names): nothing to send.
          notComparable.push({ case: `create: ${bc.name}`, why: `the builder makes no Workload: ${w}` });
          return;
        }
        const answer = await create(c, w);
        record(`create: ${bc.name} (the emitted Workload, our object validator)`, ourErrors(w), serverErrors(answer));
        recordBuilder(`create: ${bc.name}`, allErrors(bc.root, options), toItemPaths(serverErrors(answer), w, bc.root));
      });
    }
    for (const uc of updateCases) {
      test(`update: ${uc.name}`, async (t) => {
        const ns = await testNamespace(t, c);
        const options = uc.options ?? allOptions();
        const oldW = built(uc.oldRoot, options, ns);
        const newW = built(uc.root, options, ns);
        if (typeof oldW === "string" || typeof newW === "string" || oldW.metadata.name !== newW.metadata.name) {
          notComparable.push({ case: `update: ${uc.name}`, why: "the builder makes no pair of Workloads with one name" });
          return;
        }
        const answer = await update(c, `update: ${uc.name}`, oldW, newW);
        if (answer === undefined) return;
        record(`update: ${uc.name} (the emitted Workload, our object validator)`, ourErrors(newW, oldW), serverErrors(answer));
        recordBuilder(`update: ${uc.name}`, allErrors(uc.root, options, uc.oldRoot), toItemPaths(serverErrors(answer), newW, uc.root));
      });
    }
  });

  test("the table of disagreements is empty", () => {
    assert.ok(compared > 40, `only ${compared} cases were compared`);
    assert.deepEqual(disagreements, []);
  });
});
