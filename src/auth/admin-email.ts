import type { Conn } from '../platform/db';
import { DomainError, errors } from '../platform/errors';
import { audit } from '../platform/audit';
import { adminEmailsMismatch } from '../platform/metrics';
import type { SessionUser } from '../platform/http/context';
import type { AdminEmailCheck } from '../shared/api/auth';
import * as q from './queries';
import { ConfirmAdminEmailCommand } from './schema';
import type { UserRow } from './serializers';
import { newToken, sha256 } from './secrets';
import { RESET_LINK_OMITTED } from './password-reset';
import type { AuthContext } from './service';

/** The ADMIN_EMAILS proof (RULES U3): a single-use confirmation link, rendered at send time. */
export const ADMIN_CONFIRM_TEMPLATE = 'admin_email_confirm';
export const ADMIN_CONFIRM_SUBJECT = 'Cota Verde: confirme o seu e-mail de administração';
export const ADMIN_CONFIRM_PENDING_TEXT =
  'Confirmação do e-mail de administração: o texto, com o link de uso único, é gerado no envio e não fica guardado.';
const ADMIN_CONFIRM_TTL_HOURS = 24;
/** The web page the ADMIN_EMAILS proof link opens (a button there confirms, signed in: GET never changes anything). */
export const ADMIN_CONFIRM_PAGE = '/confirmar-email-admin';

export interface AdminEmailProof {
  /** Queues the proof mail of a listed address and sends it (the sweep retries a failed send). */
  mailAdminProof(userId: number, email: string): Promise<void>;
  /** What follows every completed sign-in (the password alone, or the password and the code). */
  signedIn(user: UserRow): Promise<void>;
  checkAdminEmailToken(token: unknown): Promise<AdminEmailCheck>;
  confirmAdminEmail(user: Pick<SessionUser, 'id'>, input: unknown): Promise<{ user_id: number; email: string }>;
}

