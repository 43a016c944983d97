/**
 * `node:module` in the browser: the library loads the `yaml` package lazily through `createRequire` (so a
 * command that needs no YAML does not pay for it); the page bundles it, so that require is answered here.
 */
import * as yaml from "yaml";

export function createRequire(_from: string): (id: string) => unknown {
  return (id: string) => {
    if (id === "yaml") return yaml;
    throw new Error(`${id} is not available in the browser`);
  };
}
