/**
 * The Lua VM adapter: one Lua 5.4 state (wasmoon's wasm build, driven through its raw C API) set up
 * as Karmada's gopher-lua sandbox, running customization scripts with bounded time, instructions and
 * memory.
 *
 * Calls are synchronous and the state is reused: JavaScript runs one call at a time, so one state
 * serves every call (no pool is needed), and each call gets a fresh global environment. Every call
 * re-runs its script's chunk before calling the function, as Karmada's `DoString` per call does.
 */
import { LuaWasm } from "wasmoon";
import type { JsonValue } from "../types.js";
import { LuaArgumentError, LuaConverter, LuaEncodeError, LUA_TFUNCTION, LUA_TNIL, LUA_TNUMBER, LUA_TSTRING, luaTypeName, type RawLua } from "./convert.js";
import { goChangeCase, goNumberString, goZoneAbbreviation } from "../../gofmt/index.js";
import { PRELUDE, PRELUDE_CHUNK } from "./prelude.js";
import { rewriteForGopherLua } from "./lua51.js";
import { rewriteTableConstructors } from "./rewrite.js";

/** Bounds on one call. */
export interface LuaLimits {
  /** Wall-clock deadline for one call (script chunk plus function), in milliseconds. Karmada: 1 s. */
  timeoutMs: number;
  /** Maximum Lua VM instructions one call may execute. */
  instructionBudget: number;
  /** Maximum growth of the Lua heap during one call, in bytes. */
  memoryBytes: number;
}

/** Default bounds: Karmada's 1 s deadline, 200 M instructions, 64 MiB. */
export const DEFAULT_LIMITS: LuaLimits = { timeoutMs: 1000, instructionBudget: 200_000_000, memoryBytes: 64 * 1024 * 1024 };

/**
 * The message of a call stopped at its deadline: gopher-lua reports the context's error, placed at the
 * line the script had reached ("<string>:12: context deadline exceeded") with its stack traceback.
 */
export const DEADLINE_MESSAGE = "context deadline exceeded";
/** The message of a call stopped by the instruction budget. */
export const BUDGET_MESSAGE = "lua script exceeded its instruction budget";
/** The message of a call stopped by the memory cap. */
export const MEMORY_MESSAGE = "lua script exceeded its memory limit";

/**
 * Where the deadline of the call in progress is published (ms since the epoch; 0 between calls) for
 * a watchdog in another thread: the count hook cannot fire inside a C library function, and the
 * deadline is raised only in a script's own frames (as gopher-lua checks it), so a library call that
 * runs long (`string.find` with a pathological pattern) is held to the deadline only by a thread that
 * terminates this one. Set by the evaluation worker threads (src/server/worker.ts).
 */
let deadlineBoard: Float64Array | undefined;

/** Publishes each call's deadline in `board[0]` (a view of a SharedArrayBuffer), or stops publishing. */
export function publishLuaDeadlines(board: Float64Array | undefined): void {
  deadlineBoard = board;
}

/** A value returned by a Lua function: its Lua type, and its JSON encoding or why it has none. */
export interface LuaResult {
  /** The Lua type name: nil, boolean, number, string, table, function, userdata, thread. */
  type: string;
  /** The value encoded as gopher-json would (absent for nil, or when encoding failed). */
  value?: JsonValue;
  /** Why a table (or other value) could not be encoded, in Go's json wording. */
  encodeError?: string;
}

/** The outcome of a call: the results, or the error message (Lua's, or one of the limit messages). */
export type LuaCallOutcome = { ok: true; results: LuaResult[] } | { ok: false; error: string };

/** A host function callable from Lua as part of a library (`require("kube")`). */
export interface HostFunction {
  /**
   * Receives the call's arguments through `args` and returns the values to push, or throws a
   * HostFunctionError whose message becomes a Lua error at the caller's line.
   */
  (args: HostArgs): (JsonValue | undefined)[];
}

/**
 * Thrown by host functions to raise a Lua error, at the caller's line (as gopher-lua's RaiseError
 * positions it), or without a position when `panic` is set: the Go function panics upstream, and
 * gopher-lua reports a panic's text as it is.
 */
