/**
 * The regex worker: runs one match request at a time for the calling thread, which waits for it with a
 * deadline and terminates this thread when the deadline passes (a backtracking match cannot be
 * interrupted from inside). It signals completion through the shared flag.
 */
import { parentPort, workerData } from "node:worker_threads";
import { execAll, type RegexRequest, type RegexResponse } from "./regex-exec.js";

const { flag, port } = workerData as { flag: Int32Array; port: import("node:worker_threads").MessagePort };
const compiled = new Map<string, RegExp>();

port.on("message", (req: RegexRequest) => {
  let response: RegexResponse;
  try {
    const key = req.flags + "\u0000" + req.source;
    let re = compiled.get(key);
    if (re === undefined) {
      if (compiled.size > 256) compiled.clear();
      re = new RegExp(req.source, req.flags);
      compiled.set(key, re);
    }
    response = { ok: true, result: execAll(re, req.input, req.global, req.testMode, req.groupNames) };
  } catch (e) {
    response = { ok: false, message: e instanceof Error ? e.message : String(e) };
  }
  port.postMessage(response);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
});
void parentPort;
// Ready: the calling thread waits for this before its first request.
Atomics.store(flag, 0, 2);
Atomics.notify(flag, 0);
