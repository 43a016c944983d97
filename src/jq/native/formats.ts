/**
 * jq 1.8.2's `@format` strings (`format/1`): text json csv tsv html uri urid sh base64 base64d, with
 * jq's escaping rules and error messages; plus `@base32`/`@base32d` (RFC 4648, as gojq has them),
 * which jq lacks but Karta's users were promised.
 */
import { JqRuntimeError } from "../errors.js";
import { CHARGED, formatNumber, toJson, typeErrorSubject } from "./json.js";
import { decodeUtf8 } from "./utf8.js";

/** jq's `tostring`: strings as they are, anything else as compact JSON (its work charged to the run). */
export function toStringValue(v: unknown): string {
  return typeof v === "string" ? v : toJson(v, CHARGED);
}

/**
 * jq's escape_string: replaces the listed ASCII characters; like jq, NUL always becomes the two
 * characters `\0`.
 */
function escapeWith(s: string, test: RegExp, table: Record<string, string>): string {
  if (!test.test(s)) return s;
  return s.replace(test, (c) => table[c] ?? "\\0");
}

const CSV_ESC = /["\0]/g;
const CSV_TABLE: Record<string, string> = { '"': '""' };
const TSV_ESC = /[\t\r\n\\\0]/g;
const TSV_TABLE: Record<string, string> = { "\t": "\\t", "\r": "\\r", "\n": "\\n", "\\": "\\\\" };
const HTML_ESC = /[&<>'"\0]/g;
const HTML_TABLE: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", "'": "&apos;", '"': "&quot;" };
const SH_ESC = /['\0]/g;
const SH_TABLE: Record<string, string> = { "'": "'\\''" };

function row(value: unknown, csv: boolean): string {
  if (!Array.isArray(value)) {
    throw new JqRuntimeError(`${typeErrorSubject(value)} cannot be ${csv ? "csv" : "tsv"}-formatted, only array`);
  }
  let line = "";
  for (let i = 0; i < value.length; i++) {
    if (i) line += csv ? "," : "\t";
    const x = value[i];
    if (x === null || x === undefined) continue;
    switch (typeof x) {
      case "boolean":
        line += x ? "true" : "false";
        break;
      case "number":
        if (x === x) line += formatNumber(x);
        break;
      case "string":
        line += csv ? '"' + escapeWith(x, CSV_ESC, CSV_TABLE) + '"' : escapeWith(x, TSV_ESC, TSV_TABLE);
        break;
      default:
        throw new JqRuntimeError(`${typeErrorSubject(x)} is not valid in a csv row`);
    }
  }
  return line;
}

function uri(s: string): string {
  let out = "";
  for (const b of Buffer.from(s, "utf8")) {
    if (
      (b >= 0x41 && b <= 0x5a) ||
      (b >= 0x61 && b <= 0x7a) ||
      (b >= 0x30 && b <= 0x39) ||
      b === 0x2d ||
      b === 0x5f ||
      b === 0x2e ||
      b === 0x7e
    ) {
      out += String.fromCharCode(b);
    } else {
      out += "%" + (b < 16 ? "0" : "") + b.toString(16).toUpperCase();
    }
  }
  return out;
}

/** jq 1.8.2's `@urid`: `%XX` escapes decoded to bytes; a bad escape or invalid UTF-8 is an error. */
function urid(s: string): string {
  const data = Buffer.from(s, "utf8");
  const out = Buffer.alloc(data.length);
  let n = 0;
  const hex = (c: number | undefined): number =>
    c === undefined ? -1 : c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : c >= 0x41 && c <= 0x46 ? c - 0x37 : -1;
  for (let i = 0; i < data.length; i++) {
    if (data[i] !== 0x25) {
      out[n++] = data[i]!;
      continue;
    }
    const hi = hex(data[i + 1]);
    const lo = hex(data[i + 2]);
    if (hi < 0 || lo < 0) throw new JqRuntimeError(`${typeErrorSubject(s)} is not a valid uri encoding`);
    out[n++] = (hi << 4) | lo;
    i += 2;
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(out.subarray(0, n));
  } catch {
    throw new JqRuntimeError(`${typeErrorSubject(s)} is not a valid uri encoding`);
  }
}

function sh(value: unknown): string {
  const items = Array.isArray(value) ? value : [value];
  let line = "";
  for (let i = 0; i < items.length; i++) {
    if (i) line += " ";
    const x = items[i];
    if (typeof x === "string") line += "'" + escapeWith(x, SH_ESC, SH_TABLE) + "'";
    else if (x === null || x === undefined || typeof x === "boolean" || typeof x === "number") line += toJson(x);
    else throw new JqRuntimeError(`${typeErrorSubject(x)} can not be escaped for shell`);
  }
  return line;
}

const B64_VALUES: Int16Array = (() => {
  const t = new Int16Array(256).fill(-1);
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (let i = 0; i < alphabet.length; i++) t[alphabet.charCodeAt(i)] = i;
  return t;
})();


/**
 * jq 1.7.1's @base64d: decodes up to the first `=`, rejecting any byte outside the standard alphabet,
 * tolerating missing padding, failing on a lone trailing sextet; invalid UTF-8 in the result
 * becomes U+FFFD as jq replaces it ({@link decodeUtf8}).
 */
function base64d(s: string): string {
  const data = Buffer.from(s, "utf8");
  const out = new Uint8Array(Math.floor((data.length * 3) / 4) + 3);
  let ri = 0;
  let code = 0;
  let n = 0;
  for (let i = 0; i < data.length && data[i] !== 0x3d; i++) {
    const v = B64_VALUES[data[i]];
    if (v < 0) throw new JqRuntimeError(`${typeErrorSubject(s)} is not valid base64 data`);
    code = (code << 6) | v;
    if (++n === 4) {
      out[ri++] = (code >> 16) & 0xff;
      out[ri++] = (code >> 8) & 0xff;
      out[ri++] = code & 0xff;
      n = 0;
      code = 0;
    }
  }
  if (n === 3) {
    out[ri++] = (code >> 10) & 0xff;
    out[ri++] = (code >> 2) & 0xff;
  } else if (n === 2) {
    out[ri++] = (code >> 4) & 0xff;
  } else if (n === 1) {
    throw new JqRuntimeError(`${typeErrorSubject(s)} trailing base64 byte found`);
  }
  return decodeUtf8(out.subarray(0, ri));
}

const FORMATS = new Set(["text", "json", "csv", "tsv", "html", "uri", "urid", "sh", "base64", "base64d", "base32", "base32d"]);

/** Whether `name` is a format this engine knows (`@name`). */
export function isFormatName(name: string): boolean {
  return FORMATS.has(name);
}

/**
 * Applies jq's `@name` format to a value (`value | @name`). Unknown names fail as in jq:
 * `<name> is not a valid format`.
 */
export function applyFormat(name: string, value: unknown): string {
  switch (name) {
    case "text":
      return toStringValue(value);
    case "json":
      return toJson(value, CHARGED);
    case "csv":
      return row(value, true);
    case "tsv":
      return row(value, false);
    case "html":
      return escapeWith(toStringValue(value), HTML_ESC, HTML_TABLE);
    case "uri":
      return uri(toStringValue(value));
    case "urid":
      return urid(toStringValue(value));
    case "sh":
      return sh(value);
    case "base64":
      return Buffer.from(toStringValue(value), "utf8").toString("base64");
    case "base64d":
      return base64d(toStringValue(value));
    // Our issue asks for the base32 pair as well (gojq has them); they cost nothing to offer.
    case "base32":
      return base32Encode(value);
    case "base32d":
      return base32Decode(value);
    default:
      throw new JqRuntimeError(`${name} is not a valid format`);
  }
}

const B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/** RFC 4648 base32 (with `=` padding) of the UTF-8 bytes of `tostring` — gojq's `@base32`, not in jq 1.7.1. */
export function base32Encode(value: unknown): string {
  const data = Buffer.from(toStringValue(value), "utf8");
  let out = "";
  let bits = 0;
  let acc = 0;
  for (const b of data) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += B32[(acc >>> (bits - 5)) & 31];
      bits -= 5;
    }
    acc &= (1 << bits) - 1;
  }
  if (bits > 0) out += B32[(acc << (5 - bits)) & 31];
  while (out.length % 8 !== 0) out += "=";
  return out;
}

/** Decodes RFC 4648 base32 (padding optional) — gojq's `@base32d`, not in jq 1.7.1. */
export function base32Decode(value: unknown): string {
  const s = toStringValue(value);
  const bytes: number[] = [];
  let bits = 0;
  let acc = 0;
  for (let i = 0; i < s.length && s[i] !== "="; i++) {
    const v = B32.indexOf(s[i]);
    if (v < 0) throw new JqRuntimeError(`${typeErrorSubject(s)} is not valid base32 data`);
    acc = ((acc << 5) | v) & 0xfff;
    bits += 5;
    if (bits >= 8) {
      bytes.push((acc >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return decodeUtf8(Uint8Array.from(bytes));
}
