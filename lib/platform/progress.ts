/**
 * One-line progress notes for a person at a terminal, on stderr. Silent under --json and whenever stderr is not a
 * terminal (a hook, a pipe, a log file), so no machine reader ever sees one.
 */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

export function progressNotes(options: { json?: boolean; stream?: ProgressStream } = {}): (line: string) => void {
  const stream = options.stream ?? process.stderr;
  if (options.json || !stream.isTTY) return () => {};
  return (line) => { stream.write(`${line}\n`); };
}
