import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { startTestWorker } from '../helpers/worker';
import type { RunningWorker } from '../../src/platform/queue';
import { insertDrawWithNumbers } from '../../src/draws/queries';
import { eventually } from '../helpers/eventually';
import { makeProduct, makeDraw } from '../payments/fixtures';
import { CARDS, VALID_CPF, autopayUser, cellsOf, mainSeries, openNextDraw, retriesDue, runsOf, tokenize } from './fixtures';

/**
 * RULES A2-A4: a new draw of the main series holds every active profile's free captive numbers in
 * the opening transaction; the worker relays draw.opened from the outbox to autopay.charge,
 * which charges each profile once: approval sells (payment kind 'autopay', coupon credit),
 * a decline releases (the public board shows the numbers free), a transient failure retries.
 */
let t: TestContext;
let worker: RunningWorker | null = null;
beforeAll(async () => {
  t = await createTestContext();
});
// Each test starts without active profiles (a failed test must not leak its claims into the next).
beforeEach(async () => {
  await t.services.db('autopay_captive_numbers').del();
  await t.services.db('autopay_profiles').update({ active: false });
});
afterAll(async () => {
  await worker?.close();
  await t?.close();
});

const sandboxCalls = (t: TestContext, runId: number) =>
  t.services
    .db('sandbox_card_calls')
    .where({ idempotency_key: `cotaverde-autopay-run-${runId}` })
    .orderBy('id')
    .pluck('result');

test('the opening transaction holds the captive numbers (nothing before its commit, nothing after a rollback)', async () => {
  const { product, draw } = await mainSeries(t, { max_per_user: 0 });
  const a = await autopayUser(t, [1, 2, 3]);
  const b = await autopayUser(t, [10, 99]);
  const off = await autopayUser(t, [20]);
  await t.api('POST', '/api/me/autopay', { token: off.token, body: { active: false, numbers: [20] } });

  // Opened inside a transaction that is then rolled back: no hold, no run, no event.
  const trx2 = await t.services.db.transaction();
  let next!: Awaited<ReturnType<typeof insertDrawWithNumbers>>;
  try {
    await trx2('draws').where({ id: draw.id }).update({ status: 'closed', closed_at: trx2.fn.now() });
    next = await insertDrawWithNumbers(trx2, {
      infoproduct_id: product.id,
      title: 'Z',
      total_numbers: 100,
      prize_cents: 0,
      ticket_price_cents_override: null,
      max_per_user: 0,
    });
    await t.services.draws.opened(trx2, next, 'sellout');
    // Inside the transaction: held. Outside: nothing yet.
    expect(await trx2('autopay_runs').where({ draw_id: next.id }).orderBy('id').select('status', 'numbers')).toEqual([
      { status: 'held', numbers: [1, 2, 3] },
      { status: 'held', numbers: [10, 99] },
    ]);
    expect(await trx2('draw_numbers').where({ draw_id: next.id, status: 'reserved' }).orderBy('n').pluck('n')).toEqual([1, 2, 3, 10, 99]);
    expect(
      await trx2('reservations').where({ draw_id: next.id, source: 'autopay', status: 'active' }).orderBy('user_id').pluck('user_id'),
    ).toEqual([a.user.id, b.user.id].sort((x, y) => x - y));
    expect(await t.services.db('autopay_runs').where({ draw_id: next.id })).toHaveLength(0);
  } finally {
    await trx2.rollback();
  }
  expect(await t.services.db('autopay_runs').where({ draw_id: next.id })).toHaveLength(0);
  expect(await t.services.db('reservations').where({ draw_id: next.id })).toHaveLength(0);
  expect(await t.services.db('domain_events').whereRaw(`payload->>'drawId' = ?`, [String(next.id)])).toHaveLength(0);

  // Committed through the real path (the admin's NOVO SORTEIO): held with the event, in one go.
  const admin = await createUser(t, { admin: true });
  const r = await t.api('POST', '/api/admin/dashboard/new', { token: admin.token, body: {} });
  expect(r.status).toBe(201);
  const newId = r.body.draw_id;
  const runs = await runsOf(t, newId);
  expect(runs.map((x: any) => [x.status, x.numbers])).toEqual([
    ['held', [1, 2, 3]],
    ['held', [10, 99]],
  ]);
  expect(runs[0].hold_until.getTime()).toBeGreaterThan(Date.now() + 25 * 60_000);
  expect((await cellsOf(t, newId, [1, 2, 3, 10, 20, 99])).map((c: any) => c.status)).toEqual([
    'reserved',
    'reserved',
    'reserved',
    'reserved',
    'available',
    'reserved',
  ]);
  expect(
    await t.services
      .db('domain_events')
      .where({ name: 'draw.opened' })
      .whereRaw(`payload->>'drawId' = ?`, [String(newId)])
      .whereNull('dispatched_at'),
  ).toHaveLength(1);
  // The public board already shows them held.
  const board = await t.api('GET', `/api/draws/${newId}/numbers`);
  expect(board.body.numbers.filter((c: any) => c.status === 'reserved').map((c: any) => c.n)).toEqual([1, 2, 3, 10, 99]);

  // An autopay hold is paid by the card: no PIX, no vouchers on it.
  const res = await t.services.db('reservations').where({ draw_id: newId, user_id: a.user.id }).first();
  const pix = await t.api('POST', '/api/payments/pix', { token: a.token, body: { reservationId: res.id } });
  expect(pix.status).toBe(409);
  expect(pix.body.error).toBe('reservation_autopay');
  const consume = await t.api('POST', '/api/vouchers/consume', {
    token: a.token,
    body: { reservationId: res.id, drawId: newId, numbers: [1, 2, 3] },
  });
  expect(consume.status).toBe(409);
  expect(consume.body.error).toBe('reservation_autopay');

  // Settle them here (no worker in this test) so later tests start clean.
  await t.services.autopay.runDraw(newId);
  expect((await runsOf(t, newId)).map((x: any) => x.status)).toEqual(['approved', 'approved']);
  await t.api('POST', '/api/me/autopay/cancel', { token: a.token });
  await t.api('POST', '/api/me/autopay/cancel', { token: b.token });
});

