import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { exited, workerProcesses } from '../helpers/worker-process';
import { waitForJob } from '../helpers/jobs';
import { balanceOf, buyEbooks, eventually, ledgerOf, makeProductWithDraw, paymentRow, sandboxBank } from './fixtures';

/**
 * A real worker process, killed with SIGKILL in the middle of fulfilling an
 * approval, then a second one: the payment ends approved with its vouchers
 * granted exactly once.
 */
let t: TestContext;
const workers = workerProcesses(() => t);
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(async () => {
  workers.killAll();
  await t.close();
});

const startWorkerProcess = workers.start;

/** Backends of the test database waiting on a lock while running a statement that matches. */
async function blockedBackends(like: string): Promise<Array<{ pid: number; query: string }>> {
  const r = await t.services.db.raw(
    `SELECT pid, query FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid() AND query ILIKE ?`,
    [like],
  );
  return r.rows;
}

test('SIGKILL inside the fulfilment transaction, then a new worker: approved, vouchers granted once', async () => {
  const u = await createUser(t);
  const { product } = await makeProductWithDraw(t, { price_cents: 500 });
  const p = await buyEbooks(t, u.token, product.id, 3, 500);
  await sandboxBank(t, p.paymentId, 'approved');

  // Hold the user's voucher balance row (an uncommitted insert of it): the worker's
  // fulfilment blocks there, after it has marked the payment approved and claimed
  // the fulfilment inside its (uncommitted) transaction.
  const blocker = await t.services.db.transaction();
  try {
    await blocker('voucher_balances').insert({ user_id: u.user.id, infoproduct_id: product.id, balance: 0 });

    const w1 = await startWorkerProcess();
    const job = await t.services.queue.raw.getJob(`payment-poll-${p.paymentId}`);
    // Run the poll now; a job already waiting or active (the worker raced us) needs no promotion.
    if (await job!.isDelayed()) await job!.promote();
    const [stuck] = await eventually(
      async () => {
        const b = await blockedBackends('%voucher_balances%');
        return b.length ? b : null;
      },
      'the worker to block inside the fulfilment',
      30_000,
    );
    expect(stuck.query).toMatch(/^insert into "voucher_balances"/i);
    expect(await job!.getState()).toBe('active');
    // The worker's writes so far are uncommitted: nobody sees them.
    expect((await paymentRow(t, p.paymentId)).status).toBe('pending');

    w1.child.kill('SIGKILL');
    await exited(w1.child);
    expect(w1.child.signalCode).toBe('SIGKILL');

    await blocker.rollback();
    // The dead worker's backend finds its client gone and rolls back.
    await eventually(
      async () => {
        const r = await t.services.db.raw('SELECT count(*)::int AS c FROM pg_stat_activity WHERE pid = ?', [stuck.pid]);
        return r.rows[0].c === 0;
      },
      'the orphaned backend to end',
      30_000,
      100,
    );
    expect((await paymentRow(t, p.paymentId)).status).toBe('pending');
    const half = await ledgerOf(t, p.paymentId);
    expect(half.fulfilments).toHaveLength(0);
    expect(half.vouchers).toHaveLength(0);
    expect(await balanceOf(t, u.user.id, product.id)).toBeNull();
  } finally {
    if (!blocker.isCompleted()) await blocker.rollback().catch(() => {});
  }

  // A new worker takes the stalled job over and completes it, once.
  const w2 = await startWorkerProcess();
  try {
    const done = await waitForJob(
      t.services.queue.raw,
      `payment-poll-${p.paymentId}`,
      'completed',
      'the second worker to complete the job',
      () => true,
      90_000,
    );
    expect(done.returnvalue).toBe('approved');
    expect(await paymentRow(t, p.paymentId)).toMatchObject({ status: 'approved', flagged_for_review: false });
    const l = await ledgerOf(t, p.paymentId);
    expect(l.vouchers).toEqual([{ reason: 'grant', delta: 3, user_id: u.user.id, infoproduct_id: product.id }]);
    expect(l.fulfilments).toHaveLength(1);
    expect(await balanceOf(t, u.user.id, product.id)).toBe(3);
    expect(
      await t.services.db('audit_log').where({ entity: 'payment', entity_id: String(p.paymentId), action: 'payment.approved' }),
    ).toHaveLength(1);
    // And the customer's confirm changes nothing.
    const c = await t.api('POST', '/api/purchases/confirm', { token: u.token, body: { payment_id: p.paymentId } });
    expect(c.body).toMatchObject({ status: 'approved', vouchers_granted: 3, remaining: 3 });
    expect(await balanceOf(t, u.user.id, product.id)).toBe(3);
  } finally {
    w2.child.kill('SIGTERM');
    await exited(w2.child);
  }
}, 120_000);
