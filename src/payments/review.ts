import { z } from 'zod';
import type { Db } from '../platform/db';
import { errors } from '../platform/errors';
import { audit } from '../platform/audit';
import { Id, PageLimit, PageOffset } from '../platform/validation';
import type { AdminPayment, AdminPaymentList } from '../shared/api/admin-payments';
import type { PaymentsService } from './service';
import { reviewFlagOf } from './state';
import { PAYMENT_STATUSES } from '../shared/api/admin-payments';

/** One row of the payments query (`base()` below): the answer's fields before they are written out. */
type PaymentRow = Omit<AdminPayment, 'created_at' | 'paid_at' | 'reviewed_at' | 'sandbox_approvable'> & {
  created_at: Date;
  paid_at: Date | null;
  reviewed_at: Date | null;
  provider_payment_id: string | null;
};

/**
 * Payments to review (console `/admin/pagamentos`, CLI `payments …`; RULES P5, P6, RF1): the
 * payments the money rules flagged (late approvals, refunds, chargebacks, amount mismatches) with
 * their reason, marking one reviewed with a note, and the sandbox approval. One service for the
 * admin API and the CLI; the flags themselves are raised by the payments state machine.
 */

export { PAYMENT_STATUSES };

const flag = z.union([z.boolean(), z.string()]).transform((v, ctx) => {
  if (typeof v === 'boolean') return v;
  const s = v.trim().toLowerCase();
  if (['1', 'true', 'sim', 'yes'].includes(s)) return true;
  if (['0', 'false', 'nao', 'não', 'no', ''].includes(s)) return false;
  ctx.addIssue({ code: 'custom', message: 'Use 1 ou 0.' });
  return z.NEVER;
});

export const PaymentListQuery = z
  .object({
    status: z.enum(PAYMENT_STATUSES, { error: `Status inválido. Use um de: ${PAYMENT_STATUSES.join(', ')}.` }).optional(),
    flagged: flag.optional(),
    /** 0: only those still to review; 1: only those reviewed (meaningful with flagged). */
    reviewed: flag.optional(),
    /**
     * RULES P14: a customer's name or e-mail (or part of one), a CPF (with or without its dots and
     * dash), a payment id, the provider's id or the PIX txid.
     */
    q: z
      .string({ error: 'A busca deve ser um texto.' })
      .trim()
      .min(1, 'Digite o que buscar.')
      .max(120, 'A busca pode ter no máximo 120 caracteres.')
      .optional(),
    /** Keyset page: the payments older than this id (the previous page's next_cursor). */
    cursor: Id('Cursor inválido.').optional(),
    limit: PageLimit(500, 50),
    offset: PageOffset(),
  })
  .refine((f) => f.cursor === undefined || f.offset === 0, {
    message: 'Use o cursor ou o deslocamento (offset), não os dois.',
    path: ['cursor'],
  });

/**
 * The ids of the payments a search term finds, each branch on its own index (migration
 * 20261128120000_payment-search): users' name and e-mail by trigram, the CPF, the payment id, the
 * provider's id and the txid. A UNION of ids, so that no OR across the join defeats the indexes.
 */
