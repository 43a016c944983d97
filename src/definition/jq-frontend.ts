/** The project's jq parser and safe profile, as the validator's front end. */
import { checkSafeProfile, parseJq } from "../jq/index.js";
import type { JqFrontEnd } from "./jq-checks.js";

export const defaultJqFrontEnd: JqFrontEnd = {
  parse: (text) => parseJq(text),
  safeProfile: (ast, text) => checkSafeProfile(ast, text),
};
