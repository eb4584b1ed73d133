import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { startFakeMercadoPago, type FakeMercadoPago } from '../helpers/fake-mercadopago';
import { runCliCaptured } from '../helpers/cli';
import { WEBHOOK_SECRET, buyEbooks, makeProductWithDraw, mercadoPagoEnv, paymentRow, reserve } from '../payments/fixtures';

/**
 * RULES W8, a refund that reaches a winner re-decides the draw: when a refund (the operator's,
 * through the provider) or a chargeback (Mercado Pago's webhook) voids the sale of a decided
 * draw's winning number, the refund's transaction re-decides that draw from its stored contest as
 * a correction does (walk back past voided sales, retraction and announcement mails, audit), so
 * the public result, the CLI and `audit books` agree as soon as the refund answers. Against the
 * fake Mercado Pago and the real database; repeats and two refunds racing included.
 */
let fake: FakeMercadoPago;
let t: TestContext;
let admin: Awaited<ReturnType<typeof createUser>>;
beforeAll(async () => {
  fake = await startFakeMercadoPago({ realQr: false });
  t = await createTestContext({ env: mercadoPagoEnv(fake, { RATE_LIMIT_DISABLED: '1' }) });
  admin = await createUser(t, { admin: true });
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});

type U = Awaited<ReturnType<typeof createUser>>;
const db = () => t.services.db;
const cli = (argv: string[]) => runCliCaptured(argv, () => t.services);
const BY = { actorUserId: null, actor: 'cli' as const, source: 'cli' as const };
const drawRow = (id: number) => db()('draws').where({ id }).first();
const mailsTo = (email: string, template: string) => db()('mail_outbox').where({ to_address: email, template });
const drawAudits = (drawId: number) =>
  db()('audit_log')
    .where({ entity: 'draw', entity_id: String(drawId) })
    .orderBy('id');
let contest = 8100;

const webhook = async (mpId: number) => {
  const r = await fake.notify(t.url, mpId, { secret: WEBHOOK_SECRET });
  expect(r.status).toBe(200);
  return r.body;
};

/** One e-book bought by PIX, approved by Mercado Pago, and its voucher spent on `n` in the draw. */
async function buyNumber(u: U, productId: number, drawId: number, n: number) {
  const pay = await buyEbooks(t, u.token, productId, 1, 500);
  const mpId = Number((await paymentRow(t, pay.paymentId)).provider_payment_id);
  fake.setStatus(mpId, 'approved');
  expect(await webhook(mpId)).toMatchObject({ status: 'approved' });
  const r = await reserve(t, u.token, drawId, [n]);
  const c = await t.api('POST', '/api/vouchers/consume', { token: u.token, body: { reservationId: r.id, numbers: [n] } });
  expect(c.status).toBe(200);
  return { paymentId: pay.paymentId, mpId };
}

/** Twenty distinct drawn numbers ending with `last` (in that order: the last one is drawn last). */
function drawnEndingWith(last: number[]): number[] {
  const filler = Array.from({ length: 100 }, (_, i) => 99 - i).filter((n) => !last.includes(n) && n >= 60 && n !== 77);
  return [...filler.slice(0, 20 - last.length), ...last];
}

/** A product's draw where each buyer bought the given number, closed and decided by a recorded contest. */
async function decidedDraw(buyers: Array<{ user: U; n: number }>, drawnLast: number[]) {
  const { product, draw } = await makeProductWithDraw(t, { price_cents: 500 });
  const bought = [];
  for (const b of buyers) bought.push(await buyNumber(b.user, product.id, draw.id, b.n));
  // Each contest a day after the previous one, each draw closed an hour before its contest: the
  // first contest after the close decides it (RULES W1).
  const c = ++contest;
  const D = new Date(Date.now() - (8200 - c) * 86_400_000);
  await db()('draws')
    .where({ id: draw.id })
    .update({ status: 'closed', closed_at: new Date(D.getTime() - 3600_000), closed_by: 'admin' });
  const out = await t.services.results.record({ contest_number: c, numbers: drawnEndingWith(drawnLast), drawn_at: D }, BY);
  expect(out.decided.map((d) => d.draw_id)).toContain(draw.id);
  return { draw, product, bought, contest: c };
}

