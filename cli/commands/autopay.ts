import type { Command } from 'commander';
import type { Services } from '../../src/services';
import { brasilia, printRows } from '../output';
import { parseId } from '../../src/shared/validation';
import { countOf } from '../../src/shared/plural';

const STATUSES = ['held', 'charging', 'approved', 'failed', 'released', 'skipped', 'provider_refused'];

/** `autopay runs [--draw <id>]` and `autopay run <drawId>` (RULES A1-A6): only call the autopay service. */
export function registerAutopayCommands(program: Command, getServices: () => Services) {
  const autopay = program.command('autopay').description('compra automática (números cativos)');
  autopay
    .command('runs')
    .description('lista as execuções da compra automática (por sorteio, mais recentes primeiro)')
    .option('--draw <id>', 'só as deste sorteio')
    .option('--status <status>', STATUSES.join(' | '))
    .option('--limit <n>', 'quantidade', (v) => Number.parseInt(v, 10), 100)
    .option('--json', 'saída em JSON')
    .action(async (o: { draw?: string; status?: string; limit: number; json?: boolean }) => {
      let drawId: number | undefined;
      if (o.draw !== undefined) {
        const id = parseId(o.draw);
        if (id === null) throw new Error('--draw deve ser o id do sorteio (inteiro decimal, ex.: 42)');
        drawId = id;
      }
      if (o.status && !STATUSES.includes(o.status)) throw new Error(`--status deve ser um de: ${STATUSES.join(', ')}`);
      if (!Number.isInteger(o.limit) || o.limit < 1 || o.limit > 500) throw new Error('--limit deve ser um inteiro entre 1 e 500');
      const page = await getServices().autopay.listRuns({ draw_id: drawId, status: o.status, limit: o.limit });
      if (o.json) return printRows(page.items as unknown as Array<Record<string, unknown>>, true);
      printRows(
        page.items.map((r) => ({
          run: r.id,
          draw: r.draw_id,
          user: `${r.user_id} ${r.user_email}`,
          status: r.status,
          numbers: r.numbers.map((n) => String(n).padStart(2, '0')).join(' '),
          amount_cents: r.amount_cents ?? '',
          attempts: r.attempts,
          payment: r.payment_id ?? '',
          provider_status: r.provider_status ?? '',
          error: r.error ?? '',
        })),
        false,
      );
      if (page.hasMore) process.stdout.write(`(há mais; use --limit)\n`);
    });
  autopay
    .command('run')
    .description('cobra agora o que ainda está pendente no sorteio (nunca cobra duas vezes a mesma execução)')
    .argument('<drawId>', 'id do sorteio')
    .option('--json', 'saída em JSON')
    .action(async (raw: string, o: { json?: boolean }) => {
      const drawId = parseId(raw);
      if (drawId === null) throw new Error('o id do sorteio deve ser um número inteiro decimal (ex.: 42)');
      const s = await getServices().autopay.runDraw(drawId);
      if (o.json)
        return printRows(
          [{ draw_id: s.drawId, processed: s.processed, pending: s.pending, next_attempt_at: s.nextAttemptAt, ...s.byStatus }],
          true,
        );
      const counts =
        Object.entries(s.byStatus)
          .map(([k, v]) => `${k}: ${v}`)
          .join(', ') || 'nenhuma execução';
      process.stdout.write(
        `sorteio #${s.drawId}: ${countOf(s.processed, 'processada', 'processadas')}; ${counts}${s.pending ? `; ${countOf(s.pending, 'pendente', 'pendentes')}, próxima tentativa ${s.nextAttemptAt ? brasilia(s.nextAttemptAt) : 'agora'}` : ''}\n`,
      );
    });
}
