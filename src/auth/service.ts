import argon2 from 'argon2';
import { createHash, randomBytes } from 'node:crypto';
import QRCode from 'qrcode';
import type { Config } from '../platform/config';
import { isUniqueViolation, type Conn, type Db, type Trx } from '../platform/db';
import { DomainError, errors } from '../platform/errors';
import type { Logger } from '../platform/logger';
import type { Mailer } from '../platform/mail';
import type { RateLimits } from '../platform/rate-limit';
import type { SessionUser } from '../platform/http/context';
import type { SessionCache } from '../platform/session-cache';
import { audit } from '../platform/audit';
import { adminEmailsMismatch } from '../platform/metrics';
import * as q from './queries';
import { ConfirmAdminEmailCommand, LoginCommand, MfaCodeCommand, MfaEnableCommand, MfaLoginCommand, RegisterCommand, ResetConfirmCommand, ResetRequestCommand } from './schema';
import { isAdminRow, serializeUser, type PublicUser, type UserRow } from './serializers';
import { mfaEnrollmentRequired } from './access';
import { createMfaCrypto, isTotpShape, newRecoveryCodes, newTotpSecret, otpauthUrl, totpStep } from './mfa';
import type { AdminEmailCheck, MfaResetResult, MfaSetup } from '../shared/api/auth';

/** argon2id with OWASP's minimum profile (19 MiB, t=2, p=1). */
const HASH_OPTS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const hashPassword = (password: string) => argon2.hash(password, HASH_OPTS);
export const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const newToken = () => randomBytes(32).toString('base64url');

export const INVALID_CREDENTIALS = 'E-mail ou senha incorretos.';
/**
 * A taken e-mail, a taken CPF and an e-mail reserved for an admin all answer this one 409: a
 * stranger must not learn which of them exists (or which address belongs to an admin).
 */
export const ACCOUNT_EXISTS = 'Já existe uma conta com este e-mail ou CPF. Faça login ou, se esqueceu a senha, use “Esqueci minha senha” na tela de login.';
export const RESET_TEMPLATE = 'password_reset';
export const RESET_SUBJECT = 'Cota Verde: redefinição de senha';
/** What a reset mail's outbox row says until it is sent (the text and the link are made then). */
export const RESET_PENDING_TEXT = 'Pedido de redefinição de senha: o texto, com o link de uso único, é gerado no envio e não fica guardado.';
/** Where the link was, in the text the outbox keeps of a sent reset mail. */
/** The ADMIN_EMAILS proof (DESIGN §9): a single-use confirmation link, rendered at send time. */
export const ADMIN_CONFIRM_TEMPLATE = 'admin_email_confirm';
export const ADMIN_CONFIRM_SUBJECT = 'Cota Verde: confirme o seu e-mail de administração';
export const ADMIN_CONFIRM_PENDING_TEXT = 'Confirmação do e-mail de administração: o texto, com o link de uso único, é gerado no envio e não fica guardado.';
const ADMIN_CONFIRM_TTL_HOURS = 24;
export const RESET_LINK_OMITTED = '[link de uso único omitido: só o destinatário o recebe]';
export const RESET_ACCEPTED_MESSAGE =
  'Se houver uma conta com este e-mail, enviaremos um link para criar uma nova senha. Verifique sua caixa de entrada.';
/** The web page the ADMIN_EMAILS proof link opens (a button there confirms, signed in: GET never changes anything). */
export const ADMIN_CONFIRM_PAGE = '/confirmar-email-admin';

/** Two-factor sign-in: the mfa_token between the password and the code. */
export const MFA_TOKEN_TTL_MINUTES = 5;
export const MFA_TOKEN_MAX_TRIES = 5;
export const INVALID_CODE = 'Código inválido.';
export const MFA_TOKEN_EXPIRED = 'A verificação expirou. Entre de novo com e-mail e senha.';

