import { createUser, type TestContext } from '../helpers/context';
import { adminContext, type TestUser } from '../admin/setup';
import { makeDraw, makeProduct } from '../draws/fixtures';

/**
 * GET /api/admin/dashboard/figures (ops/figures.ts) against a seeded history: sales and revenue
 * per São Paulo day over the last 30 (or ?days=) days, numbers sold per draw and the time a
 * sold-out board took, PIX conversion; validation, anonymous and customer calls.
 */
let t: TestContext;
let admin: TestUser;

/** YYYY-MM-DD of today + `offset` days in São Paulo. */
function day(offset: number) {
  const d = new Date(Date.now() + offset * 86_400_000);
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo', year: 'numeric', month: '2-digit', day: '2-digit' }).format(d);
}
/** That day at hh:00 São Paulo time (UTC−3, no daylight saving since 2019). */
const at = (offset: number, hh = 12) => new Date(`${day(offset)}T${String(hh).padStart(2, '0')}:00:00-03:00`);

let soldOut: { id: number };
let open: { id: number };

beforeAll(async () => {
  ({ t, admin } = await adminContext());
  const u = await createUser(t);
  const product = await makeProduct(t);
  const db = t.services.db;

  // A board of 5 opened 10 days ago, sold out 2 days and 6 hours later.
  soldOut = await makeDraw(t, { infoproduct_id: null, total_numbers: 5, status: 'closed' });
  await db('draws')
    .where({ id: soldOut.id })
    .update({ opened_at: at(-10), closed_at: at(-8, 18) });
  const sale = (drawId: number, n: number, when: Date) =>
    db('draw_numbers')
      .where({ draw_id: drawId, n })
      .update({ status: 'sold', owner_user_id: u.user.id })
      .then(() => db('number_sales').insert({ draw_id: drawId, n, user_id: u.user.id, source: 'voucher', created_at: when }));
  const nums = (await db('draw_numbers').where({ draw_id: soldOut.id }).orderBy('n').pluck('n')) as number[];
  for (const n of nums.slice(0, 3)) await sale(soldOut.id, n, at(-9));
  for (const n of nums.slice(3)) await sale(soldOut.id, n, at(-8, 18));
  // An open board with 2 of 100 sold today.
  open = await makeDraw(t, { infoproduct_id: product.id, total_numbers: 100 });
  const earlier = new Date(Math.min(Date.now() - 60_000, at(0, 9).getTime()));
  for (const n of [1, 2]) await sale(open.id, n, earlier);

  const pay = (o: { method: 'pix' | 'card'; status: string; cents: number; created: Date; paid?: Date }) =>
    db('payments').insert({
      user_id: u.user.id,
      kind: 'reservation',
      method: o.method,
      provider: 'sandbox',
      status: o.status,
      amount_cents: o.cents,
      created_at: o.created,
      paid_at: o.paid ?? null,
    });
  await pay({ method: 'pix', status: 'pending', cents: 1000, created: at(-2, 10) });
  await pay({ method: 'pix', status: 'approved', cents: 1000, created: at(-2, 11), paid: at(-2, 11) });
  await pay({ method: 'pix', status: 'expired', cents: 500, created: at(-40) }); // outside the window
  await pay({ method: 'card', status: 'approved', cents: 2500, created: at(-5), paid: at(-5) });
  // Created before the window, paid inside it: a sale of that day, not a PIX charge of the window.
  await pay({ method: 'pix', status: 'approved', cents: 700, created: at(-31), paid: at(-29) });
});
afterAll(() => t.close());

