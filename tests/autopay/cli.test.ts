import { createTestContext, type TestContext } from '../helpers/context';
import { runCliCaptured, STACK } from '../helpers/cli';
import { CARDS, autopayUser, mainSeries, openNextDraw } from './fixtures';

/** `cotaverde autopay runs [--draw <id>] [--json]` and `autopay run <drawId>` (never charges twice). */
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(async () => t?.close());

test('runs lists, run charges what is pending, a second run charges nothing', async () => {
  const { draw } = await mainSeries(t, { max_per_user: 0 });
  const a = await autopayUser(t, [12, 13]);
  await autopayUser(t, [14], CARDS.decline);
  const next = await openNextDraw(t, draw.id);
  const s = () => t.services;

  const list = await runCliCaptured(['autopay', 'runs', '--draw', String(next), '--json'], s);
  expect(list.code).toBe(0);
  const rows = JSON.parse(list.out);
  expect(rows.map((r: any) => [r.status, r.numbers])).toEqual([
    ['held', [12, 13]],
    ['held', [14]],
  ]);
  expect(rows[0]).toMatchObject({ draw_id: next, user_id: a.user.id, user_email: a.email });

  const run = await runCliCaptured(['autopay', 'run', String(next)], s);
  expect(run.code).toBe(0);
  expect(run.out).toContain(`sorteio #${next}: 2 processadas`);
  expect(run.out).toContain('approved: 1');
  expect(run.out).toContain('failed: 1');
  const again = await runCliCaptured(['autopay', 'run', String(next), '--json'], s);
  expect(JSON.parse(again.out)[0]).toMatchObject({ draw_id: next, processed: 0, pending: 0, approved: 1, failed: 1 });
  expect(await t.services.db('sandbox_card_calls').whereIn('result', ['approved', 'rejected'])).toHaveLength(2);

  const text = await runCliCaptured(['autopay', 'runs', '--draw', String(next)], s);
  expect(text.out).toMatch(/execução\s+sorteio\s+cliente\s+situação/);
  expect(text.out).toContain('12 13');
  expect(text.out).toContain('cartão recusado');
  const all = await runCliCaptured(['autopay', 'runs', '--status', 'approved', '--json'], s);
  expect(JSON.parse(all.out).every((r: any) => r.status === 'approved')).toBe(true);
});

test('bad input: stderr, exit 1, no stack; a missing argument is a usage error; --help', async () => {
  const s = () => t.services;
  for (const argv of [
    ['autopay', 'runs', '--draw', 'abc'],
    ['autopay', 'runs', '--status', 'nope'],
    ['autopay', 'run', '0x10'],
    ['autopay', 'run', '999999'],
  ]) {
    const r = await runCliCaptured(argv, s);
    expect([argv.join(' '), r.code]).toEqual([argv.join(' '), 1]);
    expect(r.err).toMatch(/^erro/);
    expect(r.err).not.toMatch(STACK);
  }
  const missing = await runCliCaptured(['autopay', 'run'], s);
  expect(missing.code).toBe(2); // commander's usage error
  const help = await runCliCaptured(['autopay', '--help'], s);
  expect(help.out + help.err).toContain('runs');
  expect(help.out + help.err).toContain('run');
});
