/**
 * The slash commands tell the agent how to find the plugin root in the person's terminal: a POSIX shell on macOS and
 * Linux, PowerShell on Windows. The POSIX line is run here in `sh` against a fake home; the PowerShell line cannot
 * run here, so its text is held to what PowerShell needs ($env:USERPROFILE, never cmd's %USERPROFILE% or `~`).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, tempDir } from '../helpers/repo.js';
import { baseChildEnv } from '../helpers/platform.js';

const COMMANDS = [
  { file: 'commands/agentstack-authorize.md', script: 'hooks/scripts/device-code.mjs' },
  { file: 'commands/agentstack-diagnose.md', script: 'scripts/diagnose-local.mjs' },
  { file: 'commands/agentstack-activity.md', script: 'scripts/activity.mjs' },
];
const lineAfter = (text: string, label: string) => new RegExp(`${label}: \`(.+)\`$`, 'm').exec(text)?.[1];

describe('slash commands: finding the plugin root on every platform', () => {
  const home = tempDir('agentstack-cmd-');
  afterAll(() => home.cleanup());
  const plant = (dir: string, script: string, mtime: number) => {
    mkdirSync(dirname(join(dir, script)), { recursive: true });
    writeFileSync(join(dir, script), '');
    utimesSync(dir, mtime, mtime);
  };

  for (const { file, script } of COMMANDS) {
    const text = readFileSync(join(REPO_ROOT, file), 'utf8');

    it.skipIf(process.platform === 'win32')(`${file}: the POSIX line picks local first, else the newest cache copy holding the script`, () => {
      const posix = lineAfter(text, '- macOS, Linux');
      expect(posix).toBeDefined();
      const run = (h: string) => spawnSync('sh', ['-c', posix!], { env: { ...baseChildEnv(), HOME: h }, encoding: 'utf8' }).stdout.trim().replace(/\/$/, '');
      const h1 = join(home.path, `${script.length}-a`);
      plant(join(h1, '.cursor/plugins/cache/m/agentstack/old'), script, 1_000);
      plant(join(h1, '.cursor/plugins/cache/m/agentstack/new'), script, 2_000);
      mkdirSync(join(h1, '.cursor/plugins/cache/m/agentstack/newest-empty'), { recursive: true });
      expect(run(h1)).toBe(join(h1, '.cursor/plugins/cache/m/agentstack/new'));
      plant(join(h1, '.cursor/plugins/local/agentstack'), script, 500);
      expect(run(h1)).toBe(join(h1, '.cursor/plugins/local/agentstack'));
      expect(run(join(home.path, 'nobody-home'))).toBe('');
    });

    it(`${file}: the PowerShell line uses $env:USERPROFILE and PowerShell commands only`, () => {
      const ps = lineAfter(text, '- Windows \\(PowerShell\\)');
      expect(ps).toBeDefined();
      expect(ps).toContain('$env:USERPROFILE\\.cursor\\plugins\\local\\agentstack');
      expect(ps).toMatch(/Sort-Object LastWriteTime -Descending/);
      expect(ps).toContain(script.replaceAll('/', '\\'));
      expect(ps).not.toMatch(/%USERPROFILE%|~\/|\bls\b|\bhead\b/);
      expect(text).not.toMatch(/%USERPROFILE%/);
    });
  }
});
