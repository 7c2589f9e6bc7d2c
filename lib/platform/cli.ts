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
      args: joinNegativeValues(argv, spec.options),
      options: { help: { type: 'boolean', short: 'h' }, ...spec.options },
      allowPositionals: spec.allowPositionals ?? false,
      strict: true,
    }) as ParsedCommand;
  } catch (error) {
    usageError(spec.name, parseArgsMessage(error as Error & { code?: string }));
  }
  if (parsed.values.help) {
    process.stdout.write(`${spec.usage.trim()}\n`);
    process.exit(0);
  }
  return parsed;
}

/**
 * `--limit -3`: parseArgs reads a value that starts with a dash as a missing one; a negative number after an option
 * that takes a value is that value (`--limit=-3`), so the option's own check judges it.
 */
export function joinNegativeValues(argv: readonly string[], options: CommandSpec['options']): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (arg === '--') return [...out, ...argv.slice(i)];
    const name = /^--([^=]+)$/.exec(arg)?.[1];
    const next = argv[i + 1];
    if (name && options[name]?.type === 'string' && next !== undefined && /^-\d+(\.\d+)?$/.test(next)) {
      out.push(`${arg}=${next}`);
      i += 1;
    } else out.push(arg);
  }
  return out;
}

/**
 * parseArgs' messages in our own words: they quote with unbalanced quotes and, where positionals are allowed, add
 * advice about `--` that reads as an error of its own.
 */
export function parseArgsMessage(error: Error & { code?: string }): string {
  const quoted = /'([^']*)'/.exec(error.message)?.[1];
  const name = quoted?.replace(/ <value>$/, '');
  if (name !== undefined) {
    if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `unknown option ${name}`;
    if (error.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') return `unexpected argument ${JSON.stringify(name)}`;
    if (error.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
      // "argument is ambiguous": the option takes a value and the next word is another option.
      return /<value>/.test(quoted!) || /ambiguous/.test(error.message) ? `${name} needs a value` : `${name} takes no value`;
    }
  }
  return error.message.split('. ')[0]!.replace(/\.$/, '');
}

/**
 * Bad usage: one line naming the problem and the hint, on stderr; exit 2. Asked for `--json`, stdout also carries one
 * JSON error object, so a program reading stdout learns why there is no report.
 */
export function usageError(name: string, message: string, argv: readonly string[] = process.argv): never {
  if (argv.includes('--json')) process.stdout.write(`${JSON.stringify({ error: 'usage', message })}\n`);
  process.stderr.write(`${name}: ${message}\nRun with --help for usage.\n`);
  process.exit(2);
}

/**
 * A PluginError that stops a command before it could run (an unusable setting): its one line on stderr, exit 1; asked
 * for `--json`, stdout also carries one JSON error object with the error's code, as for bad usage.
 */
export function exitOnPluginError(name: string, argv: readonly string[] = process.argv): (error: unknown) => never {
  return (error) => {
    if (!(error instanceof Error) || !('code' in error) || error.name !== 'PluginError') throw error;
    if (argv.includes('--json')) process.stdout.write(`${JSON.stringify({ error: String(error.code), message: error.message })}\n`);
    process.stderr.write(`${name}: ${error.message}\n`);
    process.exit(1);
  };
}
