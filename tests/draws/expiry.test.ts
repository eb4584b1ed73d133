import { createTestContext, createUser, type TestContext } from '../helpers/context';
import type { RunningWorker } from '../../src/platform/queue';
import { startTestWorker } from '../helpers/worker';
import { eventually } from '../helpers/eventually';
import { grant, invariantViolations, makeDraw, makeProductWithDraw } from './fixtures';

/**
 * Expiry of holds (RULES R3): a delayed job per reservation plus a periodic
 * sweep, with the database as the source of truth (a Redis wipe loses jobs,
 * never holds).
 */
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

async function hold(token: string, drawId: number, numbers: number[]) {
  const r = await t.api('POST', '/api/reservations', { token, body: { draw_id: drawId, numbers } });
  expect(r.status).toBe(201);
  return r.body.reservationId as number;
}
const expireNow = (ids: number[]) =>
  t.services
    .db('reservations')
    .whereIn('id', ids)
    .update({ expires_at: t.services.db.raw(`now() - interval '1 second'`) });
const statuses = async (drawId: number, numbers: number[]) =>
  (await t.services.db('draw_numbers').where({ draw_id: drawId }).whereIn('n', numbers).orderBy('n').select('status')).map((c) => c.status);
const reservationStatus = async (id: number) => (await t.services.db('reservations').where({ id }).first()).status;

const waitUntil = (what: string, check: () => Promise<boolean>) => eventually(check, what, 30_000, 100);

test('expire(id) releases a hold only once it is past its expiry; idempotent', async () => {
  const { draw } = await makeProductWithDraw(t);
  const u = await createUser(t);
  const id = await hold(u.token, draw.id, [10, 11]);

  expect(await t.services.reservations.expire(id)).toBe(false);
  expect(await statuses(draw.id, [10, 11])).toEqual(['reserved', 'reserved']);
  expect(await reservationStatus(id)).toBe('active');

  // Read the board (cached) before the release: the release must invalidate it.
  expect((await t.api('GET', `/api/numbers?draw_id=${draw.id}`)).body.numbers[10].status).toBe('reserved');
  await expireNow([id]);
  expect(await t.services.reservations.expire(id)).toBe(true);
  expect(await statuses(draw.id, [10, 11])).toEqual(['available', 'available']);
  expect(await reservationStatus(id)).toBe('expired');
  expect((await t.api('GET', `/api/numbers?draw_id=${draw.id}`)).body.numbers[10].status).toBe('available');

  expect(await t.services.reservations.expire(id)).toBe(false);
  expect(await t.services.reservations.expire(987654)).toBe(false);
  // Released numbers can be held again by someone else.
  const v = await createUser(t);
  await hold(v.token, draw.id, [10]);
});

test('expire(id) never touches a consumed reservation', async () => {
  const { product, draw } = await makeProductWithDraw(t);
  const u = await createUser(t);
  await grant(t, u.user.id, product.id, 1);
  const id = await hold(u.token, draw.id, [3]);
  expect((await t.api('POST', '/api/vouchers/consume', { token: u.token, body: { reservationId: id, numbers: [3] } })).status).toBe(200);
  await expireNow([id]);
  expect(await t.services.reservations.expire(id)).toBe(false);
  expect(await statuses(draw.id, [3])).toEqual(['sold']);
  expect(await reservationStatus(id)).toBe('consumed');
});

test('sweep() releases every hold past its expiry and nothing else', async () => {
  const { product, draw } = await makeProductWithDraw(t);
  const u = await createUser(t);
  const v = await createUser(t);
  await grant(t, v.user.id, product.id, 1);
  const due = [await hold(u.token, draw.id, [20]), await hold(u.token, draw.id, [21, 22]), await hold(v.token, draw.id, [23])];
  const live = await hold(v.token, draw.id, [24]);
  const consumed = await hold(v.token, draw.id, [25]);
  expect((await t.api('POST', '/api/vouchers/consume', { token: v.token, body: { reservationId: consumed, numbers: [25] } })).status).toBe(
    200,
  );
  await expireNow([...due, consumed]);

  expect(await t.services.reservations.sweep()).toBe(3);
  expect(await statuses(draw.id, [20, 21, 22, 23, 24, 25])).toEqual([
    'available',
    'available',
    'available',
    'available',
    'reserved',
    'sold',
  ]);
  for (const id of due) expect(await reservationStatus(id)).toBe('expired');
  expect(await reservationStatus(live)).toBe('active');
  expect(await t.services.reservations.sweep()).toBe(0);
  expect(await invariantViolations(t, [draw.id])).toEqual([]);
});

