/** "Did you mean": the closest name among candidates, by edit distance. */

/** Levenshtein distance, case-insensitive (a wrong capital is one of the commonest slips). */
export function editDistance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  if (x === y) return a === b ? 0 : 1;
  let prev = Array.from({ length: y.length + 1 }, (_, i) => i);
  for (let i = 1; i <= x.length; i++) {
    const cur = [i];
    for (let j = 1; j <= y.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[y.length]!;
}

/**
 * The candidate closest to `name`, when close enough to be a likely slip: within a third of the
 * length, or one being a prefix/extension of the other (`pytorchReplicaSpec` → `pytorchReplicaSpecs`).
 */
export function closest(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestScore = Infinity;
  const lower = name.toLowerCase();
  for (const c of candidates) {
    const cl = c.toLowerCase();
    let d = editDistance(name, c);
    if (cl.startsWith(lower) || lower.startsWith(cl)) d = Math.min(d, Math.abs(c.length - name.length));
    if (d < bestScore) {
      bestScore = d;
      best = c;
    }
  }
  if (best === undefined) return undefined;
  const limit = Math.max(2, Math.floor(Math.max(name.length, best.length) / 3));
  return bestScore <= limit ? best : undefined;
}
