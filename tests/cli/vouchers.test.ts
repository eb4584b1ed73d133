import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { runCliCaptured, STACK } from '../helpers/cli';
import { fulfilPayment, type PaymentRow } from '../../src/payments/fulfilment';
import { makeProduct, range } from '../draws/fixtures';

/**
 * `cotaverde vouchers grant`: an admin grant is an approved payment (method
 * admin, amount 0) fulfilled through the one fulfilment path, exactly once.
 */
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

/** Runs the CLI in-process against the test services, capturing stdout/stderr. */
const cli = (argv: string[]) => runCliCaptured(argv, () => t.services);
const balanceOf = async (userId: number, productId: number) =>
  (await t.services.db('voucher_balances').where({ user_id: userId, infoproduct_id: productId }).first())?.balance ?? 0;

describe('vouchers grant', () => {
  test('records an approved admin payment, its fulfilment, a ledger grant and the balance', async () => {
    const u = await createUser(t);
    const product = await makeProduct(t, { price_cents: 990 });
    const r = await cli(['vouchers', 'grant', '--user', u.email, '--product', product.sku!, '--quantity', '3']);
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(r.out).toMatch(/3 vouchers concedidos ao usuário #\d+ no e-book #\d+ \(pagamento #\d+\); saldo agora: 3/);

    const payments = await t.services.db('payments').where({ user_id: u.user.id });
    expect(payments).toHaveLength(1);
    const p = payments[0];
    expect(p).toMatchObject({
      kind: 'admin',
      method: 'admin',
      provider: 'admin',
      status: 'approved',
      amount_cents: 0,
      quantity: 3,
      infoproduct_id: product.id,
    });
    expect(p.paid_at).toBeInstanceOf(Date);
    const fulfilment = await t.services.db('payment_fulfilments').where({ payment_id: p.id }).first();
    expect(fulfilment.result).toEqual({ vouchers: 3, infoproduct_id: product.id });
    expect(
      await t.services.db('voucher_ledger').where({ user_id: u.user.id }).select('delta', 'reason', 'payment_id', 'infoproduct_id'),
    ).toEqual([{ delta: 3, reason: 'grant', payment_id: p.id, infoproduct_id: product.id }]);
    expect(await balanceOf(u.user.id, product.id)).toBe(3);
    const audit = await t.services
      .db('audit_log')
      .where({ action: 'vouchers.granted', entity: 'payment', entity_id: String(p.id) })
      .first();
    expect(audit).toMatchObject({ actor: 'cli', data: { user_id: u.user.id, infoproduct_id: product.id, quantity: 3 } });

    // The vouchers are usable at once.
    const draw = await t.api('POST', `/api/infoproducts/${product.sku}/ensure-open-draw`, { token: u.token });
    const rem = await t.api('GET', `/api/vouchers/remaining?draw_id=${draw.body.draw_id}`, { token: u.token });
    expect(rem.body.remaining).toBe(1); // new draws of a product without history default to 1 per person
  });

  test('each grant adds up; user and product by id; email case-insensitive', async () => {
    const u = await createUser(t);
    const product = await makeProduct(t);
    expect((await cli(['vouchers', 'grant', '--user', String(u.user.id), '--product', String(product.id), '--quantity', '2'])).code).toBe(
      0,
    );
    expect((await cli(['vouchers', 'grant', '--user', u.email.toUpperCase(), '--product', product.sku!, '--quantity', '5'])).code).toBe(0);
    expect(await balanceOf(u.user.id, product.id)).toBe(7);
    expect(await t.services.db('payments').where({ user_id: u.user.id, kind: 'admin' })).toHaveLength(2);
    const ledger = await t.services.db('voucher_ledger').where({ user_id: u.user.id }).sum<{ s: number }[]>({ s: 'delta' });
    expect(Number(ledger[0].s)).toBe(7);
  });

  test('--json prints parseable output', async () => {
    const u = await createUser(t);
    const product = await makeProduct(t);
    const r = await cli(['vouchers', 'grant', '--user', u.email, '--product', product.sku!, '--quantity', '4', '--json']);
    expect(r.code).toBe(0);
    const parsed = JSON.parse(r.out);
    const payment = await t.services.db('payments').where({ user_id: u.user.id }).first();
    expect(parsed).toEqual([{ paymentId: payment.id, userId: u.user.id, infoproductId: product.id, quantity: 4, balance: 4 }]);
  });

  test.each([
    ['0', /quantity: Quantidade mínima: 1/],
    ['-2', /quantity: Quantidade mínima: 1/],
    ['abc', /quantity: .*(inteir|número)/i],
    ['2.5', /quantity: Quantidade deve ser inteira/],
    ['', /quantity: /],
    ['1001', /quantity: Quantidade máxima: 1000/],
  ])('a bad quantity (%j) exits non-zero with a clear message and grants nothing', async (quantity, message) => {
    const u = await createUser(t);
    const product = await makeProduct(t);
    const r = await cli(['vouchers', 'grant', '--user', u.email, '--product', product.sku!, '--quantity', quantity]);
    expect(r.code).not.toBe(0);
    expect(r.out).toBe('');
    expect(r.err).toMatch(message);
    expect(r.err).not.toMatch(STACK);
    expect(await t.services.db('payments').where({ user_id: u.user.id })).toHaveLength(0);
    expect(await balanceOf(u.user.id, product.id)).toBe(0);
  });

  test('an unknown user or product exits non-zero, names it, and grants nothing', async () => {
    const u = await createUser(t);
    const product = await makeProduct(t);
    const cases: Array<[string[], RegExp]> = [
      [
        ['--user', 'ninguem@example.com', '--product', product.sku!],
        /erro \(user_not_found\): Usuário não encontrado: ninguem@example\.com/,
      ],
      [['--user', '987654321', '--product', product.sku!], /erro \(user_not_found\): Usuário não encontrado: 987654321/],
      [
        ['--user', '99999999999999999999', '--product', product.sku!],
        /erro \(user_not_found\): Usuário não encontrado: 99999999999999999999/,
      ],
      [['--user', u.email, '--product', 'NAO-EXISTE'], /erro \(infoproduct_not_found\): E-book não encontrado: NAO-EXISTE/],
      [['--user', u.email, '--product', '987654321'], /erro \(infoproduct_not_found\): E-book não encontrado: 987654321/],
      [
        ['--user', u.email, '--product', '99999999999999999999'],
        /erro \(infoproduct_not_found\): E-book não encontrado: 99999999999999999999/,
      ],
    ];
    for (const [args, message] of cases) {
      const r = await cli(['vouchers', 'grant', ...args, '--quantity', '1']);
      expect({ args, code: r.code === 0 ? 0 : 'non-zero', err: r.err }).toEqual({
        args,
        code: 'non-zero',
        err: expect.stringMatching(message),
      });
      expect(r.err).not.toMatch(STACK);
    }
    expect(await t.services.db('payments').where({ user_id: u.user.id })).toHaveLength(0);
  });

  test('missing required options exit non-zero with usage', async () => {
    const r = await cli(['vouchers', 'grant', '--user', 'x@example.com', '--product', 'X']);
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/--quantity/);
  });
});

