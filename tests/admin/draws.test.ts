import { createUser, type TestContext } from '../helpers/context';
import { adminContext, type TestUser } from './setup';
import { makeDraw, makeProduct, makeProductWithDraw, range, sellDirectly } from '../draws/fixtures';
import { writeAppConfig } from '../../src/platform/app-config';

/**
 * The admin draws table (account spec §2 "Admin dashboard"): create, edit, status chip, delete,
 * list and the legend board, against the real app and database. Writes are audited with
 * before/after and show in the public reads at once (their cache is dropped on commit).
 */
let t: TestContext;
let admin: TestUser;
beforeAll(async () => ({ t, admin } = await adminContext()));
afterAll(() => t.close());

const api = (method: string, path: string, body?: unknown) => t.api(method, path, { token: admin.token, body });
const auditOf = (drawId: number, action: string) =>
  t.services
    .db('audit_log')
    .where({ entity: 'draw', entity_id: String(drawId), action })
    .orderBy('id')
    .select('actor_user_id', 'actor', 'data');
const events = (name: string, drawId: number) =>
  t.services.db('domain_events').where({ name }).whereRaw(`(payload->>'drawId')::bigint = ?`, [drawId]);

describe('POST /api/admin/draws', () => {
  test('creates a draw with its number rows, from the spec aliases, audited, opened with an event and shown publicly at once', async () => {
    // Warm the public list: the creation must drop it.
    await t.api('GET', '/api/draws?status=open');
    const r = await api('POST', '/api/admin/draws', {
      name: 'Rodada Prata',
      ticket_price_cents: '250.9',
      total_numbers: 12.7,
      limit_per_user: 2,
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      title: 'Rodada Prata',
      status: 'open',
      price_cents: 250,
      ticket_price_cents_override: 250,
      numbers_total: 12,
      total_numbers: 12,
      max_per_user: 2,
      infoproduct_id: null,
      sold: 0,
      deletable: true,
    });
    const id = r.body.id;
    const cells = await t.services.db('draw_numbers').where({ draw_id: id }).orderBy('n');
    expect(cells.map((c) => [c.n, c.status])).toEqual(range(0, 12).map((n) => [n, 'available']));
    expect(await events('draw.opened', id)).toHaveLength(1);
    const log = await auditOf(id, 'draw.created');
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({
      actor_user_id: admin.user.id,
      actor: 'admin',
      data: { before: null, after: { id, title: 'Rodada Prata', status: 'open', total_numbers: 12, max_per_user: 2 } },
    });
    const pub = await t.api('GET', '/api/draws?status=open');
    expect(pub.body.items.map((d: { id: number }) => d.id)).toContain(id);
  });

  test('defaults: 100 numbers, 1 per user; a product gives its prize and price; a closed draw opens no event', async () => {
    const plain = await api('POST', '/api/admin/draws', { title: 'Padrão', status: 'fechado' });
    expect(plain.status).toBe(201);
    expect(plain.body).toMatchObject({
      status: 'closed',
      total_numbers: 100,
      max_per_user: 1,
      price_cents: 100,
      ticket_price_cents_override: null,
    });
    expect(plain.body.closed_at).not.toBeNull();
    expect(await events('draw.opened', plain.body.id)).toHaveLength(0);

    const p = await makeProduct(t, { price_cents: 990, default_prize_cents: 4321, default_total_numbers: 20 });
    const withProduct = await api('POST', '/api/admin/draws', { title: 'Do e-book', infoproduct_id: p.id, price_cents: 0 });
    expect(withProduct.status).toBe(201);
    expect(withProduct.body).toMatchObject({
      infoproduct_id: p.id,
      price_cents: 990,
      ipPriceCents: 990,
      ipTitle: p.title,
      prize_cents: 4321,
      total_numbers: 20,
      status: 'open',
    });

    // One open draw per product: a second open one is refused, a closed one is fine.
    const second = await api('POST', '/api/admin/draws', { title: 'Outro', infoproduct_id: p.id });
    expect(second.status).toBe(409);
    expect(second.body).toEqual({
      error: 'draw_already_open',
      message: 'Este e-book já tem um sorteio aberto. Feche-o antes de abrir outro.',
    });
    const closed = await api('POST', '/api/admin/draws', { title: 'Outro fechado', infoproduct_id: p.id, status: 'closed' });
    expect(closed.status).toBe(201);
    expect(await t.services.db('draws').where({ infoproduct_id: p.id, status: 'open' })).toHaveLength(1);

    const missing = await api('POST', '/api/admin/draws', { title: 'Sem e-book', infoproduct_id: 987654 });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'infoproduct_not_found', message: 'E-book não encontrado.' });
  });

  test('bad input answers 400 in Portuguese and creates nothing', async () => {
    const before = await t.services.db('draws').count<{ c: string }[]>({ c: '*' });
    const cases: Array<[unknown, string]> = [
      [{}, 'Informe o título do sorteio.'],
      [{ title: '   ' }, 'Informe o título do sorteio.'],
      [{ title: 42 }, 'O título deve ser um texto.'],
      [{ title: 'x', numbers_total: 0 }, 'A quantidade de números deve ser pelo menos 1.'],
      [{ title: 'x', total_numbers: 1001 }, 'A quantidade de números pode ser no máximo 1000.'],
      [{ title: 'x', numbers_total: 'cem' }, 'A quantidade de números deve ser um número.'],
      [{ title: 'x', price_cents: -1 }, 'O preço não pode ser negativo.'],
      [{ title: 'x', max_per_user: -1 }, 'O limite por usuário não pode ser negativo.'],
      [{ title: 'x', status: 'drawn' }, 'Status inválido. Use open ou closed.'],
      [{ title: 'x', infoproduct_id: '0x0f' }, 'E-book inválido.'],
      [{ title: 'x', infoproduct_id: 0 }, 'E-book inválido.'],
      [{ title: 'x', prize_cents: -5 }, 'O prêmio não pode ser negativo.'],
      [{ title: 'x', numbers_total: 1e300 }, 'A quantidade de números deve ser um número.'],
      [[], 'Envie um objeto JSON.'],
    ];
    for (const [payload, message] of cases) {
      const r = await api('POST', '/api/admin/draws', payload);
      expect([payload, r.status, r.body.error, r.body.message]).toEqual([payload, 400, 'validation_error', message]);
    }
    for (const rawBody of ['{', '"texto"']) {
      const notJson = await t.api('POST', '/api/admin/draws', { token: admin.token, rawBody });
      expect([rawBody, notJson.status, notJson.body.error]).toEqual([rawBody, 400, 'bad_request']);
    }
    expect(await t.services.db('draws').count<{ c: string }[]>({ c: '*' })).toEqual(before);
  });
});

