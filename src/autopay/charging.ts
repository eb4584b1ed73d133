import { errors } from '../platform/errors';
import { readAppConfig } from '../platform/app-config';
import { autopayProviderRefusals } from '../platform/metrics';
import { releaseReservation } from '../draws/sales';
import { effectiveTicketPrice } from '../draws/serializers';
import type { CardCharge, ProviderPayment } from '../payments/providers/types';
import { ProviderError } from '../payments/providers/types';
import { attachProviderPaymentId, insertPayment } from '../payments/records';
import { DrawIdParam } from './schema';
import { label, releaseRun, type ProfileRow, type RunRow } from './runs';
import type { AutopayDeps } from './service';

/**
 * Charging the runs of a draw (RULES A4 – A6): claim a due run, charge the saved card once
 * (idempotency key = run id, RULES P8), record the answer, settle it through the payments' one
 * transition function (RULES P3). The runs themselves are made by holds.ts when the draw opens.
 */

export interface ChargeSummary {
  drawId: number;
  processed: number;
  pending: number;
  /** Earliest retry of a run still pending (a transient failure), if any. */
  nextAttemptAt: Date | null;
  byStatus: Record<string, number>;
}

/** One autopay.charge pass: its summary, and when to come back (epoch ms) or null when nothing waits. */
export interface ChargePass extends ChargeSummary {
  retryAt: number | null;
}

/**
 * A run the provider refused as a request (our configuration or request, not the card) is tried
 * again this much later while its hold lasts: an operator may fix the cause meanwhile.
 */
export const PROVIDER_REFUSED_RETRY_MS = 10 * 60_000;

/** What the operator reads on a run the provider refused (console, CLI, logs). */
export function providerRefusalText(httpStatus: number | undefined, message: string): string {
  const what =
    httpStatus === 401 || httpStatus === 403
      ? 'credenciais recusadas ou aplicação sem "Pagamentos automáticos" habilitado'
      : 'requisição recusada (pode ser a aplicação sem "Pagamentos automáticos" habilitado)';
  return `recusa do provedor, não do cartão (HTTP ${httpStatus ?? '?'}): ${what}. Veja docs/DEPLOY.md, "Compra automática com Mercado Pago". Detalhe: ${message}`.slice(
    0,
    1000,
  );
}

/** Retry spacing of a transient failure: 1 s, 2 s, 4 s… at most a minute (until the hold's end). */
export function retryDelayMs(attempts: number): number {
  return Math.min(60_000, 1_000 * 2 ** Math.max(0, attempts - 1));
}

export interface Charging {
  /** Job autopay.charge: one pass over the draw's due runs, and when to come back. */
  chargeDraw(drawId: number): Promise<ChargePass>;
  /** CLI `autopay run <drawId>`: charges what is still pending now (never twice). */
  runDraw(drawId: unknown): Promise<ChargeSummary>;
}

