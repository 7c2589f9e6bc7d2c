/** How the plugin says that catalog entries were left out of the snapshot (sign-in, session start, diagnose). */
export function skippedText(count: number, reason: string | null | undefined): string {
  const what = count === 1 ? '1 malformed catalog entry was' : `${count} malformed catalog entries were`;
  return `${what} left out${reason ? ` (first: ${reason})` : ''}`;
}