describe('GET /api/admin/draws', () => {
  test('pages with limit/offset/hasMore, filters by status and searches by title or id', async () => {
    const tag = `Busca${Date.now()}`;
    const made = [];
    for (let i = 0; i < 3; i++)
      made.push(await makeDraw(t, { title: `${tag} ${i}`, status: i === 0 ? 'closed' : 'open', total_numbers: 2 }));
    const p1 = await api('GET', `/api/admin/draws?search=${tag}&limit=2`);
    expect(p1.status).toBe(200);
    expect(p1.body).toMatchObject({ hasMore: true, limit: 2, offset: 0 });
    expect(p1.body.items.map((d: { id: number }) => d.id)).toEqual([made[2].id, made[1].id]);
    const p2 = await api('GET', `/api/admin/draws?search=${tag}&limit=2&offset=2`);
    expect(p2.body).toMatchObject({ hasMore: false, offset: 2 });
    expect(p2.body.items.map((d: { id: number }) => d.id)).toEqual([made[0].id]);
    const closed = await api('GET', `/api/admin/draws?search=${tag}&status=closed`);
    expect(closed.body.items.map((d: { id: number }) => d.id)).toEqual([made[0].id]);
    // The held raffles' list: status=closed also brings the decided draws (answered as sorteado).
    await t.services.db('draws').where({ id: made[0].id }).update({ status: 'drawn', realized_at: new Date() });
    const held = await api('GET', `/api/admin/draws?search=${tag}&status=closed`);
    expect(held.body.items.map((d: { id: number; status: string }) => [d.id, d.status])).toEqual([[made[0].id, 'sorteado']]);
    expect((await api('GET', `/api/admin/draws?search=${tag}&status=sorteado`)).body.items.map((d: { id: number }) => d.id)).toEqual([
      made[0].id,
    ]);
    const byId = await api('GET', `/api/admin/draws?search=${made[1].id}`);
    expect(byId.body.items.map((d: { id: number }) => d.id)).toContain(made[1].id);
    // A LIKE wildcard in the search is a plain character.
    expect((await api('GET', '/api/admin/draws?search=%25%25%25_')).body.items).toEqual([]);

    for (const [qs, message] of [
      ['limit=0', 'O limite mínimo é 1.'],
      ['limit=201', 'O limite máximo é 200.'],
      ['offset=-1', 'O deslocamento não pode ser negativo.'],
      ['status=pendente', 'Status inválido. Use open, closed ou sorteado.'],
      ['infoproduct_id=1e3', 'E-book inválido.'],
    ]) {
      const r = await api('GET', `/api/admin/draws?${qs}`);
      expect([qs, r.status, r.body.message]).toEqual([qs, 400, message]);
    }
  });

  test('one draw by id; a bad id is 400, an unknown one 404', async () => {
    const d = await makeDraw(t, { total_numbers: 3 });
    expect((await api('GET', `/api/admin/draws/${d.id}`)).body).toMatchObject({ id: d.id, total_numbers: 3 });
    for (const bad of ['01', '0x0f', '1e3', '-1', 'abc']) {
      const r = await api('GET', `/api/admin/draws/${bad}`);
      expect([bad, r.status, r.body.message]).toEqual([bad, 400, 'Sorteio inválido.']);
    }
    const missing = await api('GET', '/api/admin/draws/99999999');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'draw_not_found', message: 'Sorteio não encontrado.' });
  });
});

