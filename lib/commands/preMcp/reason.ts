/**
 * Why the pre-MCP hook answered `deny` or `ask`, in the words the activity journal keeps: `unknown_action`,
 * `missing_capability`, `unapproved_action`, `unreadable_arguments`, `unreadable_call`, `uncheckable`, `unplaced_url`, `too_slow`, `credential`,
 * `rules_unreadable`, `rule:<key>` (the person's rule under that settings key). Kept beside each answer, not in it:
 * Cursor reads the answer's own fields. The hook's execute chunk holds the one copy of this module.
 */
const reasons = new WeakMap<object, readonly string[]>();

/** Marks `answer` as given for `kinds` and returns it. */
export function because<T extends object>(kinds: string | readonly string[], answer: T): T {
  reasons.set(answer, [...new Set(typeof kinds === 'string' ? [kinds] : kinds)]);
  return answer;
}

/** The kinds `answer` was given for (none for an answer not marked). */
export function reasonsOf(answer: object): string[] {
  return [...(reasons.get(answer) ?? [])];
}
