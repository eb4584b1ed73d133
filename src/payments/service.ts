import { setTimeout as sleep } from 'node:timers/promises';
import { DomainError, errors } from '../platform/errors';
import { audit } from '../platform/audit';
import { fulfilPayment, type PaymentRow } from './fulfilment';
import { ProviderError, type ProviderPayment } from './providers/types';
import { ConfirmPurchaseCommand, PaymentId, RefundCommand } from './schema';
import { pixView } from './serializers';
import { createApplyProviderState } from './state';
import { createChecks, type PollOutcome, type RecheckOutcome, type RefreshOptions } from './checks';
import { createCheckout } from './checkout';
import type { PaymentsDeps } from './deps';

// The module's public names, from one place.
export { RefundCommand } from './schema';
export {
  AdminGrantCommand,
  ConfirmPurchaseCommand,
  InfoproductPaymentCommand,
  MAX_EBOOKS_PER_PURCHASE,
  PaymentId,
  ReservationPixCommand,
} from './schema';
export { pixView } from './serializers';
export { pollDelayMs, type PollOutcome, type RecheckOutcome } from './checks';
export { TRANSITIONS } from './state';

/** How long a refund waits for a concurrent refund of the same payment to finish (the provider call times out at 10 s). */
const REFUND_WAIT_MS = 30_000;
const REFUND_POLL_MS = 100;
/** A refund claim this old was left by a process that died: the next refund takes it over. */
const REFUND_CLAIM_STALE_S = 120;

export interface PaymentsService {
  grantVouchers(
    input: unknown,
    actor: { userId?: number | null; via: 'cli' | 'admin' },
  ): Promise<{ paymentId: number; userId: number; infoproductId: number; quantity: number; balance: number }>;
  createInfoproductPayment(userId: number, input: unknown): Promise<ReturnType<typeof pixView>>;
  createReservationPix(userId: number, input: unknown): Promise<ReturnType<typeof pixView>>;
  status(userId: number, paymentId: unknown): Promise<{ status: string; paymentId: number }>;
  confirmPurchase(userId: number, input: unknown): Promise<Record<string, unknown>>;
  /** Asks the provider and applies what it says (throttled unless force; lapsed payments within their window unless anyAge). */
  refresh(paymentId: number, opts?: RefreshOptions): Promise<PaymentRow>;
  /** The one transition function: moves a payment to the provider's status and fulfils/revokes, idempotently. */
  applyProviderState(
    paymentId: number,
    remote: ProviderPayment,
    by?: { actor: 'system' | 'cli' | 'admin'; actorUserId?: number | null; reason?: string },
  ): Promise<PaymentRow>;
  handleProviderNotification(req: {
    headers: Record<string, string | undefined>;
    query: Record<string, unknown>;
    body: unknown;
  }): Promise<{ status: number; body: Record<string, unknown> }>;
  /** Admin console: sandbox only, marks the charge paid and checks. */
  approveSandbox(paymentId: number, actor: { userId?: number | null; via: 'cli' | 'admin' }): Promise<PaymentRow>;
  /** `cotaverde payments approve`: sandbox approval when sandbox, then a forced check with any provider. */
  approve(
    paymentId: number,
    actor: { userId?: number | null; via: 'cli' | 'admin' },
  ): Promise<{ payment: PaymentRow; approvedAtBank: boolean }>;
  /**
   * The operator's refund (RULES RF6, RF7): asks the provider to refund (once per payment: the idempotency key is
   * the payment's), then applies the same transition as a refund notification, audited with the
   * reason. Refunding a refunded (or charged-back) payment changes nothing; one not approved is a 409.
   * Of concurrent refunds of one payment exactly one asks the provider and answers `already: false`;
   * the others wait for its outcome and answer `already: true` (409 `refund_in_progress` when it has
   * not finished within 30 s).
   */
  refund(paymentId: number, input: unknown, actor: { userId?: number | null; via: 'cli' | 'admin' }): Promise<RefundOutcome>;
  /** One check now; the payment's status after it. */
  poll(paymentId: number): Promise<string>;
  /** One pass of the payment.poll job: the status and when to come back (the handler re-delays the job). */
  pollPass(paymentId: number, attempt?: number): Promise<PollOutcome>;
  reconcile(): Promise<number>;
  /** RULES P11: asks the provider again about approved payments (due ones, one, or those of the last days). */
  recheck(o?: { id?: number; sinceDays?: number }): Promise<RecheckOutcome>;
  schedulePoll(paymentId: number, delayMs?: number): Promise<void>;
  /** The provider's browser SDK origins, for the Content-Security-Policy. */
  browserOrigins(): { script: string[]; connect: string[]; frame: string[] };
}