export class HostFunctionError extends Error {
  constructor(
    message: string,
    readonly panic = false,
  ) {
    super(message);
    this.name = "HostFunctionError";
  }
}

/** The arguments of a host function call. */
export interface HostArgs {
  /** Number of arguments. */
  count: number;
  /** The Lua type name of argument i (1-based). */
  type(i: number): string;
  /** Argument i as a string (strings only; numbers are converted as Lua's tostring would). */
  string(i: number): string;
  /** Argument i as a number. */
  number(i: number): number;
  /** Argument i encoded as JSON (gopher-json rules; throws HostFunctionError when it cannot be). */
  json(i: number): JsonValue;
}

/** Options of a VM. */
export interface LuaVMOptions {
  limits?: Partial<LuaLimits>;
  /** Host libraries: `require(name)` returns a table of these functions. Only "kube" is resolvable. */
  kube?: Record<string, HostFunction>;
  /**
   * The clock `os.time()` and `os.date()` read, in milliseconds since the epoch (default: the
   * system clock). Tests comparing results with a reference fix it.
   */
  clock?: () => number;
}

const LUA_REGISTRYINDEX = -1001000;
const LUA_MASKCALL = 1;
const LUA_MASKCOUNT = 8;
const LUA_HOOKCALL = 0;
/** lua_Debug: the offsets of `event` and `source` (wasm32), and a size that holds it. */
const AR_EVENT = 0;
const AR_SOURCE = 16;
const AR_SIZE = 128;
/**
 * gopher-lua's call stack holds 256 frames (Karmada leaves CallStackSize at its default): a script
 * deeper than that fails with "stack overflow" at the call that would pass it.
 */
const CALL_STACK_FRAMES = 256;
/** The chunk name of scripts, as `lua_getinfo` reports a frame's source. */
const SCRIPT_SOURCE = "=<string>";
const HOOK_INTERVAL = 1000;
const LUA_OK = 0;

interface RawLuaFull extends RawLua {
  _realloc(ptr: number, size: number): number;
  _lua_newstate(alloc: number, ud: number): number;
  _lua_close(L: number): void;
  _luaL_loadbufferx(L: number, buf: number, size: number, name: number, mode: number): number;
  _lua_pcallk(L: number, nargs: number, nresults: number, msgh: number, ctx: number, k: number): number;
  _lua_sethook(L: number, f: number, mask: number, count: number): void;
  _lua_getstack(L: number, level: number, ar: number): number;
  _lua_getinfo(L: number, what: number, ar: number): number;
  _lua_error(L: number): number;
  _luaL_ref(L: number, t: number): number;
  _luaL_unref(L: number, t: number, ref: number): void;
  _lua_setupvalue(L: number, funcindex: number, n: number): number;
  _lua_gettable(L: number, idx: number): number;
  _lua_pushcclosure(L: number, fn: number, n: number): void;
  _lua_newuserdatauv(L: number, size: number, nuvalue: number): number;
  _luaL_where(L: number, lvl: number): void;
  _lua_concat(L: number, n: number): void;
  _luaL_openlibs(L: number): void;
  addFunction(fn: (...args: number[]) => number | void, sig: string): number;
  removeFunction(ptr: number): void;
}

interface LoadedModule {
  lua: LuaWasm;
  api: RawLuaFull;
}

let modulePromise: Promise<LoadedModule> | undefined;

/** The wasm module, loaded once per process and shared by every VM (each has its own state). */
function loadModule(): Promise<LoadedModule> {
  modulePromise ??= instantiate();
  return modulePromise;
}

/**
 * Loads wasmoon's module and, while it instantiates, notes the wasm instance's own exports: the
 * module object exposes each C function through a debug wrapper (`apply` plus assertions) that costs
 * more than the function itself; conversions make thousands of these calls.
 */
