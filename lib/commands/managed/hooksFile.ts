/**
 * The organization's entries in Cursor's enterprise hooks file, as surgical edits of its text: every other entry
 * keeps its bytes (formatting, order, comments' absence or presence, numbers as written). Pure.
 *
 * Ours are the entries whose command runs a script of the organization's copy (`scriptsDir`); install puts one in
 * `beforeMCPExecution` (with `failClosed: true`: a crash, a timeout or invalid JSON blocks the call) and one in
 * `afterMCPExecution`, and replaces its own entry in place when it differs; remove takes out only those.
 */
import { applyEdits, findNodeAtLocation, modify, parseTree, type Node } from 'jsonc-parser';
import { editJsonText, formattingOf } from '../../platform/text/jsonEdit.js';

export const GATE_EVENTS = ['beforeMCPExecution', 'afterMCPExecution'] as const;
export type GateEvent = (typeof GATE_EVENTS)[number];

/** What install puts in the file for each event. */
export type GateEntries = Record<GateEvent, { command: string; timeout: number; failClosed?: boolean }>;

/** `createdEvents`: the events' lists (and `hooks` itself) that an add created, which a remove takes out once empty. */
export type HooksEdit = { kind: 'ok'; text: string; changed: boolean; createdEvents: string[] } | { kind: 'refused'; reason: string };

/** Whether an entry (its command) runs one of the copy's scripts. */
export function isOurCommand(command: unknown, scriptsDir: string): boolean {
  return typeof command === 'string' && command.includes(scriptsDir);
}

function eventArray(root: Node, event: GateEvent): Node | undefined {
  return findNodeAtLocation(root, ['hooks', event]);
}

/** The indexes of our entries in an event's array. */
function ourIndexes(array: Node, scriptsDir: string): number[] {
  const out: number[] = [];
  (array.children ?? []).forEach((child, i) => {
    const command = child.type === 'object' ? findNodeAtLocation(child, ['command'])?.value : undefined;
    if (isOurCommand(command, scriptsDir)) out.push(i);
  });
  return out;
}

const sameValue = (text: string, node: Node, value: unknown) => {
  try { return JSON.stringify(JSON.parse(text.slice(node.offset, node.offset + node.length))) === JSON.stringify(value); } catch { return false; }
};

function structureProblem(root: Node | undefined): string | null {
  if (!root || root.type !== 'object') return 'is not a JSON object';
  const hooks = findNodeAtLocation(root, ['hooks']);
  if (hooks && hooks.type !== 'object') return 'has a "hooks" that is not an object';
  for (const event of GATE_EVENTS) {
    const array = eventArray(root, event);
    if (array && array.type !== 'array') return `has a "hooks.${event}" that is not a list`;
  }
  return null;
}

/** The text of a new enterprise hooks file holding only our entries. */
export function newHooksText(entries: GateEntries): string {
  return `${JSON.stringify({ version: 1, hooks: { beforeMCPExecution: [entries.beforeMCPExecution], afterMCPExecution: [entries.afterMCPExecution] } }, null, 2)}\n`;
}

/** Adds (or brings up to date) our entry of each event; `changed` false when the file already says exactly that. */
export function addGateEntries(text: string, entries: GateEntries, scriptsDir: string): HooksEdit {
  const bom = text.charCodeAt(0) === 0xfeff ? '\uFEFF' : '';
  let body = bom ? text.slice(1) : text;
  const problem = structureProblem(parseTree(body));
  if (problem) return { kind: 'refused', reason: problem };
  const created: string[] = findNodeAtLocation(parseTree(body)!, ['hooks']) ? [] : ['hooks'];
  for (const event of GATE_EVENTS) {
    const root = parseTree(body)!;
    const array = eventArray(root, event);
    const value = entries[event];
    if (!array) {
      const edited = editJsonText(body, [{ path: ['hooks', event], value: [value] }]);
      if (edited.kind === 'refused') return edited;
      body = edited.text;
      created.push(event);
      continue;
    }
    const ours = ourIndexes(array, scriptsDir);
    const first = ours[0];
    if (first !== undefined && ours.length === 1 && sameValue(body, array.children![first]!, value)) continue;
    // Ours is replaced in place (a second one of ours, left by hand, is removed); else appended.
    for (const i of ours.slice(1).reverse()) body = removeElement(body, event, i);
    body = first !== undefined ? replaceElement(body, event, first, value) : appendElement(body, event, value);
  }
  const out = bom + body;
  return { kind: 'ok', text: out, changed: out !== text, createdEvents: created };
}

function replaceElement(body: string, event: GateEvent, index: number, value: unknown): string {
  const node = eventArray(parseTree(body)!, event)!.children![index]!;
  const oneLine = !body.slice(node.offset, node.offset + node.length).includes('\n');
  return applyEdits(body, [{ offset: node.offset, length: node.length, content: render(body, node, value, oneLine) }]);
}

