import type { Command } from 'commander';
import type { Services } from '../../src/services';
import { printRows } from '../output';
import { countOf } from '../../src/shared/plural';

export function registerVouchersCommands(program: Command, getServices: () => Services) {
  const vouchers = program.command('vouchers').description('vouchers de e-books');
  vouchers
    .command('grant')
    .description('concede vouchers a um usuário (registrado como pagamento com método admin)')
    .requiredOption('--user <email|id>', 'usuário (e-mail ou id)')
    .requiredOption('--product <sku|id>', 'e-book (SKU ou id)')
    .requiredOption('--quantity <n>', 'quantidade de vouchers')
    .option('--json', 'saída em JSON')
    .action(async (o: { user: string; product: string; quantity: string; json?: boolean }) => {
      const r = await getServices().payments.grantVouchers(o, { via: 'cli' });
      if (o.json) printRows([r], true);
      else
        process.stdout.write(
          `${countOf(r.quantity, 'voucher concedido', 'vouchers concedidos')} ao usuário #${r.userId} no e-book #${r.infoproductId} (pagamento #${r.paymentId}); saldo agora: ${r.balance}\n`,
        );
    });
}
