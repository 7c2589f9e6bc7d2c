/** Generated inputs shared by tests and the bench: big snapshots, crowded mcp.json files. */
import type { CapabilitySnapshot } from '../../lib/schemas/state.js';
import { indexSnapshot, type SnapshotRead } from '../../lib/agentstack/snapshot/actionIndex.js';

const DOMAINS = ['projects', 'data', 'auth', 'system', 'billing', 'files', 'agents', 'workflows', 'search', 'notify'];
const CAPS = ['projects:read', 'projects:write', 'data:read', 'data:write', 'actions:execute', 'profile:read'];

/** A tenant snapshot of `count` actions named `<domain>.op_<n>`, plus the three every server has. */
export function bigSnapshot(count: number, now = new Date()): CapabilitySnapshot {
  const actions: CapabilitySnapshot['actions'] = [
    { action: 'system.ping', domain: 'system', required_cap: null, summary: 'Health check', safe_action: true, category: 'system', doc_audience: 'tenant' },
    { action: 'auth.get_profile', domain: 'auth', required_cap: 'profile:read', summary: 'Who am I', safe_action: true, category: 'auth', doc_audience: 'tenant' },
    { action: 'projects.list', domain: 'projects', required_cap: 'projects:read', summary: 'List projects', safe_action: true, category: 'projects', doc_audience: 'tenant' },
  ];
  for (let i = actions.length; i < count; i++) {
    const domain = DOMAINS[i % DOMAINS.length]!;
    actions.push({ action: `${domain}.op_${i}`, domain, required_cap: CAPS[i % CAPS.length]!, summary: `Operation ${i} of ${domain}`, safe_action: i % 3 === 0, category: domain, doc_audience: 'tenant' });
  }
  return { fetched_at: now.toISOString(), audience: 'tenant', total_actions: actions.length, actions, catalog_etag: `"bench-${count}"`, unapproved: [] };
}

/** An mcp.json with `count` other servers (stdio and remote, with env and headers) around an agentstack entry. */
export function crowdedMcpJson(count: number, agentstackEntry?: Record<string, unknown>): Record<string, unknown> {
  const servers: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) {
    servers[`server-${i}`] = i % 2
      ? { command: 'npx', args: ['-y', `mcp-server-${i}`], env: { API_KEY: '${env:KEY_' + i + '}' } }
      : { url: `https://mcp${i}.example.com/mcp`, headers: { 'X-Custom': String(i) }, tools: { a: { enabled: true } } };
  }
  if (agentstackEntry) servers.agentstack = agentstackEntry;
  return { mcpServers: servers, someOtherTopLevelKey: { keep: true } };
}

/** The small snapshot the pre-MCP decision tests share: four actions, one without a capability, as the hook reads it. */
export function fourActionSnapshot(extra: Record<string, unknown> = {}): SnapshotRead {
  const index = indexSnapshot({
    fetched_at: new Date().toISOString(),
    audience: 'tenant',
    total_actions: 4,
    actions: [
      { action: 'system.ping', required_cap: null },
      { action: 'projects.list', required_cap: 'projects:read' },
      { action: 'projects.create', required_cap: 'projects:write' },
      { action: 'data.write', required_cap: 'data:write' },
    ],
    ...extra,
  });
  if (!index) throw new Error('the four-action snapshot no longer indexes');
  return { kind: 'ok', index };
}

