/**
 * Finds strings that look like credentials in text, so a plugin never ships one. Findings carry the kind, the line
 * and a masked preview only: the audit must not print the secret it found.
 */
import { maskSecret } from '../../../platform/text/mask.js';

const PATTERNS: ReadonlyArray<{ kind: string; re: RegExp }> = [
  { kind: 'JWT', re: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  { kind: 'Bearer token', re: /\bBearer\s+(?!\$\{)[A-Za-z0-9._~+/=-]{24,}/g },
  { kind: 'private key', re: /-----BEGIN (?:[A-Z]+ )*PRIVATE KEY-----/g },
  { kind: 'GitHub token', re: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})/g },
  { kind: 'API key (sk-)', re: /\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}/g },
  { kind: 'Slack token', re: /\bxox[abprs]-[A-Za-z0-9-]{10,}/g },
  { kind: 'AWS access key', re: /\bAKIA[0-9A-Z]{16}\b/g },
];

export interface SecretFinding {
  kind: string;
  line: number;
  masked: string;
}

export function findSecretLike(text: string): SecretFinding[] {
  const findings: SecretFinding[] = [];
  for (const { kind, re } of PATTERNS) {
    for (const match of text.matchAll(re)) {
      const line = text.slice(0, match.index).split('\n').length;
      findings.push({ kind, line, masked: maskSecret(match[0]) });
    }
  }
  return findings.sort((a, b) => a.line - b.line);
}
