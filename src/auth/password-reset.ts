import { errors } from '../platform/errors';
import { audit } from '../platform/audit';
import { countOf } from '../shared/plural';
import * as q from './queries';
import { ResetConfirmCommand, ResetRequestCommand } from './schema';
import { hashPassword, newToken, sha256 } from './secrets';
import type { AuthContext } from './service';

/**
 * Password reset by a single-use mailed link (RULES U2: the request does the same work for every
 * address; DECISIONS "Reset requests do the same work for every address").
 */
export const RESET_TEMPLATE = 'password_reset';
export const RESET_SUBJECT = 'Cota Verde: redefinição de senha';
/** What a reset mail's outbox row says until it is sent (the text and the link are made then). */
export const RESET_PENDING_TEXT =
  'Pedido de redefinição de senha: o texto, com o link de uso único, é gerado no envio e não fica guardado.';
/** Where the link was, in the text the outbox keeps of a sent reset (or admin proof) mail. */
export const RESET_LINK_OMITTED = '[link de uso único omitido: só o destinatário o recebe]';
export const RESET_ACCEPTED_MESSAGE =
  'Se houver uma conta com este e-mail, enviaremos um link para criar uma nova senha. Verifique sua caixa de entrada.';

export interface PasswordReset {
  requestPasswordReset(input: unknown, ctx: { ip: string }): Promise<void>;
  confirmPasswordReset(input: unknown, ctx: { ip: string }): Promise<void>;
}

export function createPasswordReset(deps: AuthContext): PasswordReset {
  const { db, config, rateLimits, mailer, sessions } = deps;

  // The reset mail is written when sent, in the delivery transaction: an address without an
  // account gets nothing ('dropped'); an account gets a fresh single-use link whose token exists
  // only in the mail that leaves (the database keeps its SHA-256, the outbox the text without it).
  mailer.registerRenderer(RESET_TEMPLATE, async (trx, row) => {
    const user = await q.findUserByEmail(trx, row.to_address);
    if (!user) return null;
    const token = newToken();
    await trx('password_resets').insert({
      user_id: user.id,
      token_hash: sha256(token),
      expires_at: trx.raw(`now() + make_interval(mins => ?)`, [config.passwordResetTtlMinutes]),
    });
    await audit(trx, { actorUserId: user.id, action: 'password_reset.requested', entity: 'user', entityId: user.id });
    const text = (link: string) =>
      [
        `Olá, ${user.name}.`,
        '',
        'Recebemos um pedido para redefinir a senha da sua conta na Cota Verde.',
        `Para criar uma nova senha, abra o link abaixo (válido por ${countOf(config.passwordResetTtlMinutes, 'minuto', 'minutos')} e por um único uso):`,
        '',
        link,
        '',
        'Se você não pediu a redefinição, ignore esta mensagem: sua senha continua a mesma.',
      ].join('\n');
    return { text: text(`${config.publicUrl}/redefinir-senha?token=${encodeURIComponent(token)}`), storedText: text(RESET_LINK_OMITTED) };
  });

  return {
    async requestPasswordReset(input, { ip }) {
      await rateLimits.hit('reset', ip);
      const cmd = ResetRequestCommand.parse(input);
      // Per address too, known or not (the answer must not differ): a mailbox gets at most a few
      // links an hour however many addresses the requests come from.
      await rateLimits.hit('resetEmail', `email:${cmd.email}`);
      // Known or unknown, the request does the same work: one outbox row and one queued job. The
      // account is looked up when the mail is sent (renderPasswordResetMail), off the request.
      const outboxId = await mailer.enqueue(db, {
        to: cmd.email,
        template: RESET_TEMPLATE,
        subject: RESET_SUBJECT,
        text: RESET_PENDING_TEXT,
      });
      // The row is committed: if Redis is unavailable the mail sweep delivers it later.
      await mailer
        .dispatch(outboxId)
        .catch((err) => deps.logger.warn({ outboxId, err: (err as Error).message }, 'mail dispatch failed; the sweep will retry'));
    },

    async confirmPasswordReset(input, { ip }) {
      await rateLimits.hit('resetConfirm', `ip:${ip}`);
      const cmd = ResetConfirmCommand.parse(input);
      const tokenHash = sha256(cmd.token);
      const invalid = () => errors.validation('invalid_token', 'Link inválido ou expirado.');
      // The token is looked up first: a wrong or dead one costs one indexed read, never an argon2 hash.
      const live = await db('password_resets')
        .where({ token_hash: tokenHash })
        .whereNull('used_at')
        .where('expires_at', '>', db.fn.now())
        .first('id');
      if (!live) throw invalid();
      const passwordHash = await hashPassword(cmd.password);
      const userId = await db.transaction(async (trx) => {
        const found = await trx('password_resets').where({ token_hash: tokenHash }).first('user_id');
        if (!found) throw invalid();
        // Serialize on the user first: two of their links confirmed at once would
        // otherwise lock each other's rows in opposite orders (deadlock → 500).
        await trx('users').where({ id: found.user_id }).forUpdate().first('id');
        const reset = await trx('password_resets')
          .where({ token_hash: tokenHash })
          .whereNull('used_at')
          .where('expires_at', '>', trx.fn.now())
          .first();
        if (!reset) throw invalid();
        // This link and any other outstanding link of this user die together.
        await trx('password_resets').where({ user_id: reset.user_id }).whereNull('used_at').update({ used_at: trx.fn.now() });
        await trx('users').where({ id: reset.user_id }).update({ password_hash: passwordHash, updated_at: trx.fn.now() });
        await q.revokeAllSessions(trx, reset.user_id);
        await audit(trx, { actorUserId: reset.user_id, action: 'password_reset.completed', entity: 'user', entityId: reset.user_id });
        return reset.user_id as number;
      });
      // The old sessions end on every web process (they were revoked in the transaction).
      await sessions.userChanged(userId);
    },
  };
}
