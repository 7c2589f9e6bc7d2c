/** A plugin's files as the audit reads them (readPluginFiles), built in memory for the tests of single rules. */
import type { JsonDoc, PluginFiles, TextFile } from '../../lib/commands/audit/readPlugin.js';

export const doc = (path: string, value: unknown): JsonDoc => ({ path, exists: true, value });
export const text = (path: string, body: string): TextFile => ({ path, text: body });

/** A plugin with a manifest `{name: "demo"}` and nothing else, with `over` in place of any part. */
export function pluginFiles(over: Partial<PluginFiles> = {}): PluginFiles {
  return {
    dir: '/plugin', files: [], manifest: doc('.cursor-plugin/plugin.json', { name: 'demo' }), packageJson: { path: 'package.json', exists: false },
    changelog: null, mcpDocs: [], mcpJson: { path: 'mcp.json', exists: false }, hooksJson: null, commands: [], skills: [], rules: [], agents: [],
    componentPaths: [], logo: null, bundles: [], surface: [], texts: [], ...over,
  };
}

/** The 24 bytes of a PNG header with the given size (enough for pngSize), padded to `bytes`. */
export function pngBytes(width: number, height: number, bytes = 24): Buffer {
  const buf = Buffer.alloc(Math.max(24, bytes));
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(buf, 0);
  buf.writeUInt32BE(13, 8);
  buf.write('IHDR', 12, 'latin1');
  buf.writeUInt32BE(width, 16);
  buf.writeUInt32BE(height, 20);
  return buf;
}
