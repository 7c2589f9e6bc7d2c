/**
 * OAuth discovery as Cursor and the plugin use it: RFC 9728 protected-resource metadata for `<base>/mcp` (where the
 * 401 challenge names it, else at the well-known URLs, with a `resource` that covers the MCP URL), RFC 8414
 * authorization-server metadata with a device endpoint, what Cursor's Connect button needs (authorization code +
 * PKCE S256 + dynamic registration), the 401 challenge, and the anti-pattern of a home-made Connect endpoint under
 * /mcp/.well-known/.
 */
import { mayRequestFor } from '../../agentstack/server/baseUrl.js';
import { webUrlProblemText } from '../../platform/net/webUrl.js';
import { quoteShort } from '../../platform/errors.js';
import { fail, pass, warn, type Check } from '../../platform/report.js';
import { scopesSupportedOf } from '../../schemas/server.js';
import { challengeResourceMetadata, protectedResourceUrls, readResourceMetadata } from '../../agentstack/auth/resourceMetadata.js';
// The sign-in's own discovery rules: the same URLs in the same order, the same issuer check.
import { authorizationServerUrls, issuerMatches } from '../../agentstack/auth/discovery.js';
import { connectRegistrationCheck } from './connectCheck.js';
import { requestJson, statusLine, type VerifyContext } from './fetchJson.js';

export const CONNECT_ANTIPATTERN_PATH = '/mcp/.well-known/oauth-authorize';

export { authorizationServerUrls, protectedResourceUrls };

export interface DiscoveryResult {
  checks: Check[];
  /** The authorization server's metadata, when found (for Connect readiness). */
  asMetadata?: Record<string, unknown>;
}

async function protectedResourceCheck(ctx: VerifyContext, fromChallenge: string | null): Promise<{ check: Check; issuer?: string; scopes?: string[] }> {
  const id = 'oauth.protected_resource';
  const tried: string[] = [];
  for (const url of protectedResourceUrls(ctx.mcpUrl, fromChallenge)) {
    const named = url === fromChallenge ? ' (named by the 401 challenge)' : '';
    const answer = await requestJson(ctx, url);
    if (answer.kind !== 'ok') {
      tried.push(`${url}: ${answer.error}`);
      continue;
    }
    if (answer.res.status !== 200) {
      tried.push(`${new URL(url).pathname}: HTTP ${answer.res.status}`);
      continue;
    }
    const read = readResourceMetadata(answer.json, ctx.mcpUrl);
    if (!read.ok && read.problem === 'not_metadata') return { check: fail(id, `${url} is not RFC 9728 metadata (no resource string)`, 'serve {resource, authorization_servers}') };
    if (!read.ok && read.problem === 'unreadable_resource') {
      return { check: fail(id, `${new URL(url).pathname} names a resource that ${webUrlProblemText(read.why ?? 'not_url')} (clients must read it as one absolute http(s) URL)`, `set resource to ${ctx.mcpUrl}`) };
    }
    if (!read.ok) {
      return { check: fail(id, `${new URL(url).pathname} says resource ${JSON.stringify(quoteShort(read.resource ?? '', 120))}, which does not cover ${ctx.mcpUrl} (RFC 9728 §3.3: clients must reject it)`,
        `set resource to ${ctx.mcpUrl} (or, at the root location, to ${new URL(ctx.mcpUrl).origin})`) };
    }
    const { resource, authorization_servers } = read.metadata;
    const issuer = authorization_servers?.[0];
    if (!issuer) return { check: fail(id, `${new URL(url).pathname} names no authorization_servers`, 'list the authorization server issuer in authorization_servers') };
    if (!mayRequestFor(issuer, ctx.mcpUrl)) {
      return { check: fail(id, `${new URL(url).pathname} names the authorization server ${JSON.stringify(quoteShort(issuer, 120))}, which is not a valid https URL`, 'list the issuer as an absolute https URL in authorization_servers') };
    }
    const scopes = scopesSupportedOf(read.metadata);
    return { check: pass(id, `RFC 9728 metadata at ${new URL(url).pathname}${named}: resource ${resource}, authorization server ${quoteShort(issuer, 120)}`), issuer, ...(scopes ? { scopes } : {}) };
  }
  return { check: fail(id, `no RFC 9728 protected-resource metadata (${tried.join('; ')})`, `serve it at /.well-known/oauth-protected-resource/mcp: Cursor's Connect and the device login start there`, { tried }) };
}

