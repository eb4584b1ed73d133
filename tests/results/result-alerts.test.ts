import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { runCliCaptured } from '../helpers/cli';
import { brDate, startFakeLottery, type FakeLottery } from '../helpers/fake-lottery';
import { makeDraw, sellDirectly } from '../draws/fixtures';
import { createLotteryClient } from '../../src/results/lottery-client';
import { decideWinner } from '../../src/results/winner-rule';

/**
 * RULES W9, the results service's alert: a Lotomania contest published without the draw order
 * (`dezenasSorteadasOrdemSorteio`, which the winner rule needs) is not waited on in silence. Each
 * poll that sees it counts on a metric, the first one per contest writes one audit entry, and the
 * console's draws answers (list, detail, held raffles) carry `result_alert` on the closed draws it
 * holds up. Typing the result in (`results record`) still decides, and resolves the alert.
 * Against the real app and database and a local fake of the results service.
 */
let t: TestContext;
let fake: FakeLottery;
let admin: Awaited<ReturnType<typeof createUser>>;
let customer: Awaited<ReturnType<typeof createUser>>;
beforeAll(async () => {
  fake = await startFakeLottery();
  t = await createTestContext({
    env: {
      RATE_LIMIT_DISABLED: '1',
      LOTTERY_API_URL: fake.url,
      LOTTERY_API_TIMEOUT_MS: '1000',
      LOTTERY_API_RETRIES: '1',
      LOTTERY_API_RETRY_BASE_MS: '20',
    },
  });
  admin = await createUser(t, { admin: true });
  customer = await createUser(t);
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});

const cli = (argv: string[]) => runCliCaptured(argv, () => t.services);
const drawRow = (id: number) => t.services.db('draws').where({ id }).first();
const missingAudits = (contest: number) =>
  t.services.db('audit_log').where({ action: 'lottery_result.draw_order_missing', entity_id: String(contest) });

