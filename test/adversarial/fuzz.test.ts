/**
 * Fuzz. Fault: generated input, most of it garbage, fed to the mcp.json manager (text parser, pure transforms, the
 * locked file layer) and to the pre-MCP hook's input parsing and decision. Outcome: only typed PluginErrors escape
 * (never a TypeError or a RangeError), a refused file is left byte for byte, and the hook never answers `allow`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPluginError } from '../../lib/platform/errors.js';
import { decodeJwtClaims } from '../../lib/agentstack/auth/jwt.js';
import { applyBearer, normalizeMcpConfig, type McpConfig } from '../../lib/agentstack/mcpJson/entry.js';
import { bearerOf, isRealBearer } from '../../lib/agentstack/mcpJson/credential.js';
import { parseMcpConfigText, serializeMcpConfig, updateMcpConfigFile } from '../../lib/agentstack/mcpJson/file.js';
import { decidePreMcp, grantedCaps, parseExecuteArgs } from '../../lib/commands/preMcp/decide.js';
import { classifyCallInput, classifyRawInput, glance } from '../../lib/commands/preMcp/front.js';
import { callIdentity, firstLook, mentionsAgentStack } from '../../lib/agentstack/server/callIdentity.js';
import { runPreMcp } from '../../lib/commands/preMcp/run.js';
import { indexSnapshot } from '../../lib/agentstack/snapshot/actionIndex.js';
import { parseHookJson } from '../../lib/platform/hookIo.js';
import { readProjectPin } from '../../lib/agentstack/auth/projectPin.js';
import { readRefreshFile } from '../../lib/agentstack/auth/refreshStore.js';
import { bigSnapshot } from '../helpers/fixtures.js';
import { tempDir } from '../helpers/repo.js';

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => {
  tmp = tempDir('agentstack-fuzz-');
  const snapshot = bigSnapshot(200);
  snapshot.unapproved = ['data.op_11', 'projects.op_20'];
  writeFileSync(join(tmp.path, 'agentstack-capabilities.json'), JSON.stringify(snapshot));
  const claims = Buffer.from(JSON.stringify({ caps: ['projects:read', 'data:read'], exp: 9999999999 })).toString('base64url');
  writeFileSync(join(tmp.path, 'mcp.json'), JSON.stringify({ mcpServers: { agentstack: { url: 'https://agentstack.tech/mcp', headers: { Authorization: `Bearer h.${claims}.s` } } } }));
});
afterAll(() => tmp.cleanup());

/** Runs `fn`; a thrown PluginError is an answer, anything else fails the property. */
function onlyPluginErrors<T>(fn: () => T): T | 'refused' {
  try {
    return fn();
  } catch (error) {
    if (isPluginError(error)) return 'refused';
    throw error;
  }
}

const jsonText = fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v) ?? 'null');
/** Valid JSON with damage: cut short, a character inserted, a BOM, comments, trailing commas. */
const damagedText = fc.tuple(jsonText, fc.nat(), fc.constantFrom('', '\uFEFF', '// c\n', '/* c */', ',', '}', '"', '\u0000', '\n')).map(
  ([text, at, insert]) => {
    const i = text.length ? at % (text.length + 1) : 0;
    return text.slice(0, i) + insert + text.slice(i);
  },
);
const anyText = fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), jsonText, damagedText);

const weirdKey = fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom('__proto__', 'constructor', 'prototype', 'agentstack', 'mcpServers', 'headers', 'Authorization'));
const weirdValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.jsonValue({ maxDepth: 1 }),
    fc.dictionary(weirdKey, tie('value'), { maxKeys: 4 }),
    fc.array(tie('value'), { maxLength: 3 }),
  ),
})).value;
/** A config whose mcpServers and agentstack entry may be any shape at all. */
const weirdConfig: fc.Arbitrary<McpConfig> = fc.record(
  { mcpServers: fc.oneof(weirdValue, fc.dictionary(weirdKey, weirdValue, { maxKeys: 4 }), fc.record({ agentstack: weirdValue })), other: weirdValue },
  { requiredKeys: [] },
).map((c) => JSON.parse(JSON.stringify(c)) as McpConfig);
const token = fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('a.b.c', '${env:X}', 'AGENTSTACK_ACCESS_TOKEN', '<token>', 'tok en', ''));
const baseUrl = fc.constantFrom('https://agentstack.tech', 'http://127.0.0.1:9000', 'https://staging.agentstack.tech/sub');

