import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { runCliCaptured } from '../helpers/cli';
import { brasilia } from '../../cli/output';
import { eventually } from '../helpers/eventually';
import { waitForJob } from '../helpers/jobs';
import { startTestWorker } from '../helpers/worker';
import { brDate, REAL_CONTESTS, startFakeLottery, type FakeLottery } from '../helpers/fake-lottery';
import { grant, makeDraw, makeProductWithDraw, range, sellDirectly } from '../draws/fixtures';
import { registerJobHandlers } from '../../jobs/registry';
import { decideWinner } from '../../src/results/winner-rule';
import { previousScheduledContest } from '../../src/results/time';
import { RESULTS_SCHEDULES, SCHEDULES } from '../../src/platform/queue';

/**
 * Winners from Lotomania results (RULES W1-W5) against the real app, database and a local fake of
 * the results service: sold out → closed → `results record` → the winner stored once with an
 * audit entry holding the inputs; the job decides nothing twice; parallel decisions; conflicts,
 * corrections, the public result and the customer's views.
 *
 * Each test uses its own day (DAY(k): 20:00 Brasília, k weeks ago) and closes its draws an hour
 * before it, so one test's contest never decides another test's draws.
 */
let t: TestContext;
let fake: FakeLottery;
beforeAll(async () => {
  fake = await startFakeLottery();
  t = await createTestContext({
    env: {
      RATE_LIMIT_DISABLED: '1',
      LOTTERY_API_URL: fake.url,
      LOTTERY_API_TIMEOUT_MS: '1000',
      LOTTERY_API_RETRIES: '3',
      LOTTERY_API_RETRY_BASE_MS: '20',
    },
  });
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

const cli = (argv: string[]) => runCliCaptured(argv, () => t.services);
const real = (c: number) => REAL_CONTESTS[String(c)].map(Number);
const pad = (n: number) => String(n).padStart(2, '0');
/** 20:00 Brasília on the day `weeks` weeks and one day ago. */
function day(weeks: number): Date {
  const d = new Date(Date.now() - (weeks * 7 + 1) * 86_400_000);
  const [dd, mm, yyyy] = brDate(d).split('/').map(Number);
  return new Date(Date.UTC(yyyy, mm - 1, dd, 23));
}
const closeAt = (drawId: number, at: Date) => t.services.db('draws').where({ id: drawId }).update({ status: 'closed', closed_at: at });
const drawRow = (id: number) => t.services.db('draws').where({ id }).first();
const decisions = (drawId: number) =>
  t.services
    .db('audit_log')
    .where({ entity: 'draw', entity_id: String(drawId), action: 'draw.decided' })
    .orderBy('id');
const winnerMails = (to: string) => t.services.db('mail_outbox').where({ to_address: to, template: 'draw_won' });

test('sold out → closed → results record: the winner is stored once, audited with the inputs, mailed; the job decides nothing twice', async () => {
  const D = day(1);
  const numbers = real(2650);
  const { product, draw } = await makeProductWithDraw(t, {}, { total_numbers: 100, max_per_user: 0 });
  const buyers = [await createUser(t, { name: 'Ana Beatriz Costa' }), await createUser(t, { name: 'Bruno Dias' })];
  // Everything but one number sold directly; the last one through the real sale path (closes the draw).
  const last = numbers[19];
  const owner = (n: number) => buyers[n % 2];
  for (const b of buyers)
    await sellDirectly(
      t,
      draw.id,
      b.user.id,
      range(0, 100).filter((n) => n !== last && owner(n) === b),
    );
  const lastBuyer = owner(last);
  await grant(t, lastBuyer.user.id, product.id, 1);
  const res = await t.api('POST', '/api/reservations', { token: lastBuyer.token, body: { draw_id: draw.id, numbers: [last] } });
  expect(res.status).toBe(201);
  const consumed = await t.api('POST', '/api/vouchers/consume', {
    token: lastBuyer.token,
    body: { reservationId: res.body.reservationId, numbers: [last] },
  });
  expect(consumed.body).toMatchObject({ sold_out: true });
  expect((await drawRow(draw.id)).status).toBe('closed');
  // It closed an hour before the contest.
  await closeAt(draw.id, new Date(D.getTime() - 3600_000));

  // Not drawn yet: 404 with a message.
  const early = await t.api('GET', `/api/draws/${draw.id}/result`);
  expect(early.status).toBe(404);
  expect(early.body).toEqual({ error: 'result_not_available', message: 'O resultado deste sorteio ainda não saiu.' });

  const r = await cli(['results', 'record', '--contest', '2960', '--numbers', numbers.map(pad).join(' '), '--drawn-at', D.toISOString()]);
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  expect(r.out).toContain(`concurso 2960 (${brasilia(D)}): ${numbers.map(pad).join(' ')} — registrado`);
  expect(r.out).toContain(`sorteio #${draw.id} ${draw.title}: número ${pad(last)}, usuário #${lastBuyer.user.id}\n`);

  const after = await drawRow(draw.id);
  expect(after).toMatchObject({
    status: 'drawn',
    contest_number: 2960,
    winner_user_id: lastBuyer.user.id,
    winner_number: last,
    no_winner: false,
  });
  expect(after.realized_at).toBeInstanceOf(Date);
  const stored = await t.services.db('lottery_results').where({ contest_number: 2960 });
  expect(stored).toHaveLength(1);
  expect(stored[0]).toMatchObject({ game: 'lotomania', numbers, source: 'cli', held_at: D });

  // The audit entry holds the inputs: recomputing from them gives the same winner.
  const log = await decisions(draw.id);
  expect(log).toHaveLength(1);
  expect(log[0]).toMatchObject({ actor: 'cli', data: { winning_number: last, winner_user_id: lastBuyer.user.id, walk: [] } });
  const inputs = log[0].data.inputs;
  expect(inputs).toMatchObject({ game: 'lotomania', contest_number: 2960, drawn_at: D.toISOString(), numbers, total_numbers: 100 });
  expect(inputs.sold).toHaveLength(100);
  expect(decideWinner({ numbers: inputs.numbers, totalNumbers: inputs.total_numbers, sold: inputs.sold })).toMatchObject({
    winning_number: last,
    winner_user_id: lastBuyer.user.id,
  });

  // The winner is mailed once.
  const mails = await winnerMails(lastBuyer.email);
  expect(mails).toHaveLength(1);
  expect(mails[0].subject).toBe(`Você foi contemplado no sorteio "${draw.title}"!`);
  expect(mails[0].body_text).toContain(`O seu número ${pad(last)} foi o contemplado`);
  expect(mails[0].body_text).toContain(`http://cotaverde.test/resultado/${draw.id}`);

  // Recording again with the same numbers changes nothing; the job run twice decides nothing twice.
  const again = await cli(['results', 'record', '--contest', '2960', '--numbers', numbers.join(','), '--drawn-at', D.toISOString()]);
  expect(again.code).toBe(0);
  expect(again.out).toContain('já registrado com os mesmos números, nada mudou');
  expect(again.out).toContain('nenhum sorteio decidido agora');
  const handlers = registerJobHandlers(t.services);
  fake.add(2960, numbers, D);
  for (let i = 0; i < 2; i++) await handlers['results.fetch']({}, {} as never);
  expect(await decisions(draw.id)).toHaveLength(1);
  expect(await winnerMails(lastBuyer.email)).toHaveLength(1);
  expect(await drawRow(draw.id)).toEqual(after);

  // The public result: anyone can check it.
  const pub = await t.api('GET', `/api/draws/${draw.id}/result`);
  expect(pub.status).toBe(200);
  expect(pub.body).toEqual({
    draw_id: draw.id,
    title: draw.title,
    total_numbers: 100,
    contest_number: 2960,
    drawn_at: D.toISOString(),
    realized_at: after.realized_at.toISOString(),
    numbers,
    walk: [],
    winning_number: last,
    winner_initials: lastBuyer === buyers[0] ? 'ABC' : 'BD',
    no_winner: false,
  });

  // The customers' views: CONTEMPLADO for the winner (participations `won`), NÃO CONTEMPLADO for the other.
  const loser = buyers.find((b) => b !== lastBuyer)!;
  const boardW = await t.api('GET', `/api/me/draws/${draw.id}/board`, { token: lastBuyer.token });
  expect(boardW.body.draw).toMatchObject({
    status: 'sorteado',
    result: 'contemplado',
    winner_number: last,
    winner_name: lastBuyer.user.name,
  });
  expect(boardW.body.board.find((c: { n: number }) => c.n === last)).toMatchObject({ isWinner: true, isMine: true });
  const boardL = await t.api('GET', `/api/me/draws/${draw.id}/board`, { token: loser.token });
  expect(boardL.body.draw).toMatchObject({
    status: 'sorteado',
    result: 'nao contemplado',
    winner_number: last,
    winner_name: lastBuyer === buyers[0] ? 'ABC' : 'BD',
  });
});

test('the first contest after closing decides: a draw closed after the contest waits for the next one; unsold and out-of-range numbers are walked over', async () => {
  const D = day(2);
  const numbers = real(2601); // … 49, 66, 68, 54
  const early = await makeDraw(t, { total_numbers: 60, status: 'open' });
  const lateDraw = await makeDraw(t, { total_numbers: 100, status: 'open' });
  const u = await createUser(t, { name: 'Carla Souza' });
  await sellDirectly(t, early.id, u.user.id, [49, 1, 2]);
  await sellDirectly(t, lateDraw.id, u.user.id, [54]);
  await closeAt(early.id, new Date(D.getTime() - 2 * 3600_000));
  await closeAt(lateDraw.id, new Date(D.getTime() + 3600_000)); // closed after the contest

  const out = await t.services.results.record(
    { contest_number: 2950, numbers, drawn_at: D },
    { actorUserId: null, actor: 'cli', source: 'cli' },
  );
  expect(out.decided.map((d) => d.draw_id)).toEqual([early.id]);
  // 54 ≥ 60? no: 54 < 60 but unsold; 68 and 66 are ≥ 60; 49 is sold.
  expect(out.decided[0]).toMatchObject({
    winning_number: 49,
    winner_user_id: u.user.id,
    walk: [
      { n: 54, reason: 'not_sold' },
      { n: 68, reason: 'out_of_range' },
      { n: 66, reason: 'out_of_range' },
    ],
  });
  expect((await drawRow(lateDraw.id)).status).toBe('closed');
  const pub = await t.api('GET', `/api/draws/${early.id}/result`);
  expect(pub.body).toMatchObject({ winning_number: 49, winner_initials: 'CS', walk: out.decided[0].walk });

  // The next contest (two days later) decides the late draw.
  const next = new Date(D.getTime() + 2 * 86_400_000);
  const out2 = await t.services.results.record(
    { contest_number: 2951, numbers, drawn_at: next },
    { actorUserId: null, actor: 'cli', source: 'cli' },
  );
  expect(out2.decided.map((d) => [d.draw_id, d.winning_number])).toEqual([[lateDraw.id, 54]]);
  expect(previousScheduledContest(new Date('2026-11-23T23:00:00Z'))).toEqual(new Date('2026-11-20T23:00:00Z')); // Mon → Fri
  expect(previousScheduledContest(new Date('2026-11-25T23:00:00Z'))).toEqual(new Date('2026-11-23T23:00:00Z')); // Wed → Mon
});

test('a refunded number does not count; all twenty unsold gives no winner (recorded as such, nobody mailed)', async () => {
  const D = day(3);
  const numbers = real(2602); // last: 82, 15
  const refunded = await makeDraw(t, { status: 'open' });
  const empty = await makeDraw(t, { status: 'open' });
  const a = await createUser(t);
  const b = await createUser(t);
  const [payment] = await t.services
    .db('payments')
    .insert({ user_id: a.user.id, kind: 'admin', method: 'admin', provider: 'admin', status: 'refunded', amount_cents: 0 })
    .returning('*');
  await sellDirectly(t, refunded.id, b.user.id, [82]);
  await t.services.db.transaction(async (trx) => {
    await trx('draw_numbers')
      .where({ draw_id: refunded.id, n: 15 })
      .update({ status: 'sold', owner_user_id: a.user.id, payment_id: payment.id });
    await trx('number_sales').insert({ draw_id: refunded.id, n: 15, user_id: a.user.id, payment_id: payment.id, source: 'pix' });
  });
  const drawnSet = new Set(numbers);
  await sellDirectly(
    t,
    empty.id,
    b.user.id,
    range(0, 100).filter((n) => !drawnSet.has(n)),
  );
  for (const d of [refunded, empty]) await closeAt(d.id, new Date(D.getTime() - 3600_000));

  const out = await t.services.results.record(
    { contest_number: 2940, numbers, drawn_at: D },
    { actorUserId: null, actor: 'cli', source: 'cli' },
  );
  const byId = new Map(out.decided.map((d) => [d.draw_id, d]));
  expect(byId.get(refunded.id)).toMatchObject({ winning_number: 82, winner_user_id: b.user.id, walk: [{ n: 15, reason: 'not_sold' }] });
  expect(byId.get(empty.id)).toMatchObject({ winning_number: null, winner_user_id: null, no_winner: true });
  expect(byId.get(empty.id)!.walk.map((w) => w.n)).toEqual([...numbers].reverse());
  expect(await drawRow(empty.id)).toMatchObject({
    status: 'drawn',
    no_winner: true,
    winner_user_id: null,
    winner_number: null,
    contest_number: 2940,
  });
  const pub = await t.api('GET', `/api/draws/${empty.id}/result`);
  expect(pub.body).toMatchObject({
    winning_number: null,
    winner_initials: null,
    no_winner: true,
    walk: [...numbers].reverse().map((n) => ({ n, reason: 'not_sold' })),
  });
  expect(await winnerMails(a.email)).toHaveLength(0);
});

test('other numbers for a stored contest are refused (409, pointing to the correction); the correction recomputes and audits', async () => {
  const D = day(4);
  const numbers = real(2603);
  const draw = await makeDraw(t, { status: 'open' });
  const x = await createUser(t);
  const y = await createUser(t);
  await sellDirectly(t, draw.id, x.user.id, [numbers[19]]);
  await sellDirectly(t, draw.id, y.user.id, [numbers[18]]);
  await closeAt(draw.id, new Date(D.getTime() - 3600_000));
  await t.services.results.record({ contest_number: 2930, numbers, drawn_at: D }, { actorUserId: null, actor: 'cli', source: 'cli' });
  expect((await drawRow(draw.id)).winner_user_id).toBe(x.user.id);

  // The true order had the last two swapped.
  const fixed = [...numbers.slice(0, 18), numbers[19], numbers[18]];
  const refused = await cli(['results', 'record', '--contest', '2930', '--numbers', fixed.join(' '), '--drawn-at', D.toISOString()]);
  expect(refused.code).toBe(1);
  expect(refused.err).toBe(
    'erro (result_conflict): O concurso 2930 já foi registrado com outros números. Para corrigir, use: cotaverde results correct --contest 2930 --numbers "<20 números>" --reason "<motivo>".\n',
  );
  expect((await t.services.db('lottery_results').where({ contest_number: 2930 }).first()).numbers).toEqual(numbers);

  const c = await cli(['results', 'correct', '--contest', '2930', '--numbers', fixed.join(' '), '--reason', 'ordem digitada errada']);
  expect(c.err).toBe('');
  expect(c.code).toBe(0);
  expect(c.out).toContain(`sorteio #${draw.id} ${draw.title}: número ${pad(numbers[18])}, usuário #${y.user.id}`);
  expect(await drawRow(draw.id)).toMatchObject({ status: 'drawn', winner_user_id: y.user.id, winner_number: numbers[18] });
  const corr = await t.services.db('audit_log').where({ entity: 'draw', entity_id: String(draw.id), action: 'draw.result_corrected' });
  expect(corr).toHaveLength(1);
  expect(corr[0].data).toMatchObject({
    reason: 'ordem digitada errada',
    before: { winner_user_id: x.user.id },
    after: { winner_user_id: y.user.id },
    inputs: { numbers: fixed },
  });
  expect(
    await t.services.db('audit_log').where({ entity: 'lottery_result', entity_id: '2930', action: 'lottery_result.corrected' }),
  ).toHaveLength(1);
  expect(await winnerMails(y.email)).toHaveLength(1);
  // Still decided once.
  expect(await decisions(draw.id)).toHaveLength(1);
});

test('parallel decisions: five admins recording the same result at once decide the draw exactly once', async () => {
  const D = day(5);
  const numbers = real(2604);
  const admin = await createUser(t, { admin: true });
  const draw = await makeDraw(t, { status: 'open' });
  const w = await createUser(t);
  await sellDirectly(t, draw.id, w.user.id, range(0, 100));
  await closeAt(draw.id, new Date(D.getTime() - 3600_000));
  const body = { contest_number: 2920, numbers, drawn_at: D.toISOString() };
  const answers = await Promise.all(
    range(0, 5).map(() => t.api('POST', `/api/admin/draws/${draw.id}/result`, { token: admin.token, body })),
  );
  // The first records and decides; the others either find it drawn (409) or record nothing new.
  expect(answers.filter((a) => a.status === 201).length).toBeGreaterThanOrEqual(1);
  for (const a of answers) expect([201, 409]).toContain(a.status);
  for (const a of answers.filter((x) => x.status === 409)) expect(a.body.error).toBe('draw_drawn');
  expect(await decisions(draw.id)).toHaveLength(1);
  expect(await winnerMails(w.email)).toHaveLength(1);
  expect(await t.services.db('lottery_results').where({ contest_number: 2920 })).toHaveLength(1);
  expect(await drawRow(draw.id)).toMatchObject({ status: 'drawn', winner_number: numbers[19], winner_user_id: w.user.id });

  // The service called in parallel directly (job + CLI racing) too.
  const D2 = day(6);
  const d2 = await makeDraw(t, { status: 'open' });
  await sellDirectly(t, d2.id, w.user.id, range(0, 100));
  await closeAt(d2.id, new Date(D2.getTime() - 3600_000));
  const runs = await Promise.all(
    range(0, 6).map(() =>
      t.services.results.record({ contest_number: 2910, numbers, drawn_at: D2 }, { actorUserId: null, actor: 'system', source: 'service' }),
    ),
  );
  expect(runs.flatMap((r) => r.decided.map((d) => d.draw_id))).toEqual([d2.id]);
  expect(runs.filter((r) => r.created)).toHaveLength(1);
  expect(await decisions(d2.id)).toHaveLength(1);
});

test('the job through a real worker: the results service fails twice, then answers; the draw is decided on retry', async () => {
  const D = day(7);
  const numbers = real(2699);
  const draw = await makeDraw(t, { status: 'open' });
  const w = await createUser(t);
  await sellDirectly(t, draw.id, w.user.id, range(0, 100));
  await closeAt(draw.id, new Date(D.getTime() - 3600_000));
  fake.add(2970, numbers, D);
  fake.requests.length = 0;
  fake.failNext(2, 500);
  const worker = await startTestWorker(t, { schedules: [] });
  try {
    await t.services.queue.enqueue('results.fetch', {});
    const decided = await eventually(
      async () => ((await drawRow(draw.id)).status === 'drawn' ? drawRow(draw.id) : null),
      'draw decided by the job',
    );
    expect(decided).toMatchObject({ contest_number: 2970, winner_number: numbers[19], winner_user_id: w.user.id });
    expect(fake.requests.slice(0, 3)).toEqual(['/lotomania', '/lotomania', '/lotomania']);
    expect(await t.services.db('lottery_results').where({ contest_number: 2970 }).first()).toMatchObject({
      source: 'service',
      numbers,
      held_at: D,
    });
    expect((await decisions(draw.id))[0]).toMatchObject({ actor: 'system' });
    // Queued again: once that job has run to its end, the draw was still decided only once.
    await t.services.queue.enqueue('results.fetch', {}, { jobId: 'results-fetch-again' });
    await waitForJob(t.services.queue.raw, 'results-fetch-again', 'completed', 'the second results.fetch job to have run');
    expect(await decisions(draw.id)).toHaveLength(1);
  } finally {
    await worker.close();
  }
});

test('the schedules: every 30 minutes from 20:30 to 23:59 on draw days, hourly otherwise, in Brasília time', () => {
  expect(RESULTS_SCHEDULES.map((s) => [s.pattern, s.tz])).toEqual([
    ['30 20 * * 1,3,5', 'America/Sao_Paulo'],
    ['0,30 21-23 * * 1,3,5', 'America/Sao_Paulo'],
    ['0 0-20 * * 1,3,5', 'America/Sao_Paulo'],
    ['0 * * * 0,2,4,6', 'America/Sao_Paulo'],
  ]);
  for (const s of RESULTS_SCHEDULES) expect(SCHEDULES).toContainEqual(s);
});