test('max_per_user skips the excess, taken numbers and numbers beyond the board are skipped; other series are not touched', async () => {
  const { draw } = await mainSeries(t, { max_per_user: 2 });
  const u = await autopayUser(t, [30, 31, 32]);
  const next = await openNextDraw(t, draw.id);
  const [run] = await runsOf(t, next);
  expect(run).toMatchObject({ status: 'held', numbers: [30, 31], skipped_numbers: [32] });
  expect(run.error).toContain('acima do limite de 2 por pessoa');
  // A draw of another product: no run.
  const other = await makeProduct(t);
  const otherDraw = await t.services.db.transaction(async (trx) => {
    const d = await insertDrawWithNumbers(trx, {
      infoproduct_id: other.id,
      title: 'Outro',
      total_numbers: 100,
      prize_cents: 0,
      ticket_price_cents_override: null,
      max_per_user: 0,
    });
    await t.services.draws.opened(trx, d, 'admin');
    return d;
  });
  expect(await t.services.db('autopay_runs').where({ draw_id: otherDraw.id })).toHaveLength(0);
  await t.services.autopay.runDraw(next);
  expect((await cellsOf(t, next, [30, 31, 32])).map((c: any) => [c.status, c.owner_user_id])).toEqual([
    ['sold', u.user.id],
    ['sold', u.user.id],
    ['available', null],
  ]);
  await t.api('POST', '/api/me/autopay/cancel', { token: u.token });
  // A draw with 20 numbers: 40 is not on it; a run with nothing to hold is 'skipped'.
  const small = await mainSeries(t, { total_numbers: 20 });
  const v = await autopayUser(t, [40]);
  const next2 = await openNextDraw(t, small.draw.id);
  expect(await runsOf(t, next2)).toEqual([expect.objectContaining({ status: 'skipped', numbers: [], skipped_numbers: [40] })]);
  await t.api('POST', '/api/me/autopay/cancel', { token: v.token });
});