async function instantiate(): Promise<LoadedModule> {
  type Instantiate = (...args: unknown[]) => Promise<unknown>;
  type Exports = Record<string, unknown>;
  const wasm = (globalThis as unknown as { WebAssembly: Record<"instantiate" | "instantiateStreaming", Instantiate> }).WebAssembly;
  const originals = { instantiate: wasm.instantiate, instantiateStreaming: wasm.instantiateStreaming };
  let exports: Exports | undefined;
  const note = (result: unknown): unknown => {
    const r = result as { exports?: Exports; instance?: { exports?: Exports } } | undefined;
    const found = r?.instance?.exports ?? r?.exports;
    if (found && typeof found.lua_newstate === "function") exports = found;
    return result;
  };
  for (const name of ["instantiate", "instantiateStreaming"] as const) {
    const original = originals[name];
    if (typeof original !== "function") continue;
    wasm[name] = (...args: unknown[]) => original.apply(wasm, args).then(note);
  }
  let lua: LuaWasm;
  try {
    lua = await LuaWasm.initialize();
  } finally {
    wasm.instantiate = originals.instantiate;
    wasm.instantiateStreaming = originals.instantiateStreaming;
  }
  const module = lua.module as unknown as RawLuaFull;
  if (!exports) return { lua, api: module };
  const api = Object.create(null) as Record<string, unknown>;
  for (const [name, fn] of Object.entries(exports)) if (typeof fn === "function") api[`_${name}`] = fn;
  for (const name of ["_malloc", "_free", "_realloc"]) if (typeof api[name] !== "function") api[name] = (module as unknown as Record<string, unknown>)[name];
  Object.defineProperty(api, "HEAPU8", { get: () => module.HEAPU8 });
  Object.defineProperty(api, "HEAPU32", { get: () => module.HEAPU32 });
  api.addFunction = module.addFunction.bind(module);
  api.removeFunction = module.removeFunction.bind(module);
  return { lua, api: api as unknown as RawLuaFull };
}

/** A compiled script. */
export interface LuaScript {
  readonly source: string;
  /** Registry reference of the compiled chunk. */
  readonly chunkRef: number;
  /** Registry reference of the script's base globals (its private library copies). */
  readonly baseRef: number;
}

/** Compilation outcome. */
/**
 * Compilation outcome. A failure names the script line when the message does not start with it
 * (gopher-lua's syntax errors are worded "<string> line:L(column:C) near ...").
 */
export type LuaCompileOutcome = { ok: true; script: LuaScript } | { ok: false; error: string; line?: number };

/**
 * One sandboxed Lua state. Create with `LuaVM.create()`; then `compile` and `call` are synchronous.
 */
export class LuaVM {
  private L = 0;
  private conv!: LuaConverter;
  private readonly m: RawLuaFull;
  private readonly limits: LuaLimits;
  private readonly kube: Record<string, HostFunction>;
  private readonly clock: (() => number) | undefined;
  private readonly fnPointers: number[] = [];
  private allocPtr = 0;
  private hookPtr = 0;
  private nameBuf = 0;
  private preludeNameBuf = 0;
  private modeBuf = 0;
  // Registry references set up by the prelude.
  private orderedMtRef = 0;
  private newBaseRef = 0;
  private newEnvRef = 0;
  private gcRef = 0;
  private handlerRef = 0;
  private budgetMsgRef = 0;
  private memoryMsgRef = 0;
  // Per-call accounting.
  private memoryUsed = 0;
  private memoryLimit = Infinity;
  private deadline = Infinity;
  private instructions = 0;
  private budget = Infinity;
  private tripped: "deadline" | "budget" | "memory" | undefined;
  /** The stack passed gopher-lua's frame limit: the next call fails (see onHook). */
  private overflowing = false;
  private arBuf = 0;
  private infoWhatBuf = 0;
  private placedRef = 0;
  private inCall = false;
  private readonly scripts = new Map<string, LuaScript>();

  private constructor(loaded: LoadedModule, options: LuaVMOptions) {
    this.m = loaded.api;
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.kube = options.kube ?? {};
    this.clock = options.clock;
    this.open();
  }

  /** Creates a VM (loads the wasm module on first use). */
  static async create(options: LuaVMOptions = {}): Promise<LuaVM> {
    return new LuaVM(await loadModule(), options);
  }

