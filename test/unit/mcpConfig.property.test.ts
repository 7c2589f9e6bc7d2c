import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { applyBearer, normalizeMcpConfig, type McpConfig } from '../../lib/agentstack/mcpJson/entry.js';
import { bearerOf } from '../../lib/agentstack/mcpJson/credential.js';

const jsonValue = fc.jsonValue({ maxDepth: 3 });
const serverName = fc.string({ minLength: 1, maxLength: 12 }).filter((s) => s !== 'agentstack');
const header = fc.oneof(
  fc.constantFrom('Bearer ', '', 'Bearer ${env:AGENTSTACK_ACCESS_TOKEN}', 'Bearer AGENTSTACK_ACCESS_TOKEN', 'Bearer real.tok.en', 'Basic x'),
  fc.string({ maxLength: 20 }),
);
const agentstackEntry = fc.record(
  {
    type: fc.constantFrom('http', 'streamable-http', 'sse', 3),
    url: fc.constantFrom('https://agentstack.tech/mcp', 'https://staging.agentstack.tech/mcp', 'http://127.0.0.1:8080/mcp', 'http://evil.example/mcp', 'nope', 12),
    tools: fc.array(fc.string(), { maxLength: 3 }),
    baseUrl: fc.string(),
    auth: jsonValue,
    notes: fc.string(),
    headers: fc.record(
      { Authorization: header, 'X-API-Key': fc.string({ maxLength: 8 }), 'X-Project-ID': fc.oneof(fc.integer({ min: -3, max: 50 }), fc.string({ maxLength: 4 })), Other: fc.string() },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: [] },
);
const config: fc.Arbitrary<McpConfig> = fc
  .tuple(
    fc.dictionary(serverName, jsonValue, { maxKeys: 4 }),
    fc.option(agentstackEntry, { nil: undefined }),
    fc.nat({ max: 4 }),
    fc.dictionary(fc.string({ maxLength: 8 }).filter((k) => k !== 'mcpServers'), jsonValue, { maxKeys: 3 }),
  )
  .map(([others, entry, position, topLevel]) => {
    const names = Object.keys(others);
    const servers: Record<string, unknown> = {};
    names.forEach((name, i) => {
      if (i === position && entry) servers.agentstack = entry;
      servers[name] = others[name];
    });
    if (entry && !('agentstack' in servers)) servers.agentstack = entry;
    return { ...topLevel, mcpServers: servers };
  });
const envBase = fc.constantFrom(undefined, 'https://agentstack.tech', 'http://127.0.0.1:9000');

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v));
const others = (c: McpConfig) => Object.entries(c.mcpServers as Record<string, unknown>).filter(([k]) => k !== 'agentstack');

describe('mcp.json manager properties', () => {
  it('normalizing twice equals normalizing once', () => {
    fc.assert(fc.property(config, envBase, (c, env) => {
      const once = normalizeMcpConfig(clone(c), { envBaseUrl: env });
      const twice = normalizeMcpConfig(clone(once.config), { envBaseUrl: env });
      expect(twice.changed).toBe(false);
      expect(JSON.stringify(twice.config)).toBe(JSON.stringify(once.config));
    }), { numRuns: 300 });
  });

  it('never loses or changes another server, and keeps every other key in order', () => {
    fc.assert(fc.property(config, envBase, fc.boolean(), (c, env, sign) => {
      const input = clone(c);
      const out = sign ? applyBearer(input, { token: 'tok', baseUrl: env ?? 'https://agentstack.tech' }).config : normalizeMcpConfig(input, { envBaseUrl: env }).config;
      expect(JSON.stringify(others(out))).toBe(JSON.stringify(others(c)));
      expect(Object.keys(out)).toEqual(Object.keys(c));
      for (const key of Object.keys(c)) if (key !== 'mcpServers') expect(JSON.stringify(out[key])).toBe(JSON.stringify(c[key]));
      expect(JSON.stringify(input)).toBe(JSON.stringify(c)); // inputs are never mutated
    }), { numRuns: 300 });
  });

  it('a Bearer applied survives normalization, and the entry stays lean', () => {
    const token = fc.stringMatching(/^[A-Za-z0-9._~+/-]{1,40}$/);
    fc.assert(fc.property(config, envBase, token, fc.option(fc.integer({ min: 2, max: 99999 }), { nil: null }), (c, env, tok, project) => {
      const applied = applyBearer(clone(c), { token: tok, baseUrl: env ?? 'https://agentstack.tech', projectId: project });
      const normalized = normalizeMcpConfig(applied.config, { envBaseUrl: env });
      expect(normalized.changed).toBe(false);
      expect(bearerOf(normalized.config)).toBe(tok);
      const entry = (normalized.config.mcpServers as any).agentstack;
      expect(Object.keys(entry).sort()).toEqual(['headers', 'type', 'url']);
      expect(Object.keys(entry.headers).sort()).toEqual(project ? ['Authorization', 'X-Project-ID'] : ['Authorization']);
    }), { numRuns: 300 });
  });
});
