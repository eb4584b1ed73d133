import { createTestContext, createUser, type ApiResponse, type TestContext } from '../helpers/context';
import { grant, invariantViolations, makeProductWithDraw, range, voucherViolations } from './fixtures';
import { eventually } from '../helpers/eventually';

/**
 * THE race: many users fight over the same 10 numbers of one draw through the
 * real HTTP server, reserving random subsets and consuming vouchers for what
 * they got, all at once. Afterwards the database must tell a consistent story:
 * no number sold or held twice, no negative balance, ledgers = balances,
 * sales = vouchers consumed, per-user limits held, one successor at most.
 */
const USERS = 50;
const REQUESTS_PER_USER = 5; // 250 concurrent reservations per round
const CONTESTED = range(0, 10);

let t: TestContext;
let users: Array<Awaited<ReturnType<typeof createUser>>>;

beforeAll(async () => {
  t = await createTestContext({ env: { RATE_LIMIT_DISABLED: 'true' } });
  users = [];
  for (let i = 0; i < USERS; i += 10)
    users.push(...(await Promise.all(range(i, i + 10).map((k) => createUser(t, { name: `Pessoa Corrida ${k}` })))));
});
afterAll(() => t.close());

/** Small seeded PRNG (mulberry32): a failing round can be replayed from its seed. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

interface Round {
  name: string;
  seed: number;
  total: number;
  maxPerUser: number;
  /** Force-expire random holds while the race runs (expire() and sweep() against consume). */
  expirer?: boolean;
  /**
   * 'contested' (default): random 1-3 of the same 10 numbers. 'own-numbers': each user
   * fires 5 simultaneous single-number holds on numbers nobody else wants, so only the
   * per-user limit stands between them and a sixth of the board.
   */
  mode?: 'contested' | 'own-numbers';
}

const ROUNDS: Round[] = [
  { name: 'unlimited, 100-number board', seed: 1, total: 100, maxPerUser: 0 },
  { name: 'unlimited, 100-number board (2)', seed: 2, total: 100, maxPerUser: 0 },
  { name: 'unlimited, with concurrent expiry', seed: 3, total: 100, maxPerUser: 0, expirer: true },
  { name: 'unlimited, 10-number board sells out', seed: 4, total: 10, maxPerUser: 0 },
  { name: 'unlimited, 10-number board sells out, with concurrent expiry', seed: 5, total: 10, maxPerUser: 0, expirer: true },
  { name: 'max_per_user 2, 100-number board', seed: 6, total: 100, maxPerUser: 2 },
  { name: 'max_per_user 2, 10-number board, with concurrent expiry', seed: 7, total: 10, maxPerUser: 2, expirer: true },
  { name: 'unlimited, 100-number board (3)', seed: 8, total: 100, maxPerUser: 0 },
  {
    name: 'max_per_user 2, every user races itself on its own numbers',
    seed: 9,
    total: USERS * REQUESTS_PER_USER,
    maxPerUser: 2,
    mode: 'own-numbers',
  },
];

