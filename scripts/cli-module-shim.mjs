// `node:module` for the bundled command line (scripts/bundle-cli.mjs): Karta's modules load some of
// their own modules lazily with createRequire("./native/regex.js") and the like, relative to their
// file. In the bundle those files are not beside the chunk, so the bundle includes them and this
// answers those requires, and `yaml` with its one-file build beside the chunks; anything else goes to
// Node's own require.
import { createRequire as nodeCreateRequire } from "node:module";
import * as regex from "../dist/src/jq/native/regex.js";
import * as dates from "../dist/src/jq/native/dates.js";
import * as math from "../dist/src/jq/native/math.js";
import * as patch from "../dist/src/interpret/patch.js";

const OWN = { "./native/regex.js": regex, "./native/dates.js": dates, "./native/math.js": math, "./patch.js": patch };

const own = nodeCreateRequire(import.meta.url);

export function createRequire(from) {
  const require = nodeCreateRequire(from);
  return (id) => OWN[id] ?? (id === "yaml" ? own("./yaml.cjs") : require(id));
}