async function booksClean() {
  const r = await cli(['audit', 'books']);
  expect([r.code, r.err]).toEqual([0, '']);
}

test("the operator refunds the winner's payment: the next sold number walking back wins, mails and audits as a correction; books clean at once; again changes nothing", async () => {
  const w = await createUser(t, { name: 'Wagner Estornado' });
  const r = await createUser(t, { name: 'Renata Seguinte' });
  const o = await createUser(t, { name: 'Otávio Fora' });
  // Drawn order ends … 12, 33, 77: 77 (W) wins; 33 (R) is next walking back; O's 5 was not drawn.
  const {
    draw,
    bought,
    contest: c,
  } = await decidedDraw(
    [
      { user: w, n: 77 },
      { user: r, n: 33 },
      { user: o, n: 5 },
    ],
    [12, 33, 77],
  );
  expect(await drawRow(draw.id)).toMatchObject({ status: 'drawn', winner_user_id: w.user.id, winner_number: 77 });
  expect((await cli(['winners', 'set-prize', String(draw.id), '--name', 'Curso W8', '--link', 'https://exemplo.com/w8'])).code).toBe(0);
  expect((await cli(['winners', 'redeem', String(draw.id)])).code).toBe(0);
  expect(await mailsTo(w.email, 'draw_won')).toHaveLength(1);
  await booksClean();

  const res = await t.api('POST', `/api/admin/payments/${bought[0].paymentId}/refund`, {
    token: admin.token,
    body: { reason: 'cliente pediu' },
  });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ status: 'refunded', refund: { refunded: true } });

  // The draw: R wins with 33, the prize stays with the draw and starts NÃO RESGATADO.
  expect(await drawRow(draw.id)).toMatchObject({
    status: 'drawn',
    contest_number: c,
    winner_user_id: r.user.id,
    winner_number: 33,
    no_winner: false,
    redeemed: false,
    product_name: 'Curso W8',
  });
  // Public result: 77 passed over as voided.
  const pub = await t.api('GET', `/api/draws/${draw.id}/result`);
  expect(pub.status).toBe(200);
  expect(pub.body).toMatchObject({ winning_number: 33, winner_initials: 'RS', no_winner: false, walk: [{ n: 77, reason: 'voided' }] });
  // The CLI.
  const shown = await cli(['winners', 'show', String(draw.id), '--json']);
  expect(shown.code).toBe(0);
  expect(JSON.parse(shown.out)).toMatchObject({ draw_id: draw.id, winner_user_id: r.user.id, winner_number: 33, status: 'NÃO RESGATADO' });
  const listed = JSON.parse((await cli(['winners', 'list', '--search', 'Renata Seguinte', '--json'])).out);
  expect(listed.items).toEqual([
    expect.objectContaining({ draw_id: draw.id, winner_name: 'Renata Seguinte', winner_number: 33, redeemed: false }),
  ]);
  expect(JSON.parse((await cli(['winners', 'list', '--search', 'Wagner Estornado', '--json'])).out).items).toEqual([]);
  // Mails: W's retraction (saying why), R's announcement.
  const retraction = await mailsTo(w.email, 'draw_win_retracted');
  expect(retraction).toHaveLength(1);
  expect(retraction[0].body_text).toContain('foi estornado');
  expect(retraction[0].body_text).toContain(`/resultado/${draw.id}`);
  expect(await mailsTo(r.email, 'draw_won')).toHaveLength(1);
  expect(await mailsTo(o.email, 'draw_won')).toHaveLength(0);
  // Audit: the re-decision with its cause and inputs, then retraction and announcement; by the admin who refunded.
  const audits = (await drawAudits(draw.id)).filter((a) =>
    ['draw.redecided_after_refund', 'winner.retracted', 'winner.announced'].includes(a.action),
  );
  expect(audits.map((a) => [a.action, a.actor, a.actor_user_id])).toEqual([
    ['draw.redecided_after_refund', 'admin', admin.user.id],
    ['winner.retracted', 'admin', admin.user.id],
    ['winner.announced', 'admin', admin.user.id],
  ]);
  expect(audits[0].data).toMatchObject({
    cause: { payment_id: bought[0].paymentId, payment_status: 'refunded' },
    before: { winner_user_id: w.user.id, winner_number: 77 },
    after: { winner_user_id: r.user.id, winner_number: 33 },
    inputs: { contest_number: c },
  });
  expect(audits[1].data).toMatchObject({ user_id: w.user.id, winner_number: 77, redeemed_before: true, mailed: true });
  expect(audits[2].data).toMatchObject({ user_id: r.user.id, winner_number: 33, mailed: true });
  // The payment's review says what the refund did to the draw.
  expect((await paymentRow(t, bought[0].paymentId)).review_reason).toMatch(
    new RegExp(`sorteio #${draw.id} apurado de novo: novo número vencedor 33`),
  );
  await booksClean();

  // Refunding again, and Mercado Pago's notification of the same refund: nothing changes twice.
  const again = await t.api('POST', `/api/admin/payments/${bought[0].paymentId}/refund`, {
    token: admin.token,
    body: { reason: 'de novo' },
  });
  expect(again.status).toBe(200);
  expect(again.body.refund).toMatchObject({ refunded: false, already: true });
  expect(await webhook(bought[0].mpId)).toMatchObject({ status: 'refunded' });
  expect(await drawRow(draw.id)).toMatchObject({ winner_user_id: r.user.id, winner_number: 33 });
  expect(await mailsTo(w.email, 'draw_win_retracted')).toHaveLength(1);
  expect(await mailsTo(r.email, 'draw_won')).toHaveLength(1);
  expect((await drawAudits(draw.id)).filter((a) => a.action === 'draw.redecided_after_refund')).toHaveLength(1);
  await booksClean();
});

