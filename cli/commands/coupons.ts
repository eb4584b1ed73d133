import { InvalidArgumentError, type Command } from 'commander';
import type { Services } from '../../src/services';
import { brasilia, brl, printRows } from '../output';

/** Store credit (RULES C1-C5): the same rules as /conta's coupon card and the admin registry. */
export function registerCouponsCommands(program: Command, getServices: () => Services) {
  const coupons = program.command('coupons').description('cupons (saldo de crédito)');
  coupons
    .command('show')
    .description('mostra o cupom, o saldo, a validade e os lançamentos de uma conta')
    .argument('<email>', 'e-mail (ou id) da conta')
    .option('--json', 'saída em JSON')
    .action(async (ref: string, o: { json?: boolean }) => {
      const c = await getServices().adminUsers.couponOf(ref);
      if (o.json) {
        printRows([c as unknown as Record<string, unknown>], true);
        return;
      }
      process.stdout.write(
        `usuário #${c.user_id} <${c.email}>\ncupom: ${c.code}\nsaldo: ${brl(c.cents)}${c.valid_until ? ` (válido até ${brasilia(c.valid_until)})` : ''}\n`,
      );
      printRows(
        c.entries.map((e) => ({
          id: e.id,
          kind: e.kind,
          cents: e.cents,
          payment_id: e.payment_id,
          reason: e.reason,
          created_at: e.created_at,
        })),
        false,
        ['id', 'kind', 'cents', 'payment_id', 'reason', 'created_at'],
      );
    });
  coupons
    .command('adjust')
    .description('ajusta o saldo com um lançamento de ajuste no razão (com motivo e auditoria)')
    .argument('<email>', 'e-mail (ou id) da conta')
    .requiredOption('--cents <±n>', 'centavos a somar (negativo para tirar)', (v: string) => {
      if (!/^[+-]?\d{1,9}$/.test(v.trim()))
        throw new InvalidArgumentError('--cents deve ser um número inteiro de centavos (ex.: 500 ou -250).');
      return Number(v);
    })
    .requiredOption('--reason <texto>', 'motivo do ajuste')
    .option('--json', 'saída em JSON')
    .action(async (ref: string, o: { cents: number; reason: string; json?: boolean }) => {
      const r = await getServices().adminUsers.adjustCoupon({ userId: null, via: 'cli' }, ref, { cents: o.cents, reason: o.reason });
      if (o.json) printRows([r], true);
      else
        process.stdout.write(
          `saldo de #${r.user_id} <${r.email}>: ${brl(r.before_cents)} → ${brl(r.after_cents)} (ajuste de ${brl(r.cents)})\n`,
        );
    });
}
