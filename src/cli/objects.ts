/**
 * Kubernetes objects as the commands read them: from JSON or YAML text (a `List` flattened, as
 * `kubectl get -o yaml` prints it) or a stream of JSON values, from files, directories or stdin, and
 * pods picked out.
 */
import path from "node:path";
import { listInputFiles } from "../files/index.js";
import { findUnreadableText } from "../input/index.js";
import { readErrorReason, readSource, type CliIO } from "./io.js";
import { JsonStreamError, parseJsonStream } from "../input/json-stream.js";
import { YamlInputError, yamlValues } from "./yaml-input.js";
import { positionAt } from "../interpreter/declarative/text-position.js";
import { EXIT_USAGE } from "./exit-codes.js";

/** Input that cannot be read or understood: reported as `file: message`. */
export class InputError extends Error {
  /** The exit code it ends the command with (2: usage or unreadable input; 3: a named workload does not exist). */
  constructor(
    message: string,
    readonly exitCode: number = EXIT_USAGE,
  ) {
    super(message);
  }
}

/** What a value is, as a message says what was found: `null`, `a list`, `an object`, `a number`... */
function valueKind(x: unknown): string {
  return x === null ? "null" : Array.isArray(x) ? "a list" : typeof x === "object" ? "an object" : `a ${typeof x}`;
}

/** The objects in a text: JSON (one value or several), or YAML documents; `List`s are flattened. Text that does not parse is an InputError. */
export function parseObjects(text: string, name: string): unknown[] {
  const deep = findUnreadableText(text);
  if (deep !== undefined) {
    const at = positionAt(text, deep.offset);
    throw new InputError(`${name}:${at.line}:${at.column}: ${deep.message}`);
  }
  const trimmed = text.trimStart();
  let values: unknown[] | undefined;
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    try {
      const v = JSON.parse(text) as unknown;
      values = Array.isArray(v) ? v : [v];
    } catch {
      values = jsonStreamValues(text, name);
    }
  }
  if (values === undefined) {
    try {
      values = yamlValues(text);
    } catch (err) {
      if (err instanceof YamlInputError) throw new InputError(`${name}:${err.line}:${err.column}: ${err.message}`);
      throw err;
    }
  }
  const out: unknown[] = [];
  const flatten = (v: unknown, at: string): void => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) {
      out.push(v);
      return;
    }
    // An object whose apiVersion or kind is not a string is no object of any kind: refused, not dropped.
    const wrongType = typeMetaTypeError(v as Record<string, unknown>);
    if (wrongType !== undefined) throw new InputError(`${name}: ${at}${wrongType}`);
    const { kind, items } = v as { kind?: string; items?: unknown };
    if (kind === undefined || !kind.endsWith("List")) {
      out.push(v);
      return;
    }
    // As kubectl reads a List: its items are objects (none, when it has no items).
    if (items === undefined || items === null) return;
    if (!Array.isArray(items)) throw new InputError(`${name}: ${at}${kind}: items: expected a list of objects, found ${valueKind(items)}`);
    items.forEach((item, i) => {
      if (item === null || typeof item !== "object" || Array.isArray(item)) throw new InputError(`${name}: ${at}${kind}: items[${i}]: expected an object, found ${valueKind(item)}`);
      flatten(item, `${at}${kind}: items[${i}]: `);
    });
  };
  for (const v of values) flatten(v, "");
  return out;
}

/**
 * Several JSON values (JSON Lines, or concatenated); undefined when the text is not such a stream,
 * so that the YAML reader (flow style) has its turn and its message.
 */
function jsonStreamValues(text: string, name: string): unknown[] | undefined {
  try {
    return parseJsonStream(text).map((v) => v.value);
  } catch (err) {
    if (!(err instanceof JsonStreamError)) throw err;
    // A stream whose first value parsed is JSON with an error (unless it is YAML, e.g. JSON documents
    // between `---` lines): say where.
    if (err.line > 1) {
      try {
        return yamlValues(text);
      } catch {
        throw new InputError(`${name}:${err.line}: ${err.message}`);
      }
    }
    return undefined;
  }
}

/** Whether a value looks like a pod (a Pod, or an object without a kind). */
export function isPodLike(v: unknown): boolean {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
  const kind = (v as { kind?: unknown }).kind;
  return kind === undefined || kind === "Pod";
}