export function createAdminEmailProof(deps: AuthContext): AdminEmailProof {
  const { db, config, mailer, sessions, adminEmails } = deps;

  // The ADMIN_EMAILS proof link is written when sent (as the reset link): only its SHA-256 is kept.
  // The row itself carries the decision that the address is listed (only a process that found it
  // in ADMIN_EMAILS queues this template): the sender does not decide it again. An account that
  // no longer exists, or already proved this address, gets nothing ('dropped').
  mailer.registerRenderer(ADMIN_CONFIRM_TEMPLATE, async (trx, row) => {
    const user = await q.findUserByEmail(trx, row.to_address);
    const email = user?.email.toLowerCase();
    if (!user || !email || user.admin_email_proved === email) return null;
    if (!adminEmails.includes(email)) {
      // The process that queued it listed the address, this one does not: the processes run with
      // different ADMIN_EMAILS. Loud (error log, audit entry, metric), and the mail still goes: the
      // proof grants nothing by itself (a web process makes the account admin only while its own
      // list names the address, RULES U3).
      adminEmailsMismatch.inc();
      deps.logger.error(
        { outboxId: row.id, userId: user.id, queuedAs: 'listed', senderList: 'not listed', senderAdminEmails: adminEmails.length },
        'ADMIN_EMAILS differs between processes: the proof mail was queued for a listed address that this process does not list; sending it as queued. Give every process the same ADMIN_EMAILS.',
      );
      await audit(trx, {
        actor: 'system',
        action: 'config.admin_emails_mismatch',
        entity: 'user',
        entityId: user.id,
        data: { outbox_id: row.id, queued_as: 'listed', sender_list: 'not listed' },
      });
    }
    const token = newToken();
    await trx('admin_email_confirmations').insert({
      user_id: user.id,
      email,
      token_hash: sha256(token),
      expires_at: trx.raw(`now() + make_interval(hours => ?)`, [ADMIN_CONFIRM_TTL_HOURS]),
    });
    const text = (link: string) =>
      [
        `Olá, ${user.name}.`,
        '',
        'Este endereço está configurado como e-mail de administração da Cota Verde.',
        `Para confirmar que ele é seu e ativar o acesso de administrador desta conta, abra o link abaixo, entre com este e-mail e confirme (válido por ${ADMIN_CONFIRM_TTL_HOURS} horas e por um único uso):`,
        '',
        link,
        '',
        'Se você não criou esta conta, não confirme: nenhum acesso é concedido sem a confirmação. Para retomar a conta deste e-mail, use “Esqueci minha senha” na tela de login (isso encerra as sessões abertas nela).',
      ].join('\n');
    return {
      text: text(`${config.publicUrl}${ADMIN_CONFIRM_PAGE}?token=${encodeURIComponent(token)}`),
      storedText: text(RESET_LINK_OMITTED),
    };
  });

  async function mailAdminProof(userId: number, email: string) {
    const outboxId = await mailer.enqueue(db, {
      to: email,
      template: ADMIN_CONFIRM_TEMPLATE,
      subject: ADMIN_CONFIRM_SUBJECT,
      text: ADMIN_CONFIRM_PENDING_TEXT,
    });
    await audit(db, { actorUserId: userId, action: 'user.admin_email_proof_sent', entity: 'user', entityId: userId });
    await mailer
      .dispatch(outboxId)
      .catch((err) => deps.logger.warn({ outboxId, err: (err as Error).message }, 'mail dispatch failed; the sweep will retry'));
  }

  /** What follows every completed sign-in (the password alone, or the password and the code). */
  async function signedIn(user: UserRow) {
    // A listed ADMIN_EMAILS address not proved yet (an account older than the list): a proof
    // link, at most one an hour.
    const email = user.email.toLowerCase();
    if (adminEmails.includes(email) && user.admin_email_proved !== email && !user.is_admin && user.role !== 'admin') {
      const recent = await db('admin_email_confirmations')
        .where({ user_id: user.id })
        .where('created_at', '>', db.raw(`now() - interval '1 hour'`))
        .first('id');
      const pending = await db('mail_outbox')
        .where({ to_address: user.email, template: ADMIN_CONFIRM_TEMPLATE, status: 'pending' })
        .first('id');
      if (!recent && !pending) await mailAdminProof(user.id, user.email);
    }
  }

  const invalidAdminLink = () =>
    errors.validation('invalid_token', 'Link de confirmação inválido ou expirado. Entre na sua conta para receber outro.');
  /** A confirmation link that is unused, unexpired and still for its account's current address. */
  async function liveAdminConfirmation(conn: Conn, token: string, o: { lock?: boolean } = {}) {
    const qb = conn('admin_email_confirmations as c')
      .join('users as u', 'u.id', 'c.user_id')
      .where('c.token_hash', sha256(token))
      .whereNull('c.used_at')
      .where('c.expires_at', '>', conn.fn.now())
      .whereRaw('lower(u.email) = c.email')
      .first('c.id', 'c.user_id', 'c.email');
    if (o.lock) qb.forUpdate('c');
    return (await qb) as { id: number; user_id: number; email: string } | undefined;
  }

  return {
    mailAdminProof,
    signedIn,
    async checkAdminEmailToken(token) {
      if (typeof token !== 'string' || token.length < 10 || token.length > 200) throw invalidAdminLink();
      const c = await liveAdminConfirmation(db, token);
      if (!c) throw invalidAdminLink();
      return { valid: true, email: c.email };
    },

    async confirmAdminEmail(caller, input) {
      const { token } = ConfirmAdminEmailCommand.parse(input);
      const invalid = invalidAdminLink;
      const proved = await db.transaction(async (trx) => {
        const c = await liveAdminConfirmation(trx, token, { lock: true });
        if (!c) throw invalid();
        // Only the account the link was made for proves it, signed in: the owner of the mailbox
        // opening the link (or a scanner prefetching it) never hands the address to whoever
        // registered it first (DECISIONS, "The ADMIN_EMAILS proof").
        if (Number(c.user_id) !== caller.id) {
          throw new DomainError(
            'forbidden',
            'wrong_account',
            `Este link confirma o e-mail ${c.email}. Saia desta conta, entre com ${c.email} e abra o link de novo.`,
          );
        }
        await trx('admin_email_confirmations').where({ id: c.id }).update({ used_at: trx.fn.now() });
        const user = await q.findUserById(trx, c.user_id);
        // The proof is for the address the link was sent to: an account whose e-mail changed since proves nothing.
        if (!user || user.email.toLowerCase() !== c.email) throw invalid();
        await trx('users').where({ id: user.id }).update({ admin_email_proved: c.email, updated_at: trx.fn.now() });
        await audit(trx, {
          actorUserId: user.id,
          action: 'user.admin_email_proved',
          entity: 'user',
          entityId: user.id,
          data: { email: c.email },
        });
        deps.logger.info({ userId: user.id }, 'ADMIN_EMAILS address proved: the account is admin');
        return { user_id: Number(user.id), email: c.email };
      });
      // The account is admin now: its cached sessions are re-read on every web process.
      await sessions.userChanged(proved.user_id);
      return proved;
    },
  };
}