test('the worker relays draw.opened and charges: approved sells with coupon credit, a decline releases (board free), a transient failure retries', async () => {
  const { draw } = await mainSeries(t, { price_cents: 300, max_per_user: 0 });
  const ok = await autopayUser(t, [5, 6], CARDS.approve);
  const bad = await autopayUser(t, [7, 8], CARDS.decline);
  const flaky = await autopayUser(t, [9], CARDS.transient);
  worker = await startTestWorker(t, { schedules: [{ id: 'outbox-relay', name: 'outbox.relay', everyMs: 500 }] });
  const next = await openNextDraw(t, draw.id);
  // Cache the board while the numbers are held: the release must invalidate it.
  const before = await t.api('GET', `/api/draws/${next}/numbers`);
  expect(before.body.numbers.filter((c: any) => c.status === 'reserved').map((c: any) => c.n)).toEqual([5, 6, 7, 8, 9]);

  const runs = await eventually(
    async () => {
      const rs = await runsOf(t, next);
      return rs.every((r: any) => ['approved', 'failed', 'released'].includes(r.status)) ? rs : null;
    },
    'every run to settle',
    30_000,
    100,
  );
  const byUser = new Map<number, any>();
  for (const r of runs) byUser.set((await t.services.db('autopay_profiles').where({ id: r.profile_id }).first()).user_id, r);

  const okRun = byUser.get(ok.user.id);
  expect(okRun).toMatchObject({ status: 'approved', attempts: 1, amount_cents: 600, provider: 'sandbox', provider_status: 'approved' });
  const pay = await t.services.db('payments').where({ id: okRun.payment_id }).first();
  expect(pay).toMatchObject({ kind: 'autopay', method: 'card', status: 'approved', amount_cents: 600, user_id: ok.user.id, draw_id: next });
  expect(await t.services.db('coupon_ledger').where({ payment_id: pay.id, kind: 'credit' }).pluck('amount_cents')).toEqual([600]);
  expect(await t.services.db('number_sales').where({ payment_id: pay.id }).orderBy('n').select('n', 'source')).toEqual([
    { n: 5, source: 'autopay' },
    { n: 6, source: 'autopay' },
  ]);
  expect(await sandboxCalls(t, okRun.id)).toEqual(['approved']);

  const badRun = byUser.get(bad.user.id);
  expect(badRun).toMatchObject({ status: 'failed', attempts: 1, provider_status: 'rejected' });
  expect(badRun.error).toContain('cartão recusado');
  expect((await t.services.db('payments').where({ id: badRun.payment_id }).first()).status).toBe('rejected');
  expect((await cellsOf(t, next, [7, 8])).map((c: any) => c.status)).toEqual(['available', 'available']);
  expect((await t.services.db('reservations').where({ id: badRun.reservation_id }).first()).status).not.toBe('active');
  expect(await sandboxCalls(t, badRun.id)).toEqual(['rejected']);

  const flakyRun = byUser.get(flaky.user.id);
  expect(flakyRun).toMatchObject({ status: 'approved', attempts: 3, provider_status: 'approved' });
  expect(await sandboxCalls(t, flakyRun.id)).toEqual(['transient_error', 'transient_error', 'approved']);

  // The public board: 5, 6, 9 sold, 7 and 8 free again (the cached answer was dropped).
  const board = await eventually(
    async () => {
      const b = await t.api('GET', `/api/draws/${next}/numbers`);
      const cell = (n: number) => b.body.numbers.find((c: any) => c.n === n).status;
      return cell(7) === 'available' ? b : null;
    },
    'the board to show the declined numbers free',
    5_000,
  );
  const cell = (n: number) => board.body.numbers.find((c: any) => c.n === n).status;
  expect([5, 6, 7, 8, 9].map(cell)).toEqual(['sold', 'sold', 'available', 'available', 'sold']);
  // The event was relayed once and marked.
  expect(
    await t.services
      .db('domain_events')
      .where({ name: 'draw.opened' })
      .whereRaw(`payload->>'drawId' = ?`, [String(next)])
      .whereNotNull('dispatched_at'),
  ).toHaveLength(1);

  // The customer sees the numbers as theirs in /conta's participations.
  const mine = await t.api('GET', '/api/payments/me', { token: ok.token });
  expect(mine.body.items.find((i: any) => i.draw_id === next)).toMatchObject({ kind: 'autopay', numbers: [5, 6], status: 'approved' });

  // The admin's view of the draw's runs.
  const admin = await createUser(t, { admin: true });
  const page = await t.api('GET', `/api/admin/autopay/runs?draw_id=${next}&limit=2`, { token: admin.token });
  expect(page.status).toBe(200);
  expect(page.body).toMatchObject({ hasMore: true, limit: 2, offset: 0 });
  const page2 = await t.api('GET', `/api/admin/autopay/runs?draw_id=${next}&limit=2&offset=2`, { token: admin.token });
  const all = [...page.body.items, ...page2.body.items];
  expect(all.map((r: any) => [r.user_id, r.status, r.numbers, r.attempts])).toEqual([
    [ok.user.id, 'approved', [5, 6], 1],
    [bad.user.id, 'failed', [7, 8], 1],
    [flaky.user.id, 'approved', [9], 3],
  ]);
  expect(all[0]).toMatchObject({
    draw_id: next,
    user_email: ok.email,
    amount_cents: 600,
    payment_id: okRun.payment_id,
    provider: 'sandbox',
    provider_status: 'approved',
  });
  expect(all[1].error).toContain('cartão recusado');

  // Running the draw again charges nobody twice.
  const again = await t.services.autopay.runDraw(next);
  expect(again.processed).toBe(0);
  expect(
    await t.services
      .db('sandbox_card_calls')
      .whereIn(
        'idempotency_key',
        runs.map((r: any) => `cotaverde-autopay-run-${r.id}`),
      )
      .whereIn('result', ['approved', 'rejected']),
  ).toHaveLength(3);
  for (const u of [ok, bad, flaky]) await t.api('POST', '/api/me/autopay/cancel', { token: u.token });
  await worker.close();
  worker = null;
});

