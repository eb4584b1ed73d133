import type { Db } from '../platform/db';
import type { DrawSummary, ParticipationItem, ParticipationKind, PaymentStatus, PixData } from '../shared/api/account';
import type { PaymentRow } from './fulfilment';
import { iso } from '../shared/iso';
import { drawResultFor, drawStatusWord } from '../draws/serializers';
import { hasReceipt, receiptView } from './receipt';

/**
 * GET /api/payments/me: every way the user got numbers or vouchers, newest
 * first: e-book and reservation PIX payments, numbers chosen with vouchers (one entry
 * per confirmation), admin assignments and autopay charges. A client that builds its
 * rows from this list alone sees every number the user owns: owned numbers that no
 * entry explains (e.g. an assignment made without a payment) get an entry of their own.
 */
export interface ParticipationRow extends ParticipationItem {
  /** Fields the list answered before it became the participation list (the purchase flow reads them). */
  paymentId: number | null;
  method: string | null;
  txid: string | null;
  qr_code: string | null;
  qr_code_base64: string | null;
  copy_paste_code: string | null;
  flagged_for_review: boolean;
}

const KIND_OF_PAYMENT: Record<PaymentRow['kind'], ParticipationKind> = {
  infoproduct: 'ebook',
  reservation: 'reservation',
  admin: 'admin',
  autopay: 'autopay',
};
const KIND_OF_SALE: Record<string, ParticipationKind> = { voucher: 'voucher', pix: 'reservation', autopay: 'autopay', admin: 'admin' };

const LIMIT = 500;
const sorted = (a: number[]) => [...a].sort((x, y) => x - y);

interface DrawBrief {
  id: number;
  title: string;
  status: 'open' | 'closed' | 'drawn';
  infoproduct_id: number | null;
  sku: string | null;
  winner_number: number | null;
  winner_user_id: number | null;
}

function drawSummary(d: DrawBrief | undefined, userId: number): DrawSummary | null {
  if (!d) return null;
  return {
    id: d.id,
    title: d.title,
    status: drawStatusWord(d.status),
    result: drawResultFor(d, userId),
    infoproduct_id: d.infoproduct_id,
    sku: d.sku,
    winner_number: d.status === 'drawn' ? d.winner_number : null,
    won: d.status === 'drawn' ? d.winner_user_id === userId : null,
  };
}

