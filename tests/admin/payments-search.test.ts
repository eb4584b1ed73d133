import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { buyEbooks, makeDraw, makeProductWithDraw, paymentRow } from '../payments/fixtures';

/**
 * The console's payments page (issue 26): every payment reachable (no filter = all), a server-side
 * search by customer name, e-mail, CPF, payment id and provider id (RULES P14) with keyset pages,
 * and no refund of a R$ 0,00 admin grant (RULES RF8).
 */
let t: TestContext;
let admin: Awaited<ReturnType<typeof createUser>>;
beforeAll(async () => {
  t = await createTestContext({ env: { RATE_LIMIT_DISABLED: '1' } });
  admin = await createUser(t, { admin: true });
});
afterAll(() => t.close());

const api = (method: string, path: string, body?: unknown) => t.api(method, path, { token: admin.token, body });
const ids = (r: { status: number; body: { items: Array<{ id: number }> } }) => {
  if (r.status !== 200) throw new Error(JSON.stringify(r.body));
  return r.body.items.map((p) => p.id);
};
const search = (q: string, extra = '') => api('GET', `/api/admin/payments?q=${encodeURIComponent(q)}${extra}`);

let seq = 0;
/** A customer with a CPF and one e-book PIX of R$ 5,00. */
async function customerWithPayment(name: string) {
  const u = await createUser(t, { name, email: `${name.split(' ')[0].toLowerCase()}.${Date.now().toString(36)}${++seq}@exemplo.com.br` });
  const cpf = String(10_000_000_000 + Date.now() * 10 + seq).slice(-11);
  await t.services.db('users').where({ id: u.user.id }).update({ cpf });
  const { product } = await makeProductWithDraw(t, { price_cents: 500 });
  const p = await buyEbooks(t, u.token, product.id, 1, 500);
  const row = await paymentRow(t, p.paymentId);
  return { u, cpf, paymentId: Number(p.paymentId), providerId: row.provider_payment_id as string };
}

describe('GET /api/admin/payments?q=', () => {
  test('finds payments by a part of the name, the e-mail, the CPF (with or without its mask), the payment id and the provider id', async () => {
    const ana = await customerWithPayment('Ana Beatriz Quintela');
    const bruno = await customerWithPayment('Bruno Quintana');
    expect(ana.providerId).toBeTruthy();

    expect(ids(await search('Quintela'))).toEqual([ana.paymentId]);
    expect(ids(await search('beatriz quin'))).toEqual([ana.paymentId]);
    expect(ids(await search('Quint'))).toEqual([bruno.paymentId, ana.paymentId]);
    expect(ids(await search(ana.u.email))).toEqual([ana.paymentId]);
    expect(ids(await search(ana.u.email.toUpperCase()))).toEqual([ana.paymentId]);
    expect(ids(await search(bruno.cpf))).toEqual([bruno.paymentId]);
    const masked = `${bruno.cpf.slice(0, 3)}.${bruno.cpf.slice(3, 6)}.${bruno.cpf.slice(6, 9)}-${bruno.cpf.slice(9)}`;
    expect(ids(await search(masked))).toEqual([bruno.paymentId]);
    expect(ids(await search(String(ana.paymentId)))).toEqual([ana.paymentId]);
    expect(ids(await search(bruno.providerId))).toEqual([bruno.paymentId]);
    // LIKE's own characters are searched as themselves.
    expect(ids(await search('%%'))).toEqual([]);
    expect(ids(await search('Ninguém Assim'))).toEqual([]);
    // With the other filters.
    expect(ids(await search('Quint', '&status=approved'))).toEqual([]);
    expect(ids(await search('Quint', '&status=pending'))).toEqual([bruno.paymentId, ana.paymentId]);
  });

  test('no filter lists every payment; keyset pages with next_cursor reach the last one', async () => {
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await customerWithPayment(`Carla Paginada${i}`));
    const all = await api('GET', '/api/admin/payments');
    expect(all.status).toBe(200);
    expect(ids(all)).toEqual(expect.arrayContaining(made.map((m) => m.paymentId)));

    const first = await search('Paginada', '&limit=2');
    expect(first.body).toMatchObject({ hasMore: true, next_cursor: made[1].paymentId });
    expect(ids(first)).toEqual([made[2].paymentId, made[1].paymentId]);
    const second = await search('Paginada', `&limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body).toMatchObject({ hasMore: false, next_cursor: null });
    expect(ids(second)).toEqual([made[0].paymentId]);
  });

  test('bad input answers 400 in Portuguese', async () => {
    for (const [query, message] of [
      ['q=%20', 'Digite o que buscar.'],
      [`q=${'x'.repeat(121)}`, 'A busca pode ter no máximo 120 caracteres.'],
      ['cursor=abc', 'Cursor inválido.'],
      ['cursor=5&offset=10', 'Use o cursor ou o deslocamento (offset), não os dois.'],
    ] as const) {
      const r = await api('GET', `/api/admin/payments?${query}`);
      expect([r.status, r.body.error, r.body.message]).toEqual([400, 'validation_error', message]);
    }
  });

  test('anonymous 401, customer 403', async () => {
    const customer = await createUser(t);
    expect((await t.api('GET', '/api/admin/payments?q=Quintela')).status).toBe(401);
    const r = await t.api('GET', '/api/admin/payments?q=Quintela', { token: customer.token });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ error: 'forbidden' });
  });
});

describe('POST /api/admin/payments/{id}/refund of a R$ 0,00 grant', () => {
  test('409 in Portuguese, nothing undone; customers 403, anonymous 401', async () => {
    const target = await createUser(t, { name: 'Dora Premiada' });
    const draw = await makeDraw(t, { infoproduct_id: null, total_numbers: 10 });
    const assigned = await api('POST', `/api/admin/users/${target.user.id}/assign-numbers`, { draw_id: draw.id, numbers: [4] });
    expect(assigned.status).toBe(200);
    const grant = await t.services.db('payments').where({ user_id: target.user.id, kind: 'admin' }).first();
    expect(grant).toMatchObject({ amount_cents: 0, status: 'approved' });

    const r = await api('POST', `/api/admin/payments/${grant.id}/refund`, { reason: 'teste de reembolso' });
    expect(r.status).toBe(409);
    expect(r.body).toEqual({
      error: 'nothing_to_refund',
      message: 'Este pagamento é de R$ 0,00 (uma atribuição do administrador): não há valor a reembolsar.',
    });
    expect((await paymentRow(t, grant.id)).status).toBe('approved');
    expect(await t.services.db('draw_numbers').where({ draw_id: draw.id, n: 4 }).first()).toMatchObject({ status: 'sold' });
    expect(
      await t.services.db('audit_log').where({ entity: 'payment', entity_id: String(grant.id), action: 'payment.refunded' }),
    ).toHaveLength(0);

    const customer = await createUser(t);
    expect((await t.api('POST', `/api/admin/payments/${grant.id}/refund`, { token: customer.token, body: { reason: 'x' } })).status).toBe(
      403,
    );
    expect((await t.api('POST', `/api/admin/payments/${grant.id}/refund`, { body: { reason: 'x' } })).status).toBe(401);
  });
});
