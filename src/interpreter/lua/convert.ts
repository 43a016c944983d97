/**
 * JSON ↔ Lua conversion through Lua's C API (the raw wasm exports), with gopher-lua's and
 * gopher-json's semantics:
 * - JSON → Lua: `null` disappears (object keys unset, array elements skipped, later elements moving
 *   up as gopher-lua's `Append` does); every number is a float, as in gopher-lua (the prelude prints
 *   integral ones without a fraction).
 * - Lua → JSON (gopher-json `Encode`): an empty table is `[]`; a table whose keys are exactly 1..n is
 *   an array; string keys make an object; anything else is an error, with gopher-json's messages.
 */
import { MAX_NESTING_DEPTH, nestingMessage } from "../../input/index.js";
import type { JsonValue } from "../types.js";
import { goStringCompare } from "../../resources/index.js";

/** The subset of the wasm module's exports this adapter uses. */
export interface RawLua {
  HEAPU8: Uint8Array;
  HEAPU32: Uint32Array;
  _malloc(size: number): number;
  _free(ptr: number): void;
  _lua_pushnil(L: number): void;
  _lua_pushboolean(L: number, b: number): void;
  _lua_pushinteger(L: number, n: bigint): void;
  _lua_pushnumber(L: number, n: number): void;
  _lua_pushlstring(L: number, ptr: number, len: number): number;
  _lua_createtable(L: number, narr: number, nrec: number): void;
  _lua_rawset(L: number, idx: number): void;
  _lua_rawseti(L: number, idx: number, n: bigint): void;
  _lua_rawgeti(L: number, idx: number, n: bigint): number;
  _lua_rawget(L: number, idx: number): number;
  _lua_pushvalue(L: number, idx: number): void;
  _lua_setmetatable(L: number, idx: number): number;
  _lua_checkstack(L: number, n: number): number;
  _lua_type(L: number, idx: number): number;
  _lua_toboolean(L: number, idx: number): number;
  _lua_tonumberx(L: number, idx: number, isnum: number): number;
  _lua_isinteger(L: number, idx: number): number;
  _lua_tolstring(L: number, idx: number, len: number): number;
  _lua_next(L: number, idx: number): number;
  _lua_settop(L: number, idx: number): void;
  _lua_gettop(L: number): number;
  _lua_topointer(L: number, idx: number): number;
  _lua_absindex(L: number, idx: number): number;
  _lua_rotate(L: number, idx: number, n: number): void;
  _luaL_ref(L: number, t: number): number;
}

/** Lua type tags (lua.h). */
export const LUA_TNIL = 0;
export const LUA_TBOOLEAN = 1;
export const LUA_TLIGHTUSERDATA = 2;
export const LUA_TNUMBER = 3;
export const LUA_TSTRING = 4;
export const LUA_TTABLE = 5;
export const LUA_TFUNCTION = 6;
export const LUA_TUSERDATA = 7;
export const LUA_TTHREAD = 8;

/** Lua type names as gopher-lua spells them. */
export function luaTypeName(tag: number): string {
  switch (tag) {
    case LUA_TNIL:
    case -1:
      return "nil";
    case LUA_TBOOLEAN:
      return "boolean";
    case LUA_TNUMBER:
      return "number";
    case LUA_TSTRING:
      return "string";
    case LUA_TTABLE:
      return "table";
    case LUA_TFUNCTION:
      return "function";
    case LUA_TTHREAD:
      return "thread";
    default:
      return "userdata";
  }
}

/**
 * An encoding failure, worded as Go's json.Marshal reports gopher-json's errors: each table level
 * between the root and the value that cannot be encoded (at `depth`, the root being 0) is a
 * MarshalJSON call whose error Go wraps once more.
 */
export class LuaEncodeError extends Error {
  constructor(reason: string, depth = 0) {
    super(`${"json: error calling MarshalJSON for type json.jsonValue: ".repeat(depth + 1)}${reason}`);
    this.name = "LuaEncodeError";
  }
}

