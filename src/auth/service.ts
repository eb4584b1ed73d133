import argon2 from 'argon2';
import { createHash, randomBytes } from 'node:crypto';
import type { Config } from '../platform/config';
import { isUniqueViolation, type Db } from '../platform/db';
import { DomainError, errors } from '../platform/errors';
import type { Logger } from '../platform/logger';
import type { Mailer } from '../platform/mail';
import type { RateLimits } from '../platform/rate-limit';
import type { SessionUser } from '../platform/http/context';
import type { SessionCache } from '../platform/session-cache';
import { audit } from '../platform/audit';
import * as q from './queries';
import { LoginCommand, RegisterCommand, ResetConfirmCommand, ResetRequestCommand } from './schema';
import { isAdminRow, serializeUser, type PublicUser } from './serializers';

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

export interface AuthService {
  register(input: unknown, ctx: { ip: string }): Promise<PublicUser>;
  login(input: unknown, ctx: { ip: string; userAgent?: string }): Promise<{ token: string; user: PublicUser }>;
  /**
   * The session's account. `fresh`: straight from the database (admin routes, DESIGN §9); else
   * through the session cache (platform/session-cache.ts), which every session change invalidates
   * on every web process.
   */
  authenticate(token: string, o?: { fresh?: boolean }): Promise<SessionUser | null>;
  me(userId: number): Promise<PublicUser>;
  logout(tokenId: number): Promise<void>;
  requestPasswordReset(input: unknown, ctx: { ip: string }): Promise<void>;
  confirmPasswordReset(input: unknown, ctx: { ip: string }): Promise<void>;
  /** GET /api/auth/confirm-admin-email?token=…: the account proves its ADMIN_EMAILS address (single use). */
  confirmAdminEmail(token: unknown): Promise<{ user_id: number; email: string }>;
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
}): AuthService {
  const { db, config, rateLimits, mailer, sessions } = deps;
  const adminEmails = config.adminEmails;
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
  // An address no longer listed, already proved, or without an account gets nothing ('dropped').
  mailer.registerRenderer(ADMIN_CONFIRM_TEMPLATE, async (trx, row) => {
    const user = await q.findUserByEmail(trx, row.to_address);
    const email = user?.email.toLowerCase();
    if (!user || !email || !adminEmails.includes(email) || user.admin_email_proved === email) return null;
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
        `Para confirmar que ele é seu e ativar o acesso de administrador desta conta, abra o link abaixo (válido por ${ADMIN_CONFIRM_TTL_HOURS} horas e por um único uso):`,
        '',
        link,
        '',
        'Se você não criou esta conta, ignore esta mensagem: nenhum acesso é concedido sem a confirmação.',
      ].join('\n');
    return { text: text(`${config.publicUrl}/api/auth/confirm-admin-email?token=${encodeURIComponent(token)}`), storedText: text(RESET_LINK_OMITTED) };
  });

  async function mailAdminProof(userId: number, email: string) {
    const outboxId = await mailer.enqueue(db, { to: email, template: ADMIN_CONFIRM_TEMPLATE, subject: ADMIN_CONFIRM_SUBJECT, text: ADMIN_CONFIRM_PENDING_TEXT });
    await audit(db, { actorUserId: userId, action: 'user.admin_email_proof_sent', entity: 'user', entityId: userId });
    await mailer.dispatch(outboxId).catch((err) => deps.logger.warn({ outboxId, err: (err as Error).message }, 'mail dispatch failed; the sweep will retry'));
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
      const token = newToken();
      await q.insertSession(db, user.id, sha256(token), config.sessionTtlDays, userAgent);
      await rateLimits.refund('login', ipKey);
      await rateLimits.reset('loginAccount', accountKey);
      // A listed ADMIN_EMAILS address not proved yet (an account older than the list): a proof
      // link, at most one an hour.
      const email = user.email.toLowerCase();
      if (adminEmails.includes(email) && user.admin_email_proved !== email && !user.is_admin && user.role !== 'admin') {
        const recent = await db('admin_email_confirmations').where({ user_id: user.id }).where('created_at', '>', db.raw(`now() - interval '1 hour'`)).first('id');
        const pending = await db('mail_outbox').where({ to_address: user.email, template: ADMIN_CONFIRM_TEMPLATE, status: 'pending' }).first('id');
        if (!recent && !pending) await mailAdminProof(user.id, user.email);
      }
      return { token, user: serializeUser(user, adminEmails) };
    },

    async authenticate(token, o = {}) {
      if (!token || token.length > 200) return null;
      const load = async () => {
        const row = await q.findSession(db, sha256(token));
        if (!row) return null;
        const value: SessionUser = { id: row.id, email: row.email, name: row.name, isAdmin: isAdminRow(row, adminEmails), tokenId: row.token_id };
        return { value, userId: row.id, expiresAt: new Date(row.expires_at) };
      };
      if (o.fresh) return (await load())?.value ?? null;
      return sessions.get(sha256(token), load);
    },

    async me(userId) {
      const row = await q.findUserById(db, userId);
      if (!row) throw errors.unauthenticated();
      return serializeUser(row, adminEmails);
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

    async confirmAdminEmail(token) {
      const invalid = () => errors.validation('invalid_token', 'Link de confirmação inválido ou expirado. Entre na sua conta para receber outro.');
      if (typeof token !== 'string' || token.length < 10 || token.length > 200) throw invalid();
      return db.transaction(async (trx) => {
        const c = await trx('admin_email_confirmations').where({ token_hash: sha256(token) }).whereNull('used_at').where('expires_at', '>', trx.fn.now()).forUpdate().first();
        if (!c) throw invalid();
        await trx('admin_email_confirmations').where({ id: c.id }).update({ used_at: trx.fn.now() });
        const user = await q.findUserById(trx, c.user_id);
        // The proof is for the address the link was sent to: an account whose e-mail changed since proves nothing.
        if (!user || user.email.toLowerCase() !== c.email) throw invalid();
        await trx('users').where({ id: user.id }).update({ admin_email_proved: c.email, updated_at: trx.fn.now() });
        await audit(trx, { actorUserId: user.id, action: 'user.admin_email_proved', entity: 'user', entityId: user.id, data: { email: c.email } });
        deps.logger.info({ userId: user.id }, 'ADMIN_EMAILS address proved: the account is admin');
        return { user_id: Number(user.id), email: c.email };
      });
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
  };
}