export interface RefundOutcome {
  payment: PaymentRow;
  /** The payment is refunded now (false: it was already refunded or charged back, or the provider has not finished). */
  refunded: boolean;
  /** Already refunded or charged back before this call: nothing changed. */
  already: boolean;
  /** The provider accepted the refund but still shows the payment approved: a notification will finish it. */
  pending: boolean;
}

/**
 * The payments module's one service. Its parts live beside it: checkout.ts (creating charges),
 * state.ts (the transition function), checks.ts (asking the provider: status, poll, reconcile),
 * fulfilment.ts (what an approval delivers).
 */
export function createPaymentsService(deps: PaymentsDeps): PaymentsService {
  const { db, provider } = deps;
  const applyProviderState = createApplyProviderState(deps);
  const checks = createChecks(deps, (id, remote) => applyProviderState(id, remote));
  const checkout = createCheckout(deps, (id) => checks.schedulePoll(id));

  async function findOwned(userId: number, paymentId: number): Promise<PaymentRow> {
    const p: PaymentRow | undefined = await db('payments').where({ id: paymentId }).first();
    // Another user's payment answers exactly like a missing one.
    if (!p || p.user_id !== userId) throw errors.notFound('payment_not_found', 'Pagamento não encontrado.');
    return p;
  }

  /** A payment the provider may still change: pending, or lapsed (refresh decides whether it is time to ask). */
  const askable = (p: PaymentRow) =>
    p.status === 'pending' || (['expired', 'cancelled', 'rejected'].includes(p.status) && !!p.provider_payment_id);

  /** The operator's refund once this call holds the payment's refund claim (see refund). */
  async function refundClaimed(
    p: PaymentRow,
    reason: string,
    actor: { userId?: number | null; via: 'cli' | 'admin' },
  ): Promise<RefundOutcome> {
    const paymentId = p.id;
    let remote: ProviderPayment | null;
    if (!p.provider_payment_id) {
      // Nothing was charged at a provider (an admin's assignment): the refund is ours alone.
      remote = {
        providerPaymentId: '',
        externalReference: String(p.id),
        status: 'refunded',
        amountCents: p.amount_cents,
        paidAt: p.paid_at,
      };
    } else {
      if (p.provider !== provider.name || !provider.refund) {
        throw errors.conflict(
          'provider_mismatch',
          `Este pagamento é do provedor ${p.provider}, que não está configurado aqui: reembolse por ele.`,
        );
      }
      try {
        remote = await provider.refund(p.provider_payment_id, { idempotencyKey: `cotaverde-refund-${p.id}` });
      } catch (e) {
        if (e instanceof ProviderError && !e.retryable) {
          deps.logger.warn({ paymentId, err: e.message }, 'provider refused the refund');
          throw errors.conflict('refund_refused', 'O provedor de pagamento recusou o reembolso. Veja o pagamento no painel do provedor.');
        }
        deps.logger.warn({ paymentId, err: (e as Error).message }, 'refund: provider unreachable');
        throw new DomainError(
          'unavailable',
          'provider_unavailable',
          'O provedor de pagamento está indisponível no momento. Tente de novo em instantes.',
        );
      }
      if (!remote) throw errors.conflict('refund_refused', 'O provedor de pagamento não conhece este pagamento.');
    }
    await audit(db, {
      actorUserId: actor.userId ?? null,
      actor: actor.via,
      action: 'payment.refund_requested',
      entity: 'payment',
      entityId: paymentId,
      data: { reason, provider: p.provider, provider_status: remote.status },
    });
    if (remote.status !== 'refunded' && remote.status !== 'charged_back') {
      return { payment: p, refunded: false, already: false, pending: true };
    }
    // A notification may have applied the refund meanwhile (the transition is then a no-op):
    // still this call's refund, the one that asked the provider.
    const after = await applyProviderState(paymentId, remote, { actor: actor.via, actorUserId: actor.userId ?? null, reason });
    return { payment: after, refunded: after.status === 'refunded', already: false, pending: false };
  }

  const service: PaymentsService = {
    grantVouchers: checkout.grantVouchers,
    createInfoproductPayment: checkout.createInfoproductPayment,
    createReservationPix: checkout.createReservationPix,
    refresh: checks.refresh,
    poll: checks.poll,
    pollPass: checks.pollPass,
    reconcile: checks.reconcile,
    recheck: checks.recheck,
    schedulePoll: checks.schedulePoll,
    approve: checks.approve,
    applyProviderState,
    browserOrigins: () => provider.browserOrigins,

    async status(userId, rawId) {
      const id = PaymentId.parse(rawId);
      let p = await findOwned(userId, id);
      if (askable(p)) p = await checks.refresh(p.id);
      return { status: p.status, paymentId: p.id };
    },

    async confirmPurchase(userId, input) {
      const cmd = ConfirmPurchaseCommand.parse(input);
      let p = await findOwned(userId, cmd.payment_id);
      if (cmd.infoproduct_id && p.infoproduct_id !== cmd.infoproduct_id)
        throw errors.validation('infoproduct_mismatch', 'Este pagamento é de outro e-book.');
      // Same per-payment throttle as the status call: confirm can never multiply provider calls.
      if (askable(p)) p = await checks.refresh(p.id);
      if (p.status !== 'approved')
        throw errors.conflict('payment_not_approved', 'O pagamento ainda não foi aprovado.', { status: p.status });
      if (p.fulfilment_on_hold)
        throw errors.conflict('payment_under_review', 'O pagamento está em análise. Fale com o suporte.', { status: p.status });
      // Normally already fulfilled on approval; this only makes sure (idempotent).
      const f = await db.transaction((trx) =>
        fulfilPayment(trx, p, { vouchers: deps.vouchers, draws: deps.draws, receipts: deps.receipts }),
      );
      if (f.touchedDrawId) deps.draws.invalidateBoard(f.touchedDrawId);
      if (f.receiptOutboxId) await deps.receipts?.dispatch([f.receiptOutboxId]);
      let drawId: number | null = null;
      let remaining: number | null = null;
      if (p.infoproduct_id) {
        // A paused product (admin closed its draw) has no draw to pick in: the vouchers wait for the next one.
        const d = await deps.draws.ensureOpenDraw(p.infoproduct_id);
        if (d) {
          drawId = d.id;
          remaining = (await deps.vouchers.allowance(userId, d.id)).remaining;
        }
      }
      return {
        ok: true,
        payment_id: p.id,
        status: p.status,
        vouchers_granted: (f.result.vouchers as number) ?? 0,
        infoproduct_id: p.infoproduct_id,
        draw_id: drawId,
        drawId,
        remaining,
      };
    },

    async handleProviderNotification(req) {
      if (!provider.readNotification) return { status: 404, body: { error: 'not_found', message: 'Webhook não configurado.' } };
      // Every call is only a hint of which payments to ask about (RULES P8): signed or not, webhook
      // or IPN format, any topic. What we apply is what the provider answers when asked again.
      let hint;
      try {
        hint = await provider.readNotification(req);
      } catch (e) {
        deps.logger.warn({ err: (e as Error).message }, 'payment notification: could not read it from the provider');
        return { status: 503, body: { error: 'provider_unavailable', message: 'O provedor de pagamento está indisponível no momento.' } };
      }
      if (!hint.signed) {
        // Unsigned, stale or IPN-format: still a hint, but all of them together are rate limited.
        try {
          await deps.rateLimits.hit('unsignedNotification', 'all');
        } catch {
          deps.logger.warn({ topic: hint.topic, reason: hint.signatureProblem }, 'payment notification: unsigned hints rate limited');
          return { status: 200, body: { received: true, ignored: 'rate_limited' } };
        }
      }
      if (!hint.providerPaymentIds.length)
        return { status: 200, body: { received: true, ignored: hint.topic === 'payment' ? 'invalid_id' : 'topic' } };
      const statuses: string[] = [];
      for (const id of hint.providerPaymentIds.slice(0, 10)) {
        const ours: PaymentRow | undefined = await db('payments').where({ provider: provider.name, provider_payment_id: id }).first('id');
        if (!ours) continue;
        let remote: ProviderPayment | null;
        try {
          remote = await provider.fetch(id);
        } catch (e) {
          // 5xx: the provider retries the notification later. What went wrong stays in our logs.
          deps.logger.warn({ providerPaymentId: id, err: (e as Error).message }, 'payment notification: re-fetch failed');
          return { status: 503, body: { error: 'provider_unavailable', message: 'O provedor de pagamento está indisponível no momento.' } };
        }
        if (!remote) continue;
        statuses.push((await applyProviderState(ours.id, remote)).status);
      }
      if (!statuses.length) return { status: 200, body: { received: true, ignored: 'unknown_payment' } };
      return { status: 200, body: { received: true, status: statuses[0] } };
    },

    async refund(paymentId, input, actor) {
      const { reason } = RefundCommand.parse(input);
      const waitUntil = Date.now() + REFUND_WAIT_MS;
      for (let round = 0; ; round++) {
        const p: PaymentRow | undefined = await db('payments').where({ id: paymentId }).first();
        if (!p) throw errors.notFound('payment_not_found', 'Pagamento não encontrado.');
        if (p.status === 'refunded' || p.status === 'charged_back') return { payment: p, refunded: false, already: true, pending: false };
        if (p.status !== 'approved') {
          throw errors.conflict('payment_not_approved', `Só um pagamento aprovado pode ser reembolsado; este está ${p.status}.`, {
            status: p.status,
          });
        }
        // RULES RF8: a R$ 0,00 payment (an admin's grant of numbers) has no money to give back.
        if (p.amount_cents === 0)
          throw errors.conflict(
            'nothing_to_refund',
            'Este pagamento é de R$ 0,00 (uma atribuição do administrador): não há valor a reembolsar.',
          );
        // RULES RF6, refunding twice changes nothing: the decision "this call refunds" is one
        // conditional update, taken by exactly one of concurrent refunds. The provider call runs
        // outside any transaction (the claim, not a row lock, keeps the others out meanwhile).
        const [claimed]: Array<PaymentRow & { refund_claimed_at: Date }> = await db('payments')
          .where({ id: paymentId, status: 'approved' })
          .where((w) =>
            w
              .whereNull('refund_claimed_at')
              .orWhere('refund_claimed_at', '<', db.raw(`now() - make_interval(secs => ?)`, [REFUND_CLAIM_STALE_S])),
          )
          .update({ refund_claimed_at: db.raw(`date_trunc('milliseconds', clock_timestamp())`) })
          .returning('*');
        if (claimed) {
          try {
            return await refundClaimed(claimed, reason, actor);
          } finally {
            await db('payments').where({ id: paymentId, refund_claimed_at: claimed.refund_claimed_at }).update({ refund_claimed_at: null });
          }
        }
        // Another refund of this payment is under way: its outcome is this call's answer (already
        // refunded), or, when it failed or the provider has not finished, this call tries again.
        if (round === 0) deps.logger.info({ paymentId }, 'refund: another refund of this payment is under way; waiting for its outcome');
        if (Date.now() >= waitUntil) {
          throw errors.conflict(
            'refund_in_progress',
            'Um reembolso deste pagamento já está em andamento. Veja o pagamento de novo em instantes.',
          );
        }
        await sleep(REFUND_POLL_MS);
      }
    },

    async approveSandbox(paymentId, actor) {
      if (!deps.sandbox || provider.name !== 'sandbox')
        throw errors.conflict('sandbox_inactive', 'A aprovação manual só existe com o provedor sandbox.');
      const p: PaymentRow | undefined = await db('payments').where({ id: paymentId }).first();
      if (!p) throw errors.notFound('payment_not_found', 'Pagamento não encontrado.');
      if (p.provider !== 'sandbox' || !p.provider_payment_id)
        throw errors.conflict('not_sandbox_payment', 'Este pagamento não é do sandbox.');
      return (await checks.approve(paymentId, actor)).payment;
    },
  };
  return service;
}
