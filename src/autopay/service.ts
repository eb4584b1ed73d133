import type { Config } from '../platform/config';
import type { Db, Trx } from '../platform/db';
import { isUniqueViolation } from '../platform/db';
import { DomainError, errors } from '../platform/errors';
import { audit } from '../platform/audit';
import type { Logger } from '../platform/logger';
import type { JobQueue } from '../platform/queue';
import { readAppConfig } from '../platform/app-config';
import { autopayProviderRefusals } from '../platform/metrics';
import type { DrawsService } from '../draws/service';
import { releaseReservation } from '../draws/sales';
import { effectiveTicketPrice } from '../draws/serializers';
import type { PaymentsService } from '../payments/service';
import type { CardCharge, PaymentProvider, ProviderPayment } from '../payments/providers/types';
import { ProviderError } from '../payments/providers/types';
import { attachProviderPaymentId, cancelUnsentPayment, insertPayment } from '../payments/records';
import type { SandboxProvider } from '../payments/providers/sandbox';
import { AUTOPAY_MESSAGES as M, cardBrand, isValidDoc, maskDoc } from '../shared/autopay';
import { onlyDigits } from '../shared/validation';
import type { AutopayCardConfig, AutopayClaims, AutopayProfile, AutopayRunView, AutopayRunsPage, AutopaySaveResult, SandboxCardToken } from '../shared/api/autopay';
import { CARD_CLEARED, DrawIdParam, RunsQuery, SandboxTokenCommand, SaveAutopayCommand, isMaskedDoc } from './schema';

export interface AutopayDeps {
  db: Db;
  config: Config;
  logger: Logger;
  queue: JobQueue;
  draws: DrawsService;
  payments: PaymentsService;
  provider: PaymentProvider;
  /** The sandbox provider when it is the active one (tokenizer, saved cards), else null. */
  sandbox: SandboxProvider | null;
  /** How many runs of one draw are charged at once (each holds up to 2 DB connections). */
  chargeConcurrency?: number;
}

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

export interface AutopayService {
  /** An account was anonymized: its saved card's holder and document and its captive numbers go. */
  forgetUser(trx: Trx, user: { id: number }): Promise<void>;
  cardConfig(): AutopayCardConfig;
  tokenize(userId: number, input: unknown): Promise<SandboxCardToken>;
  get(userId: number): Promise<AutopayProfile>;
  save(userId: number, input: unknown): Promise<AutopaySaveResult>;
  cancel(userId: number): Promise<AutopaySaveResult>;
  claims(userId: number): Promise<AutopayClaims>;
  /**
   * Job autopay.charge: charges every due run of the draw. While retries wait (transient
   * failures), `retryAt` says when to come back; the job handler re-delays the job.
   */
  chargeDraw(drawId: number): Promise<ChargePass>;
  /** Job outbox.relay: domain events → jobs (dispatched_at), plus draws with runs still pending. */
  relay(): Promise<number>;
  listRuns(query: unknown): Promise<AutopayRunsPage>;
  /** CLI `autopay run <drawId>`: charges what is still pending now (never twice). */
  runDraw(drawId: unknown): Promise<ChargeSummary>;
}

interface ProfileRow {
  id: number;
  user_id: number;
  active: boolean;
  provider: 'sandbox' | 'mercadopago';
  provider_customer_id: string | null;
  provider_card_id: string | null;
  brand: string | null;
  last4: string | null;
  holder_name: string | null;
  doc_number: string | null;
}

interface RunRow {
  id: number;
  profile_id: number;
  draw_id: number;
  status: string;
  numbers: number[];
  reservation_id: number | null;
  payment_id: number | null;
  error: string | null;
  hold_until: Date | null;
  attempts: number;
  next_attempt_at: Date | null;
  amount_cents: number | null;
  provider: string | null;
  provider_payment_id: string | null;
  provider_status: string | null;
  provider_response: Record<string, unknown> | null;
}

/** Retry spacing of a transient failure: 1 s, 2 s, 4 s… at most a minute (until the hold's end). */
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
  return `recusa do provedor, não do cartão (HTTP ${httpStatus ?? '?'}): ${what}. Veja docs/DEPLOY.md, "Compra automática com Mercado Pago". Detalhe: ${message}`.slice(0, 1000);
}

export function retryDelayMs(attempts: number): number {
  return Math.min(60_000, 1_000 * 2 ** Math.max(0, attempts - 1));
}

const label = (n: number) => String(n).padStart(2, '0');
const EVENT_JOBS = ['draw.opened'] as const;

