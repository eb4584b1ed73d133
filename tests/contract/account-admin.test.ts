import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { grant, makeDraw, makeProduct, makeProductWithDraw, sellDirectly } from '../draws/fixtures';
import { registration } from '../auth/fixtures';
import { tokenize, VALID_CPF } from '../autopay/fixtures';
import { writeAppConfig } from '../../src/platform/app-config';

/**
 * The account and admin spec's call tables (account-and-admin.md §7), one test per call: each
 * call is made with the spec's path, method and payload, and the test asserts the fields its
 * client reads, under the names and list keys it reads them. Draw statuses are the spec's words
 * (open, closed, sorteado; a participant's result contemplado / nao contemplado). Behaviour in
 * depth lives in the module tests; this file is the contract.
 */
const EBOOKS = path.resolve(__dirname, '../../storage/ebooks');
let t: TestContext;
type User = Awaited<ReturnType<typeof createUser>>;
let admin: User;
let customer: User;

beforeAll(async () => {
  t = await createTestContext({ env: { RATE_LIMIT_DISABLED: '1', EBOOK_STORAGE_DIR: EBOOKS } });
  admin = await createUser(t, { admin: true, name: 'Admin Contrato' });
  customer = await createUser(t, { name: 'Cliente Contrato' });
});
afterAll(() => t.close());

const as = (u: User | null) => (method: string, p: string, body?: unknown) => t.api(method, p, { token: u?.token, body });
const me = (method: string, p: string, body?: unknown) => as(customer)(method, p, body);
const adm = (method: string, p: string, body?: unknown) => as(admin)(method, p, body);

/** A draw decided straight in the row (the result module's decision is tested elsewhere). */
async function decide(drawId: number, winnerUserId: number | null, winnerNumber: number | null) {
  await t.services
    .db('draws')
    .where({ id: drawId })
    .update({
      status: 'drawn',
      closed_at: t.services.db.fn.now(),
      realized_at: t.services.db.fn.now(),
      winner_user_id: winnerUserId,
      winner_number: winnerNumber,
      no_winner: winnerUserId == null,
    });
  t.services.readCache.invalidateAll();
}

