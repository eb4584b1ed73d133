import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { writeAppConfig } from '../../src/platform/app-config';
import { grant, makeDraw, makeProduct, makeProductWithDraw, sellDirectly } from './fixtures';

/** Draw reads: list, detail (effective ticket price), boards, voucher allowance. */
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

function expectValidationError(r: { status: number; body: any }) {
  expect(r.status).toBe(400);
  expect(r.body).toMatchObject({ error: 'validation_error', message: expect.any(String), details: expect.any(Array) });
}

describe('GET /api/draws', () => {
  test('filters by infoproduct_id and status, newest first', async () => {
    const { product, draw: d1 } = await makeProductWithDraw(t);
    await t.services.db('draws').where({ id: d1.id }).update({ status: 'closed', closed_at: new Date() });
    t.services.readCache.invalidateAll();
    const d2 = await makeDraw(t, { infoproduct_id: product.id });
    const other = await makeProductWithDraw(t);

    const all = await t.api('GET', `/api/draws?infoproduct_id=${product.id}`);
    expect(all.status).toBe(200);
    expect(all.body.items.map((d: any) => d.id)).toEqual([d2.id, d1.id]);

    const open = await t.api('GET', `/api/draws?infoproduct_id=${product.id}&status=open`);
    expect(open.body.items.map((d: any) => d.id)).toEqual([d2.id]);
    const closed = await t.api('GET', `/api/draws?infoproduct_id=${product.id}&status=closed`);
    expect(closed.body.items.map((d: any) => d.id)).toEqual([d1.id]);
    expect(closed.body.items[0]).toMatchObject({ status: 'closed', closed_at: expect.any(String), infoproduct_id: product.id });
    // The Portuguese word filters the same; a decided draw (answered as sorteado) counts as closed too.
    expect((await t.api('GET', `/api/draws?infoproduct_id=${product.id}&status=fechado`)).body.items.map((d: any) => d.id)).toEqual([
      d1.id,
    ]);
    const d0 = await makeDraw(t, { infoproduct_id: product.id, status: 'closed' });
    await t.services
      .db('draws')
      .where({ id: d0.id })
      .update({ status: 'drawn', closed_at: new Date(), realized_at: new Date(), no_winner: true });
    t.services.readCache.invalidateAll();
    const held = await t.api('GET', `/api/draws?infoproduct_id=${product.id}&status=closed`);
    expect(held.body.items.map((d: any) => [d.id, d.status])).toEqual([
      [d0.id, 'sorteado'],
      [d1.id, 'closed'],
    ]);
    expect((await t.api('GET', `/api/draws?infoproduct_id=${product.id}&status=sorteado`)).body.items.map((d: any) => d.id)).toEqual([
      d0.id,
    ]);

    const everyOpen = await t.api('GET', '/api/draws?status=open');
    const ids = everyOpen.body.items.map((d: any) => d.id);
    expect(ids).toEqual(expect.arrayContaining([d2.id, other.draw.id]));
    expect(ids).not.toContain(d1.id);
    expect([...ids].sort((a: number, b: number) => b - a)).toEqual(ids);
  });

  test('bad status or infoproduct_id → 400', async () => {
    expectValidationError(await t.api('GET', '/api/draws?status=pendente'));
    expectValidationError(await t.api('GET', '/api/draws?status=OPEN'));
    expectValidationError(await t.api('GET', '/api/draws?infoproduct_id=abc'));
    expectValidationError(await t.api('GET', '/api/draws?infoproduct_id=-3'));
  });
});