async function authorizationServerCheck(ctx: VerifyContext, issuer: string): Promise<{ check: Check; metadata?: Record<string, unknown> }> {
  const id = 'oauth.as_metadata';
  const tried: string[] = [];
  for (const url of authorizationServerUrls(issuer)) {
    const answer = await requestJson(ctx, url);
    if (answer.kind !== 'ok' || answer.res.status !== 200 || !answer.json || typeof answer.json !== 'object') {
      tried.push(`${new URL(url).pathname}: ${answer.kind === 'ok' ? statusLine(answer.res, answer.json) : answer.error}`);
      continue;
    }
    const md = answer.json as Record<string, unknown>;
    const where = new URL(url).pathname;
    if (!issuerMatches(md.issuer, issuer)) return { check: fail(id, `${where} says issuer ${JSON.stringify(quoteShort(md.issuer ?? '', 120))}, not ${issuer} (RFC 8414 §3.3)`, 'make issuer equal the URL named in authorization_servers'), metadata: md };
    const missing = ['token_endpoint', 'device_authorization_endpoint'].filter((k) => typeof md[k] !== 'string');
    if (missing.length) return { check: fail(id, `${where} has no ${missing.join(' or ')}: the plugin's device-code sign-in needs it`, 'enable the device authorization grant (RFC 8628) and advertise its endpoint'), metadata: md };
    const invalid = invalidEndpoints(md, ['token_endpoint', 'device_authorization_endpoint'], ctx.mcpUrl);
    if (invalid.length) {
      return { check: fail(id, `${where}: ${invalid.join(', ')} ${invalid.length === 1 ? 'is not a valid https URL' : 'are not valid https URLs'}`, 'advertise every endpoint as an absolute https URL'), metadata: md };
    }
    return { check: pass(id, `RFC 8414 metadata at ${where}: token and device_authorization endpoints present`), metadata: md };
  }
  return { check: fail(id, `no authorization server metadata for ${issuer} (${tried.join('; ')})`, 'serve /.well-known/oauth-authorization-server for the issuer', { tried }) };
}

/**
 * The named metadata fields present but not an absolute https URL (plain http only to loopback, and only for an MCP
 * server that is itself plain http on loopback: the rule discovery applies).
 */
export function invalidEndpoints(md: Record<string, unknown>, keys: readonly string[], mcpUrl: string): string[] {
  return keys.filter((k) => md[k] !== undefined && (typeof md[k] !== 'string' || !mayRequestFor(md[k] as string, mcpUrl)));
}

/** What Cursor's Connect button needs from the authorization server. */
export function connectReadinessCheck(md: Record<string, unknown> | undefined, mcpUrl: string): Check {
  const id = 'oauth.connect_ready';
  if (!md) return fail(id, 'not ready for Cursor\'s Connect: no authorization server metadata (see oauth.as_metadata)');
  const list = (k: string) => (Array.isArray(md[k]) ? (md[k] as unknown[]).filter((v): v is string => typeof v === 'string') : null);
  const missing: string[] = [];
  if (typeof md.authorization_endpoint !== 'string') missing.push('authorization_endpoint');
  const responseTypes = list('response_types_supported');
  if (responseTypes && !responseTypes.includes('code')) missing.push('response type "code"');
  const grants = list('grant_types_supported');
  if (grants && !grants.includes('authorization_code')) missing.push('grant authorization_code');
  if (!list('code_challenge_methods_supported')?.includes('S256')) missing.push('PKCE S256 in code_challenge_methods_supported');
  if (typeof md.registration_endpoint !== 'string') missing.push('registration_endpoint (dynamic client registration)');
  const invalid = invalidEndpoints(md, ['authorization_endpoint', 'registration_endpoint'], mcpUrl).filter((k) => typeof md[k] === 'string');
  if (invalid.length) missing.push(`${invalid.join(' and ')} as a valid https URL`);
  if (missing.length) return fail(id, `not ready for Cursor's Connect: missing ${missing.join(', ')}`, 'Connect registers itself as a public client and runs authorization code + PKCE S256');
  return pass(id, 'ready for Cursor\'s Connect: authorization code, PKCE S256, dynamic registration');
}

