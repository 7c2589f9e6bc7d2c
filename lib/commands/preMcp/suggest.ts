/** "Did you mean": the existing action names closest to an unknown one. Fast enough for 5,000 names per call. */

/** Levenshtein distance, giving up (returning `max + 1`) once it must exceed `max`. */
export function boundedEditDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = new Array<number>(b.length + 1);
  let curr = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    curr[0] = i;
    let rowMin = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= b.length; j++) {
      const cost = ca === b.charCodeAt(j - 1) ? 0 : 1;
      const v = Math.min(prev[j]! + 1, curr[j - 1]! + 1, prev[j - 1]! + cost);
      curr[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    [prev, curr] = [curr, prev];
  }
  return prev[b.length]!;
}

/**
 * Up to `limit` names closest to `wanted`: small edit distance first, then names sharing its domain
 * (`projects.` of `projects.lst`) or a prefix. Ties keep the snapshot's order.
 */
export function closestActions(wanted: string, names: readonly string[], limit = 3): string[] {
  const target = wanted.toLowerCase();
  const maxDistance = Math.max(2, Math.floor(target.length / 3));
  const dot = target.indexOf('.');
  const domain = dot > 0 ? target.slice(0, dot + 1) : null;
  const scored: Array<{ name: string; score: number; index: number }> = [];
  for (let index = 0; index < names.length; index++) {
    const name = names[index]!;
    const lower = name.toLowerCase();
    const distance = boundedEditDistance(target, lower, maxDistance);
    let score: number;
    if (distance <= maxDistance) score = distance;
    else if (lower.startsWith(target) || target.startsWith(lower)) score = maxDistance + 1;
    else if (domain && lower.startsWith(domain)) score = maxDistance + 2;
    else continue;
    scored.push({ name, score, index });
  }
  scored.sort((x, y) => x.score - y.score || x.index - y.index);
  return scored.slice(0, limit).map((s) => s.name);
}
