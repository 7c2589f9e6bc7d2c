/**
 * lib/agentstack/snapshot/refusal.ts against real files: a refused Bearer is recorded as `unauthorized` with the
 * token's fingerprint (never the token), and the record that the server serves no catalog (`not_served`: it answered
 * 404, it is not AgentStack) stays with that server only: kept when the same server refuses a token, never inherited
 * by another server.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tokenFingerprint } from '../../lib/agentstack/mcpJson/credential.js';
import { recordRefusal } from '../../lib/agentstack/snapshot/refusal.js';
import { readSnapshotFailure, writeSnapshotFailure } from '../../lib/agentstack/snapshot/store.js';
import { tempDir } from '../helpers/repo.js';

const SERVER = 'https://agentstack.example/mcp';
const OTHER = 'https://other.example/mcp';
const TOKEN = 'at_refused-example-0123456789';
const NOW = Date.parse('2030-01-02T03:04:05Z');
let dir: ReturnType<typeof tempDir>;
let path: string;
beforeEach(() => { dir = tempDir('agentstack-refusal-'); path = join(dir.path, 'agentstack-capabilities-failed.json'); });
afterEach(() => dir.cleanup());

const notServedBy = (serverUrl: string) => writeSnapshotFailure(path, { at: '2030-01-01T00:00:00.000Z', server_url: serverUrl, message: 'HTTP 404', not_served: true });
const refuse = (serverUrl: string) => recordRefusal({ failurePath: path, serverUrl, token: TOKEN, message: 'HTTP 401 invalid_token', now: NOW });

describe('recordRefusal', () => {
  it('with no earlier record: unauthorized, the token\'s fingerprint and not the token, and no not_served', () => {
    refuse(SERVER);
    expect(readSnapshotFailure(path)).toEqual({
      at: '2030-01-02T03:04:05.000Z', server_url: SERVER, message: 'HTTP 401 invalid_token', unauthorized: true, token_sha256: tokenFingerprint(TOKEN),
    });
    expect(readFileSync(path, 'utf8')).not.toContain(TOKEN);
  });

  it('the same server said it serves no catalog: the refusal keeps not_served', () => {
    notServedBy(SERVER);
    refuse(SERVER);
    expect(readSnapshotFailure(path)).toMatchObject({ server_url: SERVER, unauthorized: true, not_served: true });
  });

  it('another server said so: the refusal of this one does not inherit not_served', () => {
    notServedBy(OTHER);
    refuse(SERVER);
    const record = readSnapshotFailure(path)!;
    expect(record).toMatchObject({ server_url: SERVER, unauthorized: true });
    expect(record).not.toHaveProperty('not_served');
  });

  it('an earlier failure of the same server that was not a 404: no not_served', () => {
    writeSnapshotFailure(path, { at: '2030-01-01T00:00:00.000Z', server_url: SERVER, message: 'HTTP 500' });
    refuse(SERVER);
    expect(readSnapshotFailure(path)).not.toHaveProperty('not_served');
  });
});