test('the last 30 days: one row per day, sales and revenue by payment day, numbers sold, PIX created → paid, boards and their sell-out time', async () => {
  const r = await t.api('GET', '/api/admin/dashboard/figures', { token: admin.token });
  expect(r.status).toBe(200);
  expect(r.headers.get('cache-control')).toBe('no-store');
  const f = r.body;
  expect(f).toMatchObject({ days: 30, from: day(-29), to: day(0) });
  expect(f.per_day).toHaveLength(30);
  expect(f.per_day.map((d: { day: string }) => d.day)).toEqual(Array.from({ length: 30 }, (_, i) => day(i - 29)));
  const of = (offset: number) => f.per_day.find((d: { day: string }) => d.day === day(offset));
  expect(of(-29)).toEqual({ day: day(-29), sales: 1, revenue_cents: 700, numbers_sold: 0, pix_created: 0, pix_paid: 0 });
  expect(of(-5)).toEqual({ day: day(-5), sales: 1, revenue_cents: 2500, numbers_sold: 0, pix_created: 0, pix_paid: 0 });
  expect(of(-2)).toEqual({ day: day(-2), sales: 1, revenue_cents: 1000, numbers_sold: 0, pix_created: 2, pix_paid: 1 });
  expect(of(-9)).toMatchObject({ numbers_sold: 3, sales: 0 });
  expect(of(-8)).toMatchObject({ numbers_sold: 2 });
  expect(of(0)).toMatchObject({ numbers_sold: 2 });
  expect(f.totals).toEqual({ sales: 3, revenue_cents: 4200, numbers_sold: 7 });
  expect(f.pix).toEqual({ created: 2, paid: 1, conversion: 0.5 });

  expect(f.draws.map((d: { draw_id: number }) => d.draw_id)).toEqual([soldOut.id, open.id]); // oldest first
  expect(f.draws[0]).toEqual({
    draw_id: soldOut.id,
    title: expect.any(String),
    status: 'closed',
    total_numbers: 5,
    sold: 5,
    opened_at: at(-10).toISOString(),
    closed_at: at(-8, 18).toISOString(),
    sellout_hours: 54,
  });
  expect(f.draws[1]).toMatchObject({ draw_id: open.id, status: 'open', total_numbers: 100, sold: 2, sellout_hours: null, closed_at: null });
});

test('?days=7 narrows the window; ?draws=1 keeps the newest draw', async () => {
  const r = await t.api('GET', '/api/admin/dashboard/figures?days=7&draws=1', { token: admin.token });
  expect(r.status).toBe(200);
  expect(r.body.per_day).toHaveLength(7);
  expect(r.body.from).toBe(day(-6));
  expect(r.body.totals).toEqual({ sales: 2, revenue_cents: 3500, numbers_sold: 2 });
  expect(r.body.draws.map((d: { draw_id: number }) => d.draw_id)).toEqual([open.id]);
});

test('bad parameters answer 400 {error, message} in Portuguese', async () => {
  for (const [q, message] of [
    ['days=abc', 'Informe o número de dias.'],
    ['days=3', 'No mínimo 7 dias.'],
    ['days=91', 'No máximo 90 dias.'],
    ['days=7.5', 'Use um número inteiro de dias.'],
    ['draws=0', 'No mínimo 1 sorteio.'],
    ['draws=51', 'No máximo 50 sorteios.'],
  ]) {
    const r = await t.api('GET', `/api/admin/dashboard/figures?${q}`, { token: admin.token });
    expect({ q, status: r.status }).toEqual({ q, status: 400 });
    expect(r.body).toMatchObject({ error: expect.any(String), message });
  }
});

test('anonymous 401, a customer 403: the figures are the admins’ only', async () => {
  const anon = await t.api('GET', '/api/admin/dashboard/figures');
  expect(anon.status).toBe(401);
  expect(anon.body).toMatchObject({ error: expect.any(String), message: expect.any(String) });
  const customer = await createUser(t);
  const r = await t.api('GET', '/api/admin/dashboard/figures', { token: customer.token });
  expect(r.status).toBe(403);
  expect(r.body).toMatchObject({ error: expect.any(String), message: expect.any(String) });
  expect(JSON.stringify(r.body)).not.toContain('revenue');
});
