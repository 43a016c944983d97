/**
 * The uniqueness the API server enforces on a custom resource's lists, from the CRD's
 * `x-kubernetes-list-type`: in a `map` list no two items may have the same values of the
 * `x-kubernetes-list-map-keys` fields, in a `set` list no two items may be equal. The server refuses
 * such an object with `<list>[i]: Duplicate value: <key>` (the key as JSON, `{"name":"worker"}`; a set's
 * string item quoted), so these are errors here too, in its words (checked against kube-apiserver 1.37
 * by test/cluster/crd.test.ts; releases before 1.34 showed the key as a Go map instead).
 */
import { goNumberString } from "../gofmt/index.js";

/** A repeated item: its index and the server's message (`Duplicate value: ...`). */
export interface DuplicateItem {
  index: number;
  message: string;
}

/** An item that lacks the (single) key field: equal to every other such item, and to nothing else. */
const UNSPECIFIED = "\u0000unspecified";

/**
 * The repeated items of a list, as the API server finds them: the second occurrence of each value is
 * reported (not the third or later), in list order. `keys` are the list-map keys; absent, the list is a
 * set and whole items are compared. A key field missing from an item (or null, which the server prunes
 * before validating) is left out of its key; a map list holding an item that is not an object is not
 * compared at all (the server reports that item instead).
 */
export function duplicateItems(items: readonly unknown[], keys?: readonly string[]): DuplicateItem[] {
  if (keys && items.some((x) => x !== null && !isObject(x))) return [];
  const identities: string[] = [];
  const shown: unknown[] = [];
  for (const item of items) {
    if (!keys) {
      identities.push(goJson(item));
      shown.push(item);
      continue;
    }
    const key: Record<string, unknown> = {};
    for (const k of keys) {
      const v = isObject(item) && Object.hasOwn(item, k) ? item[k] : undefined;
      if (v !== undefined && v !== null) key[k] = v;
    }
    // With one key field the server compares the key's value itself (so an absent key is its own value).
    if (keys.length === 1) identities.push(Object.hasOwn(key, keys[0]!) ? goJson(key[keys[0]!]) : UNSPECIFIED);
    else identities.push(goJson(key));
    shown.push(key);
  }
  const seen = new Map<string, number>();
  const out: DuplicateItem[] = [];
  identities.forEach((id, index) => {
    const times = seen.get(id) ?? 0;
    seen.set(id, times + 1);
    if (times === 1) out.push({ index, message: `Duplicate value: ${errorValue(shown[index])}` });
  });
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * The value as Go's `json.Marshal` writes it: object keys sorted, `<`, `>`, `&`, U+2028 and U+2029
 * escaped. Equal values give equal texts, so it also serves as the value's identity.
 */
function goJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(goJson).join(",")}]`;
  if (isObject(v)) {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${goJson(k)}:${goJson(v[k])}`)
      .join(",")}}`;
  }
  const text = JSON.stringify(v) ?? "null";
  return typeof v === "string" ? text.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`) : text;
}

/** A bad value as the API server's field error shows it: strings quoted, numbers and booleans bare, anything else as JSON. */
function errorValue(v: unknown): string {
  if (typeof v === "string") return goQuote(v);
  if (typeof v === "number") return goNumberString(v);
  if (typeof v === "boolean") return String(v);
  return goJson(v);
}

/** `strconv.Quote`: printable characters as they are, the others escaped. */
function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"' || ch === "\\") out += `\\${ch}`;
    else if (c === 7) out += "\\a";
    else if (c === 8) out += "\\b";
    else if (c === 12) out += "\\f";
    else if (c === 10) out += "\\n";
    else if (c === 13) out += "\\r";
    else if (c === 9) out += "\\t";
    else if (c === 11) out += "\\v";
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, "0")}`;
    else if ((c >= 0x80 && c < 0xa0) || c === 0xad || (c >= 0xd800 && c < 0xe000) || c === 0xfeff) out += c > 0xff ? `\\u${c.toString(16).padStart(4, "0")}` : `\\u00${c.toString(16).padStart(2, "0")}`;
    else out += ch;
  }
  return out + '"';
}
