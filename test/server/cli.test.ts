/**
 * The commands around the server: `karta serve` as a process (SIGTERM with a request in flight,
 * --cert-dir, flag errors), `karta webhook-config`, and `karta interpret` stopping a Lua script stuck
 * inside a library function at its deadline.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import https from "node:https";
import path from "node:path";
import { parse, parseAllDocuments } from "yaml";
import { runServe } from "../../src/cli/serve.js";
import { runWebhookConfig } from "../../src/cli/webhook-config.js";
import { runInterpret } from "../../src/cli/interpret.js";
import { memoryIO } from "../../src/cli/io.js";
import { ServeError } from "../../src/server/server.js";
import { parseDuration } from "../../src/server/duration.js";
import { contextBody, eventually, repoRoot, RUNAWAY, spawnServe, startTestServer, tempDir, writeCerts } from "./helpers.js";

/**
 * An InterpretReplica POST on a new connection the client would keep alive (as Karmada's webhook client
 * does): the status, the Connection header and the replicas answered, or the connection's error code.
 */
function keptAlivePost(url: string, ca: string, body: string): Promise<{ status: number; connection?: string; replicas?: number } | string> {
  const agent = new https.Agent({ keepAlive: true });
  return new Promise<{ status: number; connection?: string; replicas?: number } | string>((resolve) => {
    const req = https.request(url, { method: "POST", ca, agent, headers: { "Content-Type": "application/json" } }, (res) => {
      let text = "";
      res.on("data", (c: Buffer) => (text += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, ...(res.headers.connection !== undefined ? { connection: res.headers.connection } : {}), replicas: (JSON.parse(text) as { response: { replicas?: number } }).response.replicas! }));
    });
    req.on("error", (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
    req.end(body);
  }).finally(() => agent.destroy());
}

/** A self-signed EC (P-256) certificate, made with openssl: node-forge signs only RSA ones. */
const EC_CERTIFICATE = `-----BEGIN CERTIFICATE-----
MIIBiDCCAS2gAwIBAgIUZcVph1r2OmNhj6UdufVqsOHt1sMwCgYIKoZIzj0EAwIw
GDEWMBQGA1UEAwwNa2FydGEtdGVzdC1lYzAgFw0yNjEyMDcwMjM2NTFaGA8yMTI2
MTExMzAyMzY1MVowGDEWMBQGA1UEAwwNa2FydGEtdGVzdC1lYzBZMBMGByqGSM49
AgEGCCqGSM49AwEHA0IABBjTTsdf7sEmPVuSRy6l5K2AJzD5fd8WVudU/3sQ85Kj
CeMR15Ke7X4aMt2HAVO4y+WIfSzdAeGft372cFlpAfijUzBRMB0GA1UdDgQWBBTD
hksgstor7MqibAFjEnIAjqd/DTAfBgNVHSMEGDAWgBTDhksgstor7MqibAFjEnIA
jqd/DTAPBgNVHRMBAf8EBTADAQH/MAoGCCqGSM49BAMCA0kAMEYCIQDbJ0qI0AYH
WWZVyQUVcthw+waXSZk+4CYRoc8pbDBmLQIhAJUd+SlXlKyYDDCx9dvZAUHO8LxF
cfKxyAbqvOG35DAe
-----END CERTIFICATE-----
`;


describe("karta serve (process)", () => {
  test("SIGTERM: stops accepting, finishes the request in flight, exits 0", async () => {
    const dir = tempDir();
    const served = spawnServe(["--cert-dir", dir, "--secure-port", "0", "--bind-address", "127.0.0.1", "--metrics-bind-address", "127.0.0.1:0", "--workers", "1", "--shutdown-grace-period", "20s"]);
    const { child, exited } = served;
    try {
      const ports = await served.serving();
      assert.match(served.err(), new RegExp(`CA bundle: ${path.join(dir, "ca.crt").replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}`));
      await eventually(async () => (await fetch(`http://127.0.0.1:${ports.metricsPort}/readyz`)).status === 200, 60_000, "readiness");
      const ca = readFileSync(path.join(dir, "ca.crt"), "utf8");
      const body = contextBody("in-flight", "InterpretReplica", { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "w" }, spec: { replicas: 2, template: { spec: { containers: [] } } } });
      // Send half the body, signal, then the rest: the request is in flight while the server drains.
      const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = https.request(`https://localhost:${ports.port}/interpret`, { method: "POST", ca, headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) }, agent: false }, (res) => {
          let text = "";
          res.on("data", (c: Buffer) => (text += c.toString()));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
        });
        req.on("error", reject);
        req.write(body.slice(0, 40));
        setTimeout(() => {
          child.kill("SIGTERM");
          setTimeout(() => req.end(body.slice(40)), 300);
        }, 200);
      });
      const r = await answer;
      assert.equal(r.status, 200);
      assert.equal((JSON.parse(r.body) as { response: { uid: string; replicas: number } }).response.uid, "in-flight");
      assert.equal((JSON.parse(r.body) as { response: { replicas: number } }).response.replicas, 2);
      assert.equal(await exited, 0);
      const out = served.log();
      assert.match(out, /shutting down/);
      assert.match(out, /"msg":"stopped"/);
      // Every line written out whole, the request's own among them (logs are batched, flushed at exit).
      const lines = out.trim().split("\n").map((l) => JSON.parse(l) as { msg: string; uid?: string; component: string });
      assert.ok(lines.every((l) => l.component === "karta-serve"));
      assert.ok(lines.some((l) => l.msg === "interpreted" && l.uid === "in-flight"), out);
      // Object contents never reach the info log.
      assert.doesNotMatch(out, /"replicas":2|"spec"/);
    } finally {
      child.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }
  });

  for (const processes of [1, 2]) {
    test(`--shutdown-delay-duration (--processes ${processes}): after SIGTERM /readyz fails while requests are answered, their connections closed after; then the drain`, async () => {
      const dir = tempDir();
      const delayMs = 3000;
      const served = spawnServe(["--cert-dir", dir, "--processes", String(processes), "--workers", "1", "--secure-port", "0", "--bind-address", "127.0.0.1", "--metrics-bind-address", "127.0.0.1:0", "--shutdown-delay-duration", `${delayMs}ms`]);
      const { child, exited } = served;
      try {
        const ports = await served.serving();
        const readyz = async () => {
          const r = await fetch(`http://127.0.0.1:${ports.metricsPort}/readyz?verbose`);
          return { status: r.status, body: await r.text() };
        };
        await eventually(async () => (await readyz()).status === 200, 60_000, "readiness");
        const ca = readFileSync(path.join(dir, "ca.crt"), "utf8");
        const body = contextBody("during", "InterpretReplica", { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "w" }, spec: { replicas: 3, template: { spec: { containers: [] } } } });
        const interpret = () => keptAlivePost(`https://127.0.0.1:${ports.port}/interpret`, ca, body);
        assert.deepEqual(await interpret(), { status: 200, connection: "keep-alive", replicas: 3 });

        const signalled = Date.now();
        child.kill("SIGTERM");
        await eventually(() => /"msg":"shutting down after the delay: not ready, still serving"/.test(served.log()), 5_000, "the delay logged");
        const during = await readyz();
        assert.equal(during.status, 503);
        assert.match(during.body, /^\[-\]shutdown failed: the server is shutting down$/m);
        // Every serving process answers, each answer closing its connection (the client's next connects anew).
        for (let i = 0; i < 2 * processes; i++) await eventually(async () => JSON.stringify(await interpret()) === JSON.stringify({ status: 200, connection: "close", replicas: 3 }), 2_000, `answer ${i} during the delay`);
        assert.ok(Date.now() - signalled < delayMs - 500, "checked within the delay");
        assert.equal(child.exitCode, null);
        assert.doesNotMatch(served.log(), /"msg":"shutting down: /, "the drain has not begun");

        assert.equal(await exited, 0, served.err());
        assert.ok(Date.now() - signalled >= delayMs, `exited ${Date.now() - signalled} ms after SIGTERM`);
        assert.match(served.log(), /"msg":"shutting down: /);
        assert.match(served.log(), /"msg":"stopped"/);
      } finally {
        child.kill("SIGKILL");
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  test("a second SIGTERM during --shutdown-delay-duration ends it: the drain starts at once", async () => {
    const dir = tempDir();
    const served = spawnServe(["--cert-dir", dir, "--processes", "1", "--workers", "1", "--secure-port", "0", "--bind-address", "127.0.0.1", "--metrics-bind-address", "127.0.0.1:0", "--shutdown-delay-duration", "10m"]);
    try {
      await served.serving();
      served.child.kill("SIGTERM");
      await eventually(() => /"msg":"shutting down after the delay/.test(served.log()), 5_000, "the delay logged");
      const second = Date.now();
      served.child.kill("SIGTERM");
      assert.equal(await served.exited, 0, served.err());
      assert.ok(Date.now() - second < 10_000, `exited ${Date.now() - second} ms after the second SIGTERM`);
      assert.match(served.log(), /"msg":"stopped"/);
    } finally {
      served.child.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a configuration with errors is refused at start (exit 1, file:line:col)", async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, "bad.yaml"), "apiVersion: config.karmada.io/v1alpha1\nkind: ResourceInterpreterCustomization\nmetadata: {name: x}\nspec: {target: {apiVersion: v1, kind: Foo}, customizations: {retention: {luaScript: 'function Retain(a, b) return a'}}}\n");
    const io = memoryIO();
    const code = await runServe(["--cert-dir", dir, "--customizations", path.join(dir, "bad.yaml"), "--secure-port", "0", "--metrics-bind-address", "127.0.0.1:0"], io);
    assert.equal(code, 1);
    assert.match(io.err, /the configuration has errors\n {2}.*bad\.yaml:4:\d+: error: spec\.customizations\.retention\.luaScript: line 1 of the script: /);
    rmSync(dir, { recursive: true, force: true });
  });

  test("--cert-dir holding half a pair is refused at start (exit 1) and left as it is; karta controller alike", async () => {
    const dir = tempDir();
    try {
      const own = writeCerts(dir);
      rmSync(own.keyFile);
      rmSync(own.caFile);
      const cert = readFileSync(own.certFile, "utf8");
      const io = memoryIO();
      assert.equal(await runServe(["--cert-dir", dir, "--secure-port", "0", "--metrics-bind-address", "127.0.0.1:0"], io), 1);
      assert.equal(io.err, `karta serve: --cert-dir ${dir}: tls.crt is there but tls.key is not: give both (or neither, to generate a pair); nothing was written\n`);
      const { runController } = await import("../../src/cli/controller.js");
      const cio = memoryIO();
      assert.equal(await runController(["--cert-dir", dir, "--kubeconfig", path.join(dir, "none"), "--metrics-bind-address", "0", "--health-probe-bind-address", "0"], cio), 1);
      assert.match(cio.err, /"err":"--cert-dir [^"]*: tls\.crt is there but tls\.key is not: give both \(or neither, to generate a pair\); nothing was written"/);
      assert.equal(readFileSync(own.certFile, "utf8"), cert);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("files that are not a usable certificate and its key are refused at start (exit 1), empty ones as garbage is", async () => {
    const dir = tempDir();
    try {
      const good = writeCerts(dir);
      mkdirSync(path.join(dir, "other"));
      const other = writeCerts(path.join(dir, "other"));
      const [cert, key, caCert] = [good.certFile, good.keyFile, good.caFile].map((f) => readFileSync(f, "utf8")) as [string, string, string];
      const cases: [string, string, string, RegExp][] = [
        ["empty certificate", "", key, /the certificate file is empty/],
        ["certificate of blanks", " \n\n", key, /the certificate file is empty/],
        ["empty key", cert, "", /the key file is empty/],
        ["garbage", "not a certificate", key, /no certificate in the certificate file/],
        ["a key for a certificate", key, key, /no certificate in the certificate file/],
        ["a certificate for a key", cert, cert, /no private key in the key file/],
        ["the CA's certificate only", caCert, key, /the key does not match the certificate \(CN=test-ca\)/],
        ["another pair's key", cert, readFileSync(other.keyFile, "utf8"), /the key does not match the certificate/],
        // OpenSSL keeps an EC certificate and an RSA key side by side without comparing them.
        ["an EC certificate with an RSA key", EC_CERTIFICATE, key, /the key does not match the certificate \(CN=karta-test-ec\)/],
      ];
      const certFile = path.join(dir, "case.crt");
      const keyFile = path.join(dir, "case.key");
      mkdirSync(path.join(dir, "scratch"));
      for (const [name, certText, keyText, reason] of cases) {
        writeFileSync(certFile, certText);
        writeFileSync(keyFile, keyText);
        // A server that starts anyway is closed, so that the failure is reported rather than waited on.
        const outcome = await startTestServer({ certDir: path.join(dir, "scratch"), tlsCertFile: certFile, tlsPrivateKeyFile: keyFile, workers: 1 }).then(
          async (s) => void (await s.server.close()),
          (e: unknown) => e,
        );
        assert.ok(outcome instanceof ServeError, `${name}: served`);
        assert.equal(outcome.message.startsWith(`${certFile}, ${keyFile}: not a usable certificate and key: `), true, `${name}: ${outcome.message}`);
        assert.match(outcome.message, reason, name);
      }
      // As a user meets it: a generated directory whose certificate was emptied, several serving processes.
      mkdirSync(path.join(dir, "generated"));
      writeCerts(path.join(dir, "generated"));
      writeFileSync(path.join(dir, "generated", "tls.crt"), "");
      const served = spawnServe(["--cert-dir", path.join(dir, "generated"), "--processes", "2", "--workers", "1", "--secure-port", "0", "--bind-address", "127.0.0.1", "--metrics-bind-address", "127.0.0.1:0"]);
      try {
        await eventually(() => served.child.exitCode !== null || /"msg":"serving"/.test(served.log()), 60_000, "karta serve to exit or serve");
        assert.equal(served.child.exitCode, 1, served.err());
        assert.match(served.err(), /^karta serve: \S*tls\.crt, \S*tls\.key: not a usable certificate and key: the certificate file is empty$/m);
      } finally {
        // SIGTERM, not SIGKILL: a supervisor that started serving stops its serving processes.
        if (served.child.exitCode === null) {
          served.child.kill("SIGTERM");
          await served.exited;
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("flag errors exit 2", async () => {
    for (const args of [["--secure-port", "x", "--cert-dir", "/tmp/x"], [], ["--cert-dir", "/tmp/x", "--feature-gates", "Nope=true"], ["--cert-dir", "/tmp/x", "--max-request-bytes", "lots"], ["--bogus"], ["--cert-dir", "/tmp/x", "--path", "/a?b"], ["--cert-dir", "/tmp/x", "--path", "/a#b"], ["--cert-dir", "/tmp/x", "--metrics-bind-address", "8080"], ["--cert-dir", "/tmp/x", "--log-level", "trace"]]) {
      const io = memoryIO();
      assert.equal(await runServe(args, io), 2, args.join(" "));
      assert.match(io.err, /^karta serve: .*\nRun 'karta serve --help' for usage\.\n$/);
    }
    const help = memoryIO();
    assert.equal(await runServe(["--help"], help), 0);
    assert.match(help.out, /Example:\n {2}karta serve --cert-dir/);
  });
});

describe("karta webhook-config", () => {
  test("rules for each kind some layer answers, native kinds only with --include-native", async () => {
    const io = memoryIO();
    assert.equal(await runWebhookConfig(["--service-name", "karta", "--service-namespace", "karta-system"], io), 0, io.err);
    const config = parse(io.out) as { kind: string; webhooks: { clientConfig: { service: unknown }; rules: { kinds: string[]; apiGroups: string[]; operations: string[] }[]; timeoutSeconds: number; interpreterContextVersions: string[] }[] };
    assert.equal(config.kind, "ResourceInterpreterWebhookConfiguration");
    const hook = config.webhooks[0]!;
    assert.deepEqual(hook.clientConfig.service, { name: "karta", namespace: "karta-system", port: 443, path: "/interpret" });
    assert.deepEqual(hook.interpreterContextVersions, ["v1alpha1"]);
    assert.equal(hook.timeoutSeconds, 10);
    const kinds = hook.rules.map((r) => r.kinds[0]);
    assert.ok(kinds.includes("CloneSet") && kinds.includes("PyTorchJob"), kinds.join(","));
    assert.ok(!kinds.includes("Deployment"));
    const cloneset = hook.rules.find((r) => r.kinds[0] === "CloneSet")!;
    assert.deepEqual(cloneset.apiGroups, ["apps.kruise.io"]);
    assert.ok(cloneset.operations.includes("InterpretReplica"));
    assert.ok(!hook.rules.some((r) => r.operations.includes("InterpretComponent")), "InterpretComponent only with the gate");

    const all = memoryIO();
    assert.equal(await runWebhookConfig(["--include-native", "--feature-gates", "MultiplePodTemplatesScheduling=true", "--url", "https://127.0.0.1:8443/interpret", "-o", "json"], all), 0, all.err);
    const full = JSON.parse(all.out) as typeof config & { webhooks: { clientConfig: { url: string } }[] };
    assert.equal(full.webhooks[0]!.clientConfig.url, "https://127.0.0.1:8443/interpret");
    const deployment = full.webhooks[0]!.rules.find((r) => r.kinds[0] === "Deployment");
    assert.ok(deployment && deployment.operations.includes("Retain"));
    assert.ok(full.webhooks[0]!.rules.some((r) => r.operations.includes("InterpretComponent")));
  });

  test("a customization adds its kind; --ca-file sets caBundle; bad input is refused", async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, "ric.yaml"), RUNAWAY);
    writeFileSync(path.join(dir, "ca.crt"), "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
    const io = memoryIO();
    assert.equal(await runWebhookConfig(["--customizations", dir, "--ca-file", path.join(dir, "ca.crt")], io), 0, io.err);
    const hook = (parse(io.out) as { webhooks: { clientConfig: { caBundle: string }; rules: { kinds: string[]; operations: string[] }[] }[] }).webhooks[0]!;
    assert.deepEqual(hook.rules.find((r) => r.kinds[0] === "Runaway")?.operations, ["InterpretHealth"]);
    assert.match(Buffer.from(hook.clientConfig.caBundle, "base64").toString(), /BEGIN CERTIFICATE/);
    const bad = memoryIO();
    assert.equal(await runWebhookConfig(["--url", "http://insecure/"], bad), 2);
    assert.match(bad.err, /https/);
    const missing = memoryIO();
    assert.equal(await runWebhookConfig(["--customizations", path.join(dir, "nope")], missing), 2);
    assert.match(missing.err, /nope: error: cannot read/);
    rmSync(dir, { recursive: true, force: true });
  });

  test("--admission prints the controller's MutatingWebhookConfiguration: Pod CREATE, Ignore, 5 s, not kube-system nor its namespace", async () => {
    const io = memoryIO();
    assert.equal(await runWebhookConfig(["--admission", "--service-namespace", "karta-ops"], io), 0, io.err);
    const [config, validating] = parseAllDocuments(io.out).map((d) => d.toJSON()) as { kind: string; metadata: { name: string }; webhooks: Record<string, any>[] }[];
    assert.equal(config!.kind, "MutatingWebhookConfiguration");
    const hook = config!.webhooks[0]!;
    assert.deepEqual(hook.clientConfig, { service: { name: "karta-controller-webhook", namespace: "karta-ops", port: 443, path: "/mutate-v1-pod" } });
    assert.deepEqual(hook.rules, [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"], scope: "Namespaced" }]);
    assert.deepEqual([hook.failurePolicy, hook.sideEffects, hook.timeoutSeconds, hook.admissionReviewVersions, hook.objectSelector], ["Ignore", "None", 5, ["v1"], undefined]);
    assert.deepEqual(hook.namespaceSelector.matchExpressions, [{ key: "kubernetes.io/metadata.name", operator: "NotIn", values: ["kube-system", "karta-ops"] }]);
    // The Karta webhooks, as upstream's operator names and routes them.
    const mkarta = config!.webhooks[1]!;
    assert.deepEqual([mkarta.name, mkarta.clientConfig.service.path, mkarta.failurePolicy, mkarta.rules], [
      "mkarta.run.ai", "/mutate-run-ai-v1alpha1-karta", "Ignore", [{ operations: ["CREATE"], apiGroups: ["run.ai"], apiVersions: ["v1alpha1"], resources: ["kartas"], scope: "Cluster" }],
    ]);
    assert.equal(validating!.kind, "ValidatingWebhookConfiguration");
    assert.equal(validating!.metadata.name, "karta-controller");
    const vkarta = validating!.webhooks[0]!;
    assert.deepEqual([vkarta.name, vkarta.clientConfig.service, vkarta.failurePolicy, vkarta.rules[0].operations], [
      "vkarta.run.ai", { name: "karta-controller-webhook", namespace: "karta-ops", port: 443, path: "/validate-run-ai-v1alpha1-karta" }, "Fail", ["CREATE", "UPDATE"],
    ]);
    for (const u of ["https://127.0.0.1:9443/mutate-v1-pod", "https://127.0.0.1:9443"]) {
      const url = memoryIO();
      assert.equal(await runWebhookConfig(["--admission", "--url", u, "--controller-namespace", "ops", "-o", "json"], url), 0, url.err);
      const list = JSON.parse(url.out) as { kind: string; items: { webhooks: { clientConfig: unknown }[] }[] };
      assert.equal(list.kind, "List");
      assert.deepEqual(list.items.flatMap((c) => c.webhooks.map((w) => w.clientConfig)), [
        { url: "https://127.0.0.1:9443/mutate-v1-pod" }, { url: "https://127.0.0.1:9443/mutate-run-ai-v1alpha1-karta" }, { url: "https://127.0.0.1:9443/validate-run-ai-v1alpha1-karta" },
      ]);
    }
    const mixed = memoryIO();
    assert.equal(await runWebhookConfig(["--admission", "--definitions", "definitions/"], mixed), 2);
    assert.match(mixed.err, /--definitions does not apply to --admission/);
  });
});

describe("karta interpret: Lua deadline inside library functions", () => {
  test("a script stuck in string.find is stopped at its deadline: exit 1 with a clear error", async () => {
    const io = memoryIO("", {
      "/ric.yaml": RUNAWAY,
      "/obj.yaml": "apiVersion: example.io/v1\nkind: Runaway\nmetadata: {name: r}\n",
    });
    const started = Date.now();
    const code = await runInterpret(["-f", "/ric.yaml", "--operation", "InterpretHealth", "--observed-file", "/obj.yaml"], io);
    const ms = Date.now() - started;
    assert.equal(code, 1);
    assert.match(io.err, /^Execute InterpretHealth error: context deadline exceeded: the Lua script was stopped at its deadline inside a library function \(layer: declarative\)\n$/);
    assert.ok(ms < 30_000, `took ${ms} ms`);
  });

  test("--check --desired-file runs each script with the same bound", async () => {
    const io = memoryIO("", {
      "/ric.yaml": RUNAWAY,
      "/obj.yaml": "apiVersion: example.io/v1\nkind: Runaway\nmetadata: {name: r}\n",
    });
    const code = await runInterpret(["-f", "/ric.yaml", "--check", "--desired-file", "/obj.yaml"], io);
    assert.equal(code, 1);
    assert.match(io.out, /InterpretHealth: +ERROR: context deadline exceeded: the Lua script was stopped at its deadline inside a library function *\n/);
    assert.match(io.out, /Retain: +UNSET\n/);
  });
});

describe("deploy/webhook", () => {
  test("the Karmada webhook configuration is what karta webhook-config prints", async () => {
    const io = memoryIO();
    assert.equal(await runWebhookConfig(["--service-name", "karta-webhook", "--service-namespace", "karta-system", "--name", "karta"], io), 0, io.err);
    const committed = parse(readFileSync(path.join(repoRoot, "deploy/webhook/karmada/webhook-configuration.yaml"), "utf8")) as unknown;
    assert.deepEqual(committed, parse(io.out), "regenerate deploy/webhook/karmada/webhook-configuration.yaml with the command in its first line");
  });

  test("the Deployment's arguments are flags karta serve accepts", async () => {
    const docs = readFileSync(path.join(repoRoot, "deploy/webhook/deployment.yaml"), "utf8");
    const deployment = parse(docs) as { spec: { template: { spec: { containers: { args: string[] }[] } } } };
    const args = deployment.spec.template.spec.containers[0]!.args;
    assert.equal(args[0], "serve");
    // Parsed but not started: a missing certificate file stops it before it listens.
    const io = memoryIO();
    const code = await runServe([...args.slice(1).filter((a) => !a.startsWith("--customizations") && !a.startsWith("--definitions")), "--tls-cert-file=/nonexistent/tls.crt"], io);
    assert.equal(code, 1, io.err);
    assert.match(io.err, /nonexistent\/tls\.crt: cannot read/);
  });

  test("the Deployment keeps serving after its deletion (a preStop sleep), and its grace period covers the sleep and the drain", () => {
    type Spec = { terminationGracePeriodSeconds: number; containers: { args: string[]; lifecycle?: { preStop?: { sleep?: { seconds: number } } } }[] };
    const pod = (parse(readFileSync(path.join(repoRoot, "deploy/webhook/deployment.yaml"), "utf8")) as { spec: { template: { spec: Spec } } }).spec.template.spec;
    const container = pod.containers[0]!;
    const sleep = container.lifecycle?.preStop?.sleep?.seconds ?? 0;
    assert.ok(sleep >= 5, `preStop sleep ${sleep} s`);
    const grace = parseDuration(container.args.find((a) => a.startsWith("--shutdown-grace-period="))!.split("=")[1]!)! / 1000;
    assert.ok(sleep + grace < pod.terminationGracePeriodSeconds, `${sleep} s + ${grace} s within ${pod.terminationGracePeriodSeconds} s`);
  });
});
