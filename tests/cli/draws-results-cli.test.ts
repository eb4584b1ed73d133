import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { runCliCaptured, STACK } from '../helpers/cli';
import { brasilia } from '../../cli/output';
import { brDate, REAL_CONTESTS, startFakeLottery, type FakeLottery } from '../helpers/fake-lottery';
import { makeDraw, makeProduct, range, sellDirectly } from '../draws/fixtures';

/**
 * `cotaverde draws …` and `cotaverde results …`: output, --json, exit codes 1 (errors) and 2
 * (usage).
 */
let t: TestContext;
let fake: FakeLottery;
beforeAll(async () => {
  fake = await startFakeLottery();
  t = await createTestContext({ env: { RATE_LIMIT_DISABLED: '1', LOTTERY_API_URL: fake.url, LOTTERY_API_RETRIES: '0' } });
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

const cli = (argv: string[]) => runCliCaptured(argv, () => t.services);
const real = (c: number) => REAL_CONTESTS[String(c)].map(Number);
const pad = (n: number) => String(n).padStart(2, '0');
function daysAgo(days: number): Date {
  const [dd, mm, yyyy] = brDate(new Date(Date.now() - days * 86_400_000))
    .split('/')
    .map(Number);
  return new Date(Date.UTC(yyyy, mm - 1, dd, 23));
}

describe('draws', () => {
  test('open, list (text, --json, --status, --product), show, close, reopen — audited as cli', async () => {
    const p = await makeProduct(t, { title: 'Guia CLI', default_total_numbers: 20, default_prize_cents: 5000 });
    const opened = await cli(['draws', 'open', '--product', p.sku!]);
    expect(opened.err).toBe('');
    expect(opened.code).toBe(0);
    const id = Number(/sorteio #(\d+) aberto: Guia CLI \(20 números\)/.exec(opened.out)?.[1]);
    expect(id).toBeGreaterThan(0);
    expect(await t.services.db('draws').where({ id }).first()).toMatchObject({
      infoproduct_id: p.id,
      status: 'open',
      total_numbers: 20,
      prize_cents: 5000,
    });
    expect(
      await t.services
        .db('audit_log')
        .where({ entity: 'draw', entity_id: String(id), action: 'draw.created' })
        .first(),
    ).toMatchObject({ actor: 'cli', actor_user_id: null });

    // One open draw per e-book, as in the admin API.
    const second = await cli(['draws', 'open', '--product', p.sku!]);
    expect(second).toEqual({
      code: 1,
      out: '',
      err: 'erro (draw_already_open): Este e-book já tem um sorteio aberto. Feche-o antes de abrir outro.\n',
    });

    const list = await cli(['draws', 'list', '--product', p.sku!]);
    expect(list.code).toBe(0);
    const lines = list.out.trim().split('\n');
    expect(lines[0]).toMatch(/^id\s+título\s+situação\s+sku\s+números\s+vendidos\s+reservados\s+preço\s+fechado em\s+número vencedor$/);
    expect(lines).toHaveLength(3);
    expect(lines[2]).toMatch(new RegExp(`^${id}\\s+Guia CLI\\s+open\\s+${p.sku}\\s+20\\s+0\\s+0`));
    const json = JSON.parse((await cli(['draws', 'list', '--product', String(p.id), '--json'])).out);
    expect(json.map((d: { id: number; status: string }) => [d.id, d.status])).toEqual([[id, 'open']]);

    const closed = await cli(['draws', 'close', String(id)]);
    expect(closed).toEqual({ code: 0, out: `sorteio #${id} fechado (status: closed)\n`, err: '' });
    expect(await cli(['draws', 'close', String(id)])).toEqual({ code: 0, out: `sorteio #${id} já estava fechado: nada mudou\n`, err: '' });
    const onlyClosed = JSON.parse((await cli(['draws', 'list', '--status', 'closed', '--json'])).out);
    expect(onlyClosed.map((d: { id: number }) => d.id)).toContain(id);
    expect(JSON.parse((await cli(['draws', 'list', '--status', 'open', '--product', p.sku!, '--json'])).out)).toEqual([]);

    const show = await cli(['draws', 'show', String(id)]);
    expect(show.code).toBe(0);
    expect(show.out).toMatch(/^id\s+\d+\ntítulo\s+Guia CLI\nstatus\s+closed\n/);
    expect(show.out).toMatch(/\nnúmeros +20 \(vendidos 0, reservados 0, livres 20\)\n/);
    expect(JSON.parse((await cli(['draws', 'show', String(id), '--json'])).out)).toMatchObject({
      id,
      status: 'closed',
      contest_number: null,
      no_winner: false,
    });

    const reopened = await cli(['draws', 'reopen', String(id), '--json']);
    expect(reopened.code).toBe(0);
    expect(JSON.parse(reopened.out)).toMatchObject({ id, status: 'open', closed_at: null });
    const log = await t.services
      .db('audit_log')
      .where({ entity: 'draw', entity_id: String(id), action: 'draw.status_changed' })
      .orderBy('id');
    expect(log.map((l) => [l.actor, l.data.after.status])).toEqual([
      ['cli', 'closed'],
      ['cli', 'open'],
    ]);
  });

  test('a sold-out draw is not reopened; a drawn one does not change; unknown ids exit 1', async () => {
    const d = await makeDraw(t, { total_numbers: 3 });
    const u = await createUser(t);
    await sellDirectly(t, d.id, u.user.id, [0, 1, 2]);
    await t.services.db('draws').where({ id: d.id }).update({ status: 'closed', closed_at: new Date() });
    const r = await cli(['draws', 'reopen', String(d.id)]);
    expect(r).toEqual({
      code: 1,
      out: '',
      err: 'erro (draw_sold_out): Todos os números deste sorteio já foram vendidos: ele não pode ser reaberto.\n',
    });
    // drawn is final
    const drawn = await makeDraw(t, { total_numbers: 3 });
    await t.services
      .db('draws')
      .where({ id: drawn.id })
      .update({ status: 'drawn', closed_at: new Date(), realized_at: new Date(), no_winner: true });
    expect(await cli(['draws', 'close', String(drawn.id)])).toEqual({
      code: 1,
      out: '',
      err: 'erro (draw_drawn): Este sorteio já foi realizado: o status não pode mais mudar.\n',
    });
    expect(await cli(['draws', 'show', '99999999'])).toEqual({ code: 1, out: '', err: 'erro (draw_not_found): Sorteio não encontrado.\n' });
    expect((await cli(['draws', 'open', '--product', 'NAO-EXISTE'])).err).toBe('erro: e-book não encontrado: NAO-EXISTE\n');
  });

  test.each([
    [['draws', 'list', '--status', 'pendente'], /--status deve ser open, closed ou sorteado/],
    [['draws', 'list', '--limit', '0'], /--limit deve ser um número inteiro positivo/],
    [['draws', 'show', 'abc'], /<id> deve ser um número inteiro positivo/],
    [['draws', 'show'], /falta o argumento obrigatório 'id'/],
    [['draws', 'open'], /a opção obrigatória '--product <sku>' não foi informada/],
    [['draws', 'close', '1', '--frobnicate'], /opção desconhecida '--frobnicate'/],
  ])('usage error %j exits 2', async (argv, message) => {
    const r = await cli(argv as string[]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(r.err).not.toMatch(STACK);
  });
});

describe('results', () => {
  test('record --json, show (text and --json), then fetch --contest and fetch without pending draws', async () => {
    const D = daysAgo(30);
    const numbers = real(2620);
    const d = await makeDraw(t, { total_numbers: 100 });
    const u = await createUser(t, { name: 'Eva Lima' });
    await sellDirectly(t, d.id, u.user.id, range(0, 100));
    await t.services
      .db('draws')
      .where({ id: d.id })
      .update({ status: 'closed', closed_at: new Date(D.getTime() - 3600_000) });

    const r = await cli([
      'results',
      'record',
      '--contest',
      '4000',
      '--numbers',
      numbers.map(pad).join(' '),
      '--drawn-at',
      D.toISOString(),
      '--json',
    ]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({
      contest_number: 4000,
      drawn_at: D.toISOString(),
      numbers,
      created: true,
      decided: [
        {
          draw_id: d.id,
          title: d.title,
          contest_number: 4000,
          winning_number: numbers[19],
          winner_user_id: u.user.id,
          no_winner: false,
          walk: [],
        },
      ],
    });

    const show = await cli(['results', 'show', '4000']);
    expect(show.code).toBe(0);
    expect(show.out).toContain(`concurso 4000 (${brasilia(D)}, fonte: cli)\nnúmeros na ordem do sorteio: ${numbers.map(pad).join(' ')}\n`);
    expect(show.out).toMatch(new RegExp(`${d.id}\\s+${d.title}\\s+${pad(numbers[19])}\\s+EL`));
    expect(JSON.parse((await cli(['results', 'show', '4000', '--json'])).out)).toMatchObject({
      contest_number: 4000,
      source: 'cli',
      draws: [{ draw_id: d.id, winning_number: numbers[19], winner_initials: 'EL', no_winner: false }],
    });
    expect(await cli(['results', 'show', '4001'])).toEqual({
      code: 1,
      out: '',
      err: 'erro (result_not_found): O concurso 4001 não foi registrado.\n',
    });

    // fetch --contest stores a real contest from the service.
    const f = await cli(['results', 'fetch', '--contest', '2630']);
    expect(f.code).toBe(0);
    expect(f.out).toContain('concurso 2630: obtido do serviço de resultados\n');
    expect((await t.services.db('lottery_results').where({ contest_number: 2630 }).first()).numbers).toEqual(real(2630));
    const nf = await cli(['results', 'fetch', '--contest', '9999', '--json']);
    expect(JSON.parse(nf.out)).toMatchObject({
      fetched: [
        { contest_number: 9999, status: 'not_drawn', message: 'O concurso 9999 ainda não foi sorteado (sem resultado publicado).' },
      ],
      decided: [],
    });
  });

  test('correct needs a stored contest; bad numbers exit 1 and store nothing', async () => {
    const missing = await cli(['results', 'correct', '--contest', '4100', '--numbers', real(2621).join(' '), '--reason', 'teste']);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(
      /^erro \(result_not_found\): O concurso 4100 não foi registrado\. Use: cotaverde results record --contest 4100/,
    );
    const bad = await cli([
      'results',
      'record',
      '--contest',
      '4101',
      '--numbers',
      '01 02 03',
      '--drawn-at',
      new Date(Date.now() - 86_400_000).toISOString(),
    ]);
    expect(bad).toEqual({ code: 1, out: '', err: 'erro: numbers: Informe exatamente 20 números (recebidos: 3).\n' });
    const future = await cli([
      'results',
      'record',
      '--contest',
      '4101',
      '--numbers',
      real(2621).join(' '),
      '--drawn-at',
      new Date(Date.now() + 86_400_000).toISOString(),
    ]);
    expect(future).toEqual({ code: 1, out: '', err: 'erro (drawn_at_in_future): A data do concurso não pode estar no futuro.\n' });
    expect(await t.services.db('lottery_results').where({ contest_number: 4101 })).toHaveLength(0);
  });

  test('the service down: fetch exits 1 with the reason', async () => {
    fake.failNext(1, 500);
    const r = await cli(['results', 'fetch', '--contest', '2640']);
    expect(r).toEqual({ code: 1, out: '', err: 'erro (lottery_service_unavailable): O serviço de resultados respondeu 500.\n' });
  });

  test.each([
    [['results', 'record', '--contest', '4200'], /a opção obrigatória '--numbers <lista>' não foi informada/],
    [
      ['results', 'record', '--contest', 'x', '--numbers', '1', '--drawn-at', '2026-11-23T23:00:00Z'],
      /--contest deve ser um número inteiro positivo/,
    ],
    [['results', 'record', '--contest', '4200', '--numbers', '1'], /a opção obrigatória '--drawn-at <data-hora>' não foi informada/],
    [['results', 'record', '--contest', '4200', '--numbers', '1', '--drawn-at', 'ontem'], /--drawn-at deve ser uma data-hora ISO 8601/],
    [['results', 'correct', '--contest', '4200', '--numbers', '1'], /a opção obrigatória '--reason <texto>' não foi informada/],
    [['results', 'show'], /falta o argumento obrigatório 'contest'/],
    [['results', 'fetch', '--contest', '-3'], /--contest deve ser um número inteiro positivo/],
  ])('usage error %j exits 2', async (argv, message) => {
    const r = await cli(argv as string[]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(r.err).not.toMatch(STACK);
  });

  test.each([
    ['draws'],
    ['draws', 'list'],
    ['results'],
    ['results', 'record'],
    ['results', 'correct'],
    ['results', 'fetch'],
    ['results', 'show'],
  ])('%s --help exits 0', async (...path) => {
    const r = await cli([...path, '--help']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(new RegExp(`^Uso: cotaverde ${path.join(' ')}`));
  });
});
