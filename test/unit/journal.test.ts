import { describe, expect, it } from 'vitest';
import { MAX_RECORD_BYTES, afterRecord, parseRecordLine, preRecord, readCallResult, recordLine, stepsOfInput } from '../../lib/agentstack/journal/record.js';
import { isJournaledCall, serverShown } from '../../lib/agentstack/journal/identify.js';
import { failedSteps, isFailure, journalCounts, stoppedBy } from '../../lib/agentstack/journal/summary.js';
import { callIdentity } from '../../lib/agentstack/server/callIdentity.js';
import { journalOn } from '../../lib/agentstack/settings/keys.js';

const NOW = Date.parse('2026-09-01T12:00:00.000Z');
const PLANTED = ['PLANTED-PARAM-1f3a', 'PLANTED-RESULT-9c2e', 'PLANTED-MESSAGE-77b1'];

/** A result as the server sends it: structuredContent and the same JSON as one text item. */
function callResult(structured: object, isError: boolean) {
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured, ...(isError ? { isError: true } : {}) };
}

const twoSteps = { steps: [{ id: 'a', action: 'projects.list', params: { filter: PLANTED[0] } }, { id: 'b', action: 'data.write', params: { value: PLANTED[0] } }] };
const oneFailed = {
  ok: false,
  results: [
    { id: 'a', action: 'projects.list', ok: true, data: { projects: [{ name: PLANTED[1] }] } },
    { id: 'b', action: 'data.write', ok: false, error: { code: 'missing_capability', message: `needs data:write (${PLANTED[2]})` } },
  ],
  skipped: 0,
};

