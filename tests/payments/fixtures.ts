import { randomBytes } from 'node:crypto';
import type { TestContext } from '../helpers/context';
import type { FakeMercadoPago } from '../helpers/fake-mercadopago';
import { insertDrawWithNumbers, type DrawRow } from '../../src/draws/queries';

/** Builders and ledger readers shared by the payment tests. */
let seq = 0;
const tag = () => `${Date.now().toString(36)}${(++seq).toString(36)}${randomBytes(2).toString('hex')}`.toUpperCase();

export const WEBHOOK_SECRET = 'whsec-test-0123456789abcdef';

/** Env of a context that talks to the fake Mercado Pago. */
export function mercadoPagoEnv(fake: FakeMercadoPago, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PAYMENT_PROVIDER: 'mercadopago',
    MERCADOPAGO_ACCESS_TOKEN: fake.token,
    MERCADOPAGO_WEBHOOK_SECRET: WEBHOOK_SECRET,
    MERCADOPAGO_API_URL: fake.url,
    ...extra,
  };
}

export async function makeProduct(t: TestContext, o: { price_cents?: number | null; active?: boolean; title?: string } = {}) {
  const sku = `PAY-${tag()}`;
  const [p] = await t.services
    .db('infoproducts')
    .insert({
      sku,
      title: o.title ?? `E-book ${sku}`,
      price_cents: o.price_cents === undefined ? 500 : o.price_cents,
      default_total_numbers: 100,
      active: o.active ?? true,
    })
    .returning('*');
  return p as { id: number; sku: string; title: string; price_cents: number | null };
}

export async function makeDraw(
  t: TestContext,
  o: {
    infoproduct_id: number | null;
    total_numbers?: number;
    max_per_user?: number;
    ticket_price_cents_override?: number | null;
    status?: 'open' | 'closed';
  },
): Promise<DrawRow> {
  return t.services.db.transaction((trx) =>
    insertDrawWithNumbers(trx, {
      infoproduct_id: o.infoproduct_id,
      title: `Sorteio ${tag()}`,
      total_numbers: o.total_numbers ?? 100,
      prize_cents: 10_000,
      ticket_price_cents_override: o.ticket_price_cents_override ?? null,
      max_per_user: o.max_per_user ?? 0,
      status: o.status,
    }),
  );
}

/** A product (default R$ 5,00) with an open draw of its own. */
export async function makeProductWithDraw(
  t: TestContext,
  p: { price_cents?: number | null } = {},
  d: { total_numbers?: number; max_per_user?: number; ticket_price_cents_override?: number | null } = {},
) {
  const product = await makeProduct(t, p);
  const draw = await makeDraw(t, { infoproduct_id: product.id, ...d });
  return { product, draw };
}

/** POST /api/payments/infoproduct at the server's price; returns the answer body. */
export async function buyEbooks(t: TestContext, token: string, productId: number, quantity: number, unitCents: number) {
  const r = await t.api('POST', '/api/payments/infoproduct', {
    token,
    body: { infoproduct_id: productId, quantity, amount_cents_total: unitCents * quantity },
  });
  if (r.status !== 201) throw new Error(`buyEbooks: ${r.status} ${r.text}`);
  return r.body as {
    paymentId: number;
    qr_code_base64: string;
    copy_paste_code: string;
    qr_code: string;
    amount: number;
    expires_at: string;
    status: string;
  };
}

export async function reserve(t: TestContext, token: string, drawId: number, numbers: number[]) {
  const r = await t.api('POST', '/api/reservations', { token, body: { draw_id: drawId, numbers } });
  if (r.status !== 201) throw new Error(`reserve: ${r.status} ${r.text}`);
  return r.body as { id: number; expires_at: string; numbers: number[] };
}

export const paymentRow = (t: TestContext, id: number) => t.services.db('payments').where({ id }).first();

export async function balanceOf(t: TestContext, userId: number, productId: number): Promise<number | null> {
  const row = await t.services.db('voucher_balances').where({ user_id: userId, infoproduct_id: productId }).first('balance');
  return row ? row.balance : null;
}

/** What the ledgers say about one payment. */
export async function ledgerOf(t: TestContext, paymentId: number) {
  const db = t.services.db;
  const [voucherRows, fulfilments, sales] = await Promise.all([
    db('voucher_ledger').where({ payment_id: paymentId }).orderBy('id').select('reason', 'delta', 'user_id', 'infoproduct_id'),
    db('payment_fulfilments').where({ payment_id: paymentId }).select('*'),
    db('number_sales').where({ payment_id: paymentId }).orderBy('n').select('draw_id', 'n', 'user_id'),
  ]);
  return {
    vouchers: voucherRows as Array<{ reason: string; delta: number; user_id: number; infoproduct_id: number }>,
    granted: (voucherRows as Array<{ reason: string; delta: number }>)
      .filter((r) => r.reason === 'grant' || r.reason === 'late_approval')
      .reduce((s, r) => s + r.delta, 0),
    revoked: (voucherRows as Array<{ reason: string; delta: number }>)
      .filter((r) => r.reason === 'revoke')
      .reduce((s, r) => s - r.delta, 0),
    fulfilments: fulfilments as Array<{ payment_id: number; result: Record<string, unknown> }>,
    sales: sales as Array<{ draw_id: number; n: number; user_id: number }>,
  };
}

/** Sum of a user's voucher ledger for a product (must equal the balance row). */
export async function ledgerSum(t: TestContext, userId: number, productId: number): Promise<number> {
  const r = await t.services
    .db('voucher_ledger')
    .where({ user_id: userId, infoproduct_id: productId })
    .sum<{ s: number | null }[]>({ s: 'delta' });
  return Number(r[0].s ?? 0);
}

export { eventually } from '../helpers/eventually';

/** Sets the sandbox "bank" state of a payment's charge (as if the payer's bank had acted). */
export async function sandboxBank(
  t: TestContext,
  paymentId: number,
  status: 'approved' | 'refunded' | 'charged_back' | 'rejected' | 'cancelled',
) {
  const p = await paymentRow(t, paymentId);
  await t.services
    .db('sandbox_charges')
    .where({ provider_payment_id: p.provider_payment_id })
    .update({ status, ...(status === 'approved' ? { approved_at: t.services.db.fn.now() } : {}) });
  return p.provider_payment_id as string;
}

/**
 * As if the per-payment check throttle had passed (3 s for a pending payment, the growing spacing
 * for a lapsed one): the next status call or confirm asks the provider again.
 */
export async function letThrottlePass(t: TestContext, paymentId: number) {
  await t.services
    .db('payments')
    .where({ id: paymentId })
    .update({ last_checked_at: t.services.db.raw(`now() - interval '1 day'`) });
}
