/**
 * A local HTTP (or, with `tls`, HTTPS) server that answers as kube-apiserver does for what `karta get` reads: discovery (the
 * kubeflow.org group with PyTorchJobs, and pods), and the lists of namespace `team` (the bundled example
 * PyTorchJob, no pods); every other path is a 404 Status. Watches are refused with 500, as an API server
 * whose etcd is down answers. For the live commands where a real API server cannot be made to fail on
 * cue, or is not needed (test/cluster has the real one).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { parse } from "yaml";
import { repoRoot } from "./conformance.js";
import { writeCerts } from "../server/helpers.js";

export interface FakeApiServer {
  /** A kubeconfig for it, context namespace `team`. */
  kubeconfig: string;
  /** The kubeconfig's directory (relative paths in it start there). */
  dir: string;
  /** The Authorization header of each request ("" for none): read from `headers`. */
  readonly authorizations: string[];
  /** The headers of each request. */
  headers: http.IncomingHttpHeaders[];
  /** The path and query of each request. */
  urls: string[];
  /** The server's URL (http[s]://127.0.0.1:PORT), whatever host the kubeconfig names. */
  url: string;
  /** With `tls`: the CA file that verifies it. */
  caFile?: string;
  /** The paths of the watches it refused. */
  watches: string[];
  close(): void;
}

const status = (code: number, reason: string, message: string) => ({ kind: "Status", apiVersion: "v1", status: "Failure", code, reason, message });

/**
 * `user`: the kubeconfig's user entry, as YAML flow (default a token); `tls`: serve HTTPS with a CA the
 * kubeconfig names (credentials are sent only over TLS, as by client-go); `listDelayMs`: the PyTorchJob
 * list answers that late; `serverHost`: the host the kubeconfig names (default 127.0.0.1; another reaches
 * the server only through a proxy that sends it to 127.0.0.1); `refuse`: an Authorization answered 401, as
 * an expired token is; `gone`: watches of the PyTorchJobs answered 404, as after their CRD is deleted;
 * `kartas`: the Karta CRD is served (run.ai/v1alpha1), its list these Kartas, or 403 for `forbidden`;
 * `named`: the PyTorchJob is read by name too (else only listed).
 */
