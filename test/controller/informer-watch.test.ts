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

/** A local server answering every request with `handle`, and a client of it; `open` responses are ended at close. */
async function local(handle: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
  const open: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const client = new KubeClient({ server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, insecureSkipTLSVerify: false, source: "test" });
  const close = async (): Promise<void> => {
    client.close();
    for (const r of open) r.end();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  };
  return { client, open, close };
}

/** A pod informer of `client`, its log lines kept as "LEVEL MSG FIELDS". */
function podInformer(client: KubeClient): { informer: Informer<Pod>; logs: string[] } {
  const logs: string[] = [];
  const informer = new Informer<Pod>(client, { path: "/api/v1/pods", what: "pods", log: (level, msg, fields) => logs.push(`${level} ${msg} ${JSON.stringify(fields)}`) });
  return { informer, logs };
}

const resourceVersionOf = (req: http.IncomingMessage): string => new URL(req.url ?? "/", "http://x").searchParams.get("resourceVersion") ?? "";

for (const how of ["with the end of the stream", "on a stream left open"] as const) {
  test(`a watch refused with an ERROR event (410 Expired) ${how}: the informer lists again and catches up`, async () => {
    const watches: string[] = [];
    const { client, open, close } = await local((req, res) => {
      const rv = resourceVersionOf(req);
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
    const { informer, logs } = podInformer(client);
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
      await close();
    }
  });
}

test("a watch stream that is not JSON is a failed watch (an error, with the line); a connection cut mid-stream is an outage (info)", async () => {
  const watches: string[] = [];
  const { client, open, close } = await local((req, res) => {
    watches.push(resourceVersionOf(req));
    res.writeHead(200, { "Content-Type": "application/json" });
    if (watches.length === 1) res.end(line("ADDED", pod("a", 2)) + bookmark(3));
    else if (watches.length === 2) res.end(`${line("ADDED", pod("b", 4))}<html>502 Bad Gateway</html>\n`);
    else if (watches.length === 3) {
      res.write(line("ADDED", pod("c", 5)));
      setTimeout(() => res.destroy(), 50);
    } else {
      res.write(line("ADDED", pod("d", 6)));
      open.push(res);
    }
  });
  const { informer, logs } = podInformer(client);
  try {
    await informer.start();
    await eventually(async () => (informer.get("d", "ns") ? true : undefined), 20_000, "the watch after the cut connection");
    assert.deepEqual(watches, ["", "3", "4", "5"], "each watch goes on from the last event read");
    const failed = logs.filter((l) => l.startsWith("error watch failed; retrying"));
    assert.equal(failed.length, 1, logs.join("\n"));
    assert.match(failed[0]!, /the watch stream sent a line that is not JSON: <html>502 Bad Gateway<\/html>/);
    assert.equal(logs.filter((l) => l.startsWith("info API server unavailable; retrying")).length, 1, logs.join("\n"));
    assert.equal(informer.stats.failures, 2);
  } finally {
    await informer.stop();
    await close();
  }
});

test("a watch read in batches (batchMs): the first event at once, what follows within the window together, nothing lost; the connection is reused at once", async () => {
  const { client, close } = await local((_req, res) => {
    res.writeHead(200, { "Content-Type": "application/json" });
    res.write(line("ADDED", pod("a", 2)));
    setTimeout(() => res.write(line("ADDED", pod("b", 3))), 100);
    setTimeout(() => res.end(line("ADDED", pod("c", 4))), 200);
  });
  try {
    const batchMs = 1500;
    const watch = async () => {
      const t0 = performance.now();
      const seen: [string, number][] = [];
      await client.watch("/api/v1/pods", {}, (e) => seen.push([(e.object as Pod).metadata.name, performance.now() - t0]), new AbortController().signal, { batchMs });
      return seen;
    };
    const first = await watch();
    assert.deepEqual(first.map(([n]) => n), ["a", "b", "c"]);
    const [[, a], [, b], [, c]] = first as [[string, number], [string, number], [string, number]];
    assert.ok(b - a >= batchMs - 200, `b was read ${Math.round(b - a)} ms after a: the socket was not left unread`);
    assert.ok(c - b < 500, `b and c were read ${Math.round(c - b)} ms apart: not together`);
    // The same keep-alive socket serves the next watch, read at once (not left paused by the last batch).
    const second = await watch();
    assert.deepEqual(second.map(([n]) => n), ["a", "b", "c"]);
    assert.ok(second[0]![1] < 1000, `the next watch's first event came after ${Math.round(second[0]![1])} ms`);
  } finally {
    await close();
  }
});
