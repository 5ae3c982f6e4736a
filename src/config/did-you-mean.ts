/** The candidate closest to a misspelled name (edit distance at most 3, or one containing it), if any. */
export function closestName(name: string, candidates: readonly string[]): string | undefined {
  const upper = name.toUpperCase();
  let best: { name: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = candidate.includes(upper) || upper.includes(candidate) ? 1 : editDistance(upper, candidate);
    if (distance <= 3 && (!best || distance < best.distance)) best = { name: candidate, distance };
  }
  return best?.name;
}

/** Levenshtein distance: insertions, deletions and substitutions. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}
