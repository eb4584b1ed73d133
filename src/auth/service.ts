import type { Config } from '../platform/config';
import { isUniqueViolation, type Db, type Trx } from '../platform/db';
import { DomainError, errors } from '../platform/errors';
import type { Logger } from '../platform/logger';
import type { Mailer } from '../platform/mail';
import type { RateLimits } from '../platform/rate-limit';
import type { SessionUser } from '../platform/http/context';
import type { SessionCache } from '../platform/session-cache';
import { audit } from '../platform/audit';
import * as q from './queries';
import { LoginCommand, MfaLoginCommand, RegisterCommand } from './schema';
import { isAdminRow, serializeUser, type PublicUser } from './serializers';
import { mfaEnrollmentRequired } from './access';
import { createMfaCrypto, type MfaCrypto } from './mfa';
import type { AdminEmailCheck, MfaResetResult, MfaSetup } from '../shared/api/auth';
import { hashPassword, newToken, sha256, verifyPassword } from './secrets';
import { createPasswordReset } from './password-reset';
import { createAdminEmailProof } from './admin-email';
import { createTwoFactor, MFA_TOKEN_EXPIRED, MFA_TOKEN_MAX_TRIES, MFA_TOKEN_TTL_MINUTES } from './two-factor';

// Each concern has its file (secrets, password-reset, admin-email, two-factor); what the routes,
// the CLI, seeds and tests import from here is re-exported.
export { hashPassword, sha256 } from './secrets';
export { RESET_ACCEPTED_MESSAGE, RESET_LINK_OMITTED, RESET_PENDING_TEXT, RESET_SUBJECT, RESET_TEMPLATE } from './password-reset';
export { ADMIN_CONFIRM_PAGE, ADMIN_CONFIRM_PENDING_TEXT, ADMIN_CONFIRM_SUBJECT, ADMIN_CONFIRM_TEMPLATE } from './admin-email';
export { INVALID_CODE, MFA_TOKEN_EXPIRED, MFA_TOKEN_MAX_TRIES, MFA_TOKEN_TTL_MINUTES } from './two-factor';

export const INVALID_CREDENTIALS = 'E-mail ou senha incorretos.';
/**
 * A taken e-mail, a taken CPF and an e-mail reserved for an admin all answer this one 409: a
 * stranger must not learn which of them exists (or which address belongs to an admin, RULES U2).
 */
export const ACCOUNT_EXISTS =
  'Já existe uma conta com este e-mail ou CPF. Faça login ou, se esqueceu a senha, use “Esqueci minha senha” na tela de login.';

/** A sign-in: the session, or (two factors on) the step that asks for the code. */
export type LoginResult = { token: string; user: PublicUser; remember: boolean } | { mfa_required: true; mfa_token: string };