describe('PUT /api/admin/draws/:id', () => {
  test('edits title, price, limit and total; the total and the e-book stay once the draw has a sale', async () => {
    const d = await makeDraw(t, { total_numbers: 10, title: 'Antes' });
    await t.api('GET', `/api/draws/${d.id}`); // warm the public detail
    const r = await api('PUT', `/api/admin/draws/${d.id}`, { title: 'Depois', price_cents: 333, numbers_total: 5, max_per_user: 0 });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ title: 'Depois', price_cents: 333, total_numbers: 5, max_per_user: 0 });
    expect(await t.services.db('draw_numbers').where({ draw_id: d.id }).pluck('n')).toEqual(range(0, 5));
    expect((await t.api('GET', `/api/draws/${d.id}`)).body).toMatchObject({ title: 'Depois', price_cents: 333, total_numbers: 5 });
    const log = await auditOf(d.id, 'draw.updated');
    expect(log[0].data).toMatchObject({
      before: { title: 'Antes', total_numbers: 10, ticket_price_cents_override: null },
      after: { title: 'Depois', total_numbers: 5, ticket_price_cents_override: 333 },
    });

    // price 0 (or null) goes back to the product's / config's price.
    expect((await api('PUT', `/api/admin/draws/${d.id}`, { price_cents: null })).body).toMatchObject({
      ticket_price_cents_override: null,
      price_cents: 100,
    });

    const buyer = await createUser(t);
    await sellDirectly(t, d.id, buyer.user.id, [0]);
    const refused = await api('PUT', `/api/admin/draws/${d.id}`, { numbers_total: 50 });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe('draw_in_use');
    const p = await makeProduct(t);
    expect((await api('PUT', `/api/admin/draws/${d.id}`, { infoproduct_id: p.id })).status).toBe(409);
    // The title may still change.
    expect((await api('PUT', `/api/admin/draws/${d.id}`, { title: 'Com venda' })).body.title).toBe('Com venda');
    expect(await t.services.db('draw_numbers').where({ draw_id: d.id }).count<{ c: number }[]>({ c: '*' })).toEqual([{ c: 5 }]);

    // The status goes through the same rules as the chip.
    expect((await api('PUT', `/api/admin/draws/${d.id}`, { status: 'closed' })).body.status).toBe('closed');

    const empty = await api('PUT', `/api/admin/draws/${d.id}`, {});
    expect([empty.status, empty.body.message]).toEqual([400, 'Nada para alterar.']);
    expect((await api('PUT', '/api/admin/draws/99999999', { title: 'x' })).status).toBe(404);
  });
});