export async function listParticipations(db: Db, userId: number): Promise<ParticipationRow[]> {
  const [payments, consumptions, sales, owned] = await Promise.all([
    db('payments').where({ user_id: userId }).orderBy('id', 'desc').limit(LIMIT) as Promise<PaymentRow[]>,
    db('voucher_ledger as v')
      .leftJoin('reservations as r', 'r.id', 'v.reservation_id')
      .where({ 'v.user_id': userId, 'v.reason': 'consume' })
      .orderBy('v.id', 'desc')
      .limit(LIMIT)
      .select('v.id', 'v.draw_id', 'v.infoproduct_id', 'v.delta', 'v.reservation_id', 'v.created_at', 'r.numbers') as Promise<
      Array<{
        id: number;
        draw_id: number | null;
        infoproduct_id: number;
        delta: number;
        reservation_id: number | null;
        created_at: Date;
        numbers: number[] | null;
      }>
    >,
    db('number_sales')
      .where({ user_id: userId })
      .orderBy('id')
      .select('id', 'draw_id', 'n', 'payment_id', 'source', 'created_at') as Promise<
      Array<{ id: number; draw_id: number; n: number; payment_id: number | null; source: string; created_at: Date }>
    >,
    db('draw_numbers').where({ owner_user_id: userId }).select('draw_id', 'n') as Promise<Array<{ draw_id: number; n: number }>>,
  ]);

  const grants: Array<{ payment_id: number; granted: number }> = payments.length
    ? await db('voucher_ledger')
        .whereIn(
          'payment_id',
          payments.map((p) => p.id),
        )
        .whereIn('reason', ['grant', 'late_approval'])
        .groupBy('payment_id')
        .select('payment_id', db.raw('sum(delta)::int as granted'))
    : [];
  const grantedBy = new Map(grants.map((g) => [g.payment_id, g.granted]));
  const productIds = [
    ...new Set(
      payments
        .filter(hasReceipt)
        .map((p) => p.infoproduct_id)
        .filter((x): x is number => x != null),
    ),
  ];
  const titles: Array<{ id: number; title: string }> = productIds.length
    ? await db('infoproducts').whereIn('id', productIds).select('id', 'title')
    : [];
  const titleOf = new Map(titles.map((t) => [t.id, t.title]));
  const soldBy = new Map<number, number[]>();
  for (const s of sales) if (s.payment_id != null) soldBy.set(s.payment_id, [...(soldBy.get(s.payment_id) ?? []), s.n]);

  const items: ParticipationRow[] = [];
  const base = {
    paymentId: null,
    method: null,
    txid: null,
    qr_code: null,
    qr_code_base64: null,
    copy_paste_code: null,
    flagged_for_review: false,
    pix: null,
    quantity: null,
    vouchers_granted: null,
    reservation_id: null,
    expires_at: null,
    result: 'open' as const,
    receipt: null,
  };

  for (const p of payments) {
    const pending = p.status === 'pending';
    const pix: PixData | null =
      pending && p.qr_code
        ? { qr_code: p.qr_code, qr_code_base64: p.qr_code_base64 ?? '', copy_paste: p.qr_code, txid: p.txid ?? '' }
        : null;
    items.push({
      ...base,
      id: p.id,
      paymentId: p.id,
      kind: KIND_OF_PAYMENT[p.kind],
      method: p.method,
      draw_id: p.draw_id,
      draw: null,
      // What the payment delivered when it did; otherwise what it asked for.
      numbers: sorted(soldBy.get(p.id) ?? p.numbers ?? []),
      status: p.status as PaymentStatus,
      amount_cents: p.amount_cents,
      quantity: p.quantity,
      vouchers_granted: grantedBy.get(p.id) ?? (p.infoproduct_id && p.quantity ? 0 : null),
      infoproduct_id: p.infoproduct_id,
      reservation_id: p.reservation_id,
      created_at: iso(p.created_at) as string,
      paid_at: iso(p.paid_at),
      expires_at: iso(p.expires_at),
      pix,
      txid: p.txid,
      qr_code: pending ? p.qr_code : null,
      qr_code_base64: pending ? p.qr_code_base64 : null,
      copy_paste_code: pending ? p.qr_code : null,
      flagged_for_review: p.flagged_for_review,
      receipt: hasReceipt(p) ? receiptView(p, p.infoproduct_id != null ? (titleOf.get(p.infoproduct_id) ?? null) : null) : null,
    });
  }

  for (const c of consumptions) {
    items.push({
      ...base,
      id: c.id,
      kind: 'voucher',
      draw_id: c.draw_id,
      draw: null,
      numbers: sorted(c.numbers ?? []),
      status: 'approved',
      amount_cents: 0,
      infoproduct_id: c.infoproduct_id,
      reservation_id: c.reservation_id,
      created_at: iso(c.created_at) as string,
      paid_at: iso(c.created_at),
    });
  }

  // Owned numbers that no approved entry explains get an entry of their own.
  const covered = new Set<string>();
  for (const it of items) if (it.status === 'approved' && it.draw_id != null) for (const n of it.numbers) covered.add(`${it.draw_id}:${n}`);
  const saleOf = new Map(sales.map((s) => [`${s.draw_id}:${s.n}`, s]));
  const groups = new Map<string, { id: number; draw_id: number; source: string; created_at: Date; numbers: number[] }>();
  for (const o of owned) {
    const key = `${o.draw_id}:${o.n}`;
    if (covered.has(key)) continue;
    const s = saleOf.get(key);
    const source = s?.source ?? 'admin';
    const g = groups.get(`${o.draw_id}:${source}`) ?? {
      id: s?.id ?? 0,
      draw_id: o.draw_id,
      source,
      created_at: s?.created_at ?? new Date(0),
      numbers: [],
    };
    g.numbers.push(o.n);
    if (s && s.id < g.id) g.id = s.id;
    if (s && new Date(s.created_at) > new Date(g.created_at)) g.created_at = s.created_at;
    groups.set(`${o.draw_id}:${source}`, g);
  }
  for (const g of groups.values()) {
    items.push({
      ...base,
      id: g.id,
      kind: KIND_OF_SALE[g.source] ?? 'admin',
      draw_id: g.draw_id,
      draw: null,
      numbers: sorted(g.numbers),
      status: 'approved',
      amount_cents: 0,
      infoproduct_id: null,
      created_at: iso(g.created_at) as string,
      paid_at: iso(g.created_at),
    });
  }

  const drawIds = [...new Set(items.map((i) => i.draw_id).filter((x): x is number => x != null))];
  const draws: DrawBrief[] = drawIds.length
    ? await db('draws as d')
        .leftJoin('infoproducts as p', 'p.id', 'd.infoproduct_id')
        .whereIn('d.id', drawIds)
        .select('d.id', 'd.title', 'd.status', 'd.infoproduct_id', 'p.sku', 'd.winner_number', 'd.winner_user_id')
    : [];
  const drawById = new Map(draws.map((d) => [d.id, d]));
  for (const it of items) {
    it.draw = drawSummary(it.draw_id != null ? drawById.get(it.draw_id) : undefined, userId);
    it.result = it.draw?.result ?? 'open';
    if (it.infoproduct_id == null && it.draw?.infoproduct_id != null) it.infoproduct_id = it.draw.infoproduct_id;
  }

  return items.sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at) || b.id - a.id);
}

export interface ParticipationsService {
  list(userId: number): Promise<ParticipationRow[]>;
}

export function createParticipationsService(deps: { db: Db }): ParticipationsService {
  return { list: (userId) => listParticipations(deps.db, userId) };
}
