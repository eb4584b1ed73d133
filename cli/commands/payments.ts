import type { Command } from 'commander';
import type { Services } from '../../src/services';
import { printRows } from '../output';
import { parseId } from '../../src/shared/validation';

export function registerPaymentsCommands(program: Command, getServices: () => Services) {
  const payments = program.command('payments').description('pagamentos');
  payments
    .command('approve')
    .description(
      'sandbox: aprova o PIX como se o banco tivesse confirmado; qualquer provedor: consulta o pagamento agora (mesmo expirado ou cancelado) e aplica o que ele disser',
    )
    .argument('<id>', 'id do pagamento')
    .option('--json', 'saída em JSON')
    .action(async (id: string, o: { json?: boolean }) => {
      const paymentId = parseId(id); // the one id rule of the API (DESIGN §10)
      if (paymentId === null) throw new Error('o id do pagamento deve ser um número inteiro decimal (ex.: 42)');
      const { payment: p, approvedAtBank } = await getServices().payments.approve(paymentId, { via: 'cli' });
      if (o.json) printRows([{ id: p.id, status: p.status, approved_at_bank: approvedAtBank, flagged_for_review: p.flagged_for_review }], true);
      else process.stdout.write(`pagamento #${p.id}: ${p.status}${p.flagged_for_review ? ` (em análise: ${p.review_reason ?? ''})` : ''}\n`);
    });
  payments
    .command('list')
    .description('lista pagamentos (mais recentes primeiro)')
    .option('--status <status>', 'pending | approved | rejected | cancelled | expired | refunded | charged_back')
    .option('--flagged', 'só os marcados para análise (com o motivo)')
    .option('--limit <n>', 'quantidade', (v) => Number.parseInt(v, 10), 20)
    .option('--json', 'saída em JSON')
    .action(async (o: { status?: string; flagged?: boolean; limit: number; json?: boolean }) => {
      const statuses = ['pending', 'approved', 'rejected', 'cancelled', 'expired', 'refunded', 'charged_back'];
      if (o.status && !statuses.includes(o.status)) throw new Error(`--status deve ser um de: ${statuses.join(', ')}`);
      if (!Number.isInteger(o.limit) || o.limit < 1 || o.limit > 1000) throw new Error('--limit deve ser um inteiro entre 1 e 1000');
      const rows = await getServices().payments.listForOperators({ status: o.status, flagged: !!o.flagged, limit: o.limit });
      printRows(rows, !!o.json);
    });
}