export function createCharging(deps: AutopayDeps): Charging {
  const { db, provider, logger } = deps;
  const concurrency = deps.chargeConcurrency ?? 4;

  /** Phase A: claims a due run (held → charging) and makes sure it has its pending payment. */
  async function claim(runId: number): Promise<{ run: RunRow; profile: ProfileRow; email: string } | null> {
    let touched: number | null = null;
    const out = await db.transaction(async (trx) => {
      const run: RunRow | undefined = await trx('autopay_runs')
        .where({ id: runId })
        .whereIn('status', ['held', 'charging'])
        .where((w) => w.whereNull('next_attempt_at').orWhere('next_attempt_at', '<=', trx.fn.now()))
        .forUpdate()
        .skipLocked()
        .first();
      if (!run) return null;
      // FOR SHARE: a cancel (which updates the profile) waits for this claim, or this claim sees it.
      const profile: ProfileRow | undefined = await trx('autopay_profiles').where({ id: run.profile_id }).forShare().first();
      const decided = run.status === 'charging' && !!run.provider_status;
      if (!decided && run.status === 'held') {
        if (!profile || !profile.active || !profile.provider_card_id) {
          touched = await releaseRun(trx, run, 'compra automática cancelada antes da cobrança');
          return null;
        }
        if (!run.hold_until || new Date(run.hold_until).getTime() <= Date.now()) {
          // Still refused by the provider when the hold ended: the run ends as our failure, not the customer's.
          if ((run.provider_response as { error?: string } | null)?.error === 'provider_refused') {
            touched = await releaseRun(
              trx,
              run,
              `a reserva terminou sem cobrança: ${run.error ?? 'recusa do provedor'}`,
              'provider_refused',
            );
          } else touched = await releaseRun(trx, run, 'a reserva terminou antes da cobrança');
          return null;
        }
        const reservation = run.reservation_id ? await trx('reservations').where({ id: run.reservation_id }).first('status') : null;
        if (reservation?.status !== 'active') {
          touched = await releaseRun(trx, run, 'a reserva não está mais ativa');
          return null;
        }
      }
      const user = await trx('users')
        .where({ id: profile?.user_id ?? 0 })
        .first('email', 'id');
      let paymentId = run.payment_id;
      let amount = run.amount_cents;
      if (!paymentId) {
        const draw = await trx('draws').where({ id: run.draw_id }).first();
        const [cfg, product] = await Promise.all([
          readAppConfig(trx),
          draw?.infoproduct_id ? trx('infoproducts').where({ id: draw.infoproduct_id }).first('price_cents') : null,
        ]);
        amount =
          effectiveTicketPrice(draw, { productPriceCents: product?.price_cents, configTicketPriceCents: cfg.ticket_price_cents }) *
          run.numbers.length;
        const p = await insertPayment(trx, {
          user_id: profile!.user_id,
          kind: 'autopay',
          method: 'card',
          provider: provider.name,
          status: 'pending',
          amount_cents: amount,
          draw_id: run.draw_id,
          reservation_id: run.reservation_id,
          numbers: run.numbers,
          expires_at: run.hold_until,
        });
        paymentId = p.id;
      }
      const [claimed]: RunRow[] = await trx('autopay_runs')
        .where({ id: run.id })
        .update({
          status: 'charging',
          payment_id: paymentId,
          amount_cents: amount,
          provider: provider.name,
          attempts: decided ? run.attempts : run.attempts + 1,
          next_attempt_at: null,
          updated_at: trx.fn.now(),
        })
        .returning('*');
      return { run: claimed, profile: profile!, email: user?.email as string };
    });
    if (touched) deps.draws.invalidateBoard(touched);
    return out;
  }

  /** Phase C: applies the provider's answer through the payments' one transition function, then settles the run. */
  async function settle(run: RunRow, remote: ProviderPayment, statusDetail: string | null) {
    const paymentId = run.payment_id as number;
    if (remote.status === 'pending' || remote.status === 'authorized') {
      // Not decided yet (Mercado Pago outside binary mode, or authorized and not yet captured: RULES
      // P9): the payment's polling and re-check decide; look again later.
      await db('autopay_runs')
        .where({ id: run.id, status: 'charging' })
        .update({ next_attempt_at: db.raw(`now() + interval '30 seconds'`), updated_at: db.fn.now() });
      return;
    }
    // Sells the numbers and credits the coupon on approval; releases the reservation on a decline
    // (state.ts: a lapsed payment's reservation goes back to the board) — one place for both.
    const p = await deps.payments.applyProviderState(paymentId, remote);
    const approved = p.status === 'approved';
    const error = approved ? (p.flagged_for_review ? p.review_reason : null) : `cartão recusado${statusDetail ? ` (${statusDetail})` : ''}`;
    if (!approved) {
      // Anything the reservation still holds (a decline answered before our payment row had a provider id).
      const touched = await db.transaction(async (trx) => {
        if (!run.reservation_id) return null;
        return releaseReservation(trx, run.reservation_id, 'expired');
      });
      if (touched) deps.draws.invalidateBoard(touched);
    }
    await db('autopay_runs')
      .where({ id: run.id, status: 'charging' })
      .update({ status: approved ? 'approved' : 'failed', error, next_attempt_at: null, settled_at: db.fn.now(), updated_at: db.fn.now() });
    deps.draws.invalidateBoard(run.draw_id);
  }

  /** One run: claim, charge once (idempotency key = run id), record the answer, settle. */
  async function chargeRun(runId: number): Promise<void> {
    const c = await claim(runId);
    if (!c) return;
    const { profile, email } = c;
    let run = c.run;
    if (run.provider_status) {
      // The answer is already recorded (a crash after the charge): never charge again.
      if ((run.provider_status === 'pending' || run.provider_status === 'authorized') && run.payment_id) {
        // Pending: asked now; authorized: the payment's re-check asks (RULES P9), we read its row.
        const p = await deps.payments.refresh(run.payment_id, { force: true });
        const remote: ProviderPayment = {
          providerPaymentId: run.provider_payment_id ?? '',
          externalReference: String(run.payment_id),
          status: p.status as ProviderPayment['status'],
          amountCents: p.amount_cents,
          paidAt: p.paid_at,
        };
        if (p.status !== run.provider_status) await db('autopay_runs').where({ id: run.id }).update({ provider_status: p.status });
        return settle(run, remote, null);
      }
      const remote: ProviderPayment = {
        providerPaymentId: run.provider_payment_id ?? '',
        externalReference: String(run.payment_id),
        status: run.provider_status as ProviderPayment['status'],
        amountCents: run.amount_cents ?? 0,
        paidAt: run.provider_status === 'approved' ? new Date() : null,
      };
      return settle(run, remote, (run.provider_response?.status_detail as string) ?? null);
    }
    if (!provider.chargeCard) throw new Error(`provider ${provider.name} cannot charge saved cards`);
    // Phase B: the provider call under the run's row lock (a second processor skips it; a crash
    // drops the lock with the connection, and the retry uses the same idempotency key).
    let outcome: { charge?: CardCharge; retry?: string; fail?: string; refused?: { text: string; httpStatus?: number } } | null = null;
    let touched: number | null = null;
    await db.transaction(async (trx) => {
      const locked: RunRow | undefined = await trx('autopay_runs')
        .where({ id: run.id, status: 'charging' })
        .whereNull('provider_status')
        .forUpdate()
        .skipLocked()
        .first();
      if (!locked) return;
      try {
        const charge = await provider.chargeCard!({
          idempotencyKey: `cotaverde-autopay-run-${run.id}`,
          paymentId: run.payment_id as number,
          amountCents: run.amount_cents as number,
          description: `Compra automática: números ${run.numbers.map(label).join(', ')} do sorteio #${run.draw_id}`,
          customerId: profile.provider_customer_id as string,
          cardId: profile.provider_card_id as string,
          brand: profile.brand,
          payer: { email, docNumber: profile.doc_number },
        });
        [run] = await trx('autopay_runs')
          .where({ id: run.id })
          .update({
            provider_payment_id: charge.providerPaymentId || null,
            provider_status: charge.status,
            provider_response: JSON.stringify(charge.answer),
            error: null,
            updated_at: trx.fn.now(),
          })
          .returning('*');
        if (charge.providerPaymentId) {
          await attachProviderPaymentId(trx, run.payment_id!, charge.providerPaymentId);
        }
        outcome = { charge };
      } catch (e) {
        const err = e as Error;
        const retryable = e instanceof ProviderError ? e.retryable : true;
        const answer = JSON.stringify({
          error: e instanceof ProviderError ? (e.code ?? 'provider_error') : 'unreachable',
          message: err.message,
          ...(e instanceof ProviderError && e.httpStatus ? { http_status: e.httpStatus } : {}),
        });
        if (e instanceof ProviderError && e.code === 'provider_refused') {
          // The provider refused the request itself: our side (configuration, request), never the
          // customer's card. The run waits for a fix and tries again while the hold lasts; the
          // customer's numbers stay held and the profile untouched (RULES A6).
          const text = providerRefusalText(e.httpStatus, err.message);
          outcome = { refused: { text, httpStatus: e.httpStatus } };
          const next = Date.now() + PROVIDER_REFUSED_RETRY_MS;
          if (locked.hold_until && next < new Date(locked.hold_until).getTime()) {
            await trx('autopay_runs')
              .where({ id: run.id })
              .update({
                status: 'held',
                next_attempt_at: new Date(next),
                error: text,
                provider_response: answer,
                updated_at: trx.fn.now(),
              });
          } else {
            await trx('autopay_runs').where({ id: run.id }).update({ provider_response: answer });
            touched = await releaseRun(trx, locked, `a reserva terminou sem cobrança: ${text}`, 'provider_refused');
          }
          return;
        }
        const next = Date.now() + retryDelayMs(locked.attempts);
        if (retryable && locked.hold_until && next < new Date(locked.hold_until).getTime()) {
          await trx('autopay_runs')
            .where({ id: run.id })
            .update({
              status: 'held',
              next_attempt_at: new Date(next),
              error: `falha temporária (tentativa ${locked.attempts}): ${err.message}`,
              provider_response: answer,
              updated_at: trx.fn.now(),
            });
          outcome = { retry: err.message };
        } else {
          await trx('autopay_runs').where({ id: run.id }).update({ provider_response: answer });
          touched = await releaseRun(
            trx,
            locked,
            retryable ? `falhas temporárias até o fim da reserva: ${err.message}` : `o provedor recusou a cobrança: ${err.message}`,
          );
          outcome = { fail: err.message };
        }
      }
    });
    if (touched) deps.draws.invalidateBoard(touched);
    const o = outcome as { charge?: CardCharge; retry?: string; fail?: string; refused?: { text: string; httpStatus?: number } } | null;
    if (o?.refused) {
      autopayProviderRefusals.inc({ provider: provider.name, http_status: String(o.refused.httpStatus ?? 'unknown') });
      logger.error(
        {
          runId: run.id,
          drawId: run.draw_id,
          httpStatus: o.refused.httpStatus,
          action:
            'ask Mercado Pago to enable "Pagamentos automáticos" for the application, check MERCADOPAGO_ACCESS_TOKEN (docs/DEPLOY.md)',
        },
        `autopay: the payment provider refused the charge request (not the card): ${o.refused.text}`,
      );
    }
    if (o?.retry) logger.warn({ runId: run.id, drawId: run.draw_id, err: o.retry }, 'autopay charge failed transiently; will retry');
    if (o?.charge) await settle(run, o.charge, o.charge.statusDetail);
  }

  async function pendingOf(drawId: number) {
    const r = await db('autopay_runs')
      .where({ draw_id: drawId })
      .whereIn('status', ['held', 'charging'])
      .select(db.raw('count(*)::int AS c'), db.raw('min(next_attempt_at) AS next'))
      .first();
    return { pending: Number(r?.c ?? 0), next: r?.next ? new Date(r.next) : null };
  }

  async function chargeDue(drawId: number): Promise<ChargeSummary> {
    const due: Array<{ id: number }> = await db('autopay_runs')
      .where({ draw_id: drawId })
      .whereIn('status', ['held', 'charging'])
      .where((w) => w.whereNull('next_attempt_at').orWhere('next_attempt_at', '<=', db.fn.now()))
      .orderBy('id')
      .select('id');
    let i = 0;
    const workers = Array.from({ length: Math.min(concurrency, due.length) }, async () => {
      while (i < due.length) {
        const id = due[i++].id;
        try {
          await chargeRun(id);
        } catch (e) {
          logger.error({ runId: id, drawId, err: (e as Error).message }, 'autopay run failed unexpectedly; it stays pending');
        }
      }
    });
    await Promise.all(workers);
    const { pending, next } = await pendingOf(drawId);
    const counts: Array<{ status: string; c: number }> = await db('autopay_runs')
      .where({ draw_id: drawId })
      .groupBy('status')
      .select('status', db.raw('count(*)::int AS c'));
    return {
      drawId,
      processed: due.length,
      pending,
      nextAttemptAt: next,
      byStatus: Object.fromEntries(counts.map((r) => [r.status, Number(r.c)])),
    };
  }

  return {
    async chargeDraw(drawId) {
      const s = await chargeDue(drawId);
      // Retries wait (transient failures): come back at the earliest one.
      const retryAt = s.pending ? Math.max(Date.now() + 250, s.nextAttemptAt?.getTime() ?? Date.now() + 1_000) : null;
      if (s.processed || s.pending) logger.info({ ...s }, 'autopay charge pass');
      return { ...s, retryAt };
    },

    async runDraw(raw) {
      const drawId = DrawIdParam.parse(raw);
      const d = await db('draws').where({ id: drawId }).first('id');
      if (!d) throw errors.notFound('draw_not_found', 'Sorteio não encontrado.');
      return chargeDue(drawId);
    },
  };
}
