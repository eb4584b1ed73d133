import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { brDate, REAL_CONTESTS, startFakeLottery, type FakeLottery } from '../helpers/fake-lottery';
import { makeDraw, range, sellDirectly } from '../draws/fixtures';
import { ADMIN_RESULTS_ROUTES, adminResultsRoutes } from '../../src/results/admin-routes';
import { moduleRouters } from '../../src/http';

/**
 * The admin console's 'Registrar resultado' API (RULES W4, W5): preview (nothing saved), record
 * (the same service as the CLI), fetch from the results service; validation, roles and conflicts.
 */
let t: TestContext;
let fake: FakeLottery;
let admin: Awaited<ReturnType<typeof createUser>>;
let customer: Awaited<ReturnType<typeof createUser>>;
beforeAll(async () => {
  fake = await startFakeLottery();
  t = await createTestContext({
    env: { RATE_LIMIT_DISABLED: '1', LOTTERY_API_URL: fake.url, LOTTERY_API_RETRIES: '1', LOTTERY_API_RETRY_BASE_MS: '10' },
  });
  admin = await createUser(t, { admin: true });
  customer = await createUser(t, { name: 'Diana Prado' });
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

const api = (method: string, path: string, body?: unknown, token = admin.token) => t.api(method, path, { token, body });
const real = (c: number) => REAL_CONTESTS[String(c)].map(Number);
/** 20:00 Brasília, `days` days ago. */
function daysAgo(days: number): Date {
  const [dd, mm, yyyy] = brDate(new Date(Date.now() - days * 86_400_000))
    .split('/')
    .map(Number);
  return new Date(Date.UTC(yyyy, mm - 1, dd, 23));
}
async function closedDraw(closedAt: Date, sold: number[] = range(0, 100)) {
  const d = await makeDraw(t, { status: 'open' });
  await sellDirectly(t, d.id, customer.user.id, sold);
  await t.services.db('draws').where({ id: d.id }).update({ status: 'closed', closed_at: closedAt });
  return d;
}
const counts = async () => ({
  results: Number((await t.services.db('lottery_results').count<{ c: string }[]>({ c: '*' }))[0].c),
  audit: Number((await t.services.db('audit_log').count<{ c: string }[]>({ c: '*' }))[0].c),
});

test('preview computes the winner and saves nothing', async () => {
  const D = daysAgo(40);
  const numbers = real(2610); // last: 73, 64
  const d = await closedDraw(new Date(D.getTime() - 3600_000), range(0, 60));
  const before = await counts();
  const r = await api('POST', `/api/admin/draws/${d.id}/result/preview`, {
    contest_number: 3010,
    numbers: numbers.map((n) => String(n).padStart(2, '0')),
  });
  expect(r.status).toBe(200);
  expect(r.headers.get('cache-control')).toBe('no-store');
  expect(r.body).toEqual({
    draw_id: d.id,
    title: d.title,
    status: 'closed',
    total_numbers: 100,
    contest_number: 3010,
    drawn_at: null,
    numbers,
    walk: [
      { n: 64, reason: 'not_sold' },
      { n: 73, reason: 'not_sold' },
    ],
    winning_number: numbers[17],
    winner_user_id: customer.user.id,
    winner_name: 'Diana Prado',
    winner_email: customer.email,
    no_winner: false,
    sold_count: 60,
    stored_numbers: null,
  });
  expect(numbers.slice(-3)).toEqual([numbers[17], 73, 64]);
  expect(await counts()).toEqual(before);
  expect((await t.services.db('draws').where({ id: d.id }).first()).status).toBe('closed');
  // The numbers as one text work too.
  const text = await api('POST', `/api/admin/draws/${d.id}/result/preview`, { contest_number: '3010', numbers: numbers.join(' ') });
  expect(text.body.winning_number).toBe(numbers[17]);
});

test.each([
  [{}, 'Informe o número do concurso.'],
  [{ numbers: real(2611) }, 'Informe o número do concurso.'],
  [{ contest_number: 0, numbers: real(2611) }, 'O número do concurso deve ser positivo.'],
  [{ contest_number: 'x', numbers: real(2611) }, 'O número do concurso deve ser um número.'],
  [{ contest_number: 3011, numbers: real(2611).slice(1) }, 'Informe exatamente 20 números (recebidos: 19).'],
  [{ contest_number: 3011, numbers: [...real(2611).slice(1), real(2611)[1]] }, 'Os 20 números devem ser distintos.'],
  [{ contest_number: 3011, numbers: [...real(2611).slice(1), 100] }, 'Cada número deve estar entre 00 e 99.'],
  [{ contest_number: 3011, numbers: 'a b c' }, 'Cada número deve estar entre 00 e 99.'],
  [{ contest_number: 3011, numbers: 42 }, 'Informe os 20 números sorteados, na ordem do sorteio.'],
])('bad input %j answers 400 in Portuguese', async (body, message) => {
  const d = await closedDraw(daysAgo(41));
  for (const path of ['preview', '']) {
    const r = await api('POST', `/api/admin/draws/${d.id}/result${path ? '/' + path : ''}`, body);
    expect([r.status, r.body.error]).toEqual([400, 'validation_error']);
    expect(r.body.message).toBe(message);
  }
});

test('wrong draw state, unknown draw, bad id', async () => {
  const open = await makeDraw(t, { status: 'open' });
  const body = { contest_number: 3012, numbers: real(2612) };
  const r = await api('POST', `/api/admin/draws/${open.id}/result/preview`, body);
  expect(r.status).toBe(409);
  expect(r.body).toEqual({ error: 'draw_not_closed', message: 'Feche o sorteio antes de registrar o resultado.' });
  expect((await api('POST', `/api/admin/draws/99999999/result`, body)).body).toEqual({
    error: 'draw_not_found',
    message: 'Sorteio não encontrado.',
  });
  const bad = await api('POST', `/api/admin/draws/abc/result/preview`, body);
  expect([bad.status, bad.body.message]).toEqual([400, 'Sorteio inválido.']);
  const pub = await t.api('GET', '/api/draws/abc/result');
  expect([pub.status, pub.body.message]).toEqual([400, 'Sorteio inválido.']);
  expect((await t.api('GET', '/api/draws/99999999/result')).status).toBe(404);
});

test('record: decides the draw (201) with the public result; a contest held before the closing is refused', async () => {
  const D = daysAgo(50);
  const numbers = real(2613);
  const d = await closedDraw(new Date(D.getTime() - 3600_000));
  const tooEarly = await api('POST', `/api/admin/draws/${d.id}/result`, {
    contest_number: 3013,
    numbers,
    drawn_at: new Date(D.getTime() - 2 * 3600_000).toISOString(),
  });
  expect(tooEarly.status).toBe(409);
  expect(tooEarly.body).toEqual({
    error: 'result_not_for_draw',
    message: 'O concurso 3013 não decide este sorteio: vale o primeiro concurso realizado depois do fechamento do sorteio.',
  });
  expect(await t.services.db('lottery_results').where({ contest_number: 3013 })).toHaveLength(0);
  const future = await api('POST', `/api/admin/draws/${d.id}/result`, {
    contest_number: 3013,
    numbers,
    drawn_at: new Date(Date.now() + 86_400_000).toISOString(),
  });
  expect(future.status).toBe(409); // closed long before: the contest must be the first after closing

  const ok = await api('POST', `/api/admin/draws/${d.id}/result`, { contest_number: 3013, numbers, drawn_at: D.toISOString() });
  expect(ok.status).toBe(201);
  expect(ok.body.result).toMatchObject({
    draw_id: d.id,
    contest_number: 3013,
    drawn_at: D.toISOString(),
    numbers,
    winning_number: numbers[19],
    winner_initials: 'DP',
    walk: [],
  });
  expect(ok.body.outcome).toMatchObject({ created: true, decided: [{ draw_id: d.id, winning_number: numbers[19] }] });
  const log = await t.services.db('audit_log').where({ entity: 'draw', entity_id: String(d.id), action: 'draw.decided' });
  expect(log).toHaveLength(1);
  expect(log[0]).toMatchObject({ actor: 'admin', actor_user_id: admin.user.id });
  expect(await t.services.db('lottery_results').where({ contest_number: 3013 }).first()).toMatchObject({
    source: 'admin',
    recorded_by: admin.user.id,
  });

  // Drawn is final from the console: a second record is refused and points to the CLI correction.
  const again = await api('POST', `/api/admin/draws/${d.id}/result`, { contest_number: 3013, numbers });
  expect(again.status).toBe(409);
  expect(again.body.error).toBe('draw_drawn');
  // A customer cannot (route-table covers every route; one explicit check here).
  expect((await api('POST', `/api/admin/draws/${d.id}/result/preview`, { contest_number: 3013, numbers }, customer.token)).status).toBe(
    403,
  );
});

test('fetch: previews the contest from the results service; not drawn → 409; service down → 503', async () => {
  const D = daysAgo(60);
  const d = await closedDraw(new Date(D.getTime() - 3600_000));
  const r = await api('POST', `/api/admin/draws/${d.id}/result/fetch`, { contest_number: 2650 });
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({
    draw_id: d.id,
    contest_number: 2650,
    numbers: real(2650),
    winning_number: real(2650)[19],
    drawn_at: expect.stringMatching(/T23:00:00.000Z$/),
  });
  expect(await t.services.db('lottery_results').where({ contest_number: 2650 })).toHaveLength(0);
  const latest = await api('POST', `/api/admin/draws/${d.id}/result/fetch`);
  expect(latest.body.contest_number).toBe(2699);
  const notYet = await api('POST', `/api/admin/draws/${d.id}/result/fetch`, { contest_number: 9999 });
  expect(notYet.status).toBe(409);
  expect(notYet.body).toEqual({ error: 'result_not_drawn', message: 'O concurso 9999 ainda não foi sorteado (sem resultado publicado).' });
  fake.failNext(2, 500);
  const down = await api('POST', `/api/admin/draws/${d.id}/result/fetch`, { contest_number: 2650 });
  expect(down.status).toBe(503);
  expect(down.body).toEqual({ error: 'lottery_service_unavailable', message: 'O serviço de resultados respondeu 500.' });
});

test('ADMIN_RESULTS_ROUTES names exactly the routes of the router, and the router is mounted (route-table walks it)', () => {
  const key = (r: { method: string; path: string }) => `${r.method} ${r.path}`;
  const results = adminResultsRoutes(t.services);
  const registered = results.declared.map((d) => `${d.method} ${results.prefix}${d.path}`);
  expect(registered.sort()).toEqual(ADMIN_RESULTS_ROUTES.map(key).sort());
  const mounted = moduleRouters(t.services).flatMap((r) => r.declared.map((d) => `${d.method} ${r.prefix}${d.path}`));
  for (const r of ADMIN_RESULTS_ROUTES) expect(mounted).toContain(key(r));
  expect(mounted).toContain('GET /api/draws/:id/result');
});

test('anonymous 401 and customer 403 on every admin results route; the public result needs no login', async () => {
  const d = await closedDraw(daysAgo(70));
  for (const r of ADMIN_RESULTS_ROUTES) {
    const path = r.path.replace(':id', String(d.id));
    const anon = await t.api(r.method, path, { body: {} });
    expect([path, anon.status, anon.body.error]).toEqual([path, 401, 'unauthenticated']);
    const cust = await t.api(r.method, path, { token: customer.token, body: {} });
    expect([path, cust.status, cust.body.error]).toEqual([path, 403, 'forbidden']);
  }
  expect((await t.api('GET', `/api/draws/${d.id}/result`)).status).toBe(404);
});