describe('customer area', () => {
  test('GET /api/me/autopay → active, numbers, brand, last4, holder_name, doc_number', async () => {
    const u = await createUser(t);
    const tok = await tokenize(t, u.token);
    await as(u)('POST', '/api/me/autopay', {
      active: true,
      numbers: [7, 21],
      holder_name: 'MARIA DA SILVA',
      doc_number: VALID_CPF,
      card_token: tok.id,
    });
    const r = await as(u)('GET', '/api/me/autopay');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      active: true,
      numbers: [7, 21],
      brand: 'visa',
      last4: '1111',
      holder_name: 'MARIA DA SILVA',
      doc_number: expect.any(String),
    });
  });

  test('POST /api/me/autopay {active, numbers, holder_name, doc_number, card_token} → card {has_card, brand, last4}; a failure carries error', async () => {
    const u = await createUser(t);
    const tok = await tokenize(t, u.token);
    const r = await as(u)('POST', '/api/me/autopay', {
      active: true,
      numbers: [33],
      holder_name: 'MARIA DA SILVA',
      doc_number: VALID_CPF,
      card_token: tok.id,
    });
    expect(r.status).toBe(200);
    expect(r.body.card).toEqual({ has_card: true, brand: 'visa', last4: '1111' });
    const bad = await as(u)('POST', '/api/me/autopay', { active: true, numbers: [] });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toEqual(expect.any(String));
  });

  test('POST /api/me/autopay/cancel → 2xx (a failure would carry error)', async () => {
    const u = await createUser(t);
    const tok = await tokenize(t, u.token);
    await as(u)('POST', '/api/me/autopay', {
      active: true,
      numbers: [44],
      holder_name: 'MARIA DA SILVA',
      doc_number: VALID_CPF,
      card_token: tok.id,
    });
    const r = await as(u)('POST', '/api/me/autopay/cancel');
    expect(r.status).toBe(200);
    expect(r.body.error).toBeUndefined();
    expect((await as(u)('GET', '/api/me/autopay')).body).toMatchObject({ active: false, numbers: [], last4: null });
    expect((await as(null)('POST', '/api/me/autopay/cancel')).body.error).toBe('unauthenticated');
  });

  test('GET /api/autopay/claims → taken, mine', async () => {
    const u = await createUser(t);
    const tok = await tokenize(t, u.token);
    await as(u)('POST', '/api/me/autopay', {
      active: true,
      numbers: [55],
      holder_name: 'MARIA DA SILVA',
      doc_number: VALID_CPF,
      card_token: tok.id,
    });
    const mine = await as(u)('GET', '/api/autopay/claims');
    expect(mine.status).toBe(200);
    expect(mine.body).toMatchObject({ taken: expect.any(Array), mine: [55] });
    expect((await me('GET', '/api/autopay/claims')).body.taken).toContain(55);
  });

  test("GET /api/me; GET /api/payments/me → the user; the participations, each with its draw and the caller's result", async () => {
    const u = await createUser(t);
    const other = await createUser(t);
    const won = await makeProductWithDraw(t, {}, { max_per_user: 0 });
    const lost = await makeProductWithDraw(t, {}, { max_per_user: 0 });
    const open = await makeProductWithDraw(t, {}, { max_per_user: 0 });
    await sellDirectly(t, won.draw.id, u.user.id, [1]);
    await sellDirectly(t, lost.draw.id, u.user.id, [2]);
    await sellDirectly(t, lost.draw.id, other.user.id, [3]);
    await sellDirectly(t, open.draw.id, u.user.id, [4]);
    await decide(won.draw.id, u.user.id, 1);
    await decide(lost.draw.id, other.user.id, 3);

    expect((await as(u)('GET', '/api/me')).body.user).toMatchObject({ id: u.user.id, email: u.email });
    const r = await as(u)('GET', '/api/payments/me');
    expect(r.status).toBe(200);
    const byDraw = new Map(r.body.items.map((i: { draw_id: number }) => [i.draw_id, i]));
    expect(byDraw.get(won.draw.id)).toMatchObject({
      status: 'approved',
      numbers: [1],
      result: 'contemplado',
      draw: { id: won.draw.id, status: 'sorteado', result: 'contemplado' },
    });
    expect(byDraw.get(lost.draw.id)).toMatchObject({
      status: 'approved',
      numbers: [2],
      result: 'nao contemplado',
      draw: { id: lost.draw.id, status: 'sorteado', result: 'nao contemplado' },
    });
    expect(byDraw.get(open.draw.id)).toMatchObject({
      status: 'approved',
      numbers: [4],
      result: 'open',
      draw: { id: open.draw.id, status: 'open', result: 'open' },
    });
  });

  test('reservations: GET /api/me/reservations?active=1 → items (with numbers) and reservations (one per number: id, draw_id, number, status, expires_at)', async () => {
    const { draw } = await makeProductWithDraw(t, {}, { max_per_user: 0 });
    const u = await createUser(t);
    const held = await as(u)('POST', '/api/reservations', { draw_id: draw.id, numbers: [9, 5] });
    const r = await as(u)('GET', `/api/me/reservations?active=1&_=${Date.now()}`);
    expect(r.status).toBe(200);
    expect(r.body.items).toEqual([
      expect.objectContaining({
        id: held.body.id,
        reservation_id: held.body.id,
        draw_id: draw.id,
        numbers: [5, 9],
        status: 'active',
        expires_at: expect.any(String),
      }),
    ]);
    expect(r.body.reservations).toEqual(
      [5, 9].map((n) =>
        expect.objectContaining({
          id: held.body.id,
          reservation_id: held.body.id,
          draw_id: draw.id,
          number: n,
          n,
          status: 'active',
          expires_at: expect.any(String),
          reserved_until: expect.any(String),
        }),
      ),
    );
  });

  test('GET /api/draws/{id} (and GET /api/draws) → the draw data', async () => {
    const { product, draw } = await makeProductWithDraw(t, { price_cents: 450 }, { max_per_user: 2, total_numbers: 30 });
    const r = await me('GET', `/api/draws/${draw.id}`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id: draw.id,
      draw_id: draw.id,
      title: draw.title,
      status: 'open',
      price_cents: 450,
      numbers_total: 30,
      max_per_user: 2,
      infoproduct_id: product.id,
      sku: product.sku,
    });
    expect((await me('GET', '/api/draws')).body.items.map((d: { id: number }) => d.id)).toContain(draw.id);
  });

  test('GET /api/ebooks/by-draw/{id} → title, url', async () => {
    const { product, draw } = await ebookWithDraw();
    const u = await createUser(t);
    await sellDirectly(t, draw.id, u.user.id, [0]);
    const r = await as(u)('GET', `/api/ebooks/by-draw/${draw.id}`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      title: product.title,
      url: expect.stringMatching(new RegExp(`^/api/ebooks/${product.sku}/download\\?`)),
    });
  });

  test('e-book download /api/ebooks/{sku}/download → the file, as a plain link (session cookie) or with the bearer', async () => {
    const { product, draw } = await ebookWithDraw();
    const u = await createUser(t);
    await sellDirectly(t, draw.id, u.user.id, [1]);
    const login = await t.api('POST', '/api/auth/login', { body: { email: u.email, password: u.password } });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
    const expected = createHash('sha256')
      .update(fs.readFileSync(path.join(EBOOKS, 'financas-em-dia.pdf')))
      .digest('hex');
    for (const headers of [{ cookie }, { authorization: `Bearer ${u.token}` }] as Array<Record<string, string>>) {
      const res = await fetch(`${t.url}/api/ebooks/${product.sku}/download`, { headers });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/pdf');
      expect(
        createHash('sha256')
          .update(Buffer.from(await res.arrayBuffer()))
          .digest('hex'),
      ).toBe(expected);
    }
  });

  test('GET /api/vouchers/remaining?draw_id → remaining', async () => {
    const { product, draw } = await makeProductWithDraw(t, {}, { max_per_user: 0 });
    const u = await createUser(t);
    await grant(t, u.user.id, product.id, 2);
    const r = await as(u)('GET', `/api/vouchers/remaining?draw_id=${draw.id}`);
    expect(r.status).toBe(200);
    expect(r.body.remaining).toBe(2);
  });

  test('GET /api/coupons/mine → the coupon: cents, code, last_payment_sync_at, updated_at', async () => {
    const created = await adm('POST', '/api/admin/users', {
      name: 'Com Cupom',
      email: `cupom-${Date.now()}@example.com`,
      coupon_value_cents: 800,
      coupon_reason: 'Crédito de teste',
    });
    const login = await t.api('POST', '/api/auth/login', {
      body: { email: created.body.email, password: created.body.temporary_password },
    });
    const r = await t.api('GET', '/api/coupons/mine', { token: login.body.token });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      cents: 800,
      code: created.body.coupon_code,
      last_payment_sync_at: null,
      updated_at: expect.any(String),
    });
  });

  test('POST /api/coupons/sync or /api/me/coupons/sync → {add_cents, last_payment_sync_at}', async () => {
    for (const p of ['/api/coupons/sync', '/api/me/coupons/sync']) {
      const r = await me('POST', p);
      expect([p, r.status]).toEqual([p, 200]);
      expect(r.body).toMatchObject({ add_cents: expect.any(Number), last_payment_sync_at: expect.any(String) });
    }
  });

  test('GET /api/config; POST /api/config {banner_title, max_numbers_per_selection} → the same fields', async () => {
    const r = await me('GET', '/api/config');
    expect(r.body).toMatchObject({
      banner_title: expect.any(String),
      max_numbers_per_selection: expect.any(Number),
      ticket_price_cents: expect.any(Number),
    });
    const saved = await adm('POST', '/api/config', { banner_title: 'Rodada do contrato', max_numbers_per_selection: 6 });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ banner_title: 'Rodada do contrato', max_numbers_per_selection: 6 });
    expect((await me('POST', '/api/config', { banner_title: 'x' })).status).toBe(403);
  });

  test('POST /api/payments/pix {reservationId, reservation_id} → the payment data (id, draw_id, numbers, status, qr_code, qr_code_base64, copy_paste, txid)', async () => {
    const { draw } = await makeProductWithDraw(t, { price_cents: 250 }, { max_per_user: 0 });
    const u = await createUser(t);
    const held = await as(u)('POST', '/api/reservations', { draw_id: draw.id, numbers: [14, 13] });
    const r = await as(u)('POST', `/api/payments/pix?_=${Date.now()}`, {
      reservationId: held.body.reservationId,
      reservation_id: held.body.reservationId,
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      paymentId: expect.any(Number),
      id: expect.any(Number),
      draw_id: draw.id,
      numbers: [13, 14],
      status: 'pending',
      amount_cents: 500,
      qr_code: expect.stringMatching(/^000201/),
      copy_paste: expect.stringMatching(/^000201/),
      qr_code_base64: expect.any(String),
      txid: expect.any(String),
      expires_at: expect.any(String),
    });
  });
});

