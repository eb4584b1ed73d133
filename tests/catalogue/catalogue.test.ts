import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { writeAppConfig } from '../../src/platform/app-config';
import { grant, makeCategory, makeDraw, makeProduct, makeProductWithDraw, range, sellDirectly } from '../draws/fixtures';

/**
 * The public catalogue (storefront spec §7): product list, sections, product
 * detail, a product's open draw and ensure-open-draw, and the public config.
 */
let t: TestContext;
let lotomania: Awaited<ReturnType<typeof makeCategory>>;
let outra: Awaited<ReturnType<typeof makeCategory>>;
let vazia: Awaited<ReturnType<typeof makeCategory>>;

beforeAll(async () => {
  t = await createTestContext();
  // Categories are ordered by position in sections.
  outra = await makeCategory(t, { slug: 'outra', name: 'Outra', position: 2 });
  lotomania = await makeCategory(t, { slug: 'lotomania', name: 'Lotomania', logo_url: '/logos/lotomania.svg', position: 1 });
  vazia = await makeCategory(t, { slug: 'vazia', name: 'Vazia', position: 3 });
  // 14 Lotomania products with open draws, 1 without, 1 inactive; 2 in "outra".
  for (let i = 0; i < 14; i++) await makeProductWithDraw(t, { category_id: lotomania.id, sku: `LOTO-${String(i).padStart(2, '0')}` });
  await makeProduct(t, { category_id: lotomania.id, sku: 'LOTO-SEM-SORTEIO' });
  await makeProductWithDraw(t, { category_id: lotomania.id, sku: 'LOTO-INATIVO', active: false });
  await makeProductWithDraw(t, { category_id: outra.id, sku: 'OUTRA-1' });
  await makeProduct(t, { category_id: outra.id, sku: 'OUTRA-SEM-SORTEIO' });
});
afterAll(() => t.close());

function expectValidationError(r: { status: number; body: any }) {
  expect(r.status).toBe(400);
  expect(r.body).toMatchObject({ error: 'validation_error', message: expect.any(String) });
  expect(Array.isArray(r.body.details)).toBe(true);
}

describe('GET /api/infoproducts', () => {
  test('answers {items} with at most 12 products by default, active only', async () => {
    const r = await t.api('GET', '/api/infoproducts');
    expect(r.status).toBe(200);
    expect(r.body.items).toHaveLength(12);
    expect(r.body.items.every((p: any) => p.active === true)).toBe(true);
    const all = await t.api('GET', '/api/infoproducts?limit=200');
    expect(all.status).toBe(200);
    const skus = all.body.items.map((p: any) => p.sku);
    expect(skus).toHaveLength(17);
    expect(skus).not.toContain('LOTO-INATIVO');
  });

  test('limit is honoured and capped at 200', async () => {
    expect((await t.api('GET', '/api/infoproducts?limit=3')).body.items).toHaveLength(3);
    expect((await t.api('GET', '/api/infoproducts?limit=200')).status).toBe(200);
    for (const bad of ['201', '0', '-1', 'abc', '2.5']) expectValidationError(await t.api('GET', `/api/infoproducts?limit=${bad}`));
  });

  test('category filters by slug (case-insensitive); a malformed category is a 400', async () => {
    const r = await t.api('GET', '/api/infoproducts?category=outra&limit=200');
    expect(r.status).toBe(200);
    expect(r.body.items.map((p: any) => p.sku).sort()).toEqual(['OUTRA-1', 'OUTRA-SEM-SORTEIO']);
    expect(r.body.items.every((p: any) => p.category_slug === 'outra' && p.category_name === 'Outra')).toBe(true);
    const upper = await t.api('GET', '/api/infoproducts?category=OUTRA&limit=200');
    expect(upper.body.items).toHaveLength(2);
    expect((await t.api('GET', '/api/infoproducts?category=nao-existe')).body).toEqual({ items: [] });
    for (const bad of ['lot%20mania', '%3Cscript%3E', 'a'.repeat(61), "x'%20OR%201=1"])
      expectValidationError(await t.api('GET', `/api/infoproducts?category=${bad}`));
  });

  test('status=open keeps products with an open draw, with that draw attached', async () => {
    const r = await t.api('GET', '/api/infoproducts?category=lotomania&status=open&limit=200');
    expect(r.status).toBe(200);
    const skus = r.body.items.map((p: any) => p.sku);
    expect(skus).toHaveLength(14);
    expect(skus).not.toContain('LOTO-SEM-SORTEIO');
    for (const p of r.body.items) {
      expect(p.draw).toMatchObject({
        status: 'open',
        infoproduct_id: p.id,
        total_numbers: 100,
        ticket_price_cents: 700,
        counts: { reserved: 0, sold: 0, taken: 0 },
      });
    }
    expectValidationError(await t.api('GET', '/api/infoproducts?status=closed'));
  });

  test('never exposes file_url', async () => {
    const r = await t.api('GET', '/api/infoproducts?limit=200&include=numbers');
    expect(r.status).toBe(200);
    expect(r.text).not.toContain('file_url');
    expect(r.text).not.toContain('ebooks/segredo');
    expect(r.body.items[0].numbers).toHaveLength(100);
  });
});