test.each(ROUNDS)('race round: $name (seed $seed)', async (round) => {
  const rnd = prng(round.seed);
  const db = t.services.db;
  const { product, draw } = await makeProductWithDraw(t, {}, { total_numbers: round.total, max_per_user: round.maxPerUser });

  // Vouchers: 0..3 per user (some cannot pay for what they reserve).
  const granted = new Map<number, number>();
  for (const u of users) granted.set(u.user.id, Math.floor(rnd() * 4));
  await Promise.all(users.map((u) => (granted.get(u.user.id)! > 0 ? grant(t, u.user.id, product.id, granted.get(u.user.id)!) : null)));

  // 250 reservation attempts: random subsets of 1-3 of the 10 contested numbers, shuffled.
  const attempts: Array<{ u: (typeof users)[number]; numbers: number[]; double: boolean }> = [];
  for (const [i, u] of users.entries()) {
    for (let k = 0; k < REQUESTS_PER_USER; k++) {
      if (round.mode === 'own-numbers') {
        attempts.push({ u, numbers: [i * REQUESTS_PER_USER + k], double: rnd() < 0.15 });
        continue;
      }
      const pool = [...CONTESTED];
      const size = 1 + Math.floor(rnd() * 3);
      const numbers: number[] = [];
      for (let i = 0; i < size; i++) numbers.push(pool.splice(Math.floor(rnd() * pool.length), 1)[0]);
      attempts.push({ u, numbers, double: rnd() < 0.15 });
    }
  }
  for (let i = attempts.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [attempts[i], attempts[j]] = [attempts[j], attempts[i]];
  }

  const reserves: Array<{ userId: number; res: ApiResponse }> = [];
  const consumes: Array<{ userId: number; reservationId: number; res: ApiResponse }> = [];
  let running = true;
  const expirer = (async () => {
    if (!round.expirer) return;
    const pick = prng(round.seed * 7919);
    // One round of expiries per answered request: each round waits for the race to have moved on.
    let answered = -1;
    while (running) {
      await eventually(async () => !running || reserves.length + consumes.length !== answered, 'another answer in the race', 60_000, 2);
      if (!running) break;
      answered = reserves.length + consumes.length;
      const active: Array<{ id: number }> = await db('reservations').where({ draw_id: draw.id, status: 'active' }).select('id');
      const chosen = active.filter(() => pick() < 0.3).map((r) => r.id);
      if (chosen.length) {
        await db('reservations')
          .whereIn('id', chosen)
          .where({ status: 'active' })
          .update({ expires_at: db.raw(`now() - interval '1 second'`) });
        if (pick() < 0.5) await t.services.reservations.sweep();
        else await Promise.all(chosen.map((id) => t.services.reservations.expire(id)));
      }
    }
  })();

  await Promise.all(
    attempts.map(async ({ u, numbers, double }) => {
      const res = await t.api('POST', '/api/reservations', {
        token: u.token,
        body: { draw_id: draw.id, numbers: [...numbers].sort((a, b) => a - b) },
      });
      reserves.push({ userId: u.user.id, res });
      if (res.status !== 201) return;
      const reservationId = res.body.reservationId as number;
      const send = () =>
        t
          .api('POST', '/api/vouchers/consume', { token: u.token, body: { draw_id: draw.id, reservationId, numbers: res.body.numbers } })
          .then((c) => {
            consumes.push({ userId: u.user.id, reservationId, res: c });
          });
      // Some buyers double-click: two concurrent confirmations of one reservation.
      await Promise.all(double ? [send(), send()] : [send()]);
    }),
  );
  running = false;
  await expirer;

  // Every answer is a deliberate one: no 500 (a deadlock or a constraint violation would be).
  const reserveCodes = reserves.map((r) => (r.res.status === 201 ? 201 : `${r.res.status} ${r.res.body?.error}`));
  const consumeCodes = consumes.map((c) => (c.res.status === 200 ? 200 : `${c.res.status} ${c.res.body?.error}`));
  const allowedReserve = new Set<unknown>([201, '409 numbers_conflict', '409 limit_exceeded', '409 draw_closed']);
  const allowedConsume = new Set<unknown>([
    200,
    '409 numbers_conflict',
    '409 insufficient_vouchers',
    '409 draw_closed',
    '409 limit_exceeded',
  ]);
  expect(reserveCodes.filter((c) => !allowedReserve.has(c))).toEqual([]);
  expect(consumeCodes.filter((c) => !allowedConsume.has(c))).toEqual([]);
  expect(reserves).toHaveLength(attempts.length);
  // The race really raced: some holds won, some lost on conflicts, some sales went through.
  expect(reserveCodes.filter((c) => c === 201).length).toBeGreaterThan(0);
  expect(reserveCodes.filter((c) => c !== 201).length).toBeGreaterThan(0);
  const sold = consumes.filter((c) => c.res.status === 200);
  expect(sold.length).toBeGreaterThan(0);

  const draws: Array<{ id: number; status: string; predecessor_id: number | null; closed_at: Date | null }> = await db('draws')
    .where({ infoproduct_id: product.id })
    .orderBy('id');
  const drawIds = draws.map((d) => d.id);

  // The board: nothing sold twice, held twice, or inconsistent between cells, holds and sales.
  expect(await invariantViolations(t, drawIds)).toEqual([]);
  expect(
    await voucherViolations(
      t,
      users.map((u) => u.user.id),
    ),
  ).toEqual([]);

  // Holds: one reservation row per 201; a double confirmation sells at most once.
  expect(
    await db('reservations')
      .where({ draw_id: draw.id })
      .count<{ c: number }[]>({ c: '*' })
      .then((r) => Number(r[0].c)),
  ).toBe(reserveCodes.filter((c) => c === 201).length);
  const okPerReservation = new Map<number, number>();
  for (const c of sold) okPerReservation.set(c.reservationId, (okPerReservation.get(c.reservationId) ?? 0) + 1);
  expect([...okPerReservation.values()].filter((n) => n > 1)).toEqual([]);

  // Vouchers per user: granted = consumed + remaining, and sales = consumed.
  const ledger: Array<{ user_id: number; granted: number; consumed: number }> = await db('voucher_ledger')
    .where({ infoproduct_id: product.id })
    .groupBy('user_id')
    .select(
      'user_id',
      db.raw(`coalesce(sum(delta) FILTER (WHERE delta > 0), 0)::int AS granted`),
      db.raw(`coalesce(-sum(delta) FILTER (WHERE delta < 0), 0)::int AS consumed`),
    );
  const balances = new Map<number, number>(
    (await db('voucher_balances').where({ infoproduct_id: product.id }).select('user_id', 'balance')).map(
      (b: { user_id: number; balance: number }) => [b.user_id, b.balance],
    ),
  );
  const salesPerUser = new Map<number, number>(
    (await db('number_sales').whereIn('draw_id', drawIds).groupBy('user_id').select('user_id', db.raw('count(*)::int AS c'))).map(
      (r: { user_id: number; c: number }) => [r.user_id, r.c],
    ),
  );
  const soldNumbersPerUser = new Map<number, number>();
  for (const c of sold) soldNumbersPerUser.set(c.userId, (soldNumbersPerUser.get(c.userId) ?? 0) + c.res.body.numbers.length);
  const problems: string[] = [];
  for (const u of users) {
    const id = u.user.id;
    const l = ledger.find((x) => x.user_id === id) ?? { granted: 0, consumed: 0 };
    const balance = balances.get(id) ?? 0;
    if (l.granted !== granted.get(id)) problems.push(`user ${id}: granted ${granted.get(id)} but ledger says ${l.granted}`);
    if (l.granted !== l.consumed + balance)
      problems.push(`user ${id}: granted ${l.granted} ≠ consumed ${l.consumed} + remaining ${balance}`);
    if ((salesPerUser.get(id) ?? 0) !== l.consumed)
      problems.push(`user ${id}: ${salesPerUser.get(id) ?? 0} numbers sold but ${l.consumed} vouchers consumed`);
    if ((soldNumbersPerUser.get(id) ?? 0) !== l.consumed)
      problems.push(`user ${id}: answers confirmed ${soldNumbersPerUser.get(id) ?? 0} numbers but ${l.consumed} consumed`);
    if (balance < 0) problems.push(`user ${id}: negative balance`);
  }
  expect(problems).toEqual([]);

  // Per-user limit under concurrency: nobody owns or holds more than max_per_user in the draw.
  if (round.maxPerUser > 0) {
    const owned: Array<{ user_id: number; c: number }> = await db('number_sales')
      .where({ draw_id: draw.id })
      .groupBy('user_id')
      .select('user_id', db.raw('count(*)::int AS c'));
    expect(owned.filter((o) => o.c > round.maxPerUser)).toEqual([]);
    const holdsAndSales: Array<{ user_id: number; c: number }> = await db
      .raw(
        `SELECT user_id, sum(c)::int AS c FROM (
         SELECT owner_user_id AS user_id, count(*) AS c FROM draw_numbers WHERE draw_id = ? AND status = 'sold' GROUP BY 1
         UNION ALL
         SELECT r.user_id, count(*) FROM draw_numbers dn JOIN reservations r ON r.id = dn.reservation_id
          WHERE dn.draw_id = ? AND dn.status = 'reserved' GROUP BY 1) x GROUP BY user_id`,
        [draw.id, draw.id],
      )
      .then((r: { rows: Array<{ user_id: number; c: number }> }) => r.rows);
    expect(holdsAndSales.filter((o) => o.c > round.maxPerUser)).toEqual([]);
  }

  if (round.mode === 'own-numbers') {
    // Nothing else to fight over: every user got exactly max_per_user holds, the rest hit the limit.
    const wins = new Map<number, number>();
    for (const r of reserves) if (r.res.status === 201) wins.set(r.userId, (wins.get(r.userId) ?? 0) + 1);
    expect(users.filter((u) => wins.get(u.user.id) !== round.maxPerUser).map((u) => [u.user.id, wins.get(u.user.id)])).toEqual([]);
    expect(reserveCodes.filter((c) => c !== 201).every((c) => c === '409 limit_exceeded')).toBe(true);
  }

  // Sell-out: closed iff every number is sold, and then exactly one successor.
  const first = draws.find((d) => d.id === draw.id)!;
  const soldCount = await db('draw_numbers')
    .where({ draw_id: draw.id, status: 'sold' })
    .count<{ c: number }[]>({ c: '*' })
    .then((r) => Number(r[0].c));
  const successors = draws.filter((d) => d.predecessor_id === draw.id);
  expect(draws.filter((d) => d.status === 'open')).toHaveLength(1);
  if (soldCount === round.total) {
    expect(first.status).toBe('closed');
    expect(first.closed_at).not.toBeNull();
    expect(successors).toHaveLength(1);
    expect(sold.filter((c) => c.res.body.sold_out)).toHaveLength(1);
    expect(sold.find((c) => c.res.body.sold_out)!.res.body.next_draw_id).toBe(successors[0].id);
  } else {
    expect(first.status).toBe('open');
    expect(successors).toHaveLength(0);
    expect(sold.filter((c) => c.res.body.sold_out)).toHaveLength(0);
  }
});
