/**
 * `${…}` interpolation in an MCP server entry, as Cursor documents it: in `command`, `args`, `env`, `url`, `headers`
 * and `auth`, `${env:NAME}` reads the environment, `${userHome}`, `${workspaceFolder}`, `${workspaceFolderBasename}`
 * and `${pathSeparator}` (`${/}`) are Cursor's own, and a plugin's `${NAME}` is one of its declared `variables`. Pure.
 */
import { isObject } from '../../../platform/text/isObject.js';

/** The server fields Cursor interpolates. */
export const INTERPOLATED_FIELDS = ['command', 'args', 'env', 'url', 'headers', 'auth'] as const;

const PLACEHOLDER = /\$\{([^}]*)\}/g;
const BUILTIN = /^(env:[A-Za-z_]\w*|userHome|workspaceFolder|workspaceFolderBasename|pathSeparator|\/)$/;
/** Cursor's own placeholders that expand to a folder, never to a URL. */
const FOLDER = /^(userHome|workspaceFolder|workspaceFolderBasename|pathSeparator|\/)$/;

export const isBuiltinPlaceholder = (name: string) => BUILTIN.test(name);

function strings(value: unknown, out: string[]): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) strings(v, out);
  else if (isObject(value)) for (const v of Object.values(value)) strings(v, out);
  return out;
}

/** The name inside every `${…}` of the fields Cursor interpolates (`env:HOME`, `userHome`, `API_KEY`…). */
export function placeholderNames(entry: Record<string, unknown>): string[] {
  const texts = INTERPOLATED_FIELDS.flatMap((f) => strings(entry[f], []));
  return texts.flatMap((t) => [...t.matchAll(PLACEHOLDER)].map((m) => m[1]!));
}

/**
 * Why a server `url` cannot be an http(s) URL once Cursor fills its placeholders, or null. A URL that starts with a
 * variable (`${SALESFORCE_MCP_URL}`, `${env:MCP_URL}/mcp`) gets its scheme from the person's value: it is accepted.
 */
export function urlProblem(url: unknown): string | null {
  if (typeof url !== 'string' || !url.trim()) return 'must be an http(s) URL';
  if (/\$\{(?![^}]*\})/.test(url)) return 'has a "${" that is never closed';
  if (/\s/.test(url)) return 'must be an http(s) URL (it has a space)';
  const lead = /^\$\{([^}]*)\}/.exec(url);
  if (lead) return FOLDER.test(lead[1]!) ? `starts with \${${lead[1]}}, a folder, not an http(s) URL` : null;
  return /^https?:\/\/[^/]/i.test(url.replace(PLACEHOLDER, 'x')) ? null : 'must be an http(s) URL';
}
