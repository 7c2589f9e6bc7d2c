/**
 * The audit's generic rules over a plugin's components, on files built in memory: hooks, the frontmatter of
 * commands, skills, rules and agents, and the logo, each row worded exactly as a person reads it.
 */
import { describe, expect, it } from 'vitest';
import {
  agentsFrontmatterRule, commandsFrontmatterRule, hasHooks, hooksAnchoredRule, hooksFormatRule, hooksTargetsRule, hooksTimeoutsRule, LOGO_LIMITS,
  logoRule, rulesFrontmatterRule, skillsFrontmatterRule,
} from '../../lib/commands/audit/componentRules.js';
import { doc, pluginFiles, pngBytes, text } from '../helpers/auditFiles.js';

const ROOT = '${CURSOR_PLUGIN_ROOT}';
const hooks = (value: unknown, files: string[] = []) => pluginFiles({ hooksJson: doc('hooks/hooks.json', value), files });
const fm = (fields: string) => `---\n${fields}\n---\nBody.\n`;

describe('hooks', () => {
  const anchored = { command: `node "${ROOT}/hooks/a.cjs"`, timeout: 5 };

  it('the format, and what it found', () => {
    expect(hasHooks(pluginFiles())).toBe(false);
    expect(hasHooks(hooks({}))).toBe(true);
    expect(hooksFormatRule(hooks({ version: 1, hooks: { stop: [anchored, anchored] } }))).toEqual({ id: 'hooks.format', status: 'PASS', summary: '2 hook command(s) in hooks/hooks.json' });
    expect(hooksFormatRule(hooks({ hooks: { stop: [anchored, { type: 'prompt', prompt: 'Check.' }] } })).summary).toBe('1 hook command(s) and 1 prompt hook(s) in hooks/hooks.json');
    const fix = 'Write hooks as {"version": 1, "hooks": {"<event>": [{"command": "…"}]}} (or {"type": "prompt", "prompt": "…"})';
    expect(hooksFormatRule(hooks({ version: 2, hooks: {} }))).toEqual({ id: 'hooks.format', status: 'FAIL', summary: 'hooks/hooks.json "version" must be 1', fix });
    expect(hooksFormatRule(pluginFiles({ hooksJson: { path: 'hooks/hooks.json', exists: false } })).summary).toBe('hooks/hooks.json is missing');
    expect(hooksFormatRule(pluginFiles({ hooksJson: { path: 'hooks/hooks.json', exists: true, error: 'bad' } })).summary).toBe('hooks/hooks.json is not valid JSON (bad)');
  });

  it('anchored scripts, timeouts, scripts that exist', () => {
    const loose = hooks({ hooks: { stop: [{ command: 'bash ./hooks/save.sh' }, { command: 'echo hi', timeout: 1 }], start: [{ command: 'node ./hooks/s.cjs' }] } }, ['hooks/save.sh']);
    expect(hooksAnchoredRule(loose)).toEqual({ id: 'hooks.anchored', status: 'WARN', summary: 'relative hook path(s), run from a working directory Cursor does not document: stop: bash ./hooks/save.sh; start: node ./hooks/s.cjs', fix: `Anchor each script at ${ROOT}: node "${ROOT}/hooks/<name>.cjs"` });
    expect(hooksTimeoutsRule(loose)).toEqual({ id: 'hooks.timeouts', status: 'WARN', summary: 'hook(s) without a "timeout": stop; start', fix: 'Give each hook a "timeout" in seconds so a hung script cannot stall the editor' });
    expect(hooksTargetsRule(loose)).toEqual({ id: 'hooks.targets', status: 'FAIL', summary: 'hook scripts missing: start: hooks/s.cjs', fix: 'Ship the script the hook runs, or fix its path' });
    const good = hooks({ hooks: { stop: [anchored, { command: 'echo hi', timeout: 2 }] } }, ['hooks/a.cjs']);
    expect(hooksAnchoredRule(good)).toEqual({ id: 'hooks.anchored', status: 'PASS', summary: `every hook script is anchored at ${ROOT}` });
    expect(hooksTimeoutsRule(good)).toEqual({ id: 'hooks.timeouts', status: 'PASS', summary: 'every hook has a timeout' });
    expect(hooksTargetsRule(good)).toEqual({ id: 'hooks.targets', status: 'PASS', summary: '1 hook script(s) exist in the plugin' });
    expect(hooksTimeoutsRule(hooks({ hooks: { stop: [{ command: 'a' }, { command: 'b' }] } })).summary).toBe('hook(s) without a "timeout": stop');
    expect(hooksTargetsRule(hooks({ hooks: { stop: [{ command: `node ${ROOT}/hooks/x/../a.cjs`, timeout: 1 }] } }, ['hooks/a.cjs'])).status).toBe('PASS');
  });
});