/** A sign-in: the session, or (two factors on) the step that asks for the code. */
export type LoginResult = { token: string; user: PublicUser; remember: boolean } | { mfa_required: true; mfa_token: string };

export interface AuthService {
  register(input: unknown, ctx: { ip: string }): Promise<PublicUser>;
  /** Password sign-in: a session, or `{mfa_required, mfa_token}` for an account with two factors on (no session yet). */
  login(input: unknown, ctx: { ip: string; userAgent?: string }): Promise<LoginResult>;
  /** The second step: `{mfa_token, code}` (a TOTP code or a recovery code) → the session. */
  loginMfa(input: unknown, ctx: { ip: string; userAgent?: string }): Promise<{ token: string; user: PublicUser; remember: boolean }>;
  /**
   * The session's account. `fresh`: straight from the database (admin routes, DESIGN §9); else
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

export function createAuthService(deps: {
  db: Db;
  config: Config;
  rateLimits: RateLimits;
  mailer: Mailer;
  logger: Logger;
  sessions: SessionCache<SessionUser>;
  /** Milliseconds since the epoch (TOTP time steps); tests move it. */
  now?: () => number;
}): AuthService {
  const { db, config, rateLimits, mailer, sessions } = deps;
  const adminEmails = config.adminEmails;
  const now = deps.now ?? Date.now;
  const mfaCrypto = createMfaCrypto(config.appSecret);
  // Verifying against a real hash when the email is unknown keeps both answers equally slow.
  const dummyHash = hashPassword(newToken());

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
        `Para criar uma nova senha, abra o link abaixo (válido por ${config.passwordResetTtlMinutes} minutos e por um único uso):`,
        '',
        link,
        '',
        'Se você não pediu a redefinição, ignore esta mensagem: sua senha continua a mesma.',
      ].join('\n');
    return { text: text(`${config.publicUrl}/redefinir-senha?token=${encodeURIComponent(token)}`), storedText: text(RESET_LINK_OMITTED) };
  });

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
      await audit(trx, { actor: 'system', action: 'config.admin_emails_mismatch', entity: 'user', entityId: user.id, data: { outbox_id: row.id, queued_as: 'listed', sender_list: 'not listed' } });
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
    return { text: text(`${config.publicUrl}${ADMIN_CONFIRM_PAGE}?token=${encodeURIComponent(token)}`), storedText: text(RESET_LINK_OMITTED) };
  });

  async function mailAdminProof(userId: number, email: string) {
    const outboxId = await mailer.enqueue(db, { to: email, template: ADMIN_CONFIRM_TEMPLATE, subject: ADMIN_CONFIRM_SUBJECT, text: ADMIN_CONFIRM_PENDING_TEXT });
    await audit(db, { actorUserId: userId, action: 'user.admin_email_proof_sent', entity: 'user', entityId: userId });
    await mailer.dispatch(outboxId).catch((err) => deps.logger.warn({ outboxId, err: (err as Error).message }, 'mail dispatch failed; the sweep will retry'));
  }

  /** What follows every completed sign-in (the password alone, or the password and the code). */
  async function signedIn(user: UserRow) {
    // A listed ADMIN_EMAILS address not proved yet (an account older than the list): a proof
    // link, at most one an hour.
    const email = user.email.toLowerCase();
    if (adminEmails.includes(email) && user.admin_email_proved !== email && !user.is_admin && user.role !== 'admin') {
      const recent = await db('admin_email_confirmations').where({ user_id: user.id }).where('created_at', '>', db.raw(`now() - interval '1 hour'`)).first('id');
      const pending = await db('mail_outbox').where({ to_address: user.email, template: ADMIN_CONFIRM_TEMPLATE, status: 'pending' }).first('id');
      if (!recent && !pending) await mailAdminProof(user.id, user.email);
    }
  }

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
      deps.logger.error({ userId, err: (err as Error).message }, 'two-factor secret unreadable (was APP_SECRET changed?): run `cotaverde users mfa-reset` for this account');
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

  const invalidAdminLink = () => errors.validation('invalid_token', 'Link de confirmação inválido ou expirado. Entre na sua conta para receber outro.');
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
      const ok = await argon2.verify(user?.password_hash ?? (await dummyHash), cmd.password).catch(() => false);
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
        const c = await trx('mfa_challenges').where({ token_hash: tokenHash }).forUpdate().first('id', 'user_id', 'attempts', 'used_at', 'remember', trx.raw('expires_at > now() as live'));
        if (!c || c.used_at || !c.live || c.attempts >= MFA_TOKEN_MAX_TRIES) return { ok: false, error: expired() };
        const accepted = await checkSecondFactor(trx, c.user_id, cmd.code);
        if (!accepted) {
          await trx('mfa_challenges').where({ id: c.id }).update({ attempts: c.attempts + 1 });
          return { ok: false, error: invalidCode('unauthenticated') };
        }
        await trx('mfa_challenges').where({ id: c.id }).update({ attempts: c.attempts + 1, used_at: trx.fn.now() });
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
        const value: SessionUser = { id: row.id, email: row.email, name: row.name, isAdmin: isAdminRow(row, adminEmails), mfaEnabled: row.mfa_enabled_at != null, tokenId: row.token_id };
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
      return { ...user, mfa_enabled: mfaEnabled, mfa_enrollment_required: mfaEnrollmentRequired({ isAdmin: user.is_admin, mfaEnabled }, config) };
    },

    async logout(tokenId) {
      // Committed, then every web process forgets the session before this answers.
      for (const userId of await q.revokeSession(db, tokenId)) await sessions.userChanged(userId);
    },

    async requestPasswordReset(input, { ip }) {
      await rateLimits.hit('reset', ip);
      const cmd = ResetRequestCommand.parse(input);
      // Per address too, known or not (the answer must not differ): a mailbox gets at most a few
      // links an hour however many addresses the requests come from.
      await rateLimits.hit('resetEmail', `email:${cmd.email}`);
      // Known or unknown, the request does the same work: one outbox row and one queued job. The
      // account is looked up when the mail is sent (renderPasswordResetMail), off the request.
      const outboxId = await mailer.enqueue(db, { to: cmd.email, template: RESET_TEMPLATE, subject: RESET_SUBJECT, text: RESET_PENDING_TEXT });
      // The row is committed: if Redis is unavailable the mail sweep delivers it later.
      await mailer.dispatch(outboxId).catch((err) =>
        deps.logger.warn({ outboxId, err: (err as Error).message }, 'mail dispatch failed; the sweep will retry'),
      );
    },

    async confirmPasswordReset(input, { ip }) {
      await rateLimits.hit('resetConfirm', `ip:${ip}`);
      const cmd = ResetConfirmCommand.parse(input);
      const tokenHash = sha256(cmd.token);
      const invalid = () => errors.validation('invalid_token', 'Link inválido ou expirado.');
      // The token is looked up first: a wrong or dead one costs one indexed read, never an argon2 hash.
      const live = await db('password_resets').where({ token_hash: tokenHash }).whereNull('used_at').where('expires_at', '>', db.fn.now()).first('id');
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
          throw new DomainError('forbidden', 'wrong_account', `Este link confirma o e-mail ${c.email}. Saia desta conta, entre com ${c.email} e abra o link de novo.`);
        }
        await trx('admin_email_confirmations').where({ id: c.id }).update({ used_at: trx.fn.now() });
        const user = await q.findUserById(trx, c.user_id);
        // The proof is for the address the link was sent to: an account whose e-mail changed since proves nothing.
        if (!user || user.email.toLowerCase() !== c.email) throw invalid();
        await trx('users').where({ id: user.id }).update({ admin_email_proved: c.email, updated_at: trx.fn.now() });
        await audit(trx, { actorUserId: user.id, action: 'user.admin_email_proved', entity: 'user', entityId: user.id, data: { email: c.email } });
        deps.logger.info({ userId: user.id }, 'ADMIN_EMAILS address proved: the account is admin');
        return { user_id: Number(user.id), email: c.email };
      });
      // The account is admin now: its cached sessions are re-read on every web process.
      await sessions.userChanged(proved.user_id);
      return proved;
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
          user = await q.insertUser(trx, { name: name.trim() || 'Administrador', email: parsed.email, password_hash: passwordHash, is_admin: true, role: 'admin' });
        }
        await audit(trx, { actor: 'cli', action: existing ? 'user.promoted_admin' : 'user.admin_created', entity: 'user', entityId: user.id });
        return user;
      });
      await sessions.userChanged(row.id);
      return serializeUser(row, adminEmails);
    },

    async listUsers(opts) {
      const rows = await q.listUsers(db, opts);
      return rows.map((r) => serializeUser(r, adminEmails));
    },

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
      return { secret, otpauth_url, qr_code_data_url: await QRCode.toDataURL(otpauth_url, { errorCorrectionLevel: 'M', margin: 2, width: 240 }) };
    },

    async mfaEnable(user, input) {
      const cmd = MfaEnableCommand.parse(input);
      const codes = newRecoveryCodes();
      await limitedCodeCheck(user.id, () =>
        db.transaction(async (trx) => {
          const m = await trx('user_mfa').where({ user_id: user.id }).forUpdate().first('pending_secret_enc', 'enabled_at');
          if (m?.enabled_at) throw errors.conflict('mfa_already_enabled', 'A verificação em duas etapas já está ativa nesta conta.');
          if (!m?.pending_secret_enc) throw errors.conflict('mfa_setup_required', 'Nenhuma configuração pendente: comece de novo pela leitura do QR code.');
          // The app proves it holds the secret with a code of now (± one step).
          const pending = readSecret(user.id, m.pending_secret_enc);
          if (pending == null) throw errors.conflict('mfa_setup_required', 'Nenhuma configuração pendente: comece de novo pela leitura do QR code.');
          const step = await totpStep(pending, cmd.code, now(), null);
          if (step == null) throw invalidCode('validation');
          await trx('user_mfa')
            .where({ user_id: user.id })
            .update({ secret_enc: m.pending_secret_enc, pending_secret_enc: null, pending_at: null, enabled_at: trx.fn.now(), last_step: step, updated_at: trx.fn.now() });
          await trx('mfa_recovery_codes').where({ user_id: user.id }).del();
          await trx('mfa_recovery_codes').insert(codes.map((c) => ({ user_id: user.id, code_hash: mfaCrypto.recoveryHash(c) })));
          // Sessions opened with the password alone end; this one (which just gave a code) stays.
          const ended = await trx('auth_tokens').where({ user_id: user.id }).whereNull('revoked_at').whereNot({ id: user.tokenId }).update({ revoked_at: trx.fn.now() });
          await audit(trx, { actorUserId: user.id, action: 'user.mfa_enabled', entity: 'user', entityId: user.id, data: { other_sessions_ended: ended } });
        }),
      );
      await sessions.userChanged(user.id);
      return { recovery_codes: codes };
    },

    async mfaDisable(user, input) {
      const cmd = MfaCodeCommand.parse(input);
      await limitedCodeCheck(user.id, () =>
        db.transaction(async (trx) => {
          if (!(await q.mfaEnabled(trx, user.id))) throw errors.conflict('mfa_not_enabled', 'A verificação em duas etapas não está ativa nesta conta.');
          const accepted = await checkSecondFactor(trx, user.id, cmd.code);
          if (!accepted) throw invalidCode('validation');
          await q.deleteMfa(trx, user.id);
          await audit(trx, { actorUserId: user.id, action: 'user.mfa_disabled', entity: 'user', entityId: user.id, data: { with: accepted } });
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
        await audit(trx, { actor: 'cli', action: 'user.mfa_reset', entity: 'user', entityId: user.id, data: { mfa_was_enabled: wasEnabled, sessions_ended: ended } });
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
