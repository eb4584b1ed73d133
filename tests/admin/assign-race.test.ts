import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { grant, invariantViolations, makeProductWithDraw } from '../draws/fixtures';

/**
 * Assigning numbers (admin) while customers reserve and confirm the same numbers, over real
 * parallel HTTP against the real database: a number is never sold twice, every answer is a
 * success or a 409 (never a 500), and an assignment is all or nothing.
 */
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext({ env: { RATE_LIMIT_DISABLED: '1' } });
});
afterAll(() => t.close());

test('admin assignments racing customers reserving and buying the same numbers never sell one twice', async () => {
  const admin = await createUser(t, { admin: true });
  const target = await createUser(t);
  for (let round = 0; round < 6; round++) {
    const { product, draw } = await makeProductWithDraw(t, {}, { total_numbers: 12, max_per_user: 0 });
    const buyers = await Promise.all(Array.from({ length: 4 }, () => createUser(t)));
    for (const b of buyers) await grant(t, b.user.id, product.id, 3);
    // Each buyer wants two numbers that overlap the admin's assignments.
    const wants = [
      [0, 1],
      [1, 2],
      [3, 4],
      [4, 5],
    ];
    const buy = async (i: number) => {
      const b = buyers[i];
      const res = await t.api('POST', '/api/reservations', { token: b.token, body: { draw_id: draw.id, numbers: wants[i] } });
      if (res.status !== 201) return [res.status];
      const c = await t.api('POST', '/api/vouchers/consume', {
        token: b.token,
        body: { reservationId: res.body.reservationId, numbers: wants[i] },
      });
      return [res.status, c.status];
    };
    const assign = (numbers: number[]) =>
      t.api('POST', `/api/admin/users/${target.user.id}/assign-numbers`, { token: admin.token, body: { draw_id: draw.id, numbers } });
    const results = await Promise.all([buy(0), assign([0, 3]), buy(1), assign([2, 5]), buy(2), assign([1, 4]), buy(3)]);
    const statuses = results.map((r) => (Array.isArray(r) ? r : [r.status])).flat();
    expect(statuses.every((s) => [200, 201, 409].includes(s))).toBe(true);
    for (const r of results.filter((x): x is Awaited<ReturnType<typeof assign>> => !Array.isArray(x))) {
      if (r.status === 409) expect(r.body.error).toBe('numbers_conflict');
    }
    expect(await invariantViolations(t, [draw.id])).toEqual([]);
    // All or nothing: each assignment sold both of its numbers to the target, or none of them.
    const owned = await t.services.db('draw_numbers').where({ draw_id: draw.id, owner_user_id: target.user.id }).pluck('n');
    for (const pair of [
      [0, 3],
      [2, 5],
      [1, 4],
    ]) {
      const got = pair.filter((n) => owned.includes(n));
      expect([pair, got.length === 0 || got.length === 2]).toEqual([pair, true]);
    }
    const sales = await t.services.db('number_sales').where({ draw_id: draw.id }).whereNull('voided_at').select('n');
    expect(sales.length).toBeGreaterThan(0);
    expect(new Set(sales.map((s) => s.n)).size).toBe(sales.length);
    // Every admin payment sold exactly its numbers.
    const adminPayments = await t.services.db('payments').where({ draw_id: draw.id, kind: 'admin' });
    for (const p of adminPayments) {
      const sold = await t.services.db('number_sales').where({ payment_id: p.id }).orderBy('n').pluck('n');
      expect(sold).toEqual(p.numbers);
    }
  }
});
