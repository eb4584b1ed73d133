import QRCode from 'qrcode';
import type { Trx } from '../platform/db';
import { DomainError, errors } from '../platform/errors';
import { audit } from '../platform/audit';
import type { SessionUser } from '../platform/http/context';
import type { MfaResetResult, MfaSetup } from '../shared/api/auth';
import * as q from './queries';
import { MfaCodeCommand, MfaEnableCommand } from './schema';
import { isTotpShape, newRecoveryCodes, newTotpSecret, otpauthUrl, totpStep } from './mfa';
import type { AuthContext } from './service';

/** Two-factor sign-in: the mfa_token between the password and the code. */
export const MFA_TOKEN_TTL_MINUTES = 5;
export const MFA_TOKEN_MAX_TRIES = 5;
export const INVALID_CODE = 'Código inválido.';
export const MFA_TOKEN_EXPIRED = 'A verificação expirou. Entre de novo com e-mail e senha.';

export interface TwoFactor {
  invalidCode(kind: 'validation' | 'unauthenticated'): DomainError;
  /** A second factor of an account with two factors on, checked in the caller's transaction. */
  checkSecondFactor(trx: Trx, userId: number, code: string): Promise<'totp' | 'recovery' | null>;
  mfaSetup(user: Pick<SessionUser, 'id' | 'email'>): Promise<MfaSetup>;
  mfaEnable(user: Pick<SessionUser, 'id' | 'tokenId'>, input: unknown): Promise<{ recovery_codes: string[] }>;
  mfaDisable(user: Pick<SessionUser, 'id'>, input: unknown): Promise<void>;
  mfaReset(email: string): Promise<MfaResetResult>;
  forgetUser(trx: Trx, user: { id: number }): Promise<void>;
}

