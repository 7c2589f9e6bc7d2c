/**
 * When each Node release line reaches its end of life (no more security fixes), from nodejs.org's release
 * schedule: the one table every view reads. Add a line when a new release is scheduled.
 */
export const NODE_END_OF_LIFE: Readonly<Record<number, string>> = {
  18: '2025-04-30', 19: '2023-06-01', 20: '2026-04-30', 21: '2024-06-01', 22: '2027-04-30', 23: '2025-06-01',
  24: '2028-04-30', 25: '2026-06-01', 26: '2029-04-30',
};

const majorOf = (version: string) => Number(version.replace(/^v/, '').split('.')[0]);

/** The oldest even (long-term support) release still supported at `now`, as a person installs it. */
export function supportedNodeMajor(now: number): number {
  const lts = Object.entries(NODE_END_OF_LIFE).filter(([major, eol]) => Number(major) % 2 === 0 && Date.parse(eol) > now).map(([major]) => Number(major));
  return lts.length ? Math.min(...lts) : Math.max(...Object.keys(NODE_END_OF_LIFE).map(Number));
}

/** The end of life `version` is past at `now`, or null while it is supported (or not in the table and newer). */
export function nodePastEndOfLife(version: string, now: number): { major: number; endOfLife: string } | null {
  const major = majorOf(version);
  if (!Number.isFinite(major)) return null;
  const eol = NODE_END_OF_LIFE[major];
  if (eol === undefined) {
    const known = Object.keys(NODE_END_OF_LIFE).map(Number);
    return major < Math.min(...known) ? { major, endOfLife: 'before 2023' } : null;
  }
  return Date.parse(eol) <= now ? { major, endOfLife: eol } : null;
}

/** One line for a Node past its end of life: what is true and the fix. */
export function nodeEndOfLifeText(version: string, past: { endOfLife: string }, now: number): { summary: string; fix: string } {
  return {
    summary: `Node ${version.replace(/^v/, '')} is past its end of life (${past.endOfLife}): it gets no security fixes`,
    fix: `Install Node ${supportedNodeMajor(now)} or newer where Cursor finds it (README > Requirements), then restart Cursor`,
  };
}
