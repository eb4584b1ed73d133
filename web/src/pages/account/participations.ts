/**
 * The participation rows of /conta (account spec §3 "Participation row", §4), as pure functions:
 * payments and voucher uses (GET /api/payments/me) and the active holds (GET /api/me/reservations)
 * become one entry per draw+number; duplicates keep the best-ranked status; lapsed holds are
 * dropped; what is left is grouped into one row per draw; open draws where the person still has
 * vouchers and no entry get an empty pending row.
 */
import type { DrawSummary, ParticipationItem, PaymentStatus } from '../../../../src/shared/api/account';
import type { DrawResultWord, DrawStatus, ReservationStatus } from '../../../../src/shared/api/draws';
import type { ReceiptView } from '../../../../src/shared/receipt';

/** Hold window used when an entry carries no expiry (account spec §9: 15 minutes by default). */
export const DEFAULT_RESERVATION_WINDOW_MS = 15 * 60_000;

export type EntryStatus = 'approved' | 'pending' | 'expired';

/** approved above pending above expired (account spec §4). */
export const STATUS_RANK: Record<EntryStatus, number> = { approved: 3, pending: 2, expired: 1 };

/** A hold as GET /api/me/reservations describes it (the server's ReservationView). */
export interface ReservationLike {
  id: number;
  draw_id: number;
  numbers: number[];
  status: ReservationStatus;
  expires_at: string | null;
  created_at: string;
}

/** One number of one draw, with where it came from. */
export interface Entry {
  drawId: number;
  n: number;
  status: EntryStatus;
  /** ISO time of the entry (payment: paid_at, else created_at). */
  time: string;
  expiresAt: string | null;
  paymentId: number | null;
  reservationId: number | null;
}

/** A payment's status (account spec §4): approved counts as paid; the dead ones as expired; pending waits. */
export function paymentEntryStatus(status: PaymentStatus): EntryStatus {
  switch (status) {
    case 'approved':
      return 'approved';
    case 'pending':
      return 'pending';
    case 'rejected':
    case 'cancelled':
    case 'expired':
    case 'refunded':
    case 'charged_back':
      return 'expired';
  }
}

/** A hold's status (account spec §4): paid or consumed → approved; active → pending; expired/cancelled → expired. */
export function reservationEntryStatus(status: ReservationStatus): EntryStatus {
  switch (status) {
    case 'paid':
    case 'consumed':
      return 'approved';
    case 'active':
      return 'pending';
    case 'expired':
    case 'cancelled':
      return 'expired';
  }
}

/** 'Pagamento' column: approved shows PAGO; anything else PENDENTE (account spec §4). */
export function paymentLabel(status: PaymentStatus): 'PAGO' | 'PENDENTE' {
  return paymentEntryStatus(status) === 'approved' ? 'PAGO' : 'PENDENTE';
}

const ms = (iso: string | null | undefined) => {
  const t = iso ? Date.parse(iso) : NaN;
  return Number.isFinite(t) ? t : 0;
};

export function entriesFromPayments(items: ParticipationItem[]): Entry[] {
  const out: Entry[] = [];
  for (const p of items) {
    if (p.draw_id == null) continue;
    const status = paymentEntryStatus(p.status);
    for (const n of p.numbers ?? []) {
      out.push({
        drawId: p.draw_id,
        n,
        status,
        time: (status === 'approved' ? p.paid_at : null) ?? p.created_at,
        expiresAt: status === 'approved' ? null : p.expires_at,
        paymentId: p.kind === 'voucher' ? null : p.id,
        reservationId: p.reservation_id,
      });
    }
  }
  return out;
}

export function entriesFromReservations(items: ReservationLike[]): Entry[] {
  const out: Entry[] = [];
  for (const r of items) {
    const status = reservationEntryStatus(r.status);
    for (const n of r.numbers ?? []) {
      out.push({ drawId: r.draw_id, n, status, time: r.created_at, expiresAt: r.expires_at, paymentId: null, reservationId: r.id });
    }
  }
  return out;
}

/** Keeps one entry per draw+number: the highest-ranked status; ties go to the latest time. */
export function dedupeEntries(entries: Entry[]): Entry[] {
  const best = new Map<string, Entry>();
  for (const e of entries) {
    const key = `${e.drawId}:${e.n}`;
    const cur = best.get(key);
    if (
      !cur ||
      STATUS_RANK[e.status] > STATUS_RANK[cur.status] ||
      (STATUS_RANK[e.status] === STATUS_RANK[cur.status] && ms(e.time) > ms(cur.time))
    ) {
      best.set(key, e);
    }
  }
  return [...best.values()];
}

