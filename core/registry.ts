/** The action registry behind `agentstack.execute`, and the catalog served at /mcp/actions. */
import { createHash } from 'node:crypto';
import { EXECUTE_TOOL } from '../lib/agentstack/server/toolNames.js';
import type { CoreAccount } from './accounts.js';

export interface CallerContext {
  account: CoreAccount;
  /** Granted capabilities, or null when the token carries no caps list (unrestricted API key). */
  caps: string[] | null;
  projectId: number | null;
  claims: Record<string, unknown>;
}

export interface ActionDef {
  action: string;
  required_cap: string | null;
  summary: string;
  safe_action: boolean;
  category: string;
  doc_audience: 'public' | 'operator' | 'internal';
  run(params: Record<string, unknown>, caller: CallerContext, store: CoreStore): unknown;
}

export interface Project {
  id: number;
  name: string;
  owner: string;
}

/** In-memory state the actions act on (per running core). */
export class CoreStore {
  projects: Project[] = [
    { id: 2, name: 'Demo project', owner: 'usr_dev_0001' },
    { id: 3, name: 'Analytics sandbox', owner: 'usr_dev_0001' },
  ];
  data = new Map<string, unknown>();
  nextProjectId = 4;
  reindexCount = 0;
}

class StepError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function str(params: Record<string, unknown>, key: string, max = 200): string {
  const v = params[key];
  if (typeof v !== 'string' || !v.trim() || v.length > max) {
    throw new StepError('invalid_params', `params.${key} must be a non-empty string of at most ${max} characters`);
  }
  return v.trim();
}

function projectFor(params: Record<string, unknown>, caller: CallerContext, store: CoreStore): Project {
  const raw = params.project_id ?? caller.projectId ?? store.projects[0]?.id;
  const id = typeof raw === 'string' ? Number(raw) : raw;
  const project = store.projects.find((p) => p.id === id);
  if (!project) throw new StepError('not_found', `project ${String(raw)} not found`);
  return project;
}

function requireOperator(caller: CallerContext): void {
  if (caller.account.role !== 'operator') throw new StepError('forbidden', 'this action is for operators only');
}

export const ACTIONS: readonly ActionDef[] = [
  { action: 'system.ping', required_cap: null, summary: 'Liveness check; echoes params.', safe_action: true, category: 'system', doc_audience: 'public',
    run: (params) => ({ pong: true, echo: params.echo ?? null, time: new Date().toISOString() }) },
  { action: 'system.version', required_cap: null, summary: 'Server version.', safe_action: true, category: 'system', doc_audience: 'public',
    run: () => ({ version: '0.5.0-reference', tool: EXECUTE_TOOL }) },
  { action: 'auth.get_profile', required_cap: 'profile:read', summary: 'The signed-in user.', safe_action: true, category: 'auth', doc_audience: 'public',
    run: (_p, c) => ({ user_id: c.account.user_id, email: c.account.email, display_name: c.account.display_name, role: c.account.role, project_id: c.projectId }) },
  { action: 'projects.list', required_cap: 'projects:read', summary: 'List projects you can access.', safe_action: true, category: 'projects', doc_audience: 'public',
    run: (_p, c, s) => ({ projects: s.projects.filter((p) => p.owner === c.account.user_id || c.account.role === 'operator') }) },
  { action: 'projects.get', required_cap: 'projects:read', summary: 'One project by id.', safe_action: true, category: 'projects', doc_audience: 'public',
    run: (p, c, s) => ({ project: projectFor(p, c, s) }) },
  { action: 'projects.create', required_cap: 'projects:write', summary: 'Create a project.', safe_action: false, category: 'projects', doc_audience: 'public',
    run: (p, c, s) => {
      const project = { id: s.nextProjectId++, name: str(p, 'name'), owner: c.account.user_id };
      s.projects.push(project);
      return { project };
    } },
  { action: 'data.query', required_cap: 'data:read', summary: 'Read keys of a project data store.', safe_action: true, category: 'data', doc_audience: 'public',
    run: (p, c, s) => {
      const project = projectFor(p, c, s);
      const prefix = `${project.id}:`;
      const rows = [...s.data.entries()].filter(([k]) => k.startsWith(prefix)).map(([k, value]) => ({ key: k.slice(prefix.length), value }));
      return { project_id: project.id, rows };
    } },
  { action: 'data.write', required_cap: 'data:write', summary: 'Write one key of a project data store.', safe_action: false, category: 'data', doc_audience: 'public',
    run: (p, c, s) => {
      const project = projectFor(p, c, s);
      const key = str(p, 'key');
      s.data.set(`${project.id}:${key}`, p.value ?? null);
      return { project_id: project.id, key, written: true };
    } },
  { action: 'actions.list', required_cap: 'actions:read', summary: 'Names of all actions.', safe_action: true, category: 'meta', doc_audience: 'public',
    run: () => ({ actions: ACTIONS.filter((a) => a.doc_audience === 'public').map((a) => a.action) }) },
  { action: 'actions.describe', required_cap: 'actions:read', summary: 'Describe one action.', safe_action: true, category: 'meta', doc_audience: 'public',
    run: (p) => {
      const name = str(p, 'action');
      const def = ACTIONS.find((a) => a.action === name);
      if (!def) throw new StepError('unknown_action', `unknown action ${name}`);
      return catalogEntry(def);
    } },
  { action: 'actions.run_job', required_cap: 'actions:execute', summary: 'Run a named job in a project.', safe_action: false, category: 'jobs', doc_audience: 'public',
    run: (p, c, s) => ({ project_id: projectFor(p, c, s).id, job: str(p, 'job'), status: 'queued' }) },
  { action: 'admin.users.list', required_cap: 'actions:execute', summary: 'List all users (operators).', safe_action: true, category: 'admin', doc_audience: 'operator',
    run: (_p, c) => {
      requireOperator(c);
      return { users: ['usr_dev_0001', 'usr_ops_0002'] };
    } },
  { action: 'internal.reindex', required_cap: 'actions:execute', summary: 'Rebuild search indexes (internal).', safe_action: false, category: 'internal', doc_audience: 'internal',
    run: (_p, c, s) => {
      requireOperator(c);
      s.reindexCount += 1;
      return { reindexed: true, count: s.reindexCount };
    } },
];

