import type { Command } from 'commander';
import type { Services } from '../../src/services';
import { brasilia, printRows } from '../output';
import { OUTBOX_STATUSES, type OutboxStatus } from '../../src/shared/outbox';

export function registerMailCommands(program: Command, getServices: () => Services) {
  const mail = program.command('mail').description('caixa de saída de e-mails');
  mail
    .command('list')
    .description('lista a caixa de saída (mais recentes primeiro)')
    .option('--status <status>', OUTBOX_STATUSES.join(' | '))
    .option('--to <email>', 'filtra pelo destinatário')
    .option('--limit <n>', 'quantidade', (v) => Number.parseInt(v, 10), 20)
    .option('--body', 'inclui o corpo do e-mail (links de uso único nunca ficam guardados)')
    .option('--json', 'saída em JSON')
    .action(async (o: { status?: string; to?: string; limit: number; body?: boolean; json?: boolean }) => {
      if (o.status && !OUTBOX_STATUSES.includes(o.status as OutboxStatus))
        throw new Error('--status deve ser pending, sent, logged, failed ou dropped');
      if (!Number.isInteger(o.limit) || o.limit < 1 || o.limit > 1000) throw new Error('--limit deve ser um inteiro entre 1 e 1000');
      const rows = await getServices().mailer.list({
        status: o.status as OutboxStatus | undefined,
        to: o.to,
        limit: o.limit,
        withBody: o.body || o.json,
      });
      if (o.body && !o.json) {
        // Bodies are multi-line: print them whole, not as a table cell.
        if (!rows.length) process.stdout.write('(nenhum registro)\n');
        for (const r of rows) {
          process.stdout.write(`#${r.id}  ${r.to}  ${r.status}  ${brasilia(r.created_at)}\n${r.subject}\n\n${r.body}\n${'-'.repeat(60)}\n`);
        }
        return;
      }
      printRows(rows, !!o.json, ['id', 'to', 'subject', 'status', 'created_at']);
    });
}