describe('frontmatter', () => {
  const commands = (...files: Array<[string, string]>) => commandsFrontmatterRule(pluginFiles({ commands: files.map(([p, t]) => text(p, t)) }));
  const skills = (...files: Array<[string, string]>) => skillsFrontmatterRule(pluginFiles({ skills: files.map(([p, t]) => text(p, t)) }));
  const rules = (...files: Array<[string, string]>) => rulesFrontmatterRule(pluginFiles({ rules: files.map(([p, t]) => text(p, t)) }));
  const agents = (...files: Array<[string, string]>) => agentsFrontmatterRule(pluginFiles({ agents: files.map(([p, t]) => text(p, t)) }));

  it('commands: a kebab-case name if any, and a description', () => {
    expect(commands(['commands/a.md', fm('description: Does a.')])).toEqual({ id: 'commands.frontmatter', status: 'PASS', summary: '1 command(s) have a description' });
    expect(commands(['commands/a.md', fm('name: ship-it\ndescription: Ships.')]).status).toBe('PASS');
    const fix = 'Start each command with ---, name: <kebab-case>, description: <one line>, ---';
    expect(commands(['commands/a.md', fm('name: Ship It\ndescription: Ships.')])).toEqual({ id: 'commands.frontmatter', status: 'WARN', summary: 'commands/a.md "name" "Ship It" is not kebab-case', fix });
    expect(commands(['commands/a.md', fm('name: a')]).summary).toBe('commands/a.md has no "description"');
    expect(commands(['commands/a.md', 'plain']).summary).toBe('commands/a.md has no frontmatter');
    expect(commands(['commands/a.md', '---\n: bad\n---\n']).summary).toMatch(/^commands\/a\.md frontmatter line \d+: /);
  });

  it('skills: a description is required; the name is advice', () => {
    const pass = skills(['skills/verify/SKILL.md', fm('name: verify\ndescription: Checks.')]);
    expect(pass).toEqual({ id: 'skills.frontmatter', status: 'PASS', summary: '1 skill(s) have name and description' });
    const adviceFix = 'The docs ask for a "name" in lowercase kebab-case equal to the skill\'s folder (name: <folder name>)';
    expect(skills(['skills/verify/SKILL.md', fm('description: Checks.')])).toEqual({ id: 'skills.frontmatter', status: 'WARN', summary: 'skills/verify/SKILL.md has no "name"', fix: adviceFix, details: { advice: ['skills/verify/SKILL.md has no "name"'] } });
    expect(skills(['skills/verify/SKILL.md', fm('name: Verify It\ndescription: Checks.')]).summary).toBe('skills/verify/SKILL.md "name" "Verify It" is not kebab-case');
    expect(skills(['skills/verify/SKILL.md', fm('name: check\ndescription: Checks.')]).summary).toBe('skills/verify/SKILL.md "name" "check" differs from its folder "verify"');
    expect(skills(['SKILL.md', fm('name: any\ndescription: d')]).status).toBe('PASS');
    expect(skills(['skills/SKILL.md', fm('name: any\ndescription: d')]).status).toBe('PASS');
    const fix = 'Start each SKILL.md with ---, name: <folder name>, description: <what it does and when>, ---';
    expect(skills(['skills/v/SKILL.md', fm('name: v')])).toMatchObject({ status: 'FAIL', summary: 'skills/v/SKILL.md has no "description"', fix });
    expect(skills(['skills/v/SKILL.md', '# V']).summary).toBe('skills/v/SKILL.md has no frontmatter (name, description)');
  });

  it('rules: the fields Cursor reads, and rules that never apply by themselves', () => {
    expect(rules(['rules/a.mdc', fm('alwaysApply: true')])).toEqual({ id: 'rules.frontmatter', status: 'PASS', summary: '1 rule(s) have frontmatter Cursor reads' });
    expect(rules(['rules/a.mdc', fm('globs: "*.ts"')]).status).toBe('PASS');
    expect(rules(['rules/a.mdc', fm('globs: ["*.ts", "*.js"]')]).status).toBe('PASS');
    expect(rules(['rules/a.mdc', fm('description: Style')]).status).toBe('PASS');
    const fix = 'Give each rule ---, description: …, alwaysApply: true|false, globs: …, ---';
    expect(rules(['rules/a.mdc', fm('description: 5')])).toEqual({ id: 'rules.frontmatter', status: 'FAIL', summary: 'rules/a.mdc "description" must be a string', fix });
    expect(rules(['rules/a.mdc', fm('alwaysApply: "yes"')]).summary).toBe('rules/a.mdc "alwaysApply" must be true or false');
    expect(rules(['rules/a.mdc', fm('globs: ["*.ts", 5]')]).summary).toBe('rules/a.mdc "globs" must be a string or a list');
    expect(rules(['rules/b.mdc', 'no frontmatter']).summary).toBe('rule(s) applied only when named by hand: rules/b.mdc');
    expect(rules(['rules/a.mdc', fm('alwaysApply: false')]).summary).toBe('rule(s) applied only when named by hand: rules/a.mdc');
    const never = rules(['rules/a.mdc', fm('alwaysApply: false')], ['rules/b.mdc', 'no frontmatter']);
    expect(never).toEqual({ id: 'rules.frontmatter', status: 'WARN', summary: 'rule(s) applied only when named by hand: rules/b.mdc; rules/a.mdc', fix: 'Give each rule a description, globs, or alwaysApply: true' });
  });

  it('agents: name and description', () => {
    expect(agents(['agents/r.md', fm('name: r\ndescription: Reviews.')])).toEqual({ id: 'agents.frontmatter', status: 'PASS', summary: '1 agent(s) have name and description' });
    const fix = 'Start each agent with ---, name: <kebab-case>, description: <when to use it>, ---';
    expect(agents(['agents/r.md', fm('name: r')])).toEqual({ id: 'agents.frontmatter', status: 'WARN', summary: 'agents/r.md has no "description"', fix });
    expect(agents(['agents/r.md', fm('description: Reviews.')]).summary).toBe('agents/r.md has no "name"');
    expect(agents(['agents/r.md', 'text']).summary).toBe('agents/r.md has no frontmatter (name, description)');
  });
});

