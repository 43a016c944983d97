/**
 * Kubernetes' protobuf encoding, as far as the controller reads it: watch streams of built-in kinds
 * (`application/vnd.kubernetes.protobuf;stream=watch`), whose objects are decoded into the JSON the API
 * server would have sent for them (the fields' JSON names, Go's `omitempty` rules, times as RFC 3339).
 *
 * Why: the API server keeps the protobuf encoding of every object it sends a watcher, and every client-go
 * watcher of pods (kube-scheduler, kubelets, kube-controller-manager) asks for protobuf, so a JSON watch
 * makes it encode every pod event once more, in Go's slow reflection-based JSON encoder: measured, 1.4–2.3
 * s of API server CPU per 10,000 pods created, against none for a protobuf watch (docs/benchmarks.md).
 *
 * The wire format (https://protobuf.dev/programming-guides/encoding/): a message is a sequence of fields,
 * each a varint tag (field number × 8 + wire type) then its value. Kubernetes adds an envelope: the magic
 * bytes `k8s\0`, then a `runtime.Unknown` whose TypeMeta names the kind and whose `raw` is the object. A
 * watch stream is a sequence of frames, each a 4-byte big-endian length then a `metav1.WatchEvent`.
 * Field numbers are those of k8s.io/apimachinery and k8s.io/api `generated.proto`.
 */
/** The media type a protobuf watch answers with; a request asks for it with JSON as the fallback. */
export const PROTOBUF = "application/vnd.kubernetes.protobuf";

/** Data that is not the protobuf it should be. */
export class ProtobufError extends Error {}

const VARINT = 0;
const FIXED64 = 1;
const LEN = 2;
const FIXED32 = 5;

/** Reads one message's fields, from `pos` to `end` of `buf`. */
export class ProtoReader {
  /** The current field's number and wire type (after {@link next}). */
  field = 0;
  wire = 0;

  constructor(
    readonly buf: Buffer,
    public pos = 0,
    readonly end = buf.length,
  ) {}

  /** Moves to the next field; false at the end of the message. */
  next(): boolean {
    if (this.pos >= this.end) return false;
    const tag = this.varint();
    if (tag < 8 || tag > 0xffffffff) throw new ProtobufError(`a field tag of ${tag} at byte ${this.pos}`);
    this.field = Math.floor(tag / 8);
    this.wire = tag % 8;
    return true;
  }

  /**
   * A varint as a signed 64-bit integer (two's complement, as int64 and int32 are sent), in a number:
   * values beyond 2^53 are rounded once, as JSON.parse rounds them.
   */
  varint(): number {
    let lo = 0; // bits 0–31
    let hi = 0; // bits 32–63
    for (let i = 0; ; i++) {
      if (i === 10) throw new ProtobufError("a varint longer than 10 bytes");
      if (this.pos >= this.end) throw new ProtobufError("a varint runs past the end of its message");
      const b = this.buf[this.pos++]!;
      if (i < 4) lo |= (b & 0x7f) << (i * 7);
      else if (i === 4) {
        lo |= (b & 0x0f) << 28;
        hi |= (b & 0x7f) >> 4;
      } else hi |= (b & 0x7f) << (i * 7 - 32);
      if ((b & 0x80) === 0) break;
    }
    return (hi | 0) * 4294967296 + (lo >>> 0);
  }

  /** The current field as a signed 64-bit integer (int64, int32). */
  int(): number {
    this.expect(VARINT);
    return this.varint();
  }

  bool(): boolean {
    return this.int() !== 0;
  }

  /** The current length-delimited field's bounds. */
  private span(): [number, number] {
    this.expect(LEN);
    const n = this.varint();
    const start = this.pos;
    if (n > this.end - start) throw new ProtobufError(`a field of ${n} bytes runs past the end of its message`);
    this.pos = start + n;
    return [start, start + n];
  }

  string(): string {
    const [s, e] = this.span();
    // Buffer's decoder, which makes a flat string (one built here a character at a time would be a
    // chain of cons strings, several times larger in a cache of 50,000 pods).
    return this.buf.toString("utf8", s, e);
  }

