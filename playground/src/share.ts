/**
 * The page's state in the URL fragment: the three texts (and the picked definition) as JSON,
 * deflated with the browser's own CompressionStream and base64url-encoded, so a link carries a whole
 * session and nothing is sent to a server (the fragment never leaves the browser).
 */

/** What a link restores. */
export interface SharedState {
  /** The picked bundled definition, if the texts started from one. */
  picked?: string;
  karta: string;
  object: string;
  pods: string;
}

/** The fragment's prefix: `#s=` then the data. */
export const FRAGMENT_PREFIX = "#s=";

function toBase64Url(bytes: Uint8Array): string {
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): Uint8Array {
  const bin = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

async function pipe(bytes: Uint8Array, stream: CompressionStream | DecompressionStream): Promise<Uint8Array> {
  const out = new Response(new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(stream));
  return new Uint8Array(await out.arrayBuffer());
}

/** The fragment for a state. */
export async function encodeState(state: SharedState): Promise<string> {
  const json = new TextEncoder().encode(JSON.stringify({ v: 1, ...state }));
  return FRAGMENT_PREFIX + toBase64Url(await pipe(json, new CompressionStream("deflate-raw")));
}

/** The state in a fragment, or an error message saying why it cannot be read. */
export async function decodeState(fragment: string): Promise<SharedState | { error: string }> {
  if (!fragment.startsWith(FRAGMENT_PREFIX)) return { error: "not a playground link" };
  try {
    const bytes = await pipe(fromBase64Url(fragment.slice(FRAGMENT_PREFIX.length)), new DecompressionStream("deflate-raw"));
    const v = JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>;
    if (typeof v.karta !== "string" || typeof v.object !== "string" || typeof v.pods !== "string") return { error: "the link's data lacks the three texts" };
    return { karta: v.karta, object: v.object, pods: v.pods, ...(typeof v.picked === "string" ? { picked: v.picked } : {}) };
  } catch (err) {
    return { error: `the link's data cannot be read (${err instanceof Error ? err.message : String(err)})` };
  }
}
