/* eslint-disable @typescript-eslint/no-require-imports */
import { CommanderError } from 'commander';
import type { Services } from '../src/services';
import { isDomainError } from '../src/platform/errors';
import { createPtProgram } from './portuguese';
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

/**
 * `cotaverde` — the operators' CLI. Every command calls the same module
 * services as the HTTP routes and jobs; none holds business rules.
 *
 * Start-up cost: this file and cli/commands/* import only commander and small pure modules at
 * the top; the services (database, Redis, BullMQ, the mailer…) are loaded when an action first
 * touches one (createServices, src/services.ts, builds each on first use), so `--help` loads none of them and `draws list` only the database
 * and the draws modules. Keep top-level imports of cli/ cheap (type-only imports are free).
 */
export function buildCli(getServices: () => Services) {
  const program = createPtProgram();
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
  const lazy = getServices ?? (() => (services ??= createServicesFromEnv()));
  const program = buildCli(lazy);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (e) {
    if (e instanceof ExitStatus) return e.code;
    // Commander's own errors (unknown command or option, missing or invalid argument) are usage errors: 2.
    if (e instanceof CommanderError) return e.exitCode === 1 ? 2 : e.exitCode;
    if (e instanceof Error && e.name === 'ConfigError') process.stderr.write(`${e.message}\n`);
    else if (e instanceof (await import('zod')).ZodError)
      process.stderr.write(`erro: ${e.issues.map((i) => `${i.path.join('.') || 'valor'}: ${i.message}`).join('; ')}\n`);
    else if (isDomainError(e)) process.stderr.write(`erro (${e.code}): ${e.message}\n`);
    else process.stderr.write(`erro: ${(e as Error).message}\n`);
    return 1;
  } finally {
    if (services) await (services as Services).close();
  }
}

/** The CLI's services from the environment (npm start's local stack outside production): the one composition root, src/services.ts, which builds each service on first use. */
function createServicesFromEnv(): Services {
  require('../src/platform/validation'); // zod's Portuguese messages, before any schema is used
  const { loadConfig } = require('../src/platform/config') as typeof import('../src/platform/config');
  const { withLocalStackDefaults } = require('../src/platform/local-stack') as typeof import('../src/platform/local-stack');
  const { createServices } = require('../src/services') as typeof import('../src/services');
  const config = loadConfig(withLocalStackDefaults(process.env));
  return createServices({
    config,
    // stdout is the command's answer (one JSON document with --json); logs go to stderr, written
    // synchronously so that none is lost when the CLI exits.
    logger: () => {
      const { createLogger } = require('../src/platform/logger') as typeof import('../src/platform/logger');
      const { destination } = require('pino') as typeof import('pino');
      return createLogger({ level: config.logLevel, name: 'cotaverde-cli', destination: destination({ dest: 2, sync: true }) });
    },
  });
}

// `npm run cli -- …` runs this file with tsx; the `cotaverde` bin (cli/bin.cjs) calls runCli itself.
if (require.main === module) {
  void runCli(process.argv.slice(2)).then((code) => process.exit(code));
}
