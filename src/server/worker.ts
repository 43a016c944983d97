/**
 * An evaluation worker thread: builds the interpreter framework from the source it is given and
 * answers requests with it. A new source is built while requests keep being answered with the
 * current framework, then swapped in between two requests. The Lua VM publishes each call's deadline
 * on the shared board, so that the pool can terminate this thread when a script runs past it inside
 * a library function (where no hook fires). Requests the pool took back (to give them to another
 * worker while this one was busy) are skipped unanswered.
 */
import { parentPort, workerData } from "node:worker_threads";
import { DeclarativeInterpreter } from "../interpreter/declarative/interpreter.js";
import { kubeLibrary } from "../interpreter/lua/kube.js";
import { LuaVM, publishLuaDeadlines } from "../interpreter/lua/vm.js";
import { buildFramework, type BuiltFramework, type FrameworkSource } from "./config.js";
import { contextResponse, decodeContext } from "./context.js";
import { answer, badRequest, runCustomizationRule, runOperation } from "./evaluate.js";
import { SKIP_SLOTS, type WorkerData, type WorkerReply, type WorkerRequest } from "./pool.js";

const data = workerData as WorkerData;
const port = parentPort!;
publishLuaDeadlines(new Float64Array(data.board));
const skip = new BigInt64Array(data.skip);

let current: BuiltFramework | undefined;
let ruleVm: LuaVM | undefined;

async function load(source: FrameworkSource, generation: number): Promise<void> {
  try {
    const built = await buildFramework(source);
    const old = current;
    current = built;
    old?.close();
    port.postMessage({ type: "ready", generation } satisfies WorkerReply);
  } catch (e) {
    port.postMessage({ type: "failed", generation, message: e instanceof Error ? e.message : String(e) } satisfies WorkerReply);
  }
}

async function handle(msg: WorkerRequest): Promise<void> {
  if (msg.type === "source") return load(msg.source, msg.generation);
  const id = BigInt(msg.id);
  if (Atomics.load(skip, msg.id % SKIP_SLOTS) === id) return;
  Atomics.store(skip, SKIP_SLOTS, id);
  const fw = current!.framework;
  if (msg.type === "context") {
    const decoded = decodeContext(msg.body);
    if (!decoded.ok) {
      const bad = badRequest(decoded.uid, decoded.message);
      port.postMessage({ type: "done", id: msg.id, value: { body: contextResponse(bad.response), meta: bad.meta, ms: 0 } } satisfies WorkerReply);
      return;
    }
    const started = performance.now();
    const { response, meta } = await answer(fw, decoded.request);
    const ms = performance.now() - started;
    port.postMessage({ type: "done", id: msg.id, value: { body: contextResponse(response), meta, ms } } satisfies WorkerReply);
    return;
  }
  if (msg.type === "rule") {
    ruleVm ??= await LuaVM.create({ kube: kubeLibrary() });
    const error = await runCustomizationRule(new DeclarativeInterpreter(ruleVm, [msg.customization]), msg.operation, msg.sample, msg.observed, msg.items, msg.replicas, msg.components ?? []);
    port.postMessage({ type: "done", id: msg.id, value: error ?? null } satisfies WorkerReply);
    return;
  }
  const outcome = await runOperation(fw, msg.input);
  port.postMessage({ type: "done", id: msg.id, value: outcome } satisfies WorkerReply);
}

// One message at a time: a request waits for a source being built, so it never sees a half-built one.
let chain: Promise<void> = load(data.source, data.generation);
port.on("message", (msg: WorkerRequest) => {
  chain = chain.then(() => handle(msg)).catch((e: unknown) => {
    if (msg.type !== "source") port.postMessage({ type: "crashed", id: msg.id, message: e instanceof Error ? e.message : String(e) } satisfies WorkerReply);
  });
});
