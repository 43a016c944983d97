// Node's file, path and buffer modules in the browser bundle: the library's file loaders and the CLI
// import them, the playground never calls them (it passes texts). A call is a clear error, not a crash.
/* global module */
"use strict";
function unavailable(name) {
  return () => {
    throw new Error(`${name} is not available in the browser`);
  };
}
module.exports = new Proxy(
  {},
  {
    get(_target, name) {
      if (name === "__esModule") return false;
      if (name === "default") return module.exports;
      return unavailable(String(name));
    },
  },
);
