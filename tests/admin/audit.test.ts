import type { TestContext } from '../helpers/context';
import { adminContext, type TestUser } from './setup';
import { audit } from '../../src/platform/audit';

/**
 * The audit log of the admin console (RULES U5): GET /api/admin/audit, newest first, filtered by
 * entity and entity id, paginated with hasMore. 401/403 come from tests/admin/route-table.test.ts
 * (every mounted /api/admin route).
 */
let t: TestContext;
let admin: TestUser;
beforeAll(async () => ({ t, admin } = await adminContext({ name: 'Ana Auditora' })));
afterAll(() => t.close());

const get = (query = '') => t.api('GET', `/api/admin/audit${query}`, { token: admin.token });

test('an admin write shows first in the log with actor, action, entity and before/after', async () => {
  const created = await t.api('POST', '/api/admin/draws', {
    token: admin.token,
    body: { title: 'Auditado', numbers_total: 5, status: 'closed' },
  });
  expect(created.status).toBe(201);
  const id = created.body.id;
  const renamed = await t.api('PUT', `/api/admin/draws/${id}`, { token: admin.token, body: { title: 'Auditado 2' } });
  expect(renamed.status).toBe(200);

  const r = await get();
  expect(r.status).toBe(200);
  expect(r.headers.get('cache-control')).toBe('no-store');
  expect(r.body).toMatchObject({ limit: 50, offset: 0, hasMore: false });
  const [latest, previous] = r.body.items;
  expect(latest).toMatchObject({
    actor: 'admin',
    actor_user_id: admin.user.id,
    actor_name: 'Ana Auditora',
    actor_email: admin.user.email,
    action: 'draw.updated',
    entity: 'draw',
    entity_id: String(id),
    before: { id, title: 'Auditado', status: 'closed' },
    after: { id, title: 'Auditado 2', status: 'closed' },
  });
  expect(latest.data).toEqual({ before: latest.before, after: latest.after });
  expect(new Date(latest.created_at).toISOString()).toBe(latest.created_at);
  expect(previous).toMatchObject({ action: 'draw.created', entity_id: String(id), before: null, after: { title: 'Auditado' } });
  expect(latest.id).toBeGreaterThan(previous.id);
});

test('filters by entity and by entity id; an entry without before/after keeps its data', async () => {
  await t.services.db.transaction((trx) =>
    audit(trx, { actor: 'cli', action: 'config.updated', entity: 'app_config', data: { banner_title: 'Olá' } }),
  );
  const a = await t.api('POST', '/api/admin/draws', {
    token: admin.token,
    body: { title: 'Filtro A', numbers_total: 3, status: 'closed' },
  });
  const b = await t.api('POST', '/api/admin/draws', {
    token: admin.token,
    body: { title: 'Filtro B', numbers_total: 3, status: 'closed' },
  });

  const configs = await get('?entity=app_config');
  expect(configs.status).toBe(200);
  expect(configs.body.items.length).toBeGreaterThanOrEqual(1);
  expect(configs.body.items.every((e: { entity: string }) => e.entity === 'app_config')).toBe(true);
  expect(configs.body.items[0]).toMatchObject({
    actor: 'cli',
    actor_user_id: null,
    actor_name: null,
    action: 'config.updated',
    before: null,
    after: null,
    data: { banner_title: 'Olá' },
  });

  const onlyA = await get(`?entity=draw&entity_id=${a.body.id}`);
  expect(onlyA.body.items.map((e: { entity_id: string; action: string }) => [e.entity_id, e.action])).toEqual([
    [String(a.body.id), 'draw.created'],
  ]);
  const onlyB = await get(`?entity_id=${b.body.id}&entity=draw`);
  expect(onlyB.body.items).toHaveLength(1);
  expect(onlyB.body.items[0].after.title).toBe('Filtro B');

  const none = await get('?entity=nada_disso');
  expect(none.body).toEqual({ items: [], hasMore: false, limit: 50, offset: 0 });
});

test('pages newest first with limit, offset and hasMore, without gaps or repeats', async () => {
  for (let i = 0; i < 5; i++)
    await t.api('POST', '/api/admin/draws', { token: admin.token, body: { title: `Página ${i}`, numbers_total: 2, status: 'closed' } });
  const all = (await get('?entity=draw&limit=200')).body.items.map((e: { id: number }) => e.id);
  expect(all.length).toBeGreaterThanOrEqual(5);
  expect([...all].sort((x, y) => y - x)).toEqual(all);

  const seen: number[] = [];
  let offset = 0;
  for (;;) {
    const page = await get(`?entity=draw&limit=2&offset=${offset}`);
    expect(page.status).toBe(200);
    expect(page.body.limit).toBe(2);
    expect(page.body.offset).toBe(offset);
    expect(page.body.items.length).toBeLessThanOrEqual(2);
    seen.push(...page.body.items.map((e: { id: number }) => e.id));
    if (!page.body.hasMore) break;
    expect(page.body.items).toHaveLength(2);
    offset += 2;
  }
  expect(seen).toEqual(all);
});

test('bad query answers 400 in Portuguese', async () => {
  const cases: Array<[string, string]> = [
    ['?limit=0', 'O limite mínimo é 1.'],
    ['?limit=201', 'O limite máximo é 200.'],
    ['?limit=abc', 'O limite deve ser um número.'],
    ['?limit=1.5', 'O limite deve ser um número inteiro.'],
    ['?offset=-1', 'O deslocamento não pode ser negativo.'],
    ['?entity=dr%20aw', 'Entidade inválida. Use letras, números, ponto, hífen ou sublinhado.'],
    [`?entity=${'x'.repeat(61)}`, 'A entidade pode ter no máximo 60 caracteres.'],
    [`?entity_id=${'9'.repeat(101)}`, 'O id da entidade pode ter no máximo 100 caracteres.'],
    ['?entity=a&entity=b', 'A entidade deve ser um texto.'],
  ];
  for (const [q, message] of cases) {
    const r = await get(q);
    expect([q, r.status, r.body.error, r.body.message]).toEqual([q, 400, 'validation_error', message]);
  }
});