export interface AuthService {
  register(input: unknown, ctx: { ip: string }): Promise<PublicUser>;
  /** Password sign-in: a session, or `{mfa_required, mfa_token}` for an account with two factors on (no session yet). */
  login(input: unknown, ctx: { ip: string; userAgent?: string }): Promise<LoginResult>;
  /** The second step: `{mfa_token, code}` (a TOTP code or a recovery code) → the session. */
  loginMfa(input: unknown, ctx: { ip: string; userAgent?: string }): Promise<{ token: string; user: PublicUser; remember: boolean }>;
  /**
   * The session's account. `fresh`: straight from the database (admin routes, RULES U1); else
   * through the session cache (platform/session-cache.ts), which every session change invalidates
   * on every web process.
   */
  authenticate(token: string, o?: { fresh?: boolean }): Promise<SessionUser | null>;
  /** GET /api/me's user: the account, and where it stands with two-factor sign-in. */
  me(userId: number): Promise<PublicUser & { mfa_enabled: boolean; mfa_enrollment_required: boolean }>;
  logout(tokenId: number): Promise<void>;
  requestPasswordReset(input: unknown, ctx: { ip: string }): Promise<void>;
  confirmPasswordReset(input: unknown, ctx: { ip: string }): Promise<void>;
  /** GET /api/auth/confirm-admin-email?token=…: whether the link is live (changes nothing). */
  checkAdminEmailToken(token: unknown): Promise<AdminEmailCheck>;
  /** POST /api/auth/confirm-admin-email {token}: the signed-in account proves its ADMIN_EMAILS address (single use). */
  confirmAdminEmail(user: Pick<SessionUser, 'id'>, input: unknown): Promise<{ user_id: number; email: string }>;
  /** POST /api/auth/mfa/setup: a new pending secret (replacing any pending one). */
  mfaSetup(user: Pick<SessionUser, 'id' | 'email'>): Promise<MfaSetup>;
  /** POST /api/auth/mfa/enable {code}: turns two factors on; the recovery codes, shown only here. */
  mfaEnable(user: Pick<SessionUser, 'id' | 'tokenId'>, input: unknown): Promise<{ recovery_codes: string[] }>;
  /** POST /api/auth/mfa/disable {code}. */
  mfaDisable(user: Pick<SessionUser, 'id'>, input: unknown): Promise<void>;
  /** `cotaverde users mfa-reset <email>`: two factors off and every session ended (an operator's act, audited). */
  mfaReset(email: string): Promise<MfaResetResult>;
  /** An account was anonymized: its two-factor data goes. */
  forgetUser(trx: Trx, user: { id: number }): Promise<void>;
  createAdmin(input: { name: string; email: string; password: string }): Promise<PublicUser>;
  listUsers(opts: { limit: number; offset: number; search?: string }): Promise<PublicUser[]>;
}

export interface AuthDeps {
  db: Db;
  config: Config;
  rateLimits: RateLimits;
  mailer: Mailer;
  logger: Logger;
  sessions: SessionCache<SessionUser>;
  /** Milliseconds since the epoch (TOTP time steps); tests move it. */
  now?: () => number;
}

/** What the auth service's parts share (password-reset.ts, admin-email.ts, two-factor.ts). */
export interface AuthContext extends AuthDeps {
  adminEmails: string[];
  now: () => number;
  mfaCrypto: MfaCrypto;
}

