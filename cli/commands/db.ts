/* eslint-disable @typescript-eslint/no-require-imports */
import type { Command } from 'commander';
import type { Services } from '../../src/services';
import { printRows } from '../output';

export function registerDbCommands(program: Command, getServices: () => Services) {
  const db = program.command('db').description('banco de dados');
  db.command('migrate')
    .description('aplica as migrações pendentes')
    .option('--status', 'só mostra o estado das migrações')
    .option('--json', 'saída em JSON')
    .action(async (o: { status?: boolean; json?: boolean }) => {
      const s = getServices();
      // Loaded here, not at the top: only `db` commands need the migrations (cli/index.ts on start-up cost).
      const { migrateLatest, migrationStatus } = require('../../src/platform/db') as typeof import('../../src/platform/db');
      if (o.status) {
        const st = await migrationStatus(s.db);
        if (o.json) printRows([st], true);
        else process.stdout.write(`aplicadas: ${st.completed.length}\npendentes: ${st.pending.join(', ') || 'nenhuma'}\n`);
        return;
      }
      const done = await migrateLatest(s.db);
      process.stdout.write(done.length ? `aplicadas: ${done.join(', ')}\n` : 'nenhuma migração pendente\n');
    });
  db.command('seed')
    .description('cria os dados de demonstração (idempotente; recusado em produção)')
    .action(async () => {
      const s = getServices();
      if (s.config.isProduction) throw new Error('o seed de demonstração não roda em produção');
      const { seedDemo } = require('../../seeds/demo') as typeof import('../../seeds/demo');
      process.stdout.write(`${await seedDemo(s.db)}\n`);
    });
}
