/** The project's jq parser, safe profile and builtin list, as the validator's front end. */
import { builtinNames, checkSafeProfile, parseJq } from "../jq/index.js";
import type { JqFrontEnd } from "./jq-checks.js";

export const defaultJqFrontEnd: JqFrontEnd = {
  parse: (text) => parseJq(text),
  safeProfile: (ast, text) => checkSafeProfile(ast, text),
  get builtins() {
    return builtinNames();
  },
};