test("a chargeback notified by Mercado Pago's webhook of the only drawn sale: the draw reads no winner; a redelivery changes nothing", async () => {
  const w = await createUser(t, { name: 'Camila Chargeback' });
  const o = await createUser(t, { name: 'Nuno Naosorteado' });
  // 40 (W) is drawn last; O's 2 is not among the twenty drawn.
  const { draw, bought } = await decidedDraw(
    [
      { user: w, n: 40 },
      { user: o, n: 2 },
    ],
    [40],
  );
  expect(await drawRow(draw.id)).toMatchObject({ winner_user_id: w.user.id, winner_number: 40 });

  fake.setStatus(bought[0].mpId, 'charged_back');
  expect(await webhook(bought[0].mpId)).toMatchObject({ status: 'charged_back' });
  expect(await drawRow(draw.id)).toMatchObject({ status: 'drawn', winner_user_id: null, winner_number: null, no_winner: true });
  const pub = await t.api('GET', `/api/draws/${draw.id}/result`);
  expect(pub.body).toMatchObject({ winning_number: null, winner_initials: null, no_winner: true });
  expect(pub.body.walk[0]).toEqual({ n: 40, reason: 'voided' });
  expect(pub.body.walk).toHaveLength(20);
  const show = await cli(['winners', 'show', String(draw.id)]);
  expect(show.code).toBe(0);
  expect(show.out).toContain('SEM VENCEDOR');
  expect(await mailsTo(w.email, 'draw_win_retracted')).toHaveLength(1);
  const audits = (await drawAudits(draw.id)).filter((a) =>
    ['draw.redecided_after_refund', 'winner.retracted', 'winner.announced'].includes(a.action),
  );
  expect(audits.map((a) => [a.action, a.actor])).toEqual([
    ['draw.redecided_after_refund', 'system'],
    ['winner.retracted', 'system'],
  ]);
  expect(audits[0].data.cause).toEqual({ payment_id: bought[0].paymentId, payment_status: 'charged_back' });
  await booksClean();

  // Mercado Pago delivers the same notification again.
  expect(await webhook(bought[0].mpId)).toMatchObject({ status: 'charged_back' });
  expect(await mailsTo(w.email, 'draw_win_retracted')).toHaveLength(1);
  expect((await drawAudits(draw.id)).filter((a) => a.action === 'draw.redecided_after_refund')).toHaveLength(1);
  await booksClean();
});