describe('the after record', () => {
  it('keeps each step\'s id, action and outcome, the error, the duration and the ids; nothing of the parameters or the result', () => {
    const record = afterRecord({
      now: NOW, server: 'user-agentstack', conversationId: 'conv-1', generationId: 'gen-1', duration: 123.6,
      toolInput: JSON.stringify(twoSteps), resultJson: JSON.stringify(callResult(oneFailed, true)),
    });
    expect(record).toEqual({
      v: 1, at: '2026-09-01T12:00:00.000Z', hook: 'after', server: 'user-agentstack',
      steps: [{ id: 'a', action: 'projects.list', outcome: 'ok' }, { id: 'b', action: 'data.write', outcome: 'missing_capability' }],
      conversation_id: 'conv-1', generation_id: 'gen-1', error: true, duration_ms: 124,
    });
    const line = recordLine(record);
    for (const planted of PLANTED) expect(line).not.toContain(planted);
    expect(line.endsWith('\n')).toBe(true);
    expect(parseRecordLine(line.trim())).toEqual(record);
  });

  it('reads the result in every form: structuredContent, the text content alone, a double-encoded string, an object', () => {
    const expected = [{ id: 'a', action: 'projects.list', outcome: 'ok' }, { id: 'b', action: 'data.write', outcome: 'missing_capability' }];
    const textOnly = { content: [{ type: 'text', text: JSON.stringify(oneFailed) }], isError: true };
    for (const resultJson of [callResult(oneFailed, true), JSON.stringify(textOnly), JSON.stringify(JSON.stringify(callResult(oneFailed, true))), oneFailed]) {
      const record = afterRecord({ now: NOW, server: 's', toolInput: twoSteps, resultJson });
      expect(record.steps).toEqual(expected);
      expect(record.error).toBe(true);
    }
  });

  it('a step the server did not run is skipped; a result it cannot read leaves outcomes unknown; a call refused whole gets its code', () => {
    const stopped = afterRecord({ now: NOW, server: 's', toolInput: twoSteps, resultJson: callResult({ ok: false, results: [{ id: 'a', action: 'projects.list', ok: false, error: { code: 'unknown_action' } }], skipped: 1 }, true) });
    expect(stopped.steps.map((s) => s.outcome)).toEqual(['unknown_action', 'skipped']);
    const unreadable = afterRecord({ now: NOW, server: 's', toolInput: twoSteps, resultJson: 'not json' });
    expect(unreadable.steps.map((s) => s.outcome)).toEqual(['unknown', 'unknown']);
    expect(unreadable.error).toBe(false);
    const refused = afterRecord({ now: NOW, server: 's', toolInput: { steps: 'no' }, resultJson: callResult({ ok: false, error: { code: 'invalid_arguments', message: PLANTED[2] } }, true) });
    expect(refused).toMatchObject({ error: true, code: 'invalid_arguments', steps: [] });
    expect(recordLine(refused)).not.toContain(PLANTED[2]);
  });

  it('copies an error code only when it looks like one, and matches steps by position when the result names no ids', () => {
    const odd = afterRecord({
      now: NOW, server: 's', toolInput: twoSteps,
      resultJson: callResult({ ok: false, results: [{ ok: true }, { ok: false, error: { code: `secret value ${PLANTED[1]}` } }] }, true),
    });
    expect(odd.steps.map((s) => s.outcome)).toEqual(['ok', 'error']);
    expect(recordLine(odd)).not.toContain(PLANTED[1]);
  });

  it('without readable arguments, names the steps the result reports; a hidden character or a long name is clipped', () => {
    const record = afterRecord({ now: NOW, server: 'user-agentstack\u202e', toolInput: '{oops', resultJson: callResult(oneFailed, true) });
    expect(record.steps.map((s) => s.action)).toEqual(['projects.list', 'data.write']);
    expect(record.server).toBe('user-agentstack');
    expect(stepsOfInput({ steps: [{ id: 7, action: `x.${'y'.repeat(500)}\u0000` }, 'junk'] })).toEqual([{ id: '7', action: `x.${'y'.repeat(118)}` }, { id: '?', action: '?' }]);
  });

  it('a record stays one write under its bound: steps past it are counted, not named', () => {
    const steps = Array.from({ length: 60 }, (_, i) => ({ id: `id-${i}-${'i'.repeat(70)}`, action: `domain.action_${i}_${'a'.repeat(100)}` }));
    const record = afterRecord({ now: NOW, server: 's', toolInput: { steps }, resultJson: null });
    const line = recordLine(record);
    expect(Buffer.byteLength(line)).toBeLessThan(MAX_RECORD_BYTES);
    const back = parseRecordLine(line)!;
    expect(back.steps.length + back.more_steps!).toBe(60);
  });

  it('reads `duration` as a number of ms, never a negative or non-numeric one', () => {
    expect(afterRecord({ now: NOW, server: 's', toolInput: null, resultJson: null, duration: '15' }).duration_ms).toBe(15);
    expect(afterRecord({ now: NOW, server: 's', toolInput: null, resultJson: null, duration: -1 }).duration_ms).toBeUndefined();
    expect(afterRecord({ now: NOW, server: 's', toolInput: null, resultJson: null, duration: 'soon' }).duration_ms).toBeUndefined();
  });

  it('the result alone says whether the call failed', () => {
    expect(readCallResult({ isError: true }).error).toBe(true);
    expect(readCallResult(callResult({ ok: true, results: [{ id: 'a', ok: true }] }, false)).error).toBe(false);
    expect(readCallResult({ error: 'transport closed' }).error).toBe(true);
  });
});

describe('the pre record and the records read back', () => {
  it('a deny keeps the actions and the kinds of reason, never the parameters', () => {
    const record = preRecord({ now: NOW, server: 'user-agentstack', toolInput: JSON.stringify(twoSteps), decision: 'deny', reasons: ['rule:deny-actions', 'rule:deny-actions'] });
    expect(record).toEqual({ v: 1, at: '2026-09-01T12:00:00.000Z', hook: 'pre', server: 'user-agentstack', steps: [{ id: 'a', action: 'projects.list' }, { id: 'b', action: 'data.write' }], decision: 'deny', reasons: ['rule:deny-actions'] });
    expect(recordLine(record)).not.toContain(PLANTED[0]);
    expect(preRecord({ now: NOW, server: 's', toolInput: null, decision: 'ask', reasons: [] }).reasons).toEqual(['unknown']);
  });

  it('a line that is not a record is refused, field by field', () => {
    const good = JSON.parse(recordLine(preRecord({ now: NOW, server: 's', toolInput: twoSteps, decision: 'ask', reasons: ['unapproved_action'] })));
    expect(parseRecordLine(JSON.stringify(good))).not.toBeNull();
    for (const bad of [{ ...good, v: 2 }, { ...good, at: 'yesterday' }, { ...good, decision: 'allow' }, { ...good, steps: [{ id: 'a' }] }, { ...good, hook: 'other' }, { ...good, server: '' }]) {
      expect(parseRecordLine(JSON.stringify(bad))).toBeNull();
    }
    expect(parseRecordLine('{"v":1')).toBeNull();
    expect(parseRecordLine('[]')).toBeNull();
    // A planted line is cleaned as it is read: no hidden character reaches a view.
    const planted = parseRecordLine(JSON.stringify({ ...good, steps: [{ id: '1', action: 'evil\u001b[31m.action' }], conversation_id: 'c\u202e1' }))!;
    expect(planted.steps[0]!.action).toBe('evil[31m.action');
    expect(planted.conversation_id).toBe('c1');
  });
});

