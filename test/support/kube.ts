/**
 * @kubernetes/client-node as the tests use it to set up and read clusters: objects as the JSON the server
 * sent. Karta itself talks to the API server through src/controller/client.ts.
 */
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
