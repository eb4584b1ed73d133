import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { grant, makeCategory, makeDraw, makeProduct, makeProductWithDraw, sellDirectly } from '../draws/fixtures';
import { writeAppConfig } from '../../src/platform/app-config';

/**
 * The storefront spec's call table (storefront.md §7), one test per call: each call is made as
 * the spec's client makes it (its paths, payloads and extra query parameters) and the test
 * asserts the fields that client reads from the answer, under the names and keys it reads them.
 * Behaviour in depth lives in the module tests; this file is the contract.
 */
let t: TestContext;
let customer: Awaited<ReturnType<typeof createUser>>;

beforeAll(async () => {
  t = await createTestContext({ env: { RATE_LIMIT_DISABLED: '1' } });
  customer = await createUser(t, { name: 'Cliente Contrato' });
});
afterAll(() => t.close());

/** The client's request helper: the bearer it stored, JSON in and out. */
const call = (method: string, path: string, body?: unknown, token: string | null = customer.token) =>
  t.api(method, path, { token: token ?? undefined, body });

/** storefront §3 "Number": n (or number, idx) and status (or state). */
const cellShape = { n: expect.any(Number), status: expect.stringMatching(/^(available|reserved|sold|taken)$/) };

test('POST /api/auth/login {email, password} → token', async () => {
  const r = await call('POST', '/api/auth/login', { email: customer.email, password: customer.password }, null);
  expect(r.status).toBe(200);
  expect(r.body.token).toEqual(expect.any(String));
  // The token it answers is a working bearer (the client stores it and sends it on every call).
  expect((await call('GET', '/api/me', undefined, r.body.token)).status).toBe(200);
  // A failure carries the error field the client shows.
  const bad = await call('POST', '/api/auth/login', { email: customer.email, password: 'outra-senha' }, null);
  expect(bad.status).toBe(401);
  expect(bad.body.error).toEqual(expect.any(String));
});

test('GET /api/me → user (id, email)', async () => {
  const r = await call('GET', '/api/me');
  expect(r.status).toBe(200);
  expect(r.body.user).toMatchObject({ id: customer.user.id, email: customer.email });
  // A dead token is a 401 (the client then clears it silently).
  expect((await call('GET', '/api/me', undefined, 'nao-e-um-token')).status).toBe(401);
});

test('GET /api/infoproducts?category&status=open&limit=12 → items[] with what a home card shows', async () => {
  const cat = await makeCategory(t, { slug: 'lotomania-contrato', name: 'Lotomania' });
  const { product, draw } = await makeProductWithDraw(
    t,
    { category_id: cat.id, price_cents: 350, title: 'E-book da vitrine' },
    { total_numbers: 100, prize_cents: 80_000 },
  );
  await sellDirectly(t, draw.id, customer.user.id, [4]);
  const r = await call('GET', `/api/infoproducts?category=${cat.slug}&status=open&limit=12`, undefined, null);
  expect(r.status).toBe(200);
  expect(Array.isArray(r.body.items)).toBe(true);
  const item = r.body.items.find((p: { id: number }) => p.id === product.id);
  expect(item).toMatchObject({
    id: product.id,
    sku: product.sku,
    title: 'E-book da vitrine',
    subtitle: expect.any(String),
    description: expect.any(String),
    cover_url: expect.any(String),
    price_cents: 350,
    prize_cents: 80_000,
    draw: { id: draw.id, status: 'open', total_numbers: 100, ticket_price_cents: 350, counts: { reserved: 0, sold: 1, taken: 0 } },
  });
});

