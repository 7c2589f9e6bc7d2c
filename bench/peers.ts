/** Peers the bench compares against, installed on demand from the npm registry into bench/.peers (git-ignored). */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

// 0.15.0 is the last Inspector whose CLI runs on Node 20 (0.16+ needs Node 22).
export const INSPECTOR_VERSION = '0.15.0';

export function inspectorCli(benchDir: string): string | null {
  const prefix = join(benchDir, '.peers');
  const cli = join(prefix, 'node_modules/@modelcontextprotocol/inspector/cli/build/cli.js');
  if (existsSync(cli)) return cli;
  mkdirSync(prefix, { recursive: true });
  try {
    execFileSync('npm', ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', `@modelcontextprotocol/inspector@${INSPECTOR_VERSION}`], { stdio: 'pipe', timeout: 300_000 });
  } catch (error) {
    process.stderr.write(`bench: could not install the Inspector (${(error as Error).message.split('\n')[0]}); its row is skipped\n`);
    return null;
  }
  return existsSync(cli) ? cli : null;
}
