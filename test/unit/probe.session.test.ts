/** Which errors mean "the session is gone": exact reasons, and everything else (including the SDK's timeout) is not. */
import { describe, expect, it } from 'vitest';
import { sessionExpiryReason } from '../../lib/agentstack/probe/session.js';

const rpc = (code: unknown, message?: unknown, data?: unknown) => Object.assign(new Error(), { code, message, ...(data === undefined ? {} : { data }) });

describe('sessionExpiryReason', () => {
  it('names the JSON-RPC code and the server\'s words without the SDK\'s "MCP error N:" prefix', () => {
    expect(sessionExpiryReason(rpc(-32001, 'MCP error -32001: Session not found'))).toBe('JSON-RPC error -32001 (Session not found)');
    expect(sessionExpiryReason(rpc(-32016, 'MCP error 32016: Session expired'))).toBe('JSON-RPC error -32016 (Session expired)');
    expect(sessionExpiryReason(rpc(-32001, 'MCP error -32001:gone'))).toBe('JSON-RPC error -32001 (gone)');
    expect(sessionExpiryReason(rpc(-32001, 'MCP error -32001:   gone'))).toBe('JSON-RPC error -32001 (gone)');
    // Only a leading prefix is the SDK's: the same words inside the server's text stay.
    expect(sessionExpiryReason(rpc(-32001, 'proxy: MCP error -32001: gone'))).toBe('JSON-RPC error -32001 (proxy: MCP error -32001: gone)');
  });

  it('says "session not found" when the server gave no words, or no message at all', () => {
    expect(sessionExpiryReason(rpc(-32001, 'MCP error -32001: '))).toBe('JSON-RPC error -32001 (session not found)');
    expect(sessionExpiryReason(rpc(-32016, undefined))).toBe('JSON-RPC error -32016 (session not found)');
    expect(sessionExpiryReason(rpc(-32016, 42))).toBe('JSON-RPC error -32016 (session not found)');
  });

  it('the SDK\'s own request timeout (-32001 with data.timeout, or saying it timed out) is not an expiry', () => {
    expect(sessionExpiryReason(rpc(-32001, 'MCP error -32001: Session not found', { timeout: 10 }))).toBeNull();
    expect(sessionExpiryReason(rpc(-32001, 'MCP error -32001: Request timed out'))).toBeNull();
  });

  it('anything that is not an error object is not an expiry, and never throws', () => {
    expect(sessionExpiryReason(null)).toBeNull();
    expect(sessionExpiryReason(undefined)).toBeNull();
    expect(sessionExpiryReason(-32001)).toBeNull();
    expect(sessionExpiryReason(Object.assign(() => {}, { code: -32001 }))).toBeNull();
  });
});
