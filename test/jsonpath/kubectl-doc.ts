/** kubectl's documentation example for JSONPath (reference/kubectl/jsonpath), as a List: the tests' shared input. */
import type { JsonValue } from "../../src/input/index.js";

export const KUBECTL_DOC: JsonValue = {
  kind: "List",
  items: [
    { kind: "None", metadata: { name: "127.0.0.1", labels: { "kubernetes.io/hostname": "127.0.0.1" } }, status: { capacity: { cpu: "4" }, addresses: [{ type: "LegacyHostIP", address: "127.0.0.1" }] } },
    { kind: "None", metadata: { name: "127.0.0.2" }, status: { capacity: { cpu: "8" }, addresses: [{ type: "LegacyHostIP", address: "127.0.0.2" }, { type: "another", address: "127.0.0.3" }] } },
  ],
  users: [
    { name: "myself", user: {} },
    { name: "e2e", user: { username: "admin", password: "secret" } },
  ],
};