  /** The bounds applied to every call. */
  get callLimits(): LuaLimits {
    return { ...this.limits };
  }

  private open(): void {
    const m = this.m;
    this.allocPtr = m.addFunction((_ud: number, ptr: number, osize: number, nsize: number) => this.allocate(ptr, osize, nsize), "iiiii");
    this.hookPtr = m.addFunction((L: number, ar: number) => this.onHook(L, ar), "vii");
    this.fnPointers.push(this.allocPtr, this.hookPtr);
    const L = m._lua_newstate(this.allocPtr, 0);
    if (!L) throw new Error("could not create a Lua state");
    this.L = L;
    this.conv = new LuaConverter(m, L);
    this.nameBuf = this.cString("=<string>");
    this.preludeNameBuf = this.cString(PRELUDE_CHUNK);
    this.modeBuf = this.cString("t");
    this.infoWhatBuf = this.cString("S");
    this.arBuf = m._malloc(AR_SIZE);
    m._luaL_openlibs(L);
    // The kube library table, passed to the prelude.
    m._lua_createtable(L, 0, Object.keys(this.kube).length);
    for (const [name, fn] of Object.entries(this.kube)) {
      const ptr = m.addFunction((callL: number) => this.callHost(callL, fn), "ii");
      this.fnPointers.push(ptr);
      this.conv.pushString(name);
      m._lua_pushcclosure(L, ptr, 0);
      m._lua_rawset(L, -3);
    }
    const kubeIdx = m._lua_gettop(L);
    const status = this.load(PRELUDE, this.preludeNameBuf);
    if (status !== LUA_OK) throw new Error(`Lua prelude failed to load: ${this.popError()}`);
    m._lua_pushvalue(L, kubeIdx);
    const clock = this.clock;
    if (clock) {
      const ptr = m.addFunction((callL: number) => {
        m._lua_pushnumber(callL, Math.floor(clock() / 1000));
        return 1;
      }, "ii");
      this.fnPointers.push(ptr);
      m._lua_pushcclosure(L, ptr, 0);
    } else {
      m._lua_pushnil(L);
    }
    const zonePtr = m.addFunction((callL: number) => {
      this.conv.pushString(goZoneAbbreviation(new Date(m._lua_tonumberx(callL, 1, 0) * 1000)));
      return 1;
    }, "ii");
    this.fnPointers.push(zonePtr);
    m._lua_pushcclosure(L, zonePtr, 0);
    const casePtr = m.addFunction((callL: number) => {
      this.conv.pushString(goChangeCase(this.conv.readBytes(1), m._lua_toboolean(callL, 2) !== 0));
      return 1;
    }, "ii");
    this.fnPointers.push(casePtr);
    m._lua_pushcclosure(L, casePtr, 0);
    // A fresh empty userdata (gopher-lua's gmatch hands its state to the loop as one).
    const userdataPtr = m.addFunction((callL: number) => {
      m._lua_newuserdatauv(callL, 0, 0);
      return 1;
    }, "ii");
    this.fnPointers.push(userdataPtr);
    m._lua_pushcclosure(L, userdataPtr, 0);
    if (m._lua_pcallk(L, 5, 6, 0, 0, 0) !== LUA_OK) throw new Error(`Lua prelude failed: ${this.popError()}`);
    this.placedRef = m._luaL_ref(L, LUA_REGISTRYINDEX);
    this.handlerRef = m._luaL_ref(L, LUA_REGISTRYINDEX);
    // Keep the real collectgarbage for the host (scripts get the "not supported" one).
    this.gcRef = m._luaL_ref(L, LUA_REGISTRYINDEX);
    this.newEnvRef = m._luaL_ref(L, LUA_REGISTRYINDEX);
    this.newBaseRef = m._luaL_ref(L, LUA_REGISTRYINDEX);
    this.orderedMtRef = m._luaL_ref(L, LUA_REGISTRYINDEX);
    m._lua_settop(L, 0);
    this.budgetMsgRef = this.refString(BUDGET_MESSAGE);
    this.memoryMsgRef = this.refString(MEMORY_MESSAGE);
    // Remove the unrestricted libraries from the real globals: scripts never see them, and neither
    // should anything else that runs in this state.
    for (const name of ["io", "debug", "package", "coroutine", "utf8", "dofile", "loadfile", "load", "require"]) {
      m._lua_pushnil(L);
      this.setGlobal(name);
    }
    m._lua_sethook(L, this.hookPtr, LUA_MASKCOUNT, HOOK_INTERVAL);
  }

