import nodemailer, { type Transporter } from 'nodemailer';
import type { Conn, Db } from './db';
import type { Logger } from './logger';
import { UnrecoverableError, type JobQueue } from './queue';

/** Delivery attempts before an outbox row is given up as 'failed'. */
export const MAX_MAIL_ATTEMPTS = 5;

/**
 * Mail goes through mail_outbox: the row is written in the caller's
 * transaction; the worker's mail.send job delivers it (SMTP when SMTP_URL is
 * configured, otherwise the mail is marked 'logged': stored, with its
 * recipient and subject logged — never its body, which may hold a link token).
 */
export interface OutboxMail {
  to: string;
  subject: string;
  text: string;
  html?: string;
  template: string;
}

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
  deliver(outboxId: number): Promise<'sent' | 'logged' | 'skipped'>;
  /**
   * Enqueues every pending row (the sweep job): rows older than 30 s (younger ones
   * were just dispatched by their request), or all of them in a recovery run
   * (Redis came back and may have lost every job; dispatching is deduplicated).
   */
  sweep(opts?: { recovery?: boolean }): Promise<number>;
}

export function createMailer(deps: { db: Db; queue: JobQueue; logger: Logger; smtpUrl?: string; from: string }): Mailer {
  const transport: Transporter | null = deps.smtpUrl ? nodemailer.createTransport(deps.smtpUrl) : null;
  const mailer: Mailer = {
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
      type Outcome = { status: 'sent' | 'logged' | 'skipped' } | { status: 'error'; error: unknown; final: boolean };
      const outcome = await deps.db.transaction(async (trx): Promise<Outcome> => {
        const row = await trx('mail_outbox').where({ id: outboxId }).forUpdate().skipLocked().first();
        if (!row || row.status !== 'pending') return { status: 'skipped' };
        try {
          if (transport) {
            await transport.sendMail({ from: deps.from, to: row.to_address, subject: row.subject, text: row.body_text, html: row.body_html ?? undefined });
          } else {
            deps.logger.info({ outboxId, to: row.to_address, subject: row.subject, template: row.template }, 'mail stored (no SMTP configured)');
          }
          const status = transport ? 'sent' : 'logged';
          await trx('mail_outbox').where({ id: outboxId }).update({ status, sent_at: trx.fn.now(), attempts: row.attempts + 1 });
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
