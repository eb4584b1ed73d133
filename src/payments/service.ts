import { z } from 'zod';
import type { Job } from 'bullmq';
import { DelayedError } from 'bullmq';
import type { Config } from '../platform/config';
import type { Db, Trx } from '../platform/db';
import { errors } from '../platform/errors';
import { Id } from '../platform/validation';
import type { Logger } from '../platform/logger';
import type { JobQueue } from '../platform/queue';
import { audit } from '../platform/audit';
import { readAppConfig } from '../platform/app-config';
import type { VouchersService } from '../draws/vouchers';
import type { DrawsService } from '../draws/service';
import type { ReservationsService } from '../draws/reservations';
import { effectiveTicketPrice } from '../draws/serializers';
import { releaseHeldCells } from '../draws/queries';
import { fulfilPayment, type PaymentRow } from './fulfilment';
import { reversePaymentCashback } from '../coupons/service';
import type { PaymentProvider, ProviderPayment, ProviderStatus } from './providers/types';
import { ProviderError } from './providers/types';
import { verifyWebhookSignature } from './providers/mercadopago';

export const AdminGrantCommand = z.object({
  user: z.string().trim().min(1, 'Informe o usuário (e-mail ou id).'),
  product: z.string().trim().min(1, 'Informe o e-book (SKU ou id).'),
  quantity: z.coerce.number({ error: 'Quantidade deve ser um número inteiro.' }).int('Quantidade deve ser inteira.').min(1, 'Quantidade mínima: 1.').max(1000, 'Quantidade máxima: 1000.'),
});

export const MAX_EBOOKS_PER_PURCHASE = 20;

export const InfoproductPaymentCommand = z.object({
  infoproduct_id: Id('Informe o e-book.'),
  quantity: z.coerce
    .number({ error: 'Informe a quantidade.' })
    .int('Quantidade inválida.')
    .min(1, 'Compre pelo menos 1 e-book.')
    .max(MAX_EBOOKS_PER_PURCHASE, 'Limite: até 20 unidades por compra'),
  amount_cents_total: z.coerce.number({ error: 'Informe o valor total.' }).int('Valor inválido.').min(0, 'Valor inválido.'),
});

export const ReservationPixCommand = z
  .object({
    reservationId: Id('Reserva inválida.').optional(),
    reservation_id: Id('Reserva inválida.').optional(),
  })
  .transform((v) => ({ reservationId: v.reservationId ?? v.reservation_id }))
  .refine((v) => v.reservationId != null, { message: 'Informe a reserva (reservationId).', path: ['reservationId'] });

export const ConfirmPurchaseCommand = z.object({
  payment_id: Id('Informe o pagamento.'),
  infoproduct_id: Id('E-book inválido.').optional(),
});

export const PaymentId = Id('Pagamento inválido.');

/** Statuses a payment may move to from each status (DESIGN §5, plus late approval of lapsed ones). */
const TRANSITIONS: Record<string, ProviderStatus[]> = {
  // pending → refunded/charged_back: approved and returned before we ever saw the approval
  // (nothing was delivered, nothing to revoke; flagged for review).
  pending: ['approved', 'rejected', 'cancelled', 'expired', 'refunded', 'charged_back'],
  expired: ['approved'],
  cancelled: ['approved'],
  rejected: ['approved'],
  approved: ['refunded', 'charged_back'],
  refunded: [],
  charged_back: [],
};

/** Answer of every PIX creation (storefront §3 "Payment response"). */
export function pixView(p: PaymentRow) {
  return {
    paymentId: p.id,
    id: p.id,
    status: p.status,
    qr_code_base64: p.qr_code_base64,
    copy_paste_code: p.qr_code,
    qr_code: p.qr_code,
    txid: p.txid,
    amount: p.amount_cents / 100,
    amount_cents: p.amount_cents,
    expires_at: p.expires_at,
  };
}

/** A payment as its owner sees it (GET /api/payments/me). */
export function paymentView(p: PaymentRow) {
  return {
    id: p.id,
    paymentId: p.id,
    kind: p.kind,
    method: p.method,
    status: p.status,
    amount_cents: p.amount_cents,
    quantity: p.quantity,
    infoproduct_id: p.infoproduct_id,
    draw_id: p.draw_id,
    reservation_id: p.reservation_id,
    numbers: p.numbers ?? [],
    txid: p.txid,
    qr_code: p.status === 'pending' ? p.qr_code : null,
    qr_code_base64: p.status === 'pending' ? p.qr_code_base64 : null,
    copy_paste_code: p.status === 'pending' ? p.qr_code : null,
    expires_at: p.expires_at,
    paid_at: p.paid_at,
    created_at: p.created_at,
    flagged_for_review: p.flagged_for_review,
  };
}

