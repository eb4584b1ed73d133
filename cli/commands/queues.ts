import type { Command } from 'commander';
import type { Services } from '../../src/services';
import { printRows } from '../output';
import { countOf, plural } from '../../src/shared/plural';

/** `queues status`, `queues retry <job type> [--failed]`: the BullMQ queue, through the ops service. */
export function registerQueuesCommands(program: Command, getServices: () => Services) {
  const queues = program.command('queues').description('filas de jobs (BullMQ)');

  queues
    .command('status')
    .description('contagem por tipo de job (waiting/active/delayed/failed/completed) e os jobs com falha, com o último erro')
    .option('--limit <n>', 'quantos jobs com falha mostrar', (v) => Number.parseInt(v, 10), 50)
    .option('--json', 'saída em JSON')
    .action(async (o: { limit: number; json?: boolean }) => {
      if (!Number.isInteger(o.limit) || o.limit < 1 || o.limit > 1000) throw new Error('--limit deve ser um inteiro entre 1 e 1000');
      const status = await getServices().ops.queueStatus({ failedLimit: o.limit });
      if (o.json) {
        process.stdout.write(JSON.stringify(status, null, 2) + '\n');
        return;
      }
      printRows(
        status.types.map((r) => ({
          job: r.name,
          waiting: r.waiting,
          active: r.active,
          delayed: r.delayed,
          failed: r.failed,
          completed: r.completed,
        })),
        false,
      );
      process.stdout.write('\n');
      if (!status.failed.length) {
        process.stdout.write('jobs com falha: nenhum\n');
        return;
      }
      process.stdout.write(`jobs com falha (${status.failed.length}):\n`);
      printRows(
        status.failed.map((f) => ({
          id: f.id,
          job: f.name,
          attempts: f.attempts,
          failed_at: f.failed_at,
          error: f.error.replace(/\s+/g, ' '),
        })),
        false,
      );
    });

  queues
    .command('retry')
    .description('roda de novo um tipo de job agora: os que falharam e (sem --failed) os que esperam um novo intervalo')
    .argument('<tipo>', 'tipo de job, p.ex. mail.send (veja `queues status`)')
    .option('--failed', 'só os jobs com falha')
    .option('--json', 'saída em JSON')
    .action(async (name: string, o: { failed?: boolean; json?: boolean }) => {
      const r = await getServices().ops.retry(name, { failedOnly: !!o.failed });
      if (o.json) printRows([r], true);
      else
        process.stdout.write(
          `${r.name}: ${r.retried} com falha ${plural(r.retried, 'reenfileirado', 'reenfileirados')}${o.failed ? '' : `, ${countOf(r.promoted, 'adiantado', 'adiantados')}`}\n`,
        );
    });
}
