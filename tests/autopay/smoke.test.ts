import { createTestContext, type TestContext } from '../helpers/context';
import { autopayUser, cellsOf, mainSeries, openNextDraw, runsOf } from './fixtures';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(async () => t?.close());

test('smoke: save, open, charge', async () => {
  const { draw } = await mainSeries(t);
  const u = await autopayUser(t, [3, 7, 11]);
  const next = await openNextDraw(t, draw.id);
  const runs = await runsOf(t, next);
  expect(runs).toHaveLength(1);
  expect(runs[0]).toMatchObject({ status: 'held', numbers: [3, 7, 11] });
  const s = await t.services.autopay.runDraw(next);
  expect(s.byStatus).toEqual({ approved: 1 });
  const cells = await cellsOf(t, next, [3, 7, 11]);
  expect(cells.every((c: any) => c.status === 'sold' && c.owner_user_id === u.user.id)).toBe(true);
});