describe('which calls the journal records', () => {
  const look = (raw: Record<string, unknown>) => (isJournaledCall(callIdentity(raw)) ? 'record' : 'skip');
  it('decides from the input alone when the server is named, or no server at all', () => {
    expect(look({ tool_name: 'agentstack.execute', mcp_server_name: 'user-agentstack' })).toBe('record');
    expect(look({ tool_name: 'MCP:plugin-agentstack-agentstack:agentstack_execute' })).toBe('record');
    expect(look({ tool_name: 'agentstack.execute' })).toBe('record');
    expect(look({ tool_name: 'agentstack.execute', mcp_server_name: 'user-other' })).toBe('skip');
    expect(look({ tool_name: 'read_file', mcp_server_name: 'user-agentstack' })).toBe('skip');
    expect(look({ tool_name: 'mcp_auth', url: 'https://agentstack.tech/mcp' })).toBe('skip');
  });

  it('our execute tool at any url is recorded, from the input alone: a url the plugin cannot place may still be AgentStack\'s', () => {
    expect(look({ tool_name: 'agentstack.execute', mcp_server_url: 'https://agentstack.tech/mcp' })).toBe('record');
    expect(look({ tool_name: 'agentstack.execute', mcp_server_name: 'mine', url: 'https://agentstack.tech/mcp?x=1' })).toBe('record');
    expect(look({ tool_name: 'agentstack.execute', url: 'https://other.example/mcp' })).toBe('record');
    expect(look({ tool_name: 'user-agentstack-agentstack.execute' })).toBe('record');
    expect(look({ tool_name: 'read_file', url: 'https://agentstack.tech/mcp' })).toBe('skip');
    expect(serverShown(callIdentity({ tool_name: 'agentstack.execute', url: 'https://user:pw@agentstack.tech/mcp?k=v' }))).toBe('agentstack.tech');
  });

  it('the journal is on unless AGENTSTACK_JOURNAL (or the setting standing for it) says off', () => {
    expect(journalOn({})).toBe(true);
    expect(journalOn({ AGENTSTACK_JOURNAL: ' OFF ' })).toBe(false);
    expect(journalOn({ AGENTSTACK_JOURNAL: 'on' })).toBe(true);
  });
});

describe('what the records say', () => {
  const ran = afterRecord({ now: NOW, server: 's', toolInput: twoSteps, resultJson: callResult(oneFailed, true) });
  const fine = afterRecord({ now: NOW + 1_000, server: 's', toolInput: { steps: [{ id: '1', action: 'system.ping' }] }, resultJson: callResult({ ok: true, results: [{ id: '1', ok: true }] }, false) });
  const denied = preRecord({ now: NOW - 1_000, server: 's', toolInput: { steps: [{ id: '1', action: 'projects.delete' }] }, decision: 'deny', reasons: ['rule:deny-actions'] });
  const asked = preRecord({ now: NOW, server: 's', toolInput: { steps: [{ id: '1', action: 'data.write' }] }, decision: 'ask', reasons: ['unapproved_action', 'rule:ask-actions'] });

  it('a failure is a call that failed or was denied; an ask is not', () => {
    expect([ran, fine, denied, asked].map(isFailure)).toEqual([true, false, true, false]);
    expect(failedSteps(ran)).toEqual(['data.write missing_capability']);
    expect(stoppedBy(asked.reasons)).toBe('your rules (ask-actions) and the plugin (unapproved_action)');
    expect(stoppedBy(['rules_unreadable'])).toBe('your rules (unreadable)');
  });

  it('counts name no action but the failing ones', () => {
    const counts = journalCounts([ran, fine, denied, asked]);
    expect(counts).toEqual({
      calls: 2, failed: 1, denied: 1, asked: 1, since: denied.at, until: fine.at,
      failing: [{ action: 'data.write', outcome: 'missing_capability', count: 1 }],
    });
  });
});