export function createTwoFactor(deps: AuthContext): TwoFactor {
  const { db, rateLimits, sessions, now, mfaCrypto } = deps;

  const invalidCode = (kind: 'validation' | 'unauthenticated') => new DomainError(kind, 'invalid_code', INVALID_CODE);

  /**
   * Checks a second factor of an account with two factors on, in the caller's transaction (its
   * user_mfa row locked: two requests with one code serialize here). A TOTP code is accepted at
   * a time step later than the last accepted one, which it then becomes (a code is never taken
   * twice); a recovery code is spent. Which kind was accepted, or null.
   */
  async function checkSecondFactor(trx: Trx, userId: number, code: string): Promise<'totp' | 'recovery' | null> {
    const m = await trx('user_mfa').where({ user_id: userId }).whereNotNull('enabled_at').forUpdate().first('secret_enc', 'last_step');
    if (!m) return null;
    if (isTotpShape(code)) {
      const secret = readSecret(userId, m.secret_enc);
      if (secret == null) return null;
      const step = await totpStep(secret, code, now(), m.last_step == null ? null : Number(m.last_step));
      if (step == null) return null;
      await trx('user_mfa').where({ user_id: userId }).update({ last_step: step, updated_at: trx.fn.now() });
      return 'totp';
    }
    const spent = await trx('mfa_recovery_codes')
      .where({ user_id: userId, code_hash: mfaCrypto.recoveryHash(code) })
      .whereNull('used_at')
      .update({ used_at: trx.fn.now() })
      .returning('id');
    if (!spent.length) return null;
    await audit(trx, { actorUserId: userId, action: 'user.mfa_recovery_code_used', entity: 'user', entityId: userId });
    return 'recovery';
  }

  /**
   * A stored secret in clear, or null when it cannot be read (APP_SECRET changed since it was
   * stored): logged, and the code is simply not accepted (`users mfa-reset` is the way out).
   */
  function readSecret(userId: number, stored: string): string | null {
    try {
      return mfaCrypto.decrypt(stored);
    } catch (err) {
      deps.logger.error(
        { userId, err: (err as Error).message },
        'two-factor secret unreadable (was APP_SECRET changed?): run `cotaverde users mfa-reset` for this account',
      );
      return null;
    }
  }

  /** Runs `work`; a code the account got wrong counts against its limit, a right one gives the point back. */
  async function limitedCodeCheck<T>(userId: number, work: () => Promise<T>): Promise<T> {
    const key = `user:${userId}`;
    await rateLimits.hit('mfaCode', key);
    try {
      const r = await work();
      await rateLimits.refund('mfaCode', key);
      return r;
    } catch (e) {
      // Only a wrong code counts: a conflict (nothing to enable) gives the point back.
      if (!(e instanceof DomainError && e.code === 'invalid_code')) await rateLimits.refund('mfaCode', key);
      throw e;
    }
  }

  return {
    invalidCode,
    checkSecondFactor,
    async mfaSetup(user) {
      const secret = newTotpSecret();
      // A pending secret replaces the previous pending one; an account with two factors on keeps
      // its secret (the upsert changes nothing then, and the answer is 409).
      const saved = await db('user_mfa')
        .insert({ user_id: user.id, pending_secret_enc: mfaCrypto.encrypt(secret), pending_at: db.fn.now(), updated_at: db.fn.now() })
        .onConflict('user_id')
        .merge(['pending_secret_enc', 'pending_at', 'updated_at'])
        .where('user_mfa.enabled_at', null)
        .returning('user_id');
      if (!saved.length) throw errors.conflict('mfa_already_enabled', 'A verificação em duas etapas já está ativa nesta conta.');
      const otpauth_url = otpauthUrl(user.email, secret);
      return {
        secret,
        otpauth_url,
        qr_code_data_url: await QRCode.toDataURL(otpauth_url, { errorCorrectionLevel: 'M', margin: 2, width: 240 }),
      };
    },

    async mfaEnable(user, input) {
      const cmd = MfaEnableCommand.parse(input);
      const codes = newRecoveryCodes();
      await limitedCodeCheck(user.id, () =>
        db.transaction(async (trx) => {
          const m = await trx('user_mfa').where({ user_id: user.id }).forUpdate().first('pending_secret_enc', 'enabled_at');
          if (m?.enabled_at) throw errors.conflict('mfa_already_enabled', 'A verificação em duas etapas já está ativa nesta conta.');
          if (!m?.pending_secret_enc)
            throw errors.conflict('mfa_setup_required', 'Nenhuma configuração pendente: comece de novo pela leitura do QR code.');
          // The app proves it holds the secret with a code of now (± one step).
          const pending = readSecret(user.id, m.pending_secret_enc);
          if (pending == null)
            throw errors.conflict('mfa_setup_required', 'Nenhuma configuração pendente: comece de novo pela leitura do QR code.');
          const step = await totpStep(pending, cmd.code, now(), null);
          if (step == null) throw invalidCode('validation');
          await trx('user_mfa').where({ user_id: user.id }).update({
            secret_enc: m.pending_secret_enc,
            pending_secret_enc: null,
            pending_at: null,
            enabled_at: trx.fn.now(),
            last_step: step,
            updated_at: trx.fn.now(),
          });
          await trx('mfa_recovery_codes').where({ user_id: user.id }).del();
          await trx('mfa_recovery_codes').insert(codes.map((c) => ({ user_id: user.id, code_hash: mfaCrypto.recoveryHash(c) })));
          // Sessions opened with the password alone end; this one (which just gave a code) stays.
          const ended = await trx('auth_tokens')
            .where({ user_id: user.id })
            .whereNull('revoked_at')
            .whereNot({ id: user.tokenId })
            .update({ revoked_at: trx.fn.now() });
          await audit(trx, {
            actorUserId: user.id,
            action: 'user.mfa_enabled',
            entity: 'user',
            entityId: user.id,
            data: { other_sessions_ended: ended },
          });
        }),
      );
      await sessions.userChanged(user.id);
      return { recovery_codes: codes };
    },

    async mfaDisable(user, input) {
      const cmd = MfaCodeCommand.parse(input);
      await limitedCodeCheck(user.id, () =>
        db.transaction(async (trx) => {
          if (!(await q.mfaEnabled(trx, user.id)))
            throw errors.conflict('mfa_not_enabled', 'A verificação em duas etapas não está ativa nesta conta.');
          const accepted = await checkSecondFactor(trx, user.id, cmd.code);
          if (!accepted) throw invalidCode('validation');
          await q.deleteMfa(trx, user.id);
          await audit(trx, {
            actorUserId: user.id,
            action: 'user.mfa_disabled',
            entity: 'user',
            entityId: user.id,
            data: { with: accepted },
          });
        }),
      );
      await sessions.userChanged(user.id);
    },

    async mfaReset(email) {
      const result = await db.transaction(async (trx) => {
        const user = await q.findUserByEmail(trx, email.trim());
        if (!user) throw errors.notFound('user_not_found', `Usuário não encontrado: ${email.trim()}`);
        await trx('users').where({ id: user.id }).forUpdate().first('id');
        const wasEnabled = await q.mfaEnabled(trx, user.id);
        await q.deleteMfa(trx, user.id);
        const ended = Number(await q.revokeAllSessions(trx, user.id));
        await audit(trx, {
          actor: 'cli',
          action: 'user.mfa_reset',
          entity: 'user',
          entityId: user.id,
          data: { mfa_was_enabled: wasEnabled, sessions_ended: ended },
        });
        return { id: Number(user.id), email: user.email, mfa_was_enabled: wasEnabled, sessions_ended: ended };
      });
      await sessions.userChanged(result.id);
      return result;
    },

    async forgetUser(trx, user) {
      await q.deleteMfa(trx, user.id);
    },
  };
}