  private setGlobal(name: string): void {
    const m = this.m;
    const L = this.L;
    m._lua_rawgeti(L, LUA_REGISTRYINDEX, 2n);
    this.conv.pushString(name);
    m._lua_pushvalue(L, -3);
    m._lua_rawset(L, -3);
    m._lua_settop(L, -3);
  }

  private refString(s: string): number {
    this.conv.pushString(s);
    return this.m._luaL_ref(this.L, LUA_REGISTRYINDEX);
  }

  private cString(s: string): number {
    const bytes = new TextEncoder().encode(s);
    const ptr = this.m._malloc(bytes.length + 1);
    this.m.HEAPU8.set(bytes, ptr);
    this.m.HEAPU8[ptr + bytes.length] = 0;
    return ptr;
  }

  private load(source: string, chunkName = this.nameBuf): number {
    const bytes = new TextEncoder().encode(source);
    const ptr = this.m._malloc(bytes.length + 1);
    this.m.HEAPU8.set(bytes, ptr);
    try {
      return this.m._luaL_loadbufferx(this.L, ptr, bytes.length, chunkName, this.modeBuf);
    } finally {
      this.m._free(ptr);
    }
  }

  private popError(): string {
    const m = this.m;
    const L = this.L;
    const t = m._lua_type(L, -1);
    let msg: string;
    if (t === LUA_TSTRING) msg = this.conv.readString(-1);
    else if (t === 3) msg = String(m._lua_tonumberx(L, -1, 0));
    else msg = `(error object is a ${luaTypeName(t)} value)`;
    m._lua_settop(L, -2);
    return msg;
  }

  private allocate(ptr: number, osize: number, nsize: number): number {
    const m = this.m;
    if (nsize === 0) {
      if (ptr) {
        this.memoryUsed -= osize;
        m._free(ptr);
      }
      return 0;
    }
    const delta = ptr ? nsize - osize : nsize;
    if (delta > 0 && this.memoryUsed + delta > this.memoryLimit) {
      if (this.inCall && this.tripped === undefined) {
        this.tripped = "memory";
        m._lua_sethook(this.L, this.hookPtr, LUA_MASKCOUNT, 1);
      }
      return 0;
    }
    const out = m._realloc(ptr, nsize);
    if (out) this.memoryUsed += delta;
    return out;
  }

  private onHook(L: number, ar: number): void {
    if (!this.inCall) return;
    const m = this.m;
    if (this.overflowing) {
      // Past gopher-lua's frame limit: the next call fails there, at the caller's line.
      if (m.HEAPU32[(ar + AR_EVENT) >> 2] === LUA_HOOKCALL) {
        this.overflowing = false;
        m._lua_sethook(L, this.hookPtr, LUA_MASKCOUNT, HOOK_INTERVAL);
        this.raisePlaced(L, "stack overflow", 3);
      }
      if (m._lua_getstack(L, CALL_STACK_FRAMES, this.arBuf) === 0) {
        this.overflowing = false;
        m._lua_sethook(L, this.hookPtr, LUA_MASKCOUNT, HOOK_INTERVAL);
      }
      return;
    }
    if (this.tripped === undefined) {
      this.instructions += HOOK_INTERVAL;
      if (this.instructions > this.budget) this.tripped = "budget";
      else if (Date.now() > this.deadline) this.tripped = "deadline";
      else {
        if (m._lua_getstack(L, CALL_STACK_FRAMES, this.arBuf) !== 0) {
          this.overflowing = true;
          m._lua_sethook(L, this.hookPtr, LUA_MASKCALL | LUA_MASKCOUNT, HOOK_INTERVAL);
        }
        return;
      }
      // Once tripped, fire on every instruction so that a pcall in the script cannot swallow it.
      m._lua_sethook(L, this.hookPtr, LUA_MASKCOUNT, 1);
    }
    if (this.tripped === "deadline") {
      // gopher-lua checks its deadline before each instruction of a script function, and raises it
      // at that instruction's line; the prelude (library functions there) runs on, the error
      // message handler included.
      m._lua_getinfo(L, this.infoWhatBuf, ar);
      if (this.conv.readCString(m.HEAPU32[(ar + AR_SOURCE) >> 2]!) !== SCRIPT_SOURCE) return;
      this.raisePlaced(L, DEADLINE_MESSAGE, 2);
    }
    const ref = this.tripped === "budget" ? this.budgetMsgRef : this.memoryMsgRef;
    m._lua_rawgeti(L, LUA_REGISTRYINDEX, BigInt(ref));
    m._lua_error(L);
  }

