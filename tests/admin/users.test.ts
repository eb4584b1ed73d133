import { createUser, type TestContext } from '../helpers/context';
import { adminContext, type TestUser } from './setup';
import { grant, invariantViolations, makeDraw, makeProductWithDraw, sellDirectly } from '../draws/fixtures';
import { ADMIN_USERS_ROUTES, adminUsersRoutes } from '../../src/auth/admin-users-routes';

/**
 * The customer registry (the console's 'Cadastro de Clientes') and the number assignment, against
 * the real app and database: list/search/pagination, create with a temporary password and a reset
 * mail, edit with a coupon ledger adjustment, the own-admin-flag rule, delete or anonymize (LGPD),
 * and assigning numbers as an admin payment of 0. Every write is audited.
 */
let t: TestContext;
let admin: TestUser;
beforeAll(async () => ({ t, admin } = await adminContext({ name: 'Admin Principal' })));
afterAll(() => t.close());

const api = (method: string, path: string, body?: unknown) => t.api(method, path, { token: admin.token, body });
const auditOf = (userId: number, action: string) =>
  t.services
    .db('audit_log')
    .where({ entity: 'user', entity_id: String(userId), action })
    .orderBy('id')
    .select('actor_user_id', 'actor', 'data');
let seq = 0;
const freshEmail = () => `cliente${++seq}-${Date.now()}@exemplo.com.br`;

test('ADMIN_USERS_ROUTES names exactly the routes the router registers; each answers an admin with no-store', async () => {
  const router = adminUsersRoutes(t.services);
  const registered = router.declared.map((d) => `${d.method} ${router.prefix}${d.path}`);
  expect(registered.sort()).toEqual(ADMIN_USERS_ROUTES.map((r) => `${r.method} ${r.path}`).sort());
  const u = await createUser(t);
  const draw = await makeDraw(t, { total_numbers: 5 });
  const calls: Record<string, [string, unknown, number]> = {
    'GET /api/admin/users': ['/api/admin/users', undefined, 200],
    'POST /api/admin/users': ['/api/admin/users', { name: 'Tabela', email: freshEmail() }, 201],
    'PUT /api/admin/users/:id': [`/api/admin/users/${u.user.id}`, { name: 'Tabela Editada' }, 200],
    'POST /api/admin/users/:id/assign-numbers': [`/api/admin/users/${u.user.id}/assign-numbers`, { draw_id: draw.id, numbers: [1] }, 200],
    'GET /api/admin/clients/active': ['/api/admin/clients/active', undefined, 200],
    'DELETE /api/admin/users/:id': [`/api/admin/users/${u.user.id}`, undefined, 200],
  };
  expect(Object.keys(calls).sort()).toEqual(ADMIN_USERS_ROUTES.map((r) => `${r.method} ${r.path}`).sort());
  for (const [key, [path, body, status]] of Object.entries(calls)) {
    const r = await api(key.split(' ')[0], path, body);
    expect([key, r.status]).toEqual([key, status]);
    expect(r.headers.get('cache-control')).toBe('no-store');
  }
});

