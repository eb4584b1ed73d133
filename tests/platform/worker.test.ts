import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { SCHEDULES, UnrecoverableError, type RunningWorker } from '../../src/platform/queue';
import { eventually } from '../helpers/eventually';
import { startTestWorker } from '../helpers/worker';

let t: TestContext;
let running: RunningWorker;
beforeAll(async () => {
  t = await createTestContext();
  running = await startTestWorker(t, { concurrency: 2 });
});
afterAll(async () => {
  await running?.close();
  await t.close();
});

const outboxOf = (email: string) => t.services.db('mail_outbox').where({ to_address: email }).first();

test('the worker registers the periodic sweeps', async () => {
  const schedulers = await t.services.queue.raw.getJobSchedulers();
  expect(schedulers.map((s) => s.key ?? s.id).sort()).toEqual(SCHEDULES.map((s) => s.id).sort());
});

test('a password reset requested over HTTP is delivered end to end', async () => {
  const u = await createUser(t);
  const r = await t.api('POST', '/api/auth/reset-password', { body: { email: u.email }, headers: { 'x-forwarded-for': '10.99.0.1' } });
  expect(r.status).toBe(202);
  const delivered = await eventually(async () => {
    const row = await outboxOf(u.email);
    return row?.status === 'logged' ? row : null;
  }, 'the reset mail to be logged');
  expect(delivered).toMatchObject({ template: 'password_reset', attempts: 1 });
  expect(delivered.sent_at).toBeInstanceOf(Date);
  // the row commits before BullMQ records the job as completed
  const jobId = `mail-send-${delivered.id}`;
  await eventually(async () => (await t.services.queue.raw.getJobState(jobId)) === 'completed', 'the job to complete');
  expect((await t.services.queue.raw.getJob(jobId))?.returnvalue).toBe('logged');
});

test('after a job failed for good, the sweep re-dispatches the still-pending row and it is delivered', async () => {
  const u = await createUser(t);
  const spy = jest.spyOn(t.services.mailer, 'deliver').mockRejectedValueOnce(new UnrecoverableError('database unreachable'));
  let outboxId: number;
  try {
    const r = await t.api('POST', '/api/auth/reset-password', { body: { email: u.email }, headers: { 'x-forwarded-for': '10.99.0.2' } });
    expect(r.status).toBe(202);
    outboxId = (await outboxOf(u.email)).id;
    const jobId = `mail-send-${outboxId}`;
    await eventually(async () => (await t.services.queue.raw.getJobState(jobId)) === 'failed', 'the job to fail');
    // read the job after it failed (a copy fetched earlier has no failedReason yet)
    const job = await t.services.queue.raw.getJob(jobId);
    expect(job?.failedReason).toBe('database unreachable');
    expect(job?.attemptsMade).toBe(1); // unrecoverable: no retry
  } finally {
    spy.mockRestore();
  }
  // BullMQ still holds the failed job under that id; the row is pending.
  expect((await outboxOf(u.email)).status).toBe('pending');

  await t.services
    .db('mail_outbox')
    .where({ id: outboxId })
    .update({ created_at: t.services.db.raw("now() - interval '1 minute'") });
  expect(await t.services.mailer.sweep()).toBeGreaterThanOrEqual(1);
  const delivered = await eventually(async () => {
    const row = await outboxOf(u.email);
    return row.status === 'logged' ? row : null;
  }, 'the swept mail to be logged');
  expect(delivered.attempts).toBe(1);
});

test('a retried delivery succeeds on the next attempt', async () => {
  const u = await createUser(t);
  const spy = jest.spyOn(t.services.mailer, 'deliver');
  spy.mockRejectedValueOnce(new Error('smtp timeout'));
  try {
    // retry quickly: same job name and data, only a short backoff
    const id = await t.services.mailer.enqueue(t.services.db, { to: u.email, subject: 's', text: 'b', template: 'test' });
    await t.services.queue.raw.add(
      'mail.send',
      { outboxId: id },
      { jobId: `retry-${id}`, attempts: 3, backoff: { type: 'fixed', delay: 50 } },
    );
    const row = await eventually(async () => {
      const r = await outboxOf(u.email);
      return r.status === 'logged' ? r : null;
    }, 'the retried mail to be logged');
    expect(row.status).toBe('logged');
    await eventually(async () => (await t.services.queue.raw.getJobState(`retry-${id}`)) === 'completed', 'the job to complete');
    const job = await t.services.queue.raw.getJob(`retry-${id}`);
    expect(job?.attemptsMade).toBe(2);
    expect(job?.returnvalue).toBe('logged');
  } finally {
    spy.mockRestore();
  }
});
