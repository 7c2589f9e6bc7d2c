/**
 * Plugin folders written by us in the shapes Cursor's official plugins use (Aug 2026: hosted-MCP plugins with only
 * mcp.json, README, CHANGELOG and assets; `Authorization: Bearer ${VAR}` with `variables`; PNG or SVG logos;
 * skills-only plugins; hooks with `version: 1`, `stop` / `afterAgentResponse`, no timeout; a static OAuth `auth`
 * block, a `url` that is a variable, a skill named like a title), the forms Cursor's docs accept beyond them (hooks
 * without `version`, prompt hooks, marketplace entries with `minClientVersions`), plus marketplace repositories. Each fixture is a map of relative path -> content, written into a temporary folder by the tests.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { deflateSync } from 'node:zlib';

export type FixtureFiles = Record<string, string | Buffer>;

const json = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;

function crc32(bytes: Buffer): number {
  let c = ~0;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k += 1) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A real (decodable) grey PNG of `width` x `height`. */
export function png(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 0, 0, 0, 0], 8); // 8-bit greyscale
  const rows = Buffer.alloc((width + 1) * height, 0x80);
  for (let y = 0; y < height; y += 1) rows[y * (width + 1)] = 0;
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}

export const SVG_LOGO = `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="192" height="192" viewBox="0 0 192 192" fill="none">
  <!-- a plain mark, no gradient -->
  <rect width="192" height="192" rx="40" fill="#111827"/>
  <path d="M48 136 L96 48 L144 136 Z" fill="#F9FAFB"/>
</svg>
`;

const author = { name: 'Example Labs', email: 'plugins@example.com' };
const readme = (name: string) => `# ${name}\n\nA fixture plugin for the audit tests.\n`;

/** Skills only: no MCP server, no hooks, no logo, no CHANGELOG (as ten official plugins ship). */
export const skillsOnly = (): FixtureFiles => ({
  '.cursor-plugin/plugin.json': json({ name: 'pdf-tools', displayName: 'PDF Tools', description: 'Fill and read PDF forms.', version: '1.0.0', author, license: 'MIT', keywords: ['pdf', 'forms'] }),
  'README.md': readme('PDF Tools'),
  'skills/fill-forms/SKILL.md': '---\nname: fill-forms\ndescription: Fill a PDF form from data the person gives. Use when asked to complete a PDF.\n---\n\n# Fill forms\n\nSteps.\n',
  'skills/read-pdf/SKILL.md': '---\nname: read-pdf\ndescription: >\n  Extract text and tables from a PDF.\n---\n\nSteps.\n',
});

/** A hosted MCP plugin whose server is not called agentstack, with a PNG logo and `## 1.0.0 — initial release`. */
export const hostedMcp = (): FixtureFiles => ({
  '.cursor-plugin/plugin.json': json({
    name: 'linear-lite', displayName: 'Linear Lite', description: 'Issues from Linear.', version: '1.0.0', author,
    homepage: 'https://linear.example.com', repository: 'https://github.com/example/linear-lite', license: 'MIT',
    logo: 'assets/logo.png', keywords: ['issues'], category: 'productivity', tags: ['project-management'], mcpServers: './mcp.json',
  }),
  'mcp.json': json({ mcpServers: { linear: { type: 'http', url: 'https://mcp.linear.example.com/mcp' } } }),
  'README.md': readme('Linear Lite'),
  'CHANGELOG.md': '# Changelog\n\n## 1.0.0 — initial release\n\n- First version.\n',
  LICENSE: 'MIT License\n',
  'assets/logo.png': png(256, 256),
});

/** `Authorization: Bearer ${VAR}` with the manifest's `variables`, and a `## 1.0.0` CHANGELOG heading. */
export const bearerVariables = (): FixtureFiles => ({
  '.cursor-plugin/plugin.json': json({
    name: 'acme-api', displayName: 'Acme API', description: 'The Acme API as MCP tools.', version: '1.0.0', author, license: 'Apache-2.0',
    logo: 'assets/logo.png', mcpServers: './mcp.json',
    variables: { type: 'object', properties: { ACME_API_KEY: { type: 'string', description: 'Your Acme API key' } }, required: ['ACME_API_KEY'] },
  }),
  'mcp.json': json({ mcpServers: { acme: { type: 'http', url: 'https://mcp.acme.example.com/mcp', headers: { Authorization: 'Bearer ${ACME_API_KEY}' } } } }),
  'README.md': readme('Acme API'),
  'CHANGELOG.md': '# Changelog\n\n## 1.0.0\n\n- First version.\n',
  'assets/logo.png': png(128, 128),
});

