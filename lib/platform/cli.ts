/** Argument parsing shared by the entry scripts: node:util parseArgs, usage errors exit 2 with a one-line hint. */
import { parseArgs, type ParseArgsConfig } from 'node:util';

export interface CommandSpec {
  name: string;
  usage: string;
  options: NonNullable<ParseArgsConfig['options']>;
  allowPositionals?: boolean;
}

export type ParsedCommand = { values: Record<string, string | boolean | string[] | boolean[] | undefined>; positionals: string[] };

/** Parses argv; prints usage and exits 0 on --help, prints the error and exits 2 on bad usage. */
export function parseCommandLine(spec: CommandSpec, argv: string[] = process.argv.slice(2)): ParsedCommand {
  let parsed: ParsedCommand;
  try {
    parsed = parseArgs({
      args: argv,
      options: { help: { type: 'boolean', short: 'h' }, ...spec.options },
      allowPositionals: spec.allowPositionals ?? false,
      strict: true,
    }) as ParsedCommand;
  } catch (error) {
    usageError(spec.name, (error as Error).message);
  }
  if (parsed.values.help) {
    process.stdout.write(`${spec.usage.trim()}\n`);
    process.exit(0);
  }
  return parsed;
}

/** Bad usage: one line naming the problem and the hint, on stderr; exit 2. */
export function usageError(name: string, message: string): never {
  process.stderr.write(`${name}: ${message}\nRun with --help for usage.\n`);
  process.exit(2);
}

/** A PluginError that stops a command before it could run (an unusable setting): its one line on stderr, exit 1. */
export function exitOnPluginError(name: string): (error: unknown) => never {
  return (error) => {
    if (!(error instanceof Error) || !('code' in error) || error.name !== 'PluginError') throw error;
    process.stderr.write(`${name}: ${error.message}\n`);
    process.exit(1);
  };
}
