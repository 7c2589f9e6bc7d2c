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
    process.stderr.write(`${spec.name}: ${(error as Error).message}\nRun with --help for usage.\n`);
    process.exit(2);
  }
  if (parsed.values.help) {
    process.stdout.write(`${spec.usage.trim()}\n`);
    process.exit(0);
  }
  return parsed;
}

/** For an entry whose issue has not landed yet: it answers --help with its future usage and refuses to pretend. */
export function notYetImplemented(spec: CommandSpec): never {
  parseCommandLine({ ...spec, allowPositionals: true });
  process.stderr.write(`${spec.name}: not implemented yet in this version; run with --help to see what it will do.\n`);
  process.exit(1);
}
