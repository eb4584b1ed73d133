import type { Db, Trx } from '../platform/db';
import { errors } from '../platform/errors';
import { audit } from '../platform/audit';
import type { ReadCache } from '../platform/read-cache';
import type { AdminUserRemoved } from '../shared/api/admin-users';
import { iso } from '../shared/iso';
import { releaseReservation } from '../draws/sales';
import { revokeAllSessions } from './queries';
import type { Actor } from './admin-users';
import { snapshot, type UserRecord } from './admin-users-schemas';

/**
 * Removing an account (RULES U4): with payments, numbers or coupon or voucher entries it is
 * anonymized and each module forgets its part (the money records stay, about no one); without
 * any, it is deleted. Its holds go back to the board first.
 */
export interface RemovalDeps {
  readCache: ReadCache;
  /** The modules' forgetUser, called when an account is anonymized (wired in services.ts). */
  forgetUser: Array<(trx: Trx, user: { id: number; email: string; anonymizedEmail: string }) => Promise<void>>;
  sessions: { userChanged(userId: number): Promise<void> };
}

export function createUserRemoval(
  deps: RemovalDeps & { db: Db },
  lockUser: (trx: Trx, id: number) => Promise<UserRecord>,
): { remove(actor: Actor, id: number): Promise<AdminUserRemoved> } {
  const { db } = deps;

  /** Releases what the user still holds (a held cell cannot outlive its reservation). */
  async function releaseHolds(trx: Trx, userId: number): Promise<number[]> {
    const active: Array<{ id: number }> = await trx('reservations')
      .where({ user_id: userId, status: 'active' })
      .orderBy('id')
      .forUpdate()
      .select('id');
    const touched: number[] = [];
    for (const r of active) {
      const drawId = await releaseReservation(trx, r.id, 'cancelled');
      if (drawId != null) touched.push(drawId);
    }
    return touched;
  }

  return {
    async remove(actor, id) {
      if (actor.userId === id) throw errors.conflict('own_account', 'Você não pode excluir a sua própria conta.');
      const outcome = await db.transaction(async (trx) => {
        const before = await lockUser(trx, id);
        const touched = await releaseHolds(trx, id);
        const r = await trx.raw(
          `SELECT EXISTS (SELECT 1 FROM payments WHERE user_id = :id)
               OR EXISTS (SELECT 1 FROM number_sales WHERE user_id = :id)
               OR EXISTS (SELECT 1 FROM draw_numbers WHERE owner_user_id = :id)
               OR EXISTS (SELECT 1 FROM coupon_ledger WHERE user_id = :id)
               OR EXISTS (SELECT 1 FROM voucher_ledger WHERE user_id = :id) AS has_money`,
          { id },
        );
        const hasMoney = Boolean(r.rows[0].has_money);
        if (!hasMoney) {
          await trx('users').where({ id }).del();
          await audit(trx, {
            actorUserId: actor.userId,
            actor: actor.via,
            action: 'user.deleted',
            entity: 'user',
            entityId: id,
            data: { before: snapshot(before), after: null },
          });
        } else {
          const email = `removido-${id}@anonimizado.invalid`;
          await trx('users').where({ id }).update({
            name: 'Cliente removido',
            email,
            phone: null,
            cpf: null,
            birthdate: null,
            password_hash: null,
            is_admin: false,
            role: 'customer',
            anonymized_at: trx.fn.now(),
            updated_at: trx.fn.now(),
          });
          await revokeAllSessions(trx, id);
          await trx('password_resets').where({ user_id: id }).del();
          // Every module forgets what it keeps about the person (autopay: the saved card and the
          // captive numbers; the mail outbox: the address), each writing only its own tables.
          for (const forget of deps.forgetUser) await forget(trx, { id, email: before.email, anonymizedEmail: email });
          // Money records (payments, sales, coupon and voucher ledgers) stay, now about no one.
          await audit(trx, {
            actorUserId: actor.userId,
            actor: actor.via,
            action: 'user.anonymized',
            entity: 'user',
            entityId: id,
            data: {
              before: { id, is_admin: before.is_admin, created_at: iso(before.created_at) },
              after: { id, name: 'Cliente removido', email, anonymized: true },
            },
          });
        }
        // Held numbers went back to the board; owner initials on public boards changed.
        if (touched.length || hasMoney) deps.readCache.invalidateAllAfterCommit(trx);
        return hasMoney ? ('anonymized' as const) : ('deleted' as const);
      });
      // The removed account's sessions end on every web process now.
      await deps.sessions.userChanged(id);
      return { ok: true as const, id, outcome, message: 'Excluído.' };
    },
  };
}