function appendElement(body: string, event: GateEvent, value: unknown): string {
  const array = eventArray(parseTree(body)!, event)!;
  const children = array.children ?? [];
  const oneLine = !body.slice(array.offset, array.offset + array.length).includes('\n');
  const eol = formattingOf(body).eol ?? '\n';
  if (!children.length) {
    const outer = lineIndent(body, array.offset);
    const inner = outer + indentUnit(body);
    const content = oneLine ? `[${JSON.stringify(value)}]` : `[${eol}${inner}${renderAt(body, value, inner)}${eol}${outer}]`;
    return applyEdits(body, [{ offset: array.offset, length: array.length, content }]);
  }
  const last = children[children.length - 1]!;
  const indent = lineIndent(body, last.offset);
  const content = oneLine ? `, ${JSON.stringify(value)}` : `,${eol}${indent}${renderAt(body, value, indent)}`;
  return applyEdits(body, [{ offset: last.offset + last.length, length: 0, content }]);
}

/**
 * Takes an element out of an event's list with exactly the text an append put in (the comma and line break before
 * it), so a remove after an install gives back the file's bytes; the first of several goes with what follows it.
 */
function removeElement(body: string, event: GateEvent, index: number): string {
  const array = eventArray(parseTree(body)!, event)!;
  const children = array.children!;
  const node = children[index]!;
  if (index > 0) {
    const prev = children[index - 1]!;
    return body.slice(0, prev.offset + prev.length) + body.slice(node.offset + node.length);
  }
  if (children.length > 1) return body.slice(0, node.offset) + body.slice(children[1]!.offset);
  return body.slice(0, array.offset + 1) + body.slice(array.offset + array.length - 1);
}

const lineIndent = (text: string, offset: number) => /^[ \t]*/.exec(text.slice(text.lastIndexOf('\n', offset - 1) + 1))![0];

function indentUnit(body: string): string {
  const fmt = formattingOf(body);
  return fmt.insertSpaces ? ' '.repeat(fmt.tabSize ?? 2) : '\t';
}

function renderAt(body: string, value: unknown, indent: string): string {
  const eol = formattingOf(body).eol ?? '\n';
  return JSON.stringify(value, null, indentUnit(body)).split('\n').join(eol + indent);
}

function render(body: string, node: Node, value: unknown, oneLine: boolean): string {
  return oneLine ? JSON.stringify(value) : renderAt(body, value, lineIndent(body, node.offset));
}

/**
 * Takes out our entries; an event's list that install created (`createdEvents`) goes too once it is empty. `changed`
 * false when there was nothing of ours.
 */
export function removeGateEntries(text: string, scriptsDir: string, createdEvents: readonly string[] = []): HooksEdit {
  let body = text;
  const root0 = parseTree(body.charCodeAt(0) === 0xfeff ? body.slice(1) : body);
  const problem = structureProblem(root0);
  if (problem) return { kind: 'refused', reason: problem };
  const bom = body.charCodeAt(0) === 0xfeff ? '\uFEFF' : '';
  body = bom ? body.slice(1) : body;
  for (const event of GATE_EVENTS) {
    const array = eventArray(parseTree(body)!, event);
    if (!array) continue;
    const ours = ourIndexes(array, scriptsDir);
    for (const i of ours.reverse()) body = removeElement(body, event, i);
    const after = eventArray(parseTree(body)!, event);
    if (ours.length && after && (after.children ?? []).length === 0 && createdEvents.includes(event)) {
      body = applyEdits(body, modify(body, ['hooks', event], undefined, {}));
    }
  }
  const hooks = findNodeAtLocation(parseTree(body)!, ['hooks']);
  if (hooks && (hooks.children ?? []).length === 0 && createdEvents.includes('hooks')) body = applyEdits(body, modify(body, ['hooks'], undefined, {}));
  const out = bom + body;
  return { kind: 'ok', text: out, changed: out !== text, createdEvents: [] };
}

/** What the file says of our entries: each event's entry of ours (its command and failClosed), or null. */
export function gateEntriesIn(text: string, scriptsDir: string): Record<GateEvent, { command: string; failClosed: boolean } | null> | null {
  const root = parseTree(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  if (structureProblem(root)) return null;
  const out = {} as Record<GateEvent, { command: string; failClosed: boolean } | null>;
  for (const event of GATE_EVENTS) {
    const array = eventArray(root!, event);
    const i = array ? ourIndexes(array, scriptsDir)[0] : undefined;
    const entry = i === undefined ? null : array!.children![i]!;
    out[event] = entry ? { command: String(findNodeAtLocation(entry, ['command'])?.value), failClosed: findNodeAtLocation(entry, ['failClosed'])?.value === true } : null;
  }
  return out;
}