  /** The current field's bytes (a view, not a copy). */
  bytes(): Buffer {
    const [s, e] = this.span();
    return this.buf.subarray(s, e);
  }

  /** A reader of the current field's embedded message. */
  message(): ProtoReader {
    const [s, e] = this.span();
    return new ProtoReader(this.buf, s, e);
  }

  /** Passes over the current field. */
  skip(): void {
    switch (this.wire) {
      case VARINT:
        this.varint();
        return;
      case FIXED64:
        this.pos += 8;
        break;
      case LEN:
        this.span();
        return;
      case FIXED32:
        this.pos += 4;
        break;
      default:
        throw new ProtobufError(`wire type ${this.wire} (field ${this.field}) is not one Kubernetes uses`);
    }
    if (this.pos > this.end) throw new ProtobufError("a fixed-size field runs past the end of its message");
  }

  private expect(wire: number): void {
    if (this.wire !== wire) throw new ProtobufError(`field ${this.field} has wire type ${this.wire}, expected ${wire}`);
  }
}

/** A kind's apiVersion and kind, from the envelope. */
export interface TypeMeta {
  apiVersion: string;
  kind: string;
}

/** Decodes an object of one kind (its `raw` bytes) into its JSON form, with `type`'s apiVersion and kind. */
export type ObjectDecoder = (raw: ProtoReader, type: TypeMeta) => Record<string, unknown>;

const MAGIC = Buffer.from("k8s\0", "latin1");

/** The object inside Kubernetes' envelope (`k8s\0` + runtime.Unknown): its type and its bytes. */
export function unwrap(buf: Buffer): { type: TypeMeta; raw: ProtoReader } {
  if (buf.length < 4 || !buf.subarray(0, 4).equals(MAGIC)) throw new ProtobufError("an object without Kubernetes' protobuf envelope (k8s\\0)");
  const r = new ProtoReader(buf, 4);
  const type: TypeMeta = { apiVersion: "", kind: "" };
  let raw: ProtoReader | undefined;
  while (r.next()) {
    if (r.field === 1) {
      const t = r.message();
      while (t.next()) {
        if (t.field === 1) type.apiVersion = t.string();
        else if (t.field === 2) type.kind = t.string();
        else t.skip();
      }
    } else if (r.field === 2) raw = r.message();
    else if (r.field === 3) {
      const encoding = r.string();
      if (encoding !== "") throw new ProtobufError(`an object with content encoding '${encoding}'`);
    } else r.skip();
  }
  return { type, raw: raw ?? new ProtoReader(buf, buf.length) };
}

/** The last time formatted (objects created in the same second share it). */
let lastTime: [number, string] = [NaN, ""];

/** metav1.Time: seconds since the epoch, as Go writes it in JSON (RFC 3339, UTC, no fraction); null for the zero time. */
function time(r: ProtoReader): string | null {
  const t = r.message();
  // Go's zero time (year 1) marshals to an empty message, and an empty message unmarshals to it.
  if (t.pos === t.end) return null;
  let seconds = 0;
  while (t.next()) {
    if (t.field === 1) seconds = t.int();
    else t.skip(); // nanos: not in JSON, and Kubernetes does not send them
  }
  if (seconds === lastTime[0]) return lastTime[1];
  // Go's zero time sent as a message all the same: metav1.Time writes it as null.
  if (seconds === GO_ZERO_TIME) return null;
  const d = new Date(seconds * 1000);
  if (Number.isNaN(d.getTime())) throw new ProtobufError(`a time of ${seconds} seconds`);
  lastTime = [seconds, rfc3339(d)];
  return lastTime[1];
}

/** Go's zero time (January 1, year 1, UTC) in seconds since the epoch. */
const GO_ZERO_TIME = -62135596800;

/**
 * A UTC time as Go's `time.RFC3339` layout writes it: the year in at least four digits, a minus sign
 * before a negative one (JavaScript's ISO format writes six digits and a sign outside 0–9999).
 */
