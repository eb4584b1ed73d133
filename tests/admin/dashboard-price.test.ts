import { createUser, type TestContext } from '../helpers/context';
import { adminContext, type TestUser } from './setup';
import { makeProductWithDraw } from '../draws/fixtures';
import { readAppConfig, writeAppConfig } from '../../src/platform/app-config';

/**
 * RULES N9 (issue 26): one source of truth for the price a buyer pays. GET /api/config answers the
 * current draw's price (as the dashboard summary does), and the dashboard's ATUALIZAR, sent as the
 * account spec's client sends it (§7 "Admin": POST /admin/dashboard/ticket-price {price_cents} with
 * the price it read, then POST /config {banner_title, max_numbers_per_selection}), changes no price
 * when the price was not changed.
 */
let t: TestContext;
let admin: TestUser;
beforeAll(async () => ({ t, admin } = await adminContext()));
afterAll(() => t.close());

const api = (method: string, path: string, body?: unknown) => t.api(method, path, { token: admin.token, body });

/** The main e-book at R$ 10,00 (its own price), config's fallback R$ 1,00: the client's store of the issue. */
async function mainSeries() {
  const { product, draw } = await makeProductWithDraw(t, { price_cents: 1000 }, { total_numbers: 10, title: 'E-book principal' });
  await writeAppConfig(t.services.db, { main_infoproduct_id: product.id, ticket_price_cents: 100 });
  t.services.readCache.invalidateAll();
  return { product, draw };
}

const prices = async () => ({
  config: (await readAppConfig(t.services.db)).ticket_price_cents,
  draws: await t.services.db('draws').orderBy('id').select('id', 'ticket_price_cents_override'),
  products: await t.services.db('infoproducts').orderBy('id').select('id', 'price_cents'),
});

test('GET /api/config answers the current draw price, the same as the dashboard summary', async () => {
  const { draw } = await mainSeries();
  const pub = await t.api('GET', '/api/config');
  expect(pub.status).toBe(200);
  expect(pub.body).toMatchObject({ current_draw_id: draw.id, ticket_price_cents: 1000, default_ticket_price_cents: 100 });
  const summary = await api('GET', '/api/admin/dashboard/summary');
  expect(summary.body).toMatchObject({ draw_id: draw.id, price_cents: 1000 });
  expect((await t.api('GET', `/api/draws/${draw.id}`)).body.ticket_price_cents).toBe(1000);
});

test("the spec's dashboard save (ATUALIZAR with the price as read) changes no price", async () => {
  const { draw } = await mainSeries();
  const before = await prices();
  const auditBefore = await t.services.db('audit_log').where({ action: 'draw.ticket_price' }).count<{ c: string }[]>({ c: '*' });

  // What the spec's client does: read the config (and the summary), then ATUALIZAR as it was shown.
  const config = (await t.api('GET', '/api/config', { token: admin.token })).body;
  const summary = (await api('GET', '/api/admin/dashboard/summary')).body;
  expect(config.ticket_price_cents).toBe(summary.price_cents);
  const price = await api('POST', '/api/admin/dashboard/ticket-price', { price_cents: config.ticket_price_cents });
  expect(price.status).toBe(200);
  expect(price.body).toMatchObject({ draw_id: draw.id, price_cents: 1000 });
  const saved = await api('POST', '/api/config', {
    banner_title: config.banner_title,
    max_numbers_per_selection: config.max_numbers_per_selection,
    // A client that sends the price along: /api/config does not take it.
    ticket_price_cents: 1,
  });
  expect(saved.status).toBe(200);

  expect(await prices()).toEqual(before);
  const auditAfter = await t.services.db('audit_log').where({ action: 'draw.ticket_price' }).count<{ c: string }[]>({ c: '*' });
  expect(auditAfter[0].c).toBe(auditBefore[0].c);
  expect((await t.api('GET', '/api/config')).body.ticket_price_cents).toBe(1000);
  expect((await t.api('GET', `/api/draws/${draw.id}`)).body.ticket_price_cents).toBe(1000);
});