/** How a file is named in messages: `<stdin>` for `-`. */
export function displayName(file: string): string {
  return file === "-" ? "<stdin>" : file;
}

/** Reads a file named on the command line (`-` for stdin); what fails is an InputError `cannot read FILE: why`. */
export async function readInput(io: CliIO, file: string): Promise<string> {
  try {
    return await readSource(io, file);
  } catch (err) {
    throw new InputError(`cannot read ${displayName(file)}: ${readErrorReason(err)}`);
  }
}

/**
 * The one workload object of the files (`-f`, repeatable as kubectl's), with the file it is in; any other
 * number of objects in them all is an InputError.
 */
export async function readWorkloadObject(io: CliIO, files: readonly string[]): Promise<{ object: unknown; file: string }> {
  const found: { object: unknown; file: string }[] = [];
  // The same file named twice, however spelled, is read once (its object is not two).
  const once = new Map(files.map((f) => [f === "-" ? f : path.resolve(f), f]));
  for (const f of once.values()) for (const object of parseObjects(await readInput(io, f), displayName(f))) found.push({ object, file: f });
  const names = [...new Set(files.map(displayName))].join(", ");
  if (found.length !== 1) throw new InputError(`${names}: expected one workload object, found ${found.length}`);
  const { object, file } = found[0]!;
  // As kubectl refuses such a document: what it is, not which definition is missing.
  if (typeof object !== "object" || object === null || Array.isArray(object)) throw new InputError(`${displayName(file)}: the workload is not an object (expected a mapping with apiVersion and kind), found ${valueKind(object)}`);
  return { object, file };
}

/** `apiVersion: expected a string, found a number` when an object's apiVersion or kind is given but is not a string. */
export function typeMetaTypeError(object: Record<string, unknown>): string | undefined {
  for (const field of ["apiVersion", "kind"] as const) {
    const v = object[field];
    if (v !== undefined && typeof v !== "string") return `${field}: expected a string, found ${valueKind(v)}`;
  }
  return undefined;
}

/**
 * The pods given with a workload read from files (`--pods`), and the objects between them and it: those
 * given with `--children` and the non-pods given with the pods (ReplicaSets, Jobs...), through which
 * owner chains are followed.
 */
export async function readPodsAndChildren(io: CliIO, podSources: readonly string[], childSources: readonly string[] = []): Promise<{ pods: unknown[]; children: unknown[] }> {
  const given = (await readObjects(io, podSources)).map((p) => p.object);
  const children = (await readObjects(io, childSources)).map((c) => c.object);
  return { pods: given.filter(isPodLike), children: [...children, ...given.filter((o) => !isPodLike(o))] };
}

/**
 * The objects in files, directories (recursively) or stdin, each with the file it came from; `keep` picks
 * some. An object given twice (the same file named twice, or a file and its directory) is one object, as
 * a cluster holds one object of a kind and name in a namespace: the last copy read, in the place of the first.
 */
export async function readObjects(io: CliIO, sources: readonly string[], keep: (v: unknown) => boolean = () => true): Promise<{ object: unknown; file: string }[]> {
  const out: { object: unknown; file: string }[] = [];
  const at = new Map<string, number>();
  for (const file of listInputFiles(sources, { recursive: true })) {
    for (const object of parseObjects(await readInput(io, file), displayName(file))) {
      // As -f and a List's items: a pod or child is an object, not text or a number taken for one.
      if (object === null || typeof object !== "object" || Array.isArray(object)) throw new InputError(`${displayName(file)}: expected an object, found ${valueKind(object)}`);
      if (!keep(object)) continue;
      const key = identity(object);
      const seen = key === undefined ? undefined : at.get(key);
      if (seen !== undefined) out[seen] = { object, file };
      else {
        if (key !== undefined) at.set(key, out.length);
        out.push({ object, file });
      }
    }
  }
  return out;
}

/** apiVersion, kind, namespace and name of an object that has a name; undefined otherwise. */
function identity(object: unknown): string | undefined {
  if (typeof object !== "object" || object === null) return undefined;
  const o = object as { apiVersion?: unknown; kind?: unknown; metadata?: { name?: unknown; namespace?: unknown } };
  const name = o.metadata?.name;
  if (typeof name !== "string" || name === "") return undefined;
  return JSON.stringify([o.apiVersion, o.kind, o.metadata?.namespace ?? "", name]);
}
