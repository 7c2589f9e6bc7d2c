/**
 * Which project the agent's AgentStack calls go to, and why, decided once. Calls carry the entry's `X-Project-ID`
 * header (a sign-in writes the pin there); without one the server uses the account's default project, which the
 * token may name. Pure.
 */
export type ProjectReason = 'pinned' | 'account_default';

export interface ProjectFacts {
  /** `X-Project-ID` of the mcp.json entry, parsed; null when absent or not a project id. */
  header: number | null;
  /** The pin for the next sign-in: AGENTSTACK_PROJECT_ID, else the pin file. */
  pin: { projectId: number | null; source: 'env' | 'file' | 'none' };
  /** The token's `project_id` claim, parsed (the account's default), or null. */
  claimed: number | null;
}

export interface Project {
  /** The project calls go to; null when the account's default is not known here. */
  id: number | null;
  reason: ProjectReason;
  /** Where a pin comes from: `mcp.json` (the header calls carry), `env` or `file` (the pin a sign-in writes). */
  source: 'mcp.json' | 'env' | 'file' | null;
  /** A pin that differs from what calls carry now: it applies from the next sign-in. */
  nextSignIn: number | null;
}

export function projectOf(f: ProjectFacts): Project {
  const pending = f.pin.projectId !== null && f.pin.projectId !== f.header ? f.pin.projectId : null;
  if (f.header !== null) {
    const source = f.pin.projectId === f.header && f.pin.source !== 'none' ? f.pin.source : 'mcp.json';
    return { id: f.header, reason: 'pinned', source, nextSignIn: pending };
  }
  return { id: f.claimed, reason: 'account_default', source: null, nextSignIn: pending };
}

/** The project as every view words it. */
export function projectText(p: Project): string {
  const now = p.reason === 'pinned'
    ? `${p.id} (pinned${p.source === 'env' ? ' by AGENTSTACK_PROJECT_ID' : ''})`
    : p.id === null ? "your account's default" : `${p.id} (your account's default)`;
  return p.nextSignIn === null ? now : `${now}; ${p.nextSignIn} is pinned for your next sign-in`;
}
