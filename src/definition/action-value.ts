/**
 * A suspend/resume action's value as upstream decodes it when it suspends (json.Unmarshal of the text):
 * the JSON value, or, for text that is not JSON, what to write instead. Shared by the definition lint
 * (a warning) and the patch (an error), so that both say the same.
 */
export function decodeActionValue(value: unknown): { ok: true; value: unknown } | { ok: false; hint: string } {
  // A value that is not text (a definition loaded before the field was typed) is the value itself.
  if (typeof value !== "string") return { ok: true, value };
  try {
    return { ok: true, value: JSON.parse(value) as unknown };
  } catch {
    return { ok: false, hint: `a string is written with its quotes, e.g. '${JSON.stringify(value)}'` };
  }
}
