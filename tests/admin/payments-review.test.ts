import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { buyEbooks, makeProductWithDraw, paymentRow } from '../payments/fixtures';

/**
 * Payments to review (`/api/admin/payments`): the payments the money rules flagged (late
 * approval, refund, amount mismatch) listed with their reason, marked reviewed with a note
 * (audited), flagged again when a new reason comes, and the sandbox approval.
 */
let t: TestContext;
let admin: Awaited<ReturnType<typeof createUser>>;
let customer: Awaited<ReturnType<typeof createUser>>;
beforeAll(async () => {
  t = await createTestContext({ env: { RATE_LIMIT_DISABLED: '1' } });
  admin = await createUser(t, { admin: true });
  customer = await createUser(t);
});
afterAll(() => t.close());

const api = (method: string, path: string, body?: unknown) => t.api(method, path, { token: admin.token, body });

/** An e-book PIX that expired unpaid and was then approved at the bank: flagged 'aprovado depois de expired'. */
async function lateApproval() {
  const u = await createUser(t);
  const { product } = await makeProductWithDraw(t, { price_cents: 500 });
  const p = await buyEbooks(t, u.token, product.id, 1, 500);
  await t.services
    .db('payments')
    .where({ id: p.paymentId })
    .update({ expires_at: t.services.db.raw(`now() - interval '1 second'`) });
  expect(await t.services.payments.poll(p.paymentId)).toBe('expired');
  await t.services.payments.approve(p.paymentId, { via: 'cli' });
  const row = await paymentRow(t, p.paymentId);
  expect(row).toMatchObject({ status: 'approved', flagged_for_review: true });
  return { u, product, paymentId: p.paymentId as number };
}

describe('GET /api/admin/payments', () => {
  test('flagged=1 lists flagged payments with their reason, newest first, paginated; status filters', async () => {
    const a = await lateApproval();
    const b = await lateApproval();
    const plain = await buyEbooks(t, customer.token, a.product.id, 1, 500);

    const r = await api('GET', '/api/admin/payments?flagged=1&limit=1');
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.body).toMatchObject({ hasMore: true, limit: 1, offset: 0 });
    expect(r.body.items).toHaveLength(1);
    expect(r.body.items[0]).toMatchObject({
      id: b.paymentId,
      status: 'approved',
      flagged_for_review: true,
      review_reason: expect.stringMatching(/aprovado depois de expired/),
      reviewed_at: null,
      review_note: null,
      user_email: b.u.email,
      amount_cents: 500,
      sandbox_approvable: true,
    });
    const page2 = await api('GET', '/api/admin/payments?flagged=1&limit=1&offset=1');
    expect(page2.body.items.map((p: { id: number }) => p.id)).toEqual([a.paymentId]);

    const all = await api('GET', '/api/admin/payments?flagged=1');
    expect(all.body.items.every((p: { flagged_for_review: boolean }) => p.flagged_for_review)).toBe(true);
    expect(all.body.items.map((p: { id: number }) => p.id)).not.toContain(plain.paymentId);

    const pending = await api('GET', '/api/admin/payments?status=pending');
    expect(pending.body.items.map((p: { id: number }) => p.id)).toContain(plain.paymentId);
    expect(pending.body.items.every((p: { status: string }) => p.status === 'pending')).toBe(true);
  });

  test.each([
    ['status=pago', 'Status inválido'],
    ['flagged=talvez', 'Use 1 ou 0.'],
    ['limit=0', 'O limite mínimo é 1.'],
    ['limit=9999', 'O limite máximo é 500.'],
    ['offset=-1', 'O deslocamento não pode ser negativo.'],
  ])('?%s → 400 with a Portuguese message', async (qs, message) => {
    const r = await api('GET', `/api/admin/payments?${qs}`);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('validation_error');
    expect(r.body.message).toContain(message);
  });

  test('anonymous 401, customer 403 on every payments route', async () => {
    for (const [method, path] of [
      ['GET', '/api/admin/payments?flagged=1'],
      ['GET', '/api/admin/payments/1'],
      ['POST', '/api/admin/payments/1/review'],
      ['POST', '/api/admin/payments/1/approve'],
    ]) {
      expect((await t.api(method, path, { body: method === 'POST' ? { note: 'x' } : undefined })).status).toBe(401);
      const c = await t.api(method, path, { token: customer.token, body: method === 'POST' ? { note: 'x' } : undefined });
      expect(c.status).toBe(403);
      expect(c.body).toEqual({ error: 'forbidden', message: 'Acesso restrito a administradores.' });
    }
  });
});

