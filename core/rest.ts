/** AgentStack's REST surface next to /mcp: catalog, tools mirrors, discovery, icon, health, profile, project switch. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TokenAuth, VerifiedCaller } from './auth.js';
import { countMismatch, type RouteName } from './faults.js';
import { HttpError, readJson, sendJson } from './http.js';
import { allScopes } from './oauth.js';
import { CHALLENGE_METADATA_PATH } from './variants.js';
import { buildCatalog } from './registry.js';
import type { CoreState } from './state.js';
import { EXECUTE_TOOL } from '../lib/agentstack/server/toolNames.js';
import { allToolRows, executeToolRow, type ToolRow } from './tools.js';

export interface RestRoute {
  name: RouteName;
  methods: string[];
  path: string;
  auth: 'public' | 'bearer';
  handle(ctx: RestContext): Promise<void> | void;
}

export interface RestContext {
  state: CoreState;
  req: IncomingMessage;
  res: ServerResponse;
  caller: VerifiedCaller | null;
  auth: TokenAuth;
  icon: Buffer;
}

export function protectedResourceMetadata(state: CoreState) {
  return {
    resource: state.resource,
    authorization_servers: [state.issuer],
    // The resource's own scopes; what only the authorization server grants (offline_access) is in its metadata.
    // AgentStack's hosted server lists its OIDC scopes here too: the `agentstack` variant.
    scopes_supported: state.variants.has('agentstack') ? allScopes(state) : state.variants.capabilityScopes(),
    bearer_methods_supported: ['header'],
    resource_name: 'AgentStack MCP',
    ...state.variants.extras('protected_resource'),
  };
}

/** Where this core serves RFC 9728 metadata, as its 401 challenge names it. */
export function resourceMetadataUrl(state: CoreState): string {
  if (state.variants.has('challenge-metadata')) return `${state.baseUrl}${CHALLENGE_METADATA_PATH}`;
  if (state.variants.has('root-resource-metadata')) return `${state.baseUrl}/.well-known/oauth-protected-resource`;
  return `${state.baseUrl}/.well-known/oauth-protected-resource/mcp`;
}

/** The metadata at `path`, or a 404 where this core's variant does not serve it. */
const metadataAt = (path: string) => ({ state, res }: RestContext) => {
  // A plain deployment publishes one document, where RFC 9728 §3.1 puts it for <base>/mcp; AgentStack's hosted server
  // (the `agentstack` variant) answers the root location with the same document too.
  const elsewhere = state.variants.has('challenge-metadata') || state.variants.has('root-resource-metadata') || !state.variants.has('agentstack');
  if (resourceMetadataUrl(state) !== `${state.baseUrl}${path}` && elsewhere) {
    sendJson(res, 404, { error: 'not_found', error_description: 'no protected-resource metadata here' });
    return;
  }
  sendJson(res, 200, protectedResourceMetadata(state), { 'access-control-allow-origin': '*' });
};

const BAD_ICON = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"/>');

/** The catalog as served: the registry's, shaped by the core's variants. */
export function catalogFor(state: CoreState): Record<string, unknown> & { catalog_etag: string; total_actions: number } {
  return state.variants.shapeCatalog(buildCatalog(countMismatch(state.faults))) as ReturnType<typeof catalogFor>;
}

/** The `restToolsDrift` fault: a REST copy that fell behind tools/list (old description, icons lost). */
function staleRow({ icons: _icons, ...row }: ToolRow): ToolRow {
  return { ...row, description: 'Run AgentStack actions (REST copy, out of date).' };
}

const tools = ({ state, res }: RestContext) => {
  const rows = allToolRows(state);
  sendJson(res, 200, { tools: state.faults.restToolsDrift ? rows.map(staleRow) : rows, actions_url: `${state.baseUrl}/mcp/actions` });
};

