/** The OAuth authorization server: oidc-provider v9 configured for AgentStack (device flow, JWT ATs for /mcp). */
import { randomBytes } from 'node:crypto';
import { quietProviderNotices } from './quiet.js';
import Provider, { errors } from 'oidc-provider';
import { CAPABILITY_SCOPES, BASE_SCOPES, CAPS_CLAIM } from './contract.js';
import { accountById } from './accounts.js';
import { codeInputPage, confirmPage, deniedPage, errorPage, successPage } from './pages.js';
import type { CoreState } from './state.js';

/** Header marking the core's own requests (issueTokens), which counters and faults ignore. */
export const INTERNAL_HEADER = 'x-agentstack-core-internal';
export const CLIENT_ID = 'cursor-plugin';
export const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** AgentStack's own paths for the provider's endpoints. */
export const OAUTH_ROUTES = {
  device_authorization: '/api/oauth2/device/authorize',
  token: '/api/oauth2/token',
  code_verification: '/activate',
  authorization: '/api/oauth2/authorize',
  registration: '/api/oauth2/register',
  jwks: '/api/oauth2/jwks',
  revocation: '/api/oauth2/revoke',
  userinfo: '/api/oauth2/userinfo',
  end_session: '/api/oauth2/logout',
  pushed_authorization_request: '/api/oauth2/par',
  introspection: '/api/oauth2/introspect',
} as const;

export const ALL_SCOPES: string[] = [...BASE_SCOPES, ...CAPABILITY_SCOPES];

/** Every scope this core advertises and grants, in its variant's vocabulary. */
export function allScopes(state: Pick<CoreState, 'variants'>): string[] {
  return [...BASE_SCOPES, ...state.variants.capabilityScopes()];
}

/** Capabilities granted by a scope string: the scope minus openid/offline_access. */
export function capsOf(scope: string | undefined): string[] {
  const base = new Set<string>(BASE_SCOPES);
  return (scope ?? '').split(' ').filter((s) => s && !base.has(s));
}

