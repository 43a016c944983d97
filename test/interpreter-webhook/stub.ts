/**
 * A webhook that answers ResourceInterpreterContexts over HTTPS on loopback with a test's answer
 * function, and the ResourceInterpreterWebhookConfiguration that points at it: what the CLI tests of
 * `--webhook-config` run against.
 */
import https from "node:https";
import type { AddressInfo } from "node:net";
import type { TestPki } from "./tls.js";

/** A context as the webhook receives it. */
export interface StubContext {
  apiVersion: string;
  kind: string;
  request: { uid: string; operation: string; object: Record<string, unknown> } & Record<string, unknown>;
}

/** A running stub. */
export interface WebhookStub {
  port: number;
  close(): Promise<void>;
}

/** Starts a webhook answering each context with `{uid, ...answer(context)}` as its response. */
export async function startWebhookStub(pki: TestPki, answer: (ctx: StubContext) => Record<string, unknown>): Promise<WebhookStub> {
  const server = https.createServer({ key: pki.keyPem, cert: pki.certPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const ctx = JSON.parse(Buffer.concat(chunks).toString("utf8")) as StubContext;
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ apiVersion: ctx.apiVersion, kind: ctx.kind, response: { uid: ctx.request.uid, ...answer(ctx) } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A ResourceInterpreterWebhookConfiguration with one webhook for one operation of one kind, at `url`. */
export function webhookConfiguration(o: { name: string; operation: string; apiGroup: string; apiVersion: string; kind: string; url: string; caBundle: string }): string {
  return `apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterWebhookConfiguration
metadata:
  name: examples
webhooks:
  - name: ${o.name}
    rules:
      - operations: ["${o.operation}"]
        apiGroups: ["${o.apiGroup}"]
        apiVersions: ["${o.apiVersion}"]
        kinds: ["${o.kind}"]
    clientConfig:
      url: ${o.url}
      caBundle: ${o.caBundle}
    interpreterContextVersions: ["v1alpha1"]
    timeoutSeconds: 5
`;
}
