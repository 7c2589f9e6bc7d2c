/**
 * RFC 7009 token revocation through oauth4webapi, with the same fetch, deadlines and error mapping as every other
 * protocol step (oauth.ts).
 */
import * as o from 'oauth4webapi';
import { mayRequestFor } from '../server/baseUrl.js';
import { PluginError, quoteShort } from '../../platform/errors.js';
import { oauthErrorFirst } from '../../platform/net/oauthResponse.js';
import { asFor, attempt, clientAuth, requestOptions, type OAuthClient, type OAuthEndpoints, type RequestOptions } from './oauth.js';

export interface RevokeArgs extends RequestOptions {
  endpoints: Pick<OAuthEndpoints, 'issuer' | 'tokenEndpoint' | 'revocationEndpoint' | 'revocationAuthMethods'>;
  client: OAuthClient;
  token: string;
  tokenTypeHint: 'refresh_token' | 'access_token';
  /** The MCP URL the token was issued for: plain http to loopback only when it is itself plain http on loopback. */
  mcpUrl: string;
}

/**
 * RFC 7009 token revocation. A 200 means the server no longer honours the token (or never knew it); an OAuth error
 * (`unsupported_token_type` for a JWT access token the server cannot revoke) is a PluginError like any other.
 */
export async function revokeToken(args: RevokeArgs): Promise<void> {
  const endpoint = args.endpoints.revocationEndpoint;
  if (!endpoint) throw new PluginError('invalid_config', 'The server names no usable revocation endpoint');
  if (!mayRequestFor(endpoint, args.mcpUrl)) {
    throw new PluginError('unsafe_url', `The revocation endpoint is not https: ${quoteShort(endpoint, 120)} (plain http only to loopback, and only for an MCP server on plain http to loopback)`);
  }
  const as: o.AuthorizationServer = { ...asFor(args.endpoints), revocation_endpoint: endpoint };
  const oclient: o.Client = { client_id: args.client.clientId };
  await attempt('Revoking the token', async () => {
    const res = await o.revocationRequest(as, oclient, clientAuth(args.client, args.endpoints.revocationAuthMethods, 'revocation endpoint'), args.token, {
      ...requestOptions(endpoint, args),
      additionalParameters: { token_type_hint: args.tokenTypeHint },
    });
    await o.processRevocationResponse(await oauthErrorFirst(res));
  }, [args.token, args.client.clientSecret]);
}
