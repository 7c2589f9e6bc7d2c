/**
 * Vitest setup: no test reaches the machine's own keychain. The refresh token goes to the system keychain under
 * `credential-store = auto`; in this process that would be the developer's session keyring. Linux: the session bus
 * is forgotten, so `auto` finds none (the Secret Service tests start a private bus of their own). macOS and
 * Windows: the file store is chosen. Children get an explicit environment (helpers/platform.ts baseChildEnv).
 */
delete process.env.DBUS_SESSION_BUS_ADDRESS;
delete process.env.XDG_RUNTIME_DIR;
if (process.platform === 'darwin' || process.platform === 'win32') process.env.AGENTSTACK_CREDENTIAL_STORE = 'file';