/** The value of one metric line (no labels but the default ones) in the Prometheus text of GET /metrics. */
async function metric(name: string): Promise<number | null> {
  const res = await fetch(`${t.url}/metrics`);
  expect(res.status).toBe(200);
  const line = (await res.text()).split('\n').find((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
  return line ? Number(line.split(' ').pop()) : null;
}

/** 20:00 Brasília (the contest's hour), `days` days ago. */
function contestDay(days: number): Date {
  const [dd, mm, yyyy] = brDate(new Date(Date.now() - days * 86_400_000))
    .split('/')
    .map(Number);
  return new Date(Date.UTC(yyyy, mm - 1, dd, 23));
}

const ORDER = [7, 64, 2, 91, 33, 15, 48, 80, 12, 57, 26, 99, 3, 70, 41, 86, 19, 54, 38, 45];

test('a contest without its draw order: the metric counts each poll, one audit entry, the console shows the alert; typing the result decides and clears it', async () => {
  const D = contestDay(3);
  const waiting = await makeDraw(t, { title: 'Aguardando a ordem' });
  const a = await createUser(t, { name: 'Alice Ordem' });
  const b = await createUser(t, { name: 'Bento Ordem' });
  await sellDirectly(t, waiting.id, a.user.id, [45, 38]);
  await sellDirectly(t, waiting.id, b.user.id, [19]);
  await t.services
    .db('draws')
    .where({ id: waiting.id })
    .update({ status: 'closed', closed_at: new Date(D.getTime() - 3600_000), closed_by: 'admin' });
  const stillOpen = await makeDraw(t, { title: 'Ainda aberto' });
  fake.add(3000, ORDER, brDate(D), { withoutDrawOrder: true });

  const before = (await metric('cotaverde_lottery_results_without_draw_order_total')) ?? 0;
  // The job, twice, and the CLI's `results fetch`: three polls, the same contest each time.
  const first = await t.services.results.fetch();
  expect(first.fetched[0]).toMatchObject({ contest_number: 3000, status: 'no_draw_order' });
  expect(first.fetched[0].message).toMatch(/publicou o concurso 3000 sem a ordem do sorteio .*cotaverde results record --contest 3000/);
  expect(first.decided).toEqual([]);
  expect(first.pending).toBe(1);
  await t.services.results.fetch();
  const viaCli = await cli(['results', 'fetch']);
  expect(viaCli.code).toBe(0);
  expect(viaCli.out).toContain('O serviço de resultados publicou o concurso 3000 sem a ordem do sorteio');
  expect(await metric('cotaverde_lottery_results_without_draw_order_total')).toBe(before + 3);
  expect(await metric('cotaverde_lottery_result_alerts_open')).toBe(1);
  // One audit entry for the contest, not one per poll.
  const audits = await missingAudits(3000);
  expect(audits).toHaveLength(1);
  expect(audits[0]).toMatchObject({ actor: 'system', entity: 'lottery_result' });
  expect(audits[0].data).toMatchObject({ contest_number: 3000, sorted_numbers: [...ORDER].sort((x, y) => x - y) });
  expect(await t.services.db('lottery_result_alerts').where({ contest_number: 3000 }).first()).toMatchObject({
    kind: 'draw_order_missing',
    seen_count: 3,
    resolved_at: null,
  });
  expect(await drawRow(waiting.id)).toMatchObject({ status: 'closed', winner_user_id: null });

  // The console: the draw's detail, the draws list and the held raffles carry the alert.
  const detail = await t.api('GET', `/api/admin/draws/${waiting.id}`, { token: admin.token });
  expect(detail.status).toBe(200);
  expect(detail.body.result_alert).toEqual({
    kind: 'draw_order_missing',
    contest_number: 3000,
    drawn_at: D.toISOString(),
    since: expect.any(String),
    message: expect.stringMatching(
      /^O serviço de resultados publicou o concurso 3000 \(\d{2}\/\d{2}\/\d{4}\) sem a ordem do sorteio, .*Registre o resultado digitando os 20 números na ordem em que foram sorteados/,
    ),
  });
  const list = await t.api('GET', '/api/admin/draws?limit=200', { token: admin.token });
  expect(list.status).toBe(200);
  const row = (id: number) => list.body.items.find((d: { id: number }) => d.id === id);
  expect(row(waiting.id).result_alert).toMatchObject({ contest_number: 3000 });
  expect(row(stillOpen.id).result_alert).toBeNull();
  const held = await t.api('GET', '/api/admin/draws/history?status=closed', { token: admin.token });
  expect(held.status).toBe(200);
  expect(held.body.items.find((d: { id: number }) => d.id === waiting.id).result_alert).toMatchObject({
    kind: 'draw_order_missing',
    contest_number: 3000,
  });
  // Only admins see it.
  expect((await t.api('GET', `/api/admin/draws/${waiting.id}`)).status).toBe(401);
  expect((await t.api('GET', `/api/admin/draws/${waiting.id}`, { token: customer.token })).status).toBe(403);

  // 'Buscar resultado' in the console says why it cannot fill the numbers in (and is the same contest: no new audit).
  const fetched = await t.api('POST', `/api/admin/draws/${waiting.id}/result/fetch`, {
    token: admin.token,
    body: { contest_number: 3000 },
  });
  expect(fetched.status).toBe(409);
  expect(fetched.body).toMatchObject({ error: 'result_without_draw_order' });
  expect(fetched.body.message).toMatch(/sem a ordem do sorteio.*Digite os 20 números na ordem do sorteio/);
  expect(await missingAudits(3000)).toHaveLength(1);
  expect(await metric('cotaverde_lottery_results_without_draw_order_total')).toBe(before + 4);

  // The manual path: the operator types the numbers in draw order.
  const rec = await cli(['results', 'record', '--contest', '3000', '--numbers', ORDER.join(' '), '--drawn-at', D.toISOString()]);
  expect([rec.code, rec.err]).toEqual([0, '']);
  const expected = decideWinner({
    numbers: ORDER,
    totalNumbers: 100,
    sold: [
      { n: 45, user_id: a.user.id },
      { n: 38, user_id: a.user.id },
      { n: 19, user_id: b.user.id },
    ],
  });
  expect(expected).toMatchObject({ winning_number: 45, winner_user_id: a.user.id });
  expect(await drawRow(waiting.id)).toMatchObject({ status: 'drawn', contest_number: 3000, winner_user_id: a.user.id, winner_number: 45 });
  expect((await t.services.db('lottery_result_alerts').where({ contest_number: 3000 }).first()).resolved_at).not.toBeNull();
  expect(await metric('cotaverde_lottery_result_alerts_open')).toBe(0);
  expect((await t.api('GET', `/api/admin/draws/${waiting.id}`, { token: admin.token })).body.result_alert).toBeNull();

  // The service still lacks the order: asking again finds the contest stored, counts and audits nothing.
  const after = await t.services.results.fetch({ contest: 3000 });
  expect(after.fetched).toEqual([{ contest_number: 3000, status: 'stored' }]);
  expect(await metric('cotaverde_lottery_results_without_draw_order_total')).toBe(before + 4);
  expect(await missingAudits(3000)).toHaveLength(1);
});

test('once the service publishes the order, the job records it, decides the draw and resolves the alert', async () => {
  const D = contestDay(1);
  const draw = await makeDraw(t, { title: 'Ordem atrasada' });
  const c = await createUser(t, { name: 'Cora Depois' });
  await sellDirectly(t, draw.id, c.user.id, [ORDER[10]]);
  await t.services
    .db('draws')
    .where({ id: draw.id })
    .update({ status: 'closed', closed_at: new Date(D.getTime() - 3600_000), closed_by: 'admin' });
  fake.add(3001, ORDER, brDate(D), { withoutDrawOrder: true });
  await t.services.results.fetch();
  expect(await missingAudits(3001)).toHaveLength(1);
  expect((await t.api('GET', `/api/admin/draws/${draw.id}`, { token: admin.token })).body.result_alert).toMatchObject({
    contest_number: 3001,
  });

  fake.add(3001, ORDER, brDate(D));
  const report = await t.services.results.fetch();
  expect(report.decided.map((d) => d.draw_id)).toContain(draw.id);
  expect(await drawRow(draw.id)).toMatchObject({
    status: 'drawn',
    contest_number: 3001,
    winner_user_id: c.user.id,
    winner_number: ORDER[10],
  });
  expect((await t.services.db('lottery_result_alerts').where({ contest_number: 3001 }).first()).resolved_at).not.toBeNull();
  expect(await missingAudits(3001)).toHaveLength(1);
});

test('the client tells a contest published without its draw order from one not drawn yet', async () => {
  const client = createLotteryClient({ apiUrl: fake.url, timeoutMs: 1000, retries: 0 });
  fake.add(3100, ORDER, '02/10/2026', { withoutDrawOrder: true });
  expect(await client.fetchContest(3100)).toEqual({
    status: 'no_draw_order',
    contest_number: 3100,
    drawn_at: new Date('2026-10-02T23:00:00Z'),
    sorted_numbers: [...ORDER].sort((x, y) => x - y),
    message:
      'O serviço de resultados publicou o concurso 3100 sem a ordem do sorteio (dezenasSorteadasOrdemSorteio), que a regra do vencedor exige.',
  });
  expect(await client.fetchContest(3101)).toMatchObject({ status: 'not_drawn', contest_number: 3101 });
  fake.add(3100, ORDER, '02/10/2026');
  expect(await client.fetchContest(3100)).toMatchObject({ status: 'drawn', numbers: ORDER });
});