/** A value that cannot be given to a script (nested past the limit). */
export class LuaArgumentError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = "LuaArgumentError";
  }
}

const ERR_NESTED = "cannot encode recursively nested tables to JSON";
/** A value nested deeper than {@link MAX_NESTING_DEPTH}, in either direction. */
const NESTED_TOO_DEEP = `the value is ${nestingMessage()}`;
const ERR_SPARSE = "cannot encode sparse array";
const ERR_KEYS = "cannot encode mixed or invalid key types";
/** gopher-lua keeps positive integer keys below this bound in its array part. */
const ARRAY_LIMIT = 67108864;

/** Lua integers 0..1023 as the BigInts the wasm API takes (array indexes, small counts): made once. */
const SMALL_INTEGERS = Array.from({ length: 1024 }, (_, i) => BigInt(i));
function luaInteger(n: number): bigint {
  return n >= 0 && n < 1024 ? SMALL_INTEGERS[n]! : BigInt(n);
}
const LUA_REGISTRYINDEX = -1001000;
/** Distinct object keys kept as Lua strings per state (see LuaConverter.pushKey). */
const MAX_CACHED_KEYS = 1023;

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/**
 * Moves JSON values into a Lua state and Lua values out of it. One instance per Lua state; it owns
 * a scratch buffer in wasm memory for strings.
 */
export class LuaConverter {
  private scratch = 0;
  private scratchSize = 0;
  private readonly lenPtr: number;
  /** Registry reference of a Lua table of object keys already pushed (index → string), as the API takes it. */
  private readonly keysRef: bigint;
  /** Object keys already pushed, by their index in that table. */
  private readonly keyIds = new Map<string, number>();

  constructor(
    private readonly m: RawLua,
    private readonly L: number,
  ) {
    this.lenPtr = m._malloc(8);
    this.ensureScratch(4096);
    m._lua_createtable(L, MAX_CACHED_KEYS, 0);
    this.keysRef = BigInt(m._luaL_ref(L, LUA_REGISTRYINDEX));
  }

  /** Releases the scratch memory. */
  dispose(): void {
    if (this.scratch) this.m._free(this.scratch);
    this.m._free(this.lenPtr);
    this.scratch = 0;
  }

  private ensureScratch(size: number): void {
    if (size <= this.scratchSize) return;
    if (this.scratch) this.m._free(this.scratch);
    let n = Math.max(this.scratchSize * 2, 4096);
    while (n < size) n *= 2;
    this.scratch = this.m._malloc(n);
    if (!this.scratch) throw new Error("out of wasm memory for a string buffer");
    this.scratchSize = n;
  }

