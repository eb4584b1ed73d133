import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { writeAppConfig } from '../../src/platform/app-config';
import { makeProductWithDraw } from './fixtures';

/**
 * Holds (RULES R5): at most max_numbers_per_selection × 2 numbers held per user and draw at a time,
 * whatever max_per_user is; reserving reclaims cells of holds already past their time, so a
 * stopped worker never freezes a board. No worker runs in this file.
 */
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext({ env: { RATE_LIMIT_DISABLED: '1' } });
  await writeAppConfig(t.services.db, { max_numbers_per_selection: 3 });
});
afterAll(() => t.close());

const reserve = (token: string, drawId: number, numbers: number[]) =>
  t.api('POST', '/api/reservations', { token, body: { draw_id: drawId, numbers } });

test('a user holds at most max_numbers_per_selection × 2 numbers of a draw at a time, even with max_per_user unlimited', async () => {
  const { draw } = await makeProductWithDraw(t, {}, { max_per_user: 0 });
  const u = await createUser(t);
  expect((await reserve(u.token, draw.id, [1, 2, 3])).status).toBe(201);
  expect((await reserve(u.token, draw.id, [4, 5])).status).toBe(201);
  const over = await reserve(u.token, draw.id, [6, 7]);
  expect(over.status).toBe(409);
  expect(over.body).toMatchObject({ error: 'hold_limit', max_held: 6, held: 5 });
  expect(over.body.message).toBe(
    'Você já tem 5 números reservados neste sorteio; o máximo ao mesmo tempo é 6. Conclua ou aguarde uma reserva antes de reservar mais.',
  );
  expect((await reserve(u.token, draw.id, [6])).status).toBe(201);
  expect((await reserve(u.token, draw.id, [7])).status).toBe(409);
  // Other users and other draws are not affected.
  const other = await createUser(t);
  expect((await reserve(other.token, draw.id, [10, 11, 12])).status).toBe(201);
  const { draw: second } = await makeProductWithDraw(t, {}, { max_per_user: 0 });
  expect((await reserve(u.token, second.id, [1, 2, 3])).status).toBe(201);
  // A hold past its time no longer counts (even before anything releases it).
  const [first] = await t.services.db('reservations').where({ user_id: u.user.id, draw_id: draw.id }).orderBy('id').limit(1);
  await t.services
    .db('reservations')
    .where({ id: first.id })
    .update({ expires_at: t.services.db.raw(`now() - interval '1 second'`) });
  expect((await reserve(u.token, draw.id, [20, 21, 22])).status).toBe(201);
});

test('parallel reservations of one user never pass the cap together', async () => {
  const { draw } = await makeProductWithDraw(t, {}, { max_per_user: 0 });
  const u = await createUser(t);
  const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => reserve(u.token, draw.id, [i * 3, i * 3 + 1])));
  const ok = answers.filter((a) => a.status === 201);
  expect(ok).toHaveLength(3);
  for (const a of answers.filter((x) => x.status !== 201)) expect(a.body.error).toBe('hold_limit');
  const held = await t.services.db('draw_numbers').where({ draw_id: draw.id, status: 'reserved' });
  expect(held).toHaveLength(6);
});

test('reserving reclaims the cells of a hold past its time although no expiry job ran', async () => {
  const { draw } = await makeProductWithDraw(t, {}, { max_per_user: 0 });
  const a = await createUser(t);
  const b = await createUser(t);
  const first = await reserve(a.token, draw.id, [40, 41, 42]);
  expect(first.status).toBe(201);
  // Still held: a conflict.
  expect((await reserve(b.token, draw.id, [41])).status).toBe(409);
  // Its time passes; the worker is stopped, so nothing releases it.
  await t.services
    .db('reservations')
    .where({ id: first.body.id })
    .update({ expires_at: t.services.db.raw(`now() - interval '1 second'`) });
  const taken = await reserve(b.token, draw.id, [41]);
  expect(taken.status).toBe(201);
  // The stale reservation was released as the expiry job would: all its cells, its status.
  expect((await t.services.db('reservations').where({ id: first.body.id }).first()).status).toBe('expired');
  const cells = await t.services.db('draw_numbers').where({ draw_id: draw.id }).whereIn('n', [40, 41, 42]).orderBy('n');
  expect(cells.map((c) => [c.n, c.status, c.reservation_id])).toEqual([
    [40, 'available', null],
    [41, 'reserved', taken.body.id],
    [42, 'available', null],
  ]);
});
