/**
 * The `ask` of the person's per-action rules, in one wording for the full check (policy.ts) and the gate (gate.ts,
 * deny.ts), which compiles each action's ask when the rules are read and gives it without the execute chunk.
 */
import type { PolicyKey } from '../../../agentstack/policy/effective.js';
import type { PreMcpAnswer } from '../answer.js';
import { because } from '../reason.js';

const MAX_NAMED = 5;

/** One step the rules ask about: its action, why, the rule's key and where that rule is set (in words). */
export interface RuleAsk {
  action: string;
  why: string;
  key: PolicyKey;
  where: string;
}

export function rulesAskAnswer(asks: readonly RuleAsk[]): PreMcpAnswer {
  const more = (sep: string) => (asks.length > MAX_NAMED ? `${sep}and ${asks.length - MAX_NAMED} more` : '');
  const named = asks.slice(0, MAX_NAMED).map((a) => `${a.action} (${a.why}, ${a.where})`).join('; ') + more('; ');
  const actions = asks.slice(0, MAX_NAMED).map((a) => a.action).join(', ') + more(' ');
  return because(asks.map((a) => `rule:${a.key}`), {
    permission: 'ask',
    user_message: `AgentStack: your rules ask before ${named}. Allow only if you want ${asks.length === 1 ? 'it' : 'them'} to run.`,
    agent_message: `The person's AgentStack rules ask them to confirm ${actions}; wait for their answer.`,
  });
}

/**
 * The gate's table of asks: a JSON line of the distinct [why, key, where] triples, then one line per action,
 * `<action>\0<triple's position>`. Actions are listable (no newline, no NUL).
 */
export function serializeAsks(asks: readonly RuleAsk[]): string {
  const triples: Array<[string, PolicyKey, string]> = [];
  const at = new Map<string, number>();
  let lines = '';
  for (const a of asks) {
    const id = JSON.stringify([a.why, a.key, a.where]);
    let n = at.get(id);
    if (n === undefined) {
      n = triples.push([a.why, a.key, a.where]) - 1;
      at.set(id, n);
    }
    lines += `${a.action}\u0000${n}\n`;
  }
  return `${JSON.stringify(triples)}\n${lines}`;
}

/** The asks of `actions` (each once, in order), or null when one is not in the table (or the table is damaged). */
export function asksOf(table: string, actions: readonly string[]): RuleAsk[] | null {
  try {
    const nl = table.indexOf('\n');
    const triples = JSON.parse(table.slice(0, nl)) as Array<[string, PolicyKey, string]>;
    const body = table.slice(nl);
    const out: RuleAsk[] = [];
    for (const action of new Set(actions)) {
      const start = body.indexOf(`\n${action}\u0000`);
      if (start < 0) return null;
      const from = start + action.length + 2;
      const triple = triples[Number(body.slice(from, body.indexOf('\n', from)))];
      if (!Array.isArray(triple) || triple.length !== 3) return null;
      out.push({ action, why: triple[0], key: triple[1], where: triple[2] });
    }
    return out;
  } catch {
    return null;
  }
}
