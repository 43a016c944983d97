/**
 * The servers bench/admission.ts loads, each in a process of its own:
 * - `karta CERT KEY ROOTS`: karta controller's webhook server (src/controller/webhook.ts) answering from a
 *   cache of ROOTS LeaderWorkerSets, as the informers hold them: per set its leaders' StatefulSet, 10 leader
 *   pods each owning a workers' StatefulSet of 4 worker pods (50 pods a set), found through the same owner-
 *   chain code the controller runs;
 * - `hello CERT KEY`: a Node.js https server that reads the same AdmissionReview, parses it and answers
 *   "allowed", the least any webhook does.
 * Prints `port N` (and the cache's size) on standard output once listening.
 */
import https from "node:https";
import type { AddressInfo } from "node:net";
import { readFileSync } from "node:fs";
import type { KubernetesObject } from "../src/controller/kubernetes-object.js";
import { findPodRoot } from "../src/controller/admission.js";
import { ControllerMetrics } from "../src/controller/metrics.js";
import { silentLogger } from "../src/controller/log.js";
import { groupKindKey, type ChainLookup } from "../src/controller/owners.js";
import { startWebhook } from "../src/controller/webhook.js";
import { compileInterpreter } from "../src/interpret/index.js";
import { loadDefinitions } from "../src/definition/index.js";
import { lwsSet, LWS_FIXTURE } from "./admission-objects.js";

const [mode, certFile, keyFile, rootsArg] = process.argv.slice(2);

if (mode === "hello") {
  const server = https.createServer({ cert: readFileSync(certFile!), key: readFileSync(keyFile!) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const review = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { request: { uid: string } };
      const body = JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid: review.request.uid, allowed: true } });
      res.writeHead(200, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) }).end(body);
    });
  });
  server.keepAliveTimeout = 30_000;
  server.listen(0, "127.0.0.1", () => console.log(`port ${(server.address() as AddressInfo).port}`));
} else if (mode === "karta") {
  const roots = Number(rootsArg ?? 1000);
  const karta = loadDefinitions(readFileSync(LWS_FIXTURE.definition, "utf8"), LWS_FIXTURE.definition).definitions[0]!.karta;
  const interpreter = compileInterpreter(karta);
  // The informer caches: kind -> namespace/name -> object.
  const caches = new Map<string, Map<string, KubernetesObject>>([["leaderworkerset.x-k8s.io/LeaderWorkerSet", new Map()], ["apps/StatefulSet", new Map()], ["/Pod", new Map()]]);
  for (let i = 0; i < roots; i++) {
    for (const o of lwsSet(i)) caches.get(`${o.apiVersion!.includes("/") ? o.apiVersion!.split("/")[0] : ""}/${o.kind}`)!.set(`${o.metadata!.namespace}/${o.metadata!.name}`, o);
  }
  const lookup: ChainLookup = {
    rootKarta: (gk) => (gk.group === "leaderworkerset.x-k8s.io" && gk.kind === "LeaderWorkerSet" ? "lws" : undefined),
    object: (gk, ns, name) => {
      const cache = caches.get(groupKindKey(gk));
      return cache ? cache.get(`${ns}/${name}`) : null;
    },
  };
  const webhook = await startWebhook({
    host: "127.0.0.1",
    port: 0,
    certFile: certFile!,
    keyFile: keyFile!,
    metrics: new ControllerMetrics(),
    log: silentLogger,
    source: {
      podRoot: (pod, ns) =>
        findPodRoot(pod, ns, lookup, (_karta, name) => {
          const root = caches.get("leaderworkerset.x-k8s.io/LeaderWorkerSet")!.get(`${ns}/${name}`);
          return root ? { interpreter, root } : undefined;
        }),
    },
  });
  console.log(`port ${webhook.port} roots ${roots} pods ${caches.get("/Pod")!.size} statefulsets ${caches.get("apps/StatefulSet")!.size}`);
} else {
  console.error("usage: admission-server.js karta|hello CERT KEY [ROOTS]");
  process.exit(2);
}