/** Poll delays of a pending payment: quick at first, then every minute, until it expires. */
export function pollDelayMs(attempt: number): number {
  return Math.min(60_000, 5_000 * 2 ** Math.min(attempt, 4));
}

export interface PaymentsService {
  grantVouchers(input: unknown, actor: { userId?: number | null; via: 'cli' | 'admin' }): Promise<{ paymentId: number; userId: number; infoproductId: number; quantity: number; balance: number }>;
  createInfoproductPayment(userId: number, input: unknown): Promise<ReturnType<typeof pixView>>;
  createReservationPix(userId: number, input: unknown): Promise<ReturnType<typeof pixView>>;
  status(userId: number, paymentId: unknown): Promise<{ status: string; paymentId: number }>;
  confirmPurchase(userId: number, input: unknown): Promise<Record<string, unknown>>;
  listMine(userId: number): Promise<ReturnType<typeof paymentView>[]>;
  /** Asks the provider and applies what it says (throttled unless force). */
  refresh(paymentId: number, opts?: { force?: boolean }): Promise<PaymentRow>;
  /** The one transition function: moves a payment to the provider's status and fulfils/revokes, idempotently. */
  applyProviderState(paymentId: number, remote: ProviderPayment): Promise<PaymentRow>;
  handleMercadoPagoWebhook(req: { headers: Record<string, string | undefined>; query: Record<string, unknown>; body: unknown }): Promise<{ status: number; body: Record<string, unknown> }>;
  approveSandbox(paymentId: number, actor: { userId?: number | null; via: 'cli' | 'admin' }): Promise<PaymentRow>;
  poll(paymentId: number, job?: Job, token?: string): Promise<string>;
  reconcile(): Promise<number>;
  schedulePoll(paymentId: number, delayMs?: number): Promise<void>;
}