describe('GET /api/admin/users', () => {
  test('lists users with the table columns, searches by name, e-mail, phone and coupon, pages with hasMore', async () => {
    const a = await createUser(t, { name: 'Joana Pesquisável' });
    await t.services.db('users').where({ id: a.user.id }).update({ phone: '11987654321', coupon_code: 'CV-ABCDEFGH12' });
    const all = await api('GET', '/api/admin/users');
    expect(all.status).toBe(200);
    expect(all.headers.get('cache-control')).toBe('no-store');
    expect(all.body).toMatchObject({ limit: 500, offset: 0, hasMore: false });
    const row = all.body.items.find((u: { id: number }) => u.id === a.user.id);
    expect(row).toEqual({
      id: a.user.id,
      name: 'Joana Pesquisável',
      email: a.email,
      phone: '11987654321',
      is_admin: false,
      role: 'customer',
      coupon_code: 'CV-ABCDEFGH12',
      coupon_value_cents: 0,
      coupon_valid_until: null,
      created_at: expect.any(String),
    });
    expect(row).not.toHaveProperty('password_hash');
    expect(row).not.toHaveProperty('cpf');
    for (const term of ['pesquisável', a.email.toUpperCase(), '98765', 'abcdefgh']) {
      const r = await api('GET', `/api/admin/users?search=${encodeURIComponent(term)}`);
      expect([term, r.body.items.map((u: { id: number }) => u.id)]).toEqual([term, [a.user.id]]);
    }
    // LIKE wildcards are plain text.
    expect((await api('GET', '/api/admin/users?search=%25')).body.items).toEqual([]);
    const page = await api('GET', '/api/admin/users?limit=1&offset=0');
    expect(page.body.items).toHaveLength(1);
    expect(page.body.hasMore).toBe(true);
    const last = await api('GET', `/api/admin/users?limit=1&offset=${all.body.items.length - 1}`);
    expect(last.body.hasMore).toBe(false);
  });

  test.each([
    ['limit=0', 'O limite mínimo é 1.'],
    ['limit=501', 'O limite máximo é 500.'],
    ['offset=-1', 'O deslocamento não pode ser negativo.'],
    ['limit=abc', 'O limite deve ser um número.'],
  ])('bad query %s answers 400 in Portuguese', async (qs, message) => {
    const r = await api('GET', `/api/admin/users?${qs}`);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('validation_error');
    expect(JSON.stringify(r.body)).toContain(message);
  });

  test('anonymous 401, customer 403', async () => {
    const c = await createUser(t);
    expect((await t.api('GET', '/api/admin/users')).status).toBe(401);
    const r = await t.api('GET', '/api/admin/users', { token: c.token });
    expect([r.status, r.body]).toEqual([403, { error: 'forbidden', message: 'Acesso restrito a administradores.' }]);
    expect((await t.api('GET', '/api/admin/clients/active', { token: c.token })).status).toBe(403);
  });
});

