import net from 'node:net';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { createTestContext, type TestContext } from '../helpers/context';
import { createMailer, MAX_MAIL_ATTEMPTS, type Mailer } from '../../src/platform/mail';
import { buildRegistry, JOB_NAMES, UnrecoverableError, type JobName } from '../../src/platform/queue';
import { registerJobHandlers } from '../../jobs/registry';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

const silent = pino({ level: 'silent' });
const mail = (to = 'cliente@example.com') => ({ to, subject: 'Assunto', text: 'Corpo do e-mail', template: 'test' });
const row = (id: number) => t.services.db('mail_outbox').where({ id }).first();
const age = (id: number, seconds: number) =>
  t.services.db('mail_outbox').where({ id }).update({ created_at: t.services.db.raw(`now() - make_interval(secs => ?)`, [seconds]) });

/** A minimal SMTP server that accepts every message and keeps it. */
async function fakeSmtp() {
  const received: string[] = [];
  const server = net.createServer((socket) => {
    let inData = false;
    let data = '';
    let buffer = '';
    socket.write('220 fake.smtp ESMTP\r\n');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      let i: number;
      while ((i = buffer.indexOf('\r\n')) >= 0) {
        const line = buffer.slice(0, i);
        buffer = buffer.slice(i + 2);
        if (inData) {
          if (line === '.') {
            inData = false;
            received.push(data);
            data = '';
            socket.write('250 2.0.0 queued\r\n');
          } else data += line + '\n';
          continue;
        }
        const cmd = line.slice(0, 4).toUpperCase();
        if (cmd === 'EHLO' || cmd === 'HELO') socket.write('250 fake.smtp\r\n');
        else if (cmd === 'DATA') {
          inData = true;
          socket.write('354 go ahead\r\n');
        } else if (cmd === 'QUIT') {
          socket.write('221 bye\r\n');
          socket.end();
        } else socket.write('250 ok\r\n');
      }
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `smtp://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

describe('mailer without SMTP', () => {
  let mailer: Mailer;
  beforeAll(() => {
    mailer = t.services.mailer;
  });

  test('enqueue writes a pending row in the caller transaction', async () => {
    const id = await t.services.db.transaction((trx) => mailer.enqueue(trx, mail('trx@example.com')));
    expect(await row(id)).toMatchObject({ to_address: 'trx@example.com', subject: 'Assunto', body_text: 'Corpo do e-mail', status: 'pending', attempts: 0, sent_at: null });

    // rolled back with the caller
    await t.services.db
      .transaction(async (trx) => {
        await mailer.enqueue(trx, mail('rolled-back@example.com'));
        throw new Error('rollback');
      })
      .catch(() => {});
    expect(await t.services.db('mail_outbox').where({ to_address: 'rolled-back@example.com' })).toHaveLength(0);
  });

  test("deliver marks the row 'logged' and is idempotent", async () => {
    const id = await mailer.enqueue(t.services.db, mail());
    expect(await mailer.deliver(id)).toBe('logged');
    const r = await row(id);
    expect(r).toMatchObject({ status: 'logged', attempts: 1, last_error: null });
    expect(r.sent_at).toBeInstanceOf(Date);
    expect(await mailer.deliver(id)).toBe('skipped');
    expect(await row(id)).toMatchObject({ status: 'logged', attempts: 1 });
  });

  test('deliver of an unknown or failed row is skipped', async () => {
    expect(await mailer.deliver(987654)).toBe('skipped');
    const id = await mailer.enqueue(t.services.db, mail());
    await t.services.db('mail_outbox').where({ id }).update({ status: 'failed' });
    expect(await mailer.deliver(id)).toBe('skipped');
    expect((await row(id)).status).toBe('failed');
  });

  test('sweep enqueues only pending rows older than 30 seconds', async () => {
    const oldPending = await mailer.enqueue(t.services.db, mail());
    const freshPending = await mailer.enqueue(t.services.db, mail());
    const oldLogged = await mailer.enqueue(t.services.db, mail());
    const oldFailed = await mailer.enqueue(t.services.db, mail());
    await t.services.db('mail_outbox').where({ id: oldLogged }).update({ status: 'logged' });
    await t.services.db('mail_outbox').where({ id: oldFailed }).update({ status: 'failed' });
    for (const id of [oldPending, oldLogged, oldFailed]) await age(id, 45);
    // rows of earlier tests are not swept: make them recent or delivered
    await t.services.db('mail_outbox').whereNotIn('id', [oldPending, oldLogged, oldFailed, freshPending]).where({ status: 'pending' }).update({ status: 'logged' });

    expect(await mailer.sweep()).toBe(1);
    const job = await t.services.queue.raw.getJob(`mail-send-${oldPending}`);
    expect(job).toBeDefined();
    expect(job!.name).toBe('mail.send');
    expect(job!.data).toEqual({ outboxId: oldPending });
    expect(await job!.getState()).toBe('waiting');
    for (const id of [freshPending, oldLogged, oldFailed]) expect(await t.services.queue.raw.getJob(`mail-send-${id}`)).toBeUndefined();

    // sweeping again does not duplicate a job still waiting
    expect(await mailer.sweep()).toBe(1);
    const waiting = await t.services.queue.raw.getJobs(['waiting', 'delayed', 'active']);
    expect(waiting.filter((j) => j.name === 'mail.send' && j.data.outboxId === oldPending)).toHaveLength(1);
  });

  test('dispatch adds one job per row while it is queued', async () => {
    const id = await mailer.enqueue(t.services.db, mail());
    expect(await mailer.dispatch(id)).toBe(true);
    expect(await mailer.dispatch(id)).toBe(false);
    const jobs = await t.services.queue.raw.getJobs(['waiting', 'delayed', 'active']);
    expect(jobs.filter((j) => j.id === `mail-send-${id}`)).toHaveLength(1);
  });
});

describe('mailer with SMTP', () => {
  test("delivers through SMTP and marks the row 'sent'", async () => {
    const smtp = await fakeSmtp();
    try {
      const mailer = createMailer({ db: t.services.db, queue: t.services.queue, logger: silent, smtpUrl: smtp.url, from: 'Cota Verde <nao-responda@cotaverde.test>' });
      const id = await mailer.enqueue(t.services.db, { to: 'destino@example.com', subject: 'Teste SMTP', text: 'Ola pelo SMTP', template: 'test' });
      expect(await mailer.deliver(id)).toBe('sent');
      expect(await row(id)).toMatchObject({ status: 'sent', attempts: 1 });
      expect(smtp.received).toHaveLength(1);
      expect(smtp.received[0]).toContain('To: destino@example.com');
      expect(smtp.received[0]).toContain('Subject: Teste SMTP');
      expect(smtp.received[0]).toContain('Ola pelo SMTP');
      expect(await mailer.deliver(id)).toBe('skipped');
      expect(smtp.received).toHaveLength(1);
    } finally {
      await smtp.close();
    }
  });

  test("a failed delivery records attempts and the error, and after the last attempt the row is 'failed'", async () => {
    const mailer = createMailer({ db: t.services.db, queue: t.services.queue, logger: silent, smtpUrl: `smtp://127.0.0.1:${await closedPort()}`, from: 'x@cotaverde.test' });
    const id = await mailer.enqueue(t.services.db, mail('falha@example.com'));
    for (let attempt = 1; attempt < MAX_MAIL_ATTEMPTS; attempt++) {
      const err = await mailer.deliver(id).catch((e) => e);
      expect(String(err?.message)).toMatch(/ECONNREFUSED|connect/i);
      expect(err).not.toBeInstanceOf(UnrecoverableError); // the job retries
      const r = await row(id);
      expect(r).toMatchObject({ status: 'pending', attempts: attempt, sent_at: null });
      expect(r.last_error).toMatch(/ECONNREFUSED|connect/i);
    }
    const last = await mailer.deliver(id).catch((e) => e);
    expect(last).toBeInstanceOf(UnrecoverableError);
    expect(await row(id)).toMatchObject({ status: 'failed', attempts: MAX_MAIL_ATTEMPTS });
    expect(await mailer.deliver(id)).toBe('skipped');
    // a failed row is not swept again
    await age(id, 120);
    await mailer.sweep();
    expect(await t.services.queue.raw.getJob(`mail-send-${id}`)).toBeUndefined();
  });
});

describe('job registry', () => {
  const noop = async () => undefined;
  const all = (): Array<[JobName, typeof noop]> => JOB_NAMES.map((n) => [n, noop]);

  test('builds the table when every job has exactly one handler', () => {
    const table = buildRegistry(all());
    expect(Object.keys(table).sort()).toEqual([...JOB_NAMES].sort());
  });

  test('throws on a missing handler', () => {
    const entries = all().filter(([n]) => n !== 'mail.sweep');
    expect(() => buildRegistry(entries)).toThrow(/no handler for mail\.sweep/);
  });

  test('throws on a duplicate', () => {
    expect(() => buildRegistry([...all(), ['mail.send', noop]])).toThrow(/'mail\.send' registered twice/);
  });

  test('throws on an unknown job name', () => {
    expect(() => buildRegistry([...all(), ['mail.nope' as JobName, noop]])).toThrow(/unknown job 'mail\.nope'/);
  });

  test('the real registration covers every job', () => {
    const handlers = registerJobHandlers(t.services);
    expect(Object.keys(handlers).sort()).toEqual([...JOB_NAMES].sort());
    for (const n of JOB_NAMES) expect(typeof handlers[n]).toBe('function');
  });
});
