import { randomBytes } from 'node:crypto';
import type { Db, Trx } from '../platform/db';
import { isUniqueViolation } from '../platform/db';
import { errors } from '../platform/errors';
import { audit } from '../platform/audit';
import type { Logger } from '../platform/logger';
import type { Mailer } from '../platform/mail';
import type { ReadCache } from '../platform/read-cache';
import type {
  AdminUser,
  AdminUserCreated,
  AdminUserList,
  AdminUserRemoved,
  AdminUserSaved,
  AssignNumbersResult,
  ActiveClientList,
} from '../shared/api/admin-users';
import type { CouponBalance } from '../shared/api/account';
import { iso } from '../shared/iso';
import { onlyDigits } from '../shared/validation';
import type { NumberAssignmentsService } from '../draws/assign';
import type { DrawsService } from '../draws/service';
import type { ReservationsService } from '../draws/reservations';
import type { CouponsService } from '../coupons/service';
import { newCouponCode } from '../coupons/schema';
import { activeClients, adjustCouponBalance, balancesOf } from '../coupons/admin';
import { hashPassword } from './secrets';
import { RESET_PENDING_TEXT, RESET_SUBJECT, RESET_TEMPLATE } from './password-reset';
import {
  COLUMNS,
  CouponAdjustCommand,
  CreateUserCommand,
  UpdateUserCommand,
  UserListQuery,
  snapshot,
  type UserRecord,
} from './admin-users-schemas';
import { isAdminRow } from './serializers';
import { createUserRemoval } from './admin-users-remove';

// The commands have a file of their own (admin-users-schemas.ts); the routes import them from here.
export { AdminUserId, CouponAdjustCommand, CreateUserCommand, UpdateUserCommand, UserListQuery } from './admin-users-schemas';

/**
 * The admin console's customer registry ('Cadastro de Clientes'; RULES N6, C5, U4, U5) and the operator CLI's
 * `users` / `coupons` commands: one service for both. Every write runs in one transaction with an
 * audit entry (actor, action, entity, before/after). Rules:
 * - a new account never gets a shared default password: a random temporary one is returned once
 *   and a single-use reset link is e-mailed (the auth module's reset mail);
 * - removing an account with payments, numbers or coupon entries anonymizes it (LGPD) and keeps
 *   the money records; without any, it is deleted;
 * - an admin cannot remove their own admin flag (nor delete their own account);
 * - a balance edit is a coupon-ledger adjustment with a reason (src/coupons/admin.ts);
 * - numbers assigned by an admin are sold through an `admin` payment of amount 0, all or nothing.
 */

export type Actor = { userId: number | null; via: 'admin' | 'cli' };

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

const notFound = () => errors.notFound('user_not_found', 'Usuário não encontrado.');
const emailTaken = () => errors.conflict('email_taken', 'Já existe uma conta com este e-mail.');

export interface UserDetail extends AdminUser {
  anonymized: boolean;
  payments_count: number;
  numbers_count: number;
  wins: number;
}

export interface AdminUsersService {
  list(query: unknown): Promise<AdminUserList>;
  get(id: number): Promise<AdminUser>;
  create(actor: Actor, input: unknown): Promise<AdminUserCreated>;
  update(actor: Actor, id: number, input: unknown): Promise<AdminUserSaved>;
  remove(actor: Actor, id: number): Promise<AdminUserRemoved>;
  assignNumbers(actor: Actor, userId: number, input: unknown): Promise<AssignNumbersResult>;
  activeClients(query: unknown): Promise<ActiveClientList>;
  /** CLI: an account by e-mail or id. */
  resolve(ref: string): Promise<number>;
  show(ref: string): Promise<UserDetail>;
  setAdmin(actor: Actor, ref: string, isAdmin: boolean): Promise<AdminUser>;
  couponOf(ref: string): Promise<CouponBalance & { user_id: number; email: string }>;
  adjustCoupon(
    actor: Actor,
    ref: string,
    input: unknown,
  ): Promise<{ user_id: number; email: string; before_cents: number; after_cents: number; cents: number }>;
}