  /** Raises `msg` from a hook, placed at the innermost script frame from `level` (as the prelude's `placed` counts). */
  private raisePlaced(L: number, msg: string, level: number): void {
    const m = this.m;
    m._lua_rawgeti(L, LUA_REGISTRYINDEX, BigInt(this.placedRef));
    this.conv.pushString(msg);
    m._lua_pushnumber(L, level);
    if (m._lua_pcallk(L, 2, 1, 0, 0, 0) !== LUA_OK) {
      m._lua_settop(L, -2);
      this.conv.pushString(msg);
    }
    m._lua_error(L);
  }

  private callHost(L: number, fn: HostFunction): number {
    const m = this.m;
    const conv = this.conv;
    let results: (JsonValue | undefined)[] | undefined;
    let error: string | undefined;
    let positioned = true;
    try {
      const count = m._lua_gettop(L);
      const args: HostArgs = {
        count,
        type: (i) => luaTypeName(i > count ? LUA_TNIL : m._lua_type(L, i)),
        // A number reads as gopher-lua prints it ("5", where Lua 5.4 would say "5.0").
        string: (i) => (m._lua_type(L, i) === LUA_TNUMBER ? goNumberString(m._lua_tonumberx(L, i, 0)) : conv.readString(i)),
        number: (i) => m._lua_tonumberx(L, i, 0),
        json: (i) => {
          try {
            return conv.toJson(i);
          } catch (e) {
            if (e instanceof LuaEncodeError) throw new HostFunctionError(e.message);
            throw e;
          }
        },
      };
      results = fn(args);
      m._lua_checkstack(L, results.length + 4);
      // Lua takes the results from the top of the stack: the metatable below them is dropped.
      const mt = this.pushOrderedMetatable();
      for (const r of results) conv.pushJson(r, mt);
    } catch (e) {
      error = e instanceof Error ? e.message : String(e);
      positioned = !(e instanceof HostFunctionError && e.panic);
      results = undefined;
    }
    if (error !== undefined) {
      if (positioned) {
        m._luaL_where(L, 1);
        conv.pushString(error);
        m._lua_concat(L, 2);
      } else {
        conv.pushString(error);
      }
      return m._lua_error(L);
    }
    return results!.length;
  }

  private pushOrderedMetatable(): number {
    this.m._lua_rawgeti(this.L, LUA_REGISTRYINDEX, BigInt(this.orderedMtRef));
    return this.m._lua_gettop(this.L);
  }