describe('POST /api/admin/users', () => {
  test('creates with a random temporary password shown once, e-mails a reset link, audits; the password works', async () => {
    const email = freshEmail();
    const r = await api('POST', '/api/admin/users', {
      name: '  Carla Nova ',
      email: email.toUpperCase(),
      phone: '(41) 99999-1234',
      is_admin: false,
      coupon_code: '',
      coupon_value_cents: 1500,
      set_default_password: true,
    });
    expect(r.status).toBe(201);
    const pw: string = r.body.temporary_password;
    expect(pw).toMatch(/^[A-Za-z0-9_-]{12}$/);
    expect(r.body.message).toBe(`Salvo com sucesso. Senha padrão: ${pw}`);
    // The saved user itself at the top level (account spec §7).
    expect(r.body).toMatchObject({ name: 'Carla Nova', email, phone: '41999991234', is_admin: false, coupon_value_cents: 1500 });
    expect(r.body.coupon_code).toMatch(/^CV-[0-9A-Z]{10}$/);
    const id = r.body.id;
    // Another creation gets another password: never a shared default.
    const other = await api('POST', '/api/admin/users', { name: 'Outro', email: freshEmail() });
    expect(other.body.temporary_password).not.toBe(pw);

    const stored = await t.services.db('users').where({ id }).first();
    expect(stored.password_hash).toMatch(/^\$argon2id\$/);
    expect(JSON.stringify(stored)).not.toContain(pw);
    const mail = await t.services.db('mail_outbox').where({ to_address: email, template: 'password_reset' });
    expect(mail).toHaveLength(1);
    // The opening balance is a ledger adjustment with a reason and its author.
    expect(await t.services.db('coupon_ledger').where({ user_id: id }).select('kind', 'amount_cents', 'note', 'actor_user_id')).toEqual([
      {
        kind: 'adjustment',
        amount_cents: 1500,
        note: 'Saldo inicial definido no cadastro pelo administrador',
        actor_user_id: admin.user.id,
      },
    ]);
    const log = await auditOf(id, 'user.created');
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({
      actor_user_id: admin.user.id,
      actor: 'admin',
      data: { before: null, after: { id, email, name: 'Carla Nova', coupon_value_cents: 1500 } },
    });
    expect(JSON.stringify(log[0])).not.toContain(pw);

    const login = await t.api('POST', '/api/auth/login', { body: { email, password: pw } });
    expect(login.status).toBe(200);
    expect(login.body.user.id).toBe(id);
  });

  test('validation answers 400 with the spec messages and creates nothing', async () => {
    const before = await t.services.db('users').count<{ c: string }[]>({ c: '*' });
    const cases: Array<[unknown, string]> = [
      [{ email: freshEmail() }, 'Informe seu nome completo.'],
      [{ name: '   ', email: freshEmail() }, 'Informe seu nome completo.'],
      [{ name: 'X', email: 'nao-e-email' }, 'E-mail inválido.'],
      [{ name: 'X', email: freshEmail(), phone: '123' }, 'Informe um telefone válido com DDD.'],
      [{ name: 'X', email: freshEmail(), coupon_value_cents: -1 }, 'O saldo não pode ser negativo.'],
      [{ name: 'X', email: freshEmail(), coupon_value_cents: 1.5 }, 'O saldo deve ser um número inteiro de centavos.'],
      [{ name: 'X', email: freshEmail(), is_admin: 'sim' }, 'Administrador deve ser verdadeiro ou falso.'],
      [[1, 2], 'Envie os dados como um objeto JSON.'],
    ];
    for (const [body, message] of cases) {
      const r = await api('POST', '/api/admin/users', body);
      expect([JSON.stringify(body), r.status]).toEqual([JSON.stringify(body), 400]);
      expect(JSON.stringify(r.body)).toContain(message);
    }
    const chosen = await api('POST', '/api/admin/users', { name: 'X', email: freshEmail(), coupon_code: 'CV-ESCOLHIDO' });
    expect([chosen.status, chosen.body.message]).toEqual([400, 'O código do cupom é gerado automaticamente.']);
    expect(await t.services.db('users').count<{ c: string }[]>({ c: '*' })).toEqual(before);
  });

  test('a taken e-mail (any case) is 409', async () => {
    const u = await createUser(t);
    const r = await api('POST', '/api/admin/users', { name: 'Dup', email: u.email.toUpperCase() });
    expect([r.status, r.body]).toEqual([409, { error: 'email_taken', message: 'Já existe uma conta com este e-mail.' }]);
  });
});

