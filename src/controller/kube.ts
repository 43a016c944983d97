/**
 * @kubernetes/client-node for the commands that read a cluster through it (`karta inspect --live`,
 * `get`, `describe`) and for the tests: the kubeconfig (flag, KUBECONFIG, or the in-cluster service
 * account), plain-JSON objects, shared keep-alive connections, and structured errors. `karta controller`
 * does not load client-node at all (src/controller/client.ts, informer.ts, kubeconfig.ts).
 */
import { Agent as HttpsAgent, type AgentOptions } from "node:https";
import { KubeConfig } from "@kubernetes/client-node";
// The documented way to register a model; the package's index does not re-export it.
import { ObjectSerializer } from "@kubernetes/client-node/dist/serializer.js";

/**
 * client-node turns objects of the kinds it knows into its generated models, which drop fields newer than
 * the models (Pod spec.schedulingGroup, Kubernetes 1.36). A pass-through model keeps those kinds as the
 * JSON the server sent.
 */
export function keepPlainJson(kinds: { group: string; version: string; kind: string }[]): void {
  const identity = { serialize: (o: unknown) => o, deserialize: (o: unknown) => o };
  for (const gvk of kinds) {
    try {
      ObjectSerializer.registerModel(gvk, identity);
    } catch {
      // already registered in this process
    }
  }
}

keepPlainJson([
  { group: "", version: "v1", kind: "Pod" },
  { group: "", version: "v1", kind: "PodList" },
]);

/**
 * client-node (1.4) makes a new https.Agent for every request, so every request pays a TCP connect, a
 * TLS handshake and the parsing of the client key and CAs: most of a busy controller's CPU. Requests with
 * the same TLS options share one keep-alive agent instead (proxied clusters keep client-node's agents).
 */
export function shareConnections(kc: KubeConfig): KubeConfig {
  const k = kc as unknown as { createAgent: (cluster: { proxyUrl?: string; server?: string } | null, options: AgentOptions) => unknown };
  const original = k.createAgent.bind(kc);
  const agents = new Map<string, HttpsAgent>();
  k.createAgent = (cluster, options) => {
    if (cluster?.proxyUrl || !cluster?.server?.startsWith("https:")) return original(cluster, options);
    const key = JSON.stringify([options.ca, options.cert, options.key, options.pfx, options.passphrase, options.rejectUnauthorized, options.servername].map((v) => (Buffer.isBuffer(v) ? v.toString("base64") : v)));
    let agent = agents.get(key);
    if (!agent) {
      // An idle socket is closed after 30 s, before the API server's own idle timeout (90 s) can close
      // it under a request; a socket in use (a quiet watch) is not timed out by this.
      agent = new HttpsAgent({ ...options, keepAlive: true, timeout: 30_000 });
      // A rotated certificate gives a new key; an old agent's requests and watches finish on their own.
      if (agents.size >= 4) agents.delete(agents.keys().next().value!);
      agents.set(key, agent);
    }
    return agent;
  };
  return kc;
}

/** Kubeconfig as kubectl finds it: `--kubeconfig`, else KUBECONFIG / ~/.kube/config, else in-cluster; `--context` selects a context. */
export function loadKubeConfig(options: { kubeconfig?: string; context?: string } = {}): KubeConfig {
  const kc = new KubeConfig();
  if (options.kubeconfig !== undefined) kc.loadFromFile(options.kubeconfig);
  else kc.loadFromDefault();
  if (options.context !== undefined) {
    if (!kc.getContexts().some((c) => c.name === options.context)) throw new Error(`context "${options.context}" is not in the kubeconfig`);
    kc.setCurrentContext(options.context);
  }
  if (kc.getCurrentCluster() === null) throw new Error("no cluster in the kubeconfig (give --kubeconfig, set KUBECONFIG, or run in a pod)");
  return shareConnections(kc);
}

export { apiError, type ApiErrorInfo } from "./client.js";