test('refunding a sale of a decided draw that did not win changes no winner, mails nobody and audits no re-decision', async () => {
  const w = await createUser(t, { name: 'Vitor Vencedor' });
  const l = await createUser(t, { name: 'Lia Perdeu' });
  const { draw, bought } = await decidedDraw(
    [
      { user: w, n: 50 },
      { user: l, n: 31 },
    ],
    [31, 50],
  );
  const before = await drawRow(draw.id);
  expect(before).toMatchObject({ winner_user_id: w.user.id, winner_number: 50 });
  const res = await t.api('POST', `/api/admin/payments/${bought[1].paymentId}/refund`, {
    token: admin.token,
    body: { reason: 'desistiu' },
  });
  expect(res.status).toBe(200);
  const after = await drawRow(draw.id);
  expect(after).toMatchObject({ winner_user_id: w.user.id, winner_number: 50, no_winner: false });
  expect(after.realized_at).toEqual(before.realized_at);
  expect(await mailsTo(w.email, 'draw_win_retracted')).toHaveLength(0);
  expect(await mailsTo(l.email, 'draw_win_retracted')).toHaveLength(0);
  expect((await drawAudits(draw.id)).map((a) => a.action)).not.toContain('draw.redecided_after_refund');
  // The refunded 31 is named voided on the public walk only if drawn after the winner; here it is before it.
  expect((await t.api('GET', `/api/draws/${draw.id}/result`)).body).toMatchObject({ winning_number: 50, walk: [] });
  expect((await paymentRow(t, bought[1].paymentId)).review_reason).not.toMatch(/apurado de novo/);
  await booksClean();
});

test("two refunds racing in one decided draw (the winner's and the runner-up's) leave the third buyer winning, each mail once", async () => {
  const w = await createUser(t, { name: 'Wanda Corrida' });
  const r = await createUser(t, { name: 'Rui Corrida' });
  const s = await createUser(t, { name: 'Sara Terceira' });
  const { draw, bought } = await decidedDraw(
    [
      { user: w, n: 70 },
      { user: r, n: 21 },
      { user: s, n: 8 },
    ],
    [8, 21, 70],
  );
  expect(await drawRow(draw.id)).toMatchObject({ winner_user_id: w.user.id, winner_number: 70 });
  const answers = await Promise.all(
    [bought[0], bought[1]].map((b) =>
      t.api('POST', `/api/admin/payments/${b.paymentId}/refund`, { token: admin.token, body: { reason: 'corrida' } }),
    ),
  );
  expect(answers.map((a) => a.status)).toEqual([200, 200]);
  expect(await drawRow(draw.id)).toMatchObject({ winner_user_id: s.user.id, winner_number: 8 });
  expect(await mailsTo(w.email, 'draw_win_retracted')).toHaveLength(1);
  expect(await mailsTo(s.email, 'draw_won')).toHaveLength(1);
  // R may have won in between (then was retracted) or never: either way its mails pair up.
  expect((await mailsTo(r.email, 'draw_won')).length).toBe((await mailsTo(r.email, 'draw_win_retracted')).length);
  expect((await t.api('GET', `/api/draws/${draw.id}/result`)).body).toMatchObject({
    winning_number: 8,
    walk: [
      { n: 70, reason: 'voided' },
      { n: 21, reason: 'voided' },
    ],
  });
  await booksClean();
});

test('the same chargeback delivered twice at once re-decides once', async () => {
  const w = await createUser(t, { name: 'Dora Duplicada' });
  const r = await createUser(t, { name: 'Beto Depois' });
  const { draw, bought } = await decidedDraw(
    [
      { user: w, n: 44 },
      { user: r, n: 19 },
    ],
    [19, 44],
  );
  fake.setStatus(bought[0].mpId, 'charged_back');
  const answers = await Promise.all([
    fake.notify(t.url, bought[0].mpId, { secret: WEBHOOK_SECRET }),
    fake.notify(t.url, bought[0].mpId, { secret: WEBHOOK_SECRET }),
  ]);
  expect(answers.map((a) => a.status)).toEqual([200, 200]);
  expect(await drawRow(draw.id)).toMatchObject({ winner_user_id: r.user.id, winner_number: 19 });
  expect(await mailsTo(w.email, 'draw_win_retracted')).toHaveLength(1);
  expect(await mailsTo(r.email, 'draw_won')).toHaveLength(1);
  expect((await drawAudits(draw.id)).filter((a) => a.action === 'draw.redecided_after_refund')).toHaveLength(1);
  await booksClean();
});