describe('GET /api/draws/{id}', () => {
  test('effective ticket price: draw override → product price → config ticket_price_cents', async () => {
    await writeAppConfig(t.services.db, { ticket_price_cents: 333 });
    t.services.readCache.invalidateAll();
    const { draw: withOverride } = await makeProductWithDraw(t, { price_cents: 800 }, { ticket_price_cents_override: 150 });
    const { draw: productPrice } = await makeProductWithDraw(t, { price_cents: 800 });
    const { draw: configPrice } = await makeProductWithDraw(t, { price_cents: null });
    const generic = await makeDraw(t, { infoproduct_id: null });
    const freeOverride = await makeProductWithDraw(t, { price_cents: 800 }, { ticket_price_cents_override: 0 });

    const get = async (id: number) => {
      const r = await t.api('GET', `/api/draws/${id}`);
      expect(r.status).toBe(200);
      return r.body;
    };
    expect(await get(withOverride.id)).toMatchObject({ ticket_price_cents: 150, price_cents: 150, ticket_price_cents_override: 150 });
    expect(await get(productPrice.id)).toMatchObject({ ticket_price_cents: 800, ticket_price_cents_override: null });
    expect(await get(configPrice.id)).toMatchObject({ ticket_price_cents: 333, ticket_price_cents_override: null });
    expect(await get(generic.id)).toMatchObject({ ticket_price_cents: 333, infoproduct_id: null });
    // An override of zero is an override (a free draw), not "no override".
    expect(await get(freeOverride.draw.id)).toMatchObject({ ticket_price_cents: 0 });

    // The same price on every read path.
    const list = await t.api('GET', `/api/draws?infoproduct_id=${withOverride.infoproduct_id}`);
    expect(list.body.items[0].ticket_price_cents).toBe(150);
    const od = await t.api('GET', `/api/infoproducts/${withOverride.infoproduct_id}/open-draw`);
    expect(od.body.draw.ticket_price_cents).toBe(150);
    const od2 = await t.api('GET', `/api/infoproducts/${configPrice.infoproduct_id}/open-draw`);
    expect(od2.body.draw.ticket_price_cents).toBe(333);
    await writeAppConfig(t.services.db, { ticket_price_cents: 100 });
    t.services.readCache.invalidateAll();
  });

  test('the draw body carries counts and settings', async () => {
    const { draw } = await makeProductWithDraw(t, {}, { total_numbers: 10, prize_cents: 777, max_per_user: 2 });
    const u = await createUser(t);
    await sellDirectly(t, draw.id, u.user.id, [1, 2]);
    const r = await t.api('GET', `/api/draws/${draw.id}`);
    expect(r.body).toMatchObject({
      id: draw.id,
      status: 'open',
      total_numbers: 10,
      prize_cents: 777,
      max_per_user: 2,
      counts: { reserved: 0, sold: 2, taken: 0 },
      available: 8,
    });
  });

  test('unknown → 404; malformed id → 400', async () => {
    const r = await t.api('GET', '/api/draws/99999999');
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ error: 'draw_not_found', message: expect.any(String) });
    for (const bad of ['abc', '0', '-1', '1.5', '99999999999999999999']) expectValidationError(await t.api('GET', `/api/draws/${bad}`));
  });
});

describe('boards: GET /api/draws/{id}/numbers and GET /api/numbers?draw_id=', () => {
  test('statuses and owner initials only, never names, emails or CPFs', async () => {
    const { product, draw } = await makeProductWithDraw(t, {}, { total_numbers: 12 });
    const owner = await createUser(t, { name: 'Zuleica Fernandes do Prado' });
    const holder = await createUser(t, { name: 'Otávio Reservas' });
    await grant(t, owner.user.id, product.id, 2);
    let r = await t.api('POST', '/api/reservations', { token: owner.token, body: { draw_id: draw.id, numbers: [3, 4] } });
    r = await t.api('POST', '/api/vouchers/consume', {
      token: owner.token,
      body: { reservationId: r.body.reservationId, numbers: [3, 4] },
    });
    expect(r.status).toBe(200);
    expect((await t.api('POST', '/api/reservations', { token: holder.token, body: { draw_id: draw.id, numbers: [7] } })).status).toBe(201);

    const cpfs = (await t.services.db('users').whereIn('id', [owner.user.id, holder.user.id]).select('cpf')).map((x) => x.cpf);
    for (const path of [`/api/draws/${draw.id}/numbers`, `/api/numbers?draw_id=${draw.id}`]) {
      const b = await t.api('GET', path);
      expect(b.status).toBe(200);
      expect(b.headers.get('content-type')).toContain('application/json');
      expect(b.body).toMatchObject({ draw_id: draw.id, status: 'open', total_numbers: 12 });
      expect(b.body.numbers).toHaveLength(12);
      expect(b.body.numbers.map((x: any) => x.n)).toEqual([...Array(12).keys()]);
      for (const cell of b.body.numbers) expect(Object.keys(cell).sort()).toEqual(['initials', 'n', 'status']);
      expect(b.body.numbers[3]).toEqual({ n: 3, status: 'sold', initials: 'ZFD' });
      expect(b.body.numbers[4]).toEqual({ n: 4, status: 'sold', initials: 'ZFD' });
      expect(b.body.numbers[7]).toEqual({ n: 7, status: 'reserved', initials: null });
      expect(b.body.numbers[0]).toEqual({ n: 0, status: 'available', initials: null });
      for (const secret of ['Zuleica', 'Fernandes', 'Otávio', 'Reservas', owner.email, holder.email, ...cpfs]) {
        expect(b.text).not.toContain(secret);
      }
      expect(b.text).not.toMatch(/owner_user_id|email|cpf|name/);
    }
  });

  test('missing or invalid draw_id → 400; unknown draw → 404', async () => {
    expectValidationError(await t.api('GET', '/api/numbers'));
    for (const bad of ['', 'abc', '0', '-2', '1.5', '9007199254740992'])
      expectValidationError(await t.api('GET', `/api/numbers?draw_id=${bad}`));
    for (const bad of ['abc', '0', '1.5']) expectValidationError(await t.api('GET', `/api/draws/${bad}/numbers`));
    for (const path of ['/api/numbers?draw_id=987654', '/api/draws/987654/numbers']) {
      const r = await t.api('GET', path);
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ error: 'draw_not_found', message: expect.any(String) });
    }
  });

  test('reads are fresh after invalidateBoard', async () => {
    const { draw } = await makeProductWithDraw(t, {}, { total_numbers: 5 });
    const u = await createUser(t, { name: 'Bruno Dias' });
    expect((await t.api('GET', `/api/numbers?draw_id=${draw.id}`)).body.numbers[2].status).toBe('available');
    await sellDirectly(t, draw.id, u.user.id, [2]);
    const r = await t.api('GET', `/api/numbers?draw_id=${draw.id}`);
    expect(r.body.numbers[2]).toEqual({ n: 2, status: 'sold', initials: 'BD' });
  });
});

