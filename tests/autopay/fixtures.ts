import type { TestContext } from '../helpers/context';
import { createUser } from '../helpers/context';
import { eventually } from '../helpers/eventually';
import { writeAppConfig } from '../../src/platform/app-config';
import { makeProduct, makeDraw } from '../payments/fixtures';

/**
 * Test cards (Luhn-valid): outcome by the last four digits (docs/DECISIONS.md "Autopay and captive
 * numbers").
 */
export const CARDS = {
  approve: '4111111111111111',
  decline: '4000000000000002',
  transient: '4000000009000003',
  amex: '378282246310005',
  master: '5555555555554444',
} as const;

export const VALID_CPF = '52998224725';
export const VALID_CNPJ = '11222333000181';

export function cardBody(number: string = CARDS.approve, extra: Record<string, unknown> = {}) {
  return {
    card_number: number,
    expiration_month: 12,
    expiration_year: new Date().getUTCFullYear() + 2,
    security_code: number.startsWith('3') ? '1234' : '123',
    cardholder_name: 'MARIA DA SILVA',
    doc_number: VALID_CPF,
    ...extra,
  };
}

/** The sandbox tokenizer for `token`'s user. */
export async function tokenize(
  t: TestContext,
  token: string,
  number: string = CARDS.approve,
): Promise<{ id: string; brand: string; last4: string }> {
  const r = await t.api('POST', '/api/sandbox/card-tokens', { token, body: cardBody(number) });
  if (r.status !== 201) throw new Error(`tokenize: ${r.status} ${r.text}`);
  return r.body;
}

/** A user with an active autopay profile (sandbox card `number`) on `numbers`. */
export async function autopayUser(t: TestContext, numbers: number[], number: string = CARDS.approve) {
  const u = await createUser(t);
  const tok = await tokenize(t, u.token, number);
  const r = await t.api('POST', '/api/me/autopay', {
    token: u.token,
    body: { active: true, numbers, holder_name: 'MARIA DA SILVA', doc_number: VALID_CPF, card_token: tok.id },
  });
  if (r.status !== 200) throw new Error(`save autopay: ${r.status} ${r.text}`);
  return u;
}

/** A product set as the main series (app config main_infoproduct_id) with a first open draw. */
export async function mainSeries(t: TestContext, o: { price_cents?: number; max_per_user?: number; total_numbers?: number } = {}) {
  const product = await makeProduct(t, { price_cents: o.price_cents ?? 500 });
  await writeAppConfig(t.services.db, { main_infoproduct_id: product.id });
  const draw = await makeDraw(t, { infoproduct_id: product.id, max_per_user: o.max_per_user ?? 0, total_numbers: o.total_numbers ?? 100 });
  return { product, draw };
}

/** Closes the main series' open draw and opens its successor (as the admin's NOVO SORTEIO does). */
export async function openNextDraw(t: TestContext, currentDrawId: number): Promise<number> {
  const r = await t.services.db.transaction(async (trx) => {
    await trx('draws').where({ id: currentDrawId }).forUpdate().first();
    return t.services.draws.closeAndOpenSuccessor(trx, currentDrawId, 'admin');
  });
  if (!r.successorId) throw new Error('no successor opened');
  return r.successorId;
}

export const runsOf = (t: TestContext, drawId: number) => t.services.db('autopay_runs').where({ draw_id: drawId }).orderBy('id');

export async function cellsOf(t: TestContext, drawId: number, numbers: number[]) {
  return t.services
    .db('draw_numbers')
    .where({ draw_id: drawId })
    .whereIn('n', numbers)
    .orderBy('n')
    .select('n', 'status', 'owner_user_id', 'reservation_id');
}

/**
 * Waits until every held run of the draw is due for its retry (its next_attempt_at passed, by the
 * database's clock, the one the charging run compares with): a transient failure's backoff has run out.
 */
export function retriesDue(t: TestContext, drawId: number) {
  return eventually(
    async () =>
      !(await t.services
        .db('autopay_runs')
        .where({ draw_id: drawId, status: 'held' })
        .where('next_attempt_at', '>', t.services.db.fn.now())
        .first()),
    'the held runs to be due for their retry',
  );
}
