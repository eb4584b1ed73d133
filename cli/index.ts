import { Command, CommanderError } from 'commander';
import { ZodError } from 'zod';
import { createServices, type Services } from '../src/services';
import { migrateLatest, migrationStatus } from '../src/platform/db';
import { ConfigError, loadConfig } from '../src/platform/config';
import { withLocalStackDefaults } from '../src/platform/local-stack';
import { isDomainError } from '../src/platform/errors';
import { seedDemo } from '../seeds/demo';
import { printRows } from './output';
import { parseId } from '../src/shared/validation';
import { OUTBOX_STATUSES, type OutboxStatus } from '../src/platform/mail';

/**
 * `cotaverde` — the operators' CLI. Every command calls the same module
 * services as the HTTP routes and jobs; none holds business rules.
 */
export function buildCli(getServices: () => Services) {
  const program = new Command();
  program.name('cotaverde').description('Cota Verde: comandos de operação').showHelpAfterError().exitOverride();

  const db = program.command('db').description('banco de dados');
  db.command('migrate')
    .description('aplica as migrações pendentes')
    .option('--status', 'só mostra o estado das migrações')
    .option('--json', 'saída em JSON')
    .action(async (o: { status?: boolean; json?: boolean }) => {
      const s = getServices();
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
    .description('cria os dados de demonstração (idempotente; recusado em produção)')
    .action(async () => {
      const s = getServices();
      if (s.config.isProduction) throw new Error('o seed de demonstração não roda em produção');
      process.stdout.write(`${await seedDemo(s.db)}\n`);
    });

  const users = program.command('users').description('contas');
  users
    .command('create-admin')
    .description('cria um administrador (ou promove e redefine a senha de uma conta existente)')
    .requiredOption('--email <email>', 'e-mail')
    .requiredOption('--password <senha>', 'senha (mínimo 6 caracteres)')
    .option('--name <nome>', 'nome', 'Administrador')
    .option('--json', 'saída em JSON')
    .action(async (o: { email: string; password: string; name: string; json?: boolean }) => {
      const user = await getServices().auth.createAdmin(o);
      if (o.json) printRows([user], true);
      else process.stdout.write(`administrador #${user.id} ${user.email}\n`);
    });
  users
    .command('list')
    .description('lista as contas')
    .option('--search <texto>', 'filtra por nome, e-mail, telefone ou cupom')
    .option('--limit <n>', 'quantidade', (v) => Number.parseInt(v, 10), 50)
    .option('--offset <n>', 'deslocamento', (v) => Number.parseInt(v, 10), 0)
    .option('--json', 'saída em JSON')
    .action(async (o: { search?: string; limit: number; offset: number; json?: boolean }) => {
      if (!Number.isInteger(o.limit) || o.limit < 1 || o.limit > 1000) throw new Error('--limit deve ser um inteiro entre 1 e 1000');
      if (!Number.isInteger(o.offset) || o.offset < 0) throw new Error('--offset deve ser um inteiro ≥ 0');
      const rows = await getServices().auth.listUsers(o);
      printRows(rows, !!o.json, ['id', 'name', 'email', 'phone', 'is_admin', 'created_at']);
    });

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
      else process.stdout.write(`${r.quantity} voucher(s) concedido(s) ao usuário #${r.userId} no e-book #${r.infoproductId} (pagamento #${r.paymentId}); saldo agora: ${r.balance}\n`);
    });

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

  const mail = program.command('mail').description('caixa de saída de e-mails');
  mail
    .command('list')
    .description('lista a caixa de saída (mais recentes primeiro)')
    .option('--status <status>', OUTBOX_STATUSES.join(' | '))
    .option('--to <email>', 'filtra pelo destinatário')
    .option('--limit <n>', 'quantidade', (v) => Number.parseInt(v, 10), 20)
    .option('--body', 'inclui o corpo do e-mail (links de uso único nunca ficam guardados)')
    .option('--json', 'saída em JSON')
    .action(async (o: { status?: string; to?: string; limit: number; body?: boolean; json?: boolean }) => {
      if (o.status && !OUTBOX_STATUSES.includes(o.status as OutboxStatus)) throw new Error('--status deve ser pending, sent, logged, failed ou dropped');
      if (!Number.isInteger(o.limit) || o.limit < 1 || o.limit > 1000) throw new Error('--limit deve ser um inteiro entre 1 e 1000');
      const rows = await getServices().mailer.list({ status: o.status as OutboxStatus | undefined, to: o.to, limit: o.limit, withBody: o.body || o.json });
      if (o.body && !o.json) {
        // Bodies are multi-line: print them whole, not as a table cell.
        if (!rows.length) process.stdout.write('(nenhum registro)\n');
        for (const r of rows) {
          process.stdout.write(`#${r.id}  ${r.to}  ${r.status}  ${new Date(r.created_at).toISOString()}\n${r.subject}\n\n${r.body}\n${'-'.repeat(60)}\n`);
        }
        return;
      }
      printRows(rows, !!o.json, ['id', 'to', 'subject', 'status', 'created_at']);
    });

  return program;
}

/** Runs the CLI; returns the exit code (used by tests too). */
export async function runCli(argv: string[], getServices?: () => Services): Promise<number> {
  let services: Services | null = null;
  const lazy = getServices ?? (() => (services ??= createServices({ config: loadConfig(withLocalStackDefaults(process.env)) })));
  const program = buildCli(lazy);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode;
    if (e instanceof ConfigError) process.stderr.write(`${e.message}\n`);
    else if (e instanceof ZodError) process.stderr.write(`erro: ${e.issues.map((i) => `${i.path.join('.') || 'valor'}: ${i.message}`).join('; ')}\n`);
    else if (isDomainError(e)) process.stderr.write(`erro (${e.code}): ${e.message}\n`);
    else process.stderr.write(`erro: ${(e as Error).message}\n`);
    return 1;
  } finally {
    if (services) await (services as Services).close();
  }
}

if (require.main === module || process.argv[1]?.endsWith('bin.cjs')) {
  void runCli(process.argv.slice(2)).then((code) => process.exit(code));
}
