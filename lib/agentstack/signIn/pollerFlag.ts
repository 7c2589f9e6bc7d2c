/** The argument that runs the session-start bundle as the detached device-code poller (kept apart so the hook's
 * entry can test for it without importing the sign-in code). */
export const POLLER_FLAG = '--device-poller';
/** The argument that runs the session-start bundle as a detached token renewal (started by the pre-MCP hook). */
export const RENEW_FLAG = '--renew-token';
