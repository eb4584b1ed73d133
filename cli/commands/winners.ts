import { CommanderError, type Command } from 'commander';
import type { Services } from '../../src/services';
import type { Winner } from '../../src/shared/api/admin-history';
import { parseId } from '../../src/shared/validation';
import { brasilia, printRows } from '../output';

/**
 * `winners list | show | set-prize | redeem`: the winners of drawn draws and their
 * prizes, through the same service as the admin console (src/results/winners.ts). Usage errors
 * (a missing option, a draw id that is not a whole number) exit 2; other errors exit 1.
 */
export function registerWinnersCommands(program: Command, getServices: () => Services) {
  const winners = program.command('winners').description('vencedores dos sorteios realizados e seus prêmios');
  // Set before the subcommands are added: they inherit it. Commander's own usage errors exit 2.
  winners.exitOverride((err) => {
    throw err.exitCode === 0 ? err : new CommanderError(2, err.code, err.message);
  });
  const usage = (cmd: Command, message: string): never => cmd.error(`erro: ${message}`, { exitCode: 2, code: 'cotaverde.usage' });
  const drawIdOf = (cmd: Command, v: string) => parseId(v) ?? usage(cmd, 'o id do sorteio deve ser um número inteiro decimal (ex.: 42)');
  const actor = { userId: null, via: 'cli' as const };

  const line = (w: Winner) =>
    `sorteio #${w.draw_id} (${w.title}) concurso ${w.contest_number ?? '-'}: número ${String(w.winner_number).padStart(2, '0')} de ${w.winner_name} <${w.winner_email}>` +
    ` — ${w.status}, há ${w.days_since} ${w.days_since === 1 ? 'dia' : 'dias'}`;
  const details = (w: Winner) =>
    [
      line(w),
      `realizado em: ${brasilia(w.realized_at)}`,
      `telefone: ${w.winner_phone ?? '-'}`,
      `produto: ${w.product_name ?? '(não informado)'}`,
      `link: ${w.product_link ?? '(não informado)'}`,
    ].join('\n') + '\n';

  winners
    .command('list')
    .description('lista os vencedores (mais recentes primeiro)')
    .option('--search <texto>', 'nome ou e-mail do vencedor, título, número do sorteio ou do concurso')
    .option('--redeemed', 'só os prêmios resgatados')
    .option('--not-redeemed', 'só os prêmios não resgatados')
    .option('--no-winner', 'lista os sorteios realizados sem vencedor (nenhum número sorteado foi vendido)')
    .option('--limit <n>', 'quantidade (1-200)', '50')
    .option('--offset <n>', 'deslocamento', '0')
    .option('--json', 'saída em JSON')
    .action(
      async (
        o: { search?: string; redeemed?: boolean; notRedeemed?: boolean; winner?: boolean; limit: string; offset: string; json?: boolean },
        cmd: Command,
      ) => {
        if (o.redeemed && o.notRedeemed) usage(cmd, 'use --redeemed ou --not-redeemed, não os dois');
        if (!/^\d+$/.test(o.limit) || !/^\d+$/.test(o.offset)) usage(cmd, '--limit e --offset devem ser números inteiros');
        if (o.winner === false) {
          if (o.redeemed || o.notRedeemed || o.search) usage(cmd, '--no-winner não combina com --redeemed, --not-redeemed ou --search');
          const page = await getServices().winners.listNoWinner({ limit: o.limit, offset: o.offset });
          if (o.json) process.stdout.write(JSON.stringify(page, null, 2) + '\n');
          else {
            printRows(page.items as unknown as Array<Record<string, unknown>>, false, [
              'draw_id',
              'title',
              'contest_number',
              'realized_at',
              'status',
            ]);
            if (page.hasMore) process.stdout.write(`(há mais: use --offset ${page.offset + page.limit})\n`);
          }
          return;
        }
        const page = await getServices().winners.list({
          search: o.search,
          limit: o.limit,
          offset: o.offset,
          redeemed: o.redeemed ? '1' : o.notRedeemed ? '0' : undefined,
        });
        if (o.json) {
          // The CLI's lists print {items, hasMore, limit, offset} (the HTTP answer names the list `winners`).
          const { winners, ...rest } = page;
          process.stdout.write(JSON.stringify({ items: winners, ...rest }, null, 2) + '\n');
          return;
        }
        printRows(
          page.winners.map((w) => ({ ...w, winner_number: String(w.winner_number).padStart(2, '0') })),
          false,
          [
            'draw_id',
            'contest_number',
            'winner_name',
            'winner_email',
            'winner_number',
            'realized_at',
            'days_since',
            'status',
            'product_name',
            'product_link',
          ],
        );
        if (page.hasMore) process.stdout.write(`(há mais: use --offset ${page.offset + page.limit})\n`);
      },
    );

  winners
    .command('show')
    .description('mostra o vencedor e o prêmio de um sorteio')
    .argument('<drawId>', 'id do sorteio')
    .option('--json', 'saída em JSON')
    .action(async (id: string, o: { json?: boolean }, cmd: Command) => {
      const drawId = drawIdOf(cmd, id);
      // A draw decided with no winner reads so (RULES W2), never as "not yet decided".
      const none = await getServices().winners.noWinner(drawId);
      if (none) {
        process.stdout.write(
          o.json
            ? JSON.stringify(none, null, 2) + '\n'
            : `sorteio #${none.draw_id} (${none.title}) concurso ${none.contest_number ?? '-'}: SEM VENCEDOR — nenhum número sorteado foi vendido\nrealizado em: ${none.realized_at}\n`,
        );
        return;
      }
      const w = await getServices().winners.get(drawId);
      process.stdout.write(o.json ? JSON.stringify(w, null, 2) + '\n' : details(w));
    });

  winners
    .command('set-prize')
    .description('registra o prêmio do vencedor (nome do produto e link http/https)')
    .argument('<drawId>', 'id do sorteio')
    .requiredOption('--name <texto>', 'nome do produto')
    .requiredOption('--link <url>', 'link do produto (http:// ou https://)')
    .option('--json', 'saída em JSON')
    .action(async (id: string, o: { name: string; link: string; json?: boolean }, cmd: Command) => {
      const w = await getServices().winners.updatePrize(actor, drawIdOf(cmd, id), { product_name: o.name, product_link: o.link });
      process.stdout.write(o.json ? JSON.stringify(w, null, 2) + '\n' : details(w));
    });

  winners
    .command('redeem')
    .description('marca o prêmio como RESGATADO (--undo: NÃO RESGATADO)')
    .argument('<drawId>', 'id do sorteio')
    .option('--undo', 'desfaz: marca como não resgatado')
    .option('--json', 'saída em JSON')
    .action(async (id: string, o: { undo?: boolean; json?: boolean }, cmd: Command) => {
      const w = await getServices().winners.updatePrize(actor, drawIdOf(cmd, id), { redeemed: !o.undo });
      process.stdout.write(o.json ? JSON.stringify(w, null, 2) + '\n' : `sorteio #${w.draw_id}: ${w.status}\n`);
    });
}
