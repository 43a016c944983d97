/**
 * `karta get` with an exec credential plugin, as kubectl runs one (test/support/fake-apiserver.ts is the
 * cluster): what the plugin writes to standard error reaches the user as it writes it (a login URL, a
 * warning); it is told it is not interactive when standard input is not a terminal, and its token
 * authenticates every request. A plugin whose interactiveMode is Always cannot run without a terminal:
 * the command says so, as a credential problem. (The controller gives a plugin no terminal: its standard
 * error is kept for the error message only, out of the controller's JSON log.)
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, writeFileSync } from "node:fs";
import path from "node:path";
import { runKarta } from "../support/cluster.js";
import { FAKE_GET_OUTPUT, startFakeApiServer } from "../support/fake-apiserver.js";

/** A plugin that prompts on standard error, then prints a token naming whether it was told it is interactive. */
const PLUGIN = `#!/bin/sh
echo "To sign in, open https://login.example/device and enter ABCD-EFGH" >&2
case "$KUBERNETES_EXEC_INFO" in *'"interactive":false'*) mode=batch ;; *) mode=interactive ;; esac
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"sso-%s"}}' "$mode"
`;

for (const mode of ["IfAvailable", "Always"] as const) {
  test(`an exec plugin (interactiveMode ${mode}) without a terminal: ${mode === "Always" ? "refused, as a credential problem" : "its standard error passed through, its token used"}`, async () => {
    const server = await startFakeApiServer({ tls: true, user: `{exec: {apiVersion: client.authentication.k8s.io/v1, command: ./login, interactiveMode: ${mode}}}` });
    try {
      writeFileSync(path.join(server.dir, "login"), PLUGIN);
      chmodSync(path.join(server.dir, "login"), 0o755);
      const r = await runKarta(["get", "pytorchjobs", "--kubeconfig", server.kubeconfig]);
      const lines = r.stderr.split("\n").filter((l) => l !== "" && !l.includes("serves no Karta definitions"));
      if (mode === "Always") {
        assert.equal(r.code, 1, r.stderr);
        // The error, once (no warning first that the cluster's Karta definitions cannot be read).
        assert.deepEqual(lines, ["karta get: discovering the API groups: getting credentials: the exec credential plugin ./login needs a terminal (interactiveMode: Always) and standard input is not one"]);
        assert.deepEqual(server.authorizations, [], "no request without credentials");
        return;
      }
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, FAKE_GET_OUTPUT);
      assert.deepEqual(lines, ["To sign in, open https://login.example/device and enter ABCD-EFGH"], "the plugin ran once, its prompt shown");
      assert.ok(server.authorizations.length >= 3);
      assert.deepEqual(new Set(server.authorizations), new Set(["Bearer sso-batch"]));
    } finally {
      server.close();
    }
  });
}