  /** Pushes a string. */
  pushString(s: string): void {
    const n = s.length;
    this.ensureScratch(n * 3 + 1);
    const heap = this.m.HEAPU8;
    let p = this.scratch;
    let ascii = n <= 32;
    for (let i = 0; ascii && i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) ascii = false;
      else heap[p++] = c;
    }
    if (ascii) {
      this.m._lua_pushlstring(this.L, this.scratch, n);
      return;
    }
    const { written } = encoder.encodeInto(s, heap.subarray(this.scratch, this.scratch + this.scratchSize));
    this.m._lua_pushlstring(this.L, this.scratch, written);
  }

  /**
   * Pushes an object key. Kubernetes objects repeat the same few hundred keys, so each distinct key is
   * kept as a Lua string in a table (the first MAX_CACHED_KEYS of them) and pushed from there: one
   * call, instead of copying its bytes into wasm memory and hashing them again.
   */
  private pushKey(key: string, keysIndex: number): void {
    const id = this.keyIds.get(key);
    if (id !== undefined) {
      this.m._lua_rawgeti(this.L, keysIndex, SMALL_INTEGERS[id]!);
      return;
    }
    this.pushString(key);
    if (this.keyIds.size < MAX_CACHED_KEYS) {
      const next = this.keyIds.size + 1;
      this.keyIds.set(key, next);
      this.m._lua_pushvalue(this.L, -1);
      this.m._lua_rawseti(this.L, keysIndex, SMALL_INTEGERS[next]!);
    }
  }

  /**
   * Pushes a JSON value (null and undefined push nil). Tables get the metatable at stack index
   * `metatableIndex` (absolute) when it is not 0.
   */
  pushJson(value: JsonValue | undefined, metatableIndex: number): void {
    if (typeof value !== "object" || value === null) {
      this.pushValue(value, metatableIndex, 0, 0);
      return;
    }
    const m = this.m;
    const L = this.L;
    if (!m._lua_checkstack(L, 4)) throw new LuaArgumentError(NESTED_TOO_DEEP);
    // The keys table sits below the value while it is built, then is removed from under it.
    m._lua_rawgeti(L, LUA_REGISTRYINDEX, this.keysRef);
    const keysIndex = m._lua_gettop(L);
    try {
      this.pushValue(value, metatableIndex, keysIndex, 0);
    } catch (e) {
      m._lua_settop(L, keysIndex - 1);
      throw e;
    }
    m._lua_rotate(L, keysIndex, -1);
    m._lua_settop(L, -2);
  }

  private pushValue(value: JsonValue | undefined, metatableIndex: number, keysIndex: number, depth: number): void {
    const m = this.m;
    const L = this.L;
    if (value === null || value === undefined) {
      m._lua_pushnil(L);
    } else if (typeof value === "string") {
      this.pushString(value);
    } else if (typeof value === "number") {
      // A float even when integral: integer arithmetic would wrap around and make x % 0 an error.
      m._lua_pushnumber(L, value);
    } else if (typeof value === "boolean") {
      m._lua_pushboolean(L, value ? 1 : 0);
    } else if (Array.isArray(value)) {
      if (depth >= MAX_NESTING_DEPTH || !m._lua_checkstack(L, 4)) throw new LuaArgumentError(NESTED_TOO_DEEP);
      m._lua_createtable(L, value.length, 0);
      let j = 0;
      for (const item of value) {
        if (item === null || item === undefined) continue;
        this.pushValue(item, metatableIndex, keysIndex, depth + 1);
        m._lua_rawseti(L, -2, luaInteger(++j));
      }
      if (metatableIndex) {
        m._lua_pushvalue(L, metatableIndex);
        m._lua_setmetatable(L, -2);
      }
    } else {
      if (depth >= MAX_NESTING_DEPTH || !m._lua_checkstack(L, 4)) throw new LuaArgumentError(NESTED_TOO_DEEP);
      const keys = Object.keys(value);
      m._lua_createtable(L, 0, keys.length);
      for (const key of keys) {
        const item = value[key];
        if (item === null || item === undefined) continue;
        this.pushKey(key, keysIndex);
        this.pushValue(item, metatableIndex, keysIndex, depth + 1);
        m._lua_rawset(L, -3);
      }
      if (metatableIndex) {
        m._lua_pushvalue(L, metatableIndex);
        m._lua_setmetatable(L, -2);
      }
    }
  }

  /** Reads the string at `idx` (which must be a string: numbers would be converted in place). */
  readString(idx: number): string {
    const ptr = this.m._lua_tolstring(this.L, idx, this.lenPtr);
    const len = this.m.HEAPU32[this.lenPtr >> 2]!;
    const heap = this.m.HEAPU8;
    if (len < 64) {
      let s = "";
      for (let i = 0; i < len; i++) {
        const c = heap[ptr + i]!;
        if (c >= 0x80) return decoder.decode(heap.subarray(ptr, ptr + len));
        s += String.fromCharCode(c);
      }
      return s;
    }
    return decoder.decode(heap.subarray(ptr, ptr + len));
  }

  /**
   * Encodes the value at `idx` as gopher-json does. Throws LuaEncodeError on values it cannot
   * encode (functions, sparse arrays, mixed keys, cycles or a table reached twice, NaN/Inf).
   */
  toJson(idx: number): JsonValue {
    return this.encode(this.m._lua_absindex(this.L, idx), new Visited(), 0);
  }

  /**
   * `inGoOrder`: the value is being encoded again, after a failure, to find the failure Go would meet
   * first: its tables encode their members in Go's order at once (each table is encoded at most twice).
   */
  private encode(idx: number, visited: Visited, depth: number, inGoOrder = false): JsonValue {
    const m = this.m;
    const L = this.L;
    const t = m._lua_type(L, idx);
    switch (t) {
      case LUA_TNIL:
        return null;
      case LUA_TBOOLEAN:
        return m._lua_toboolean(L, idx) !== 0;
      case LUA_TNUMBER: {
        const n = m._lua_tonumberx(L, idx, 0);
        if (!Number.isFinite(n)) {
          throw new LuaEncodeError(`json: unsupported value: ${Number.isNaN(n) ? "NaN" : n > 0 ? "+Inf" : "-Inf"}`, depth);
        }
        return n === 0 ? 0 : n;
      }
      case LUA_TSTRING:
        return this.readString(idx);
      case LUA_TTABLE:
        // Deeper than Karta reads objects: refused here, before the JS stack runs out.
        // Karta's own limit (gopher-json has none): one wrapping, not one per level.
        if (depth >= MAX_NESTING_DEPTH) throw new LuaEncodeError(NESTED_TOO_DEEP);
        return this.encodeTable(idx, visited, depth, inGoOrder);
      default:
        throw new LuaEncodeError(`cannot encode ${luaTypeName(t)} to JSON`, depth);
    }
  }

  private encodeTable(idx: number, visited: Visited, depth: number, inGoOrder: boolean): JsonValue {
    const m = this.m;
    const L = this.L;
    // gopher-json marks a table visited and never unmarks it: a table reached twice is an error too.
    const ptr = m._lua_topointer(L, idx);
    if (visited.has(ptr)) throw new LuaEncodeError(ERR_NESTED, depth);
    visited.add(ptr);
    if (!m._lua_checkstack(L, 4)) throw new LuaEncodeError(ERR_NESTED, depth);
    // First pass: classify the keys the way gopher-lua's iteration would present them.
    let ints = 0;
    let maxInt = 0;
    let strings = 0;
    let otherNumbers = 0;
    let others = 0;
    m._lua_pushnil(L);
    while (m._lua_next(L, idx) !== 0) {
      const kt = m._lua_type(L, -2);
      if (kt === LUA_TSTRING) {
        strings++;
      } else if (kt === LUA_TNUMBER) {
        const k = m._lua_tonumberx(L, -2, 0);
        if (Number.isInteger(k) && k >= 1 && k < ARRAY_LIMIT) {
          ints++;
          if (k > maxInt) maxInt = k;
        } else {
          otherNumbers++;
        }
      } else {
        others++;
      }
      m._lua_settop(L, -2);
    }
    if (ints === 0 && strings === 0 && otherNumbers === 0 && others === 0) return [];
    if (ints > 0) {
      // The array part comes first: a hole is found before any other key.
      if (maxInt !== ints) throw new LuaEncodeError(ERR_SPARSE, depth);
      if (strings > 0 || others > 0) throw new LuaEncodeError(ERR_KEYS, depth);
      if (otherNumbers > 0) throw new LuaEncodeError(ERR_SPARSE, depth);
      const arr: JsonValue[] = new Array<JsonValue>(ints);
      for (let i = 1; i <= ints; i++) {
        m._lua_rawgeti(L, idx, luaInteger(i));
        arr[i - 1] = this.encode(m._lua_gettop(L), visited, depth + 1, inGoOrder);
        m._lua_settop(L, -2);
      }
      return arr;
    }
    if (others > 0) throw new LuaEncodeError(ERR_KEYS, depth);
    if (strings === 0) throw new LuaEncodeError(ERR_SPARSE, depth);
    if (otherNumbers > 0) throw new LuaEncodeError(ERR_KEYS, depth);
    if (inGoOrder) {
      this.encodeMembersInGoOrder(idx, visited, depth);
      return {};
    }
    const mark = visited.size;
    let entries: [string, JsonValue][];
    try {
      entries = [];
      m._lua_pushnil(L);
      while (m._lua_next(L, idx) !== 0) {
        const key = this.readString(-2);
        entries.push([key, this.encode(m._lua_gettop(L), visited, depth + 1)]);
        m._lua_settop(L, -2);
      }
    } catch (e) {
      if (!(e instanceof LuaEncodeError) || strings === 1) throw e;
      // Go encodes the members in its key order, and the first failure in that order is the one it
      // reports (a table reached twice included): encode them again in that order.
      visited.truncate(mark);
      m._lua_settop(L, idx);
      this.encodeMembersInGoOrder(idx, visited, depth);
      throw e;
    }
    // Go marshals maps with keys sorted by their bytes.
    entries.sort((a, b) => goStringCompare(a[0], b[0]));
    const obj: { [key: string]: JsonValue } = {};
    for (const [k, v] of entries) {
      if (k === "__proto__") Object.defineProperty(obj, k, { value: v, enumerable: true, writable: true, configurable: true });
      else obj[k] = v;
    }
    return obj;
  }

  /**
   * Encodes the members of the (string-keyed) table at `idx` in Go's key order, throwing the first
   * failure (their values are not kept: this runs only to find it).
   */
  private encodeMembersInGoOrder(idx: number, visited: Visited, depth: number): void {
    const m = this.m;
    const L = this.L;
    // The keys, kept as Lua strings in a scratch table (their bytes decide Go's order).
    m._lua_createtable(L, 16, 0);
    const keys = m._lua_gettop(L);
    const order: { i: number; bytes: Uint8Array }[] = [];
    m._lua_pushnil(L);
    while (m._lua_next(L, idx) !== 0) {
      m._lua_settop(L, -2);
      m._lua_pushvalue(L, -1);
      m._lua_rawseti(L, keys, luaInteger(order.length + 1));
      order.push({ i: order.length + 1, bytes: this.readBytes(-1) });
    }
    order.sort((a, b) => compareBytes(a.bytes, b.bytes));
    for (const { i } of order) {
      m._lua_rawgeti(L, keys, luaInteger(i));
      m._lua_rawget(L, idx);
      this.encode(m._lua_gettop(L), visited, depth + 1, true);
      m._lua_settop(L, -2);
    }
    m._lua_settop(L, keys - 1);
  }

  /** A NUL-terminated C string in wasm memory. */
  readCString(ptr: number): string {
    const heap = this.m.HEAPU8;
    let end = ptr;
    while (heap[end] !== 0) end++;
    return decoder.decode(heap.subarray(ptr, end));
  }

  /** The bytes of the string at `idx` (a copy). */
  readBytes(idx: number): Uint8Array {
    const ptr = this.m._lua_tolstring(this.L, idx, this.lenPtr);
    const len = this.m.HEAPU32[this.lenPtr >> 2]!;
    return this.m.HEAPU8.slice(ptr, ptr + len);
  }
}

/** The tables met while encoding, in order (gopher-json's visited set). */
class Visited {
  private readonly order: number[] = [];
  private readonly set = new Set<number>();
  get size(): number {
    return this.order.length;
  }
  has(ptr: number): boolean {
    return this.set.has(ptr);
  }
  add(ptr: number): void {
    this.order.push(ptr);
    this.set.add(ptr);
  }
  /** Forgets the tables met after the first `n`. */
  truncate(n: number): void {
    while (this.order.length > n) this.set.delete(this.order.pop()!);
  }
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}