describe('fuzz: the mcp.json manager', () => {
  it('parseMcpConfigText on 3,000 texts: an object or malformed_file, nothing else', () => {
    fc.assert(fc.property(anyText, (text) => {
      const out = onlyPluginErrors(() => parseMcpConfigText(text, '/x/mcp.json'));
      if (out !== 'refused') expect(typeof out === 'object' && out !== null && !Array.isArray(out)).toBe(true);
    }), { numRuns: 3_000 });
  });

  it('serialize then parse gives back the same config (2,000 configs)', () => {
    fc.assert(fc.property(fc.dictionary(weirdKey, weirdValue, { maxKeys: 5 }).map((c) => JSON.parse(JSON.stringify(c))), (c) => {
      if (c.mcpServers !== undefined && (typeof c.mcpServers !== 'object' || c.mcpServers === null || Array.isArray(c.mcpServers))) return;
      expect(parseMcpConfigText(serializeMcpConfig(c), 'mcp.json')).toEqual(c);
    }), { numRuns: 2_000 });
  });

  it('normalize / applyBearer / bearerOf on 3,000 configs of any shape: typed refusals only; the Bearer applied is the Bearer read', () => {
    fc.assert(fc.property(weirdConfig, token, baseUrl, fc.option(fc.integer({ min: -5, max: 1e6 }), { nil: undefined }), (config, tok, base, projectId) => {
      const before = JSON.stringify(config);
      onlyPluginErrors(() => normalizeMcpConfig(config, { envBaseUrl: base }));
      onlyPluginErrors(() => bearerOf(config));
      const applied = onlyPluginErrors(() => applyBearer(config, { token: tok, baseUrl: base, projectId }));
      expect(JSON.stringify(config)).toBe(before); // pure: the input is never mutated
      if (applied !== 'refused') {
        expect(bearerOf(applied.config)).toBe(isRealBearer(`Bearer ${tok}`) ? tok : null);
        expect(normalizeMcpConfig(applied.config, { envBaseUrl: base }).changed).toBe(false);
      }
    }), { numRuns: 3_000 });
  });

  it('updateMcpConfigFile on 300 random files: applied, or refused with the file left byte for byte', async () => {
    const path = join(tmp.path, 'fuzz-mcp.json');
    await fc.assert(fc.asyncProperty(anyText, async (text) => {
      writeFileSync(path, text);
      try {
        const result = await updateMcpConfigFile(path, (c) => applyBearer(c, { token: 'fuzz.tok.en', baseUrl: 'https://agentstack.tech' }));
        expect(bearerOf(JSON.parse(readFileSync(path, 'utf8')))).toBe('fuzz.tok.en');
        expect(result.changed || text.includes('fuzz.tok.en')).toBe(true);
      } catch (error) {
        expect(isPluginError(error, 'malformed_file'), String(error)).toBe(true);
        expect(readFileSync(path, 'utf8')).toBe(text);
      }
    }), { numRuns: 300 });
  });

  it('refresh file and project pin readers on 2,000 texts: a value or a typed refusal', () => {
    const refresh = join(tmp.path, 'fuzz-refresh');
    const pin = join(tmp.path, 'fuzz-pin');
    fc.assert(fc.property(anyText, (text) => {
      writeFileSync(refresh, text);
      writeFileSync(pin, text);
      const r = onlyPluginErrors(() => readRefreshFile(refresh));
      if (r !== 'refused' && r !== null) expect(typeof r.refresh_token).toBe('string');
      const p = onlyPluginErrors(() => readProjectPin({}, pin));
      if (p !== 'refused' && p.projectId !== null) expect(Number.isSafeInteger(p.projectId) && p.projectId > 1).toBe(true);
    }), { numRuns: 2_000 });
  });
});

const executeName = fc.constantFrom('agentstack.execute', 'agentstack_execute', 'MCP:user-agentstack:agentstack.execute', 'other_tool', '');
const serverName = fc.constantFrom('user-agentstack', 'agentstack', 'plugin-agentstack-agentstack', 'user-github', null, undefined);
const actionName = fc.oneof(fc.constantFrom('system.ping', 'projects.list', 'data.op_11', 'data.op_1', 'projects.op_20', 'nope.nothing'), fc.string({ maxLength: 12 }));
const toolInput = fc.oneof(
  fc.record({ steps: fc.array(fc.record({ id: fc.oneof(fc.string(), fc.integer()), action: actionName }, { requiredKeys: [] }), { maxLength: 4 }) }).map((v) => JSON.stringify(v)),
  fc.record({ steps: fc.array(fc.record({ action: actionName }), { maxLength: 3 }) }),
  anyText,
  weirdValue,
);
const hookInput = fc.record(
  {
    tool_name: fc.oneof(executeName, weirdValue),
    tool_input: toolInput,
    url: fc.oneof(fc.constantFrom('https://agentstack.tech/mcp', 'https://evil.example/mcp', 'nope'), weirdValue),
    mcp_server_name: fc.oneof(serverName, weirdValue),
    command: weirdValue,
    hook_event_name: fc.constantFrom('beforeMCPExecution', 5),
  },
  { requiredKeys: [] },
);

