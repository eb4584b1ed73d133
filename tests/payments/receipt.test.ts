import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { startFakeMercadoPago, type FakeMercadoPago } from '../helpers/fake-mercadopago';
import { WEBHOOK_SECRET, buyEbooks, makeProductWithDraw, mercadoPagoEnv, paymentRow, reserve } from './fixtures';
import { formatBrasiliaDateTime, formatReceiptAmount } from '../../src/shared/receipt';

/**
 * The purchase receipt: an approved payment writes one 'Comprovante de compra' mail to the outbox
 * (amount in R$, date and time in Brasília, payment id, the provider's transaction id, what it
 * bought, a link to /conta on PUBLIC_URL), however many times the approval arrives; /conta's list
 * answers the same receipt.
 */
let fake: FakeMercadoPago;
let t: TestContext;
beforeAll(async () => {
  fake = await startFakeMercadoPago({ realQr: false });
  t = await createTestContext({ env: mercadoPagoEnv(fake, { RATE_LIMIT_DISABLED: '1' }) });
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

const receiptsTo = (email: string) => t.services.db('mail_outbox').where({ to_address: email, template: 'purchase_receipt' }).orderBy('id');

test('an e-book approval delivered 90 times at once (webhooks, polls, confirms) writes one receipt mail, and /conta lists the same receipt', async () => {
  const u = await createUser(t, { name: 'Marina Souza' });
  const { product, draw } = await makeProductWithDraw(t, { price_cents: 1250 });
  const p = await buyEbooks(t, u.token, product.id, 2, 1250);
  const mpId = Number((await paymentRow(t, p.paymentId)).provider_payment_id);
  expect(await receiptsTo(u.user.email)).toHaveLength(0);
  fake.setStatus(mpId, 'approved');

  await Promise.all([
    ...Array.from({ length: 30 }, (_, i) => fake.notify(t.url, mpId, { secret: WEBHOOK_SECRET, requestId: `r-${mpId}-${i}` })),
    ...Array.from({ length: 30 }, () => t.services.payments.poll(p.paymentId)),
    ...Array.from({ length: 30 }, () => t.api('POST', '/api/purchases/confirm', { token: u.token, body: { payment_id: p.paymentId } })),
  ]);
  // And once more, later: still one.
  await t.services.payments.poll(p.paymentId);

  const mails = await receiptsTo(u.user.email);
  expect(mails).toHaveLength(1);
  const row = await paymentRow(t, p.paymentId);
  const body: string = mails[0].body_text;
  expect(mails[0].subject).toBe('Comprovante de compra');
  expect(body).toContain('Olá, Marina!');
  expect(body).toContain(`Valor: ${formatReceiptAmount(2500)}`);
  expect(body).toMatch(/Valor: R\$\s25,00/);
  expect(body).toContain(`Data e hora: ${formatBrasiliaDateTime(row.paid_at)}`);
  expect(body).toMatch(/Data e hora: \d\d\/\d\d\/\d{4} às \d\d:\d\d \(horário de Brasília\)/);
  expect(body).toContain(`Pagamento nº: ${p.paymentId}`);
  expect(body).toContain(`Transação no provedor: ${mpId}`);
  // RULES P13: the PIX end-to-end id Mercado Pago reported on approval (transaction_data.e2e_id,
  // "PIXE…"), stored and shown as the payer's bank prints it ("E…", 32 characters).
  const mpE2e = fake.payments.get(mpId)!.point_of_interaction!.transaction_data.e2e_id!;
  expect(mpE2e).toMatch(/^PIXE\d{20}[0-9A-Za-z]{11}$/);
  expect(row.pix_e2e_id).toBe(mpE2e.slice(3));
  expect(body).toContain(`ID da transação PIX (E2E): ${mpE2e.slice(3)}`);
  expect(body).toContain(`Compra: 2 e-books “${product.title}” (2 números para escolher no Sorteio #${String(draw.id).padStart(3, '0')})`);
  expect(body).toContain('http://cotaverde.test/conta');

  const me = await t.api('GET', '/api/payments/me', { token: u.token });
  expect(me.status).toBe(200);
  const item = me.body.items.find((i: { id: number; kind: string }) => i.id === p.paymentId && i.kind === 'ebook');
  expect(item.receipt).toEqual({
    payment_id: p.paymentId,
    provider_transaction_id: String(mpId),
    txid: row.txid,
    e2e_id: mpE2e.slice(3),
    amount_cents: 2500,
    paid_at: new Date(row.paid_at).toISOString(),
    method: 'pix',
    description: `2 e-books “${product.title}” (2 números para escolher no Sorteio #${String(draw.id).padStart(3, '0')})`,
  });
  // Every line of the mail's receipt is the /conta receipt's.
  expect(body).toContain(`Compra: ${item.receipt.description}`);
});

test('a reservation PIX receipt names the numbers; pending, admin grants and other people get none', async () => {
  const u = await createUser(t);
  const other = await createUser(t);
  const { draw } = await makeProductWithDraw(t, { price_cents: 700 });
  const r = await reserve(t, u.token, draw.id, [7, 3]);
  const pix = await t.api('POST', '/api/payments/pix', { token: u.token, body: { reservationId: r.id } });
  expect(pix.status).toBe(201);
  const paymentId = pix.body.paymentId as number;
  let me = await t.api('GET', '/api/payments/me', { token: u.token });
  expect(me.body.items.find((i: { id: number; kind: string }) => i.id === paymentId && i.kind === 'reservation').receipt).toBeNull();

  const mpId = Number((await paymentRow(t, paymentId)).provider_payment_id);
  fake.setStatus(mpId, 'approved');
  await Promise.all([t.services.payments.poll(paymentId), t.services.payments.poll(paymentId)]);
  const mails = await receiptsTo(u.user.email);
  expect(mails).toHaveLength(1);
  expect(mails[0].body_text).toContain(`Compra: Números 03, 07 do Sorteio #${String(draw.id).padStart(3, '0')}`);
  me = await t.api('GET', '/api/payments/me', { token: u.token });
  expect(me.body.items.find((i: { id: number; kind: string }) => i.id === paymentId && i.kind === 'reservation').receipt).toMatchObject({
    payment_id: paymentId,
    amount_cents: 1400,
  });

  // Another person's list never holds it; anonymous gets 401.
  const theirs = await t.api('GET', '/api/payments/me', { token: other.token });
  expect(theirs.body.items.some((i: { receipt: { payment_id: number } | null }) => i.receipt?.payment_id === paymentId)).toBe(false);
  expect((await t.api('GET', '/api/payments/me')).status).toBe(401);

  // An admin grant moves no money: no receipt.
  await t.services.payments.grantVouchers({ user: other.user.email, product: String(draw.infoproduct_id), quantity: 2 }, { via: 'cli' });
  expect(await receiptsTo(other.user.email)).toHaveLength(0);
});

test('RULES P13: an end-to-end id reported after the approval is stored then, and never replaced', async () => {
  const u = await createUser(t);
  const { product } = await makeProductWithDraw(t, { price_cents: 900 });
  const p = await buyEbooks(t, u.token, product.id, 1, 900);
  const mpId = Number((await paymentRow(t, p.paymentId)).provider_payment_id);
  fake.setStatus(mpId, 'approved');
  const td = fake.payments.get(mpId)!.point_of_interaction!.transaction_data;
  const reported = td.e2e_id!;
  // Mercado Pago answers the approval before the id: approved, fulfilled, no id yet.
  delete td.e2e_id;
  await t.services.payments.poll(p.paymentId);
  let row = await paymentRow(t, p.paymentId);
  expect(row).toMatchObject({ status: 'approved', pix_e2e_id: null });
  let me = await t.api('GET', '/api/payments/me', { token: u.token });
  expect(me.body.items.find((i: { id: number; kind: string }) => i.id === p.paymentId && i.kind === 'ebook').receipt.e2e_id).toBeNull();

  // A later read (the re-check of approved payments, RULES P11) carries it: stored.
  td.e2e_id = reported;
  await t.services.payments.recheck({ id: p.paymentId });
  row = await paymentRow(t, p.paymentId);
  expect(row.pix_e2e_id).toBe(reported.slice(3));
  me = await t.api('GET', '/api/payments/me', { token: u.token });
  expect(me.body.items.find((i: { id: number; kind: string }) => i.id === p.paymentId && i.kind === 'ebook').receipt.e2e_id).toBe(
    reported.slice(3),
  );

  // Another value later changes nothing.
  td.e2e_id = 'PIXE99999999202601010000AAAAAAAAAAA';
  await t.services.payments.recheck({ id: p.paymentId });
  expect((await paymentRow(t, p.paymentId)).pix_e2e_id).toBe(reported.slice(3));
});