test('GET /api/infoproducts/sections?onlyOpen=1 → a list of sections {slug, name, logo_url, items[{product, draw}]}, not cached', async () => {
  const cat = await makeCategory(t, { slug: 'secao-contrato', name: 'Seção', logo_url: '/logos/secao.svg' });
  const { product, draw } = await makeProductWithDraw(
    t,
    { category_id: cat.id, price_cents: 500 },
    { ticket_price_cents_override: 250, prize_cents: 9_000, total_numbers: 50 },
  );
  const r = await call('GET', '/api/infoproducts/sections?onlyOpen=1', undefined, null);
  expect(r.status).toBe(200);
  expect(r.headers.get('cache-control')).toBe('no-store');
  expect(Array.isArray(r.body)).toBe(true);
  const section = r.body.find((s: { slug: string }) => s.slug === 'secao-contrato');
  expect(section).toMatchObject({ slug: 'secao-contrato', name: 'Seção', logo_url: '/logos/secao.svg' });
  expect(section.items).toEqual([
    {
      product: expect.objectContaining({
        sku: product.sku,
        title: product.title,
        subtitle: expect.any(String),
        cover_url: expect.any(String),
        price_cents: 500,
      }),
      draw: expect.objectContaining({ id: draw.id, ticket_price_cents: 250, prize_cents: 9_000, total_numbers: 50 }),
    },
  ]);
});

test('GET /api/infoproducts/{idOrSku}/open-draw[?include=numbers] → draw (id, status, totals, prices, counts), product, numbers[{n, status}]', async () => {
  const { product, draw } = await makeProductWithDraw(
    t,
    { price_cents: 600 },
    { ticket_price_cents_override: 450, prize_cents: 7_000, total_numbers: 20 },
  );
  for (const key of [String(product.id), product.sku!]) {
    const r = await call('GET', `/api/infoproducts/${key}/open-draw?include=numbers`, undefined, null);
    expect(r.status).toBe(200);
    expect(r.body.draw).toMatchObject({
      id: draw.id,
      status: 'open',
      total_numbers: 20,
      prize_cents: 7_000,
      ticket_price_cents: 450,
      ticket_price_cents_override: 450,
      counts: { reserved: 0, sold: 0, taken: 0 },
    });
    expect(r.body.product).toMatchObject({ id: product.id, sku: product.sku });
    expect(r.body.numbers).toHaveLength(20);
    expect(r.body.numbers[0]).toMatchObject(cellShape);
  }
  // A product without an open draw: the 'pending' placeholder.
  const lonely = await makeProduct(t);
  const p = await call('GET', `/api/infoproducts/${lonely.sku}/open-draw`, undefined, null);
  expect(p.body.draw).toMatchObject({ id: null, status: 'pending', total_numbers: expect.any(Number) });
});

test('GET /api/draws?infoproduct_id&status=open → items, newest first by id', async () => {
  const product = await makeProduct(t);
  const older = await makeDraw(t, { infoproduct_id: product.id, status: 'closed' });
  const open = await makeDraw(t, { infoproduct_id: product.id });
  const r = await call('GET', `/api/draws?infoproduct_id=${product.id}&status=open`, undefined, null);
  expect(r.status).toBe(200);
  expect(r.body.items.map((d: { id: number; status: string }) => [d.id, d.status])).toEqual([[open.id, 'open']]);
  const all = await call('GET', `/api/draws?infoproduct_id=${product.id}`, undefined, null);
  expect(all.body.items.map((d: { id: number }) => d.id)).toEqual([open.id, older.id]);
});

test('GET /api/draws/{id}/numbers → numbers of {n, status}', async () => {
  const { draw } = await makeProductWithDraw(t, {}, { total_numbers: 10 });
  await sellDirectly(t, draw.id, customer.user.id, [2]);
  const r = await call('GET', `/api/draws/${draw.id}/numbers`, undefined, null);
  expect(r.status).toBe(200);
  expect(r.body.numbers).toHaveLength(10);
  for (const c of r.body.numbers) expect(c).toMatchObject(cellShape);
  expect(r.body.numbers[2]).toMatchObject({ n: 2, status: 'sold' });
});

test('POST /api/payments/infoproduct {infoproduct_id, quantity, amount_cents_total} → paymentId, qr_code_base64, copy_paste_code, qr_code, amount', async () => {
  const product = await makeProduct(t, { price_cents: 300 });
  const r = await call('POST', '/api/payments/infoproduct', { infoproduct_id: product.id, quantity: 2, amount_cents_total: 600 });
  expect(r.status).toBe(201);
  expect(r.body).toMatchObject({
    paymentId: expect.any(Number),
    qr_code_base64: expect.any(String),
    copy_paste_code: expect.stringMatching(/^000201/),
    qr_code: expect.stringMatching(/^000201/),
    amount: 6,
  });
  // A failure carries the error field the client shows.
  const bad = await call('POST', '/api/payments/infoproduct', { infoproduct_id: product.id, quantity: 21, amount_cents_total: 6300 });
  expect(bad.status).toBe(400);
  expect(bad.body.error).toEqual(expect.any(String));
});

