/** Where this copy of the plugin is, from the script Node runs, and its scripts as a shell runs them. */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pluginCommand, pluginRootOfScript } from '../../lib/agentstack/plugin/root.js';

describe('plugin root', () => {
  it('is a fixed walk up from a bundle: hooks/scripts/<name> or scripts/<name>', () => {
    expect(pluginRootOfScript('/m/agentstack/hooks/scripts/device-code.mjs')).toBe('/m/agentstack');
    expect(pluginRootOfScript('/m/agentstack/hooks/scripts/session-start.cjs')).toBe('/m/agentstack');
    expect(pluginRootOfScript('/m/agentstack/scripts/diagnose-local.mjs')).toBe('/m/agentstack');
    // Not a bundle (the test runner, a source file): no root.
    expect(pluginRootOfScript('/x/node_modules/vitest/vitest.mjs')).toBeNull();
    expect(pluginRootOfScript('/x/lib/entries/config.ts')).toBeNull();
    expect(pluginRootOfScript(undefined)).toBeNull();
  });

  it('names a script as a shell runs it: `~` under home, the full path quoted when it holds a space', () => {
    const market = join(homedir(), '.cursor/plugins/marketplaces/team/agentstack');
    expect(pluginCommand('hooks/scripts/device-code.mjs', market)).toBe('node ~/.cursor/plugins/marketplaces/team/agentstack/hooks/scripts/device-code.mjs');
    expect(pluginCommand('scripts/config.mjs', '/opt/plugins/agentstack')).toBe('node /opt/plugins/agentstack/scripts/config.mjs');
    expect(pluginCommand('scripts/config.mjs', '/opt/My Plugins/agentstack')).toBe('node "/opt/My Plugins/agentstack/scripts/config.mjs"');
  });
});