  /**
   * Compiles a script (cached by its text). Syntax errors are returned, not thrown.
   */
  compile(source: string): LuaCompileOutcome {
    const cached = this.scripts.get(source);
    if (cached) return { ok: true, script: cached };
    const m = this.m;
    const L = this.L;
    m._lua_settop(L, 0);
    let rewritten: ReturnType<typeof rewriteForGopherLua>;
    let loadable: string;
    try {
      rewritten = rewriteForGopherLua(source);
      if (!rewritten.ok) return { ok: false, error: rewritten.error, line: rewritten.line };
      loadable = rewriteTableConstructors(rewritten.source);
    } catch (e) {
      // The readers of the script's syntax recurse per level of nesting: past what the stack holds, a
      // clear refusal rather than the engine's own error (gopher-lua's parser keeps a heap stack).
      if (e instanceof RangeError) return { ok: false, error: "the script is nested too deeply for Karta to read (a few thousand levels of blocks, calls or parentheses)" };
      throw e;
    }
    const status = this.load(loadable);
    if (status !== LUA_OK) {
      const error = this.popError();
      m._lua_settop(L, 0);
      // Both parsers reject the chunk: report it in gopher-lua's words.
      if (rewritten.syntaxError !== undefined) return { ok: false, error: rewritten.syntaxError, line: rewritten.syntaxLine };
      return { ok: false, error };
    }
    const chunkRef = m._luaL_ref(L, LUA_REGISTRYINDEX);
    m._lua_rawgeti(L, LUA_REGISTRYINDEX, BigInt(this.newBaseRef));
    if (m._lua_pcallk(L, 0, 1, 0, 0, 0) !== LUA_OK) {
      const error = this.popError();
      m._luaL_unref(L, LUA_REGISTRYINDEX, chunkRef);
      return { ok: false, error };
    }
    const baseRef = m._luaL_ref(L, LUA_REGISTRYINDEX);
    const script: LuaScript = { source, chunkRef, baseRef };
    if (this.scripts.size >= 512) {
      // Forget the oldest script (insertion order) to bound the registry.
      const [oldSource, old] = this.scripts.entries().next().value as [string, LuaScript];
      m._luaL_unref(L, LUA_REGISTRYINDEX, old.chunkRef);
      m._luaL_unref(L, LUA_REGISTRYINDEX, old.baseRef);
      this.scripts.delete(oldSource);
    }
    this.scripts.set(source, script);
    return { ok: true, script };
  }

  /**
   * Runs the script's chunk in a fresh environment, then calls its global function `fnName` with
   * the arguments (JSON; undefined and null pass nil) and returns `nResults` results.
   * Errors: `not found function <fnName>`, `<fnName> is not a function: <type>`, Lua errors with
   * their position, and the deadline, instruction and memory messages.
   */
  call(script: LuaScript, fnName: string, args: (JsonValue | undefined)[], nResults: number): LuaCallOutcome {
    if (this.scripts.get(script.source) !== script) {
      // Its references were released (the script left the cache, or the VM replaced its state after
      // a host failure) and may now name other values: compile it again.
      const recompiled = this.compile(script.source);
      if (!recompiled.ok) return { ok: false, error: recompiled.error };
      script = recompiled.script;
    }
    const m = this.m;
    const L = this.L;
    m._lua_settop(L, 0);
    this.inCall = true;
    this.tripped = undefined;
    this.overflowing = false;
    this.instructions = 0;
    this.budget = this.limits.instructionBudget;
    this.deadline = Date.now() + this.limits.timeoutMs;
    if (deadlineBoard) deadlineBoard[0] = this.deadline;
    this.memoryLimit = this.memoryUsed + this.limits.memoryBytes;
    m._lua_sethook(L, this.hookPtr, LUA_MASKCOUNT, HOOK_INTERVAL);
    try {
      return this.run(script, fnName, args, nResults);
    } catch (e) {
      // A host-side failure while the state was mid-call: start over with a fresh state.
      this.reset();
      return { ok: false, error: e instanceof Error ? e.message : String(e) };
    } finally {
      const tripped = this.tripped;
      this.inCall = false;
      this.tripped = undefined;
      this.memoryLimit = Infinity;
      this.deadline = Infinity;
      if (deadlineBoard) deadlineBoard[0] = 0;
      if (this.L) {
        m._lua_settop(this.L, 0);
        m._lua_sethook(this.L, this.hookPtr, LUA_MASKCOUNT, HOOK_INTERVAL);
        if (tripped !== undefined) this.collectGarbage();
      }
    }
  }