test('GET /api/payments/{paymentId}/status → status (pending, then approved)', async () => {
  const product = await makeProduct(t, { price_cents: 300 });
  const created = await call('POST', '/api/payments/infoproduct', { infoproduct_id: product.id, quantity: 1, amount_cents_total: 300 });
  const r = await call('GET', `/api/payments/${created.body.paymentId}/status`);
  expect(r.status).toBe(200);
  expect(r.body.status).toBe('pending');
  await t.services.payments.approveSandbox(created.body.paymentId, { via: 'cli' });
  expect((await call('GET', `/api/payments/${created.body.paymentId}/status`)).body.status).toBe('approved');
});

test('POST /api/purchases/confirm {payment_id, infoproduct_id} → 2xx once approved (answer not read)', async () => {
  const product = await makeProduct(t, { price_cents: 300 });
  const created = await call('POST', '/api/payments/infoproduct', { infoproduct_id: product.id, quantity: 1, amount_cents_total: 300 });
  await t.services.payments.approveSandbox(created.body.paymentId, { via: 'cli' });
  const r = await call('POST', '/api/purchases/confirm', { payment_id: created.body.paymentId, infoproduct_id: product.id });
  expect(r.status).toBe(200);
});

test('POST /api/infoproducts/{idOrSku}/ensure-open-draw → draw_id (or id), total_numbers', async () => {
  const product = await makeProduct(t, { default_total_numbers: 40 });
  const r = await call('POST', `/api/infoproducts/${product.sku}/ensure-open-draw`);
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ draw_id: expect.any(Number), id: expect.any(Number), total_numbers: 40 });
  expect(r.body.draw_id).toBe(r.body.id);
});

test('GET /api/config → current_draw_id (and draw_id); the newest open draw when the main series has none', async () => {
  const { product, draw } = await makeProductWithDraw(t);
  await writeAppConfig(t.services.db, { main_infoproduct_id: product.id });
  t.services.readCache.invalidateAll();
  const r = await call('GET', '/api/config', undefined, null);
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ current_draw_id: draw.id, draw_id: draw.id });
  await t.services.db('draws').where({ id: draw.id }).update({ status: 'closed', closed_at: new Date() });
  t.services.readCache.invalidateAll();
  const newest = await t.services.db('draws').where({ status: 'open' }).orderBy('id', 'desc').first('id');
  expect((await call('GET', '/api/config', undefined, null)).body).toMatchObject({ current_draw_id: newest.id, draw_id: newest.id });
  await writeAppConfig(t.services.db, { main_infoproduct_id: null });
  t.services.readCache.invalidateAll();
});

test('GET /api/numbers?draw_id → numbers[{n, status, initials}]', async () => {
  const { draw } = await makeProductWithDraw(t, {}, { total_numbers: 10 });
  await sellDirectly(t, draw.id, customer.user.id, [7]);
  const r = await call('GET', `/api/numbers?draw_id=${draw.id}`, undefined, null);
  expect(r.status).toBe(200);
  expect(r.body.numbers).toHaveLength(10);
  expect(r.body.numbers[7]).toEqual({ n: 7, status: 'sold', initials: 'CC' });
  expect(r.body.numbers[0]).toEqual({ n: 0, status: 'available', initials: null });
});

test("GET /api/draws/{id}; GET /api/infoproducts?limit=200; GET /api/infoproducts/{id} → a draw's product (infoproduct_id, draws[])", async () => {
  const { product, draw } = await makeProductWithDraw(t);
  const d = await call('GET', `/api/draws/${draw.id}`, undefined, null);
  expect(d.status).toBe(200);
  expect(d.body).toMatchObject({ id: draw.id, infoproduct_id: product.id, title: expect.any(String), cover_url: expect.any(String) });
  const list = await call('GET', '/api/infoproducts?limit=200', undefined, null);
  expect(list.body.items.map((p: { id: number }) => p.id)).toContain(product.id);
  const one = await call('GET', `/api/infoproducts/${product.id}`, undefined, null);
  expect(one.body.draws.map((x: { id: number }) => x.id)).toContain(draw.id);
});