function expectSafeAnswer(answer: Record<string, unknown>): void {
  expect(answer.permission === undefined || answer.permission === 'deny' || answer.permission === 'ask').toBe(true);
  for (const key of ['user_message', 'agent_message'] as const) {
    if (answer[key] !== undefined) expect(typeof answer[key]).toBe('string');
  }
}

describe('fuzz: the pre-MCP hook input', () => {
  it('stdin text -> classify on 3,000 texts: neutral or execute, never a throw', () => {
    fc.assert(fc.property(fc.oneof(anyText, hookInput.map((v) => JSON.stringify(v) ?? '')), (text) => {
      const front = classifyRawInput(parseHookJson(text));
      expect(['neutral', 'execute']).toContain(front.kind);
    }), { numRuns: 3_000 });
  });

  it("the first stage's glance on 3,000 texts: when it answers, the full classification answers the same", () => {
    // Names that mention AgentStack in the ways firstLook reads (case, a Kelvin sign lower-casing to k, joined forms).
    const naming = fc.constantFrom('agentstack.execute', 'AgentStack', 'user-agentstack', 'plugin-agentstack-agentstack',
      'AGENTSTAC\u212a', 'mcp_user-agentstack_agentstack_execute', 'MCP:agentstack.execute', 'read_file', 'user-files', 'https://agentstack.tech/mcp');
    const call = fc.record({ tool_name: fc.oneof(naming, weirdValue), mcp_server_name: fc.oneof(naming, weirdValue), url: fc.oneof(naming, weirdValue), mcp_server_url: fc.oneof(naming, weirdValue) }, { requiredKeys: [] });
    fc.assert(fc.property(fc.oneof(anyText, hookInput.map((v) => JSON.stringify(v) ?? ''), call.map((v) => JSON.stringify(v))), (text) => {
      const input = { stdin: { text }, raw: parseHookJson(text) };
      const quick = glance(input);
      if (quick) expect(classifyCallInput(input)).toEqual(quick);
      if (input.raw && firstLook(callIdentity(input.raw)) === 'check') expect(mentionsAgentStack(input.raw)).toBe(true);
    }), { numRuns: 3_000 });
  });

  it('parseExecuteArgs on 3,000 tool_input values: ok with steps or a reason', () => {
    fc.assert(fc.property(toolInput, (input) => {
      const parsed = parseExecuteArgs(input);
      if (parsed.kind === 'ok') expect(Array.isArray(parsed.args.steps)).toBe(true);
      else expect(typeof parsed.reason).toBe('string');
    }), { numRuns: 3_000 });
  });

  it('runPreMcp (files read from a real Cursor dir) on 2,000 hook inputs: {} or deny/ask with string messages, never allow', () => {
    const env = { AGENTSTACK_CURSOR_DIR: tmp.path };
    fc.assert(fc.property(hookInput, (raw) => {
      expectSafeAnswer(runPreMcp(raw as Record<string, unknown>, { env, now: Date.now() }) as Record<string, unknown>);
    }), { numRuns: 2_000 });
  });

  it('decidePreMcp with any claims and any snapshot shape (2,000 cases): a safe answer', () => {
    fc.assert(fc.property(hookInput, weirdValue, weirdValue, (raw, claims, snapshotValue) => {
      const input = typeof raw.tool_name === 'string' ? (raw as never) : null;
      const index = indexSnapshot(snapshotValue);
      const claimsObject = claims && typeof claims === 'object' && !Array.isArray(claims) ? (claims as Record<string, unknown>) : null;
      grantedCaps(claimsObject);
      const answer = decidePreMcp({ input, snapshot: index ? { kind: 'ok', index } : { kind: 'malformed' }, claims: claimsObject, now: 0, knownBaseUrls: ['https://agentstack.tech'] });
      expectSafeAnswer(answer as Record<string, unknown>);
    }), { numRuns: 2_000 });
  });

  it('decodeJwtClaims on 2,000 strings: an object or null', () => {
    fc.assert(fc.property(fc.oneof(anyText, fc.tuple(fc.string(), anyText, fc.string()).map(([a, b, c]) => `${a}.${Buffer.from(b).toString('base64url')}.${c}`)), (text) => {
      const claims = decodeJwtClaims(text);
      expect(claims === null || (typeof claims === 'object' && !Array.isArray(claims))).toBe(true);
    }), { numRuns: 2_000 });
  });
});