describe('PUT /api/admin/users/{id}', () => {
  test('edits fields; a balance change is a ledger adjustment that needs a reason; audited before/after', async () => {
    const u = await createUser(t, { name: 'Editável' });
    const noReason = await api('PUT', `/api/admin/users/${u.user.id}`, { name: 'Editada', coupon_value_cents: 2500 });
    expect([noReason.status, noReason.body.message]).toEqual([400, 'Informe o motivo do ajuste de saldo.']);
    // Nothing of the refused call was kept.
    expect((await t.services.db('users').where({ id: u.user.id }).first()).name).toBe('Editável');

    const r = await api('PUT', `/api/admin/users/${u.user.id}`, {
      name: 'Editada',
      phone: '',
      is_admin: true,
      coupon_value_cents: 2500,
      coupon_reason: 'Bônus de boas-vindas',
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      message: 'Salvo com sucesso.',
      name: 'Editada',
      phone: null,
      is_admin: true,
      coupon_value_cents: 2500,
      coupon_adjustment: { before_cents: 0, after_cents: 2500, cents: 2500 },
    });
    const down = await api('PUT', `/api/admin/users/${u.user.id}`, { coupon_value_cents: 1000, reason: 'Correção' });
    expect(down.body.coupon_adjustment).toEqual({ before_cents: 2500, after_cents: 1000, cents: -1500 });
    expect(await t.services.db('coupon_ledger').where({ user_id: u.user.id }).orderBy('id').select('kind', 'amount_cents', 'note')).toEqual(
      [
        { kind: 'adjustment', amount_cents: 2500, note: 'Bônus de boas-vindas' },
        { kind: 'adjustment', amount_cents: -1500, note: 'Correção' },
      ],
    );
    // The customer area shows the same balance (one rule).
    const mine = await t.api('GET', '/api/coupons/mine', { token: u.token });
    expect(mine.body.cents).toBe(1000);
    // The same value again is no adjustment.
    const same = await api('PUT', `/api/admin/users/${u.user.id}`, { name: 'Editada', coupon_value_cents: 1000 });
    expect([same.status, same.body.coupon_adjustment]).toEqual([200, null]);

    const log = await auditOf(u.user.id, 'user.updated');
    expect(log).toHaveLength(3);
    expect(log[0]).toMatchObject({
      actor_user_id: admin.user.id,
      actor: 'admin',
      data: {
        before: { name: 'Editável', is_admin: false, coupon_value_cents: 0, phone: '41999998888' },
        after: { name: 'Editada', is_admin: true, coupon_value_cents: 2500, phone: null },
        coupon_adjustment: { cents: 2500, reason: 'Bônus de boas-vindas' },
      },
    });
  });

  test('validation, unknown user 404, bad id 400, taken e-mail 409, nothing to change 400, a balance below zero impossible', async () => {
    const u = await createUser(t);
    const other = await createUser(t);
    expect((await api('PUT', `/api/admin/users/${u.user.id}`, { email: 'x' })).body.message).toBe('E-mail inválido.');
    expect((await api('PUT', `/api/admin/users/${u.user.id}`, { coupon_value_cents: 100, reason: 'x' })).status).toBe(400);
    expect(await api('PUT', '/api/admin/users/99999999', { name: 'N' })).toMatchObject({
      status: 404,
      body: { error: 'user_not_found', message: 'Usuário não encontrado.' },
    });
    expect(await api('PUT', '/api/admin/users/abc', { name: 'N' })).toMatchObject({ status: 400, body: { message: 'Usuário inválido.' } });
    expect(await api('PUT', `/api/admin/users/${u.user.id}`, { email: other.email })).toMatchObject({
      status: 409,
      body: { error: 'email_taken' },
    });
    expect(await api('PUT', `/api/admin/users/${u.user.id}`, {})).toMatchObject({ status: 400, body: { message: 'Nada para alterar.' } });
    expect(await api('PUT', `/api/admin/users/${u.user.id}`, { coupon_code: 'CV-OUTRO' })).toMatchObject({
      status: 400,
      body: { error: 'coupon_code_generated' },
    });
    expect(await auditOf(u.user.id, 'user.updated')).toEqual([]);
  });

  test('an admin cannot remove their own admin flag (another admin can)', async () => {
    const me = await createUser(t, { admin: true });
    const self = await t.api('PUT', `/api/admin/users/${me.user.id}`, { token: me.token, body: { is_admin: false } });
    expect([self.status, self.body]).toEqual([
      409,
      { error: 'own_admin_flag', message: 'Você não pode remover o seu próprio acesso de administrador.' },
    ]);
    expect((await t.services.db('users').where({ id: me.user.id }).first()).is_admin).toBe(true);
    // Editing their own name is fine.
    expect(
      (await t.api('PUT', `/api/admin/users/${me.user.id}`, { token: me.token, body: { name: 'Eu Mesmo', is_admin: true } })).status,
    ).toBe(200);
    const byOther = await api('PUT', `/api/admin/users/${me.user.id}`, { is_admin: false });
    expect([byOther.status, byOther.body.is_admin]).toEqual([200, false]);
    // Read from the database per request: the demoted admin is refused at once.
    expect((await t.api('GET', '/api/admin/users', { token: me.token })).status).toBe(403);
  });
});

