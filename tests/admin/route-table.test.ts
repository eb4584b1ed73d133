import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { makeDraw, makeProductWithDraw } from '../draws/fixtures';
import { writeAppConfig } from '../../src/platform/app-config';
import { ADMIN_DRAWS_ROUTES, adminDrawsRoutes } from '../../src/draws/admin-routes';
import { moduleRouters } from '../../src/http';

/**
 * The admin-route guard table (RULES U1, H1): every /api/admin route of the draws router,
 * called anonymously (401), as a customer (403) and as an admin (its success status). The table is
 * built from ADMIN_DRAWS_ROUTES, which must name exactly the routes the router registers, and each
 * listed route must have a call below: a route added without both fails this file.
 */
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext({ env: { RATE_LIMIT_DISABLED: '1' } });
});
afterAll(() => t.close());

const key = (r: { method: string; path: string }) => `${r.method} ${r.path}`;

test('ADMIN_DRAWS_ROUTES names exactly the routes the router registers', () => {
  const router = adminDrawsRoutes(t.services);
  const registered = router.declared.map((d) => `${d.method} ${router.prefix}${d.path}`);
  expect(registered.sort()).toEqual(ADMIN_DRAWS_ROUTES.map(key).sort());
});

interface Call {
  path: string;
  body?: unknown;
  status: number;
}

test('every admin route: anonymous 401, customer 403 (nothing changes), admin allowed', async () => {
  const admin = await createUser(t, { admin: true });
  const customer = await createUser(t);
  const { product, draw: main } = await makeProductWithDraw(t, {}, { total_numbers: 10 });
  await writeAppConfig(t.services.db, { main_infoproduct_id: product.id });
  t.services.readCache.invalidateAll();
  const generic = await makeDraw(t, { status: 'closed', total_numbers: 5 });
  const doomed = await makeDraw(t, { status: 'closed', total_numbers: 5 });

  // One admin call per route (in this order: the delete runs last on its own draw).
  const calls: Record<string, () => Call> = {
    'GET /api/admin/dashboard/summary': () => ({ path: '/api/admin/dashboard/summary', status: 200 }),
    'POST /api/admin/dashboard/ticket-price': () => ({
      path: '/api/admin/dashboard/ticket-price',
      body: { price_cents: 250 },
      status: 200,
    }),
    'GET /api/admin/draws': () => ({ path: '/api/admin/draws', status: 200 }),
    'POST /api/admin/draws': () => ({
      path: '/api/admin/draws',
      body: { title: 'Sorteio da tabela', numbers_total: 3, status: 'closed' },
      status: 201,
    }),
    'GET /api/admin/draws/:id': () => ({ path: `/api/admin/draws/${generic.id}`, status: 200 }),
    'PUT /api/admin/draws/:id': () => ({ path: `/api/admin/draws/${generic.id}`, body: { title: 'Renomeado' }, status: 200 }),
    'PATCH /api/admin/draws/:id': () => ({ path: `/api/admin/draws/${generic.id}`, body: { status: 'open' }, status: 200 }),
    'GET /api/admin/draws/:id/board': () => ({ path: `/api/admin/draws/${generic.id}/board`, status: 200 }),
    'POST /api/admin/dashboard/new': () => ({ path: '/api/admin/dashboard/new', body: { draw_id: main.id, confirm_sold: 0 }, status: 201 }),
    'DELETE /api/admin/draws/:id': () => ({ path: `/api/admin/draws/${doomed.id}`, status: 200 }),
  };
  expect(Object.keys(calls).sort()).toEqual(ADMIN_DRAWS_ROUTES.map(key).sort());

  const auditBefore = await t.services.db('audit_log').count<{ c: string }[]>({ c: '*' });
  const drawsBefore = await t.services.db('draws').orderBy('id').select('id', 'title', 'status', 'ticket_price_cents_override');
  for (const route of ADMIN_DRAWS_ROUTES) {
    const c = calls[key(route)]();
    const anon = await t.api(route.method, c.path, { body: c.body });
    expect([key(route), anon.status, anon.body.error]).toEqual([key(route), 401, 'unauthenticated']);
    expect(anon.body.message).toBe('Faça login para continuar.');
    const cust = await t.api(route.method, c.path, { token: customer.token, body: c.body });
    expect([key(route), cust.status, cust.body]).toEqual([
      key(route),
      403,
      { error: 'forbidden', message: 'Acesso restrito a administradores.' },
    ]);
  }
  // Refused calls wrote nothing.
  expect(await t.services.db('audit_log').count<{ c: string }[]>({ c: '*' })).toEqual(auditBefore);
  expect(await t.services.db('draws').orderBy('id').select('id', 'title', 'status', 'ticket_price_cents_override')).toEqual(drawsBefore);

  for (const route of ADMIN_DRAWS_ROUTES.slice().sort((a, b) => Object.keys(calls).indexOf(key(a)) - Object.keys(calls).indexOf(key(b)))) {
    const c = calls[key(route)]();
    const ok = await t.api(route.method, c.path, { token: admin.token, body: c.body });
    expect([key(route), ok.status]).toEqual([key(route), c.status]);
    expect(ok.headers.get('cache-control')).toBe('no-store');
  }
});