/**
 * An unauthenticated POST /mcp must answer 401 with a WWW-Authenticate pointing at the metadata; the URL it names is
 * where discovery looks first (the MCP authorization spec: clients MUST use it when present).
 */
async function challengeCheck(ctx: VerifyContext): Promise<{ check: Check; metadataUrl: string | null }> {
  const id = 'oauth.www_authenticate';
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
  const answer = await requestJson(ctx, ctx.mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body });
  const none = (check: Check) => ({ check, metadataUrl: null });
  if (answer.kind !== 'ok') return none(warn(id, `POST /mcp without a token: ${answer.error}`));
  if (answer.res.status !== 401) return none(warn(id, `POST /mcp without a token answered HTTP ${answer.res.status}, not 401`, 'answer 401 with WWW-Authenticate: Bearer resource_metadata="…" so Connect can start'));
  const header = answer.res.headers.get('www-authenticate') ?? '';
  if (!/resource_metadata=/i.test(header)) return none(warn(id, 'the 401 from /mcp has no WWW-Authenticate resource_metadata', 'add resource_metadata="<base>/.well-known/oauth-protected-resource/mcp" to the challenge'));
  const url = challengeResourceMetadata(header, ctx.mcpUrl);
  if (!url || !mayRequestFor(url, ctx.mcpUrl)) {
    return none(warn(id, 'the 401 from /mcp names a resource_metadata that is not an https URL', 'name the metadata as an absolute https URL in resource_metadata'));
  }
  return { check: pass(id, `POST /mcp without a token: 401 with WWW-Authenticate resource_metadata ${quoteShort(url, 120)}`), metadataUrl: url };
}

export async function connectAntipatternCheck(ctx: VerifyContext): Promise<Check> {
  const id = 'oauth.connect_antipattern';
  const answer = await requestJson(ctx, `${ctx.baseUrl}${CONNECT_ANTIPATTERN_PATH}`);
  if (answer.kind === 'ok' && answer.res.status < 400) {
    return warn(id, `${CONNECT_ANTIPATTERN_PATH} answers HTTP ${answer.res.status}: a home-made Connect endpoint Cursor never calls`,
      'remove it; Connect uses RFC 9728 + RFC 8414 discovery and dynamic registration');
  }
  // A request that got no answer proves nothing either way (a server that never answers must not PASS a row).
  if (answer.kind === 'failed') return warn(id, `not checked: GET ${CONNECT_ANTIPATTERN_PATH}: ${answer.error}`);
  return pass(id, `no home-made Connect endpoint at ${CONNECT_ANTIPATTERN_PATH}`);
}

export async function oauthChecks(ctx: VerifyContext): Promise<Check[]> {
  const challenge = await challengeCheck(ctx);
  const resource = await protectedResourceCheck(ctx, challenge.metadataUrl);
  const checks = [resource.check, challenge.check];
  let md: Record<string, unknown> | undefined;
  if (resource.issuer) {
    const as = await authorizationServerCheck(ctx, resource.issuer);
    checks.push(as.check);
    md = as.metadata;
  } else {
    checks.push(fail('oauth.as_metadata', 'not checked: the protected-resource metadata names no authorization server', 'fix oauth.protected_resource first'));
  }
  const ready = connectReadinessCheck(md, ctx.mcpUrl);
  // Metadata is necessary, not sufficient: the registration Connect sends is run too (see connectCheck.ts).
  checks.push(ready.status === 'PASS' && md ? await connectRegistrationCheck(ctx, md.registration_endpoint as string, resource.scopes) : ready, await connectAntipatternCheck(ctx));
  return checks;
}