describe('DELETE /api/admin/users/{id}', () => {
  test('an account without money records is deleted, audited', async () => {
    const u = await createUser(t, { name: 'Sem Compras' });
    const r = await api('DELETE', `/api/admin/users/${u.user.id}`);
    expect([r.status, r.body]).toEqual([200, { ok: true, id: u.user.id, outcome: 'deleted', message: 'Excluído.' }]);
    expect(await t.services.db('users').where({ id: u.user.id }).first()).toBeUndefined();
    const log = await auditOf(u.user.id, 'user.deleted');
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ actor_user_id: admin.user.id, data: { before: { id: u.user.id, name: 'Sem Compras' }, after: null } });
    expect((await api('DELETE', `/api/admin/users/${u.user.id}`)).status).toBe(404);
  });

  test('an account with payments and numbers is anonymized: money records stay, sessions end, no sign-in, hidden from the list', async () => {
    const u = await createUser(t, { name: 'Maria Compradora' });
    const { product, draw } = await makeProductWithDraw(t, {}, { total_numbers: 10 });
    await grant(t, u.user.id, product.id, 2);
    await sellDirectly(t, draw.id, u.user.id, [3]);
    // A live hold goes back to the board.
    const hold = await t.api('POST', '/api/reservations', { token: u.token, body: { draw_id: draw.id, numbers: [5] } });
    expect(hold.status).toBe(201);
    const paymentsBefore = await t.services.db('payments').where({ user_id: u.user.id }).count<{ c: string }[]>({ c: '*' });

    const r = await api('DELETE', `/api/admin/users/${u.user.id}`);
    expect([r.status, r.body.outcome]).toEqual([200, 'anonymized']);
    const row = await t.services.db('users').where({ id: u.user.id }).first();
    expect(row).toMatchObject({
      name: 'Cliente removido',
      email: `removido-${u.user.id}@anonimizado.invalid`,
      phone: null,
      cpf: null,
      birthdate: null,
      password_hash: null,
      is_admin: false,
    });
    expect(row.anonymized_at).toBeInstanceOf(Date);
    expect(await t.services.db('payments').where({ user_id: u.user.id }).count<{ c: string }[]>({ c: '*' })).toEqual(paymentsBefore);
    expect((await t.services.db('draw_numbers').where({ draw_id: draw.id, n: 3 }).first()).owner_user_id).toBe(u.user.id);
    expect((await t.services.db('draw_numbers').where({ draw_id: draw.id, n: 5 }).first()).status).toBe('available');
    expect(await invariantViolations(t, [draw.id])).toEqual([]);
    // The old session and password are dead.
    expect((await t.api('GET', '/api/me', { token: u.token })).status).toBe(401);
    expect((await t.api('POST', '/api/auth/login', { body: { email: u.email, password: u.password } })).status).toBe(401);
    const list = await api('GET', `/api/admin/users?search=${encodeURIComponent('Compradora')}`);
    expect(list.body.items).toEqual([]);
    // The public board shows no initials of the old name.
    const board = await t.api('GET', `/api/draws/${draw.id}/numbers`);
    expect(board.body.numbers.find((c: { n: number }) => c.n === 3).initials).not.toBe('MC');
    const log = await auditOf(u.user.id, 'user.anonymized');
    expect(log).toHaveLength(1);
    expect(JSON.stringify(log[0].data)).not.toContain(u.email);
    expect(JSON.stringify(log[0].data)).not.toContain('Maria');
    // Once removed, it is gone for the registry.
    expect((await api('PUT', `/api/admin/users/${u.user.id}`, { name: 'Volta' })).status).toBe(404);
  });

  test('an admin cannot delete their own account', async () => {
    const r = await api('DELETE', `/api/admin/users/${admin.user.id}`);
    expect([r.status, r.body]).toEqual([409, { error: 'own_account', message: 'Você não pode excluir a sua própria conta.' }]);
  });
});

