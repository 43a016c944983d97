/**
 * `node:module` in the browser: the library loads some modules lazily through `createRequire` (so a
 * command that does not need them does not pay for them at start-up): the `yaml` package, the jq
 * engine's regular expression, date and libm builtins, and the JSON Patch writer of the interpreter.
 * The page bundles them, so those requires are answered here.
 */
import * as yaml from "yaml";
import * as regex from "../../src/jq/native/regex.js";
import * as dates from "../../src/jq/native/dates.js";
import * as math from "../../src/jq/native/math.js";
import * as patch from "../../src/interpret/patch.js";

const MODULES: Record<string, unknown> = {
  yaml,
  "./native/regex.js": regex,
  "./native/dates.js": dates,
  "./native/math.js": math,
  "./patch.js": patch,
};

export function createRequire(_from: string): (id: string) => unknown {
  return (id: string) => {
    const m = MODULES[id];
    if (m !== undefined) return m;
    throw new Error(`${id} is not available in the browser`);
  };
}