/** Every one of the 21 manifest keys, well-formed, an SVG logo (192 viewBox), and each kind of component. */
export const fullSvg = (): FixtureFiles => ({
  '.cursor-plugin/plugin.json': json({
    name: 'team-kit', displayName: 'Team Kit', description: 'Review, ship and verify.', version: '2.1.0', author, publisher: 'Example Labs',
    homepage: 'https://example.com/team-kit', repository: 'https://github.com/example/team-kit', license: 'MIT', logo: 'assets/logo.svg',
    keywords: ['review'], category: 'developer-tools', tags: ['ci', 'review'], minClientVersions: { cursor: '1.7.0' },
    commands: './commands/', agents: './agents/', skills: './skills/', rules: './rules/', hooks: './hooks/hooks.json',
    variables: { type: 'object', properties: { TEAM_TOKEN: { type: 'string' } } }, mcpServers: './mcp.json',
  }),
  'mcp.json': json({ mcpServers: { 'team-ci': { type: 'http', url: 'https://ci.example.com/mcp', headers: { Authorization: 'Bearer ${TEAM_TOKEN}' } }, local: { command: 'node', args: ['${userHome}/bin/x.js'] } } }),
  'README.md': readme('Team Kit'),
  'CHANGELOG.md': '# Changelog\n\n## [2.1.0] - 2026-08-01\n\n- Review agent.\n',
  'assets/logo.svg': SVG_LOGO,
  'commands/ship.md': '---\nname: ship\ndescription: Run the checks and open a pull request.\n---\n\nShip it.\n',
  'agents/reviewer.md': '---\nname: reviewer\ndescription: Reviews a diff for correctness before merge.\n---\n\nReview.\n',
  'skills/verify/SKILL.md': '---\nname: verify\ndescription: "Verify a change: tests, types, lint."\n---\n\nVerify.\n',
  'rules/style.mdc': '---\ndescription: House style for TypeScript\nglobs:\n  - "**/*.ts"\n  - "**/*.tsx"\nalwaysApply: false\n---\n\nBe brief.\n',
  'rules/always.mdc': '---\nalwaysApply: true\n---\n\nAlways answer in English.\n',
  'hooks/hooks.json': json({ version: 1, hooks: { stop: [{ command: 'node "${CURSOR_PLUGIN_ROOT}/hooks/stop.mjs"', timeout: 10 }] } }),
  'hooks/stop.mjs': 'import { appendFileSync } from "node:fs";\nappendFileSync(process.env.HOME + "/.team-kit.log", "stop\\n");\n',
});

/** Hooks only, with relative paths and no timeout (as an official plugin ships). */
export const hooksRelative = (): FixtureFiles => ({
  '.cursor-plugin/plugin.json': json({ name: 'session-notes', description: 'Notes after each agent turn.', version: '0.3.0', author, hooks: './hooks/hooks.json' }),
  'README.md': readme('Session Notes'),
  'CHANGELOG.md': '## 0.3.0\n\n- Notes on stop.\n',
  'hooks/hooks.json': json({ version: 1, hooks: { stop: [{ command: './hooks/save.sh' }], afterAgentResponse: [{ command: 'node ./hooks/note.mjs' }] } }),
  'hooks/save.sh': '#!/bin/sh\ncat >/dev/null\necho "{}"\n',
  'hooks/note.mjs': 'import { readFileSync } from "node:fs";\nreadFileSync(0);\nprocess.stdout.write("{}");\n',
});

/** A static OAuth client in `auth` ({CLIENT_ID, CLIENT_SECRET} as variables), a server without `type`. */
export const staticOAuth = (): FixtureFiles => ({
  '.cursor-plugin/plugin.json': json({
    name: 'calls-kit', displayName: 'Calls Kit', description: 'Call transcripts as MCP tools.', version: '1.0.0', author, license: 'MIT',
    logo: 'assets/logo.svg', category: 'integrations', tags: ['mcp'], mcpServers: './mcp.json',
    variables: { type: 'object', properties: { CALLS_CLIENT_ID: { type: 'string', title: 'Client ID' }, CALLS_CLIENT_SECRET: { type: 'string', title: 'Client secret' } }, required: ['CALLS_CLIENT_ID'] },
  }),
  'mcp.json': json({ mcpServers: { calls: { url: 'https://mcp.calls.example.com/mcp', auth: { CLIENT_ID: '${CALLS_CLIENT_ID}', CLIENT_SECRET: '${CALLS_CLIENT_SECRET}' } } } }),
  'README.md': readme('Calls Kit'),
  'CHANGELOG.md': '# Changelog\n\n## 1.0.0\n\n- First version.\n',
  'assets/logo.svg': SVG_LOGO,
});

