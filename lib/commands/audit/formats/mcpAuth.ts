/**
 * The `auth` block of a remote MCP server, as Cursor documents it: a static OAuth client `{"CLIENT_ID": "…",
 * "CLIENT_SECRET": "…", "scopes": ["…"]}`, where only CLIENT_ID is required (without `scopes`, Cursor uses the
 * server's `scopes_supported`). Each value may be a `${…}` placeholder. Pure.
 */
import { isObject } from '../../../platform/text/isObject.js';

export const AUTH_KEYS = ['CLIENT_ID', 'CLIENT_SECRET', 'scopes'] as const;

/** `rejects`: what Cursor cannot use; `advice`: what it ignores or what is unwise to ship. */
export type AuthFindings = { rejects: string[]; advice: string[] };

const nonEmpty = (v: unknown) => typeof v === 'string' && v.trim().length > 0;

export function authFindings(auth: unknown, remote: boolean): AuthFindings {
  const rejects: string[] = [];
  const advice: string[] = [];
  if (!isObject(auth)) return { rejects: ['"auth" must be an object {"CLIENT_ID": "…"}'], advice };
  if (!nonEmpty(auth.CLIENT_ID)) rejects.push('"auth.CLIENT_ID" must be a non-empty string');
  if (auth.CLIENT_SECRET !== undefined && typeof auth.CLIENT_SECRET !== 'string') rejects.push('"auth.CLIENT_SECRET" must be a string');
  const { scopes } = auth;
  if (scopes !== undefined && !(Array.isArray(scopes) && scopes.every(nonEmpty))) rejects.push('"auth.scopes" must be an array of scope strings');
  const extra = Object.keys(auth).filter((k) => !(AUTH_KEYS as readonly string[]).includes(k));
  if (extra.length) advice.push(`"auth" has ${extra.map((k) => `"${k}"`).join(', ')}, which Cursor does not read (only ${AUTH_KEYS.join(', ')})`);
  if (nonEmpty(auth.CLIENT_SECRET) && !/\$\{[^}]+\}/.test(auth.CLIENT_SECRET as string)) advice.push('"auth.CLIENT_SECRET" is written out: everyone who installs the plugin gets it');
  if (!remote) advice.push('"auth" is for a server reached by "url"; a "command" server does not use it');
  return { rejects, advice };
}
