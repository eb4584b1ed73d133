/* eslint-disable @typescript-eslint/no-require-imports */
import type { Command } from 'commander';
import type { Services } from '../../src/services';
import { printRows } from '../output';
import { ExitStatus, usageExitCode2 } from './usage';
import { countOf } from '../../src/shared/plural';

export function registerDbCommands(program: Command, getServices: () => Services) {
  const db = usageExitCode2(program.command('db').description('banco de dados'));
  db.command('migrate')
    .description('aplica as migrações pendentes')
    .option('--status', 'só mostra o estado das migrações')
    .option('--json', 'saída em JSON')
    .action(async (o: { status?: boolean; json?: boolean }) => {
      const s = getServices();
      // Loaded here, not at the top: only `db` commands need the migrations (cli/index.ts on start-up cost).
      const { migrateLatest, migrationStatus } = require('../../src/platform/db') as typeof import('../../src/platform/db');
      if (o.status) {
        const st = await migrationStatus(s.db);
        if (o.json) printRows([st], true);
        else process.stdout.write(`aplicadas: ${st.completed.length}\npendentes: ${st.pending.join(', ') || 'nenhuma'}\n`);
        return;
      }
      const done = await migrateLatest(s.db);
      process.stdout.write(done.length ? `aplicadas: ${done.join(', ')}\n` : 'nenhuma migração pendente\n');
    });
  db.command('seed')
    .description('cria os dados de demonstração num banco vazio (num banco com dados não cria nem altera nada; recusado em produção)')
    .action(async () => {
      const s = getServices();
      if (s.config.isProduction) throw new Error('o seed de demonstração não roda em produção');
      const { seedDemo } = require('../../seeds/demo') as typeof import('../../seeds/demo');
      process.stdout.write(`${await seedDemo(s.db)}\n`);
    });

  usageExitCode2(
    db
      .command('backup')
      .description(
        'grava um backup consistente do banco inteiro (todas as tabelas num mesmo instante, com manifesto e checksum), mesmo com a loja vendendo',
      )
      .option('--out <arquivo>', 'onde gravar (padrão: BACKUP_DIR/cotaverde-AAAAMMDD-HHMMSS.cvbak)')
      .option('--json', 'saída em JSON (um único documento)'),
  ).action(async (o: { out?: string; json?: boolean }) => {
    const s = getServices();
    const path = require('node:path') as typeof import('node:path');
    const { backupFileName } = require('../../src/ops/backup') as typeof import('../../src/ops/backup');
    const out = o.out ?? path.join(s.config.backup.dir ?? process.cwd(), backupFileName(new Date()));
    const { file, bytes, manifest } = await s.backups.take({ out, kind: 'manual' });
    const rows = manifest.tables.reduce((n, t) => n + t.rows, 0);
    const failed = manifest.books.checks.filter((c) => !c.ok).length;
    if (o.json) {
      process.stdout.write(
        `${JSON.stringify({ file, bytes, createdAt: manifest.createdAt, version: manifest.product.version, migration: manifest.migrations.at(-1), tables: manifest.tables.length, rows, booksOk: manifest.books.ok, sha256: manifest.checksum.value })}\n`,
      );
      return;
    }
    process.stdout.write(
      [
        `backup gravado: ${file} (${(bytes / 1024).toFixed(1)} KiB)`,
        `  Cota Verde ${manifest.product.version}, nível de migração ${manifest.migrations.at(-1)} (${manifest.migrations.length} migrações)`,
        `  ${manifest.tables.length} tabelas, ${rows} linhas, no instante ${manifest.createdAt}`,
        `  livros nesse instante: ${manifest.books.ok ? 'conferem' : `NÃO conferem (${countOf(failed, 'verificação falhou', 'verificações falharam')})`}`,
        `  sha256 dos dados: ${manifest.checksum.value}`,
        '',
      ].join('\n'),
    );
  });

  usageExitCode2(
    db
      .command('restore')
      .description(
        'restaura um backup num banco vazio (ou substitui um banco com --force), migra até o nível do código e confere os livros',
      )
      .argument('<arquivo>', 'o arquivo gravado por `db backup`')
      .option('--into <DATABASE_URL>', 'o banco de destino (padrão: o DATABASE_URL desta instalação)')
      .option('--force', 'apaga o que houver no banco de destino antes de restaurar'),
  ).action(async (file: string, o: { into?: string; force?: boolean }) => {
    const s = getServices();
    const { restoreBackup } = require('../../src/ops/restore') as typeof import('../../src/ops/restore');
    const say = (m: string) => process.stdout.write(`${m}\n`);
    const r = await restoreBackup({ file, targetUrl: o.into ?? s.config.databaseUrl, force: !!o.force, logger: s.logger, say });
    for (const c of r.books.checks) {
      const ids = c.count ? `: ${c.count} (ids: ${c.ids.join(', ')}${c.count > c.ids.length ? ', …' : ''})` : '';
      say(`${c.ok ? 'ok    ' : 'FALHOU'}  ${c.name}${ids}${c.note ? ` — ${c.note}` : ''}`);
    }
    if (r.balanceMismatches.length) say(`saldos que NÃO conferem com o manifesto: ${r.balanceMismatches.join(', ')}`);
    else say('saldos conferem com o manifesto.');
    const failed = r.books.checks.filter((c) => !c.ok).length;
    say(r.books.ok ? 'os livros conferem' : `os livros NÃO conferem: ${countOf(failed, 'verificação falhou', 'verificações falharam')}`);
    say(r.books.ok && !r.balanceMismatches.length ? 'restauração concluída.' : 'restauração concluída, mas com divergências (veja acima).');
    if (!r.books.ok || r.balanceMismatches.length) throw new ExitStatus(1);
  });
}
