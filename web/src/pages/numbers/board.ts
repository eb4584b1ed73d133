/**
 * Pure rules of the number board (storefront spec §2 "Number board", §4, §5): no React, no HTTP.
 */
import { pad2 } from '../../components/board/labels';
import type { ConsumeResult, DrawBoard, NumberStatus, Reservation, ReservationStatus, VoucherAllowance } from '../../api/types';

/** GET /api/draws/{id}/numbers */
export type Board = DrawBoard;

/** GET /api/vouchers/remaining (anonymous: remaining 0, max null — storefront spec §9). */
export type Allowance = VoucherAllowance;

export const ANONYMOUS_ALLOWANCE: Allowance = { remaining: 0, max: null };

/** POST /api/reservations → 201; POST /api/vouchers/consume → 200. */
export type { ConsumeResult, Reservation };

/** What the board's rules read of a row of GET /api/me/reservations (the caller's own holds). */
export type MyReservation = Pick<Reservation, 'id' | 'draw_id' | 'numbers' | 'status'>;

/** Reservations that turned into a purchase: their numbers were sold to the caller. */
const PURCHASED: ReadonlyArray<ReservationStatus> = ['consumed', 'paid'];

/**
 * The caller's own numbers in a draw. The public board is one cached answer for everyone, so it
 * cannot say whose a sold cell is; the caller's reservations that became purchases can, plus
 * `confirmed` (numbers just bought on this screen). A number counts only while the board shows it
 * sold with the caller's initials: a paid hold whose number went to someone else (late approval)
 * is not the caller's.
 */
export function ownNumbers(
  board: Board | null | undefined,
  o: { reservations: readonly MyReservation[]; confirmed?: readonly number[]; initials: string | null },
): number[] {
  if (!board) return [];
  const bought = new Set<number>(o.confirmed ?? []);
  for (const r of o.reservations) {
    if (r.draw_id === board.draw_id && PURCHASED.includes(r.status)) for (const n of r.numbers) bought.add(n);
  }
  const byN = new Map(board.numbers.map((c) => [c.n, c]));
  return sortUnique(
    [...bought].filter((n) => {
      const cell = byN.get(n);
      if (!cell || !TAKEN.includes(cell.status)) return false;
      return !o.initials || !cell.initials || cell.initials === o.initials;
    }),
  );
}

/** Storefront spec §5 and §9, RULES R5: never more than 10 numbers at once, whatever the configuration says. */
export const MAX_SELECTION = 10;
/** Storefront spec §4 and §9. */
export const BOARD_POLL_MS = 15_000;

export { pad2 };

/** [7, 1] → "01, 07" */
export const formatNumbers = (ns: readonly number[]) => sortUnique(ns).map(pad2).join(', ');

export const sortUnique = (ns: readonly number[]) => [...new Set(ns)].sort((a, b) => a - b);

const TAKEN: NumberStatus[] = ['sold', 'taken'];

export function statusOf(board: Board | null | undefined, n: number): NumberStatus {
  return board?.numbers.find((c) => c.n === n)?.status ?? 'available';
}

/** Selected numbers the board no longer offers (reserved, sold or taken), sorted. */
export function unavailableAmong(board: Board, selected: readonly number[], ownReserved: readonly number[] = []): number[] {
  return sortUnique(
    selected.filter((n) => {
      const status = statusOf(board, n);
      if (status === 'available') return false;
      // Held by this visitor's own reservation (a confirmation to retry): still theirs to confirm.
      return !(status === 'reserved' && ownReserved.includes(n));
    }),
  );
}

export interface BoardCounts {
  total: number;
  available: number;
  reserved: number;
  unavailable: number;
}

export function countBoard(board: Board): BoardCounts {
  const total = board.total_numbers || board.numbers.length;
  let reserved = 0;
  let unavailable = 0;
  for (const c of board.numbers) {
    if (c.status === 'reserved') reserved++;
    else if (TAKEN.includes(c.status)) unavailable++;
  }
  return { total, available: Math.max(0, total - reserved - unavailable), reserved, unavailable };
}

/** Storefront spec §4: no number left free — every cell sold or taken, none available or reserved. */
export function isSoldOut(board: Board): boolean {
  if (!board.numbers.length) return false;
  const total = board.total_numbers || board.numbers.length;
  return board.numbers.length >= total && board.numbers.every((c) => TAKEN.includes(c.status));
}

export type ToggleOutcome =
  { kind: 'changed'; selected: number[] } | { kind: 'limit' } | { kind: 'max'; max: number } | { kind: 'ignored' };

