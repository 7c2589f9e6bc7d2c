import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkHooksJson, checkManifest, checkShippedMcpJson } from '../../lib/commands/audit/pluginRules.js';
import { REPO_ROOT } from '../helpers/repo.js';

const readJson = (path: string) => JSON.parse(readFileSync(join(REPO_ROOT, path), 'utf8'));

describe('plugin surface as shipped', () => {
  const manifest = readJson('.cursor-plugin/plugin.json');
  const pkg = readJson('package.json');

  it('manifest passes the schema and AgentStack rules', () => {
    expect(checkManifest(manifest)).toEqual([]);
    expect(manifest.name).toBe('agentstack');
    expect(manifest.mcpServers).toBe('./mcp.json');
    expect(manifest.hooks).toBe('./hooks/hooks.json');
  });

  it('manifest carries what official third-party plugins carry: repository, category, tags', () => {
    expect(manifest.repository).toMatch(/^https:\/\/github\.com\/[\w.-]+\/[\w.-]+$/);
    expect(typeof manifest.category).toBe('string');
    expect(manifest.tags.length).toBeGreaterThan(0);
    for (const tag of manifest.tags) expect(typeof tag).toBe('string');
  });

  it('versions agree: plugin.json, package.json, CHANGELOG', () => {
    expect(manifest.version).toBe(pkg.version);
    expect(readFileSync(join(REPO_ROOT, 'CHANGELOG.md'), 'utf8')).toContain(`## [${pkg.version}]`);
  });

  it('shipped mcp.json is URL-only', () => {
    const doc = readJson('mcp.json');
    expect(checkShippedMcpJson(doc)).toEqual([]);
    expect(Object.keys(doc.mcpServers.agentstack).sort()).toEqual(['type', 'url']);
  });

  it('hooks.json anchors every command at ${CURSOR_PLUGIN_ROOT} with a timeout, pointing at files that exist', () => {
    const { problems, commands } = checkHooksJson(readJson('hooks/hooks.json'));
    expect(problems).toEqual([]);
    expect(commands.map((c) => c.event).sort()).toEqual(['afterMCPExecution', 'beforeMCPExecution', 'sessionStart']);
    for (const c of commands) expect(existsSync(join(REPO_ROOT, c.script!)), c.script!).toBe(true);
  });

  it('each command has name and description frontmatter', () => {
    for (const name of ['agentstack-authorize', 'agentstack-login', 'agentstack-logout', 'agentstack-diagnose', 'agentstack-config', 'agentstack-status', 'agentstack-activity']) {
      const text = readFileSync(join(REPO_ROOT, 'commands', `${name}.md`), 'utf8');
      const front = /^---\n([\s\S]*?)\n---\n/.exec(text)?.[1] ?? '';
      expect(front).toMatch(new RegExp(`^name: ${name}$`, 'm'));
      expect(front).toMatch(/^description: .{10,}$/m);
    }
  });

  it('logo is a square PNG of at least 128x128', () => {
    const png = readFileSync(join(REPO_ROOT, manifest.logo));
    expect(png.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(true);
    const width = png.readUInt32BE(16), height = png.readUInt32BE(20);
    expect(width).toBe(height);
    expect(width).toBeGreaterThanOrEqual(128);
  });
});

describe('plugin rules catch what they promise', () => {
  it('rejects unknown manifest keys, author.url, inline mcpServers, bad names', () => {
    const problems = checkManifest({ name: 'Agent Stack', author: { name: 'x', url: 'https://x' }, mcpServers: { a: {} }, extra: 1 });
    expect(problems.join('\n')).toMatch(/kebab-case/);
    expect(problems.join('\n')).toMatch(/author.url/);
    expect(problems.join('\n')).toMatch(/"mcpServers" must be the string/);
    expect(problems.join('\n')).toMatch(/key "extra"/);
  });

  it('rejects $schema, headers, placeholders and tools in the shipped mcp.json', () => {
    const problems = checkShippedMcpJson({
      $schema: 'x',
      mcpServers: { agentstack: { url: 'http://agentstack.tech/api', headers: { Authorization: 'Bearer ${env:T}' }, tools: {} } },
    });
    expect(problems).toHaveLength(5);
    for (const named of [/has "\$schema"/, /has "headers"/, /has a "tools" map/, /\$\{\.\.\.\} placeholder/, /"url" must be an https URL ending in \/mcp/]) {
      expect(problems.filter((p) => named.test(p)), String(named)).toHaveLength(1);
    }
  });

  it('rejects relative hook commands and missing timeouts', () => {
    const { problems } = checkHooksJson({ version: 1, hooks: { sessionStart: [{ command: 'node ./hooks/scripts/x.mjs' }] } });
    expect(problems).toHaveLength(2);
    expect(problems.filter((p) => /"sessionStart" has no timeout/.test(p))).toHaveLength(1);
    expect(problems.filter((p) => /"sessionStart" command is not anchored at \$\{CURSOR_PLUGIN_ROOT\}/.test(p))).toHaveLength(1);
  });
});
