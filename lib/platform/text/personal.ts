/**
 * Personal data in text meant for others (a support ticket): e-mail addresses masked as `a***@example.test`, the home
 * folder as `~` wherever it starts a path. Pure.
 */
const EMAIL = /([A-Za-z0-9])[A-Za-z0-9._%+-]*@((?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,})/g;

export function maskEmails(text: string): string {
  return text.replace(EMAIL, '$1***@$2');
}

/** Every occurrence of `home` followed by a separator or the end of a path, shown as `~`. */
export function maskHome(text: string, home: string): string {
  const trimmed = home.replace(/[\\/]+$/, '');
  // A home of one or two characters ("/", "C:") would match everywhere: leave such text alone.
  if (trimmed.length < 3) return text;
  const escaped = trimmed.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return text.replace(new RegExp(`${escaped}(?=[\\\\/]|$|[\\s"'\`),;:|])`, 'g'), '~');
}