test('a changed price becomes the current draw price, audited, and GET /api/config answers it', async () => {
  const { draw, product } = await mainSeries();
  expect((await t.api('GET', '/api/config')).body.ticket_price_cents).toBe(1000); // warm the cache
  const r = await api('POST', '/api/admin/dashboard/ticket-price', { price_cents: 1250 });
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ draw_id: draw.id, price_cents: 1250, config_ticket_price_cents: 100 });
  expect((await t.api('GET', '/api/config')).body).toMatchObject({ ticket_price_cents: 1250, default_ticket_price_cents: 100 });
  expect((await t.api('GET', `/api/draws/${draw.id}`)).body.ticket_price_cents).toBe(1250);
  // The draw's own price; the e-book's and the config's stay.
  expect((await t.services.db('draws').where({ id: draw.id }).first()).ticket_price_cents_override).toBe(1250);
  expect((await t.services.db('infoproducts').where({ id: product.id }).first()).price_cents).toBe(1000);
  expect((await readAppConfig(t.services.db)).ticket_price_cents).toBe(100);
  const log = await t.services
    .db('audit_log')
    .where({ action: 'draw.ticket_price', entity: 'draw', entity_id: String(draw.id) })
    .orderBy('id', 'desc')
    .first();
  expect(log).toMatchObject({ actor_user_id: admin.user.id, actor: 'admin' });
  expect(log.data).toMatchObject({
    before: { price_cents: 1000, draw: { ticket_price_cents_override: null } },
    after: { price_cents: 1250, draw: { ticket_price_cents_override: 1250 } },
  });
});

test('without a current draw the price is the config fallback, and saving it changes that', async () => {
  await writeAppConfig(t.services.db, { main_infoproduct_id: null, ticket_price_cents: 100 });
  await t.services
    .db('draws')
    .where({ status: 'open' })
    .update({ status: 'closed', closed_by: 'admin', closed_at: t.services.db.fn.now() });
  t.services.readCache.invalidateAll();
  expect((await t.api('GET', '/api/config')).body).toMatchObject({ current_draw_id: null, ticket_price_cents: 100 });
  const r = await api('POST', '/api/admin/dashboard/ticket-price', { price_cents: 300 });
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ draw_id: null, price_cents: 300, config_ticket_price_cents: 300 });
  expect((await t.api('GET', '/api/config')).body.ticket_price_cents).toBe(300);
  const log = await t.services.db('audit_log').where({ action: 'draw.ticket_price', entity: 'app_config' }).orderBy('id', 'desc').first();
  expect(log.data).toEqual({ before: { config_ticket_price_cents: 100 }, after: { config_ticket_price_cents: 300 } });
  await writeAppConfig(t.services.db, { ticket_price_cents: 100 });
});

test('bad input 400, anonymous 401, customer 403; nothing changes', async () => {
  const { draw } = await mainSeries();
  for (const body of [{ price_cents: -1 }, { price_cents: 'dez' }, {}]) {
    const r = await api('POST', '/api/admin/dashboard/ticket-price', body);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: 'validation_error', message: expect.stringMatching(/preço|obrigatório/i) });
  }
  const anon = await t.api('POST', '/api/admin/dashboard/ticket-price', { body: { price_cents: 1 } });
  expect(anon.status).toBe(401);
  const customer = await createUser(t);
  const forbidden = await t.api('POST', '/api/admin/dashboard/ticket-price', { token: customer.token, body: { price_cents: 1 } });
  expect(forbidden.status).toBe(403);
  expect((await t.services.db('draws').where({ id: draw.id }).first()).ticket_price_cents_override).toBeNull();
  expect((await t.api('GET', '/api/config')).body.ticket_price_cents).toBe(1000);
});
