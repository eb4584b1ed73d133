import type { Db } from '../platform/db';
import { audit } from '../platform/audit';
import { AdminConfigCommand, writeAppConfig } from '../platform/app-config';
import type { ReadCache } from '../platform/read-cache';
import type { CatalogueService } from '../catalogue/service';
import type { CouponsService } from '../coupons/service';
import { listParticipations } from '../payments/participations';

import type { PublicConfig } from '../shared/api/catalogue';

export interface AccountService {
  /** GET /api/me/export: everything the store holds about the caller (LGPD art. 18). */
  exportData(userId: number): Promise<Record<string, unknown>>;
  /** POST /api/config (admin): banner title and max numbers per selection; answers the public config. */
  updateConfig(adminId: number, input: unknown): Promise<PublicConfig>;
}

export function createAccountService(deps: {
  db: Db;
  catalogue: CatalogueService;
  coupons: CouponsService;
  readCache: ReadCache;
}): AccountService {
  const { db } = deps;
  return {
    async exportData(userId) {
      const code = await deps.coupons.ensureCode(userId);
      const user = await db('users').where({ id: userId }).first();
      const [
        sessions,
        resets,
        payments,
        participations,
        sales,
        owned,
        reservations,
        voucherBalances,
        voucherLedger,
        couponAccount,
        couponLedger,
        autopay,
        wins,
        mail,
        auditRows,
      ] = await Promise.all([
        db('auth_tokens').where({ user_id: userId }).orderBy('id').select('id', 'created_at', 'expires_at', 'revoked_at', 'user_agent'),
        db('password_resets').where({ user_id: userId }).orderBy('id').select('id', 'created_at', 'expires_at', 'used_at'),
        // Every column but the QR image (a picture of qr_code, which is included).
        db('payments')
          .where({ user_id: userId })
          .orderBy('id')
          .select(
            'id',
            'kind',
            'method',
            'provider',
            'provider_payment_id',
            'status',
            'amount_cents',
            'quantity',
            'infoproduct_id',
            'draw_id',
            'reservation_id',
            'numbers',
            'txid',
            'qr_code',
            'expires_at',
            'paid_at',
            'pix_e2e_id',
            'flagged_for_review',
            'review_reason',
            'created_at',
            'updated_at',
          ),
        listParticipations(db, userId),
        db('number_sales').where({ user_id: userId }).orderBy('id').select('id', 'draw_id', 'n', 'payment_id', 'source', 'created_at'),
        db('draw_numbers').where({ owner_user_id: userId }).orderBy(['draw_id', 'n']).select('draw_id', 'n', 'payment_id', 'sold_at'),
        db('reservations')
          .where({ user_id: userId })
          .orderBy('id')
          .select('id', 'draw_id', 'numbers', 'status', 'source', 'expires_at', 'created_at', 'updated_at'),
        db('voucher_balances').where({ user_id: userId }).orderBy('infoproduct_id').select('infoproduct_id', 'balance', 'updated_at'),
        db('voucher_ledger')
          .where({ user_id: userId })
          .orderBy('id')
          .select('id', 'infoproduct_id', 'delta', 'reason', 'payment_id', 'draw_id', 'reservation_id', 'created_at'),
        db('coupon_accounts').where({ user_id: userId }).first(),
        db('coupon_ledger')
          .where({ user_id: userId })
          .orderBy('id')
          .select('id', 'kind', 'amount_cents', 'payment_id', 'note', 'created_at'),
        db('autopay_profiles').where({ user_id: userId }).first(),
        db('draws')
          .where({ winner_user_id: userId })
          .orderBy('id')
          .select('id', 'title', 'winner_number', 'contest_number', 'realized_at', 'product_name', 'product_link', 'redeemed'),
        // Subjects only: bodies may hold links that still work.
        db('mail_outbox')
          .where({ to_address: user.email })
          .orderBy('id')
          .select('id', 'template', 'subject', 'status', 'created_at', 'sent_at'),
        db('audit_log')
          .where((w) => w.where({ actor_user_id: userId }).orWhere((x) => x.where({ entity: 'user', entity_id: String(userId) })))
          .orderBy('id')
          .select('id', 'action', 'entity', 'entity_id', 'data', 'created_at'),
      ]);
      const captive = autopay
        ? await db('autopay_captive_numbers').where({ profile_id: autopay.id }).orderBy('n').select('n', 'active', 'created_at')
        : [];
      // Who took a copy of their data, and when (the entry itself goes into the next export).
      await audit(db, { actorUserId: userId, actor: 'user', action: 'account.exported', entity: 'user', entityId: userId });
      const runs = autopay
        ? await db('autopay_runs')
            .where({ profile_id: autopay.id })
            .orderBy('id')
            .select('id', 'draw_id', 'status', 'numbers', 'payment_id', 'error', 'created_at')
        : [];
      return {
        format: 'cotaverde-meus-dados/1',
        exported_at: new Date().toISOString(),
        profile: {
          id: user.id,
          name: user.name,
          email: user.email,
          phone: user.phone,
          cpf: user.cpf,
          birthdate: user.birthdate,
          role: user.role,
          is_admin: user.is_admin,
          coupon_code: code,
          created_at: user.created_at,
          updated_at: user.updated_at,
        },
        consents: { terms_and_privacy_accepted_at: user.accepted_terms_at },
        sessions,
        password_resets: resets,
        payments,
        participations,
        numbers: { sales, owned },
        reservations,
        vouchers: { balances: voucherBalances, ledger: voucherLedger },
        coupon: {
          code,
          balance_cents: couponAccount?.balance_cents ?? 0,
          debt_cents: couponAccount?.debt_cents ?? 0,
          last_paid_payment_at: couponAccount?.last_paid_payment_at ?? null,
          last_payment_sync_at: couponAccount?.last_payment_sync_at ?? null,
          ledger: couponLedger,
        },
        autopay: autopay
          ? {
              active: autopay.active,
              provider: autopay.provider,
              provider_customer_id: autopay.provider_customer_id,
              provider_card_id: autopay.provider_card_id,
              brand: autopay.brand,
              last4: autopay.last4,
              holder_name: autopay.holder_name,
              doc_number: autopay.doc_number,
              created_at: autopay.created_at,
              updated_at: autopay.updated_at,
              captive_numbers: captive,
              runs,
            }
          : null,
        wins,
        mail,
        audit: auditRows,
      };
    },

    async updateConfig(adminId, input) {
      const patch = AdminConfigCommand.parse(input);
      await db.transaction(async (trx) => {
        await writeAppConfig(trx, patch);
        await audit(trx, { actorUserId: adminId, actor: 'admin', action: 'config.updated', entity: 'app_config', data: patch });
        // The config shows in cached public reads (config, prices, limits): dropped once this commits.
        deps.readCache.invalidateAllAfterCommit(trx);
      });
      return deps.catalogue.publicConfig();
    },
  };
}