/** The server's whole `url` is a variable the person fills in, with an `auth` block that names `scopes`. */
export const variableUrl = (): FixtureFiles => ({
  '.cursor-plugin/plugin.json': json({
    name: 'org-records', displayName: 'Org Records', description: 'Records of your org.', version: '1.0.0', author, license: 'MIT',
    logo: 'assets/logo.png', mcpServers: './mcp.json', minClientVersions: { cursor: '3.13.0' },
    variables: { type: 'object', properties: { ORG_MCP_URL: { type: 'string', description: 'Your org\'s MCP URL (https://…)' }, ORG_CLIENT_ID: { type: 'string' } }, required: ['ORG_MCP_URL', 'ORG_CLIENT_ID'] },
  }),
  'mcp.json': json({ mcpServers: { records: { type: 'http', url: '${ORG_MCP_URL}', auth: { CLIENT_ID: '${ORG_CLIENT_ID}', scopes: ['records_api', 'refresh_token'] } } } }),
  'README.md': readme('Org Records'),
  'CHANGELOG.md': '## 1.0.0\n\n- First version.\n',
  'assets/logo.png': png(256, 256),
});

/** A skill whose `name` is a title, not its folder's kebab-case name, with extra frontmatter keys; no logo. */
export const titledSkill = (): FixtureFiles => ({
  '.cursor-plugin/plugin.json': json({ name: 'work-style', description: 'A way of working.', version: '0.4.0', author, category: 'productivity', tags: ['style'], skills: './skills/' }),
  'README.md': readme('Work Style'),
  'CHANGELOG.md': '## 0.4.0\n\n- Focus mode.\n',
  'skills/focus-mode/SKILL.md': '---\nname: Focus Mode\ndescription: Short answers, one change at a time, checked before done. Use when asked for focus mode.\ndisable-model-invocation: true\nicon: target\n---\n\nSteps.\n',
});

/** hooks.json as the docs also allow it: no `version` (it defaults to 1), a prompt hook, an extra key on an entry. */
export const documentedHooks = (): FixtureFiles => ({
  '.cursor-plugin/plugin.json': json({ name: 'turn-guard', description: 'Checks each agent turn.', version: '1.1.0', author, logo: 'assets/logo.png', hooks: './hooks/hooks.json' }),
  'README.md': readme('Turn Guard'),
  'CHANGELOG.md': '## 1.1.0\n\n- Prompt hook.\n',
  'assets/logo.png': png(128, 128),
  'hooks/hooks.json': json({
    hooks: {
      stop: [{ type: 'prompt', prompt: 'Did the agent finish what was asked? Answer yes or no.', timeout: 20 }],
      afterAgentResponse: [{ command: 'bun run ${CURSOR_PLUGIN_ROOT}/hooks/note.ts', timeout: 5, loop_limit: null }],
    },
  }),
  'hooks/note.ts': 'const input = await Bun.stdin.text();\nconsole.log(JSON.stringify({ seen: input.length }));\n',
});

const prefixed = (prefix: string, files: FixtureFiles): FixtureFiles => Object.fromEntries(Object.entries(files).map(([k, v]) => [`${prefix}/${k}`, v]));

/** A marketplace repository with three plugins, in a folder and in a `third_party/` folder as the official one does. */
export const marketplace = (): FixtureFiles => ({
  '.cursor-plugin/marketplace.json': json({
    name: 'example-plugins', owner: { name: 'Example Labs', email: 'plugins@example.com' }, metadata: { description: 'Plugins by Example Labs.' },
    plugins: [
      { name: 'pdf-tools', source: 'pdf-tools', description: 'Fill and read PDF forms.' },
      { name: 'linear-lite', source: 'third_party/linear-lite', description: 'Issues from Linear.' },
      { name: 'acme-api', source: 'third_party/acme-api', description: 'The Acme API as MCP tools.' },
    ],
  }),
  'README.md': readme('Example plugins'),
  ...prefixed('pdf-tools', skillsOnly()),
  ...prefixed('third_party/linear-lite', hostedMcp()),
  ...prefixed('third_party/acme-api', bearerVariables()),
});

/** A marketplace whose entries carry `minClientVersions` (one without a description), with the newer shapes as its plugins. */
export const marketplaceWithVersions = (): FixtureFiles => ({
  '.cursor-plugin/marketplace.json': json({
    name: 'example-labs', owner: { name: 'Example Labs' }, metadata: { description: 'More plugins by Example Labs.' },
    plugins: [
      { name: 'org-records', source: 'third_party/org-records', description: 'Records of your org.', minClientVersions: { cursor: '3.13.0' } },
      { name: 'calls-kit', source: 'third_party/calls-kit', minClientVersions: { cursor: '3.13.0', 'cursor-cli': '2026.8.11' } },
      { name: 'work-style', source: 'work-style', description: 'A way of working.' },
    ],
  }),
  ...prefixed('third_party/org-records', variableUrl()),
  ...prefixed('third_party/calls-kit', staticOAuth()),
  ...prefixed('work-style', titledSkill()),
});

export function writeFixture(dir: string, files: FixtureFiles): string {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

/** Edits one JSON file of a fixture. */
export function editJson(files: FixtureFiles, path: string, edit: (v: any) => void): FixtureFiles {
  const value = JSON.parse(String(files[path]));
  edit(value);
  return { ...files, [path]: json(value) };
}