describe('GET /api/infoproducts/sections', () => {
  test('onlyOpen=1: a bare array of {slug, name, logo_url, items:[{product, draw}]} ordered by position', async () => {
    const r = await t.api('GET', '/api/infoproducts/sections?onlyOpen=1');
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(Array.isArray(r.body)).toBe(true);
    // The empty category is left out.
    expect(r.body.map((s: any) => s.slug)).toEqual(['lotomania', 'outra']);
    const [loto, other] = r.body;
    expect(Object.keys(loto).sort()).toEqual(['items', 'logo_url', 'name', 'slug']);
    expect(loto).toMatchObject({ slug: 'lotomania', name: 'Lotomania', logo_url: '/logos/lotomania.svg' });
    expect(other.logo_url).toBeNull();
    expect(loto.items).toHaveLength(14);
    expect(other.items.map((i: any) => i.product.sku)).toEqual(['OUTRA-1']);
    for (const item of [...loto.items, ...other.items]) {
      expect(item.product).toMatchObject({
        sku: expect.any(String),
        title: expect.any(String),
        subtitle: 'Subtítulo',
        cover_url: 'capa.svg',
        price_cents: 700,
      });
      expect(item.draw).toMatchObject({ status: 'open', ticket_price_cents: 700, prize_cents: 50_000, total_numbers: 100 });
      expect(item.draw.id).toBe(item.product.draw.id);
    }
    expect(r.text).not.toContain('file_url');
    expect(r.text).not.toContain('LOTO-INATIVO');
  });

  test('without onlyOpen, products without an open draw come with draw null', async () => {
    const r = await t.api('GET', '/api/infoproducts/sections');
    expect(r.status).toBe(200);
    const loto = r.body.find((s: any) => s.slug === 'lotomania');
    expect(loto.items).toHaveLength(15);
    expect(loto.items.find((i: any) => i.product.sku === 'LOTO-SEM-SORTEIO').draw).toBeNull();
    expect(r.body.find((s: any) => s.slug === vazia.slug)).toBeUndefined();
  });

  test('a bad onlyOpen value is a 400', async () => {
    expectValidationError(await t.api('GET', '/api/infoproducts/sections?onlyOpen=talvez'));
  });
});