test('PUT moving an open draw to an e-book that has an open draw is a 409 and changes nothing', async () => {
  const { product } = await makeProductWithDraw(t, {}, { total_numbers: 2 });
  const d = await makeDraw(t, { total_numbers: 2, title: 'Avulso' });
  const r = await api('PUT', `/api/admin/draws/${d.id}`, { infoproduct_id: product.id, title: 'Mudou' });
  expect([r.status, r.body.error]).toEqual([409, 'draw_already_open']);
  expect(await t.services.db('draws').where({ id: d.id }).first()).toMatchObject({ infoproduct_id: null, title: 'Avulso' });
  // Closed in the same call, it may move (the close applies first); back to no e-book with null.
  const moved = await api('PUT', `/api/admin/draws/${d.id}`, { infoproduct_id: product.id, status: 'closed' });
  expect(moved.body).toMatchObject({ infoproduct_id: product.id, status: 'closed' });
  // Reopening it there is the chip's rule: 409 while the e-book has its open draw.
  expect((await api('PUT', `/api/admin/draws/${d.id}`, { status: 'open' })).status).toBe(409);
  expect((await api('PUT', `/api/admin/draws/${d.id}`, { infoproduct_id: null })).body.infoproduct_id).toBeNull();
});

describe('PATCH /api/admin/draws/:id {status}', () => {
  test('toggles open ⇄ closed with events and audit; same status is a no-op', async () => {
    const d = await makeDraw(t, { total_numbers: 4 });
    const closed = await api('PATCH', `/api/admin/draws/${d.id}`, { status: 'closed' });
    expect(closed.status).toBe(200);
    expect(closed.body.status).toBe('closed');
    expect(closed.body.closed_at).not.toBeNull();
    expect(await events('draw.closed', d.id)).toHaveLength(1);
    // A closed draw takes no holds.
    const u = await createUser(t);
    expect((await t.api('POST', '/api/reservations', { token: u.token, body: { draw_id: d.id, numbers: [1] } })).status).toBe(409);

    const again = await api('PATCH', `/api/admin/draws/${d.id}`, { status: 'fechado' });
    expect(again.status).toBe(200);
    const opened = await api('PATCH', `/api/admin/draws/${d.id}`, { status: 'open' });
    expect(opened.body).toMatchObject({ status: 'open', closed_at: null });
    expect(await events('draw.opened', d.id)).toHaveLength(1);
    const log = await auditOf(d.id, 'draw.status_changed');
    expect(log.map((l) => [l.data.before.status, l.data.after.status])).toEqual([
      ['open', 'closed'],
      ['closed', 'open'],
    ]);
  });

  test('409 out of drawn, for a second open draw of a product and for a sold-out draw; 400 for a bad status', async () => {
    const drawn = await makeDraw(t, { total_numbers: 2, status: 'closed' });
    await t.services.db('draws').where({ id: drawn.id }).update({ status: 'drawn', realized_at: new Date() });
    for (const status of ['open', 'closed']) {
      const r = await api('PATCH', `/api/admin/draws/${drawn.id}`, { status });
      expect(r.status).toBe(409);
      expect(r.body).toEqual({ error: 'draw_drawn', message: 'Este sorteio já foi realizado: o status não pode mais mudar.' });
    }

    const { product, draw: open } = await makeProductWithDraw(t, {}, { total_numbers: 3 });
    const old = await makeDraw(t, { infoproduct_id: product.id, status: 'closed', total_numbers: 3 });
    const r = await api('PATCH', `/api/admin/draws/${old.id}`, { status: 'open' });
    expect(r.status).toBe(409);
    expect(r.body.error).toBe('draw_already_open');
    expect(await t.services.db('draws').where({ infoproduct_id: product.id, status: 'open' }).pluck('id')).toEqual([open.id]);

    const full = await makeDraw(t, { status: 'closed', total_numbers: 2 });
    const buyer = await createUser(t);
    await sellDirectly(t, full.id, buyer.user.id, [0, 1]);
    const sold = await api('PATCH', `/api/admin/draws/${full.id}`, { status: 'open' });
    expect([sold.status, sold.body.error]).toEqual([409, 'draw_sold_out']);

    for (const body of [{}, { status: 'drawn' }, { status: 1 }]) {
      const bad = await api('PATCH', `/api/admin/draws/${open.id}`, body);
      expect(bad.status).toBe(400);
      expect(bad.body.error).toBe('validation_error');
    }
  });
});

