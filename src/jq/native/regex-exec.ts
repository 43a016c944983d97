/**
 * The matching loop of jq's `_match_impl` over a translated pattern, shared by the calling thread and
 * the regex worker (which runs patterns that may backtrack without bound, under a deadline): raw
 * offsets in UTF-16 units, turned into jq's matches by the caller.
 */

/**
 * One match: `[start, end, empty, ...groupStartEnd]` (UTF-16 indices); `empty` is 1 for an empty match
 * (whose captures jq reports as empty strings at the match), and a group that did not take part has
 * `-1, -1`.
 */
export type RawMatch = number[];

/** The matches of `re` (a global RegExp) in `s`: all of them with `global`, else the first; in test mode whether there is one. */
export function execAll(re: RegExp, s: string, global: boolean, testMode: boolean, groupNames: readonly string[], onMatch?: () => void): boolean | RawMatch[] {
  try {
    return execAllUnbounded(re, s, global, testMode, groupNames, onMatch);
  } catch (e) {
    // V8's backtracking stack ran out on a long input: Oniguruma's words for its own such limit.
    if (e instanceof RangeError && /call stack/i.test(e.message)) throw new Error(MATCH_STACK_LIMIT);
    throw e;
  }
}

/** The message of a match that needs more backtracking stack than there is (ONIGERR_MATCH_STACK_LIMIT_OVER). */
export const MATCH_STACK_LIMIT = "match-stack limit over";

function execAllUnbounded(re: RegExp, s: string, global: boolean, testMode: boolean, groupNames: readonly string[], onMatch?: () => void): boolean | RawMatch[] {
  if (testMode) {
    // Whether there is any match, empty or not: the first `exec` of the loop below, answered directly.
    re.lastIndex = 0;
    return re.test(s);
  }
  const len = s.length;
  const results: RawMatch[] = [];
  let start = 0;
  while (start <= len) {
    re.lastIndex = start;
    const m = re.exec(s);
    if (m === null) break;
    const b = m.index;
    const e = b + m[0].length;
    onMatch?.();
    const raw: RawMatch = [b, e, b === e ? 1 : 0];
    for (const g of groupNames) {
      const span = m.indices?.groups?.[g];
      if (span === undefined) raw.push(-1, -1);
      else raw.push(span[0], span[1]);
    }
    results.push(raw);
    if (!global) break;
    // After an empty match the search resumes one character further on.
    if (b === e) start = e < len && (s.charCodeAt(e) & 0xfc00) === 0xd800 && (s.charCodeAt(e + 1) & 0xfc00) === 0xdc00 ? e + 2 : e + 1;
    else start = e;
  }
  return results;
}

/** A request to the regex worker. */
export interface RegexRequest {
  source: string;
  flags: string;
  input: string;
  global: boolean;
  testMode: boolean;
  groupNames: string[];
}

/** The worker's answer: the matches, or the message of an unexpected failure. */
export type RegexResponse = { ok: true; result: boolean | RawMatch[] } | { ok: false; message: string };
