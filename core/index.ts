/** The reference AgentStack core: a real loopback server for integration tests and `npm run demo`. Never bundled. */
export { startCore, type CoreOptions, type RunningCore } from './server.js';
export { defaultFaults, ROUTE_NAMES, type CoreFaults, type EndpointFault, type EndpointFaultKind, type RouteName } from './faults.js';
export { SEEDED_ACCOUNTS, DEFAULT_ACCOUNT, type CoreAccount } from './accounts.js';
export { CLIENT_ID, DEVICE_GRANT, OAUTH_ROUTES, ALL_SCOPES } from './oauth.js';
export { BASE_SCOPES, CAPABILITY_SCOPES, CAPS_CLAIM } from './contract.js';
export { ADMIN_ACTIONS, MANY_ACTIONS, UNICODE_ACTIONS, VARIANT_NAMES, isVariantName, type VariantName } from './variants.js';
export { ACTIONS, buildCatalog, type ActionsCatalog } from './registry.js';
export { buildLogoPng, pngSize } from './icon.js';
export type { IssuedTokens } from './auth.js';
export type { CoreCounters } from './state.js';
