/**
 * Client authentication as the authorization server's metadata says (RFC 8414 §2), chosen once per endpoint by a
 * pure function: `token_endpoint_auth_methods_supported` for the token endpoint and the device authorization
 * endpoint (RFC 8628 §3.1 authenticates the client there as at the token endpoint),
 * `revocation_endpoint_auth_methods_supported` for the revocation endpoint (RFC 7009 §2.1).
 *
 * A client without a secret is a public client: `none` (its client_id in the body). A client with a secret sends it
 * the way the list names: `client_secret_basic` when the list is absent (RFC 8414's default) or names it (RFC 6749
 * §2.3.1: every authorization server supports it, and secrets in the body are NOT RECOMMENDED), `client_secret_post`
 * when only that is named. A list that names neither (only `private_key_jwt`, say) stops before anything is sent.
 */
import { PluginError, quoteShort } from '../../platform/errors.js';

export type ClientAuthMethod = 'none' | 'client_secret_basic' | 'client_secret_post';

/** The methods a metadata field lists, or null when it is absent or not a list of strings (then RFC 8414's default holds). */
export function authMethodsOf(metadata: Record<string, unknown> | null | undefined, key: string): string[] | null {
  const value = metadata?.[key];
  return Array.isArray(value) && value.every((m) => typeof m === 'string') ? value as string[] : null;
}

/** How a client with or without a secret authenticates at an endpoint whose metadata lists `supported`. Pure. */
export function clientAuthMethod(supported: readonly string[] | null | undefined, hasSecret: boolean, endpoint = 'token endpoint'): ClientAuthMethod {
  if (!hasSecret) return 'none';
  if (!supported || supported.includes('client_secret_basic')) return 'client_secret_basic';
  if (supported.includes('client_secret_post')) return 'client_secret_post';
  if (supported.includes('none')) return 'none';
  const named = supported.slice(0, 6).map((m) => quoteShort(m, 40)).join(', ') || 'nothing';
  throw new PluginError('invalid_config', `The authorization server's ${endpoint} takes client authentication by ${named} only; this plugin sends a client secret (client_secret_basic or client_secret_post) or none. Ask the server's operator for a client that uses one of those.`);
}

/**
 * Whether a public client (no secret) may call the endpoint at all: the list is present and does not name `none`
 * means the server wants every client to authenticate there.
 */
export function publicClientAccepted(supported: readonly string[] | null | undefined): boolean {
  return !supported || supported.includes('none');
}