test('a transient failure that outlasts the hold releases the numbers; cancelling releases a held run at once', async () => {
  const { draw } = await mainSeries(t, { max_per_user: 0 });
  const flaky = await autopayUser(t, [70], CARDS.transient);
  const quitter = await autopayUser(t, [71]);
  const next = await openNextDraw(t, draw.id);
  const runs = await runsOf(t, next);
  // The hold ends in 2.5 s: the first retry (after 1 s) fits, the second (2 s later) would not.
  await t.services
    .db('autopay_runs')
    .where({ draw_id: next })
    .update({ hold_until: t.services.db.raw(`now() + interval '2500 milliseconds'`) });
  const c = await t.api('POST', '/api/me/autopay/cancel', { token: quitter.token });
  expect(c.status).toBe(200);
  const q = runs.find((r: any) => r.numbers[0] === 71);
  expect(await t.services.db('autopay_runs').where({ id: q.id }).first()).toMatchObject({ status: 'released' });
  expect((await cellsOf(t, next, [71]))[0].status).toBe('available');

  const s1 = await t.services.autopay.runDraw(next);
  expect(s1).toMatchObject({ pending: 1 });
  const f = runs.find((r: any) => r.numbers[0] === 70);
  expect(await t.services.db('autopay_runs').where({ id: f.id }).first()).toMatchObject({ status: 'held', attempts: 1 });
  await retriesDue(t, next);
  const s2 = await t.services.autopay.runDraw(next);
  expect(s2.pending).toBe(0);
  const final = await t.services.db('autopay_runs').where({ id: f.id }).first();
  expect(final).toMatchObject({ status: 'released', attempts: 2 });
  expect(final.error).toContain('falhas temporárias');
  expect((await cellsOf(t, next, [70]))[0].status).toBe('available');
  expect((await t.services.db('payments').where({ id: final.payment_id }).first()).status).toBe('cancelled');
  expect(await sandboxCalls(t, f.id)).toEqual(['transient_error', 'transient_error']);
  await t.api('POST', '/api/me/autopay/cancel', { token: flaky.token });
  void tokenize;
  void VALID_CPF;
  void makeDraw;
});
