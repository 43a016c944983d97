/**
 * The table of sub-commands: one module each, loaded only when its command runs (a command's start-up
 * time should not pay for the others' dependencies, e.g. the Lua VM for `karta jq`).
 */
import type { Flags } from "./args.js";
import type { CliIO } from "./io.js";

export interface Command {
  name: string;
  summary: string;
  run(args: string[], io: CliIO): Promise<number>;
  /** The flags the command parses with, for the completion scripts. */
  flags(): Promise<Flags>;
}

const commands: Command[] = [
  {
    name: "validate",
    summary: "validate and lint Karta definitions (--crd checks paths against CRDs)",
    run: async (args, io) => (await import("./validate.js")).runValidate(args, io),
    flags: async () => (await import("./validate.js")).FLAGS,
  },
  {
    name: "inspect",
    summary: "show what a Karta sees in a workload: components, status, pods, gang groups",
    run: async (args, io) => (await import("./inspect.js")).runInspect(args, io),
    flags: async () => (await import("./inspect.js")).FLAGS,
  },
  {
    name: "compile",
    summary: "compile a workload into Workload API objects (Workload, CompositePodGroups, PodGroups)",
    run: async (args, io) => (await import("./compile.js")).runCompile(args, io),
    flags: async () => (await import("./compile.js")).FLAGS,
  },
  {
    name: "get",
    summary: "list the live workloads of a type (or of every type) with status, components, pods and GPUs",
    run: async (args, io) => (await import("./get.js")).runGet(args, io),
    flags: async () => (await import("./get.js")).FLAGS,
  },
  {
    name: "describe",
    summary: "show a live workload's tree: components, instances, pods and nodes with their status, and events",
    run: async (args, io) => (await import("./describe.js")).runDescribe(args, io),
    flags: async () => (await import("./describe.js")).FLAGS,
  },
  {
    name: "interpret",
    summary: "run a Karmada resource interpreter operation, or check customizations",
    run: async (args, io) => (await import("./interpret.js")).runInterpret(args, io),
    flags: async () => (await import("./interpret.js")).FLAGS,
  },
  {
    name: "serve",
    summary: "run Karmada's resource interpreter webhook (HTTPS) for every kind Karta interprets",
    run: async (args, io) => (await import("./serve.js")).runServe(args, io),
    flags: async () => (await import("./serve.js")).FLAGS,
  },
  {
    name: "webhook-config",
    summary: "print the webhook configuration routing Karmada to 'karta serve' (--admission: the controller's)",
    run: async (args, io) => (await import("./webhook-config.js")).runWebhookConfig(args, io),
    flags: async () => (await import("./webhook-config.js")).FLAGS,
  },
  {
    name: "jq",
    summary: "run a jq program over JSON or YAML values",
    run: async (args, io) => (await import("./jq.js")).runJq(args, io),
    flags: async () => (await import("./jq.js")).FLAGS,
  },
  {
    name: "definitions",
    summary: "list the bundled Karta definitions by kind, or show one",
    run: async (args, io) => (await import("./definitions.js")).runDefinitions(args, io),
    flags: async () => (await import("./definitions.js")).FLAGS,
  },
  {
    name: "completion",
    summary: "print a shell completion script (bash, zsh or fish)",
    run: async (args, io) => (await import("./completion.js")).runCompletion(args, io, commands),
    flags: async () => ({}),
  },
  {
    name: "version",
    summary: "print Karta's version",
    run: async (args, io) => (await import("./version.js")).runVersion(args, io),
    flags: async () => (await import("./version.js")).FLAGS,
  },
  {
    name: "playground",
    summary: "serve the playground page (editors, diagnostics, groups, Workload API, Karmada) on loopback",
    run: async (args, io) => (await import("./playground.js")).runPlayground(args, io),
    flags: async () => (await import("./playground.js")).FLAGS,
  },
  {
    name: "controller",
    summary: "run the Karta controller in a cluster: Karta status and admission, Workload API objects, pod admission",
    run: async (args, io) => (await import("./controller.js")).runController(args, io),
    flags: async () => (await import("./controller.js")).FLAGS,
  },
  {
    name: "rbac",
    summary: "print the ClusterRole and leader-election Role the controller needs for the given definitions",
    run: async (args, io) => (await import("./rbac.js")).runRbac(args, io),
    flags: async () => (await import("./rbac.js")).FLAGS,
  },
];

export function commandNames(): Command[] {
  return commands;
}

export function findCommand(name: string): Command | undefined {
  return commands.find((c) => c.name === name);
}
