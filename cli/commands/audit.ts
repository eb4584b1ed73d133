import type { Command } from 'commander';
import type { Services } from '../../src/services';
import { ExitStatus, usageExitCode2 } from './usage';
import { countOf } from '../../src/shared/plural';

/**
 * `audit books [--json]`: checks the books (RULES B1) through the books service and lists the
 * ids that break each rule. Exit 0 when every check holds, 1 otherwise (2 for usage errors).
 * With --json stdout holds exactly one document: `{ok, checks: [{name, ok, count, ids, note?}]}`.
 */
export function registerAuditCommands(program: Command, getServices: () => Services) {
  const group = usageExitCode2(program.command('audit').description('verificações de consistência'));

  usageExitCode2(
    group
      .command('books')
      .description(
        'confere os livros: pagamentos, vouchers, números, reservas, cupons, sorteios e vencedores; sai com 1 se algo não confere',
      )
      .option('--json', 'saída em JSON (um único documento)'),
  ).action(async (o: { json?: boolean }) => {
    const report = await getServices().books.check();
    if (o.json) {
      process.stdout.write(JSON.stringify(report) + '\n');
    } else {
      for (const c of report.checks) {
        const head = `${c.ok ? 'ok    ' : 'FALHOU'}  ${c.name}`;
        const ids = c.count ? `: ${c.count} (ids: ${c.ids.join(', ')}${c.count > c.ids.length ? ', …' : ''})` : '';
        process.stdout.write(`${head}${ids}${c.note ? ` — ${c.note}` : ''}\n`);
      }
      const failed = report.checks.filter((c) => !c.ok).length;
      process.stdout.write(
        report.ok ? 'os livros conferem\n' : `os livros NÃO conferem: ${countOf(failed, 'verificação falhou', 'verificações falharam')}\n`,
      );
    }
    if (!report.ok) throw new ExitStatus(1);
  });
}
