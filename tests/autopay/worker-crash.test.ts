import type { ChildProcess } from 'node:child_process';
import { createTestContext, type TestContext } from '../helpers/context';
import { exited, workerProcesses } from '../helpers/worker-process';
import { eventually } from '../helpers/eventually';
import { autopayUser, mainSeries, openNextDraw, runsOf } from './fixtures';

/**
 * The autopay.charge job killed (SIGKILL of the worker process) in the middle of a draw's runs,
 * then a new worker: every card is charged exactly once — counted at the sandbox "bank", which
 * records every call it receives (sandbox_card_calls).
 */
let t: TestContext;
const workers = workerProcesses(() => t);
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(async () => {
  workers.killAll();
  await t?.close();
});

const startWorkerProcess = async (): Promise<ChildProcess> => (await workers.start()).child;

test('SIGKILL while the charge job is mid-draw, then a new worker: each card charged once', async () => {
  const { draw } = await mainSeries(t, { max_per_user: 0 });
  const users = [];
  for (let i = 0; i < 8; i++) users.push(await autopayUser(t, [i * 3, i * 3 + 1]));
  const profiles: Array<{ id: number; user_id: number }> = await t.services
    .db('autopay_profiles')
    .where({ active: true })
    .orderBy('id')
    .select('id', 'user_id');
  const stuckProfile = profiles[5];

  // Hold the 6th profile's row (an uncommitted update): the job's claim of that run waits on it
  // (FOR SHARE), while the other runs are charged.
  const blocker = await t.services.db.transaction();
  let w1: ChildProcess;
  try {
    await blocker('autopay_profiles').where({ id: stuckProfile.id }).update({ updated_at: blocker.fn.now() });
    const next = await openNextDraw(t, draw.id);
    w1 = await startWorkerProcess();
    await eventually(
      async () => {
        const rs = await runsOf(t, next);
        return rs.filter((r: any) => r.status === 'approved').length === 7 ? rs : null;
      },
      'the other seven runs to be charged',
      45_000,
      100,
    );
    const job = await t.services.queue.raw.getJob(`autopay-charge-${next}`);
    expect(await job!.getState()).toBe('active');
    expect((await runsOf(t, next)).find((r: any) => r.profile_id === stuckProfile.id).status).toBe('held');

    w1.kill('SIGKILL');
    await exited(w1);
    expect(w1.signalCode).toBe('SIGKILL');
    await blocker.rollback();

    const w2 = await startWorkerProcess();
    try {
      const runs = await eventually(
        async () => {
          const rs = await runsOf(t, next);
          return rs.every((r: any) => r.status === 'approved') ? rs : null;
        },
        'the new worker to charge the last run',
        45_000,
        100,
      );
      expect(runs).toHaveLength(8);
      // Every call the "bank" received: one per run, no replay, no second charge.
      const calls: Array<{ idempotency_key: string; result: string }> = await t.services
        .db('sandbox_card_calls')
        .select('idempotency_key', 'result');
      expect(calls).toHaveLength(8);
      expect(new Set(calls.map((c) => c.idempotency_key)).size).toBe(8);
      expect(calls.every((c) => c.result === 'approved')).toBe(true);
      expect(runs.every((r: any) => r.attempts === 1)).toBe(true);
      // Each payment approved once, each number sold once to its owner.
      const pays = await t.services.db('payments').where({ kind: 'autopay', draw_id: next }).select('status', 'user_id');
      expect(pays).toHaveLength(8);
      expect(pays.every((p: any) => p.status === 'approved')).toBe(true);
      const sales = await t.services.db('number_sales').where({ draw_id: next }).whereNull('voided_at').select('n', 'user_id');
      expect(sales).toHaveLength(16);
      for (const [i, u] of users.entries()) {
        expect(
          sales
            .filter((s: any) => s.user_id === u.user.id)
            .map((s: any) => s.n)
            .sort((a: number, b: number) => a - b),
        ).toEqual([i * 3, i * 3 + 1]);
      }
      expect(
        await t.services
          .db('coupon_ledger')
          .where({ kind: 'credit' })
          .whereIn('payment_id', t.services.db('payments').where({ kind: 'autopay', draw_id: next }).select('id')),
      ).toHaveLength(8);
    } finally {
      w2.kill('SIGTERM');
      await exited(w2);
    }
  } finally {
    if (!blocker.isCompleted()) await blocker.rollback().catch(() => {});
  }
}, 150_000);
