import type { Command } from 'commander';
import type { Services } from '../../src/services';
import type { DecidedDraw, RecordOutcome } from '../../src/shared/api/results';
import { WALK_REASON_TEXT } from '../../src/results/winner-rule';
import type { FetchReport } from '../../src/results/service';
import { brasilia, printRows } from '../output';
import { positiveInt, usageError, usageExitCode2 } from './usage';

/**
 * `cotaverde results …`: record, correct, fetch and show Lotomania results. The
 * server computes every winner (RULES W4); a winner is never typed in.
 */
const CLI = { actorUserId: null, actor: 'cli' as const };
const pad = (n: number) => String(n).padStart(2, '0');

function decidedLines(decided: DecidedDraw[]): string {
  if (!decided.length) return 'nenhum sorteio decidido agora\n';
  return decided
    .map((d) => {
      const passed = d.walk.length ? ` (passou por ${d.walk.map((w) => `${pad(w.n)} ${WALK_REASON_TEXT[w.reason]}`).join(', ')})` : '';
      return d.winning_number === null
        ? `sorteio #${d.draw_id} ${d.title}: sem vencedor${passed}\n`
        : `sorteio #${d.draw_id} ${d.title}: número ${pad(d.winning_number)}, usuário #${d.winner_user_id}${passed}\n`;
    })
    .join('');
}

function printOutcome(o: RecordOutcome, json: boolean, extra: Record<string, unknown> = {}) {
  if (json) {
    process.stdout.write(JSON.stringify({ ...o, ...extra }, null, 2) + '\n');
    return;
  }
  process.stdout.write(
    `concurso ${o.contest_number} (${brasilia(o.drawn_at)}): ${o.numbers.map(pad).join(' ')}${o.created ? ' — registrado' : ' — já registrado com os mesmos números, nada mudou'}\n`,
  );
  process.stdout.write(decidedLines(o.decided));
}

function drawnAtOption(v: string | undefined): Date | undefined {
  if (v === undefined) return undefined;
  const d = new Date(v);
  if (!/^\d{4}-\d{2}-\d{2}/.test(v) || Number.isNaN(d.getTime()))
    usageError(`--drawn-at deve ser uma data-hora ISO 8601 (recebido: ${JSON.stringify(v)})`);
  return d;
}

export function registerResultsCommands(program: Command, getServices: () => Services) {
  const results = usageExitCode2(program.command('results').description('resultados da Lotomania e os sorteios que eles decidem'));

  results
    .command('record')
    .description('registra o resultado de um concurso e decide os sorteios fechados antes dele')
    .requiredOption('--contest <n>', 'número do concurso')
    .requiredOption('--numbers <lista>', 'os 20 números na ordem do sorteio, ex.: "00 64 02 …"')
    .requiredOption(
      '--drawn-at <data-hora>',
      'quando o concurso foi realizado (ISO 8601, ex.: 2026-11-23T23:00:00Z; `results fetch` traz a data oficial)',
    )
    .option('--force', 'registra mesmo fora da ordem dos concursos já registrados (número menor com data posterior)')
    .option('--json', 'saída em JSON')
    .action(async (o: { contest: string; numbers: string; drawnAt: string; force?: boolean; json?: boolean }) => {
      const contest = positiveInt('--contest', o.contest);
      const r = await getServices().results.record(
        { contest_number: contest, numbers: o.numbers, drawn_at: drawnAtOption(o.drawnAt), force: !!o.force },
        { ...CLI, source: 'cli' },
      );
      printOutcome(r, !!o.json);
    });

  results
    .command('correct')
    .description('corrige um resultado registrado: recalcula os sorteios que ele decidiu (auditado com o motivo)')
    .requiredOption('--contest <n>', 'número do concurso')
    .requiredOption('--numbers <lista>', 'os 20 números corretos na ordem do sorteio')
    .requiredOption('--reason <texto>', 'motivo da correção')
    .option('--drawn-at <data-hora>', 'data-hora corrigida do concurso (ISO 8601)')
    .option('--json', 'saída em JSON')
    .action(async (o: { contest: string; numbers: string; reason: string; drawnAt?: string; json?: boolean }) => {
      const contest = positiveInt('--contest', o.contest);
      const r = await getServices().results.correct(
        { contest_number: contest, numbers: o.numbers, reason: o.reason, drawn_at: drawnAtOption(o.drawnAt) },
        CLI,
      );
      if (o.json) return printOutcome(r, true);
      process.stdout.write(`concurso ${r.contest_number} corrigido: ${r.numbers.map(pad).join(' ')}\n`);
      process.stdout.write(
        r.redecided.length ? `recalculados:\n${decidedLines(r.redecided)}` : 'nenhum sorteio realizado por este concurso\n',
      );
      if (r.decided.length) process.stdout.write(`decididos agora:\n${decidedLines(r.decided)}`);
    });

  results
    .command('fetch')
    .description('busca no serviço de resultados: um concurso, ou o que os sorteios fechados aguardam')
    .option('--contest <n>', 'número do concurso (padrão: o que os sorteios fechados aguardam)')
    .option('--json', 'saída em JSON')
    .action(async (o: { contest?: string; json?: boolean }) => {
      const contest = o.contest === undefined ? undefined : positiveInt('--contest', o.contest);
      const r: FetchReport = await getServices().results.fetch(contest === undefined ? {} : { contest }, CLI);
      if (o.json) {
        process.stdout.write(JSON.stringify(r, null, 2) + '\n');
        return;
      }
      if (!r.fetched.length) process.stdout.write('nenhum sorteio fechado aguardando resultado\n');
      for (const f of r.fetched)
        process.stdout.write(
          f.status === 'not_drawn' || f.status === 'no_draw_order'
            ? `${f.message}\n`
            : `concurso ${f.contest_number}: ${f.status === 'stored' ? 'já registrado' : 'obtido do serviço de resultados'}\n`,
        );
      process.stdout.write(decidedLines(r.decided));
      process.stdout.write(`sorteios fechados aguardando resultado: ${r.pending}\n`);
    });

  results
    .command('show')
    .description('mostra um concurso registrado e os sorteios que ele decidiu')
    .argument('<contest>', 'número do concurso')
    .option('--json', 'saída em JSON')
    .action(async (contest: string, o: { json?: boolean }) => {
      const r = await getServices().results.show(positiveInt('<contest>', contest));
      if (o.json) {
        process.stdout.write(JSON.stringify(r, null, 2) + '\n');
        return;
      }
      process.stdout.write(
        `concurso ${r.contest_number} (${brasilia(r.drawn_at)}, fonte: ${r.source})\nnúmeros na ordem do sorteio: ${r.numbers.map(pad).join(' ')}\n`,
      );
      printRows(
        r.draws.map((d) => ({ ...d, winning_number: d.winning_number === null ? 'sem vencedor' : pad(d.winning_number) })),
        false,
        ['draw_id', 'title', 'winning_number', 'winner_initials'],
      );
    });
}