export function createProvider(state: CoreState, signingJwk: Record<string, unknown>): Provider {
  const { mcpUrl, faults, resource: advertised } = state;
  quietProviderNotices();
  const provider = new Provider(state.issuer, {
    clients: [
      {
        client_id: CLIENT_ID,
        client_name: 'Cursor (AgentStack plugin)',
        application_type: 'native',
        token_endpoint_auth_method: 'none',
        grant_types: [DEVICE_GRANT, 'refresh_token', 'authorization_code'],
        response_types: ['code'],
        id_token_signed_response_alg: 'ES256',
        redirect_uris: ['http://127.0.0.1/callback', 'cursor://anysphere.cursor-retrieval/oauth/callback'],
      },
    ],
    jwks: { keys: [signingJwk] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    routes: OAUTH_ROUTES,
    responseTypes: ['code', 'none'],
    clientDefaults: { grant_types: ['authorization_code'], id_token_signed_response_alg: 'ES256', response_types: ['code'], token_endpoint_auth_method: 'none' },
    enabledJWA: { idTokenSigningAlgValues: ['ES256'] },
    // Every advertised scope is a known scope, so dynamic registration accepts a client's `scope` naming any of them
    // (oidc-provider checks registered scopes against this list; capability scopes still go to the /mcp resource).
    scopes: ALL_SCOPES,
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    async findAccount(_ctx: unknown, id: string) {
      const account = accountById(id);
      if (!account) return undefined;
      return {
        accountId: id,
        claims: async () => ({ sub: id, email: account.email, email_verified: true, name: account.display_name }),
      };
    },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      revocation: { enabled: true },
      deviceFlow: {
        enabled: true,
        charset: 'base-20',
        mask: '****-****',
        async userCodeInputSource(ctx: any, form: string, _out: unknown, err?: { name?: string; userCode?: string }) {
          if (err?.name === 'AbortedError') ctx.body = deniedPage();
          else if (err) ctx.body = codeInputPage(form, err.userCode || err.name === 'NoCodeError' ? 'That code is not valid or has expired. Check the code in Cursor and try again.' : 'Something went wrong. Try again.');
          else ctx.body = codeInputPage(form);
        },
        async userCodeConfirmSource(ctx: any, form: string, client: any, _info: unknown, userCode: string) {
          ctx.body = confirmPage(form, userCode, client.clientName || client.clientId);
        },
        async successSource(ctx: any) {
          ctx.body = successPage();
        },
      },
      resourceIndicators: {
        enabled: true,
        async defaultResource(_ctx: unknown, _client: unknown, oneOf?: string[]) {
          if (oneOf) return oneOf.includes(advertised) ? advertised : oneOf;
          return advertised;
        },
        async useGrantedResource() {
          return true;
        },
        async getResourceServerInfo(_ctx: unknown, resource: string) {
          // Only the resource its RFC 9728 metadata names, as an authorization server that knows one resource does.
          if (resource !== advertised) throw new errors.InvalidTarget!();
          return {
            scope: state.variants.capabilityScopes().join(' '),
            audience: faults.audience ?? mcpUrl,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'ES256' } },
          };
        },
      },
    },
    formats: {
      customizers: {
        async jwt(_ctx: unknown, _token: unknown, jwt: { payload: Record<string, unknown> }) {
          state.variants.shapeTokenPayload(jwt.payload);
        },
      },
    },
    rotateRefreshToken: true,
    expiresWithSession: async () => false,
    async issueRefreshToken(_ctx: unknown, client: any, source: any) {
      return !faults.noRefreshTokens && client.grantTypeAllowed('refresh_token') && source.scopes.has('offline_access');
    },
    ttl: {
      AccessToken: (ctx: any, token: any) => {
        const override = state.overrides.get(token.grantId);
        if (override?.refreshedAccessTokenTtl && ctx?.oidc?.params?.grant_type === 'refresh_token') return override.refreshedAccessTokenTtl;
        return override?.accessTokenTtl ?? faults.accessTokenTtl;
      },
      DeviceCode: state.deviceCodeTtl,
      RefreshToken: 14 * 24 * 3600,
      Grant: 14 * 24 * 3600,
      Interaction: 3600,
      Session: 24 * 3600,
      IdToken: 3600,
      AuthorizationCode: 60,
    },
    async extraTokenClaims(_ctx: unknown, token: any) {
      const account = accountById(token.accountId);
      const extra: Record<string, unknown> = { [CAPS_CLAIM]: capsOf(token.scope) };
      if (account) extra.email = account.email;
      const override = state.overrides.get(token.grantId);
      return { ...extra, ...override?.claims };
    },
    async renderError(ctx: any, out: { error: string; error_description?: string }) {
      ctx.type = 'html';
      ctx.body = errorPage('Sign-in error', `${out.error}: ${out.error_description ?? ''}`);
    },
  });

  provider.on('grant.error', (_ctx: unknown, err: { error_detail?: string }) => {
    if (err?.error_detail === 'refresh token already used') state.counters.refreshReplays += 1;
  });
  provider.on('grant.revoked', () => {
    state.counters.grantsRevoked += 1;
  });
  provider.on('server_error', (_ctx: unknown, err: Error) => state.log(`oidc-provider server_error: ${err.stack ?? err}`));

  // Around the provider: RFC 8414 metadata at its standard place for this (root) issuer, scopes_supported, interval +
  // hostile URIs on device authz. The `agentstack` variant answers every path under the RFC 8414 well-known
  // prefix with the same document, as AgentStack's hosted server does.
  provider.use(async (ctx: any, next) => {
    if (ctx.path === '/.well-known/oauth-authorization-server' || (state.variants.has('agentstack') && ctx.path.startsWith('/.well-known/oauth-authorization-server/'))) {
      ctx.path = '/.well-known/openid-configuration';
    }
    await next();
    const route = ctx.oidc?.route;
    if (route === 'discovery' && ctx.body && typeof ctx.body === 'object') {
      ctx.body.scopes_supported = allScopes(state);
      ctx.body.code_challenge_methods_supported = ['S256'];
    }
    if ((route === 'discovery' || route === 'token' || route === 'device_authorization') && ctx.status === 200 && ctx.body && typeof ctx.body === 'object') {
      Object.assign(ctx.body, state.variants.extras(route));
    }
    if ((route === 'token' || route === 'device_authorization') && ctx.status === 200 && ctx.body && typeof ctx.body === 'object') {
      for (const key of ['access_token', 'refresh_token', 'id_token', 'device_code']) {
        const value = (ctx.body as Record<string, unknown>)[key];
        if (typeof value === 'string') state.issuedSecrets.add(value);
      }
    }
    if (route === 'token' && ctx.status === 200 && ctx.oidc?.params?.grant_type === DEVICE_GRANT) {
      state.polls.delete(String(ctx.oidc.params.device_code)); // used: later polls go straight to the provider
    }
    if (route === 'device_authorization' && ctx.status === 200 && ctx.body && typeof ctx.body === 'object') {
      if (ctx.get(INTERNAL_HEADER) === state.internalToken) return;
      state.counters.deviceAuthorizations += 1;
      ctx.body.interval = faults.interval;
      state.polls.set(ctx.body.device_code, { last: 0, interval: faults.interval });
      if (typeof ctx.body.user_code === 'string') state.onDeviceCode?.(ctx.body.user_code);
      if (faults.hostileVerificationUri) {
        ctx.body.verification_uri = faults.hostileVerificationUri;
        ctx.body.verification_uri_complete = faults.hostileVerificationUri;
      }
    }
  });
  return provider;
}
