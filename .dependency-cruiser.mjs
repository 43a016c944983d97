// The architecture as rules (docs/architecture.md), checked by `npm run lint` (and so by `npm test`):
// the layers of src/ from the bottom up, each importing only layers below it, and no import cycles between
// files, type-only imports included (tsPreCompilationDeps). Paths are relative to where depcruise runs, so
// the same rules check the small bad fixture in test/architecture.

/**
 * The layers, bottom first; a layer is a list of folders (or single files) on one level. Modules on the
 * same level may import each other where no cycle results.
 */
const LAYERS = [
  ["src/gofmt", "src/input", "src/files", "src/names"],
  ["src/quantity", "src/jsonpatch", "src/jq", "src/jsonpath"],
  ["src/resources"],
  ["src/definition"],
  ["src/interpret"],
  ["src/scheduling"],
  // The interpreter framework: its contract at the root, then the layers that implement it, then its facade.
  ["src/interpreter/types.ts", "src/interpreter/typed.ts", "src/interpreter/dependencies.ts", "src/interpreter/components.ts", "src/interpreter/framework.ts"],
  ["src/interpreter/lua"],
  ["src/interpreter/declarative"],
  ["src/interpreter/native", "src/interpreter/karta", "src/interpreter/webhook"],
  ["src/interpreter/thirdparty"],
  ["src/interpreter/index.ts", "src/interpreter/layers.ts"],
  ["src/server"],
  ["src/controller"],
  ["src/cli"],
  ["src/index.ts"],
  // The playground page runs the core in the browser.
  ["playground/src"],
];

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** A path regex for a folder (everything under it) or a single file. */
const pattern = (p) => (p.endsWith(".ts") ? `^${escape(p)}$` : `^${escape(p)}/`);
const layerName = (p) => p.replace(/^src\//, "").replace(/\.ts$/, "").replace(/[^A-Za-z0-9]+/g, "-");

const upward = LAYERS.flatMap((layer, i) => {
  const above = LAYERS.slice(i + 1).flat();
  if (above.length === 0) return [];
  return layer.map((from) => ({
    name: `upward-import-from-${layerName(from)}`,
    comment: `'${from}' may import only the layers below it; this import reaches up (docs/architecture.md has the order)`,
    severity: "error",
    from: { path: pattern(from) },
    to: { path: above.map(pattern) },
  }));
});

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: "no-circular",
      comment: "an import cycle between modules (docs/architecture.md: no cycles, type-only imports included)",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    ...upward,
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(dist|node_modules)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
  },
};