export function createAuthService(deps: AuthDeps): AuthService {
  const ctx: AuthContext = {
    ...deps,
    adminEmails: deps.config.adminEmails,
    now: deps.now ?? Date.now,
    mfaCrypto: createMfaCrypto(deps.config.appSecret),
  };
  const { db, config, rateLimits, sessions, adminEmails } = ctx;
  const reset = createPasswordReset(ctx);
  const adminProof = createAdminEmailProof(ctx);
  const twoFactor = createTwoFactor(ctx);
  const { mailAdminProof, signedIn } = adminProof;
  const { invalidCode, checkSecondFactor } = twoFactor;
  // Verifying against a real hash when the email is unknown keeps both answers equally slow.
  const dummyHash = hashPassword(newToken());

  return {
    async register(input, { ip }) {
      await rateLimits.hit('register', ip);
      const cmd = RegisterCommand.parse(input);
      const accountExists = () => errors.conflict('account_exists', ACCOUNT_EXISTS);
      // Hashed first, whatever the outcome: every answer past validation costs the same.
      const passwordHash = await hashPassword(cmd.password);
      try {
        const user = await db.transaction(async (trx) => {
          const row = await q.insertUser(trx, {
            name: cmd.name,
            email: cmd.email,
            phone: cmd.phone,
            cpf: cmd.cpf,
            birthdate: cmd.birthdate,
            password_hash: passwordHash,
            accepted_terms_at: new Date(),
          } as never);
          await audit(trx, { actorUserId: row.id, action: 'user.registered', entity: 'user', entityId: row.id });
          return row;
        });
        // A listed ADMIN_EMAILS address is a customer account until it proves the address.
        if (adminEmails.includes(user.email.toLowerCase())) await mailAdminProof(user.id, user.email);
        return serializeUser(user, adminEmails);
      } catch (e) {
        if (isUniqueViolation(e, 'users_email_unique') || isUniqueViolation(e, 'users_cpf_unique')) throw accountExists();
        throw e;
      }
    },

    async login(input, { ip, userAgent }) {
      const cmd = LoginCommand.parse(input);
      // Failures count per IP (one address cannot sweep many accounts) and per (e-mail, IP) (one
      // address cannot hammer one account). Never per e-mail alone: an attacker rotating addresses
      // would lock the owner out. The point is taken before the check (parallel guesses cannot
      // slip past the limit) and given back when the password is right.
      const ipKey = `ip:${ip}`;
      const accountKey = `email:${cmd.email}|ip:${ip}`;
      await rateLimits.hit('login', ipKey);
      try {
        await rateLimits.hit('loginAccount', accountKey);
      } catch (e) {
        await rateLimits.refund('login', ipKey);
        throw e;
      }
      const user = await q.findUserByEmail(db, cmd.email);
      const ok = await verifyPassword(user?.password_hash ?? (await dummyHash), cmd.password).catch(() => false);
      if (!user || !user.password_hash || !ok) throw new DomainError('unauthenticated', 'invalid_credentials', INVALID_CREDENTIALS);
      const remember = cmd.remember !== false;
      if (await q.mfaEnabled(db, user.id)) {
        // The password was right: its points go back, but the (e-mail, IP) counter is not cleared
        // here: wrong codes of the next step count on it too, so a known password buys no more
        // guesses at the code than the sign-in limits allow. No session yet: a short-lived,
        // single-use mfa_token (only its SHA-256 is kept) leads to POST /api/auth/login/mfa.
        await rateLimits.refund('login', ipKey);
        await rateLimits.refund('loginAccount', accountKey);
        const mfaToken = newToken();
        await db('mfa_challenges').insert({
          user_id: user.id,
          token_hash: sha256(mfaToken),
          remember,
          expires_at: db.raw(`now() + make_interval(mins => ?)`, [MFA_TOKEN_TTL_MINUTES]),
        });
        return { mfa_required: true as const, mfa_token: mfaToken };
      }
      const token = newToken();
      await q.insertSession(db, user.id, sha256(token), config.sessionTtlDays, userAgent);
      await rateLimits.refund('login', ipKey);
      await rateLimits.reset('loginAccount', accountKey);
      await signedIn(user);
      return { token, user: serializeUser(user, adminEmails), remember };
    },

    async loginMfa(input, { ip, userAgent }) {
      const cmd = MfaLoginCommand.parse(input);
      const ipKey = `ip:${ip}`;
      const expired = () => new DomainError('unauthenticated', 'mfa_token_expired', MFA_TOKEN_EXPIRED);
      const tokenHash = sha256(cmd.mfa_token);
      // The sign-in limits, as for the password: per IP, then per (e-mail, IP) once the token
      // names the account; a point taken before the check, given back on success.
      await rateLimits.hit('login', ipKey);
      const live = await db('mfa_challenges as c')
        .join('users as u', 'u.id', 'c.user_id')
        .where('c.token_hash', tokenHash)
        .whereNull('c.used_at')
        .where('c.expires_at', '>', db.fn.now())
        .where('c.attempts', '<', MFA_TOKEN_MAX_TRIES)
        .first('c.user_id', 'u.email');
      if (!live) throw expired();
      const accountKey = `email:${String(live.email).toLowerCase()}|ip:${ip}`;
      try {
        await rateLimits.hit('loginAccount', accountKey);
      } catch (e) {
        await rateLimits.refund('login', ipKey);
        throw e;
      }
      type Outcome = { ok: true; token: string; userId: number; remember: boolean } | { ok: false; error: DomainError };
      // A wrong code's try is committed before the answer (throwing inside would roll it back).
      const outcome = await db.transaction(async (trx): Promise<Outcome> => {
        // Locked: the same mfa_token sent by parallel requests is checked one at a time, so it
        // opens at most one session.
        const c = await trx('mfa_challenges')
          .where({ token_hash: tokenHash })
          .forUpdate()
          .first('id', 'user_id', 'attempts', 'used_at', 'remember', trx.raw('expires_at > now() as live'));
        if (!c || c.used_at || !c.live || c.attempts >= MFA_TOKEN_MAX_TRIES) return { ok: false, error: expired() };
        const accepted = await checkSecondFactor(trx, c.user_id, cmd.code);
        if (!accepted) {
          await trx('mfa_challenges')
            .where({ id: c.id })
            .update({ attempts: c.attempts + 1 });
          return { ok: false, error: invalidCode('unauthenticated') };
        }
        await trx('mfa_challenges')
          .where({ id: c.id })
          .update({ attempts: c.attempts + 1, used_at: trx.fn.now() });
        const token = newToken();
        await q.insertSession(trx, c.user_id, sha256(token), config.sessionTtlDays, userAgent);
        return { ok: true, token, userId: Number(c.user_id), remember: c.remember };
      });
      if (!outcome.ok) throw outcome.error;
      await rateLimits.refund('login', ipKey);
      await rateLimits.reset('loginAccount', accountKey);
      const user = await q.findUserById(db, outcome.userId);
      if (!user) throw expired();
      await signedIn(user);
      return { token: outcome.token, user: serializeUser(user, adminEmails), remember: outcome.remember };
    },

    async authenticate(token, o = {}) {
      if (!token || token.length > 200) return null;
      const load = async () => {
        const row = await q.findSession(db, sha256(token));
        if (!row) return null;
        const value: SessionUser = {
          id: row.id,
          email: row.email,
          name: row.name,
          isAdmin: isAdminRow(row, adminEmails),
          mfaEnabled: row.mfa_enabled_at != null,
          tokenId: row.token_id,
        };
        return { value, userId: row.id, expiresAt: new Date(row.expires_at) };
      };
      if (o.fresh) return (await load())?.value ?? null;
      return sessions.get(sha256(token), load);
    },

    async me(userId) {
      const row = await q.findUserById(db, userId);
      if (!row) throw errors.unauthenticated();
      const user = serializeUser(row, adminEmails);
      const mfaEnabled = await q.mfaEnabled(db, userId);
      return {
        ...user,
        mfa_enabled: mfaEnabled,
        mfa_enrollment_required: mfaEnrollmentRequired({ isAdmin: user.is_admin, mfaEnabled }, config),
      };
    },

    async logout(tokenId) {
      // Committed, then every web process forgets the session before this answers.
      for (const userId of await q.revokeSession(db, tokenId)) await sessions.userChanged(userId);
    },
    async createAdmin({ name, email, password }) {
      const parsed = LoginCommand.parse({ email, password });
      const passwordHash = await hashPassword(parsed.password);
      const row = await db.transaction(async (trx) => {
        const existing = await q.findUserByEmail(trx, parsed.email);
        let user;
        if (existing) {
          [user] = await trx('users')
            .where({ id: existing.id })
            .update({ is_admin: true, role: 'admin', password_hash: passwordHash, updated_at: trx.fn.now() })
            .returning(q.USER_COLUMNS);
          // The password was reset: sessions opened with the old one end here, as after a reset link.
          await q.revokeAllSessions(trx, existing.id);
        } else {
          user = await q.insertUser(trx, {
            name: name.trim() || 'Administrador',
            email: parsed.email,
            password_hash: passwordHash,
            is_admin: true,
            role: 'admin',
          });
        }
        await audit(trx, {
          actor: 'cli',
          action: existing ? 'user.promoted_admin' : 'user.admin_created',
          entity: 'user',
          entityId: user.id,
        });
        return user;
      });
      await sessions.userChanged(row.id);
      return serializeUser(row, adminEmails);
    },

    async listUsers(opts) {
      const rows = await q.listUsers(db, opts);
      return rows.map((r) => serializeUser(r, adminEmails));
    },

    requestPasswordReset: reset.requestPasswordReset,
    confirmPasswordReset: reset.confirmPasswordReset,
    checkAdminEmailToken: adminProof.checkAdminEmailToken,
    confirmAdminEmail: adminProof.confirmAdminEmail,
    mfaSetup: twoFactor.mfaSetup,
    mfaEnable: twoFactor.mfaEnable,
    mfaDisable: twoFactor.mfaDisable,
    mfaReset: twoFactor.mfaReset,
    forgetUser: twoFactor.forgetUser,
  };
}