describe('GET /api/infoproducts/{idOrSku}', () => {
  test('by id and by sku, with its draws (newest first) and its open draw', async () => {
    const { product, draw: first } = await makeProductWithDraw(t, { sku: 'DETALHE-1', category_id: lotomania.id });
    await t.services.db('draws').where({ id: first.id }).update({ status: 'closed', closed_at: new Date() });
    t.services.readCache.invalidateAll();
    const second = await makeDraw(t, { infoproduct_id: product.id, title: product.title });

    const byId = await t.api('GET', `/api/infoproducts/${product.id}`);
    expect(byId.status).toBe(200);
    expect(byId.body).toMatchObject({ id: product.id, sku: 'DETALHE-1', category_slug: 'lotomania', price_cents: 700 });
    expect(byId.body.draws.map((d: any) => [d.id, d.status])).toEqual([
      [second.id, 'open'],
      [first.id, 'closed'],
    ]);
    expect(byId.body.draw.id).toBe(second.id);
    expect(byId.text).not.toContain('file_url');

    const bySku = await t.api('GET', '/api/infoproducts/DETALHE-1');
    expect(bySku.status).toBe(200);
    expect(bySku.body).toEqual(byId.body);
  });

  test('unknown product → 404 {error, message}', async () => {
    for (const key of ['999999', 'NAO-EXISTE']) {
      const r = await t.api('GET', `/api/infoproducts/${key}`);
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ error: 'infoproduct_not_found', message: expect.any(String) });
    }
  });

  test('weird identifiers answer 400/404 JSON, never 500', async () => {
    const weird = [
      '..%2F',
      '..%2F..%2Fetc%2Fpasswd',
      '%00',
      'a%20b',
      '%E0%A4%A',
      "1'%20OR%20'1'='1",
      'x'.repeat(300),
      '99999999999999999999',
      '9223372036854775808',
      '-1',
      '%F0%9F%92%A9',
    ];
    for (const key of weird) {
      for (const suffix of ['', '/open-draw?include=numbers']) {
        const r = await t.api('GET', `/api/infoproducts/${key}${suffix}`);
        expect({ key, suffix, status: [400, 404].includes(r.status) ? 'ok' : r.status }).toEqual({ key, suffix, status: 'ok' });
        expect(r.body).toMatchObject({ error: expect.any(String), message: expect.any(String) });
        expect(r.headers.get('content-type')).toContain('application/json');
      }
    }
  });
});

describe('GET /api/infoproducts/{idOrSku}/open-draw', () => {
  test('include=numbers: the draw with counts, the product and every number {n, status, initials}', async () => {
    const { product, draw } = await makeProductWithDraw(
      t,
      { sku: 'ABERTO-1', price_cents: 900 },
      { total_numbers: 20, prize_cents: 4_200 },
    );
    const buyer = await createUser(t, { name: 'Helena Souza Lima' });
    await sellDirectly(t, draw.id, buyer.user.id, [0, 1, 2]);
    const holder = await createUser(t);
    const res = await t.api('POST', '/api/reservations', { token: holder.token, body: { draw_id: draw.id, numbers: [5, 6] } });
    expect(res.status).toBe(201);

    const r = await t.api('GET', `/api/infoproducts/${product.sku}/open-draw?include=numbers`);
    expect(r.status).toBe(200);
    expect(r.body.draw).toMatchObject({
      id: draw.id,
      status: 'open',
      total_numbers: 20,
      prize_cents: 4_200,
      ticket_price_cents: 900,
      ticket_price_cents_override: null,
      counts: { reserved: 2, sold: 3, taken: 0 },
    });
    expect(r.body.product).toMatchObject({ id: product.id, sku: 'ABERTO-1', price_cents: 900 });
    expect(r.body.numbers).toHaveLength(20);
    expect(r.body.numbers[0]).toEqual({ n: 0, status: 'sold', initials: 'HSL' });
    expect(r.body.numbers[5]).toEqual({ n: 5, status: 'reserved', initials: null });
    expect(r.body.numbers[19]).toEqual({ n: 19, status: 'available', initials: null });
    expect(r.text).not.toContain('Helena');
    expect(r.text).not.toContain(buyer.email);
    expect(r.text).not.toContain('file_url');

    const byId = await t.api('GET', `/api/infoproducts/${product.id}/open-draw`);
    expect(byId.status).toBe(200);
    expect(byId.body.draw.id).toBe(draw.id);
    expect(byId.body).not.toHaveProperty('numbers');
  });

  test("a product without an open draw answers draw.status 'pending'", async () => {
    const product = await makeProduct(t, { sku: 'PENDENTE-1', price_cents: 350, default_total_numbers: 50, default_prize_cents: 9_000 });
    const r = await t.api('GET', `/api/infoproducts/${product.sku}/open-draw?include=numbers`);
    expect(r.status).toBe(200);
    expect(r.body.draw).toEqual({
      id: null,
      status: 'pending',
      total_numbers: 50,
      prize_cents: 9_000,
      ticket_price_cents: 350,
      counts: { reserved: 0, sold: 0, taken: 0 },
    });
    expect(r.body.numbers).toEqual([]);
    expect(r.body.product.sku).toBe('PENDENTE-1');
    // Without a product price, the pending ticket is the configured one.
    const free = await makeProduct(t, { price_cents: null });
    await writeAppConfig(t.services.db, { ticket_price_cents: 175 });
    t.services.readCache.invalidateAll();
    const f = await t.api('GET', `/api/infoproducts/${free.id}/open-draw`);
    expect(f.body.draw).toMatchObject({ status: 'pending', ticket_price_cents: 175 });
    await writeAppConfig(t.services.db, { ticket_price_cents: 100 });
    t.services.readCache.invalidateAll();
  });

  test('unknown product → 404', async () => {
    const r = await t.api('GET', '/api/infoproducts/NAO-EXISTE/open-draw');
    expect(r.status).toBe(404);
    expect(r.body.error).toBe('infoproduct_not_found');
  });
});

