/**
 * `karta describe -f FILE`: the describe view of a workload object read from a file (or stdin), with the
 * pods given with --pods, offline (upstream kli's file mode): no cluster is asked, so there are no
 * events, and without --pods no pod is running yet as far as the view can tell.
 */
import { compileInterpreter } from "../interpret/index.js";
import { catalogDefinition, readCatalog } from "./catalog.js";
import type { CliIO } from "./io.js";
import { InputError, readPodsAndChildren, readWorkloadObject } from "./objects.js";
import { describeView, type DescribeView } from "./workload-view.js";

/** A file's workload as `describe` shows it, or the exit code after printing why not. */
export async function describeFile(io: CliIO, o: { files: readonly string[]; pods: readonly string[]; definition?: string }): Promise<DescribeView | number> {
  let object: unknown;
  let source: string;
  let given: { pods: unknown[]; children: unknown[] };
  let catalog;
  try {
    ({ object, file: source } = await readWorkloadObject(io, o.files));
    given = await readPodsAndChildren(io, o.pods);
    catalog = await readCatalog(io, o.definition, object);
  } catch (err) {
    if (err instanceof InputError) {
      io.stderr(`karta describe: ${err.message}\n`);
      return err.exitCode;
    }
    throw err;
  }
  const definition = await catalogDefinition("describe", io, catalog, object, undefined, source);
  if (typeof definition === "number") return definition;
  const { pods, children } = given;
  const interpretation = compileInterpreter(definition).interpret(object, { pods, children });
  const k = definition.karta.spec?.structureDefinition?.rootComponent?.kind;
  return describeView({
    type: { group: k?.group ?? "", version: k?.version ?? "", kind: k?.kind ?? "" },
    karta: definition.karta.metadata?.name ?? definition.file,
    origin: catalog.bundled ? "catalog" : "file",
    object,
    interpretation,
    pods,
  });
}
