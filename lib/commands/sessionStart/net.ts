/**
 * Everything session start does over the network. The entry reaches it through `await import()`, so esbuild
 * evaluates the HTTP and OAuth clients (~600 KB) only when a network step is needed.
 */
export { setProxyOptions } from '../../platform/net/http.js';
export { traceToDebugLog } from '../../agentstack/debug/trace.js';
export { refreshSingleFlight } from '../../agentstack/auth/tokenRefresh.js';
export { startSignIn } from '../../agentstack/signIn/background.js';
export { refreshSnapshot } from '../../agentstack/snapshot/refresh.js';
export { recordRefusal } from '../../agentstack/snapshot/refusal.js';
export { runDevicePoller } from '../../agentstack/signIn/poller.js';
export { lookUpIdentity, mcpRefusesToken } from '../../agentstack/auth/identity.js';
export { runRenewal } from '../../agentstack/renewal/run.js';
export { keychainStopsSignIn } from './keychainStep.js';
