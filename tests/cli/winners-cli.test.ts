import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { runCliCaptured, STACK } from '../helpers/cli';
import { makeDraw } from '../draws/fixtures';
import { drawnDraw } from '../admin/history-fixtures';
import type { Services } from '../../src/services';

/**
 * `cotaverde winners list | show | set-prize | redeem`: the same service as the admin
 * console; --json on list and show; errors to stderr with exit 1, usage errors exit 2.
 */
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

const cli = (argv: string[], services: () => Services = () => t.services) => runCliCaptured(argv, services);
const audits = (drawId: number) =>
  t.services
    .db('audit_log')
    .where({ entity: 'draw', entity_id: String(drawId), action: 'winner.prize_updated' })
    .orderBy('id');

test('list: a table of winners, --json the page, --search and --redeemed filters', async () => {
  const u = await createUser(t, { name: 'Clara Cli' });
  const d = await drawnDraw(t, { winnerUserId: u.user.id, number: 4, contest: 2655, daysAgo: 5 });
  const table = await cli(['winners', 'list', '--search', 'clara cli']);
  expect(table).toMatchObject({ code: 0, err: '' });
  const lines = table.out.trimEnd().split('\n');
  expect(lines[0]).toMatch(/^sorteio\s+concurso\s+vencedor\s+e-mail do vencedor\s+número vencedor\s+realizado em\s+dias\s+situação/);
  expect(lines).toHaveLength(3);
  expect(lines[2]).toContain(String(d.id));
  expect(lines[2]).toContain('2655');
  expect(lines[2]).toContain('Clara Cli');
  expect(lines[2]).toMatch(/\b04\b/);
  expect(lines[2]).toContain('NÃO RESGATADO');

  const json = await cli(['winners', 'list', '--search', 'clara cli', '--json']);
  expect(json.code).toBe(0);
  const page = JSON.parse(json.out);
  expect(page).toMatchObject({ hasMore: false, limit: 50, offset: 0 });
  expect(page.items).toEqual([
    expect.objectContaining({ draw_id: d.id, winner_name: 'Clara Cli', winner_number: 4, days_since: 5, redeemed: false }),
  ]);

  expect(JSON.parse((await cli(['winners', 'list', '--search', 'clara cli', '--redeemed', '--json'])).out).items).toEqual([]);
  expect((await cli(['winners', 'list', '--search', 'ninguém-com-esse-nome'])).out).toBe('(nenhum registro)\n');
});

test('show: the winner and the prize; --json the row; 404 exit 1 on stderr', async () => {
  const u = await createUser(t, { name: 'Davi Show' });
  const d = await drawnDraw(t, { winnerUserId: u.user.id, number: 61, contest: 2666, daysAgo: 1 });
  const r = await cli(['winners', 'show', String(d.id)]);
  expect(r).toMatchObject({ code: 0, err: '' });
  expect(r.out).toContain(`sorteio #${d.id}`);
  expect(r.out).toContain('concurso 2666: número 61 de Davi Show');
  expect(r.out).toContain('NÃO RESGATADO, há 1 dia');
  expect(r.out).toContain('produto: (não informado)');
  const json = await cli(['winners', 'show', String(d.id), '--json']);
  expect(JSON.parse(json.out)).toMatchObject({ draw_id: d.id, winner_number: 61, contest_number: 2666, product_name: null });

  const closed = await makeDraw(t, { status: 'closed' });
  const missing = await cli(['winners', 'show', String(closed.id)]);
  expect(missing.code).toBe(1);
  expect(missing.out).toBe('');
  expect(missing.err).toBe('erro (winner_not_found): Vencedor não encontrado: este sorteio não existe ou ainda não tem vencedor.\n');
  expect(missing.err).not.toMatch(STACK);
});

test('set-prize and redeem write through the service with an audit entry by the cli', async () => {
  const u = await createUser(t, { name: 'Eva Prêmio' });
  const d = await drawnDraw(t, { winnerUserId: u.user.id });
  const set = await cli(['winners', 'set-prize', String(d.id), '--name', 'Fone Bluetooth', '--link', 'https://loja.example.com/fone']);
  expect(set).toMatchObject({ code: 0, err: '' });
  expect(set.out).toContain('produto: Fone Bluetooth');
  expect(set.out).toContain('link: https://loja.example.com/fone');
  const redeem = await cli(['winners', 'redeem', String(d.id)]);
  expect(redeem).toEqual({ code: 0, out: `sorteio #${d.id}: RESGATADO\n`, err: '' });
  expect(await t.services.db('draws').where({ id: d.id }).first()).toMatchObject({
    product_name: 'Fone Bluetooth',
    product_link: 'https://loja.example.com/fone',
    redeemed: true,
  });
  const log = await audits(d.id);
  expect(log.map((a) => [a.actor, a.actor_user_id])).toEqual([
    ['cli', null],
    ['cli', null],
  ]);
  expect(log[1].data).toMatchObject({ before: { redeemed: false }, after: { redeemed: true } });
  const undo = await cli(['winners', 'redeem', String(d.id), '--undo', '--json']);
  expect(JSON.parse(undo.out)).toMatchObject({ redeemed: false, status: 'NÃO RESGATADO' });
  // The admin API sees the CLI's change.
  const admin = await createUser(t, { admin: true });
  expect((await t.api('GET', `/api/admin/winners/${d.id}`, { token: admin.token })).body).toMatchObject({
    product_name: 'Fone Bluetooth',
    redeemed: false,
  });
});

test('bad input: a non-http link exits 1 with the message; usage errors exit 2; nothing written', async () => {
  const u = await createUser(t);
  const d = await drawnDraw(t, { winnerUserId: u.user.id });
  const link = await cli(['winners', 'set-prize', String(d.id), '--name', 'X', '--link', 'javascript:alert(1)']);
  expect(link.code).toBe(1);
  expect(link.err).toBe('erro: product_link: O link do produto deve ser um endereço http:// ou https:// válido.\n');

  for (const argv of [
    ['winners', 'show', 'abc'],
    ['winners', 'redeem', '0x10'],
    ['winners', 'set-prize', String(d.id), '--name', 'X'],
    ['winners', 'set-prize', String(d.id), '--link', 'https://x.example.com'],
    ['winners', 'show'],
    ['winners', 'list', '--limit', 'dez'],
    ['winners', 'list', '--redeemed', '--not-redeemed'],
    ['winners', 'list', '--bogus'],
  ]) {
    const r = await cli(argv);
    expect([argv.join(' '), r.code]).toEqual([argv.join(' '), 2]);
    expect(r.err).not.toBe('');
    expect(r.err).not.toMatch(STACK);
  }
  expect(await audits(d.id)).toHaveLength(0);
});

test('--help lists the four commands', async () => {
  const r = await cli(['winners', '--help']);
  expect(r.code).toBe(0);
  for (const c of ['list', 'show', 'set-prize', 'redeem']) expect(r.out).toContain(c);
});
