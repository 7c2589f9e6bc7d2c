/**
 * Whether the folder named on the command line can be audited at all: it exists, is a folder, and can be listed.
 * Anything else is one line for the person (what is wrong with which path), never a stack trace.
 */
import { readdirSync, statSync } from 'node:fs';
import { auditFolder, type AuditOptions, type AuditReport } from './auditPlugin.js';

const WHY: Record<string, string> = {
  ENOENT: 'does not exist',
  ENOTDIR: 'is not a folder',
  EACCES: 'cannot be read (permission denied)',
  EPERM: 'cannot be read (not permitted)',
  ELOOP: 'is a symbolic link that loops',
  ENAMETOOLONG: 'is too long a path',
};

/** A file-system error as one line about `path`; null when it is not one (a bug, which should surface as is). */
export function fsErrorLine(error: unknown, path: string): string | null {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (typeof code !== 'string' || !code.startsWith('E')) return null;
  const where = (error as NodeJS.ErrnoException).path ?? path;
  return `${where} ${WHY[code] ?? `cannot be read (${code})`}`;
}

/** Why `dir` cannot be audited, as one line, or null when it is a folder that can be listed. */
export function targetProblem(dir: string): string | null {
  try {
    if (!statSync(dir).isDirectory()) return `${dir} is a file, not a plugin folder: give the folder that holds .cursor-plugin/`;
    readdirSync(dir);
    return null;
  } catch (error) {
    return fsErrorLine(error, dir) ?? `${dir} cannot be read`;
  }
}

/**
 * The audit of `dir`, or the one line saying why it cannot be audited: missing, a file, unreadable, or a part of it
 * that cannot be read while it is walked. Any other error is a bug and is thrown.
 */
export function auditTarget(dir: string, options: AuditOptions = {}): { kind: 'report'; report: AuditReport } | { kind: 'unusable'; line: string } {
  const unusable = targetProblem(dir);
  if (unusable) return { kind: 'unusable', line: unusable };
  try {
    return { kind: 'report', report: auditFolder(dir, options) };
  } catch (error) {
    const line = fsErrorLine(error, dir);
    if (line === null) throw error;
    return { kind: 'unusable', line };
  }
}