test('an expiry never deadlocks with a reservation in flight: cells are locked in number order', async () => {
  const db = t.services.db;
  const draw = await makeDraw(t, { total_numbers: 10 });
  const a = await createUser(t);
  const r = await db.transaction((trx) =>
    t.services.reservations.holdInTransaction(trx, { userId: a.user.id, drawId: draw.id, numbers: [3, 4], ttlMinutes: 15 }),
  );
  // Store number 3 physically after number 4, so that a scan of the hold's cells meets 4
  // first: re-point it through another reservation and back (an indexed column changes,
  // so each update writes a new row version and a new index entry).
  const [other] = await db('reservations')
    .insert({ user_id: a.user.id, draw_id: draw.id, numbers: [3], status: 'cancelled', expires_at: new Date() })
    .returning('id');
  const tid = async (n: number) => {
    const row = await db('draw_numbers').where({ draw_id: draw.id, n }).first(db.raw('ctid::text AS ctid'));
    const [page, offset] = row.ctid.slice(1, -1).split(',').map(Number);
    return page * 100_000 + offset;
  };
  for (let i = 0; i < 20 && (await tid(3)) < (await tid(4)); i++) {
    await db('draw_numbers').where({ draw_id: draw.id, n: 3 }).update({ reservation_id: other.id });
    await db('draw_numbers').where({ draw_id: draw.id, n: 3 }).update({ reservation_id: r.id });
  }
  expect(await tid(3)).toBeGreaterThan(await tid(4));
  await expireNow([r.id]);

  // Another user's reservation is in flight: it has locked number 3 and will lock 4 next
  // (holdInTransaction locks the requested cells in ascending order).
  const inFlight = await db.transaction();
  try {
    await inFlight('draw_numbers').where({ draw_id: draw.id, n: 3 }).forUpdate().select('n');
    const expiring = t.services.reservations.expire(r.id).then(
      (v) => ({ ok: true as const, v }),
      (e: { code?: string; message: string }) => ({ ok: false as const, code: e.code, message: e.message }),
    );
    // Until the expiry is waiting for number 3 (a backend of this database waits on a row lock),
    // however long a busy machine takes to get there.
    await eventually(
      async () => {
        const r = await db.raw(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
        );
        return r.rows[0].n > 0;
      },
      'the expiry to wait for the lock on number 3',
      60_000,
      20,
    );
    const next = await inFlight('draw_numbers')
      .where({ draw_id: draw.id, n: 4 })
      .forUpdate()
      .select('n')
      .then(
        () => 'locked',
        (e: { code?: string }) => `failed ${e.code}`,
      );
    expect(next).toBe('locked');
    await inFlight.rollback();
    // PostgreSQL resolves a deadlock by failing one side (40P01): neither may fail.
    expect(await expiring).toEqual({ ok: true, v: true });
  } finally {
    if (!inFlight.isCompleted()) await inFlight.rollback();
  }
  expect(await statuses(draw.id, [3, 4])).toEqual(['available', 'available']);
});

test('after a Redis wipe, the sweep still releases every hold that is due', async () => {
  const { draw } = await makeProductWithDraw(t);
  const users = await Promise.all([createUser(t), createUser(t), createUser(t)]);
  const ids = [
    await hold(users[0].token, draw.id, [40, 41]),
    await hold(users[1].token, draw.id, [42]),
    await hold(users[2].token, draw.id, [43, 44, 45]),
  ];
  const delayed = await t.services.queue.raw.getDelayed();
  for (const id of ids) expect(delayed.some((j) => j.name === 'reservation.expire' && j.data.reservationId === id)).toBe(true);

  // Redis loses everything of this app (its BullMQ keys and rate-limit counters).
  const keys = await t.services.redis.keys(`${t.services.config.queuePrefix}*`);
  expect(keys.length).toBeGreaterThan(0);
  await t.services.redis.del(...keys);
  expect(await t.services.redis.keys(`${t.services.config.queuePrefix}*`)).toEqual([]);
  expect(await t.services.queue.raw.getDelayed()).toEqual([]);

  await expireNow(ids);
  expect(await t.services.reservations.sweep()).toBe(3);
  expect(await statuses(draw.id, [40, 41, 42, 43, 44, 45])).toEqual(Array(6).fill('available'));
  for (const id of ids) expect(await reservationStatus(id)).toBe('expired');
  // The queue keeps working after the wipe.
  const again = await hold(users[0].token, draw.id, [40]);
  expect((await t.services.queue.raw.getDelayed()).some((j) => j.data.reservationId === again)).toBe(true);
});

describe('the real worker', () => {
  let running: RunningWorker | null = null;
  afterEach(async () => {
    await running?.close();
    running = null;
  });

  test("a reservation's delayed job releases it when its hold ends", async () => {
    // Only the per-reservation job may release it here: no periodic sweep.
    running = await startTestWorker(t, { schedules: [] });
    const { draw } = await makeProductWithDraw(t);
    const u = await createUser(t);
    const id = await hold(u.token, draw.id, [60, 61]);
    // The hold is 15 minutes; shorten it to 2 s and schedule the matching job.
    const [{ expires_at }] = await t.services
      .db('reservations')
      .where({ id })
      .update({ expires_at: t.services.db.raw(`now() + interval '2 seconds'`) })
      .returning('expires_at');
    await t.services.reservations.scheduleExpiry(id, expires_at);
    expect(await statuses(draw.id, [60, 61])).toEqual(['reserved', 'reserved']);

    await waitUntil('the expiry job to release the numbers', async () =>
      (await statuses(draw.id, [60, 61])).every((s) => s === 'available'),
    );
    expect(await reservationStatus(id)).toBe('expired');
    expect(Date.now()).toBeGreaterThanOrEqual(new Date(expires_at).getTime());
    expect((await t.api('GET', `/api/numbers?draw_id=${draw.id}`)).body.numbers[60].status).toBe('available');
  });

  test('a worker started after a Redis wipe sweeps the holds whose jobs were lost', async () => {
    const { draw } = await makeProductWithDraw(t);
    const u = await createUser(t);
    const id = await hold(u.token, draw.id, [70]);
    const keys = await t.services.redis.keys(`${t.services.config.queuePrefix}*`);
    await t.services.redis.del(...keys);
    await expireNow([id]);

    running = await startTestWorker(t);
    await waitUntil('the periodic sweep to release the hold', async () => (await reservationStatus(id)) === 'expired');
    expect(await statuses(draw.id, [70])).toEqual(['available']);
  });
});