describe('POST /api/infoproducts/{idOrSku}/ensure-open-draw', () => {
  test('anonymous → 401', async () => {
    const product = await makeProduct(t);
    const r = await t.api('POST', `/api/infoproducts/${product.sku}/ensure-open-draw`);
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ error: 'unauthenticated', message: expect.any(String) });
    expect(await t.services.db('draws').where({ infoproduct_id: product.id })).toHaveLength(0);
  });

  test('returns the open draw when there is one; opens one otherwise; idempotent', async () => {
    const u = await createUser(t);
    const { product, draw } = await makeProductWithDraw(t);
    const existing = await t.api('POST', `/api/infoproducts/${product.sku}/ensure-open-draw`, { token: u.token });
    expect(existing.status).toBe(200);
    expect(existing.body).toMatchObject({ id: draw.id, draw_id: draw.id, total_numbers: 100, status: 'open' });

    const fresh = await makeProduct(t, { default_total_numbers: 30, default_prize_cents: 1_000 });
    const a = await t.api('POST', `/api/infoproducts/${fresh.id}/ensure-open-draw`, { token: u.token });
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({
      draw_id: expect.any(Number),
      total_numbers: 30,
      prize_cents: 1_000,
      status: 'open',
      infoproduct_id: fresh.id,
    });
    const b = await t.api('POST', `/api/infoproducts/${fresh.sku}/ensure-open-draw`, { token: u.token });
    expect(b.body.draw_id).toBe(a.body.draw_id);
    expect(await t.services.db('draws').where({ infoproduct_id: fresh.id })).toHaveLength(1);
    expect(await t.services.db('draw_numbers').where({ draw_id: a.body.draw_id })).toHaveLength(30);
  });

  test('after a draw closed by selling out (and no successor), the new one inherits its settings', async () => {
    const u = await createUser(t);
    const { product, draw } = await makeProductWithDraw(
      t,
      {},
      { total_numbers: 40, prize_cents: 3_300, ticket_price_cents_override: 55, max_per_user: 4, title: 'Rodada especial' },
    );
    await t.services.db('draws').where({ id: draw.id }).update({ status: 'closed', closed_at: new Date(), closed_by: 'sellout' });
    t.services.readCache.invalidateAll();
    const r = await t.api('POST', `/api/infoproducts/${product.sku}/ensure-open-draw`, { token: u.token });
    expect(r.status).toBe(200);
    expect(r.body.draw_id).not.toBe(draw.id);
    expect(r.body).toMatchObject({
      title: 'Rodada especial',
      total_numbers: 40,
      prize_cents: 3_300,
      ticket_price_cents_override: 55,
      ticket_price_cents: 55,
      max_per_user: 4,
    });
  });

  test('20 concurrent calls on a product without an open draw create exactly one', async () => {
    for (let round = 0; round < 3; round++) {
      const u = await createUser(t);
      const product = await makeProduct(t);
      const answers = await Promise.all(
        range(0, 20).map(() => t.api('POST', `/api/infoproducts/${product.sku}/ensure-open-draw`, { token: u.token })),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
      const ids = new Set(answers.map((a) => a.body.draw_id));
      expect(ids.size).toBe(1);
      const draws = await t.services.db('draws').where({ infoproduct_id: product.id });
      expect(draws).toHaveLength(1);
      expect(draws[0].id).toBe([...ids][0]);
      const events = await t.services
        .db('domain_events')
        .where({ name: 'draw.opened' })
        .whereRaw(`(payload->>'drawId')::bigint = ?`, [draws[0].id]);
      expect(events).toHaveLength(1);
    }
  });

  test('unknown product → 404; inactive product → 409', async () => {
    const u = await createUser(t);
    const r = await t.api('POST', '/api/infoproducts/NAO-EXISTE/ensure-open-draw', { token: u.token });
    expect(r.status).toBe(404);
    expect(r.body.error).toBe('infoproduct_not_found');
    const inactive = await makeProduct(t, { active: false });
    const i = await t.api('POST', `/api/infoproducts/${inactive.sku}/ensure-open-draw`, { token: u.token });
    expect(i.status).toBe(409);
    expect(i.body.error).toBe('infoproduct_inactive');
    expect(await t.services.db('draws').where({ infoproduct_id: inactive.id })).toHaveLength(0);
  });
});

