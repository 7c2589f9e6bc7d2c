/** Token side of the core: signing key, Bearer verification with jose, approve(), issueTokens(), project tokens. */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { SignJWT, createLocalJWKSet, exportJWK, generateKeyPair, importJWK, jwtVerify, type JWK, type JWTPayload } from 'jose';
import type Provider from 'oidc-provider';
import { DEFAULT_ACCOUNT, accountByEmail, accountById } from './accounts.js';
import { bearerToken } from './http.js';
import { CLIENT_ID, DEVICE_GRANT, INTERNAL_HEADER, OAUTH_ROUTES, allScopes, capsOf } from './oauth.js';
import type { CallerContext } from './registry.js';
import type { CoreState } from './state.js';

export { INTERNAL_HEADER };

export interface SigningKeys {
  privateJwk: JWK & { kid: string };
  publicJwk: JWK & { kid: string };
}

export async function generateSigningKeys(): Promise<SigningKeys> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const kid = randomUUID();
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: 'ES256', use: 'sig' };
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
  return { privateJwk, publicJwk };
}

export interface VerifiedCaller extends CallerContext {
  payload: JWTPayload & Record<string, unknown>;
}

export class TokenAuth {
  private readonly jwks;
  constructor(
    private readonly state: CoreState,
    private readonly keys: SigningKeys,
  ) {
    this.jwks = createLocalJWKSet({ keys: [keys.publicJwk] });
  }

  /** Verifies a Bearer JWT (signature, issuer, audience = MCP URL, expiry). Null when absent or invalid. */
  async verify(req: IncomingMessage): Promise<VerifiedCaller | null> {
    const token = bearerToken(req);
    if (!token) return null;
    try {
      const { payload } = await jwtVerify(token, this.jwks, {
        issuer: this.state.issuer,
        audience: this.state.faults.audience ?? this.state.mcpUrl,
        algorithms: ['ES256'],
        requiredClaims: ['sub', 'exp'],
      });
      const account = accountById(String(payload.sub));
      if (!account) return null;
      const project = payload.project_id;
      return {
        payload: payload as VerifiedCaller['payload'],
        account,
        caps: this.state.variants.capsOf(payload as Record<string, unknown>),
        projectId: typeof project === 'number' ? project : null,
        claims: payload as Record<string, unknown>,
      };
    } catch {
      return null;
    }
  }

  /** A new access JWT equal to the caller's one but bound to `projectId` (fresh jti and iat, same exp). */
  async signProjectToken(caller: VerifiedCaller, projectId: number): Promise<string> {
    const key = await importJWK(this.keys.privateJwk, 'ES256');
    const { iat: _iat, jti: _jti, ...rest } = caller.payload;
    return new SignJWT({ ...rest, project_id: projectId })
      .setProtectedHeader({ alg: 'ES256', kid: this.keys.privateJwk.kid, typ: 'at+jwt' })
      .setIssuedAt()
      .setJti(randomUUID())
      .sign(key);
  }
}

function provider(state: CoreState): Provider {
  if (!state.provider) throw new Error('core is not started');
  return state.provider;
}

/** Approves (or denies) a pending device authorization through the provider's models. Returns the grant id. */
export async function approveDevice(
  state: CoreState,
  userCode: string,
  opts: { account?: string; deny?: boolean; scope?: string } = {},
): Promise<string | undefined> {
  const p = provider(state);
  const normalized = userCode.replace(/[a-z]/g, (c) => c.toUpperCase()).replace(/\W/g, '');
  const code = await p.DeviceCode.findByUserCode(normalized, { ignoreExpiration: true });
  if (!code) throw new Error(`approve: no device authorization for user code ${userCode}`);
  if (code.isExpired) throw new Error(`approve: user code ${userCode} has expired`);
  if (code.accountId || code.error) throw new Error(`approve: user code ${userCode} was already used`);
  if (opts.deny) {
    Object.assign(code, { error: 'access_denied', errorDescription: 'End-User denied the sign-in' });
    await code.save();
    return undefined;
  }
  const account = opts.account ? accountByEmail(opts.account) : DEFAULT_ACCOUNT;
  if (!account) throw new Error(`approve: unknown account ${opts.account}`);
  const requested: string[] = String(opts.scope ?? code.params?.scope ?? 'openid').split(' ').filter((s) => allScopes(state).includes(s));
  const oidcScope = requested.filter((s) => s === 'openid' || s === 'offline_access');
  const caps = capsOf(requested.join(' '));
  const grant = new p.Grant({ accountId: account.user_id, clientId: code.clientId });
  if (oidcScope.length) grant.addOIDCScope(oidcScope.join(' '));
  if (caps.length) grant.addResourceScope(state.resource, caps.join(' '));
  const grantId: string = await grant.save();
  Object.assign(code, {
    accountId: account.user_id,
    grantId,
    scope: [...oidcScope, ...caps].join(' '),
    resource: state.resource,
    authTime: Math.floor(Date.now() / 1000),
    amr: ['pwd'],
  });
  await code.save();
  return grantId;
}

export interface IssuedTokens {
  access_token: string;
  refresh_token?: string;
  expires_in: number;
  scope: string;
}

/**
 * Mints a token set without a person: runs the real device flow against this core's own endpoints (marked
 * internal, so counters and faults ignore it) and approves it through the provider's models.
 */
export async function issueTokensDirect(
  state: CoreState,
  opts: { account?: string; scope?: string; accessTokenTtl?: number; refreshedAccessTokenTtl?: number; claims?: Record<string, unknown> } = {},
): Promise<IssuedTokens> {
  const scope = opts.scope ?? allScopes(state).join(' ');
  const headers = { [INTERNAL_HEADER]: state.internalToken, 'content-type': 'application/x-www-form-urlencoded' };
  const post = async (path: string, params: Record<string, string>) => {
    const res = await fetch(`${state.issuer}${path}`, { method: 'POST', headers, body: new URLSearchParams(params) });
    const body = (await res.json()) as Record<string, unknown>;
    if (!res.ok) throw new Error(`issueTokens: ${path} answered ${res.status} ${JSON.stringify(body)}`);
    return body;
  };
  const device = await post(OAUTH_ROUTES.device_authorization, { client_id: CLIENT_ID, scope, resource: state.resource });
  const grantId = await approveDevice(state, String(device.user_code), { account: opts.account, scope });
  if (grantId && (opts.claims || opts.accessTokenTtl || opts.refreshedAccessTokenTtl)) {
    state.overrides.set(grantId, { claims: opts.claims, accessTokenTtl: opts.accessTokenTtl, refreshedAccessTokenTtl: opts.refreshedAccessTokenTtl });
  }
  const tokens = await post(OAUTH_ROUTES.token, { grant_type: DEVICE_GRANT, device_code: String(device.device_code), client_id: CLIENT_ID, resource: state.resource });
  return {
    access_token: String(tokens.access_token),
    ...(typeof tokens.refresh_token === 'string' ? { refresh_token: tokens.refresh_token } : {}),
    expires_in: Number(tokens.expires_in),
    scope: String(tokens.scope ?? ''),
  };
}
