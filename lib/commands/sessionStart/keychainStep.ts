/**
 * The card's step where the keychain stops a sign-in: the settings require it (`credential-store = keychain`) and it
 * cannot keep a token here (no session bus, no Secret Service, a locked keyring). The card then names the keychain
 * and its fix, as `--status` and diagnose do, never a sign-in that would stop at once. Reached through the network
 * chunk, only where the card would otherwise suggest a sign-in under `keychain`.
 */
import { lookAtKeychain } from '../../agentstack/credentials/keychainLook.js';
import { credentialStoreFacts, keychainBlock } from '../../agentstack/credentials/storeFacts.js';
import { placementOf, type StoredRefresh } from '../../agentstack/auth/refreshStore.js';
import type { EffectiveSettings } from '../../agentstack/settings/effective.js';
import type { CursorPaths } from '../../agentstack/server/paths.js';
import { keychainSignInStep } from '../../agentstack/state/story.js';

export async function keychainStopsSignIn(args: { env: NodeJS.ProcessEnv; settings: Pick<EffectiveSettings, 'rows'>; paths: Pick<CursorPaths, 'dir'>; stored: StoredRefresh | null; budgetMs: number }): Promise<string | null> {
  const look = await lookAtKeychain(args);
  const row = args.settings.rows.find((r) => r.key === 'credential-store');
  const block = keychainBlock(credentialStoreFacts(row, placementOf(args.stored), look));
  return block?.signInStops ? keychainSignInStep(block) : null;
}
