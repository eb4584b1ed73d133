import { InvalidArgumentError, type Command } from 'commander';
import type { Services } from '../../src/services';
import { brasilia, brl, printRows } from '../output';

export function registerUsersCommands(program: Command, getServices: () => Services) {
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
  users
    .command('show')
    .description('mostra uma conta: dados, saldo de cupom, pagamentos, números e vitórias')
    .argument('<email-ou-id>', 'e-mail ou id da conta')
    .option('--json', 'saída em JSON')
    .action(async (ref: string, o: { json?: boolean }) => {
      const u = await getServices().adminUsers.show(ref);
      if (o.json) {
        printRows([u as unknown as Record<string, unknown>], true);
        return;
      }
      const lines = [
        `usuário #${u.id} ${u.name} <${u.email}>`,
        `celular: ${u.phone ?? '-'}`,
        `administrador: ${u.is_admin ? 'sim' : 'não'}`,
        `cupom: ${u.coupon_code ?? '-'}  saldo: ${brl(u.coupon_value_cents)}${u.coupon_valid_until ? ` (válido até ${brasilia(u.coupon_valid_until)})` : ''}`,
        `pagamentos: ${u.payments_count}  números: ${u.numbers_count}  vitórias: ${u.wins}`,
        `criado em: ${brasilia(u.created_at)}`,
      ];
      process.stdout.write(lines.join('\n') + '\n');
    });
  users
    .command('mfa-reset')
    .description(
      'desativa a verificação em duas etapas de uma conta que perdeu o acesso ao aplicativo e aos códigos de recuperação, e encerra as sessões dela',
    )
    .argument('<email>', 'e-mail da conta', (v: string) => {
      if (!v.includes('@')) throw new InvalidArgumentError('informe o e-mail da conta.');
      return v;
    })
    .option('--json', 'saída em JSON')
    .action(async (email: string, o: { json?: boolean }) => {
      const r = await getServices().auth.mfaReset(email);
      if (o.json) printRows([r as unknown as Record<string, unknown>], true);
      else {
        const what = r.mfa_was_enabled ? 'verificação em duas etapas desativada' : 'a verificação em duas etapas já estava desativada';
        const ended = r.sessions_ended === 1 ? '1 sessão encerrada' : `${r.sessions_ended} sessões encerradas`;
        process.stdout.write(`usuário #${r.id} ${r.email}: ${what}; ${ended}\n`);
      }
    });
  for (const [name, flag, text] of [
    ['promote', true, 'torna a conta administradora'],
    ['demote', false, 'tira o acesso de administrador da conta'],
  ] as const) {
    users
      .command(name)
      .description(text)
      .argument('<email>', 'e-mail da conta', (v: string) => {
        if (!v.includes('@')) throw new InvalidArgumentError('informe o e-mail da conta.');
        return v;
      })
      .option('--json', 'saída em JSON')
      .action(async (email: string, o: { json?: boolean }) => {
        const u = await getServices().adminUsers.setAdmin({ userId: null, via: 'cli' }, email, flag);
        if (o.json) printRows([u as unknown as Record<string, unknown>], true);
        else process.stdout.write(`usuário #${u.id} ${u.email}: administrador ${u.is_admin ? 'sim' : 'não'}\n`);
      });
  }
}
