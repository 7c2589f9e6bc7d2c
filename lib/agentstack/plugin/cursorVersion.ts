/**
 * The Cursor version the session start hook last saw (its input's `cursor_version`), kept so a support report can
 * name it: Cursor tells only its hooks. Written only when it changed; a failure never reaches the hook's answer.
 */
import { readTextIfExists, writeFileAtomic } from '../../platform/fs/secureFile.js';
import { displayText } from '../../platform/text/displayText.js';

export function recordCursorVersion(path: string, version: string | null | undefined): void {
  const shown = displayText(version ?? '', 40);
  if (!shown) return;
  try {
    if (readTextIfExists(path)?.trim() === shown) return;
    writeFileAtomic(path, `${shown}\n`);
  } catch { /* best effort: the report then says it was not recorded */ }
}