/**
 * A non-approved entry has lapsed when its expires_at has passed or, lacking it, when its time
 * plus the reservation window has. Expired entries have lapsed by definition.
 */
export function isLapsed(e: Entry, now: number, windowMs = DEFAULT_RESERVATION_WINDOW_MS): boolean {
  if (e.status === 'approved') return false;
  if (e.status === 'expired') return true;
  const limit = e.expiresAt ? ms(e.expiresAt) : ms(e.time) + windowMs;
  return limit <= now;
}

export type ResultBadge = 'ABERTO' | 'FECHADO' | 'SORTEADO' | 'CONTEMPLADO' | 'NÃO CONTEMPLADO';

/** The badge of a draw result (account spec §4), from the server's typed result word. */
export function resultBadge(result: DrawResultWord): ResultBadge {
  switch (result) {
    case 'contemplado':
      return 'CONTEMPLADO';
    case 'nao contemplado':
      return 'NÃO CONTEMPLADO';
    case 'sorteado':
      return 'SORTEADO';
    case 'closed':
      return 'FECHADO';
    case 'open':
      return 'ABERTO';
  }
}

/** The result of a draw for the caller: the server's word (the draw's status until it is decided); open when unknown. */
export function drawResult(draw: Pick<DrawSummary, 'result'> | null | undefined): DrawResultWord {
  return draw?.result ?? 'open';
}

export interface DrawInfo {
  id: number;
  /** The draw's e-book (the e-book right is a paid purchase of that product). */
  infoproductId?: number | null;
  title: string;
  status: DrawStatus;
  result: DrawResultWord;
  sku: string | null;
  winner_number: number | null;
  won: boolean | null;
}

export interface ParticipationRow {
  key: string;
  drawId: number;
  /** Null when the draw is not known to the client (shown as 'Sorteio #NNN'). */
  draw: DrawInfo | null;
  /** Sorted ascending; empty for the pending empty row. */
  numbers: number[];
  /** Numbers still waiting for payment (subset of `numbers`). */
  pendingNumbers: number[];
  /** Newest entry time (ISO); null for the empty row. */
  date: string | null;
  /** Pending if any of its numbers is pending (account spec §4): money not yet paid. */
  status: 'approved' | 'pending';
  /** 'Baixar e-book': the person paid for this draw's e-book (or owns a paid number of it). */
  ebook: boolean;
  /** The receipts of the paid payments of this row (newest first). */
  receipts: ReceiptView[];
  payment: 'PAGO' | 'PENDENTE';
  badge: ResultBadge;
  /** Vouchers the person can still use in this draw (ESCOLHER). */
  remaining: number;
  /** The newest hold among the pending numbers (PAGAR). */
  reservationId: number | null;
  /** True for a row without numbers: an e-book paid and not picked yet, or vouchers left in an open draw. */
  empty: boolean;
}

export interface BuildInput {
  payments: ParticipationItem[];
  reservations: ReservationLike[];
  /** Draws known from elsewhere (open draws list), by id. */
  draws?: DrawInfo[];
  /** Vouchers left per open draw id (GET /api/vouchers/remaining). */
  remaining?: Record<number, number>;
  now: number;
  windowMs?: number;
}

/** Draw number as shown in the table: 'Sorteio #007'. */
export const drawLabel = (id: number) => `Sorteio #${String(id).padStart(3, '0')}`;

/**
 * The products the person holds the e-book of (RULES RF5, as catalogue/ebooks isBuyer reads it): an
 * approved payment of the product (an e-book bought or granted) or an approved entry with numbers
 * of one of its draws.
 */
export function ebookProducts(payments: ParticipationItem[]): Set<number> {
  const out = new Set<number>();
  for (const p of payments) {
    if (p.status !== 'approved' || p.infoproduct_id == null) continue;
    if (p.kind === 'ebook' || p.kind === 'admin' || p.numbers.length > 0) out.add(p.infoproduct_id);
  }
  return out;
}