export function createAutopayService(deps: AutopayDeps): AutopayService {
  const { db, provider, logger } = deps;
  const concurrency = deps.chargeConcurrency ?? 4;

  const emptyProfile = (): AutopayProfile => ({ active: false, numbers: [], brand: null, last4: null, holder_name: null, doc_number: null, has_card: false });

  async function numbersOf(profileId: number): Promise<number[]> {
    const rows: Array<{ n: number }> = await db('autopay_captive_numbers').where({ profile_id: profileId }).orderBy('n').select('n');
    return rows.map((r) => r.n);
  }

  const cardOf = (p: Pick<ProfileRow, 'provider_card_id' | 'brand' | 'last4'> | undefined) => ({
    has_card: !!p?.provider_card_id,
    brand: p?.provider_card_id ? p.brand : null,
    last4: p?.provider_card_id ? p.last4 : null,
  });

  /** Numbers among `numbers` that are another active profile's captive numbers. */
  async function takenByOthers(conn: Db | Trx, userId: number, numbers: number[]): Promise<number[]> {
    if (!numbers.length) return [];
    const rows: Array<{ n: number }> = await conn('autopay_captive_numbers as c')
      .join('autopay_profiles as p', 'p.id', 'c.profile_id')
      .where('c.active', true)
      .whereNot('p.user_id', userId)
      .whereIn('c.n', numbers)
      .orderBy('c.n')
      .select('c.n');
    return rows.map((r) => r.n);
  }

  const conflict = (ns: number[]) =>
    errors.conflict('numbers_conflict', `${M.numbersTaken} Escolha outros no lugar de: ${ns.map(label).join(', ')}.`, { conflicts: ns });

  /**
   * Releases a run that will not be charged: its held cells go back to the board, its
   * reservation ends, its payment (never charged) is cancelled. In the caller's transaction,
   * with the run row locked.
   */
  async function releaseRun(trx: Trx, run: RunRow, reason: string, status: 'released' | 'provider_refused' = 'released'): Promise<number | null> {
    let drawId: number | null = null;
    if (run.reservation_id) {
      drawId = await releaseReservation(trx, run.reservation_id, 'cancelled');
    }
    if (run.payment_id) {
      await cancelUnsentPayment(trx, run.payment_id, `compra automática: ${reason}`);
    }
    await trx('autopay_runs')
      .where({ id: run.id })
      .update({ status, error: reason, next_attempt_at: null, settled_at: trx.fn.now(), updated_at: trx.fn.now() });
    return drawId;
  }

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
            touched = await releaseRun(trx, run, `a reserva terminou sem cobrança: ${run.error ?? 'recusa do provedor'}`, 'provider_refused');
          } else touched = await releaseRun(trx, run, 'a reserva terminou antes da cobrança');
          return null;
        }
        const reservation = run.reservation_id ? await trx('reservations').where({ id: run.reservation_id }).first('status') : null;
        if (reservation?.status !== 'active') {
          touched = await releaseRun(trx, run, 'a reserva não está mais ativa');
          return null;
        }
      }
      const user = await trx('users').where({ id: profile?.user_id ?? 0 }).first('email', 'id');
      let paymentId = run.payment_id;
      let amount = run.amount_cents;
      if (!paymentId) {
        const draw = await trx('draws').where({ id: run.draw_id }).first();
        const [cfg, product] = await Promise.all([
          readAppConfig(trx),
          draw?.infoproduct_id ? trx('infoproducts').where({ id: draw.infoproduct_id }).first('price_cents') : null,
        ]);
        amount = effectiveTicketPrice(draw, { productPriceCents: product?.price_cents, configTicketPriceCents: cfg.ticket_price_cents }) * run.numbers.length;
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
      await db('autopay_runs').where({ id: run.id, status: 'charging' }).update({ next_attempt_at: db.raw(`now() + interval '30 seconds'`), updated_at: db.fn.now() });
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
        const remote: ProviderPayment = { providerPaymentId: run.provider_payment_id ?? '', externalReference: String(run.payment_id), status: p.status as ProviderPayment['status'], amountCents: p.amount_cents, paidAt: p.paid_at };
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
      const locked: RunRow | undefined = await trx('autopay_runs').where({ id: run.id, status: 'charging' }).whereNull('provider_status').forUpdate().skipLocked().first();
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
        const answer = JSON.stringify({ error: e instanceof ProviderError ? (e.code ?? 'provider_error') : 'unreachable', message: err.message, ...(e instanceof ProviderError && e.httpStatus ? { http_status: e.httpStatus } : {}) });
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
              .update({ status: 'held', next_attempt_at: new Date(next), error: text, provider_response: answer, updated_at: trx.fn.now() });
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
            .update({ status: 'held', next_attempt_at: new Date(next), error: `falha temporária (tentativa ${locked.attempts}): ${err.message}`, provider_response: answer, updated_at: trx.fn.now() });
          outcome = { retry: err.message };
        } else {
          await trx('autopay_runs').where({ id: run.id }).update({ provider_response: answer });
          touched = await releaseRun(trx, locked, retryable ? `falhas temporárias até o fim da reserva: ${err.message}` : `o provedor recusou a cobrança: ${err.message}`);
          outcome = { fail: err.message };
        }
      }
    });
    if (touched) deps.draws.invalidateBoard(touched);
    const o = outcome as { charge?: CardCharge; retry?: string; fail?: string; refused?: { text: string; httpStatus?: number } } | null;
    if (o?.refused) {
      autopayProviderRefusals.inc({ provider: provider.name, http_status: String(o.refused.httpStatus ?? 'unknown') });
      logger.error(
        { runId: run.id, drawId: run.draw_id, httpStatus: o.refused.httpStatus, action: 'ask Mercado Pago to enable "Pagamentos automáticos" for the application, check MERCADOPAGO_ACCESS_TOKEN (docs/DEPLOY.md)' },
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
    const counts: Array<{ status: string; c: number }> = await db('autopay_runs').where({ draw_id: drawId }).groupBy('status').select('status', db.raw('count(*)::int AS c'));
    return { drawId, processed: due.length, pending, nextAttemptAt: next, byStatus: Object.fromEntries(counts.map((r) => [r.status, Number(r.c)])) };
  }

  const service: AutopayService = {
    async forgetUser(trx, user) {
      const profile = await trx('autopay_profiles').where({ user_id: user.id }).first('id');
      if (!profile) return;
      await trx('autopay_profiles').where({ id: profile.id }).update({ active: false, provider_customer_id: null, ...CARD_CLEARED, updated_at: trx.fn.now() });
      await trx('autopay_captive_numbers').where({ profile_id: profile.id }).update({ active: false });
    },

    cardConfig() {
      return provider.cardConfig() as ReturnType<AutopayService['cardConfig']>;
    },

    async tokenize(userId, input) {
      if (!deps.sandbox || provider.name !== 'sandbox') throw errors.notFound('not_found', 'Rota não encontrada.');
      const v = SandboxTokenCommand.parse(input);
      return deps.sandbox.tokenizeCard({
        userId,
        cardDigits: v.card_number,
        brand: cardBrand(v.card_number),
        expirationMonth: v.expiration_month,
        expirationYear: v.expiration_year,
        holderName: v.cardholder_name,
        docNumber: onlyDigits(v.doc_number),
      });
    },

    async get(userId) {
      const p: ProfileRow | undefined = await db('autopay_profiles').where({ user_id: userId }).first();
      if (!p) return emptyProfile();
      return { active: p.active, numbers: await numbersOf(p.id), ...cardOf(p), holder_name: p.holder_name, doc_number: maskDoc(p.doc_number) };
    },

    async save(userId, input) {
      const cmd = SaveAutopayCommand.parse(input);
      const token = cmd.card_token || null;
      const holder = cmd.holder_name?.trim() || null;
      const docRaw = cmd.doc_number?.trim() || null;
      const docGiven = docRaw && !isMaskedDoc(docRaw) ? onlyDigits(docRaw) : null;
      if (token && (!holder || !docRaw)) throw errors.validation('card_incomplete', M.cardIncomplete);
      if (docGiven !== null && !isValidDoc(docGiven)) throw errors.validation('validation_error', M.docInvalid, { details: [{ path: 'doc_number', message: M.docInvalid, code: 'custom' }] });
      if (docRaw && !docGiven && token) throw errors.validation('validation_error', M.docInvalid, { details: [{ path: 'doc_number', message: M.docInvalid, code: 'custom' }] });
      // Cheap check first: a lost race need not spend the card token.
      if (cmd.active) {
        const taken = await takenByOthers(db, userId, cmd.numbers);
        if (taken.length) throw conflict(taken);
      }
      const existing: ProfileRow | undefined = await db('autopay_profiles').where({ user_id: userId }).first();
      let card: { customerId: string; cardId: string; brand: string; last4: string } | null = null;
      if (token) {
        if (!provider.saveCard) throw errors.conflict('card_unsupported', M.saveFailedCard);
        const user = await db('users').where({ id: userId }).first('email', 'name');
        try {
          card = await provider.saveCard({
            userId,
            email: user.email,
            name: user.name,
            token,
            holderName: holder!,
            docNumber: docGiven!,
            customerId: existing?.provider === provider.name ? existing.provider_customer_id : null,
          });
        } catch (e) {
          if (e instanceof ProviderError && !e.retryable) throw errors.validation('card_token_invalid', M.tokenInvalid);
          logger.warn({ userId, err: (e as Error).message }, 'autopay: saving the card at the provider failed');
          throw new DomainError('unavailable', 'provider_unavailable', 'O provedor de pagamento está indisponível no momento. Tente novamente em instantes.');
        }
      }
      try {
        const result = await db.transaction(async (trx) => {
          const [p]: ProfileRow[] = await trx('autopay_profiles')
            .insert({ user_id: userId, provider: provider.name })
            .onConflict('user_id')
            .merge({ updated_at: trx.fn.now() })
            .returning('*');
          const beforeNumbers: Array<{ n: number }> = await trx('autopay_captive_numbers').where({ profile_id: p.id }).orderBy('n').select('n');
          const patch: Partial<ProfileRow> & Record<string, unknown> = { active: cmd.active, updated_at: trx.fn.now() };
          if (card) Object.assign(patch, { provider: provider.name, provider_customer_id: card.customerId, provider_card_id: card.cardId, brand: card.brand, last4: card.last4 });
          if (holder) patch.holder_name = holder;
          if (docGiven) patch.doc_number = docGiven;
          const hasCard = !!(card || p.provider_card_id);
          if (cmd.active && !hasCard) throw errors.validation('card_required', M.needCard);
          await trx('autopay_captive_numbers').where({ profile_id: p.id }).del();
          // Sorted: concurrent saves insert into the unique index in one order (no deadlock).
          await trx('autopay_captive_numbers').insert(cmd.numbers.map((n) => ({ profile_id: p.id, n, active: cmd.active })));
          const [after]: ProfileRow[] = await trx('autopay_profiles').where({ id: p.id }).update(patch).returning('*');
          await audit(trx, {
            actorUserId: userId,
            actor: 'user',
            action: 'autopay.saved',
            entity: 'autopay_profile',
            entityId: p.id,
            data: {
              before: { active: p.active, numbers: beforeNumbers.map((r) => r.n), brand: p.brand, last4: p.last4 },
              after: { active: after.active, numbers: cmd.numbers, brand: after.brand, last4: after.last4, new_card: !!card },
            },
          });
          return { card: cardOf(after), active: after.active, numbers: cmd.numbers };
        });
        logger.info({ userId, active: result.active, count: result.numbers.length, newCard: !!card }, 'autopay preferences saved');
        return result;
      } catch (e) {
        if (isUniqueViolation(e, 'autopay_captive_one_active_owner')) {
          const taken = await takenByOthers(db, userId, cmd.numbers);
          throw conflict(taken.length ? taken : cmd.numbers);
        }
        throw e;
      }
    },

    async cancel(userId) {
      const touched = new Set<number>();
      await db.transaction(async (trx) => {
        const p: ProfileRow | undefined = await trx('autopay_profiles').where({ user_id: userId }).forUpdate().first();
        if (!p) return;
        const beforeNumbers: Array<{ n: number }> = await trx('autopay_captive_numbers').where({ profile_id: p.id }).orderBy('n').select('n');
        await trx('autopay_captive_numbers').where({ profile_id: p.id }).del();
        await trx('autopay_profiles').where({ id: p.id }).update({
          active: false,
          provider_customer_id: p.provider_customer_id, // the provider's customer stays ours to reuse
          ...CARD_CLEARED,
          updated_at: trx.fn.now(),
        });
        // Holds not yet charged go back to the board now (a charge in flight finishes).
        const held: RunRow[] = await trx('autopay_runs').where({ profile_id: p.id, status: 'held' }).orderBy('id').forUpdate().select('*');
        for (const r of held) {
          const d = await releaseRun(trx, r, 'compra automática cancelada antes da cobrança');
          if (d) touched.add(d);
        }
        await audit(trx, {
          actorUserId: userId,
          actor: 'user',
          action: 'autopay.cancelled',
          entity: 'autopay_profile',
          entityId: p.id,
          data: { before: { active: p.active, numbers: beforeNumbers.map((r) => r.n), brand: p.brand, last4: p.last4 }, after: { active: false, numbers: [], card: null }, released_runs: held.map((r) => r.id) },
        });
      });
      for (const d of touched) deps.draws.invalidateBoard(d);
      return { card: { has_card: false, brand: null, last4: null }, active: false, numbers: [] };
    },

    async claims(userId) {
      const rows: Array<{ n: number; user_id: number; active: boolean }> = await db('autopay_captive_numbers as c')
        .join('autopay_profiles as p', 'p.id', 'c.profile_id')
        .where((w) => w.where('c.active', true).orWhere('p.user_id', userId))
        .orderBy('c.n')
        .select('c.n', 'p.user_id', 'c.active');
      return {
        taken: rows.filter((r) => Number(r.user_id) !== userId && r.active).map((r) => r.n),
        mine: rows.filter((r) => Number(r.user_id) === userId).map((r) => r.n),
      };
    },

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

    async relay() {
      const events: Array<{ id: number; name: string; payload: { drawId?: number } }> = await db.transaction(async (trx) => {
        const rows = await trx('domain_events')
          .whereNull('dispatched_at')
          .whereIn('name', EVENT_JOBS as unknown as string[])
          .orderBy('id')
          .limit(200)
          .forUpdate()
          .skipLocked()
          .select('id', 'name', 'payload');
        for (const e of rows) {
          const drawId = Number(e.payload?.drawId);
          if (e.name === 'draw.opened' && Number.isInteger(drawId) && drawId > 0) {
            // Throws while Redis is away: nothing is marked, the next relay tries again.
            await deps.queue.enqueueUnique('autopay.charge', { drawId }, `autopay-charge-${drawId}`, { attempts: 10, backoff: { type: 'exponential', delay: 2_000 } });
          }
        }
        if (rows.length) await trx('domain_events').whereIn('id', rows.map((r: { id: number }) => r.id)).update({ dispatched_at: trx.fn.now() });
        return rows;
      });
      // Draws whose runs still wait (a job lost with Redis, a crash): their charge job again (deduplicated).
      const waiting: Array<{ draw_id: number }> = await db('autopay_runs').whereIn('status', ['held', 'charging']).distinct('draw_id').limit(100);
      for (const w of waiting) {
        await deps.queue.enqueueUnique('autopay.charge', { drawId: Number(w.draw_id) }, `autopay-charge-${w.draw_id}`, { attempts: 10, backoff: { type: 'exponential', delay: 2_000 } });
      }
      return events.length;
    },

    async listRuns(query) {
      const f = RunsQuery.parse(query);
      const qb = db('autopay_runs as r')
        .join('autopay_profiles as p', 'p.id', 'r.profile_id')
        .join('users as u', 'u.id', 'p.user_id')
        .orderBy([{ column: 'r.draw_id', order: 'desc' }, { column: 'r.id', order: 'asc' }])
        .limit(f.limit + 1)
        .offset(f.offset)
        .select('r.*', 'p.user_id', 'u.name as user_name', 'u.email as user_email');
      if (f.draw_id) qb.where('r.draw_id', f.draw_id);
      if (f.status) qb.where('r.status', f.status);
      const rows: Array<RunRow & { user_id: number; user_name: string; user_email: string; skipped_numbers: number[]; created_at: Date; updated_at: Date; settled_at: Date | null }> = await qb;
      const iso = (d: Date | null | undefined) => (d ? new Date(d).toISOString() : null);
      const items: AutopayRunView[] = rows.slice(0, f.limit).map((r) => ({
        id: Number(r.id),
        draw_id: Number(r.draw_id),
        profile_id: Number(r.profile_id),
        user_id: Number(r.user_id),
        user_name: r.user_name,
        user_email: r.user_email,
        status: r.status as AutopayRunView['status'],
        numbers: r.numbers ?? [],
        skipped_numbers: r.skipped_numbers ?? [],
        amount_cents: r.amount_cents,
        attempts: r.attempts,
        payment_id: r.payment_id == null ? null : Number(r.payment_id),
        provider: r.provider,
        provider_payment_id: r.provider_payment_id,
        provider_status: r.provider_status,
        error: r.error,
        hold_until: iso(r.hold_until),
        next_attempt_at: iso(r.next_attempt_at),
        created_at: iso(r.created_at)!,
        updated_at: iso(r.updated_at)!,
        settled_at: iso(r.settled_at),
      }));
      return { items, hasMore: rows.length > f.limit, limit: f.limit, offset: f.offset };
    },
  };
  return service;
}
