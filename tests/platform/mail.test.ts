import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/platform/config';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { createMailer, MAX_MAIL_ATTEMPTS, redactLinkSecrets, type Mailer } from '../../src/platform/mail';
import { fakeSmtp } from '../helpers/smtp';
import { audit } from '../../src/platform/audit';
import * as noResetTokens from '../../migrations/20261123110000_mail-outbox-no-reset-tokens';
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
  t.services
    .db('mail_outbox')
    .where({ id })
    .update({ created_at: t.services.db.raw(`now() - make_interval(secs => ?)`, [seconds]) });

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
    expect(await row(id)).toMatchObject({
      to_address: 'trx@example.com',
      subject: 'Assunto',
      body_text: 'Corpo do e-mail',
      status: 'pending',
      attempts: 0,
      sent_at: null,
    });

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
    await t.services
      .db('mail_outbox')
      .whereNotIn('id', [oldPending, oldLogged, oldFailed, freshPending])
      .where({ status: 'pending' })
      .update({ status: 'logged' });

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
      const mailer = createMailer({
        db: t.services.db,
        queue: t.services.queue,
        logger: silent,
        smtpUrl: smtp.url,
        from: 'Cota Verde <nao-responda@cotaverde.test>',
        replyTo: 'suporte@cotaverde.test',
      });
      const id = await mailer.enqueue(t.services.db, {
        to: 'destino@example.com',
        subject: 'Teste SMTP',
        text: 'Ola pelo SMTP',
        template: 'test',
      });
      expect(await mailer.deliver(id)).toBe('sent');
      expect(await row(id)).toMatchObject({ status: 'sent', attempts: 1 });
      expect(smtp.received).toHaveLength(1);
      expect(smtp.received[0]).toContain('To: destino@example.com');
      expect(smtp.received[0]).toContain('Subject: Teste SMTP');
      expect(smtp.received[0]).toContain('Ola pelo SMTP');
      // Replies reach the store's support address, not the no-reply sender.
      expect(smtp.mails[0].header('Reply-To')).toBe('suporte@cotaverde.test');
      expect(smtp.mails[0].header('From')).toBe('Cota Verde <nao-responda@cotaverde.test>');
      expect(await mailer.deliver(id)).toBe('skipped');
      expect(smtp.received).toHaveLength(1);
    } finally {
      await smtp.close();
    }
  });

  test("a failed delivery records attempts and the error, and after the last attempt the row is 'failed'", async () => {
    const mailer = createMailer({
      db: t.services.db,
      queue: t.services.queue,
      logger: silent,
      smtpUrl: `smtp://127.0.0.1:${await closedPort()}`,
      from: 'x@cotaverde.test',
      replyTo: 'suporte@cotaverde.test',
    });
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

describe('development mailbox (MAIL_DROP_DIR, no SMTP)', () => {
  test("writes each mail as an .eml file and marks the row 'sent'; the rendered text (e.g. a link) is only in the file", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cv-maildrop-'));
    try {
      const mailer = createMailer({
        db: t.services.db,
        queue: t.services.queue,
        logger: silent,
        dropDir: dir,
        from: 'Cota Verde <nao-responda@cotaverde.test>',
        replyTo: 'suporte@cotaverde.test',
      });
      mailer.registerRenderer('drop-test', async () => ({
        text: 'Link: https://x.test/r?token=segredo123',
        storedText: 'Link: (enviado por e-mail)',
      }));
      const id = await mailer.enqueue(t.services.db, {
        to: 'caixa@example.com',
        subject: 'Caixa local',
        text: 'placeholder',
        template: 'drop-test',
      });
      expect(await mailer.deliver(id)).toBe('sent');
      const files = await fs.readdir(dir);
      expect(files).toHaveLength(1);
      expect(files[0]).toMatch(/\.eml$/);
      const eml = await fs.readFile(path.join(dir, files[0]), 'utf8');
      expect(eml).toContain('To: caixa@example.com');
      expect(eml).toContain('Subject: Caixa local');
      expect(eml).toMatch(/^Reply-To: suporte@cotaverde\.test$/m);
      expect(eml).toContain('token=segredo123');
      const r = await row(id);
      expect(r).toMatchObject({ status: 'sent', attempts: 1 });
      expect(r.body_text).not.toContain('segredo123');
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  test('the config refuses a mail drop folder in production and ignores it when SMTP is set', () => {
    const base = { DATABASE_URL: 'postgres://x/y', REDIS_URL: 'redis://x' };
    expect(loadConfig({ ...base, NODE_ENV: 'development', MAIL_DROP_DIR: '/tmp/m' }).mailDropDir).toBe('/tmp/m');
    expect(
      loadConfig({ ...base, NODE_ENV: 'development', MAIL_DROP_DIR: '/tmp/m', SMTP_URL: 'smtp://127.0.0.1:25' }).mailDropDir,
    ).toBeUndefined();
    expect(() =>
      loadConfig({
        ...base,
        NODE_ENV: 'production',
        MAIL_DROP_DIR: '/tmp/m',
        SMTP_URL: 'smtp://127.0.0.1:25',
        APP_SECRET: 'x'.repeat(40),
        PUBLIC_URL: 'https://cotaverde.example',
        PAYMENT_PROVIDER: 'mercadopago',
        MERCADOPAGO_ACCESS_TOKEN: 't',
        MERCADOPAGO_WEBHOOK_SECRET: 's',
        SUPPORT_EMAIL: 'suporte@cotaverde.example',
      }),
    ).toThrow(/MAIL_DROP_DIR/);
  });
});

describe("Reply-To: the store's support address (SUPPORT_EMAIL) on every mail the app sends", () => {
  test('a mail the app sends (a password reset) carries SUPPORT_EMAIL as Reply-To', async () => {
    const smtp = await fakeSmtp();
    const app = await createTestContext({
      env: { SMTP_URL: smtp.url, SUPPORT_EMAIL: 'atendimento@cotaverde.test', RATE_LIMIT_DISABLED: '1' },
    });
    try {
      expect(app.services.config.supportEmail).toBe('atendimento@cotaverde.test');
      const { email } = await createUser(app);
      expect((await app.api('POST', '/api/auth/reset-password', { body: { email } })).status).toBe(202);
      const pending: Array<{ id: number }> = await app.services
        .db('mail_outbox')
        .where({ to_address: email, status: 'pending' })
        .select('id');
      expect(pending.length).toBeGreaterThan(0);
      for (const r of pending) await app.services.mailer.deliver(r.id);
      const sent = smtp.mails.filter((m) => m.to.includes(email));
      expect(sent).toHaveLength(pending.length);
      for (const m of sent) expect(m.header('Reply-To')).toBe('atendimento@cotaverde.test');
    } finally {
      await app.close();
      await smtp.close();
    }
  });

  test('outside production it defaults to the address of MAIL_FROM; production requires it and a bad address is refused', () => {
    const base = { DATABASE_URL: 'postgres://x/y', REDIS_URL: 'redis://x' };
    expect(loadConfig({ ...base }).supportEmail).toBe('nao-responda@cotaverde.com.br');
    expect(loadConfig({ ...base, MAIL_FROM: 'Loja <contato@loja.test>' }).supportEmail).toBe('contato@loja.test');
    expect(loadConfig({ ...base, SUPPORT_EMAIL: 'ajuda@loja.test' }).supportEmail).toBe('ajuda@loja.test');
    expect(() => loadConfig({ ...base, SUPPORT_EMAIL: 'sem-arroba' })).toThrow(/SUPPORT_EMAIL/);
    const production = {
      ...base,
      NODE_ENV: 'production',
      SMTP_URL: 'smtp://127.0.0.1:25',
      APP_SECRET: 'x'.repeat(40),
      PUBLIC_URL: 'https://cotaverde.example',
      PAYMENT_PROVIDER: 'mercadopago',
      MERCADOPAGO_ACCESS_TOKEN: 't',
      MERCADOPAGO_WEBHOOK_SECRET: 's',
      BACKUP_DISABLED: 'true',
    };
    expect(() => loadConfig(production)).toThrow(/SUPPORT_EMAIL is required in production/);
    expect(loadConfig({ ...production, SUPPORT_EMAIL: 'suporte@cotaverde.example' }).supportEmail).toBe('suporte@cotaverde.example');
  });
});

describe('templates rendered at send time', () => {
  const from = 'Cota Verde <nao-responda@cotaverde.test>';

  test('the rendered text is sent, the outbox keeps only the stored text, and what the renderer wrote commits with the send', async () => {
    const smtp = await fakeSmtp();
    try {
      const mailer = createMailer({
        db: t.services.db,
        queue: t.services.queue,
        logger: silent,
        smtpUrl: smtp.url,
        from,
        replyTo: 'suporte@cotaverde.test',
      });
      mailer.registerRenderer('segredo', async (trx, r) => {
        await audit(trx, { actor: 'cli', action: 'test.rendered', entity: 'mail', entityId: r.id });
        return { text: `Seu link: https://x.test/a?token=SEGREDO-${r.id}`, storedText: 'Seu link: [omitido]' };
      });
      const id = await mailer.enqueue(t.services.db, {
        to: 'render@example.com',
        subject: 'Link',
        text: 'a gerar no envio',
        template: 'segredo',
      });
      expect(await mailer.deliver(id)).toBe('sent');
      expect(smtp.mails).toHaveLength(1);
      expect(smtp.mails[0].text).toContain(`token=SEGREDO-${id}`);
      expect(await row(id)).toMatchObject({ status: 'sent', attempts: 1, body_text: 'Seu link: [omitido]', body_html: null });
      expect(await t.services.db('audit_log').where({ action: 'test.rendered', entity_id: String(id) })).toHaveLength(1);
    } finally {
      await smtp.close();
    }
  });

  test("a renderer answering null drops the row: nothing is sent, it is 'dropped' and never swept", async () => {
    const smtp = await fakeSmtp();
    try {
      const mailer = createMailer({
        db: t.services.db,
        queue: t.services.queue,
        logger: silent,
        smtpUrl: smtp.url,
        from,
        replyTo: 'suporte@cotaverde.test',
      });
      mailer.registerRenderer('nada', async () => null);
      const id = await mailer.enqueue(t.services.db, { to: 'ninguem@example.com', subject: 'Nada', text: 'a gerar', template: 'nada' });
      expect(await mailer.deliver(id)).toBe('dropped');
      expect(smtp.received).toHaveLength(0);
      expect(await row(id)).toMatchObject({ status: 'dropped', attempts: 1, sent_at: null });
      expect(await mailer.deliver(id)).toBe('skipped');
      await age(id, 120);
      await mailer.sweep();
      expect(await t.services.queue.raw.getJob(`mail-send-${id}`)).toBeUndefined();
    } finally {
      await smtp.close();
    }
  });

  test('a failed send undoes what the renderer wrote and keeps the row pending with its attempt', async () => {
    const mailer = createMailer({
      db: t.services.db,
      queue: t.services.queue,
      logger: silent,
      smtpUrl: `smtp://127.0.0.1:${await closedPort()}`,
      from,
      replyTo: 'suporte@cotaverde.test',
    });
    mailer.registerRenderer('falha', async (trx, r) => {
      await audit(trx, { actor: 'cli', action: 'test.render-failed', entity: 'mail', entityId: r.id });
      return { text: 'token=abc', storedText: 'omitido' };
    });
    const id = await mailer.enqueue(t.services.db, { to: 'falha@example.com', subject: 'x', text: 'a gerar', template: 'falha' });
    await expect(mailer.deliver(id)).rejects.toThrow(/ECONNREFUSED|connect/i);
    expect(await row(id)).toMatchObject({ status: 'pending', attempts: 1, body_text: 'a gerar' });
    expect(await t.services.db('audit_log').where({ action: 'test.render-failed' })).toHaveLength(0);
  });

  test('one renderer per template', () => {
    const mailer = createMailer({ db: t.services.db, queue: t.services.queue, logger: silent, from, replyTo: 'suporte@cotaverde.test' });
    mailer.registerRenderer('uma', async () => null);
    expect(() => mailer.registerRenderer('uma', async () => null)).toThrow(/registered twice/);
  });
});

describe('listing (mail list)', () => {
  test('bodies come with the value of token/signature parameters blanked, filters apply', async () => {
    const to = `lista-${Date.now()}@example.com`;
    const id = await t.services.mailer.enqueue(t.services.db, {
      to,
      subject: 'Links',
      text: 'a: https://x.test/r?token=abc123DEF_-x&b=1\nb: https://x.test/d?id=7&signature=ffee00 fim',
      template: 'test',
    });
    const [withBody] = await t.services.mailer.list({ to: to.toUpperCase(), limit: 5, withBody: true });
    expect(withBody).toMatchObject({ id, to, subject: 'Links', status: 'pending', attempts: 0 });
    expect(withBody.body).toBe('a: https://x.test/r?token=[omitido]&b=1\nb: https://x.test/d?id=7&signature=[omitido] fim');
    const [plain] = await t.services.mailer.list({ to, limit: 5 });
    expect(plain).not.toHaveProperty('body');
    expect(await t.services.mailer.list({ to, status: 'sent', limit: 5 })).toEqual([]);
  });

  test("the migration blanks the token of reset links already in the outbox and allows 'dropped'", async () => {
    const old = await t.services.mailer.enqueue(t.services.db, {
      to: 'antes@example.com',
      subject: 'Cota Verde: redefinição de senha',
      text: 'Olá.\n\nhttp://cotaverde.test/redefinir-senha?token=Zx9_-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n\nfim',
      html: '<a href="http://cotaverde.test/redefinir-senha?token=Zx9_-BBBB">abrir</a>',
      template: 'password_reset',
    });
    const other = await t.services.mailer.enqueue(t.services.db, {
      to: 'outro@example.com',
      subject: 's',
      text: 'https://x.test/?token=fica',
      template: 'test',
    });
    // the migration is re-runnable: apply it again over these rows
    await noResetTokens.up(t.services.db);
    expect(await row(old)).toMatchObject({
      body_text: 'Olá.\n\nhttp://cotaverde.test/redefinir-senha?token=[omitido]\n\nfim',
      body_html: '<a href="http://cotaverde.test/redefinir-senha?token=[omitido]">abrir</a>',
    });
    expect((await row(other)).body_text).toBe('https://x.test/?token=fica');
    await t.services.db('mail_outbox').where({ id: other }).update({ status: 'dropped' });
    await expect(t.services.db('mail_outbox').where({ id: other }).update({ status: 'lost' })).rejects.toThrow(/mail_outbox_status_check/);
  });

  test('redactLinkSecrets', () => {
    expect(redactLinkSecrets('https://a.test/x?token=AbC-_9')).toBe('https://a.test/x?token=[omitido]');
    expect(redactLinkSecrets('<a href="https://a.test/x?sig=1&TOKEN=2">')).toBe(
      '<a href="https://a.test/x?sig=[omitido]&TOKEN=[omitido]">',
    );
    expect(redactLinkSecrets('sem link, token: 123')).toBe('sem link, token: 123');
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
