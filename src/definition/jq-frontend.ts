/** The project's jq parser, safe profile and builtin list, as the validator's front end. */
import { checkSafeProfile, compileJq, parseJq } from "../jq/index.js";
import type { JqFrontEnd } from "./jq-checks.js";

/** The engine's builtins (`name/arity`), asked of the engine itself once: `builtins` lists them. */
function engineBuiltins(): ReadonlySet<string> {
  const names = compileJq("builtins").first(null);
  return new Set(Array.isArray(names) ? names.filter((n): n is string => typeof n === "string") : []);
}

let builtins: ReadonlySet<string> | undefined;

export const defaultJqFrontEnd: JqFrontEnd = {
  parse: (text) => parseJq(text),
  safeProfile: (ast, text) => checkSafeProfile(ast, text),
  get builtins() {
    builtins ??= engineBuiltins();
    return builtins;
  },
};