  private run(script: LuaScript, fnName: string, args: (JsonValue | undefined)[], nResults: number): LuaCallOutcome {
    const m = this.m;
    const L = this.L;
    const conv = this.conv;
    m._lua_checkstack(L, args.length + nResults + 8);
    const mt = this.pushOrderedMetatable(); // 1
    m._lua_rawgeti(L, LUA_REGISTRYINDEX, BigInt(this.handlerRef));
    const handler = m._lua_gettop(L); // 2: errors raised inside the prelude get the script's position
    // env = newEnv(scriptBase)
    m._lua_rawgeti(L, LUA_REGISTRYINDEX, BigInt(this.newEnvRef));
    m._lua_rawgeti(L, LUA_REGISTRYINDEX, BigInt(script.baseRef));
    if (m._lua_pcallk(L, 1, 1, 0, 0, 0) !== LUA_OK) return this.failure();
    const env = m._lua_gettop(L); // 3
    // Run the chunk with env as its _ENV.
    m._lua_rawgeti(L, LUA_REGISTRYINDEX, BigInt(script.chunkRef));
    m._lua_pushvalue(L, env);
    m._lua_setupvalue(L, -2, 1);
    if (m._lua_pcallk(L, 0, 0, handler, 0, 0) !== LUA_OK) return this.failure();
    // Look the function up.
    conv.pushString(fnName);
    m._lua_gettable(L, env);
    const ft = m._lua_type(L, -1);
    if (ft === LUA_TNIL) return { ok: false, error: `not found function ${fnName}` };
    if (ft !== LUA_TFUNCTION) return { ok: false, error: `${fnName} is not a function: ${luaTypeName(ft)}` };
    try {
      for (const arg of args) conv.pushJson(arg, mt);
    } catch (e) {
      // An argument Lua cannot hold (nested past the limit): the call fails in our words.
      if (e instanceof LuaArgumentError) return { ok: false, error: `cannot pass the arguments of ${fnName} to Lua: ${e.message}` };
      throw e;
    }
    const base = m._lua_gettop(L) - args.length; // the function's index
    if (m._lua_pcallk(L, args.length, nResults, handler, 0, 0) !== LUA_OK) return this.failure();
    const results: LuaResult[] = [];
    for (let i = 0; i < nResults; i++) {
      const idx = base + i;
      const t = m._lua_type(L, idx);
      const result: LuaResult = { type: luaTypeName(t) };
      if (t !== LUA_TNIL) {
        try {
          result.value = conv.toJson(idx);
        } catch (e) {
          if (!(e instanceof LuaEncodeError)) throw e;
          result.encodeError = e.message;
        }
      }
      results.push(result);
    }
    return { ok: true, results };
  }

  private failure(): LuaCallOutcome {
    const status = this.tripped;
    if (status === "budget") return { ok: false, error: BUDGET_MESSAGE };
    if (status === "memory") return { ok: false, error: MEMORY_MESSAGE };
    const error = this.popError();
    return { ok: false, error };
  }

  private collectGarbage(): void {
    const m = this.m;
    const L = this.L;
    m._lua_rawgeti(L, LUA_REGISTRYINDEX, BigInt(this.gcRef));
    this.conv.pushString("collect");
    m._lua_pcallk(L, 1, 0, 0, 0, 0);
    m._lua_settop(L, 0);
  }

  /** Bytes the Lua heap currently uses. */
  get memoryInUse(): number {
    return this.memoryUsed;
  }

  private reset(): void {
    this.closeState();
    this.scripts.clear();
    this.open();
  }

  private closeState(): void {
    if (!this.L) return;
    this.inCall = false;
    this.memoryLimit = Infinity;
    this.m._lua_close(this.L);
    this.conv.dispose();
    this.m._free(this.nameBuf);
    this.m._free(this.preludeNameBuf);
    this.m._free(this.modeBuf);
    this.m._free(this.infoWhatBuf);
    this.m._free(this.arBuf);
    for (const ptr of this.fnPointers) this.m.removeFunction(ptr);
    this.fnPointers.length = 0;
    this.L = 0;
    this.memoryUsed = 0;
  }

  /** Closes the state; the VM cannot be used afterwards. */
  close(): void {
    this.closeState();
    this.scripts.clear();
  }
}

