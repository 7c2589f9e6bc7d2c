/** How large each file in the Cursor dir (paths.ts) may be when read; its own module so a reader pulls in nothing else. */
const KiB = 1024;
const MiB = 1024 * KiB;

/**
 * The largest each file may be when read: a larger one is refused unread (a broken or planted file must not stall a
 * hook). Generous: the snapshot and mcp.json hold what servers send (bodies are capped at 4 MiB), the rest is small.
 */
export const STATE_FILE_MAX_BYTES = {
  mcpJson: 32 * MiB,
  capabilities: 32 * MiB,
  capabilitiesFailure: 64 * KiB,
  refresh: 64 * KiB,
  deviceLock: 64 * KiB,
  project: 4 * KiB,
  identity: 64 * KiB,
  settings: 1 * MiB,
  hookRuns: 16 * KiB,
  credentialTold: 16 * KiB,
  gate: 8 * MiB,
  gateNames: 16 * MiB,
  sessionGate: 64 * KiB,
  /** Each of the journal's two files (it rotates at 1 MiB; a few records may land past it). */
  journal: 2 * MiB,
  windowsManaged: 16 * KiB,
} as const;