function rfc3339(d: Date): string {
  const y = d.getUTCFullYear();
  const two = (n: number): string => String(n).padStart(2, "0");
  return `${y < 0 ? "-" : ""}${String(Math.abs(y)).padStart(4, "0")}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())}T${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}Z`;
}

/** A map<string,string> entry: key 1, value 2. */
function mapEntry(r: ProtoReader, into: Record<string, string>): void {
  const e = r.message();
  let key = "";
  let value = "";
  while (e.next()) {
    if (e.field === 1) key = e.string();
    else if (e.field === 2) value = e.string();
    else e.skip();
  }
  into[key] = value;
}

function ownerReference(r: ProtoReader): Record<string, unknown> {
  const o = r.message();
  let apiVersion = "";
  let kind = "";
  let name = "";
  let uid = "";
  let controller: boolean | undefined;
  let blockOwnerDeletion: boolean | undefined;
  while (o.next()) {
    switch (o.field) {
      case 1:
        kind = o.string();
        break;
      case 3:
        name = o.string();
        break;
      case 4:
        uid = o.string();
        break;
      case 5:
        apiVersion = o.string();
        break;
      case 6:
        controller = o.bool();
        break;
      case 7:
        blockOwnerDeletion = o.bool();
        break;
      default:
        o.skip();
    }
  }
  // apiVersion, kind, name and uid have no omitempty: always in the JSON.
  const out: Record<string, unknown> = { apiVersion, kind, name, uid };
  if (controller !== undefined) out["controller"] = controller;
  if (blockOwnerDeletion !== undefined) out["blockOwnerDeletion"] = blockOwnerDeletion;
  return out;
}

/** String fields by number and JSON name, in the JSON's order. */
type StringFields = readonly (readonly [number, string])[];

/** Writes the strings read by field number (`values[f]`) under their JSON names, leaving out empty ones (omitempty). */
function putStrings(out: Record<string, unknown>, values: (string | undefined)[], fields: StringFields): void {
  for (const [f, name] of fields) if (values[f]) out[name] = values[f];
}

/** ObjectMeta's string fields 1–6. */
const META_STRINGS: StringFields = [
  [1, "name"],
  [2, "generateName"],
  [3, "namespace"],
  [4, "selfLink"],
  [5, "uid"],
  [6, "resourceVersion"],
];
/** Status's string fields, StatusDetails', and StatusCause's. */
const STATUS_STRINGS: StringFields = [
  [2, "status"],
  [3, "message"],
  [4, "reason"],
];
const DETAILS_STRINGS: StringFields = [
  [1, "name"],
  [2, "group"],
  [3, "kind"],
  [6, "uid"],
];
const CAUSE_STRINGS: StringFields = [
  [1, "reason"],
  [2, "message"],
  [3, "field"],
];

/** metav1.ObjectMeta without managedFields (which the controller drops), keys in the JSON's order. */
export function objectMeta(r: ProtoReader): Record<string, unknown> {
  const m = r.message();
  const s: (string | undefined)[] = [];
  let generation = 0;
  let creationTimestamp: string | null = null;
  let deletionTimestamp: string | null | undefined;
  let deletionGracePeriodSeconds: number | undefined;
  let labels: Record<string, string> | undefined;
  let annotations: Record<string, string> | undefined;
  let ownerReferences: Record<string, unknown>[] | undefined;
  let finalizers: string[] | undefined;
  while (m.next()) {
    const f = m.field;
    if (f >= 1 && f <= 6) s[f] = m.string();
    else if (f === 7) generation = m.int();
    else if (f === 8) creationTimestamp = time(m);
    else if (f === 9) deletionTimestamp = time(m);
    else if (f === 10) deletionGracePeriodSeconds = m.int();
    else if (f === 11) mapEntry(m, (labels ??= {}));
    else if (f === 12) mapEntry(m, (annotations ??= {}));
    else if (f === 13) (ownerReferences ??= []).push(ownerReference(m));
    else if (f === 14) (finalizers ??= []).push(m.string());
    else m.skip();
  }
  const out: Record<string, unknown> = {};
  putStrings(out, s, META_STRINGS);
  if (generation !== 0) out["generation"] = generation;
  if (creationTimestamp !== null) out["creationTimestamp"] = creationTimestamp; // omitzero
  if (deletionTimestamp !== undefined) out["deletionTimestamp"] = deletionTimestamp; // a pointer: null when zero
  if (deletionGracePeriodSeconds !== undefined) out["deletionGracePeriodSeconds"] = deletionGracePeriodSeconds;
  if (labels) out["labels"] = labels;
  if (annotations) out["annotations"] = annotations;
  if (ownerReferences) out["ownerReferences"] = ownerReferences;
  if (finalizers) out["finalizers"] = finalizers;
  return out;
}