test('closed draws: /api/draws?status=closed, /api/draws/closed, /api/draws → the client keeps status closed/fechado without winner', async () => {
  const product = await makeProduct(t, { title: 'Livro dos fechados' });
  const waiting = await makeDraw(t, { infoproduct_id: product.id, status: 'closed', title: 'Aguardando' });
  const decided = await makeDraw(t, { infoproduct_id: product.id, status: 'closed', title: 'Decidido' });
  await sellDirectly(t, decided.id, customer.user.id, [1]);
  await t.services
    .db('draws')
    .where({ id: decided.id })
    .update({ status: 'drawn', realized_at: new Date(), winner_user_id: customer.user.id, winner_number: 1 });
  t.services.readCache.invalidateAll();
  // The client's own filter (storefront §7): status containing closed or fechado, and no winner.
  const kept = (items: Array<{ id: number; status: string; winner_user_id: number | null }>) =>
    items.filter((d) => /closed|fechado/i.test(d.status) && d.winner_user_id == null).map((d) => d.id);
  for (const path of ['/api/draws?status=closed', '/api/draws/closed', '/api/draws']) {
    const r = await call('GET', path, undefined, null);
    expect([path, r.status]).toEqual([path, 200]);
    const mine = r.body.items.filter((d: { id: number }) => d.id === waiting.id || d.id === decided.id);
    expect([path, mine.map((d: { id: number; status: string }) => [d.id, d.status])]).toEqual([
      path,
      [
        [decided.id, 'sorteado'],
        [waiting.id, 'closed'],
      ],
    ]);
    expect(kept(r.body.items)).toContain(waiting.id);
    expect(kept(r.body.items)).not.toContain(decided.id);
    // The cards show cover and title.
    expect(r.body.items.find((d: { id: number }) => d.id === waiting.id)).toMatchObject({
      title: 'Aguardando',
      cover_url: expect.any(String),
      product_title: 'Livro dos fechados',
    });
  }
});

test('voucher allowance: GET /api/vouchers/remaining?draw_id&user_id&uid → remaining, max', async () => {
  const { product, draw } = await makeProductWithDraw(t, {}, { max_per_user: 5 });
  await grant(t, customer.user.id, product.id, 3);
  const r = await call('GET', `/api/vouchers/remaining?draw_id=${draw.id}&user_id=${customer.user.id}&uid=${customer.user.id}`);
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ remaining: 3, max: expect.any(Number) });
});

test('POST /api/reservations {numbers (sorted, unique), draw_id} → reservationId; 409 names the conflicts', async () => {
  const { draw } = await makeProductWithDraw(t, {}, { max_per_user: 0 });
  const r = await call('POST', '/api/reservations', { numbers: [3, 8], draw_id: draw.id });
  expect(r.status).toBe(201);
  expect(r.body.reservationId).toEqual(expect.any(Number));
  const other = await createUser(t);
  const taken = await call('POST', '/api/reservations', { numbers: [8, 9], draw_id: draw.id }, other.token);
  expect(taken.status).toBe(409);
  expect(taken.body).toMatchObject({ error: 'numbers_conflict', conflicts: [8] });
});

test('confirm by voucher: POST /api/vouchers/consume {numbers, reservationId, reservation_id, draw_id, user_id} → success', async () => {
  const { product, draw } = await makeProductWithDraw(t, {}, { max_per_user: 0 });
  await grant(t, customer.user.id, product.id, 2);
  const held = await call('POST', '/api/reservations', { numbers: [11, 12], draw_id: draw.id });
  const r = await call('POST', '/api/vouchers/consume', {
    numbers: [11, 12],
    reservationId: held.body.reservationId,
    reservation_id: held.body.reservationId,
    draw_id: draw.id,
    user_id: customer.user.id,
  });
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ ok: true, message: 'Números confirmados com sucesso! Boa sorte', numbers: [11, 12] });
  const board = await call('GET', `/api/draws/${draw.id}/numbers`, undefined, null);
  expect(board.body.numbers.filter((c: { status: string }) => c.status === 'sold').map((c: { n: number }) => c.n)).toEqual([11, 12]);
});