describe('DELETE /api/admin/draws/:id', () => {
  test('deletes a draw never held nor sold, with its numbers; audited', async () => {
    const d = await makeDraw(t, { total_numbers: 3, status: 'closed' });
    const r = await api('DELETE', `/api/admin/draws/${d.id}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ok: true, id: d.id });
    expect(await t.services.db('draws').where({ id: d.id })).toHaveLength(0);
    expect(await t.services.db('draw_numbers').where({ draw_id: d.id })).toHaveLength(0);
    expect((await auditOf(d.id, 'draw.deleted'))[0].data).toMatchObject({ before: { id: d.id, total_numbers: 3 }, after: null });
    expect((await api('DELETE', `/api/admin/draws/${d.id}`)).status).toBe(404);
  });

  test('409 for a draw with a sale, a hold (even a lapsed one) or already drawn; the sale ledger stays', async () => {
    const message = 'Este sorteio já tem vendas ou reservas e não pode ser excluído. Feche-o em vez de excluir.';
    const sold = await makeDraw(t, { total_numbers: 3 });
    const buyer = await createUser(t);
    await sellDirectly(t, sold.id, buyer.user.id, [2]);
    const r1 = await api('DELETE', `/api/admin/draws/${sold.id}`);
    expect(r1.status).toBe(409);
    expect(r1.body).toEqual({ error: 'draw_has_sales', message });
    expect(await t.services.db('number_sales').where({ draw_id: sold.id }).pluck('n')).toEqual([2]);
    expect((await api('GET', `/api/admin/draws/${sold.id}`)).body.deletable).toBe(false);

    const held = await makeDraw(t, { total_numbers: 3 });
    const holder = await createUser(t);
    const res = await t.api('POST', '/api/reservations', { token: holder.token, body: { draw_id: held.id, numbers: [1] } });
    expect(res.status).toBe(201);
    expect((await api('DELETE', `/api/admin/draws/${held.id}`)).status).toBe(409);
    // Released, the hold is history: the draw is still never erased.
    await t.services.db.transaction(async (trx) => {
      await trx('draw_numbers').where({ draw_id: held.id }).update({ status: 'available', reservation_id: null });
      await trx('reservations').where({ draw_id: held.id }).update({ status: 'expired' });
    });
    expect((await api('DELETE', `/api/admin/draws/${held.id}`)).status).toBe(409);

    const drawn = await makeDraw(t, { total_numbers: 2, status: 'closed' });
    await t.services.db('draws').where({ id: drawn.id }).update({ status: 'drawn', realized_at: new Date() });
    const decided = await api('DELETE', `/api/admin/draws/${drawn.id}`);
    expect(decided.status).toBe(409);
    expect(decided.body).toEqual({ error: 'draw_drawn', message: 'Este sorteio já foi realizado: ele não pode ser excluído.' });
    expect((await api('GET', `/api/admin/draws/${drawn.id}`)).body.deletable).toBe(false);
    expect(await t.services.db('draws').whereIn('id', [sold.id, held.id, drawn.id])).toHaveLength(3);
    expect(
      await t.services.db('audit_log').where({ action: 'draw.deleted' }).whereIn('entity_id', [sold.id, held.id, drawn.id].map(String)),
    ).toHaveLength(0);
  });
});

describe('GET /api/admin/draws/:id/board', () => {
  test('every number with its state and, for admins, the owner name', async () => {
    const d = await makeDraw(t, { total_numbers: 4 });
    const buyer = await createUser(t, { name: 'Maria Aparecida Souza' });
    await sellDirectly(t, d.id, buyer.user.id, [3]);
    const holder = await createUser(t);
    expect((await t.api('POST', '/api/reservations', { token: holder.token, body: { draw_id: d.id, numbers: [1] } })).status).toBe(201);
    const r = await api('GET', `/api/admin/draws/${d.id}/board`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      draw_id: d.id,
      status: 'open',
      total_numbers: 4,
      numbers: [
        { n: 0, state: 'available', status: 'available', owner_user_id: null, owner_name: null },
        { n: 1, state: 'reserved', status: 'reserved', owner_user_id: null, owner_name: null },
        { n: 2, state: 'available', status: 'available', owner_user_id: null, owner_name: null },
        { n: 3, state: 'sold', status: 'sold', owner_user_id: buyer.user.id, owner_name: 'Maria Aparecida Souza' },
      ],
    });
    expect((await api('GET', '/api/admin/draws/99999999/board')).status).toBe(404);
  });
});

describe('dashboard', () => {
  test('summary, ticket price and NOVO SORTEIO on the main series; other products untouched', async () => {
    const { product, draw: main } = await makeProductWithDraw(
      t,
      { price_cents: 500 },
      { total_numbers: 10, max_per_user: 3, title: 'Série principal' },
    );
    const other = await makeProductWithDraw(t, {}, { total_numbers: 5 });
    await writeAppConfig(t.services.db, { main_infoproduct_id: product.id });
    t.services.readCache.invalidateAll();
    const buyer = await createUser(t);
    await sellDirectly(t, main.id, buyer.user.id, [0, 1, 2]);
    const holder = await createUser(t);
    expect((await t.api('POST', '/api/reservations', { token: holder.token, body: { draw_id: main.id, numbers: [5] } })).status).toBe(201);

    const s = await api('GET', '/api/admin/dashboard/summary');
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({
      draw_id: main.id,
      title: 'Série principal',
      sold: 3,
      reserved: 1,
      available: 6,
      remaining: 7,
      total_numbers: 10,
      price_cents: 500,
      max_per_user: 3,
    });

    // Ticket price: becomes the current draw's price (the config's fallback stays), publicly at once.
    await t.api('GET', `/api/draws/${main.id}`);
    const price = await api('POST', '/api/admin/dashboard/ticket-price', { price_cents: 275 });
    expect(price.status).toBe(200);
    expect(price.body).toMatchObject({ draw_id: main.id, price_cents: 275, config_ticket_price_cents: 100 });
    expect((await t.api('GET', `/api/draws/${main.id}`)).body.price_cents).toBe(275);
    const priceLog = await t.services
      .db('audit_log')
      .where({ action: 'draw.ticket_price', actor_user_id: admin.user.id })
      .orderBy('id', 'desc')
      .first();
    expect(priceLog.data).toMatchObject({
      before: { price_cents: 500, draw: { ticket_price_cents_override: null } },
      after: { price_cents: 275, draw: { ticket_price_cents_override: 275 } },
    });
    for (const [body, message] of [
      [{ price_cents: -1 }, 'O preço do bilhete não pode ser negativo.'],
      [{ price_cents: 'caro' }, 'O preço do bilhete deve ser um número.'],
      [{}, 'Campo obrigatório.'],
    ] as const) {
      const r = await api('POST', '/api/admin/dashboard/ticket-price', body);
      expect([r.status, r.body.message]).toEqual([400, message]);
    }

    // NOVO SORTEIO: a stale confirmation is refused and changes nothing.
    const stale = await api('POST', '/api/admin/dashboard/new', { draw_id: main.id, confirm_sold: 2 });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({
      error: 'draw_changed',
      message: 'O sorteio atual já tem 3 números vendidos. Confira e confirme de novo.',
      sold: 3,
    });
    const wrongDraw = await api('POST', '/api/admin/dashboard/new', { draw_id: other.draw.id });
    expect(wrongDraw.status).toBe(409);
    expect((await t.services.db('draws').where({ id: main.id }).first()).status).toBe('open');

    const n = await api('POST', '/api/admin/dashboard/new', { draw_id: main.id, confirm_sold: 3 });
    expect(n.status).toBe(201);
    const successor = await t.services.db('draws').where({ predecessor_id: main.id }).first();
    expect(n.body).toEqual({ closed_draw_id: main.id, draw_id: successor.id, sold: 3 });
    expect(successor).toMatchObject({
      status: 'open',
      infoproduct_id: product.id,
      title: 'Série principal',
      total_numbers: 10,
      max_per_user: 3,
      ticket_price_cents_override: 275,
    });
    expect((await t.services.db('draws').where({ id: main.id }).first()).status).toBe('closed');
    expect(await t.services.db('draws').where({ infoproduct_id: product.id, status: 'open' }).pluck('id')).toEqual([successor.id]);
    expect((await t.services.db('draws').where({ id: other.draw.id }).first()).status).toBe('open');
    expect(await events('draw.opened', successor.id)).toHaveLength(1);
    expect(await events('draw.closed', main.id)).toHaveLength(1);
    expect((await auditOf(main.id, 'draw.new_series'))[0].data).toMatchObject({
      sold: 3,
      before: { status: 'open' },
      after: { closed: { status: 'closed' }, opened: { id: successor.id, status: 'open' } },
    });
    // The sales of the closed draw stay; the public config's current draw is the successor.
    expect(await t.services.db('number_sales').where({ draw_id: main.id }).pluck('n')).toEqual([0, 1, 2]);
    expect((await t.api('GET', '/api/config')).body.current_draw_id).toBe(successor.id);
    expect((await api('GET', '/api/admin/dashboard/summary')).body).toMatchObject({
      draw_id: successor.id,
      sold: 0,
      remaining: 10,
      price_cents: 275,
    });
  });

  test('NOVO SORTEIO without a main series is a 409; without its open draw it opens one (201), and the summary shows the newest open draw meanwhile', async () => {
    await writeAppConfig(t.services.db, { main_infoproduct_id: null });
    const r = await api('POST', '/api/admin/dashboard/new', {});
    expect(r.status).toBe(409);
    expect(r.body.error).toBe('no_main_series');
    const p = await makeProduct(t, { title: 'Série sem sorteio' });
    await makeDraw(t, { infoproduct_id: p.id, status: 'closed', total_numbers: 20, max_per_user: 4, title: 'Série pausada' });
    await writeAppConfig(t.services.db, { main_infoproduct_id: p.id });
    t.services.readCache.invalidateAll();
    const bad = await api('POST', '/api/admin/dashboard/new', { draw_id: '01' });
    expect([bad.status, bad.body.message]).toEqual([400, 'Sorteio inválido.']);

    // The main series has no open draw: the dashboard, the buyers page and the config show the newest open draw.
    const newest = await t.services.db('draws').where({ status: 'open' }).orderBy('id', 'desc').first();
    const s = await api('GET', '/api/admin/dashboard/summary');
    expect(s.body).toMatchObject({ draw_id: newest.id, infoproduct_id: newest.infoproduct_id, main_infoproduct_id: p.id });
    expect((await api('GET', '/api/admin/dashboard/open-buyers')).body.draw_id).toBe(newest.id);
    expect((await t.api('GET', '/api/config')).body).toMatchObject({ current_draw_id: newest.id, draw_id: newest.id });

    // An archived main e-book gets no draw.
    await t.services.db('infoproducts').where({ id: p.id }).update({ active: false });
    expect(await api('POST', '/api/admin/dashboard/new', {})).toMatchObject({ status: 409, body: { error: 'infoproduct_inactive' } });
    await t.services.db('infoproducts').where({ id: p.id }).update({ active: true });

    // NOVO SORTEIO opens the main series' draw with its latest draw's settings; nothing else closes.
    const n = await api('POST', '/api/admin/dashboard/new', { draw_id: newest.id, confirm_sold: 0 });
    expect(n.status).toBe(201);
    const opened = await t.services.db('draws').where({ infoproduct_id: p.id, status: 'open' }).first();
    expect(n.body).toEqual({ closed_draw_id: null, draw_id: opened.id, sold: 0 });
    expect(opened).toMatchObject({ title: 'Série pausada', total_numbers: 20, max_per_user: 4 });
    expect((await t.services.db('draws').where({ id: newest.id }).first()).status).toBe('open');
    expect(await events('draw.opened', opened.id)).toHaveLength(1);
    expect((await auditOf(opened.id, 'draw.new_series'))[0]).toMatchObject({
      actor_user_id: admin.user.id,
      data: { before: null, after: { closed: null, opened: { id: opened.id } }, sold: 0 },
    });
    expect((await api('GET', '/api/admin/dashboard/summary')).body).toMatchObject({
      draw_id: opened.id,
      infoproduct_id: p.id,
      sold: 0,
      remaining: 20,
    });
    expect((await t.api('GET', '/api/config')).body.current_draw_id).toBe(opened.id);
  });
});

test('the draw_id indexes migration is in place and runs down and up again', async () => {
  const m = await import('../../migrations/20261123120500_draw-history-indexes');
  const names = async () =>
    (await t.services
      .db('pg_indexes')
      .whereIn('indexname', ['reservations_draw', 'payments_draw', 'autopay_runs_draw', 'number_sales_draw'])
      .orderBy('indexname')
      .pluck('indexname')) as string[];
  expect(await names()).toEqual(['autopay_runs_draw', 'number_sales_draw', 'payments_draw', 'reservations_draw']);
  await m.down(t.services.db);
  expect(await names()).toEqual([]);
  await m.up(t.services.db);
  await m.up(t.services.db);
  expect(await names()).toHaveLength(4);
});
