import fs from 'node:fs/promises';
import path from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Conn, Db } from './db';
import type { Logger } from './logger';
import { UnrecoverableError, type JobQueue } from './queue';
import type { OutboxStatus } from '../shared/outbox';

/** Delivery attempts before an outbox row is given up as 'failed'. */
export const MAX_MAIL_ATTEMPTS = 5;

/**
 * Mail goes through mail_outbox: the row is written in the caller's
 * transaction; the worker's mail.send job delivers it (SMTP when SMTP_URL is
 * configured; in development without SMTP, an .eml file in MAIL_DROP_DIR;
 * otherwise the mail is marked 'logged': stored, with its recipient and
 * subject logged — never its body).
 *
 * A template with a renderer (e.g. password_reset) is written at send time: the
 * renderer runs in the delivery transaction, returns the text to send (which may
 * hold a single-use link) and the text the outbox keeps (without it), or null
 * when there is nothing to send (the row ends 'dropped'). A secret link thus
 * never rests in the outbox, in logs or in `mail list`.
 */
export interface OutboxMail {
  to: string;
  subject: string;
  text: string;
  html?: string;
  template: string;
}

export interface OutboxRow {
  id: number;
  to_address: string;
  subject: string;
  body_text: string;
  body_html: string | null;
  template: string;
  status: OutboxStatus;
  attempts: number;
}

export { OUTBOX_STATUSES, type OutboxStatus } from '../shared/outbox';

export interface RenderedMail {
  /** What is sent. */
  text: string;
  html?: string;
  /** What the outbox keeps instead: the same text with any single-use secret left out. */
  storedText: string;
}

/** Renders one outbox row at send time (in the delivery transaction); null: nothing to send. */
export type MailRenderer = (trx: Conn, row: OutboxRow) => Promise<RenderedMail | null>;

