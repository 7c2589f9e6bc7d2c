/** The README and the user guide say what the views say: one Node requirement, the report's masking, a hand try-out. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeEndOfLifeText } from '../../lib/agentstack/plugin/nodeReleases.js';
import { REPO_ROOT } from '../helpers/repo.js';

const read = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8');

describe('the docs tell the views\' story', () => {
  it('the Node requirement is the release every view tells a Node past its end of life to install', () => {
    const major = /Install Node (\d+) or newer/.exec(nodeEndOfLifeText('20.0.0', { endOfLife: '2026-04-30' }, Date.parse('2026-12-01')).fix)![1];
    expect(read('README.md')).toContain(`Node.js ${major} or newer on the PATH Cursor gives its hooks`);
    expect(read('docs/user-guide.md')).toContain(`Node.js ${major} or newer on the PATH Cursor gives its hooks`);
  });

  it('the user guide says the report masks the e-mail and home folder (it does), not that it names them', () => {
    const guide = read('docs/user-guide.md');
    expect(guide).not.toMatch(/it names your server, your account's email and your folders/);
    expect(guide).toMatch(/e-mail address and your home\s+folder are masked/);
  });

  it('the README shows how to try the plugin by hand against the reference server', () => {
    const readme = read('README.md');
    expect(readme).toContain('npm run dev-core -- --port 8787 --auto-approve');
    expect(readme).toContain('node hooks/scripts/device-code.mjs --no-browser');
  });

  it('the README and the user guide say --logout is the way to disconnect (a removed entry comes back)', () => {
    expect(read('README.md')).toMatch(/This is the way to disconnect/);
    expect(read('docs/user-guide.md')).toMatch(/taking the `agentstack` entry out of `mcp.json` by hand does not/);
  });
});
