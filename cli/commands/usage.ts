import { CommanderError, type Command } from 'commander';

/**
 * Usage errors exit 2 (errors go to stderr with exit code 1, 2 for usage; DECISIONS "The operator CLI: language, formats, start-up"): commander's
 * own (missing argument or option, unknown option) are re-thrown with code 2 for the groups that
 * call `usageExitCode2`, and `usageError` reports a malformed option value the same way.
 */
export function usageExitCode2(group: Command): Command {
  return group.exitOverride((err) => {
    if (err.exitCode !== 0) throw new CommanderError(2, err.code, err.message);
    throw err;
  });
}

export function usageError(message: string): never {
  process.stderr.write(`erro de uso: ${message}\n`);
  throw new CommanderError(2, 'cotaverde.usage', message);
}

/** A positive whole number option or argument, or a usage error naming it. */
export function positiveInt(label: string, v: string): number {
  if (!/^\d{1,15}$/.test(v.trim()) || Number(v) < 1)
    usageError(`${label} deve ser um número inteiro positivo (recebido: ${JSON.stringify(v)})`);
  return Number(v);
}

/**
 * A command that ran fine but must end with another exit code (e.g. `audit books` exits 1 when a
 * check fails, after writing its report): runCli returns `code` and prints nothing more.
 */
export class ExitStatus extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
    this.name = 'ExitStatus';
  }
}