/** Blanks the value of link parameters that grant access (token, signature), wherever they appear. */
export function redactLinkSecrets(text: string): string {
  return text.replace(/([?&](?:token|sig|signature)=)[^\s&"'<>]+/gi, '$1[omitido]');
}

export type OutboxListing = {
  id: number;
  to: string;
  subject: string;
  template: string;
  status: OutboxStatus;
  attempts: number;
  created_at: Date;
  sent_at: Date | null;
  body?: string;
};

export interface Mailer {
  /** Inserts the outbox row; returns its id. Call `dispatch(id)` after commit. */
  enqueue(conn: Conn, mail: OutboxMail): Promise<number>;
  /** Queues the delivery job; true when a job was added (false: one is already queued or running). */
  dispatch(outboxId: number): Promise<boolean>;
  /**
   * Delivers one outbox row (the job handler). Idempotent: a row that is no
   * longer pending is 'skipped'. A failed delivery records attempts and
   * last_error (committed) and then throws so the job retries; after
   * MAX_MAIL_ATTEMPTS the row becomes 'failed' and the error is unrecoverable.
   */
  deliver(outboxId: number): Promise<'sent' | 'logged' | 'dropped' | 'skipped'>;
  /**
   * Enqueues every pending row (the sweep job): rows older than 30 s (younger ones
   * were just dispatched by their request), or all of them in a recovery run
   * (Redis came back and may have lost every job; dispatching is deduplicated).
   */
  sweep(opts?: { recovery?: boolean }): Promise<number>;
  /** Makes `template` rendered at send time (see MailRenderer). One renderer per template. */
  registerRenderer(template: string, render: MailRenderer): void;
  /** The outbox, newest first (the `mail list` command); bodies, when asked, with link secrets blanked. */
  list(opts: { status?: OutboxStatus; to?: string; limit: number; withBody?: boolean }): Promise<OutboxListing[]>;
  /** An account was anonymized: mails kept in the outbox no longer name its address. */
  forgetUser(trx: Conn, user: { id: number; email: string; anonymizedEmail: string }): Promise<void>;
}

/**
 * A development mailbox: nodemailer builds the whole message (its stream transport) and it is
 * written as an .eml file that any mail client opens. Only on the developer's disk, never in the
 * database or the logs; the config refuses it in production.
 */
function dropFolderTransport(dir: string): Pick<Transporter, 'sendMail'> {
  const builder = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async sendMail(message) {
      const info = await builder.sendMail(message);
      await fs.mkdir(dir, { recursive: true });
      const file = path.join(
        dir,
        `${new Date().toISOString().replace(/[:.]/g, '-')}-${String(info.messageId)
          .replace(/[^A-Za-z0-9]/g, '')
          .slice(0, 24)}.eml`,
      );
      await fs.writeFile(file, info.message as Buffer, { mode: 0o600 });
      return info;
    },
  } as Pick<Transporter, 'sendMail'>;
}

/**
 * `from` is the sender (MAIL_FROM, often a no-reply address); `replyTo` the store's support address
 * (SUPPORT_EMAIL): every mail carries it as Reply-To, so a customer's answer reaches a person.
 */
export function createMailer(deps: {
  db: Db;
  queue: JobQueue;
  logger: Logger;
  smtpUrl?: string;
  dropDir?: string;
  from: string;
  replyTo: string;
}): Mailer {
  const transport: Pick<Transporter, 'sendMail'> | null = deps.smtpUrl
    ? nodemailer.createTransport(deps.smtpUrl)
    : deps.dropDir
      ? dropFolderTransport(deps.dropDir)
      : null;
  const renderers = new Map<string, MailRenderer>();
  const mailer: Mailer = {
    async forgetUser(trx, user) {
      await trx('mail_outbox').whereRaw('lower(to_address) = lower(?)', [user.email]).update({ to_address: user.anonymizedEmail });
    },
    registerRenderer(template, render) {
      if (renderers.has(template)) throw new Error(`mail renderer for '${template}' registered twice`);
      renderers.set(template, render);
    },
    async enqueue(conn, mail) {
      const [row] = await conn('mail_outbox')
        .insert({ to_address: mail.to, subject: mail.subject, body_text: mail.text, body_html: mail.html ?? null, template: mail.template })
        .returning('id');
      return row.id;
    },
    async dispatch(outboxId) {
      // A finished job of the same id is replaced, so a sweep re-dispatching a
      // row that is still pending is never silently ignored by BullMQ.
      return deps.queue.enqueueUnique('mail.send', { outboxId }, `mail-send-${outboxId}`);
    },
    async deliver(outboxId) {
      type Sent = 'sent' | 'logged' | 'dropped';
      type Outcome = { status: Sent | 'skipped' } | { status: 'error'; error: unknown; final: boolean };
      const outcome = await deps.db.transaction(async (trx): Promise<Outcome> => {
        const row: OutboxRow | undefined = await trx('mail_outbox').where({ id: outboxId }).forUpdate().skipLocked().first();
        if (!row || row.status !== 'pending') return { status: 'skipped' };
        const render = renderers.get(row.template);
        try {
          // A savepoint: what the renderer wrote (e.g. the reset link's row) is undone with a failed send.
          const status = await trx.transaction(async (sp): Promise<Sent> => {
            const rendered = render
              ? await render(sp, row)
              : { text: row.body_text, html: row.body_html ?? undefined, storedText: row.body_text };
            if (!rendered) {
              await sp('mail_outbox')
                .where({ id: outboxId })
                .update({ status: 'dropped', attempts: row.attempts + 1 });
              deps.logger.info({ outboxId, template: row.template }, 'mail dropped: nothing to send');
              return 'dropped';
            }
            if (transport) {
              await transport.sendMail({
                from: deps.from,
                replyTo: deps.replyTo,
                to: row.to_address,
                subject: row.subject,
                text: rendered.text,
                html: rendered.html,
              });
            } else {
              deps.logger.info(
                { outboxId, to: row.to_address, subject: row.subject, template: row.template },
                'mail stored (no SMTP configured)',
              );
            }
            const sent = transport ? 'sent' : 'logged';
            await sp('mail_outbox')
              .where({ id: outboxId })
              .update({
                status: sent,
                sent_at: sp.fn.now(),
                attempts: row.attempts + 1,
                ...(render ? { body_text: rendered.storedText, body_html: null } : {}),
              });
            return sent;
          });
          return { status };
        } catch (e) {
          // Recorded in this transaction, which must commit: throwing here would roll it back.
          const attempts = row.attempts + 1;
          const final = attempts >= MAX_MAIL_ATTEMPTS;
          await trx('mail_outbox')
            .where({ id: outboxId })
            .update({ attempts, last_error: String((e as Error)?.message ?? e).slice(0, 500), status: final ? 'failed' : 'pending' });
          return { status: 'error', error: e, final };
        }
      });
      if (outcome.status !== 'error') return outcome.status;
      const message = String((outcome.error as Error)?.message ?? outcome.error);
      deps.logger.warn({ outboxId, final: outcome.final, err: message }, 'mail delivery failed');
      throw outcome.final ? new UnrecoverableError(`mail ${outboxId} failed: ${message}`) : outcome.error;
    },
    async list(opts) {
      const q = deps.db('mail_outbox').orderBy('id', 'desc').limit(opts.limit);
      if (opts.status) q.where({ status: opts.status });
      if (opts.to) q.whereRaw('lower(to_address) = lower(?)', [opts.to]);
      const rows = await q.select(
        'id',
        'to_address as to',
        'subject',
        'template',
        'status',
        'attempts',
        'created_at',
        'sent_at',
        ...(opts.withBody ? ['body_text as body'] : []),
      );
      return rows.map((r: OutboxListing) => (opts.withBody ? { ...r, body: redactLinkSecrets(r.body ?? '') } : r));
    },
    async sweep(opts = {}) {
      const qb = deps.db('mail_outbox').where({ status: 'pending' }).orderBy('id').select('id').limit(500);
      if (!opts.recovery) qb.where('created_at', '<', deps.db.raw("now() - interval '30 seconds'"));
      const rows: Array<{ id: number }> = await qb;
      for (const r of rows) await mailer.dispatch(r.id);
      return rows.length;
    },
  };
  return mailer;
}
