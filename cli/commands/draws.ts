import type { Command } from 'commander';
import type { Services } from '../../src/services';
import { brasilia, brl, printRows } from '../output';
import { positiveInt, usageError, usageExitCode2 } from './usage';

/**
 * `cotaverde draws …`: the admin console's draws service (same rules as the admin API:
 * one open draw per e-book, a sold-out draw is never reopened, `drawn` is final), audited as 'cli'.
 */
const COLUMNS = ['id', 'title', 'status', 'sku', 'total_numbers', 'sold', 'reserved', 'price_cents', 'closed_at', 'winner_number'];

async function productBySku(s: Services, ref: string) {
  const p = await s
    .db('infoproducts')
    .where((w) => {
      w.whereRaw('lower(sku) = lower(?)', [ref]);
      if (/^\d{1,15}$/.test(ref)) w.orWhere({ id: Number(ref) });
    })
    .first('id', 'sku', 'title');
  if (!p) throw new Error(`e-book não encontrado: ${ref}`);
  return p as { id: number; sku: string | null; title: string };
}

export function registerDrawsCommands(program: Command, getServices: () => Services) {
  const draws = usageExitCode2(program.command('draws').description('sorteios (abrir, fechar, reabrir, consultar)'));

  draws
    .command('list')
    .description('lista os sorteios, mais recentes primeiro')
    .option('--status <status>', 'open, closed (os fechados, sorteados ou não) ou sorteado')
    .option('--product <sku>', 'só os sorteios deste e-book (SKU ou id)')
    .option('--limit <n>', 'quantidade (1-200)', '50')
    .option('--offset <n>', 'deslocamento', '0')
    .option('--json', 'saída em JSON')
    .action(async (o: { status?: string; product?: string; limit: string; offset: string; json?: boolean }) => {
      if (o.status !== undefined && !['open', 'closed', 'sorteado', 'drawn'].includes(o.status))
        usageError(`--status deve ser open, closed ou sorteado (recebido: ${o.status})`);
      const limit = positiveInt('--limit', o.limit);
      if (!/^\d+$/.test(o.offset)) usageError('--offset deve ser um inteiro ≥ 0');
      const s = getServices();
      const product = o.product ? await productBySku(s, o.product) : undefined;
      const page = await s.adminDraws.list({ status: o.status, infoproduct_id: product?.id, limit, offset: Number(o.offset) });
      printRows(page.items as unknown as Array<Record<string, unknown>>, !!o.json, COLUMNS);
      if (!o.json && page.hasMore) process.stdout.write(`(há mais: use --offset ${Number(o.offset) + limit})\n`);
    });

  draws
    .command('show')
    .description('mostra um sorteio')
    .argument('<id>', 'id do sorteio')
    .option('--json', 'saída em JSON')
    .action(async (id: string, o: { json?: boolean }) => {
      const s = getServices();
      const d = await s.adminDraws.get(positiveInt('<id>', id));
      const decided = await s.db('draws').where({ id: d.id }).first('contest_number', 'no_winner');
      if (o.json)
        process.stdout.write(
          JSON.stringify({ ...d, contest_number: decided?.contest_number ?? null, no_winner: !!decided?.no_winner }, null, 2) + '\n',
        );
      else {
        const rows: Array<[string, unknown]> = [
          ['id', d.id],
          ['título', d.title],
          ['status', d.status],
          ['e-book', d.ip_title ? `${d.ip_title} (${d.sku ?? d.infoproduct_id})` : '—'],
          ['números', `${d.total_numbers} (vendidos ${d.sold}, reservados ${d.reserved}, livres ${d.available})`],
          ['preço', brl(d.price_cents)],
          ['limite por pessoa', d.max_per_user],
          ['aberto em', d.opened_at ? brasilia(d.opened_at) : '—'],
          ['fechado em', d.closed_at ? brasilia(d.closed_at) : '—'],
          ['realizado em', d.realized_at ? brasilia(d.realized_at) : '—'],
          ['concurso', decided?.contest_number ?? '—'],
          ['número vencedor', d.winner_number ?? (d.status === 'sorteado' ? 'sem vencedor' : '—')],
        ];
        for (const [k, v] of rows) process.stdout.write(`${k.padEnd(18)} ${v instanceof Date ? brasilia(v) : String(v)}\n`);
      }
    });

  draws
    .command('open')
    .description('abre um sorteio novo de um e-book (com o prêmio e a quantidade de números do e-book)')
    .requiredOption('--product <sku>', 'e-book (SKU ou id)')
    .option('--title <texto>', 'título (padrão: o título do e-book)')
    .option('--json', 'saída em JSON')
    .action(async (o: { product: string; title?: string; json?: boolean }) => {
      const s = getServices();
      const p = await productBySku(s, o.product);
      const d = await s.adminDraws.create(null, { title: o.title ?? p.title, infoproduct_id: p.id, status: 'open' });
      if (o.json) process.stdout.write(JSON.stringify(d, null, 2) + '\n');
      else process.stdout.write(`sorteio #${d.id} aberto: ${d.title} (${d.total_numbers} números)\n`);
    });

  for (const [name, status, verb] of [
    ['close', 'closed', 'fechado'],
    ['reopen', 'open', 'reaberto'],
  ] as const) {
    draws
      .command(name)
      .description(
        name === 'close'
          ? 'fecha um sorteio aberto (não aceita mais reservas nem vendas)'
          : 'reabre um sorteio fechado (não um esgotado nem um realizado)',
      )
      .argument('<id>', 'id do sorteio')
      .option('--json', 'saída em JSON')
      .action(async (id: string, o: { json?: boolean }) => {
        const s = getServices();
        const drawId = positiveInt('<id>', id);
        const before = await s.adminDraws.get(drawId);
        const d = await s.adminDraws.setStatus(null, drawId, { status });
        if (o.json) process.stdout.write(JSON.stringify(d, null, 2) + '\n');
        else if (before.status === status)
          process.stdout.write(`sorteio #${d.id} já estava ${status === 'open' ? 'aberto' : 'fechado'}: nada mudou\n`);
        else process.stdout.write(`sorteio #${d.id} ${verb} (status: ${d.status})\n`);
        if (!o.json && d.notice) process.stdout.write(`atenção: ${d.notice}\n`);
      });
  }
}
