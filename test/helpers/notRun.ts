/**
 * A block that may not run on this machine says why, where it is declared: `describe('…', notRunWhen(why), …)` skips
 * it when `why` is a reason (not null) and keeps the reason in the block's metadata, where the closing note
 * (test/helpers/notRunReporter.ts) reads it. A test that finds out only as it runs calls `ctx.skip(true, why)`.
 */
declare module 'vitest' {
  interface TaskMeta {
    /** Why this block did not run on this machine. */
    notRun?: string;
  }
}

export interface NotRunOptions {
  skip: boolean;
  meta: { notRun?: string };
}

/** Options that skip the block when `why` is a reason, and record it. */
export function notRunWhen(why: string | null | false | undefined, extra: Record<string, unknown> = {}): NotRunOptions {
  return { ...extra, skip: !!why, meta: why ? { notRun: why } : {} };
}

/** The suite's own user: the non-root blocks run again as `nobody` (test/run-all.mjs) when this is root. */
export const AS_ROOT = process.getuid?.() === 0;
export const NEEDS_NON_ROOT = AS_ROOT ? 'it runs as a user other than root (test/run-all.mjs runs this file again as nobody)' : null;
export const NEEDS_ROOT = AS_ROOT ? null : 'it needs root (it gives a file to another user)';