describe('GET /api/vouchers/remaining', () => {
  test('unlimited draw: remaining = balance, max null', async () => {
    const { product, draw } = await makeProductWithDraw(t, {}, { max_per_user: 0 });
    const u = await createUser(t);
    expect((await t.api('GET', `/api/vouchers/remaining?draw_id=${draw.id}`, { token: u.token })).body).toEqual({
      remaining: 0,
      max: null,
    });
    await grant(t, u.user.id, product.id, 7);
    const r = await t.api('GET', `/api/vouchers/remaining?draw_id=${draw.id}`, { token: u.token });
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.body).toEqual({ remaining: 7, max: null });
    // Numbers owned do not matter when unlimited.
    await sellDirectly(t, draw.id, u.user.id, [1, 2, 3]);
    expect((await t.api('GET', `/api/vouchers/remaining?draw_id=${draw.id}`, { token: u.token })).body).toEqual({
      remaining: 7,
      max: null,
    });
  });

  test('limited draw: remaining = min(balance, max_per_user − owned)', async () => {
    const { product, draw } = await makeProductWithDraw(t, {}, { max_per_user: 3 });
    const u = await createUser(t);
    const rem = async () => (await t.api('GET', `/api/vouchers/remaining?draw_id=${draw.id}`, { token: u.token })).body;
    expect(await rem()).toEqual({ remaining: 0, max: 3 });
    await grant(t, u.user.id, product.id, 5);
    expect(await rem()).toEqual({ remaining: 3, max: 3 });
    await sellDirectly(t, draw.id, u.user.id, [10]);
    expect(await rem()).toEqual({ remaining: 2, max: 3 });
    await sellDirectly(t, draw.id, u.user.id, [11, 12]);
    expect(await rem()).toEqual({ remaining: 0, max: 3 });

    // The balance is the binding term.
    const v = await createUser(t);
    await grant(t, v.user.id, product.id, 1);
    expect((await t.api('GET', `/api/vouchers/remaining?draw_id=${draw.id}`, { token: v.token })).body).toEqual({ remaining: 1, max: 3 });
  });

  test("vouchers are per product: another product's vouchers do not count", async () => {
    const a = await makeProductWithDraw(t);
    const b = await makeProductWithDraw(t);
    const u = await createUser(t);
    await grant(t, u.user.id, a.product.id, 4);
    expect((await t.api('GET', `/api/vouchers/remaining?draw_id=${b.draw.id}`, { token: u.token })).body).toEqual({
      remaining: 0,
      max: null,
    });
    expect((await t.api('GET', `/api/vouchers/remaining?draw_id=${a.draw.id}`, { token: u.token })).body).toEqual({
      remaining: 4,
      max: null,
    });
  });

  test('anonymous → 401; missing/invalid draw_id → 400; unknown draw → 404', async () => {
    const { draw } = await makeProductWithDraw(t);
    const anon = await t.api('GET', `/api/vouchers/remaining?draw_id=${draw.id}`);
    expect(anon.status).toBe(401);
    expect(anon.body).toEqual({ error: 'unauthenticated', message: expect.any(String) });
    const bad = await t.api('GET', `/api/vouchers/remaining?draw_id=${draw.id}`, { token: 'not-a-real-token' });
    expect(bad.status).toBe(401);
    const u = await createUser(t);
    expectValidationError(await t.api('GET', '/api/vouchers/remaining', { token: u.token }));
    expectValidationError(await t.api('GET', '/api/vouchers/remaining?draw_id=abc', { token: u.token }));
    const r = await t.api('GET', '/api/vouchers/remaining?draw_id=987654', { token: u.token });
    expect(r.status).toBe(404);
    expect(r.body.error).toBe('draw_not_found');
  });

  test('a product without a price still has an allowance (generic draw: none)', async () => {
    const product = await makeProduct(t, { price_cents: null });
    const draw = await makeDraw(t, { infoproduct_id: product.id });
    const generic = await makeDraw(t, { infoproduct_id: null });
    const u = await createUser(t);
    await grant(t, u.user.id, product.id, 2);
    expect((await t.api('GET', `/api/vouchers/remaining?draw_id=${draw.id}`, { token: u.token })).body).toEqual({
      remaining: 2,
      max: null,
    });
    expect((await t.api('GET', `/api/vouchers/remaining?draw_id=${generic.id}`, { token: u.token })).body).toEqual({
      remaining: 0,
      max: null,
    });
  });
});