/** Builds the rows of the participations table, newest first. */
export function buildParticipationRows(input: BuildInput): ParticipationRow[] {
  const drawInfo = new Map<number, DrawInfo>();
  for (const d of input.draws ?? []) drawInfo.set(d.id, d);
  // The payments list carries the freshest view of each draw (status, winner, won).
  for (const p of input.payments) {
    if (p.draw) drawInfo.set(p.draw.id, { ...p.draw, infoproductId: p.draw.infoproduct_id });
  }
  const owned = ebookProducts(input.payments);

  const kept = dedupeEntries([...entriesFromPayments(input.payments), ...entriesFromReservations(input.reservations)]).filter(
    (e) => !isLapsed(e, input.now, input.windowMs),
  );

  const byDraw = new Map<number, Entry[]>();
  for (const e of kept) {
    const list = byDraw.get(e.drawId) ?? [];
    list.push(e);
    byDraw.set(e.drawId, list);
  }

  // Paid e-book purchases (and grants) of a draw: a row at once, whether or not numbers were picked.
  const purchases = new Map<number, { time: string }>();
  const receiptsOf = new Map<number, ReceiptView[]>();
  for (const p of input.payments) {
    if (p.draw_id == null || p.status !== 'approved') continue;
    if (p.receipt) receiptsOf.set(p.draw_id, [...(receiptsOf.get(p.draw_id) ?? []), p.receipt]);
    if (p.kind !== 'ebook' && p.kind !== 'admin') continue;
    if (p.numbers.length) continue;
    const time = p.paid_at ?? p.created_at;
    const cur = purchases.get(p.draw_id);
    if (!cur || ms(time) > ms(cur.time)) purchases.set(p.draw_id, { time });
  }

  const remaining = input.remaining ?? {};
  const leftIn = (drawId: number, draw: DrawInfo | null) => (draw && draw.status !== 'open' ? 0 : Math.max(0, remaining[drawId] ?? 0));
  const hasEbook = (draw: DrawInfo | null, paidNumbers: boolean) =>
    paidNumbers || (draw?.infoproductId != null && owned.has(draw.infoproductId));
  const receiptsFor = (drawId: number) => [...(receiptsOf.get(drawId) ?? [])].sort((a, b) => ms(b.paid_at) - ms(a.paid_at));

  const rows: ParticipationRow[] = [];
  for (const drawId of new Set([...byDraw.keys(), ...purchases.keys()])) {
    const list = byDraw.get(drawId) ?? [];
    const draw = drawInfo.get(drawId) ?? null;
    const pendingEntries = list.filter((e) => e.status === 'pending');
    const status = pendingEntries.length ? 'pending' : 'approved';
    const newestHold = [...pendingEntries].filter((e) => e.reservationId != null).sort((a, b) => ms(b.time) - ms(a.time))[0];
    const times = [...list.map((e) => e.time), ...(purchases.has(drawId) ? [purchases.get(drawId)!.time] : [])];
    const date = times.reduce<string | null>((acc, t) => (acc == null || ms(t) > ms(acc) ? t : acc), null);
    const numbers = list.map((e) => e.n).sort((a, b) => a - b);
    rows.push({
      key: `draw-${drawId}`,
      drawId,
      draw,
      numbers,
      pendingNumbers: pendingEntries.map((e) => e.n).sort((a, b) => a - b),
      date,
      status,
      payment: status === 'approved' ? 'PAGO' : 'PENDENTE',
      ebook: hasEbook(
        draw,
        list.some((e) => e.status === 'approved'),
      ),
      receipts: receiptsFor(drawId),
      badge: resultBadge(drawResult(draw)),
      remaining: leftIn(drawId, draw),
      reservationId: newestHold?.reservationId ?? null,
      empty: numbers.length === 0,
    });
  }
  rows.sort((a, b) => ms(b.date) - ms(a.date) || b.drawId - a.drawId);

  // Open draws where the person still has vouchers (bought, so paid) and no row: an empty row, first.
  const empties: ParticipationRow[] = [];
  for (const [key, left] of Object.entries(remaining)) {
    const drawId = Number(key);
    if (!(left > 0) || byDraw.has(drawId) || purchases.has(drawId)) continue;
    const draw = drawInfo.get(drawId) ?? null;
    if (draw && draw.status !== 'open') continue;
    empties.push({
      key: `empty-${drawId}`,
      drawId,
      draw,
      numbers: [],
      pendingNumbers: [],
      date: null,
      status: 'approved',
      payment: 'PAGO',
      ebook: hasEbook(draw, false),
      receipts: receiptsFor(drawId),
      badge: resultBadge(drawResult(draw)),
      remaining: left,
      reservationId: null,
      empty: true,
    });
  }
  empties.sort((a, b) => b.drawId - a.drawId);
  return [...empties, ...rows];
}

/**
 * Row click (account spec §2): a paid row of a closed or decided draw opens /me/draw/{id}; a row
 * of an open draw goes to /. Other rows (pending, closed) stay where they are.
 */
export function rowTarget(row: ParticipationRow): string | null {
  const status = row.draw?.status ?? 'open';
  if (status === 'open') return '/';
  if (row.status === 'approved') return `/me/draw/${row.drawId}`;
  return null;
}