/**
 * Clicking a cell (storefront spec §5): a selected number toggles off; a reserved/sold one is ignored;
 * otherwise it is added unless the selection already holds the remaining allowance (known only
 * when signed in) or the per-selection maximum.
 */
export function toggleNumber(
  selected: readonly number[],
  n: number,
  o: { status: NumberStatus; total: number; remaining: number | null; maxSelection: number },
): ToggleOutcome {
  if (selected.includes(n)) return { kind: 'changed', selected: selected.filter((x) => x !== n) };
  if (!Number.isInteger(n) || n < 0 || n >= o.total || o.status !== 'available') return { kind: 'ignored' };
  if (o.remaining !== null && selected.length >= o.remaining) return { kind: 'limit' };
  if (selected.length >= o.maxSelection) return { kind: 'max', max: o.maxSelection };
  return { kind: 'changed', selected: sortUnique([...selected, n]) };
}

/** Per-selection maximum: the configured value, never above 10 nor below 1. */
export function maxSelectionOf(configured: number | null | undefined): number {
  const v = Number(configured);
  if (!Number.isFinite(v) || v < 1) return MAX_SELECTION;
  return Math.min(MAX_SELECTION, Math.floor(v));
}

/** The `conflicts` list of a 409 body, or null when absent. */
export function conflictsOf(body: unknown): number[] | null {
  if (!body || typeof body !== 'object') return null;
  const c = (body as { conflicts?: unknown }).conflicts;
  if (!Array.isArray(c)) return null;
  const ns = c.map(Number).filter((n) => Number.isInteger(n) && n >= 0);
  return ns.length ? sortUnique(ns) : null;
}

/**
 * Navigation state /numeros understands: `drawId` (purchase flow and links), plus `paymentId`
 * and `product` (id/sku) handed over by the purchase flow (storefront spec §2 Home, §4).
 */
export interface NumbersLocationState {
  drawId?: number | string;
  paymentId?: number | string;
  product?: { id?: number | string; sku?: string | null } | null;
}

export interface DrawSource {
  drawId: number | null;
  /** id or SKU of the product whose open draw to show when no draw id was given. */
  product: string | null;
}

const positiveInt = (v: unknown): number | null => {
  const n = typeof v === 'string' && v.trim() ? Number(v) : v;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : null;
};

export function drawSourceOf(state: unknown): DrawSource {
  const s = (state && typeof state === 'object' ? state : {}) as NumbersLocationState;
  const drawId = positiveInt(s.drawId);
  const p = s.product && typeof s.product === 'object' ? s.product : null;
  const productId = positiveInt(p?.id);
  const sku = typeof p?.sku === 'string' && p.sku.trim() ? p.sku.trim() : null;
  return { drawId, product: productId != null ? String(productId) : sku };
}

/** The numbers a visitor could pick now: available on the board (missing cells count as available). */
export function freeNumbers(board: Board | null | undefined, total: number): number[] {
  if (!board) return [];
  const byN = new Map(board.numbers.map((c) => [c.n, c.status]));
  return Array.from({ length: total }, (_, n) => n).filter((n) => (byN.get(n) ?? 'available') === 'available');
}

/** A uniform random integer in [0, max) from the browser's CSPRNG (rejection sampling: no modulo bias). */
export function randomIndex(max: number, fill: (a: Uint32Array) => Uint32Array = (a) => crypto.getRandomValues(a)): number {
  if (!Number.isInteger(max) || max <= 0) throw new RangeError('max must be a positive integer');
  const limit = Math.floor(0x1_0000_0000 / max) * max;
  const buf = new Uint32Array(1);
  for (;;) {
    const v = fill(buf)[0];
    if (v < limit) return v % max;
  }
}

/**
 * 'Surpresinha': `count` distinct numbers drawn at random among `free` (a partial Fisher-Yates
 * shuffle on crypto.getRandomValues), sorted. Fewer when fewer are free.
 */
export function surpriseNumbers(free: readonly number[], count: number, rnd: (max: number) => number = randomIndex): number[] {
  const pool = [...free];
  const n = Math.max(0, Math.min(Math.floor(count), pool.length));
  for (let i = 0; i < n; i++) {
    const j = i + rnd(pool.length - i);
    [pool[i], pool[j]] = [pool[j], pool[i]];
  }
  return sortUnique(pool.slice(0, n));
}

/** How many numbers 'Surpresinha' may pick: the per-selection maximum, the free numbers and (signed in) the allowance. */
export function surpriseMax(o: { maxSelection: number; free: number; remaining: number | null }): number {
  return Math.max(0, Math.min(o.maxSelection, o.free, o.remaining ?? Number.POSITIVE_INFINITY));
}