describe('GET /api/config', () => {
  test('current_draw_id is the open draw of main_infoproduct_id, with the public settings', async () => {
    const { product, draw } = await makeProductWithDraw(t);
    await writeAppConfig(t.services.db, {
      main_infoproduct_id: product.id,
      banner_title: 'Rodada da semana',
      max_numbers_per_selection: 7,
      ticket_price_cents: 250,
    });
    t.services.readCache.invalidateAll();
    const r = await t.api('GET', '/api/config');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      current_draw_id: draw.id,
      draw_id: draw.id,
      banner_title: 'Rodada da semana',
      max_numbers_per_selection: 7,
      // RULES N9: the price a buyer pays is the current draw's (here its e-book's R$ 7,00); the
      // config's own price is only the fallback, answered apart.
      ticket_price_cents: 700,
      default_ticket_price_cents: 250,
    });

    // When that draw sells out, the current draw becomes its successor.
    const u = await createUser(t);
    await sellDirectly(t, draw.id, u.user.id, range(0, 99));
    await grant(t, u.user.id, product.id, 1);
    const res = await t.api('POST', '/api/reservations', { token: u.token, body: { draw_id: draw.id, numbers: [99] } });
    const c = await t.api('POST', '/api/vouchers/consume', {
      token: u.token,
      body: { reservationId: res.body.reservationId, numbers: [99] },
    });
    expect(c.body).toMatchObject({ sold_out: true, next_draw_id: expect.any(Number) });
    const after = await t.api('GET', '/api/config');
    expect(after.body.current_draw_id).toBe(c.body.next_draw_id);

    // A main product without an open draw: the current draw is the newest open draw.
    const lonely = await makeProduct(t);
    await writeAppConfig(t.services.db, { main_infoproduct_id: lonely.id });
    t.services.readCache.invalidateAll();
    const newest = await t.services.db('draws').where({ status: 'open' }).orderBy('id', 'desc').first('id');
    expect((await t.api('GET', '/api/config')).body).toMatchObject({ current_draw_id: newest.id, draw_id: newest.id });
    await writeAppConfig(t.services.db, { max_numbers_per_selection: 5, ticket_price_cents: 100 });
    t.services.readCache.invalidateAll();
  });
});