describe('registration and reset', () => {
  test('POST /api/auth/reset-password {email, newPassword, from, subject, message} → 202, the client password ignored', async () => {
    const r = await t.api('POST', '/api/auth/reset-password', {
      body: { email: customer.email, newPassword: 'escolhida-pelo-cliente', from: 'x@y.z', subject: 'Reset', message: 'texto' },
    });
    expect(r.status).toBe(202);
    const login = await t.api('POST', '/api/auth/login', { body: { email: customer.email, password: 'escolhida-pelo-cliente' } });
    expect(login.status).toBe(401);
  });

  test('register: POST /api/register, then /api/auth/register, with the register payload → 201', async () => {
    for (const p of ['/api/register', '/api/auth/register']) {
      const body = registration();
      const r = await t.api('POST', p, { body });
      expect([p, r.status]).toEqual([p, 201]);
      expect(r.body.user).toMatchObject({ email: body.email, name: body.name });
      // A failure carries the message the form shows.
      const again = await t.api('POST', p, { body });
      expect([again.status, again.body.message]).toEqual([409, expect.any(String)]);
    }
  });
});

describe('admin', () => {
  test('GET /api/admin/dashboard/summary → draw_id, sold, remaining, price_cents (the newest open draw when the main series has none)', async () => {
    const { product, draw } = await makeProductWithDraw(t, { price_cents: 300 }, { total_numbers: 10, max_per_user: 0 });
    await sellDirectly(t, draw.id, customer.user.id, [0, 1]);
    await writeAppConfig(t.services.db, { main_infoproduct_id: product.id });
    const r = await adm('GET', '/api/admin/dashboard/summary');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ draw_id: draw.id, sold: 2, remaining: 8, price_cents: 300 });
    await t.services.db('draws').where({ id: draw.id }).update({ status: 'closed', closed_at: new Date() });
    const newest = await t.services.db('draws').where({ status: 'open' }).orderBy('id', 'desc').first('id');
    expect((await adm('GET', '/api/admin/dashboard/summary')).body.draw_id).toBe(newest.id);
  });

  test('POST /api/admin/dashboard/new → 201 (closes the main draw and opens the next; opens one when the main series has none)', async () => {
    const { product, draw } = await makeProductWithDraw(t, {}, { total_numbers: 10 });
    await writeAppConfig(t.services.db, { main_infoproduct_id: product.id });
    const r = await adm('POST', '/api/admin/dashboard/new');
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ closed_draw_id: draw.id, draw_id: expect.any(Number) });
    await t.services.db('draws').where({ id: r.body.draw_id }).update({ status: 'closed', closed_at: new Date() });
    const again = await adm('POST', '/api/admin/dashboard/new');
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ closed_draw_id: null, draw_id: expect.any(Number) });
    expect((await t.services.db('draws').where({ id: again.body.draw_id }).first()).infoproduct_id).toBe(product.id);
  });

  test('POST /api/admin/dashboard/ticket-price {price_cents} → 2xx, the summary with it', async () => {
    const { product } = await makeProductWithDraw(t);
    await writeAppConfig(t.services.db, { main_infoproduct_id: product.id });
    const r = await adm('POST', '/api/admin/dashboard/ticket-price', { price_cents: 275 });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ price_cents: 275 });
  });

  test('GET /api/admin/dashboard/open-buyers → draw_id, sold, remaining, buyers (user_id, name, email, count, numbers, total_cents), numbers (n, user_id, name, email)', async () => {
    const { product, draw } = await makeProductWithDraw(t, {}, { total_numbers: 10, max_per_user: 0 });
    await writeAppConfig(t.services.db, { main_infoproduct_id: product.id });
    await sellDirectly(t, draw.id, customer.user.id, [3, 4]);
    const r = await adm('GET', '/api/admin/dashboard/open-buyers');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ draw_id: draw.id, sold: 2, remaining: 8 });
    expect(r.body.buyers).toEqual([
      expect.objectContaining({
        user_id: customer.user.id,
        name: 'Cliente Contrato',
        email: customer.email,
        count: 2,
        numbers: [3, 4],
        total_cents: expect.any(Number),
      }),
    ]);
    expect(r.body.numbers[3]).toMatchObject({ n: 3, user_id: customer.user.id, name: 'Cliente Contrato', email: customer.email });
    expect(r.body.numbers[0]).toMatchObject({ n: 0, user_id: null });
  });

  test("GET /api/admin/draws; GET /api/infoproducts?limit=200; GET /api/infoproducts/{id} → the draws table and the dialog's e-books", async () => {
    const { product, draw } = await makeProductWithDraw(
      t,
      { price_cents: 990, title: 'E-book do dialogo' },
      { max_per_user: 3, total_numbers: 50 },
    );
    const r = await adm('GET', '/api/admin/draws');
    expect(r.status).toBe(200);
    expect(r.body.items.find((d: { id: number }) => d.id === draw.id)).toMatchObject({
      id: draw.id,
      title: draw.title,
      status: 'open',
      price_cents: 990,
      numbers_total: 50,
      max_per_user: 3,
      infoproduct_id: product.id,
      ipTitle: 'E-book do dialogo',
      ipPriceCents: 990,
    });
    expect((await adm('GET', '/api/infoproducts?limit=200')).body.items.find((p: { id: number }) => p.id === product.id)).toMatchObject({
      title: 'E-book do dialogo',
      price_cents: 990,
    });
    expect((await adm('GET', `/api/infoproducts/${product.id}`)).body).toMatchObject({
      id: product.id,
      title: 'E-book do dialogo',
      price_cents: 990,
    });
  });

  test('PATCH /api/admin/draws/{id} {status}; DELETE /api/admin/draws/{id}', async () => {
    const d = await makeDraw(t);
    const closed = await adm('PATCH', `/api/admin/draws/${d.id}`, { status: 'closed' });
    expect([closed.status, closed.body.status]).toEqual([200, 'closed']);
    const reopened = await adm('PATCH', `/api/admin/draws/${d.id}`, { status: 'open' });
    expect([reopened.status, reopened.body.status]).toEqual([200, 'open']);
    expect((await adm('DELETE', `/api/admin/draws/${d.id}`)).status).toBe(200);
    expect(await t.services.db('draws').where({ id: d.id }).first()).toBeUndefined();
  });

  test('POST /api/admin/draws and PUT /api/admin/draws/{id} with {title, name, status, price_cents, ticket_price_cents, numbers_total, total_numbers, max_per_user, limit_per_user, infoproduct_id}', async () => {
    const body = {
      title: 'Pelo diálogo',
      name: 'Pelo diálogo',
      status: 'closed',
      price_cents: 150,
      ticket_price_cents: 150,
      numbers_total: 30,
      total_numbers: 30,
      max_per_user: 2,
      limit_per_user: 2,
      infoproduct_id: null,
    };
    const c = await adm('POST', '/api/admin/draws', body);
    expect(c.status).toBe(201);
    expect(c.body).toMatchObject({
      title: 'Pelo diálogo',
      status: 'closed',
      price_cents: 150,
      numbers_total: 30,
      max_per_user: 2,
      infoproduct_id: null,
    });
    const u = await adm('PUT', `/api/admin/draws/${c.body.id}`, {
      ...body,
      title: 'Editado',
      name: 'Editado',
      price_cents: 175,
      ticket_price_cents: 175,
    });
    expect(u.status).toBe(200);
    expect(u.body).toMatchObject({ id: c.body.id, title: 'Editado', price_cents: 175 });
  });

  test('held raffles: GET /api/draws?status=closed (then /api/admin/draws?status=closed) → closed and decided draws with the columns', async () => {
    const winner = await createUser(t, { name: 'Vencedora Contrato' });
    const decided = await makeDraw(t, { status: 'closed', title: 'Realizado' });
    await sellDirectly(t, decided.id, winner.user.id, [5]);
    await decide(decided.id, winner.user.id, 5);
    const waiting = await makeDraw(t, { status: 'closed', title: 'Esperando' });
    await t.services.db('draws').where({ id: waiting.id }).update({ closed_at: new Date() });
    const columns = { opened_at: expect.any(String), closed_at: expect.any(String), days_open: expect.any(Number) };
    for (const [p, who] of [
      ['/api/draws?status=closed', 'VC'],
      ['/api/admin/draws?status=closed', 'Vencedora Contrato'],
    ] as const) {
      const r = await adm('GET', p);
      expect([p, r.status]).toEqual([p, 200]);
      const items: Array<{ id: number }> = r.body.items;
      expect(items.find((d) => d.id === decided.id)).toMatchObject({
        ...columns,
        status: 'sorteado',
        realized_at: expect.any(String),
        winner_name: who,
        winner_number: 5,
        winner_user_id: winner.user.id,
      });
      expect(items.find((d) => d.id === waiting.id)).toMatchObject({ ...columns, status: 'closed', realized_at: null, winner_name: null });
      expect(items.some((d) => (d as { status?: string }).status === 'open')).toBe(false);
    }
  });

  test('GET /api/admin/draws/{id}/participants → participants, one per number {user_id, user_name, number, status}', async () => {
    const { draw } = await makeProductWithDraw(t, {}, { max_per_user: 0 });
    const a = await createUser(t, { name: 'Bruna Participante' });
    const b = await createUser(t, { name: 'Ana Participante' });
    await sellDirectly(t, draw.id, a.user.id, [8, 2]);
    await sellDirectly(t, draw.id, b.user.id, [5]);
    await as(b)('POST', '/api/reservations', { draw_id: draw.id, numbers: [9] });
    const r = await adm('GET', `/api/admin/draws/${draw.id}/participants`);
    expect(r.status).toBe(200);
    expect(r.body.participants).toEqual([
      { user_id: a.user.id, user_name: 'Bruna Participante', number: 2, status: 'approved' },
      { user_id: b.user.id, user_name: 'Ana Participante', number: 5, status: 'approved' },
      { user_id: a.user.id, user_name: 'Bruna Participante', number: 8, status: 'approved' },
      { user_id: b.user.id, user_name: 'Ana Participante', number: 9, status: 'pending' },
    ]);
  });

  test('GET /api/admin/clients/active → items (user_id, name, email, created_at, purchases_count, total_brl, last_buy, wins, days_to_expire, coupon)', async () => {
    const created = await adm('POST', '/api/admin/users', {
      name: 'Saldo Ativo',
      email: `saldo-${Date.now()}@example.com`,
      coupon_value_cents: 1234,
      coupon_reason: 'Crédito',
    });
    const r = await adm('GET', '/api/admin/clients/active');
    expect(r.status).toBe(200);
    expect(r.body.items.find((c: { user_id: number }) => c.user_id === created.body.id)).toMatchObject({
      user_id: created.body.id,
      name: 'Saldo Ativo',
      email: created.body.email,
      created_at: expect.any(String),
      purchases_count: 0,
      total_brl: 12.34,
      last_buy: null,
      wins: 0,
      days_to_expire: null,
      coupon: created.body.coupon_code,
    });
  });

  test('GET /api/admin/winners → {winners}; PATCH /api/admin/winners/{drawId} {product_name, product_link} → the same fields', async () => {
    const w = await createUser(t, { name: 'Ganhador Contrato' });
    const d = await makeDraw(t, { status: 'closed' });
    await sellDirectly(t, d.id, w.user.id, [7]);
    await decide(d.id, w.user.id, 7);
    const r = await adm('GET', '/api/admin/winners');
    expect(r.status).toBe(200);
    expect(r.body.items).toBeUndefined();
    expect(r.body.winners.find((x: { draw_id: number }) => x.draw_id === d.id)).toMatchObject({
      draw_id: d.id,
      winner_name: 'Ganhador Contrato',
      winner_number: 7,
      realized_at: expect.any(String),
      status: 'NÃO RESGATADO',
      redeemed: false,
      days_since: 0,
      product_name: null,
      product_link: null,
    });
    const p = await adm('PATCH', `/api/admin/winners/${d.id}`, {
      product_name: 'Vale-presente',
      product_link: 'https://loja.example/vale',
    });
    expect(p.status).toBe(200);
    expect(p.body).toMatchObject({ product_name: 'Vale-presente', product_link: 'https://loja.example/vale' });
  });

  test('GET /api/admin/users?limit=500&offset=N (hasMore); POST, PUT (the saved user at the top level; the temporary password on creation); DELETE', async () => {
    const list = await adm('GET', '/api/admin/users?limit=500&offset=0');
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ items: expect.any(Array), hasMore: false });
    const payload = {
      name: 'Novo Cliente',
      email: `novo-${Date.now()}@example.com`,
      phone: '41988887777',
      is_admin: false,
      coupon_code: '',
      coupon_value_cents: 0,
      set_default_password: true,
    };
    const c = await adm('POST', '/api/admin/users', payload);
    expect(c.status).toBe(201);
    const userFields = {
      id: expect.any(Number),
      name: 'Novo Cliente',
      email: payload.email,
      phone: '41988887777',
      is_admin: false,
      coupon_code: expect.stringMatching(/^CV-/),
      coupon_value_cents: 0,
      created_at: expect.any(String),
    };
    expect(c.body).toMatchObject({ ...userFields, temporary_password: expect.any(String) });
    expect(c.body.message).toBe(`Salvo com sucesso. Senha padrão: ${c.body.temporary_password}`);
    const u = await adm('PUT', `/api/admin/users/${c.body.id}`, {
      name: 'Cliente Editado',
      email: payload.email,
      phone: '41988887777',
      is_admin: false,
      coupon_code: c.body.coupon_code,
      coupon_value_cents: 0,
    });
    expect(u.status).toBe(200);
    expect(u.body).toMatchObject({ ...userFields, id: c.body.id, name: 'Cliente Editado' });
    expect(u.body.user).toBeUndefined();
    expect((await adm('DELETE', `/api/admin/users/${c.body.id}`)).status).toBe(200);
  });

  test('POST /api/admin/users/{id}/assign-numbers {user_id, draw_id, numbers}', async () => {
    const { draw } = await makeProductWithDraw(t, {}, { max_per_user: 0 });
    const u = await createUser(t);
    const r = await adm('POST', `/api/admin/users/${u.user.id}/assign-numbers`, { user_id: u.user.id, draw_id: draw.id, numbers: [4, 1] });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ok: true, message: 'Números atribuídos com sucesso.', numbers: [1, 4] });
  });

  test('open draw lookups: GET /api/admin/draws?status=open → items, all open', async () => {
    const d = await makeDraw(t);
    const r = await adm('GET', '/api/admin/draws?status=open');
    expect(r.status).toBe(200);
    expect(r.body.items.map((x: { id: number }) => x.id)).toContain(d.id);
    expect(r.body.items.every((x: { status: string }) => x.status === 'open')).toBe(true);
  });

  test('board: GET /api/me/draws/{id}/board → draw (status, result, winner_number, winner_name, product_name, product_link), board cells (n, label, state, isWinner, isMine), my_numbers', async () => {
    const w = await createUser(t, { name: 'Dona Do Tabuleiro' });
    const d = await makeDraw(t, { status: 'closed', total_numbers: 100 });
    await sellDirectly(t, d.id, w.user.id, [42]);
    await sellDirectly(t, d.id, customer.user.id, [43]);
    await decide(d.id, w.user.id, 42);
    await t.services.db('draws').where({ id: d.id }).update({ product_name: 'Prêmio', product_link: 'https://loja.example/premio' });
    const r = await me('GET', `/api/me/draws/${d.id}/board`);
    expect(r.status).toBe(200);
    expect(r.body.draw).toMatchObject({
      status: 'sorteado',
      result: 'nao contemplado',
      winner_number: 42,
      winner_name: 'DDT',
      product_name: 'Prêmio',
      product_link: 'https://loja.example/premio',
    });
    expect(r.body.board[42]).toEqual({ n: 42, label: '42', state: 'taken', isWinner: true, isMine: false });
    expect(r.body.board[43]).toEqual({ n: 43, label: '43', state: 'taken', isWinner: false, isMine: true });
    expect(r.body.my_numbers).toEqual([43]);
    expect((await as(w)('GET', `/api/me/draws/${d.id}/board`)).body.draw).toMatchObject({
      result: 'contemplado',
      winner_name: 'Dona Do Tabuleiro',
    });
  });

  test('GET /api/admin/infoproducts?search=; POST, PUT, DELETE with {sku, title, …, price, prize (reais as typed), total_numbers, active, category_id, category_slug}', async () => {
    const sku = `CONTRATO-${Date.now()}`;
    const payload = {
      sku,
      title: 'Livro do Contrato',
      subtitle: null,
      description: null,
      cover_url: null,
      file_url: null,
      file_sha256: null,
      price: '19,90',
      prize: '1.234,56',
      total_numbers: 100,
      active: true,
      category_id: null,
      category_slug: null,
    };
    const c = await adm('POST', '/api/admin/infoproducts', payload);
    expect(c.status).toBe(201);
    expect(c.body).toMatchObject({
      id: expect.any(Number),
      sku,
      title: 'Livro do Contrato',
      price_cents: 1990,
      default_prize_cents: 123_456,
      active: true,
    });
    const list = await adm('GET', `/api/admin/infoproducts?search=${sku}`);
    expect(list.body.items.map((p: { id: number }) => p.id)).toEqual([c.body.id]);
    const u = await adm('PUT', `/api/admin/infoproducts/${c.body.id}`, { ...payload, price: '21,00' });
    expect([u.status, u.body.price_cents]).toEqual([200, 2100]);
    expect((await adm('DELETE', `/api/admin/infoproducts/${c.body.id}`)).status).toBe(200);
  });
});

/** A product whose e-book file is a real PDF of storage/ebooks (checked against its sha256), with an open draw. */
async function ebookWithDraw() {
  const bytes = fs.readFileSync(path.join(EBOOKS, 'financas-em-dia.pdf'));
  const product = await makeProduct(t, { file_url: 'financas-em-dia.pdf', title: 'Finanças do Contrato' });
  await t.services
    .db('infoproducts')
    .where({ id: product.id })
    .update({ file_sha256: createHash('sha256').update(bytes).digest('hex') });
  const draw = await makeDraw(t, { infoproduct_id: product.id, max_per_user: 0 });
  return { product, draw };
}
