/**
 * One Cursor dir per account state (and a pinned project), written as the plugin leaves them, for the tests that
 * render every view of the same dir and check they agree.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AccountState } from '../../lib/agentstack/state/account.js';

export const SERVER = 'http://127.0.0.1:9';
const MCP = `${SERVER}/mcp`;

export function jwt(claims: Record<string, unknown>): string {
  const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  return `${part({ alg: 'RS256' })}.${part(claims)}.c2lnbmF0dXJlLXNpZ25hdHVyZQ`;
}

const STARTED_S = Math.floor(Date.now() / 1000);
// One clock for every dir of a fixture, so the views of its copies see the same token.
const nowS = () => STARTED_S;

function write(dir: string, name: string, value: unknown): void {
  writeFileSync(join(dir, name), typeof value === 'string' ? value : `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
}

function signedIn(dir: string, token: string, headers: Record<string, string> = {}): void {
  write(dir, 'mcp.json', { mcpServers: { agentstack: { type: 'http', url: MCP, headers: { Authorization: `Bearer ${token}`, ...headers } } } });
}

function refreshRecord(dir: string): void {
  write(dir, 'agentstack-refresh', { refresh_token: 'rt-fixture-0123456789abcdef', token_type: 'Bearer', obtained_at: new Date().toISOString(), token_endpoint: `${SERVER}/api/oauth2/token`, client_id: 'cursor-plugin', resource: MCP });
}

export interface StateFixture {
  name: string;
  state: AccountState;
  /** The project the views must name, as projectText words it. */
  project: string;
  /** Whether a token expiry is shown. */
  expiry: boolean;
  make(dir: string): void;
}

const token = (exp: number, more: Record<string, unknown> = {}) => jwt({ sub: 'dev', iat: nowS() - 60, exp, scope: 'actions:read projects:read', ...more });
const DEFAULT = "your account's default";

export const STATE_FIXTURES: StateFixture[] = [
  { name: 'never signed in', state: 'never_signed_in', project: DEFAULT, expiry: false, make: () => {} },
  { name: 'signed in', state: 'signed_in', project: DEFAULT, expiry: true, make: (d) => { signedIn(d, token(nowS() + 3600)); refreshRecord(d); } },
  { name: 'signed in, the token naming its default project', state: 'signed_in', project: "7 (your account's default)", expiry: true, make: (d) => { signedIn(d, token(nowS() + 3600, { project_id: 7 })); refreshRecord(d); } },
  { name: 'signed in, a pinned project', state: 'signed_in', project: '42 (pinned)', expiry: true, make: (d) => { signedIn(d, token(nowS() + 3600, { project_id: 7 }), { 'X-Project-ID': '42' }); refreshRecord(d); write(d, 'agentstack-project', '42\n'); } },
  // Inside the 2-minute refresh window, and far enough from expiry that every view is done before it (a loaded machine).
  { name: 'expiring', state: 'expiring', project: DEFAULT, expiry: true, make: (d) => { signedIn(d, token(nowS() + 110)); refreshRecord(d); } },
  { name: 'expired, a refresh token stored', state: 'expired_renewable', project: DEFAULT, expiry: true, make: (d) => { signedIn(d, token(nowS() - 3600)); refreshRecord(d); } },
  { name: 'expired, nothing to renew it', state: 'expired', project: DEFAULT, expiry: true, make: (d) => signedIn(d, token(nowS() - 3600)) },
  {
    name: 'refused by the server, a refresh token stored', state: 'refused_renewable', project: DEFAULT, expiry: true,
    make: (d) => {
      signedIn(d, token(nowS() + 3600));
      refreshRecord(d);
      write(d, 'agentstack-capabilities-failed.json', { at: new Date().toISOString(), server_url: MCP, message: 'HTTP 401', unauthorized: true });
    },
  },
  {
    name: 'signed out by the person', state: 'signed_out', project: DEFAULT, expiry: false,
    make: (d) => {
      write(d, 'mcp.json', { mcpServers: { agentstack: { type: 'http', url: MCP } } });
      write(d, 'agentstack-signed-out', { signed_out_at: new Date().toISOString(), server_url: MCP });
    },
  },
  { name: 'unreadable mcp.json', state: 'unreadable', project: DEFAULT, expiry: false, make: (d) => write(d, 'mcp.json', '{"mcpServers": {') },
  { name: 'placeholder', state: 'placeholder', project: DEFAULT, expiry: false, make: (d) => write(d, 'mcp.json', { mcpServers: { agentstack: { url: MCP, headers: { Authorization: 'Bearer ${env:AGENTSTACK_ACCESS_TOKEN}' } } } }) },
];

/** A fresh Cursor dir holding `fixture`, under `root`. */
export function makeStateDir(root: string, fixture: StateFixture, tag: string): string {
  const dir = join(root, `${fixture.name.replace(/\W+/g, '-')}-${tag}`);
  mkdirSync(dir, { recursive: true });
  fixture.make(dir);
  return dir;
}
