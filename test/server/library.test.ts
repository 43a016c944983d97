/** The library entry of the webhook server (`startInterpreterServer` from the package's index). */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { answerInterpreterContext, assembleLayers, server as serverApi, ServeError, startInterpreterServer } from "../../src/index.js";
import { contextBody, request, tempDir, writeCerts } from "./helpers.js";

describe("startInterpreterServer", () => {
  test("starts with the command's defaults, answers over HTTPS, serves probes, and closes", async () => {
    const dir = tempDir();
    const certs = writeCerts(dir);
    const server = await startInterpreterServer({ tlsCertFile: certs.certFile, tlsPrivateKeyFile: certs.keyFile, securePort: 0, bindAddress: "127.0.0.1", metricsBindAddress: "127.0.0.1:0", workers: 1, logLevel: "silent" });
    try {
      const deployment = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web" }, spec: { replicas: 4 } };
      const r = await request(`https://127.0.0.1:${server.port}/interpret`, certs.caPem, contextBody("lib-1", "InterpretReplica", deployment));
      assert.deepEqual((r.json() as { response: unknown }).response, { uid: "lib-1", successful: true, replicas: 4 });
      assert.equal((await fetch(`http://127.0.0.1:${server.metricsPort}/healthz`)).status, 200);
      assert.equal(await server.reload(), true);
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a configuration with errors rejects with ServeError listing them at file:line", async () => {
    const dir = tempDir();
    const certs = writeCerts(dir);
    const bad = path.join(dir, "bad.yaml");
    writeFileSync(bad, "apiVersion: config.karmada.io/v1alpha1\nkind: ResourceInterpreterCustomization\nmetadata:\n  name: x\nspec: 3\n");
    try {
      await assert.rejects(
        startInterpreterServer({ tlsCertFile: certs.certFile, tlsPrivateKeyFile: certs.keyFile, securePort: 0, metricsBindAddress: "127.0.0.1:0", customizations: [bad], logLevel: "silent" }),
        (e: unknown) => e instanceof ServeError && e.details.some((d) => d.startsWith(`${bad}:`)),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("the wire format is public: a body answered with an assembled framework, a bad one refused", async () => {
    const { framework, close } = await assembleLayers({ thirdparty: false });
    try {
      const deployment = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web" }, spec: { replicas: 4 } };
      const a = await answerInterpreterContext(framework, contextBody("lib-2", "InterpretReplica", deployment));
      assert.equal(a.status, 200);
      assert.deepEqual(JSON.parse(a.body), { apiVersion: serverApi.CONTEXT_API_VERSION, kind: serverApi.CONTEXT_KIND, response: { uid: "lib-2", successful: true, replicas: 4 } });
      // The native layer found no dependency: Go's nil slice, left out of the response as omitempty leaves it out.
      const none = await answerInterpreterContext(framework, contextBody("lib-4", "InterpretDependency", { ...deployment, spec: { template: { spec: { containers: [{ name: "c", image: "i" }] } } } }));
      assert.deepEqual(JSON.parse(none.body), { apiVersion: serverApi.CONTEXT_API_VERSION, kind: serverApi.CONTEXT_KIND, response: { uid: "lib-4", successful: true } });
      const some = await answerInterpreterContext(framework, contextBody("lib-5", "InterpretDependency", { ...deployment, spec: { template: { spec: { serviceAccountName: "sa", containers: [{ name: "c", image: "i" }] } } } }));
      assert.deepEqual((JSON.parse(some.body) as { response: unknown }).response, { uid: "lib-5", successful: true, dependencies: [{ apiVersion: "v1", kind: "ServiceAccount", name: "sa" }] });
      const bad = await answerInterpreterContext(framework, "{}");
      assert.equal(bad.status, 200);
      assert.deepEqual((JSON.parse(bad.body) as { response: unknown }).response, { uid: "", successful: false, status: { code: 400, message: 'expected apiVersion config.karmada.io/v1alpha1 and kind ResourceInterpreterContext, got "" and ""' } });
      const decoded = serverApi.decodeContext(contextBody("lib-3", "AggregateStatus", deployment));
      assert.ok(decoded.ok && decoded.request.aggregatedStatus === undefined, "no items is nil");
    } finally {
      close();
    }
  });
});