export function createPaymentsService(deps: {
  db: Db;
  config: Config;
  logger: Logger;
  queue: JobQueue;
  vouchers: VouchersService;
  draws: DrawsService;
  reservations: ReservationsService;
  provider: PaymentProvider;
  sandbox?: { approve(providerPaymentId: string): Promise<boolean> } | null;
}): PaymentsService {
  const { db, config, provider } = deps;
  const expiryMinutes = config.payments.pix.expiryMinutes;

  async function findOwned(userId: number, paymentId: number): Promise<PaymentRow> {
    const p: PaymentRow | undefined = await db('payments').where({ id: paymentId }).first();
    // Another user's payment answers exactly like a missing one.
    if (!p || p.user_id !== userId) throw errors.notFound('payment_not_found', 'Pagamento não encontrado.');
    return p;
  }

  async function payerOf(userId: number) {
    const u = await db('users').where({ id: userId }).first('email', 'name', 'cpf');
    return { email: u.email, name: u.name, cpf: u.cpf };
  }

  /** Creates the provider charge for a pending payment row and stores its PIX data. */
  async function attachPix(p: PaymentRow, description: string): Promise<PaymentRow> {
    try {
      const pix = await provider.createPix({
        paymentId: p.id,
        amountCents: p.amount_cents,
        description,
        expiresAt: new Date(p.expires_at as Date),
        payer: await payerOf(p.user_id),
      });
      const [row] = await db('payments')
        .where({ id: p.id })
        .update({
          provider_payment_id: pix.providerPaymentId,
          txid: pix.txid,
          qr_code: pix.copyPasteCode,
          qr_code_base64: pix.qrCodeBase64,
          updated_at: db.fn.now(),
        })
        .returning('*');
      await service.schedulePoll(p.id);
      return row;
    } catch (e) {
      await db('payments').where({ id: p.id, status: 'pending' }).update({ status: 'cancelled', review_reason: String((e as Error).message).slice(0, 300), updated_at: db.fn.now() });
      deps.logger.error({ paymentId: p.id, err: (e as Error).message }, 'PIX creation failed at the provider');
      throw errors.conflict('payment_provider_unavailable', 'Não foi possível iniciar o pagamento agora.');
    }
  }

  /** A payment another request is creating: its PIX data, once stored (or 409 if its creation failed). */
  async function waitForPixData(paymentId: number, timeoutMs = 15_000): Promise<PaymentRow> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const p: PaymentRow = await db('payments').where({ id: paymentId }).first();
      if (p.qr_code) return p;
      if (p.status !== 'pending' || Date.now() > until) throw errors.conflict('payment_provider_unavailable', 'Não foi possível iniciar o pagamento agora.');
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  const service: PaymentsService = {
    async grantVouchers(input, actor) {
      const cmd = AdminGrantCommand.parse(input);
      return db.transaction(async (trx) => {
        // A digit string is an id only when it can be one (a longer one is out of
        // bigint range: PostgreSQL would fail instead of finding nothing).
        const asId = (v: string) => (/^\d{1,15}$/.test(v) ? Number(v) : null);
        const userId = asId(cmd.user);
        const user = !/^\d+$/.test(cmd.user)
          ? await trx('users').whereRaw('lower(email) = lower(?)', [cmd.user]).first('id')
          : userId != null
            ? await trx('users').where({ id: userId }).first('id')
            : undefined;
        if (!user) throw errors.notFound('user_not_found', `Usuário não encontrado: ${cmd.user}`);
        const productId = asId(cmd.product);
        const product =
          productId != null
            ? await trx('infoproducts').where({ id: productId }).first('id')
            : await trx('infoproducts').where({ sku: cmd.product }).first('id');
        if (!product) throw errors.notFound('infoproduct_not_found', `E-book não encontrado: ${cmd.product}`);
        const [payment]: PaymentRow[] = await trx('payments')
          .insert({
            user_id: user.id,
            kind: 'admin',
            method: 'admin',
            provider: 'admin',
            status: 'approved',
            amount_cents: 0,
            quantity: cmd.quantity,
            infoproduct_id: product.id,
            paid_at: trx.fn.now(),
          })
          .returning('*');
        await fulfilPayment(trx, payment, { vouchers: deps.vouchers });
        await audit(trx, {
          actorUserId: actor.userId ?? null,
          actor: actor.via,
          action: 'vouchers.granted',
          entity: 'payment',
          entityId: payment.id,
          data: { user_id: user.id, infoproduct_id: product.id, quantity: cmd.quantity },
        });
        const bal = await trx('voucher_balances').where({ user_id: user.id, infoproduct_id: product.id }).first('balance');
        return { paymentId: payment.id, userId: user.id, infoproductId: product.id, quantity: cmd.quantity, balance: bal?.balance ?? 0 };
      });
    },

    async createInfoproductPayment(userId, input) {
      const cmd = InfoproductPaymentCommand.parse(input);
      const product = await db('infoproducts').where({ id: cmd.infoproduct_id }).first();
      if (!product) throw errors.notFound('infoproduct_not_found', 'E-book não encontrado.');
      if (!product.active) throw errors.conflict('infoproduct_inactive', 'Este e-book não está à venda.');
      const draw = await deps.draws.ensureOpenDraw(product.id);
      const cfg = await readAppConfig(db);
      const unit = effectiveTicketPrice(draw, { productPriceCents: product.price_cents, configTicketPriceCents: cfg.ticket_price_cents });
      const total = unit * cmd.quantity;
      if (total !== cmd.amount_cents_total) {
        throw errors.conflict('price_changed', 'O preço mudou. Confira o novo valor e tente de novo.', { amount_cents_total: total, unit_price_cents: unit });
      }
      const [row]: PaymentRow[] = await db('payments')
        .insert({
          user_id: userId,
          kind: 'infoproduct',
          method: 'pix',
          provider: provider.name,
          status: 'pending',
          amount_cents: total,
          quantity: cmd.quantity,
          infoproduct_id: product.id,
          draw_id: draw.id,
          expires_at: db.raw(`now() + make_interval(mins => ?)`, [expiryMinutes]),
        })
        .returning('*');
      const withPix = await attachPix(row, `${cmd.quantity}x ${product.title}`);
      deps.logger.info({ paymentId: row.id, userId, amount: total }, 'PIX payment created');
      return pixView(withPix);
    },

    async createReservationPix(userId, input) {
      const { reservationId } = ReservationPixCommand.parse(input);
      const inactive = () =>
        errors.validation('reservation_inactive', 'Sua reserva não está mais ativa. Volte ao sorteio para reservar novamente.');
      // Reuse: a pending payment of this reservation that still has its QR data.
      const existing: PaymentRow | undefined = await db('payments')
        .where({ reservation_id: reservationId, user_id: userId, status: 'pending' })
        .whereNotNull('qr_code')
        .where('expires_at', '>', db.fn.now())
        .orderBy('id', 'desc')
        .first();
      if (existing) return pixView(existing);
      const outcome = await db.transaction(async (trx: Trx): Promise<{ reuse: PaymentRow } | { created: PaymentRow }> => {
        const r = await trx('reservations').where({ id: reservationId }).forUpdate().first();
        if (!r || r.user_id !== userId) throw errors.notFound('reservation_not_found', 'Reserva não encontrada.');
        if (r.status !== 'active' || new Date(r.expires_at).getTime() <= Date.now()) throw inactive();
        const draw = await trx('draws').where({ id: r.draw_id }).first();
        if (!draw || draw.status !== 'open') throw inactive();
        const held = await trx('draw_numbers').where({ reservation_id: r.id, status: 'reserved' }).count<{ c: number }[]>({ c: '*' });
        if (Number(held[0].c) !== r.numbers.length) throw inactive();
        // Under the reservation lock: a concurrent request may have just created the
        // payment (its PIX data arrives after this transaction). One reservation,
        // one payable code: wait for that one instead of creating a second charge.
        // A row left without PIX data for long (its creator died) no longer counts.
        const inFlight: PaymentRow | undefined = await trx('payments')
          .where({ reservation_id: r.id, status: 'pending' })
          .where('expires_at', '>', trx.fn.now())
          .where((q) => q.whereNotNull('qr_code').orWhere('created_at', '>', trx.raw(`now() - interval '30 seconds'`)))
          .orderBy('id', 'desc')
          .first();
        if (inFlight) return { reuse: inFlight };
        const product = draw.infoproduct_id ? await trx('infoproducts').where({ id: draw.infoproduct_id }).first('price_cents') : null;
        const cfg = await readAppConfig(trx);
        const unit = effectiveTicketPrice(draw, { productPriceCents: product?.price_cents, configTicketPriceCents: cfg.ticket_price_cents });
        const [row]: PaymentRow[] = await trx('payments')
          .insert({
            user_id: userId,
            kind: 'reservation',
            method: 'pix',
            provider: provider.name,
            status: 'pending',
            amount_cents: unit * r.numbers.length,
            draw_id: r.draw_id,
            reservation_id: r.id,
            numbers: r.numbers,
            infoproduct_id: draw.infoproduct_id,
            expires_at: trx.raw(`now() + make_interval(mins => ?)`, [expiryMinutes]),
          })
          .returning('*');
        // A payable code never outlives its numbers: the hold lasts as long as the PIX.
        await trx('reservations').where({ id: r.id }).update({ expires_at: row.expires_at, updated_at: trx.fn.now() });
        return { created: row };
      });
      if ('reuse' in outcome) return pixView(await waitForPixData(outcome.reuse.id));
      const created = outcome.created;
      await deps.reservations.scheduleExpiry(reservationId as number, new Date(created.expires_at as Date));
      const withPix = await attachPix(created, `Números ${(created.numbers ?? []).map((n) => String(n).padStart(2, '0')).join(', ')} do sorteio #${created.draw_id}`);
      return pixView(withPix);
    },

    async status(userId, rawId) {
      const id = PaymentId.parse(rawId);
      let p = await findOwned(userId, id);
      if (p.status === 'pending') p = await service.refresh(p.id);
      return { status: p.status, paymentId: p.id };
    },

    async confirmPurchase(userId, input) {
      const cmd = ConfirmPurchaseCommand.parse(input);
      let p = await findOwned(userId, cmd.payment_id);
      if (cmd.infoproduct_id && p.infoproduct_id !== cmd.infoproduct_id) throw errors.validation('infoproduct_mismatch', 'Este pagamento é de outro e-book.');
      if (p.status === 'pending') p = await service.refresh(p.id, { force: true });
      if (p.status !== 'approved') throw errors.conflict('payment_not_approved', 'O pagamento ainda não foi aprovado.', { status: p.status });
      // Normally already fulfilled on approval; this only makes sure (idempotent).
      const f = await db.transaction((trx) => fulfilPayment(trx, p, { vouchers: deps.vouchers, draws: deps.draws }));
      if (f.touchedDrawId) deps.draws.invalidateBoard(f.touchedDrawId);
      let drawId: number | null = null;
      let remaining: number | null = null;
      if (p.infoproduct_id) {
        const d = await deps.draws.ensureOpenDraw(p.infoproduct_id);
        drawId = d.id;
        remaining = (await deps.vouchers.allowance(userId, d.id)).remaining;
      }
      return { ok: true, payment_id: p.id, status: p.status, vouchers_granted: (f.result.vouchers as number) ?? 0, infoproduct_id: p.infoproduct_id, draw_id: drawId, drawId, remaining };
    },

    async listMine(userId) {
      const rows: PaymentRow[] = await db('payments').where({ user_id: userId }).orderBy('id', 'desc').limit(200);
      return rows.map(paymentView);
    },

    async refresh(paymentId, opts = {}) {
      // Claim the check atomically: concurrent status calls ask the provider at most every 3 s.
      const claimed: PaymentRow[] = await db('payments')
        .where({ id: paymentId, status: 'pending' })
        .whereNotNull('provider_payment_id')
        .modify((q) => {
          if (!opts.force) q.where((w) => w.whereNull('last_checked_at').orWhere('last_checked_at', '<', db.raw(`now() - interval '3 seconds'`)));
        })
        .update({ last_checked_at: db.fn.now() })
        .returning('*');
      if (!claimed.length) return db('payments').where({ id: paymentId }).first();
      const p = claimed[0];
      let remote: ProviderPayment | null;
      try {
        remote = await provider.fetch(p.provider_payment_id as string);
      } catch (e) {
        deps.logger.warn({ paymentId, err: (e as Error).message }, 'provider status check failed');
        return p;
      }
      if (!remote) {
        // The provider does not know the charge: once our expiry has passed, stop waiting.
        if (p.expires_at && new Date(p.expires_at).getTime() <= Date.now()) {
          const [row] = await db('payments')
            .where({ id: paymentId, status: 'pending' })
            .update({ status: 'expired', review_reason: 'cobrança desconhecida do provedor', updated_at: db.fn.now() })
            .returning('*');
          return row ?? db('payments').where({ id: paymentId }).first();
        }
        return p;
      }
      return service.applyProviderState(paymentId, remote);
    },

    async applyProviderState(paymentId, remote) {
      const result = await db.transaction(async (trx) => {
        const p: PaymentRow | undefined = await trx('payments').where({ id: paymentId }).forUpdate().first();
        if (!p) throw errors.notFound('payment_not_found', 'Pagamento não encontrado.');
        if (p.provider_payment_id && remote.providerPaymentId !== p.provider_payment_id) {
          throw new Error(`provider payment ${remote.providerPaymentId} does not belong to payment ${paymentId}`);
        }
        let target = remote.status;
        // Our own expiry: a still-pending charge past its time.
        if (target === 'pending' && p.status === 'pending' && p.expires_at && new Date(p.expires_at).getTime() <= Date.now()) target = 'expired';
        if (target === p.status || !TRANSITIONS[p.status]?.includes(target)) {
          // Nothing to change, but an approved payment is always fulfilled (repairs a crash between).
          if (p.status === 'approved') return { p, f: await fulfilPayment(trx, p, { vouchers: deps.vouchers, draws: deps.draws }) };
          return { p, f: null };
        }
        const amountMismatch = target === 'approved' && remote.amountCents !== p.amount_cents;
        if (amountMismatch) {
          deps.logger.warn({ paymentId, expected: p.amount_cents, got: remote.amountCents }, 'approved amount differs from the charged amount');
        }
        const reviewReason =
          target === 'refunded' || target === 'charged_back'
            ? `pagamento ${target === 'refunded' ? 'estornado' : 'contestado (chargeback)'}`
            : amountMismatch
              ? `valor aprovado (${remote.amountCents}) difere do cobrado (${p.amount_cents})`
              : target === 'approved' && p.status !== 'pending'
                ? `aprovado depois de ${p.status}`
                : null;
        const [row]: PaymentRow[] = await trx('payments')
          .where({ id: paymentId })
          .update({
            status: target,
            paid_at: target === 'approved' ? (remote.paidAt ?? trx.fn.now()) : p.paid_at,
            flagged_for_review: reviewReason ? true : p.flagged_for_review,
            review_reason: reviewReason ?? p.review_reason,
            updated_at: trx.fn.now(),
          })
          .returning('*');
        await audit(trx, { actor: 'system', action: `payment.${target}`, entity: 'payment', entityId: paymentId, data: { from: p.status, provider: p.provider } });
        if (target === 'approved') return { p: row, f: await fulfilPayment(trx, row, { vouchers: deps.vouchers, draws: deps.draws }) };
        if (target === 'refunded' || target === 'charged_back') {
          await reversePaymentCashback(trx, row); // coupon credit back, never below zero (DESIGN §6)
          // Revoke what is still unused of the vouchers this payment granted, once:
          // the e-books bought, or those a late-approved reservation payment got
          // for numbers it could not have. Never more than it granted.
          const grant: { user_id: number; infoproduct_id: number; delta: number } | undefined = await trx('voucher_ledger')
            .where({ payment_id: row.id })
            .whereIn('reason', ['grant', 'late_approval'])
            .first('user_id', 'infoproduct_id', 'delta');
          const bal = grant
            ? await trx('voucher_balances').where({ user_id: grant.user_id, infoproduct_id: grant.infoproduct_id }).forUpdate().first('balance')
            : undefined;
          const take = grant ? Math.min(bal?.balance ?? 0, grant.delta) : 0;
          if (grant && take > 0) {
            const ins = await trx('voucher_ledger')
              .insert({ user_id: grant.user_id, infoproduct_id: grant.infoproduct_id, delta: -take, reason: 'revoke', payment_id: row.id })
              .onConflict(trx.raw(`(payment_id) WHERE reason = 'revoke'`))
              .ignore()
              .returning('id');
            if (ins.length) {
              await trx('voucher_balances')
                .where({ user_id: grant.user_id, infoproduct_id: grant.infoproduct_id })
                .update({ balance: trx.raw('balance - ?', [take]), updated_at: trx.fn.now() });
            }
          }
        }
        const lapsed = target === 'expired' || target === 'cancelled' || target === 'rejected' || (p.status === 'pending' && (target === 'refunded' || target === 'charged_back'));
        if (lapsed && row.reservation_id) {
          // The PIX lapsed: its reservation is released now rather than at the hold's end.
          // Reservation row first, then its cells: the order of the reservation expiry
          // job and of voucher consumption (cells first deadlocked with the expiry job).
          await trx('reservations').where({ id: row.reservation_id }).forUpdate().first('id');
          await releaseHeldCells(trx, row.reservation_id);
          await trx('reservations').where({ id: row.reservation_id, status: 'active' }).update({ status: 'expired', updated_at: trx.fn.now() });
        }
        return { p: row, f: null };
      });
      if (result.f?.touchedDrawId) deps.draws.invalidateBoard(result.f.touchedDrawId);
      if (result.p.draw_id && result.p.reservation_id) deps.draws.invalidateBoard(result.p.draw_id);
      if (result.f?.fulfilled) deps.logger.info({ paymentId, result: result.f.result }, 'payment fulfilled');
      return result.p;
    },

    async handleMercadoPagoWebhook(req) {
      if (provider.name !== 'mercadopago' || !config.payments.mercadopago.webhookSecret) {
        return { status: 404, body: { error: 'not_found', message: 'Webhook não configurado.' } };
      }
      const body = (req.body ?? {}) as { data?: { id?: unknown }; type?: string; action?: string };
      const dataId = String(req.query['data.id'] ?? body.data?.id ?? '');
      const type = String(req.query.type ?? body.type ?? '');
      const v = verifyWebhookSignature({
        xSignature: req.headers['x-signature'],
        xRequestId: req.headers['x-request-id'],
        dataId,
        secret: config.payments.mercadopago.webhookSecret,
        maxAgeMs: 10 * 60_000,
      });
      if (!v.ok) {
        deps.logger.warn({ reason: v.reason }, 'mercadopago webhook rejected');
        return { status: 401, body: { error: 'invalid_signature', message: 'Assinatura inválida.' } };
      }
      if (type && type !== 'payment') return { status: 200, body: { received: true, ignored: 'type' } };
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(dataId)) return { status: 400, body: { error: 'validation_error', message: 'data.id inválido.' } };
      // Re-fetch before trusting anything: the notification only says "look at payment X".
      let remote: ProviderPayment | null;
      try {
        remote = await provider.fetch(dataId);
      } catch (e) {
        // 5xx: the provider retries the notification later.
        return { status: 503, body: { error: 'provider_unavailable', message: (e as ProviderError).message } };
      }
      if (!remote) return { status: 200, body: { received: true, ignored: 'unknown_payment' } };
      const ours: PaymentRow | undefined = await db('payments').where({ provider: 'mercadopago', provider_payment_id: remote.providerPaymentId }).first();
      if (!ours) return { status: 200, body: { received: true, ignored: 'unknown_payment' } };
      const p = await service.applyProviderState(ours.id, remote);
      return { status: 200, body: { received: true, status: p.status } };
    },

    async approveSandbox(paymentId, actor) {
      if (!deps.sandbox || provider.name !== 'sandbox') throw errors.conflict('sandbox_inactive', 'A aprovação manual só existe com o provedor sandbox.');
      const p: PaymentRow | undefined = await db('payments').where({ id: paymentId }).first();
      if (!p) throw errors.notFound('payment_not_found', 'Pagamento não encontrado.');
      if (p.provider !== 'sandbox' || !p.provider_payment_id) throw errors.conflict('not_sandbox_payment', 'Este pagamento não é do sandbox.');
      await deps.sandbox.approve(p.provider_payment_id);
      await audit(db, { actorUserId: actor.userId ?? null, actor: actor.via, action: 'payment.sandbox_approved', entity: 'payment', entityId: paymentId });
      return service.refresh(paymentId, { force: true });
    },

    async poll(paymentId, job, token) {
      const p = await service.refresh(paymentId, { force: true });
      if (!p || p.status !== 'pending') return p?.status ?? 'missing';
      if (job && token) {
        // Still pending: come back later under the same job id (BullMQ's manual delay).
        const attempt = Number((job.data as { attempt?: number }).attempt ?? 0) + 1;
        await job.updateData({ ...(job.data as object), attempt });
        await job.moveToDelayed(Date.now() + pollDelayMs(attempt), token);
        throw new DelayedError();
      }
      return 'pending';
    },

    async schedulePoll(paymentId, delayMs = 5_000) {
      await deps.queue
        .enqueueUnique('payment.poll', { paymentId }, `payment-poll-${paymentId}`, { delay: delayMs, attempts: 10, backoff: { type: 'exponential', delay: 5_000 } })
        .catch((e) => deps.logger.warn({ paymentId, err: (e as Error).message }, 'could not schedule payment polling; reconciliation will'));
    },

    async reconcile() {
      // A creation that died between our row and the provider call leaves a pending row with no
      // charge behind it: nobody can pay it, so it is cancelled.
      await db('payments')
        .where({ status: 'pending' })
        .whereNull('provider_payment_id')
        .whereNot({ method: 'admin' })
        .where('created_at', '<', db.raw(`now() - interval '5 minutes'`))
        .update({ status: 'cancelled', review_reason: 'criação interrompida antes do provedor', updated_at: db.fn.now() });
      const pending: Array<{ id: number }> = await db('payments').where({ status: 'pending' }).whereNotNull('provider_payment_id').select('id').limit(5000);
      for (const p of pending) await service.schedulePoll(p.id, 1_000);
      // Approved but never fulfilled (a crash between approval and fulfilment is impossible in one
      // transaction, but a manual status fix could leave one): fulfil now.
      const unfulfilled: Array<{ id: number; provider_payment_id: string | null }> = await db('payments as p')
        .leftJoin('payment_fulfilments as f', 'f.payment_id', 'p.id')
        .where('p.status', 'approved')
        .whereNull('f.payment_id')
        .select('p.id')
        .limit(1000);
      for (const u of unfulfilled) {
        const row: PaymentRow = await db('payments').where({ id: u.id }).first();
        const f = await db.transaction((trx) => fulfilPayment(trx, row, { vouchers: deps.vouchers, draws: deps.draws }));
        if (f.touchedDrawId) deps.draws.invalidateBoard(f.touchedDrawId);
      }
      return pending.length;
    },
  };
  return service;
}
