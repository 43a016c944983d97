/**
 * The informer's watch protocol against a local HTTP server that answers as kube-apiserver does: a
 * watch-list (ADDED events, then the bookmark marked k8s.io/initial-events-end), and a watch from a
 * resourceVersion the server no longer has, answered 200 with one ERROR event carrying a 410 Expired
 * Status. The ERROR event may arrive in the same packet as the end of the stream, or while the stream
 * stays open; either way the informer lists again and its cache is what the server has now. (The real
 * server is in test/cluster; there the timing of a 410 cannot be chosen.)
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { KubeClient } from "../../src/controller/client.js";
import { Informer } from "../../src/controller/informer.js";
import { eventually } from "../support/cluster.js";
import { expiredWatchEvent } from "../support/faults.js";

type Pod = { apiVersion: string; kind: string; metadata: { name: string; namespace: string; resourceVersion: string; annotations?: Record<string, string> } };
const pod = (name: string, rv: number): Pod => ({ apiVersion: "v1", kind: "Pod", metadata: { name, namespace: "ns", resourceVersion: String(rv) } });
const line = (type: string, object: unknown): string => `${JSON.stringify({ type, object })}\n`;
const bookmark = (rv: number): string => line("BOOKMARK", { apiVersion: "v1", kind: "Pod", metadata: { resourceVersion: String(rv), annotations: { "k8s.io/initial-events-end": "true" } } });

for (const how of ["with the end of the stream", "on a stream left open"] as const) {
  test(`a watch refused with an ERROR event (410 Expired) ${how}: the informer lists again and catches up`, async () => {
    const watches: string[] = [];
    const open: http.ServerResponse[] = [];
    const server = http.createServer((req, res) => {
      req.resume();
      const rv = new URL(req.url ?? "/", "http://x").searchParams.get("resourceVersion") ?? "";
      watches.push(rv);
      res.writeHead(200, { "Content-Type": "application/json" });
      if (watches.length === 1) {
        // The first state: a and b; then the watch goes on, and the server ends it.
        res.write(line("ADDED", pod("a", 2)) + line("ADDED", pod("b", 3)) + bookmark(4));
        setTimeout(() => res.end(), 50);
      } else if (watches.length === 2) {
        if (how === "with the end of the stream") res.end(expiredWatchEvent(rv, 9));
        else {
          res.write(expiredWatchEvent(rv, 9));
          open.push(res);
        }
      } else {
        // Listed again: b is gone, c is new.
        res.write(line("ADDED", pod("a", 2)) + line("ADDED", pod("c", 10)) + bookmark(11));
        open.push(res);
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const logs: string[] = [];
    const informer = new Informer<Pod>(new KubeClient({ server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, insecureSkipTLSVerify: false, source: "test" }), {
      path: "/api/v1/pods",
      what: "pods",
      log: (level, msg, fields) => logs.push(`${level} ${msg} ${JSON.stringify(fields)}`),
    });
    const deleted: string[] = [];
    informer.on("delete", (o) => deleted.push(o.metadata.name));
    try {
      await informer.start();
      await eventually(async () => (informer.get("c", "ns") ? true : undefined), 10_000, "the list after the 410");
      assert.deepEqual(watches, ["", "4", ""], "a watch-list, a watch from the bookmark's resourceVersion, a watch-list again");
      assert.deepEqual(informer.list().map((o) => o.metadata.name).sort(), ["a", "c"]);
      assert.deepEqual(deleted, ["b"], "what the new list lacks is deleted");
      assert.equal(informer.lastResourceVersion(), "11");
      assert.ok(logs.some((l) => l.startsWith("info watch expired; listing again") && l.includes('"why":"too old resource version: 4 (9)"')), logs.join("\n"));
      assert.deepEqual(logs.filter((l) => !l.startsWith("info watch expired") && !l.startsWith("debug")), [], "nothing else logged: no failure, no retry");
      assert.equal(informer.stats.failures, 0);
    } finally {
      await informer.stop();
      for (const r of open) r.end();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
}