/** metav1.Status (an ERROR event's object, or a refused request's body). */
export function status(r: ProtoReader): Record<string, unknown> {
  const out: Record<string, unknown> = { apiVersion: "v1", kind: "Status", metadata: {} };
  const s: (string | undefined)[] = [];
  let details: Record<string, unknown> | undefined;
  let code = 0;
  while (r.next()) {
    const f = r.field;
    if (f >= 2 && f <= 4) s[f] = r.string();
    else if (f === 5) details = statusDetails(r.message());
    else if (f === 6) code = r.int() | 0;
    else r.skip();
  }
  putStrings(out, s, STATUS_STRINGS);
  if (details) out["details"] = details;
  if (code !== 0) out["code"] = code;
  return out;
}

function statusDetails(d: ProtoReader): Record<string, unknown> {
  const s: (string | undefined)[] = [];
  let causes: Record<string, unknown>[] | undefined;
  let retryAfterSeconds = 0;
  while (d.next()) {
    const f = d.field;
    if (f === 1 || f === 2 || f === 3 || f === 6) s[f] = d.string();
    else if (f === 4) {
      const c = d.message();
      const v: (string | undefined)[] = [];
      while (c.next()) {
        if (c.field >= 1 && c.field <= 3) v[c.field] = c.string();
        else c.skip();
      }
      const cause: Record<string, unknown> = {};
      putStrings(cause, v, CAUSE_STRINGS);
      (causes ??= []).push(cause);
    } else if (f === 5) retryAfterSeconds = d.int() | 0;
    else d.skip();
  }
  const out: Record<string, unknown> = {};
  putStrings(out, s, DETAILS_STRINGS);
  if (causes) out["causes"] = causes;
  if (retryAfterSeconds !== 0) out["retryAfterSeconds"] = retryAfterSeconds;
  return out;
}

/** A Status in its envelope (the body of a refused protobuf request), or undefined when it is not one. */
export function statusOf(body: Buffer): Record<string, unknown> | undefined {
  try {
    const { type, raw } = unwrap(body);
    return type.kind === "Status" ? status(raw) : undefined;
  } catch {
    return undefined;
  }
}

/** The types of watch event. */
const EVENT_TYPES = new Set(["ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"]);

/** One frame of a watch stream: a metav1.WatchEvent whose object is in its envelope. */
export function watchEvent(frame: Buffer, decode: ObjectDecoder): { type: string; object: Record<string, unknown> } {
  const r = new ProtoReader(frame);
  let type = "";
  let object: Record<string, unknown> | undefined;
  while (r.next()) {
    if (r.field === 1) type = r.string();
    else if (r.field === 2) {
      const ext = r.message();
      while (ext.next()) {
        if (ext.field !== 1) {
          ext.skip();
          continue;
        }
        const inner = unwrap(ext.bytes());
        object = inner.type.kind === "Status" && type === "ERROR" ? status(inner.raw) : decode(inner.raw, inner.type);
      }
    } else r.skip();
  }
  if (!EVENT_TYPES.has(type)) throw new ProtobufError(`a watch event of type '${type}'`);
  if (!object) throw new ProtobufError(`a watch event ${type} without an object`);
  return { type, object };
}

/** The largest watch frame read (an object is at most a few MiB: etcd's request limit is 1.5 MiB). */
export const MAX_FRAME_BYTES = 64 * 1024 * 1024;