export const REST_ROUTES: RestRoute[] = [
  { name: 'protected_resource', methods: ['GET'], path: '/.well-known/oauth-protected-resource', auth: 'public',
    handle: metadataAt('/.well-known/oauth-protected-resource') },
  { name: 'protected_resource', methods: ['GET'], path: '/.well-known/oauth-protected-resource/mcp', auth: 'public',
    handle: metadataAt('/.well-known/oauth-protected-resource/mcp') },
  { name: 'protected_resource', methods: ['GET'], path: CHALLENGE_METADATA_PATH, auth: 'public', handle: metadataAt(CHALLENGE_METADATA_PATH) },
  { name: 'actions', methods: ['GET'], path: '/mcp/actions', auth: 'bearer',
    handle: ({ state, req, res }) => {
      const refusal = state.faults.actionsChallenge;
      if (refusal) {
        const error = /error="?([a-z_]+)/.exec(refusal.challenge)?.[1] ?? 'unauthorized';
        sendJson(res, refusal.status, { error, error_description: 'refused by the actionsChallenge fault' }, { 'www-authenticate': refusal.challenge });
        return;
      }
      const catalog = catalogFor(state);
      const etag = `"${catalog.catalog_etag}"`;
      const inm = req.headers['if-none-match'];
      if (typeof inm === 'string' && inm.split(',').map((s) => s.trim().replace(/^W\//, '')).includes(etag)) {
        state.counters.catalogNotModified++;
        res.writeHead(304, { etag, 'cache-control': 'private, max-age=0' }).end();
        return;
      }
      sendJson(res, 200, catalog, { etag, 'cache-control': 'private, max-age=0' });
    } },
  { name: 'actions_summary', methods: ['GET'], path: '/mcp/actions/summary', auth: 'public',
    handle: ({ state, res }) => {
      const { total_actions, catalog_etag } = catalogFor(state);
      sendJson(res, 200, { total_actions, catalog_etag });
    } },
  { name: 'cache_clear', methods: ['POST'], path: '/mcp/cache/clear', auth: 'bearer',
    handle: ({ res }) => {
      res.writeHead(204).end();
    } },
  { name: 'tools', methods: ['GET'], path: '/mcp/tools', auth: 'bearer', handle: tools },
  { name: 'tools', methods: ['GET', 'POST'], path: '/mcp/tools/list', auth: 'bearer', handle: tools },
  { name: 'discovery', methods: ['GET'], path: '/mcp/discovery', auth: 'bearer',
    handle: ({ state, res, caller }) => {
      const { icons: _icons, ...tool } = executeToolRow(state, false);
      sendJson(res, 200, {
        entrypoint: EXECUTE_TOOL,
        tool,
        actions_url: `${state.baseUrl}/mcp/actions`,
        api_key_context: {
          token_type: caller?.payload.token_type ?? 'oauth_access_token',
          user_id: caller?.account.user_id,
          project_id: caller?.projectId ?? null,
          caps: caller?.caps ?? null,
          header: 'Authorization: Bearer <token>',
        },
      });
    } },
  { name: 'icon', methods: ['GET'], path: '/mcp/icon', auth: 'public',
    handle: ({ state, res, icon }) => {
      const body = state.faults.badIcon ? BAD_ICON : icon;
      res.writeHead(200, {
        'content-type': 'image/png',
        'content-length': String(body.length),
        'access-control-allow-origin': '*',
        'cache-control': 'public, max-age=3600',
      });
      res.end(body);
    } },
  { name: 'health', methods: ['GET'], path: '/mcp/health', auth: 'public',
    handle: ({ state, res }) => sendJson(res, 200, { ok: true, mcp_surface_tools: allToolRows(state).length }) },
  { name: 'me', methods: ['GET'], path: '/api/auth/me', auth: 'bearer',
    handle: ({ state, res, caller }) => {
      const a = caller!.account;
      sendJson(res, 200, { data: state.variants.shapeMe({ user_id: a.user_id, email: a.email, display_name: a.display_name, role: a.role }) });
    } },
  { name: 'switch_project', methods: ['POST'], path: '/api/auth/switch-project', auth: 'bearer',
    handle: async ({ state, req, res, caller, auth }) => {
      const body = (await readJson(req, 8 * 1024)) as { target_project_id?: unknown };
      const raw = body && typeof body === 'object' ? body.target_project_id : undefined;
      const id = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : raw;
      if (typeof id !== 'number' || !Number.isSafeInteger(id) || id <= 1) {
        throw new HttpError(400, 'invalid_project', 'target_project_id must be an integer greater than 1');
      }
      if (!state.store.projects.some((p) => p.id === id)) throw new HttpError(404, 'project_not_found', `project ${id} not found`);
      sendJson(res, 200, { data: { access_token: await auth.signProjectToken(caller!, id), project_id: id } });
    } },
];