describe('POST /api/admin/payments/{id}/review', () => {
  test('marks it reviewed with the note, audited; a new flag (refund) asks for a new review', async () => {
    const { paymentId } = await lateApproval();
    const r = await api('POST', `/api/admin/payments/${paymentId}/review`, { note: '  Cliente pagou depois do prazo; entregue.  ' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id: paymentId,
      review_note: 'Cliente pagou depois do prazo; entregue.',
      reviewed_by: admin.user.id,
      reviewed_by_name: admin.user.name,
      flagged_for_review: true,
    });
    expect(r.body.reviewed_at).toEqual(expect.any(String));
    const log = await t.services.db('audit_log').where({ entity: 'payment', entity_id: String(paymentId), action: 'payment.reviewed' });
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ actor: 'admin', actor_user_id: admin.user.id });
    expect(log[0].data).toMatchObject({
      before: { reviewed_at: null, review_note: null },
      after: { review_note: 'Cliente pagou depois do prazo; entregue.' },
      note: 'Cliente pagou depois do prazo; entregue.',
    });

    // Reviewed: out of the "to review" list, in the "reviewed" one.
    expect(
      (await api('GET', '/api/admin/payments?flagged=1&reviewed=0&limit=500')).body.items.map((p: { id: number }) => p.id),
    ).not.toContain(paymentId);
    expect((await api('GET', '/api/admin/payments?flagged=1&reviewed=1&limit=500')).body.items.map((p: { id: number }) => p.id)).toContain(
      paymentId,
    );

    // Refunded later: the flag's reason changes and it is to be reviewed again (the note stays as history).
    const row = await paymentRow(t, paymentId);
    await t.services.payments.applyProviderState(paymentId, {
      providerPaymentId: row.provider_payment_id,
      externalReference: String(paymentId),
      status: 'refunded',
      amountCents: 500,
      paidAt: null,
    });
    const again = await api('GET', `/api/admin/payments/${paymentId}`);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ status: 'refunded', reviewed_at: null, reviewed_by: null });
    // The flag says what the refund undid.
    expect(again.body.review_reason).toMatch(/^pagamento estornado; 1 voucher não usado revogado/);
    expect(again.body.audit.map((e: { action: string }) => e.action)).toEqual(
      expect.arrayContaining(['payment.reviewed', 'payment.refunded']),
    );
    expect((await api('GET', '/api/admin/payments?flagged=1&reviewed=0&limit=500')).body.items.map((p: { id: number }) => p.id)).toContain(
      paymentId,
    );
  });

  test('validation: note required and ≤ 2000 characters, bad id 400, unknown 404, not flagged 409; nothing written', async () => {
    const { product } = await makeProductWithDraw(t, { price_cents: 300 });
    const plain = await buyEbooks(t, customer.token, product.id, 1, 300);
    const before = await t.services.db('audit_log').where({ action: 'payment.reviewed' }).count<{ c: string }[]>({ c: '*' });
    const cases: Array<[string, unknown, number, string]> = [
      [`/api/admin/payments/${plain.paymentId}/review`, {}, 400, 'Escreva uma nota sobre a revisão.'],
      [`/api/admin/payments/${plain.paymentId}/review`, { note: '   ' }, 400, 'Escreva uma nota sobre a revisão.'],
      [`/api/admin/payments/${plain.paymentId}/review`, { note: 'x'.repeat(2001) }, 400, 'A nota pode ter no máximo 2000 caracteres.'],
      [`/api/admin/payments/${plain.paymentId}/review`, { note: 42 }, 400, 'Escreva uma nota sobre a revisão.'],
      ['/api/admin/payments/abc/review', { note: 'ok' }, 400, 'Pagamento inválido.'],
      ['/api/admin/payments/99999999/review', { note: 'ok' }, 404, 'Pagamento não encontrado.'],
      [`/api/admin/payments/${plain.paymentId}/review`, { note: 'ok' }, 409, 'Este pagamento não está marcado para análise.'],
    ];
    for (const [path, body, status, message] of cases) {
      const r = await api('POST', path, body);
      expect([path, r.status, r.body.message]).toEqual([path, status, message]);
    }
    const bad = await t.api('POST', `/api/admin/payments/${plain.paymentId}/review`, { token: admin.token, rawBody: '{"note":' });
    expect(bad.status).toBe(400);
    expect(await t.services.db('audit_log').where({ action: 'payment.reviewed' }).count<{ c: string }[]>({ c: '*' })).toEqual(before);
    expect(await paymentRow(t, plain.paymentId)).toMatchObject({ reviewed_at: null, review_note: null });
  });
});

describe('POST /api/admin/payments/{id}/approve (sandbox)', () => {
  test('approves a pending sandbox PIX: fulfilled, audited; an admin grant (no charge) is refused 409', async () => {
    const { product } = await makeProductWithDraw(t, { price_cents: 400 });
    const u = await createUser(t);
    const p = await buyEbooks(t, u.token, product.id, 2, 400);
    const r = await api('POST', `/api/admin/payments/${p.paymentId}/approve`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id: p.paymentId,
      status: 'approved',
      flagged_for_review: false,
      sandbox_approvable: true,
      paymentId: p.paymentId,
    });
    expect(
      await t.services.db('audit_log').where({
        entity: 'payment',
        entity_id: String(p.paymentId),
        action: 'payment.sandbox_approved',
        actor: 'admin',
        actor_user_id: admin.user.id,
      }),
    ).toHaveLength(1);
    expect(await t.services.db('payment_fulfilments').where({ payment_id: p.paymentId })).toHaveLength(1);

    await t.services.payments.grantVouchers({ user: u.email, product: String(product.id), quantity: 1 }, { via: 'cli' });
    const grant = await t.services.db('payments').where({ user_id: u.user.id, kind: 'admin' }).first();
    const refused = await api('POST', `/api/admin/payments/${grant.id}/approve`);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe('Este pagamento não é do sandbox.');
    expect((await api('POST', '/api/admin/payments/99999999/approve')).status).toBe(404);
  });
});