export function createAdminUsersService(deps: {
  db: Db;
  logger: Logger;
  mailer: Mailer;
  adminEmails: string[];
  draws: DrawsService;
  reservations: ReservationsService;
  coupons: CouponsService;
  readCache: ReadCache;
  assignments: NumberAssignmentsService;
  /** The modules' forgetUser, called when an account is anonymized (wired in services.ts). */
  forgetUser: Array<(trx: Trx, user: { id: number; email: string; anonymizedEmail: string }) => Promise<void>>;
  /** Told of every committed change to an account (name, e-mail, admin flag, removal): its sessions are re-read on every web process. */
  sessions: { userChanged(userId: number): Promise<void> };
}): AdminUsersService {
  const { db } = deps;
  const removal = createUserRemoval(deps, (trx, id) => lockUser(trx, id));

  async function views(rows: UserRecord[]): Promise<AdminUser[]> {
    const balances = await balancesOf(
      db,
      rows.map((r) => r.id),
    );
    return rows.map((r) => {
      const b = balances.get(Number(r.id));
      const admin = isAdminRow(r, deps.adminEmails);
      return {
        id: Number(r.id),
        name: r.name,
        email: r.email,
        phone: r.phone,
        is_admin: admin,
        role: admin ? 'admin' : 'customer',
        coupon_code: r.coupon_code,
        coupon_value_cents: b?.cents ?? 0,
        coupon_valid_until: b?.valid_until ?? null,
        created_at: iso(r.created_at) as string,
      };
    });
  }

  async function get(id: number): Promise<AdminUser> {
    const row: UserRecord | undefined = await db('users').where({ id }).whereNull('anonymized_at').first(COLUMNS);
    if (!row) throw notFound();
    return (await views([row]))[0];
  }

  async function lockUser(trx: Trx, id: number): Promise<UserRecord> {
    const row: UserRecord | undefined = await trx('users').where({ id }).whereNull('anonymized_at').forUpdate().first(COLUMNS);
    if (!row) throw notFound();
    return row;
  }

  async function liveCents(conn: Trx, userId: number) {
    return (await balancesOf(conn, [userId])).get(userId)?.cents ?? 0;
  }

  async function resolve(ref: string): Promise<number> {
    const v = String(ref ?? '').trim();
    let row: { id: number } | undefined;
    if (/^\d{1,15}$/.test(v))
      row = await db('users')
        .where({ id: Number(v) })
        .whereNull('anonymized_at')
        .first('id');
    else if (v.includes('@')) row = await db('users').whereRaw('lower(email) = lower(?)', [v]).whereNull('anonymized_at').first('id');
    if (!row) throw errors.notFound('user_not_found', `Usuário não encontrado: ${v}`);
    return Number(row.id);
  }

  const service: AdminUsersService = {
    async list(query) {
      const f = UserListQuery.parse(query);
      const qb = db('users')
        .whereNull('anonymized_at')
        .orderBy('id', 'asc')
        .limit(f.limit + 1)
        .offset(f.offset)
        .select(COLUMNS);
      if (f.search) {
        const like = `%${escapeLike(f.search.toLowerCase())}%`;
        const digits = onlyDigits(f.search);
        qb.where((w) => {
          w.whereRaw('lower(name) LIKE ?', [like])
            .orWhereRaw('lower(email) LIKE ?', [like])
            .orWhereRaw('lower(coupon_code) LIKE ?', [like]);
          if (digits.length >= 2) w.orWhere('phone', 'like', `%${digits}%`);
          if (/^\d{1,15}$/.test(f.search!)) w.orWhere({ id: Number(f.search) });
        });
      }
      const rows: UserRecord[] = await qb;
      const hasMore = rows.length > f.limit;
      return { items: await views(rows.slice(0, f.limit)), hasMore, limit: f.limit, offset: f.offset };
    },

    get,

    async create(actor, input) {
      const cmd = CreateUserCommand.parse(input);
      if (cmd.coupon_code) throw errors.validation('coupon_code_generated', 'O código do cupom é gerado automaticamente.');
      const temporary = randomBytes(9).toString('base64url');
      const passwordHash = await hashPassword(temporary);
      let outboxId: number;
      const id = await db
        .transaction(async (trx) => {
          const [row]: UserRecord[] = await trx('users')
            .insert({
              name: cmd.name,
              email: cmd.email,
              phone: cmd.phone ?? null,
              password_hash: passwordHash,
              is_admin: cmd.is_admin ?? false,
              role: cmd.is_admin ? 'admin' : 'customer',
              coupon_code: newCouponCode(),
            })
            .returning(COLUMNS);
          let cents = 0;
          if (cmd.coupon_value_cents) {
            const adj = await adjustCouponBalance(trx, {
              userId: row.id,
              cents: cmd.coupon_value_cents,
              reason: cmd.coupon_reason ?? 'Saldo inicial definido no cadastro pelo administrador',
              actorUserId: actor.userId,
            });
            cents = adj.after_cents;
          }
          // The auth module's reset mail: the single-use link is made when the mail is sent.
          outboxId = await deps.mailer.enqueue(trx, {
            to: row.email,
            template: RESET_TEMPLATE,
            subject: RESET_SUBJECT,
            text: RESET_PENDING_TEXT,
          });
          await audit(trx, {
            actorUserId: actor.userId,
            actor: actor.via,
            action: 'user.created',
            entity: 'user',
            entityId: row.id,
            data: { before: null, after: snapshot(row, cents) },
          });
          return row.id;
        })
        .catch((e) => {
          if (isUniqueViolation(e, 'users_email_unique')) throw emailTaken();
          throw e;
        });
      await deps.mailer
        .dispatch(outboxId!)
        .catch((err) => deps.logger.warn({ outboxId, err: (err as Error).message }, 'mail dispatch failed; the sweep will retry'));
      return { ...(await get(id)), temporary_password: temporary, message: `Salvo com sucesso. Senha padrão: ${temporary}` };
    },

    async update(actor, id, input) {
      const cmd = UpdateUserCommand.parse(input);
      if (!Object.entries(cmd).some(([k, v]) => v !== undefined && k !== 'set_default_password' && k !== 'coupon_reason'))
        throw errors.validation('nothing_to_change', 'Nada para alterar.');
      let adjustment: AdminUserSaved['coupon_adjustment'] = null;
      await db
        .transaction(async (trx) => {
          const before = await lockUser(trx, id);
          const beforeCents = await liveCents(trx, id);
          if (cmd.is_admin === false && actor.userId === id && before.is_admin)
            throw errors.conflict('own_admin_flag', 'Você não pode remover o seu próprio acesso de administrador.');
          if (cmd.coupon_code && cmd.coupon_code !== before.coupon_code)
            throw errors.validation('coupon_code_generated', 'O código do cupom é gerado automaticamente e não pode ser alterado.');
          const patch: Record<string, unknown> = {};
          if (cmd.name !== undefined) patch.name = cmd.name;
          if (cmd.email !== undefined) patch.email = cmd.email;
          if (cmd.phone !== undefined) patch.phone = cmd.phone;
          if (cmd.is_admin !== undefined) {
            patch.is_admin = cmd.is_admin;
            patch.role = cmd.is_admin ? 'admin' : 'customer';
          }
          let after = before;
          if (Object.keys(patch).length)
            [after] = await trx('users')
              .where({ id })
              .update({ ...patch, updated_at: trx.fn.now() })
              .returning(COLUMNS);
          let afterCents = beforeCents;
          if (cmd.coupon_value_cents !== undefined && cmd.coupon_value_cents !== beforeCents) {
            if (!cmd.coupon_reason) throw errors.validation('coupon_reason_required', 'Informe o motivo do ajuste de saldo.');
            const adj = await adjustCouponBalance(trx, {
              userId: id,
              cents: cmd.coupon_value_cents - beforeCents,
              reason: cmd.coupon_reason,
              actorUserId: actor.userId,
            });
            adjustment = { before_cents: adj.before_cents, after_cents: adj.after_cents, cents: adj.cents };
            afterCents = adj.after_cents;
            after = await trx('users').where({ id }).first(COLUMNS); // the adjustment may have given it its coupon code
          }
          await audit(trx, {
            actorUserId: actor.userId,
            actor: actor.via,
            action: 'user.updated',
            entity: 'user',
            entityId: id,
            data: {
              before: snapshot(before, beforeCents),
              after: snapshot(after, afterCents),
              ...(adjustment ? { coupon_adjustment: { ...(adjustment as object), reason: cmd.coupon_reason } } : {}),
            },
          });
          // Public boards show owner initials: a new name changes them.
          if (cmd.name !== undefined && cmd.name !== before.name) deps.readCache.invalidateAllAfterCommit(trx);
        })
        .catch((e) => {
          if (isUniqueViolation(e, 'users_email_unique')) throw emailTaken();
          throw e;
        });
      // A demotion (or a new name / e-mail) reaches every web process's cached sessions now.
      await deps.sessions.userChanged(id);
      return { ...(await get(id)), message: 'Salvo com sucesso.', coupon_adjustment: adjustment };
    },

    remove: removal.remove,

    assignNumbers(actor, userId, input) {
      // Selling numbers belongs to draws (the sales module's owner): auth only routes the request.
      return deps.assignments.assign(actor, userId, input);
    },

    activeClients(query) {
      return activeClients(db, query);
    },

    resolve,

    async show(ref) {
      const id = await resolve(ref);
      const [u] = await views([await db('users').where({ id }).first(COLUMNS)]);
      const r = await db.raw(
        `SELECT (SELECT count(*)::int FROM payments WHERE user_id = :id) AS payments_count,
                (SELECT count(*)::int FROM draw_numbers WHERE owner_user_id = :id) AS numbers_count,
                (SELECT count(*)::int FROM draws WHERE winner_user_id = :id) AS wins`,
        { id },
      );
      return { ...u, anonymized: false, ...r.rows[0] };
    },

    async setAdmin(actor, ref, isAdmin) {
      const id = await resolve(ref);
      await service.update(actor, id, { is_admin: isAdmin });
      return get(id);
    },

    async couponOf(ref) {
      const id = await resolve(ref);
      const u = await db('users').where({ id }).first('email');
      return { user_id: id, email: u.email, ...(await deps.coupons.mine(id)) };
    },

    async adjustCoupon(actor, ref, input) {
      const cmd = CouponAdjustCommand.parse(input);
      const id = await resolve(ref);
      const r = await db.transaction(async (trx) => {
        const user = await lockUser(trx, id);
        const adj = await adjustCouponBalance(trx, { userId: id, cents: cmd.cents, reason: cmd.reason, actorUserId: actor.userId });
        await audit(trx, {
          actorUserId: actor.userId,
          actor: actor.via,
          action: 'coupon.adjusted',
          entity: 'user',
          entityId: id,
          data: {
            before: { coupon_value_cents: adj.before_cents },
            after: { coupon_value_cents: adj.after_cents },
            cents: adj.cents,
            reason: cmd.reason,
            ledger_id: adj.entry_id,
          },
        });
        return { user_id: id, email: user.email, before_cents: adj.before_cents, after_cents: adj.after_cents, cents: adj.cents };
      });
      return r;
    },
  };
  return service;
}