describe('logo', () => {
  const logo = (path: string, bytes: Buffer | null, remote = false) => logoRule(pluginFiles({ logo: { path, remote, bytes } }));
  const svg = (attrs: string, inner = '') => Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" ${attrs}>${inner}</svg>`);

  it('none, remote, missing, neither PNG nor SVG', () => {
    expect(logoRule(pluginFiles())).toEqual({ id: 'logo', status: 'WARN', summary: 'plugin.json names no logo', fix: 'Add "logo": "assets/logo.png" (a square PNG of 128-512 px, or an SVG)' });
    expect(logo(`https://cdn.example/${'x'.repeat(100)}.png`, null, true)).toEqual({ id: 'logo', status: 'PASS', summary: `logo is a URL (${`https://cdn.example/${'x'.repeat(100)}`.slice(0, 60)})` });
    expect(logo('assets/logo.png', null)).toEqual({ id: 'logo', status: 'FAIL', summary: 'logo assets/logo.png is missing or not a regular file', fix: 'Ship the image the manifest names' });
    expect(logo('assets/logo.jpg', Buffer.from([0xff, 0xd8, 0xff]))).toEqual({ id: 'logo', status: 'FAIL', summary: 'logo assets/logo.jpg is neither a PNG nor an SVG', fix: 'Use a square PNG or an SVG' });
  });

  it('a PNG: square, within 64-1024 px, under 512 KB', () => {
    const fix = 'Use a square PNG of 64-1024 px under 512 KB';
    expect(LOGO_LIMITS).toEqual({ minPx: 64, maxPx: 1024, maxBytes: 512 * 1024 });
    expect(logo('a.png', pngBytes(64, 64))).toEqual({ id: 'logo', status: 'PASS', summary: 'logo is a 64x64 PNG (24 bytes)' });
    expect(logo('a.png', pngBytes(1024, 1024)).status).toBe('PASS');
    expect(logo('a.png', pngBytes(63, 63))).toEqual({ id: 'logo', status: 'WARN', summary: 'logo is a 63x63 PNG: outside 64-1024 px', fix });
    expect(logo('a.png', pngBytes(1025, 1025)).summary).toBe('logo is a 1025x1025 PNG: outside 64-1024 px');
    expect(logo('a.png', pngBytes(128, 64)).summary).toBe('logo is a 128x64 PNG: not square');
    expect(logo('a.png', pngBytes(128, 128, 512 * 1024)).status).toBe('PASS');
    expect(logo('a.png', pngBytes(2000, 10, 512 * 1024 + 1)).summary).toBe(`logo is a 2000x10 PNG: not square, outside 64-1024 px, ${512 * 1024 + 1} bytes (over 512 KB)`);
  });

  it('an SVG: well-formed, a square viewBox, no gradients', () => {
    expect(logo('a.svg', svg('viewBox="0 0 10 10"'))).toEqual({ id: 'logo', status: 'PASS', summary: `logo is an SVG with a square 10x10 viewBox (${svg('viewBox="0 0 10 10"').length} bytes)` });
    for (const start of ['<?xml version="1.0"?>', '<!-- c -->', '  ']) expect(logo('logo.img', Buffer.from(`${start}<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 4 4"/>`)).status, start).toBe('PASS');
    expect(logo('LOGO.SVG', Buffer.from('x<svg viewBox="0 0 4 4"/>')).summary).toMatch(/^logo LOGO\.SVG is not well-formed SVG: /);
    expect(logo('logo.img', Buffer.from('x<svg/>')).summary).toBe('logo logo.img is neither a PNG nor an SVG');
    expect(logo('logo.svg.txt', Buffer.from('x<svg/>')).summary).toBe('logo logo.svg.txt is neither a PNG nor an SVG');
    expect(logo('a.svg', Buffer.from('<svg><g></svg>'))).toMatchObject({ status: 'FAIL', fix: 'Fix the SVG (it must parse as XML with an <svg> root)' });
    expect(logo('a.svg', svg('width="4" height="4"'))).toEqual({ id: 'logo', status: 'WARN', summary: 'logo a.svg has no usable viewBox, so it may not scale', fix: 'Add viewBox="0 0 <w> <h>" to the <svg> element so it scales' });
    const fix = 'Use a square SVG without gradients, or a square PNG';
    expect(logo('a.svg', svg('viewBox="0 0 20 10"'))).toEqual({ id: 'logo', status: 'WARN', summary: 'logo a.svg: viewBox 20x10 is not square', fix });
    expect(logo('a.svg', svg('viewBox="0 0 10 10"', '<linearGradient id="g"/>')).summary).toBe('logo a.svg: it uses gradients, which can render blank in Cursor');
    expect(logo('a.svg', svg('viewBox="0 0 20 10"', '<linearGradient id="g"/>')).summary).toBe('logo a.svg: viewBox 20x10 is not square, it uses gradients, which can render blank in Cursor');
    const big = svg('viewBox="0 0 10 10"', `<!-- ${'x'.repeat(512 * 1024)} -->`);
    expect(logo('a.svg', big).summary).toBe(`logo a.svg: ${big.length} bytes (over 512 KB)`);
  });
});