/** Every /api/admin route mounted in the app (src/http.ts moduleRouters), whatever its module. */
function mountedAdminRoutes() {
  return moduleRouters(t.services).flatMap((router) =>
    router.declared
      .map((d) => ({ method: d.method as string, path: `${router.prefix}${d.path}` }))
      .filter((r) => r.path.startsWith('/api/admin')),
  );
}

test('every /api/admin route of every module: anonymous 401, customer 403, and nothing written', async () => {
  const customer = await createUser(t);
  const routes = mountedAdminRoutes();
  // The draws routes at least; other modules' admin routes join this table by being mounted.
  expect(routes.length).toBeGreaterThanOrEqual(ADMIN_DRAWS_ROUTES.length);
  const auditBefore = await t.services.db('audit_log').count<{ c: string }[]>({ c: '*' });
  for (const route of routes) {
    const path = route.path.replace(/:[A-Za-z_]+/g, '1');
    const anon = await t.api(route.method, path, { body: route.method === 'GET' ? undefined : {} });
    expect([key(route), anon.status, anon.body]).toEqual([
      key(route),
      401,
      { error: 'unauthenticated', message: 'Faça login para continuar.' },
    ]);
    const cust = await t.api(route.method, path, { token: customer.token, body: route.method === 'GET' ? undefined : {} });
    expect([key(route), cust.status, cust.body]).toEqual([
      key(route),
      403,
      { error: 'forbidden', message: 'Acesso restrito a administradores.' },
    ]);
  }
  expect(await t.services.db('audit_log').count<{ c: string }[]>({ c: '*' })).toEqual(auditBefore);
});

test('admin is read from the database on every request: a demoted admin is refused at once, a promoted customer let in', async () => {
  const u = await createUser(t, { admin: true });
  expect((await t.api('GET', '/api/admin/draws', { token: u.token })).status).toBe(200);
  await t.services.db('users').where({ id: u.user.id }).update({ is_admin: false, role: 'customer' });
  expect((await t.api('GET', '/api/admin/draws', { token: u.token })).status).toBe(403);
  await t.services.db('users').where({ id: u.user.id }).update({ is_admin: true });
  expect((await t.api('GET', '/api/admin/draws', { token: u.token })).status).toBe(200);
});

test('unknown admin paths answer JSON 404 and a wrong method 405, for admins and others alike', async () => {
  const admin = await createUser(t, { admin: true });
  const nope = await t.api('GET', '/api/admin/nada', { token: admin.token });
  expect(nope.status).toBe(404);
  expect(nope.body.error).toBeDefined();
  const wrong = await t.api('POST', '/api/admin/dashboard/summary', { token: admin.token, body: {} });
  expect(wrong.status).toBe(405);
});