function searchSql(term: string): { sql: string; bindings: unknown[] } {
  // A whole e-mail address: the exact match on users_email_unique (a trigram search of a common
  // domain would visit every address of it). One character finds a payment id only.
  const email = /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(term) ? term.toLowerCase() : null;
  const like = email || term.length < 2 ? null : `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const digits = term.replace(/[.\-\s]/g, '');
  const cpf = /^\d{11}$/.test(digits) ? digits : null;
  const id = /^\d{1,15}$/.test(term) ? Number(term) : null;
  return {
    sql: `p.id IN (
      SELECT id FROM payments WHERE user_id IN (
        SELECT id FROM users WHERE name ILIKE ? OR email ILIKE ? OR lower(email) = ? OR cpf = ?)
      UNION ALL SELECT id FROM payments WHERE provider_payment_id = ?
      UNION ALL SELECT id FROM payments WHERE txid = ?
      UNION ALL SELECT id FROM payments WHERE id = ?::bigint)`,
    bindings: [like, like, email, cpf, term, term, id],
  };
}

export const ReviewCommand = z.object(
  {
    note: z
      .string({ error: 'Escreva uma nota sobre a revisão.' })
      .trim()
      .min(1, 'Escreva uma nota sobre a revisão.')
      .max(2000, 'A nota pode ter no máximo 2000 caracteres.'),
  },
  { error: 'Envie um objeto JSON.' },
);

export const ReviewPaymentId = Id('Pagamento inválido.');

type Actor = { userId?: number | null; via: 'admin' | 'cli' };

export interface PaymentsReviewService {
  list(query: unknown): Promise<AdminPaymentList>;
  show(id: number): Promise<
    AdminPayment & {
      audit: Array<{ id: number; action: string; actor: string; actor_user_id: number | null; created_at: string; data: unknown }>;
    }
  >;
  markReviewed(actor: Actor, id: number, input: unknown): Promise<AdminPayment>;
  approveSandbox(actor: Actor, id: number): Promise<AdminPayment>;
  /** The operator's refund (payments service), answered as the console shows a payment. */
  refund(
    actor: Actor,
    id: number,
    input: unknown,
  ): Promise<AdminPayment & { refund: { refunded: boolean; already: boolean; pending: boolean } }>;
}

const iso = (d: Date | string | null) => (d == null ? null : new Date(d).toISOString());

export function createPaymentsReviewService(deps: { db: Db; payments: PaymentsService; sandboxActive: boolean }): PaymentsReviewService {
  const { db } = deps;

  const base = () =>
    db('payments as p')
      .leftJoin('users as u', 'u.id', 'p.user_id')
      .leftJoin('users as r', 'r.id', 'p.reviewed_by')
      .leftJoin('infoproducts as i', 'i.id', 'p.infoproduct_id')
      .select(
        'p.id',
        'p.user_id',
        'u.name as user_name',
        'u.email as user_email',
        'p.kind',
        'p.provider',
        'p.method',
        'p.status',
        'p.amount_cents',
        'p.quantity',
        'p.infoproduct_id',
        'i.title as infoproduct_title',
        'p.draw_id',
        'p.numbers',
        'p.created_at',
        'p.paid_at',
        'p.flagged_for_review',
        'p.review_reason',
        'p.fulfilment_on_hold',
        'p.reviewed_at',
        'p.reviewed_by',
        'r.name as reviewed_by_name',
        'p.review_note',
        'p.provider_payment_id',
      );

  function view(row: PaymentRow): AdminPayment {
    return {
      id: Number(row.id),
      user_id: Number(row.user_id),
      user_name: row.user_name ?? null,
      user_email: row.user_email ?? null,
      kind: row.kind,
      provider: row.provider,
      method: row.method ?? null,
      status: row.status,
      amount_cents: row.amount_cents,
      quantity: row.quantity ?? null,
      infoproduct_id: row.infoproduct_id == null ? null : Number(row.infoproduct_id),
      infoproduct_title: row.infoproduct_title ?? null,
      draw_id: row.draw_id == null ? null : Number(row.draw_id),
      numbers: row.numbers ?? null,
      created_at: iso(row.created_at) as string,
      paid_at: iso(row.paid_at),
      flagged_for_review: row.flagged_for_review,
      review_reason: row.review_reason ?? null,
      review_flag: reviewFlagOf(row.review_reason),
      fulfilment_on_hold: row.fulfilment_on_hold,
      reviewed_at: iso(row.reviewed_at),
      reviewed_by: row.reviewed_by == null ? null : Number(row.reviewed_by),
      reviewed_by_name: row.reviewed_by_name ?? null,
      review_note: row.review_note ?? null,
      sandbox_approvable: deps.sandboxActive && row.provider === 'sandbox' && !!row.provider_payment_id,
    };
  }

  async function one(id: number): Promise<AdminPayment> {
    const row = await base().where('p.id', id).first();
    if (!row) throw errors.notFound('payment_not_found', 'Pagamento não encontrado.');
    return view(row);
  }

  const service: PaymentsReviewService = {
    async list(query) {
      const f = PaymentListQuery.parse(query ?? {});
      const qb = base()
        .orderBy('p.id', 'desc')
        .limit(f.limit + 1)
        .offset(f.offset);
      if (f.cursor !== undefined) qb.where('p.id', '<', f.cursor);
      if (f.q) {
        const search = searchSql(f.q);
        qb.whereRaw(search.sql, search.bindings as never[]);
      }
      if (f.status) qb.where('p.status', f.status);
      if (f.flagged !== undefined) qb.where('p.flagged_for_review', f.flagged);
      if (f.reviewed === true) qb.whereNotNull('p.reviewed_at');
      if (f.reviewed === false) qb.whereNull('p.reviewed_at');
      const rows = await qb;
      const items = rows.slice(0, f.limit).map(view);
      const hasMore = rows.length > f.limit;
      return { items, hasMore, limit: f.limit, offset: f.offset, next_cursor: hasMore ? items[items.length - 1].id : null };
    },

    async show(id) {
      const p = await one(id);
      const entries = await db('audit_log')
        .where({ entity: 'payment', entity_id: String(id) })
        .orderBy('id', 'desc')
        .limit(50)
        .select('id', 'action', 'actor', 'actor_user_id', 'created_at', 'data');
      return {
        ...p,
        audit: entries.map((e) => ({
          ...e,
          id: Number(e.id),
          actor_user_id: e.actor_user_id == null ? null : Number(e.actor_user_id),
          created_at: iso(e.created_at) as string,
        })),
      };
    },

    async markReviewed(actor, id, input) {
      const { note } = ReviewCommand.parse(input);
      await db.transaction(async (trx) => {
        const before = await trx('payments')
          .where({ id })
          .forUpdate()
          .first('id', 'status', 'flagged_for_review', 'review_reason', 'reviewed_at', 'reviewed_by', 'review_note');
        if (!before) throw errors.notFound('payment_not_found', 'Pagamento não encontrado.');
        if (!before.flagged_for_review) throw errors.conflict('payment_not_flagged', 'Este pagamento não está marcado para análise.');
        const [after] = await trx('payments')
          .where({ id })
          .update({ reviewed_at: trx.fn.now(), reviewed_by: actor.userId ?? null, review_note: note, updated_at: trx.fn.now() })
          .returning(['id', 'status', 'flagged_for_review', 'review_reason', 'reviewed_at', 'reviewed_by', 'review_note']);
        await audit(trx, {
          actorUserId: actor.userId ?? null,
          actor: actor.via,
          action: 'payment.reviewed',
          entity: 'payment',
          entityId: id,
          data: { before, after, note },
        });
      });
      return one(id);
    },

    async refund(actor, id, input) {
      const r = await deps.payments.refund(id, input, actor);
      return { ...(await one(id)), refund: { refunded: r.refunded, already: r.already, pending: r.pending } };
    },

    async approveSandbox(actor, id) {
      // The payments service audits the approval (payment.sandbox_approved) and applies it.
      await deps.payments.approveSandbox(id, actor);
      return one(id);
    },
  };
  return service;
}
