import nodemailer, { type Transporter } from 'nodemailer';
import type { Conn, Db } from './db';
import type { Logger } from './logger';
import type { JobQueue } from './queue';

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
  dispatch(outboxId: number): Promise<void>;
  /** Delivers one outbox row (the job handler). Idempotent. */
  deliver(outboxId: number): Promise<'sent' | 'logged' | 'skipped'>;
  /** Enqueues every pending row (the sweep job). */
  sweep(): Promise<number>;
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
      await deps.queue.enqueue('mail.send', { outboxId }, { jobId: `mail-send-${outboxId}` });
    },
    async deliver(outboxId) {
      return deps.db.transaction(async (trx) => {
        const row = await trx('mail_outbox').where({ id: outboxId }).forUpdate().skipLocked().first();
        if (!row || row.status !== 'pending') return 'skipped' as const;
        try {
          if (transport) {
            await transport.sendMail({ from: deps.from, to: row.to_address, subject: row.subject, text: row.body_text, html: row.body_html ?? undefined });
          } else {
            deps.logger.info({ outboxId, to: row.to_address, subject: row.subject, template: row.template }, 'mail stored (no SMTP configured)');
          }
          const status = transport ? 'sent' : 'logged';
          await trx('mail_outbox').where({ id: outboxId }).update({ status, sent_at: trx.fn.now(), attempts: row.attempts + 1 });
          return status;
        } catch (e) {
          const attempts = row.attempts + 1;
          await trx('mail_outbox')
            .where({ id: outboxId })
            .update({ attempts, last_error: String((e as Error).message).slice(0, 500), status: attempts >= 5 ? 'failed' : 'pending' });
          throw e;
        }
      });
    },
    async sweep() {
      const rows = await deps.db('mail_outbox').where({ status: 'pending' }).where('created_at', '<', deps.db.raw("now() - interval '30 seconds'")).select('id').limit(500);
      for (const r of rows) await mailer.dispatch(r.id);
      return rows.length;
    },
  };
  return mailer;
}