export function domainOf(action: string): string {
  return action.split('.')[0]!;
}

export function catalogEntry(def: ActionDef) {
  const { action, required_cap, summary, safe_action, category, doc_audience } = def;
  return { action, required_cap, summary, safe_action, category, doc_audience };
}

export interface ActionsCatalog {
  version: string;
  entrypoint: string;
  total_actions: number;
  domains: Record<string, ReturnType<typeof catalogEntry>[]>;
  catalog_etag: string;
}

/** Builds the catalog; `countOffset` is the `actionsCountMismatch` fault. */
export function buildCatalog(countOffset = 0): ActionsCatalog {
  const domains: ActionsCatalog['domains'] = {};
  for (const def of ACTIONS) (domains[domainOf(def.action)] ??= []).push(catalogEntry(def));
  const etag = createHash('sha256').update(JSON.stringify(domains)).digest('base64url').slice(0, 22);
  return { version: '2026-11-01', entrypoint: EXECUTE_TOOL, total_actions: ACTIONS.length + countOffset, domains, catalog_etag: etag };
}

export interface Step {
  id: string;
  action: string;
  params?: Record<string, unknown>;
}
export interface StepResult {
  id: string;
  action: string;
  ok: boolean;
  data?: unknown;
  error?: { code: string; message: string };
  dry_run?: boolean;
}

/** Runs steps in order; stops at the first failure unless `stopOnError` is false. */
export function executeSteps(
  steps: Step[],
  options: { stopOnError?: boolean; dry_run?: boolean },
  caller: CallerContext,
  store: CoreStore,
): { ok: boolean; results: StepResult[]; skipped: number } {
  const results: StepResult[] = [];
  const stopOnError = options.stopOnError !== false;
  for (const step of steps) {
    const def = ACTIONS.find((a) => a.action === step.action);
    const base = { id: step.id, action: step.action };
    if (!def) {
      results.push({ ...base, ok: false, error: { code: 'unknown_action', message: `unknown action ${step.action}` } });
    } else if (def.required_cap && caller.caps && !caller.caps.includes(def.required_cap)) {
      results.push({ ...base, ok: false, error: { code: 'missing_capability', message: `${step.action} requires capability ${def.required_cap}` } });
    } else if (options.dry_run) {
      results.push({ ...base, ok: true, dry_run: true, data: { would_run: def.action, safe_action: def.safe_action } });
    } else {
      try {
        results.push({ ...base, ok: true, data: def.run(step.params ?? {}, caller, store) });
      } catch (err) {
        const code = err instanceof StepError ? err.code : 'internal_error';
        results.push({ ...base, ok: false, error: { code, message: err instanceof Error ? err.message : String(err) } });
      }
    }
    if (!results.at(-1)!.ok && stopOnError) break;
  }
  return { ok: results.every((r) => r.ok), results, skipped: steps.length - results.length };
}
