import { createUser, type TestContext } from '../helpers/context';
import { adminContext, type TestUser } from './setup';
import { makeDraw } from '../draws/fixtures';
import { writeAppConfig } from '../../src/platform/app-config';

/**
 * 'Clientes com saldo ativo' (GET /api/admin/clients/active): the spec's columns, computed by the
 * coupon rules of the customer area (a balance past its validity counts as zero, even before the
 * expiry job writes it off), paginated.
 */
let t: TestContext;
let admin: TestUser;
beforeAll(async () => ({ t, admin } = await adminContext()));
afterAll(() => t.close());

const api = (method: string, path: string, body?: unknown) => t.api(method, path, { token: admin.token, body });
const DAY = 86_400_000;

/** An approved paid PIX payment of `cents`, paid `daysAgo` days ago, credited by the coupon rule. */
async function paidPurchase(userId: number, cents: number, daysAgo: number) {
  const paidAt = new Date(Date.now() - daysAgo * DAY);
  const [p] = await t.services
    .db('payments')
    .insert({
      user_id: userId,
      kind: 'reservation',
      method: 'pix',
      provider: 'sandbox',
      status: 'approved',
      amount_cents: cents,
      paid_at: paidAt,
    })
    .returning('*');
  // The coupon module's own crediting (the hourly job's path).
  await t.services.coupons.runJob({ userId });
  return p;
}

test('lists customers with a positive live balance, with the spec columns, biggest first', async () => {
  const rich = await createUser(t, { name: 'Cliente Rico' });
  await paidPurchase(rich.user.id, 5000, 10);
  await paidPurchase(rich.user.id, 1000, 3);
  const d = await makeDraw(t, { total_numbers: 5, status: 'closed' });
  await t.services
    .db('draws')
    .where({ id: d.id })
    .update({ status: 'drawn', realized_at: new Date(), winner_user_id: rich.user.id, winner_number: 1 });
  const small = await createUser(t, { name: 'Cliente Pequeno' });
  await paidPurchase(small.user.id, 300, 1);
  const expired = await createUser(t, { name: 'Cliente Expirado' });
  await paidPurchase(expired.user.id, 9999, 200); // past the 180 days: its balance no longer counts
  const none = await createUser(t, { name: 'Sem Saldo' });

  const r = await api('GET', '/api/admin/clients/active');
  expect(r.status).toBe(200);
  expect(r.headers.get('cache-control')).toBe('no-store');
  const ids = r.body.items.map((c: { user_id: number }) => c.user_id);
  expect(ids).toEqual(expect.arrayContaining([rich.user.id, small.user.id]));
  expect(ids).not.toContain(expired.user.id);
  expect(ids).not.toContain(none.user.id);
  expect(ids.indexOf(rich.user.id)).toBeLessThan(ids.indexOf(small.user.id));
  const row = r.body.items.find((c: { user_id: number }) => c.user_id === rich.user.id);
  const code = (await t.services.db('users').where({ id: rich.user.id }).first()).coupon_code;
  expect(row).toEqual({
    user_id: rich.user.id,
    name: 'Cliente Rico',
    email: rich.email,
    created_at: expect.any(String),
    purchases_count: 2,
    coupon_value_cents: 6000,
    total_brl: 60,
    last_buy: expect.any(String),
    wins: 1,
    coupon: code,
    valid_until: expect.any(String),
    days_to_expire: 177,
  });
  expect(Date.parse(row.last_buy)).toBeGreaterThan(Date.now() - 3 * DAY - 60_000);
  // The same balance as the customer's own coupon card (one rule).
  const mine = await t.api('GET', '/api/coupons/mine', { token: rich.token });
  expect(mine.body.cents).toBe(row.coupon_value_cents);
  expect(mine.body.valid_until).toBe(row.valid_until);
});

test('an admin adjustment alone gives a balance without expiry; the validity setting is the one of /conta', async () => {
  const u = await createUser(t, { name: 'Ajustado' });
  const put = await api('PUT', `/api/admin/users/${u.user.id}`, { coupon_value_cents: 700, coupon_reason: 'Cortesia' });
  expect(put.status).toBe(200);
  let row = (await api('GET', '/api/admin/clients/active')).body.items.find((c: { user_id: number }) => c.user_id === u.user.id);
  expect(row).toMatchObject({ coupon_value_cents: 700, purchases_count: 0, last_buy: null, days_to_expire: null, valid_until: null });
  // The balance came with the account's coupon code (a balance is spent with it).
  expect(row.coupon).toMatch(/^CV-[0-9A-Z]{10}$/);

  await paidPurchase(u.user.id, 100, 20);
  await writeAppConfig(t.services.db, { coupon_validity_days: 10 });
  try {
    row = (await api('GET', '/api/admin/clients/active')).body.items.find((c: { user_id: number }) => c.user_id === u.user.id);
    expect(row).toBeUndefined();
    expect((await t.api('GET', '/api/coupons/mine', { token: u.token })).body.cents).toBe(0);
  } finally {
    await writeAppConfig(t.services.db, { coupon_validity_days: 180 });
  }
});

test('pagination with hasMore; bad queries 400; anonymized customers are not listed', async () => {
  const a = await createUser(t);
  const b = await createUser(t);
  await paidPurchase(a.user.id, 100, 1);
  await paidPurchase(b.user.id, 100, 1);
  const all = (await api('GET', '/api/admin/clients/active')).body.items;
  expect(all.length).toBeGreaterThanOrEqual(2);
  const first = await api('GET', '/api/admin/clients/active?limit=1');
  expect(first.body).toMatchObject({ limit: 1, offset: 0, hasMore: true });
  expect(first.body.items).toHaveLength(1);
  const end = await api('GET', `/api/admin/clients/active?limit=1&offset=${all.length - 1}`);
  expect(end.body.hasMore).toBe(false);
  for (const [qs, msg] of [
    ['limit=0', 'O limite mínimo é 1.'],
    ['limit=9999', 'O limite máximo é 500.'],
    ['offset=-5', 'O deslocamento não pode ser negativo.'],
  ]) {
    const r = await api('GET', `/api/admin/clients/active?${qs}`);
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body)).toContain(msg);
  }
  expect((await api('DELETE', `/api/admin/users/${a.user.id}`)).body.outcome).toBe('anonymized');
  const after = (await api('GET', '/api/admin/clients/active')).body.items.map((c: { user_id: number }) => c.user_id);
  expect(after).not.toContain(a.user.id);
  expect(after).toContain(b.user.id);
});

test('anonymous 401, customer 403', async () => {
  const c = await createUser(t);
  expect((await t.api('GET', '/api/admin/clients/active')).status).toBe(401);
  expect((await t.api('GET', '/api/admin/clients/active', { token: c.token })).body).toEqual({
    error: 'forbidden',
    message: 'Acesso restrito a administradores.',
  });
});
