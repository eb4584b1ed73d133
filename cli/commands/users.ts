import type { Command } from 'commander';
import type { Services } from '../../src/services';
import { printRows } from '../output';

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
}