export async function startFakeApiServer(o: { user?: string; tls?: boolean; listDelayMs?: number; serverHost?: string; refuse?: string; gone?: boolean; kartas?: unknown[] | "forbidden"; named?: boolean } = {}): Promise<FakeApiServer> {
  const dir = mkdtempSync(path.join(tmpdir(), "karta-fake-apiserver-"));
  const certs = o.tls ? writeCerts(dir) : undefined;
  const job = parse(readFileSync(path.join(repoRoot, "examples", "pytorchjob.yaml"), "utf8")) as { metadata: Record<string, unknown> };
  job.metadata = { ...job.metadata, namespace: "team", uid: "job-uid", resourceVersion: "4", creationTimestamp: "2026-12-01T00:00:00Z" };
  // Gzip when asked, as kube-apiserver does for answers over 128 KiB (here: every answer).
  const json = (res: http.ServerResponse, code: number, body: unknown): void => {
    const text = JSON.stringify(body);
    if (/\bgzip\b/.test(String(res.req.headers["accept-encoding"] ?? ""))) {
      res.writeHead(code, { "Content-Type": "application/json", "Content-Encoding": "gzip" });
      res.end(gzipSync(text));
      return;
    }
    res.writeHead(code, { "Content-Type": "application/json" });
    res.end(text);
  };
  const watches: string[] = [];
  const headers: http.IncomingHttpHeaders[] = [];
  const urls: string[] = [];
  const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    req.resume();
    urls.push(req.url ?? "");
    headers.push(req.headers);
    if (o.refuse !== undefined && req.headers.authorization === o.refuse) return json(res, 401, status(401, "Unauthorized", "Unauthorized"));
    const url = new URL(req.url ?? "/", "http://x");
    if (url.searchParams.get("watch") === "true") {
      watches.push(url.pathname);
      if (o.gone && url.pathname.includes("/pytorchjobs")) return json(res, 404, status(404, "NotFound", "the server could not find the requested resource"));
      return json(res, 500, status(500, "InternalError", "etcdserver: request timed out"));
    }
    switch (url.pathname) {
      case "/apis": {
        const runai = { name: "run.ai", versions: [{ groupVersion: "run.ai/v1alpha1", version: "v1alpha1" }], preferredVersion: { groupVersion: "run.ai/v1alpha1", version: "v1alpha1" } };
        const kubeflow = { name: "kubeflow.org", versions: [{ groupVersion: "kubeflow.org/v1", version: "v1" }], preferredVersion: { groupVersion: "kubeflow.org/v1", version: "v1" } };
        return json(res, 200, { kind: "APIGroupList", apiVersion: "v1", groups: o.kartas !== undefined ? [kubeflow, runai] : [kubeflow] });
      }
      case "/apis/run.ai/v1alpha1":
        if (o.kartas === undefined) break;
        return json(res, 200, { kind: "APIResourceList", groupVersion: "run.ai/v1alpha1", resources: [{ name: "kartas", singularName: "karta", namespaced: false, kind: "Karta", shortNames: ["krt"], verbs: ["get", "list", "watch"] }] });
      case "/apis/run.ai/v1alpha1/kartas":
        if (o.kartas === undefined) break;
        if (o.kartas === "forbidden") return json(res, 403, status(403, "Forbidden", 'kartas.run.ai is forbidden: User "u" cannot list resource "kartas" in API group "run.ai" at the cluster scope'));
        return json(res, 200, { kind: "KartaList", apiVersion: "run.ai/v1alpha1", metadata: { resourceVersion: "5" }, items: o.kartas });
      case "/api/v1":
        return json(res, 200, { kind: "APIResourceList", groupVersion: "v1", resources: [{ name: "pods", singularName: "pod", namespaced: true, kind: "Pod", verbs: ["get", "list", "watch"] }] });
      case "/apis/kubeflow.org/v1":
        return json(res, 200, { kind: "APIResourceList", groupVersion: "kubeflow.org/v1", resources: [{ name: "pytorchjobs", singularName: "pytorchjob", namespaced: true, kind: "PyTorchJob", verbs: ["get", "list", "watch"] }] });
      case "/apis/kubeflow.org/v1/namespaces/team/pytorchjobs": {
        const answer = (): void => json(res, 200, { kind: "PyTorchJobList", apiVersion: "kubeflow.org/v1", metadata: { resourceVersion: "5" }, items: [job] });
        if (o.listDelayMs) setTimeout(answer, o.listDelayMs).unref();
        else answer();
        return;
      }
      case "/apis/kubeflow.org/v1/namespaces/team/pytorchjobs/llama-finetune":
        if (!o.named) break;
        return json(res, 200, { ...job, apiVersion: "kubeflow.org/v1", kind: "PyTorchJob" });
      case "/api/v1/namespaces/team/pods":
        return json(res, 200, { kind: "PodList", apiVersion: "v1", metadata: { resourceVersion: "5" }, items: [] });
      default:
        break;
    }
    return json(res, 404, status(404, "NotFound", "the server could not find the requested resource"));
  };
  const server = certs ? https.createServer({ cert: readFileSync(certs.certFile), key: readFileSync(certs.keyFile) }, handler) : http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const scheme = certs ? "https" : "http";
  const port = (server.address() as AddressInfo).port;
  const kubeconfig = path.join(dir, "kubeconfig");
  const ca = certs ? `, certificate-authority: ${certs.caFile}` : "";
  writeFileSync(
    kubeconfig,
    `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "${scheme}://${o.serverHost ?? "127.0.0.1"}:${port}"${ca}}}]\nusers: [{name: u, user: ${o.user ?? "{token: t}"}}]\ncontexts: [{name: x, context: {cluster: c, user: u, namespace: team}}]\ncurrent-context: x\n`,
  );
  return {
    kubeconfig,
    dir,
    get authorizations() {
      return headers.map((h) => h.authorization ?? "");
    },
    headers,
    urls,
    url: `${scheme}://127.0.0.1:${port}`,
    ...(certs ? { caFile: certs.caFile } : {}),
    watches,
    close: () => {
      server.close();
      server.closeAllConnections();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The first lines `karta get pytorchjobs` prints for it (the columns vary with the age). */
export const FAKE_GET_OUTPUT = /^NAME\s+NAMESPACE\s.*\nllama-finetune\s+team\s/;

/**
 * An API server that answers 503 to every request (etcd down), and a kubeconfig for it in a directory of
 * its own: what a controller meets before its caches can sync. `close` stops it and removes the directory.
 */
export async function startUnavailableApiServer(): Promise<{ kubeconfig: string; close: () => void }> {
  const server = http.createServer((req, res) => {
    req.resume();
    res.writeHead(503, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", code: 503, reason: "ServiceUnavailable", message: "etcd is down" }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const dir = mkdtempSync(path.join(tmpdir(), "karta-unavailable-"));
  const kubeconfig = path.join(dir, "kubeconfig");
  writeFileSync(kubeconfig, `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "http://127.0.0.1:${(server.address() as AddressInfo).port}"}}]\nusers: [{name: u, user: {}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n`);
  return {
    kubeconfig,
    close: () => {
      server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