describe('fulfilment of an approved payment happens once', () => {
  async function approvedPayment(kind: 'admin' | 'infoproduct', quantity: number) {
    const u = await createUser(t);
    const product = await makeProduct(t);
    const [payment]: PaymentRow[] = await t.services
      .db('payments')
      .insert(
        kind === 'admin'
          ? {
              user_id: u.user.id,
              kind,
              method: 'admin',
              provider: 'admin',
              status: 'approved',
              amount_cents: 0,
              quantity,
              infoproduct_id: product.id,
              paid_at: new Date(),
            }
          : {
              user_id: u.user.id,
              kind,
              method: 'pix',
              provider: 'sandbox',
              status: 'approved',
              amount_cents: 700 * quantity,
              quantity,
              infoproduct_id: product.id,
              paid_at: new Date(),
            },
      )
      .returning('*');
    return { u, product, payment };
  }

  test('the admin payment of a CLI grant, fulfilled again twice, grants nothing more', async () => {
    const u = await createUser(t);
    const product = await makeProduct(t);
    expect((await cli(['vouchers', 'grant', '--user', u.email, '--product', product.sku!, '--quantity', '3'])).code).toBe(0);
    const payment: PaymentRow = await t.services.db('payments').where({ user_id: u.user.id }).first();
    for (let i = 0; i < 2; i++) {
      const r = await t.services.db.transaction((trx) => fulfilPayment(trx, payment, { vouchers: t.services.vouchers }));
      expect(r.fulfilled).toBe(false);
      expect(r.result).toEqual({ vouchers: 3, infoproduct_id: product.id });
    }
    const many = await Promise.all(
      range(0, 20).map(() => t.services.db.transaction((trx) => fulfilPayment(trx, payment, { vouchers: t.services.vouchers }))),
    );
    expect(many.filter((r) => r.fulfilled)).toHaveLength(0);
    expect(await balanceOf(u.user.id, product.id)).toBe(3);
    expect(await t.services.db('voucher_ledger').where({ user_id: u.user.id })).toHaveLength(1);
  });

  test.each(['admin', 'infoproduct'] as const)('a %s payment fulfilled twice in sequence grants once', async (kind) => {
    const { u, product, payment } = await approvedPayment(kind, 4);
    const first = await t.services.db.transaction((trx) => fulfilPayment(trx, payment, { vouchers: t.services.vouchers }));
    const second = await t.services.db.transaction((trx) => fulfilPayment(trx, payment, { vouchers: t.services.vouchers }));
    expect([first.fulfilled, second.fulfilled]).toEqual([true, false]);
    expect(second.result).toEqual(first.result);
    expect(await balanceOf(u.user.id, product.id)).toBe(4);
    expect(await t.services.db('voucher_ledger').where({ user_id: u.user.id }).select('delta', 'reason', 'payment_id')).toEqual([
      { delta: 4, reason: 'grant', payment_id: payment.id },
    ]);
    expect(await t.services.db('payment_fulfilments').where({ payment_id: payment.id })).toHaveLength(1);
  });

  test.each(['admin', 'infoproduct'] as const)('a %s payment fulfilled 20 times concurrently grants once', async (kind) => {
    for (let round = 0; round < 3; round++) {
      const { u, product, payment } = await approvedPayment(kind, 2);
      const results = await Promise.all(
        range(0, 20).map(() => t.services.db.transaction((trx) => fulfilPayment(trx, payment, { vouchers: t.services.vouchers }))),
      );
      expect(results.filter((r) => r.fulfilled)).toHaveLength(1);
      expect(await balanceOf(u.user.id, product.id)).toBe(2);
      expect(await t.services.db('voucher_ledger').where({ user_id: u.user.id })).toHaveLength(1);
      expect(await t.services.db('payment_fulfilments').where({ payment_id: payment.id })).toHaveLength(1);
    }
  });

  test('a payment that is not approved is never fulfilled', async () => {
    const { u, product, payment } = await approvedPayment('infoproduct', 1);
    const pending = { ...payment, status: 'pending' };
    await expect(t.services.db.transaction((trx) => fulfilPayment(trx, pending, { vouchers: t.services.vouchers }))).rejects.toThrow(
      /not approved/,
    );
    expect(await balanceOf(u.user.id, product.id)).toBe(0);
    expect(await t.services.db('payment_fulfilments').where({ payment_id: payment.id })).toHaveLength(0);
  });
});
