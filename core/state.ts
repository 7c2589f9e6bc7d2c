/** The shared state of one running core, passed to every handler module. */
import type { ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import type { CoreFaults } from './faults.js';
import type { CoreStore } from './registry.js';
import type { Variants } from './variants.js';

export interface CoreCounters {
  deviceAuthorizations: number;
  tokenRequests: number;
  refreshGrants: number;
  refreshReplays: number;
  grantsRevoked: number;
  /** Catalog requests answered 304 because their If-None-Match named the current ETag. */
  catalogNotModified: number;
  /** By "METHOD /path" (no query). */
  requests: Record<string, number>;
}

export interface TokenOverrides {
  claims?: Record<string, unknown>;
  accessTokenTtl?: number;
  /** TTL of access tokens issued by a refresh of this grant (default: accessTokenTtl). */
  refreshedAccessTokenTtl?: number;
}

export interface CoreState {
  baseUrl: string;
  mcpUrl: string;
  /** The RFC 8707 resource this core advertises in its RFC 9728 metadata and accepts (the MCP URL, or the origin). */
  resource: string;
  issuer: string;
  faults: CoreFaults;
  /** How this core serves the contract (default: none). */
  variants: Variants;
  counters: CoreCounters;
  store: CoreStore;
  deviceCodeTtl: number;
  log: (line: string) => void;
  /** Per-grant extra claims / TTL set by issueTokens (apply to refreshed tokens too). */
  overrides: Map<string, TokenOverrides>;
  /** Last poll time and current interval per device code (for slow_down enforcement). */
  polls: Map<string, { last: number; interval: number }>;
  /** Every device code and token the provider handed out, for tests that prove none leaks. */
  issuedSecrets: Set<string>;
  /** Requests held open by the 'hang' fault; answered (destroyed) on close. */
  hung: Set<ServerResponse>;
  /** Secret header value marking the core's own internal requests (not counted). */
  internalToken: string;
  provider?: Provider;
  /** Told each user code as the device endpoint issues it (dev-core --auto-approve). */
  onDeviceCode?: (userCode: string) => void;
}

export function newCounters(): CoreCounters {
  return { deviceAuthorizations: 0, tokenRequests: 0, refreshGrants: 0, refreshReplays: 0, grantsRevoked: 0, catalogNotModified: 0, requests: {} };
}