describe('POST /api/admin/users/{id}/assign-numbers', () => {
  test('sells free numbers as an admin payment of 0, audited; the customer sees them; the board is fresh', async () => {
    const u = await createUser(t);
    const draw = await makeDraw(t, { total_numbers: 20, max_per_user: 0 });
    await t.api('GET', `/api/draws/${draw.id}/numbers`); // warm the cache: the assignment must drop it
    const r = await api('POST', `/api/admin/users/${u.user.id}/assign-numbers`, { user_id: u.user.id, draw_id: draw.id, numbers: [7, 2] });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      ok: true,
      message: 'Números atribuídos com sucesso.',
      user_id: u.user.id,
      draw_id: draw.id,
      numbers: [2, 7],
      sold_out: false,
      next_draw_id: null,
    });
    const p = await t.services.db('payments').where({ id: r.body.payment_id }).first();
    expect(p).toMatchObject({
      user_id: u.user.id,
      kind: 'admin',
      method: 'admin',
      provider: 'admin',
      status: 'approved',
      amount_cents: 0,
      draw_id: draw.id,
      numbers: [2, 7],
    });
    expect(
      await t.services.db('number_sales').where({ draw_id: draw.id }).orderBy('n').select('n', 'user_id', 'payment_id', 'source'),
    ).toEqual([
      { n: 2, user_id: u.user.id, payment_id: p.id, source: 'admin' },
      { n: 7, user_id: u.user.id, payment_id: p.id, source: 'admin' },
    ]);
    expect(await t.services.db('payment_fulfilments').where({ payment_id: p.id }).first()).toBeDefined();
    const board = await t.api('GET', `/api/draws/${draw.id}/numbers`);
    expect(board.body.numbers.filter((c: { status: string }) => c.status === 'sold').map((c: { n: number }) => c.n)).toEqual([2, 7]);
    const mine = await t.api('GET', '/api/payments/me', { token: u.token });
    const entry = mine.body.items.find((i: { id: number }) => i.id === p.id);
    expect(entry).toMatchObject({ kind: 'admin', draw_id: draw.id, numbers: [2, 7], status: 'approved', amount_cents: 0 });
    const log = await auditOf(u.user.id, 'user.numbers_assigned');
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({
      actor_user_id: admin.user.id,
      data: { draw_id: draw.id, numbers: [2, 7], payment_id: p.id, before: { owned_in_draw: 0 }, after: { owned_in_draw: 2 } },
    });
  });

  test('all or nothing: 409 with the conflicting numbers, nothing sold', async () => {
    const u = await createUser(t);
    const other = await createUser(t);
    const draw = await makeDraw(t, { total_numbers: 10 });
    await sellDirectly(t, draw.id, other.user.id, [4]);
    const hold = await t.api('POST', '/api/reservations', { token: other.token, body: { draw_id: draw.id, numbers: [6] } });
    expect(hold.status).toBe(201);
    const r = await api('POST', `/api/admin/users/${u.user.id}/assign-numbers`, { draw_id: draw.id, numbers: [1, 4, 6] });
    expect(r.status).toBe(409);
    expect(r.body).toEqual({ error: 'numbers_conflict', message: 'Estes números não estão disponíveis: 04, 06.', conflicts: [4, 6] });
    expect(await t.services.db('draw_numbers').where({ draw_id: draw.id, owner_user_id: u.user.id })).toEqual([]);
    expect(await t.services.db('payments').where({ user_id: u.user.id })).toEqual([]);
  });

  test('max_per_user: refused without the override, allowed with it (and audited as over the limit)', async () => {
    const u = await createUser(t);
    const draw = await makeDraw(t, { total_numbers: 10, max_per_user: 1 });
    const r = await api('POST', `/api/admin/users/${u.user.id}/assign-numbers`, { draw_id: draw.id, numbers: [1, 2] });
    expect([r.status, r.body.error]).toEqual([409, 'limit_exceeded']);
    expect(r.body.message).toContain('Limite de 1 número por pessoa');
    const ok = await api('POST', `/api/admin/users/${u.user.id}/assign-numbers`, {
      draw_id: draw.id,
      numbers: [1, 2],
      override_max_per_user: true,
    });
    expect(ok.status).toBe(200);
    expect((await auditOf(u.user.id, 'user.numbers_assigned'))[0].data).toMatchObject({ override_max_per_user: true, over_limit: true });
  });

  test('respects the lifecycle: closed draw 409; the last numbers close it and open the successor like a sale', async () => {
    const u = await createUser(t);
    const closed = await makeDraw(t, { total_numbers: 5, status: 'closed' });
    const r = await api('POST', `/api/admin/users/${u.user.id}/assign-numbers`, { draw_id: closed.id, numbers: [1] });
    expect([r.status, r.body.error]).toEqual([409, 'draw_closed']);

    const { product, draw } = await makeProductWithDraw(t, {}, { total_numbers: 3, max_per_user: 0 });
    await sellDirectly(t, draw.id, admin.user.id, [0]);
    const last = await api('POST', `/api/admin/users/${u.user.id}/assign-numbers`, { draw_id: draw.id, numbers: [1, 2] });
    expect(last.status).toBe(200);
    expect(last.body.sold_out).toBe(true);
    const after = await t.services.db('draws').where({ id: draw.id }).first();
    expect(after.status).toBe('closed');
    const successor = await t.services.db('draws').where({ predecessor_id: draw.id }).first();
    expect(successor).toMatchObject({ status: 'open', infoproduct_id: product.id });
    expect(last.body.next_draw_id).toBe(successor.id);
  });

  test('validation 400s and 404s', async () => {
    const u = await createUser(t);
    const draw = await makeDraw(t, { total_numbers: 10 });
    const cases: Array<[unknown, string]> = [
      [{ numbers: [1] }, 'Informe um sorteio e pelo menos um número.'],
      [{ draw_id: draw.id }, 'Informe um sorteio e pelo menos um número.'],
      [{ draw_id: draw.id, numbers: [] }, 'Informe um sorteio e pelo menos um número.'],
      [{ draw_id: draw.id, numbers: [1, 1] }, 'Números repetidos na lista.'],
      [{ draw_id: draw.id, numbers: [1.5] }, 'Os números devem ser inteiros.'],
      [{ draw_id: draw.id, numbers: [-1] }, 'Os números não podem ser negativos.'],
      [{ draw_id: draw.id, numbers: [10] }, 'Número fora da tabela: 10.'],
      [{ draw_id: draw.id, numbers: [1], override_max_per_user: 'sim' }, 'Ignorar o limite deve ser verdadeiro ou falso.'],
      [{ draw_id: draw.id, numbers: [1], user_id: u.user.id + 1 }, 'O usuário do corpo não é o do endereço.'],
    ];
    for (const [body, message] of cases) {
      const r = await api('POST', `/api/admin/users/${u.user.id}/assign-numbers`, body);
      expect([JSON.stringify(body), r.status, r.body.message ?? r.body]).toEqual([
        JSON.stringify(body),
        400,
        expect.stringContaining(message.replace(/\.$/, '')),
      ]);
    }
    expect(await api('POST', `/api/admin/users/99999999/assign-numbers`, { draw_id: draw.id, numbers: [1] })).toMatchObject({
      status: 404,
      body: { error: 'user_not_found' },
    });
    expect(await api('POST', `/api/admin/users/${u.user.id}/assign-numbers`, { draw_id: 99999999, numbers: [1] })).toMatchObject({
      status: 404,
      body: { error: 'draw_not_found' },
    });
    expect(await t.services.db('payments').where({ user_id: u.user.id })).toEqual([]);
  });
});
