/**
 * Masks a secret the way `gh auth status` does: enough of the start to tell which kind it is, the rest hidden.
 * Never reveals more than 4 characters, and nothing of a short secret.
 */
export function maskSecret(secret: string | null | undefined): string {
  if (!secret) return '(none)';
  if (secret.length < 12) return '*'.repeat(8);
  return `${secret.slice(0, 4)}${'*'.repeat(Math.min(secret.length - 4, 36))}`;
}
