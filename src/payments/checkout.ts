import type { Trx } from '../platform/db';
import { errors } from '../platform/errors';
import { audit } from '../platform/audit';
import { readAppConfig } from '../platform/app-config';
import { effectiveTicketPrice } from '../draws/serializers';
import { fulfilPayment, type PaymentRow } from './fulfilment';
import { AdminGrantCommand, InfoproductPaymentCommand, ReservationPixCommand } from './schema';
import { pixView } from './serializers';
import { insertPayment } from './records';
import type { PaymentsDeps } from './deps';

/** A reused PIX must still leave the payer this long to pay it. */
const REUSE_MIN_REMAINING = `interval '2 minutes'`;

/**
 * Serializes one user's PIX creations (reuse-or-create is read-then-write). Two-key advisory
 * lock (-1, user): the first key of lockUserInDraw is a draw id, never negative.
 */
async function lockUserPix(trx: Trx, userId: number) {
  await trx.raw('SELECT pg_advisory_xact_lock(-1, ?::int)', [userId]);
}

/** Creating charges: the admin grant, e-book PIX and reservation PIX (with reuse and a per-user limit). */
export function createCheckout(deps: PaymentsDeps, schedulePoll: (paymentId: number) => Promise<void>) {
  const { db, provider } = deps;
  const expiryMinutes = deps.config.payments.pix.expiryMinutes;
  const unavailable = () => errors.conflict('payment_provider_unavailable', 'Não foi possível iniciar o pagamento agora.');

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
        // Counted by the provider when the request leaves (RULES P9: never under its minimum).
        expiresInMinutes: expiryMinutes,
        payer: await payerOf(p.user_id),
      });
      // Our payment, and the reservation's hold, never end before the provider's code does.
      const row = await db.transaction(async (trx) => {
        const [updated]: PaymentRow[] = await trx('payments')
          .where({ id: p.id })
          .update({
            provider_payment_id: pix.providerPaymentId,
            txid: pix.txid,
            qr_code: pix.copyPasteCode,
            qr_code_base64: pix.qrCodeBase64,
            expires_at: trx.raw('GREATEST(expires_at, ?::timestamptz)', [pix.expiresAt]),
            updated_at: trx.fn.now(),
          })
          .returning('*');
        if (updated.reservation_id)
          await deps.reservations.extendHoldInTransaction(trx, updated.reservation_id, updated.expires_at as Date);
        return updated;
      });
      if (row.reservation_id) await deps.reservations.scheduleExpiry(row.reservation_id, new Date(row.expires_at as Date));
      await schedulePoll(p.id);
      return row;
    } catch (e) {
      await db('payments')
        .where({ id: p.id, status: 'pending' })
        .update({
          status: 'cancelled',
          lapsed_at: db.fn.now(),
          review_reason: String((e as Error).message).slice(0, 300),
          updated_at: db.fn.now(),
        });
      deps.logger.error({ paymentId: p.id, err: (e as Error).message }, 'PIX creation failed at the provider');
      throw unavailable();
    }
  }

  /** A payment another request is creating: its PIX data, once stored (or 409 if its creation failed). */
  async function waitForPixData(paymentId: number, timeoutMs = 15_000): Promise<PaymentRow> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const p: PaymentRow = await db('payments').where({ id: paymentId }).first();
      if (p.qr_code && p.status === 'pending') return p;
      if (p.status !== 'pending' || Date.now() > until) throw unavailable();
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  return {
    async grantVouchers(input: unknown, actor: { userId?: number | null; via: 'cli' | 'admin' }) {
      const cmd = AdminGrantCommand.parse(input);
      const granted = await db.transaction(async (trx) => {
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
        const payment = await insertPayment(trx, {
          user_id: user.id,
          kind: 'admin',
          method: 'admin',
          provider: 'admin',
          status: 'approved',
          amount_cents: 0,
          quantity: cmd.quantity,
          infoproduct_id: product.id,
        });
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
      // The buyer's cached reads (vouchers left, payments) drop on every web process.
      await deps.userData?.userDataChanged(granted.userId);
      return granted;
    },

    async createInfoproductPayment(userId: number, input: unknown) {
      const cmd = InfoproductPaymentCommand.parse(input);
      const product = await db('infoproducts').where({ id: cmd.infoproduct_id }).first();
      if (!product) throw errors.notFound('infoproduct_not_found', 'E-book não encontrado.');
      if (!product.active) throw errors.conflict('infoproduct_inactive', 'Este e-book não está à venda.');
      // Paused (admin closed its draw): the e-book still sells; its price is the one the next draw inherits.
      const draw = (await deps.draws.ensureOpenDraw(product.id)) ?? (await deps.draws.latestDrawOf(product.id));
      const cfg = await readAppConfig(db);
      const unit = effectiveTicketPrice(draw, { productPriceCents: product.price_cents, configTicketPriceCents: cfg.ticket_price_cents });
      const total = unit * cmd.quantity;
      if (total !== cmd.amount_cents_total) {
        throw errors.conflict('price_changed', 'O preço mudou. Confira o novo valor e tente de novo.', {
          amount_cents_total: total,
          unit_price_cents: unit,
        });
      }
      // The user's pending charge for the same e-books and amount is shown again instead of a new one.
      const same = (conn: typeof db | Trx) =>
        conn('payments').where({
          user_id: userId,
          kind: 'infoproduct',
          infoproduct_id: product.id,
          quantity: cmd.quantity,
          amount_cents: total,
          status: 'pending',
        });
      const existing: PaymentRow | undefined = await same(db)
        .whereNotNull('qr_code')
        .where('expires_at', '>', db.raw(`now() + ${REUSE_MIN_REMAINING}`))
        .orderBy('id', 'desc')
        .first();
      if (existing) return pixView(existing);
      const outcome = await db.transaction(async (trx): Promise<{ reuse: PaymentRow } | { created: PaymentRow }> => {
        await lockUserPix(trx, userId);
        // Under the lock: a parallel request may have just created it (its PIX data arrives after).
        const inFlight: PaymentRow | undefined = await same(trx)
          .where((q) =>
            q
              .where((w) => w.whereNotNull('qr_code').where('expires_at', '>', trx.raw(`now() + ${REUSE_MIN_REMAINING}`)))
              .orWhere((w) => w.whereNull('qr_code').where('created_at', '>', trx.raw(`now() - interval '30 seconds'`))),
          )
          .orderBy('id', 'desc')
          .first();
        if (inFlight) return { reuse: inFlight };
        // Only a new charge counts against the per-user limit.
        await deps.rateLimits.hit('pix', `user:${userId}`);
        const row = await insertPayment(trx, {
          user_id: userId,
          kind: 'infoproduct',
          method: 'pix',
          provider: provider.name,
          status: 'pending',
          amount_cents: total,
          quantity: cmd.quantity,
          infoproduct_id: product.id,
          draw_id: draw?.id ?? null,
          expires_at: trx.raw(`now() + make_interval(mins => ?)`, [expiryMinutes]),
        });
        return { created: row };
      });
      if ('reuse' in outcome) return pixView(await waitForPixData(outcome.reuse.id));
      const withPix = await attachPix(outcome.created, `${cmd.quantity}x ${product.title}`);
      deps.logger.info({ paymentId: withPix.id, userId, amount: total }, 'PIX payment created');
      return pixView(withPix);
    },

    async createReservationPix(userId: number, input: unknown) {
      const { reservationId } = ReservationPixCommand.parse(input);
      const inactive = () =>
        errors.validation('reservation_inactive', 'Sua reserva não está mais ativa. Volte ao sorteio para reservar novamente.');
      // Reuse: a pending payment of this reservation that still has its QR data, while the
      // reservation itself is still active (one consumed or released never shows its PIX again).
      const existing: PaymentRow | undefined = await db('payments as p')
        .join('reservations as r', 'r.id', 'p.reservation_id')
        .where({ 'p.reservation_id': reservationId, 'p.user_id': userId, 'p.status': 'pending', 'r.status': 'active' })
        .whereNotNull('p.qr_code')
        .where('p.expires_at', '>', db.fn.now())
        .orderBy('p.id', 'desc')
        .first('p.*');
      if (existing) return pixView(existing);
      const outcome = await db.transaction(async (trx: Trx): Promise<{ reuse: PaymentRow } | { created: PaymentRow }> => {
        const r = await trx('reservations').where({ id: reservationId }).forUpdate().first();
        if (!r || r.user_id !== userId) throw errors.notFound('reservation_not_found', 'Reserva não encontrada.');
        // An autopay hold is paid by the saved card (RULES R6): never a second charge by PIX.
        if (r.source === 'autopay')
          throw errors.conflict('reservation_autopay', 'Estes números são da compra automática: o cartão salvo será cobrado.');
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
        await deps.rateLimits.hit('pix', `user:${userId}`);
        const product = draw.infoproduct_id ? await trx('infoproducts').where({ id: draw.infoproduct_id }).first('price_cents') : null;
        const cfg = await readAppConfig(trx);
        const unit = effectiveTicketPrice(draw, {
          productPriceCents: product?.price_cents,
          configTicketPriceCents: cfg.ticket_price_cents,
        });
        const row = await insertPayment(trx, {
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
        });
        // A payable code never outlives its numbers: the hold lasts as long as the PIX.
        await deps.reservations.extendHoldInTransaction(trx, r.id, row.expires_at as Date);
        return { created: row };
      });
      if ('reuse' in outcome) return pixView(await waitForPixData(outcome.reuse.id));
      const created = outcome.created;
      await deps.reservations.scheduleExpiry(reservationId as number, new Date(created.expires_at as Date));
      const withPix = await attachPix(
        created,
        `Números ${(created.numbers ?? []).map((n) => String(n).padStart(2, '0')).join(', ')} do sorteio #${created.draw_id}`,
      );
      return pixView(withPix);
    },
  };
}
