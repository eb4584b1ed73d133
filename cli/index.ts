import { Command, CommanderError } from 'commander';
import { ZodError } from 'zod';
import { createServices, type Services } from '../src/services';
import { ConfigError, loadConfig } from '../src/platform/config';
import { withLocalStackDefaults } from '../src/platform/local-stack';
import { isDomainError } from '../src/platform/errors';
import { registerDbCommands } from './commands/db';
import { registerUsersCommands } from './commands/users';
import { registerVouchersCommands } from './commands/vouchers';
import { registerPaymentsCommands } from './commands/payments';
import { registerMailCommands } from './commands/mail';
import { registerCouponsCommands } from './commands/coupons';
import { registerWinnersCommands } from './commands/winners';
import { registerDrawsCommands } from './commands/draws';
import { registerResultsCommands } from './commands/results';
import { registerQueuesCommands } from './commands/queues';
import { registerAutopayCommands } from './commands/autopay';
import { registerAuditCommands } from './commands/audit';
import { ExitStatus } from './commands/usage';
import pino from 'pino';
import { createLogger } from '../src/platform/logger';

/**
 * `cotaverde` — the operators' CLI. Every command calls the same module
 * services as the HTTP routes and jobs; none holds business rules.
 */
export function buildCli(getServices: () => Services) {
  const program = new Command();
  program.name('cotaverde').description('Cota Verde: comandos de operação').showHelpAfterError().exitOverride();

  // One file per command group under cli/commands; each only calls services.
  registerDbCommands(program, getServices);
  registerUsersCommands(program, getServices);
  registerVouchersCommands(program, getServices);
  registerPaymentsCommands(program, getServices);
  registerMailCommands(program, getServices);
  registerCouponsCommands(program, getServices);
  registerWinnersCommands(program, getServices);
  registerDrawsCommands(program, getServices);
  registerResultsCommands(program, getServices);
  registerQueuesCommands(program, getServices);
  registerAutopayCommands(program, getServices);
  registerAuditCommands(program, getServices);

  return program;
}

/** Runs the CLI; returns the exit code (used by tests too). */
export async function runCli(argv: string[], getServices?: () => Services): Promise<number> {
  let services: Services | null = null;
  const lazy =
    getServices ??
    (() => {
      if (services) return services;
      const config = loadConfig(withLocalStackDefaults(process.env));
      // stdout is the command's answer (one JSON document with --json); logs go to stderr, written
      // synchronously so that none is lost when the CLI exits.
      const logger = createLogger({ level: config.logLevel, name: 'cotaverde-cli', destination: pino.destination({ dest: 2, sync: true }) });
      return (services = createServices({ config, logger }));
    });
  const program = buildCli(lazy);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (e) {
    if (e instanceof ExitStatus) return e.code;
    // Commander's own errors (unknown command or option, missing or invalid argument) are usage errors: 2.
    if (e instanceof CommanderError) return e.exitCode === 1 ? 2 : e.exitCode;
    if (e instanceof ConfigError) process.stderr.write(`${e.message}\n`);
    else if (e instanceof ZodError) process.stderr.write(`erro: ${e.issues.map((i) => `${i.path.join('.') || 'valor'}: ${i.message}`).join('; ')}\n`);
    else if (isDomainError(e)) process.stderr.write(`erro (${e.code}): ${e.message}\n`);
    else process.stderr.write(`erro: ${(e as Error).message}\n`);
    return 1;
  } finally {
    if (services) await (services as Services).close();
  }
}

if (require.main === module || process.argv[1]?.endsWith('bin.cjs')) {
  void runCli(process.argv.slice(2)).then((code) => process.exit(code));
}
