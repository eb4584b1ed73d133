/**
 * The purchase flow as one explicit state machine (storefront spec §4 "Purchase flow"): which
 * dialog is open and what it shows, changed only by the events below. Pure (unit-tested in
 * tests/web/purchaseMachine.test.ts); usePurchase runs the effects (HTTP, navigation) and
 * dispatches what they answered. Every PIX answer carries the session it belongs to: an answer for
 * a dialog closed since (or a payment replaced by a new code) is ignored.
 */
import type { Product } from '../../api/types';
import type { PixPayment as ApiPixPayment } from '../../../../src/shared/api/payments';

/** What the PIX dialog reads of a charge (the same type as purchaseApi's). */
type PixPayment = Omit<ApiPixPayment, 'txid' | 'copy_paste' | 'draw_id' | 'numbers'>;
import { clampQuantity } from './quantity';

/** The answer of a 'Já paguei', shown inside the PIX dialog. */
export interface PixAnswer {
  tone: 'info' | 'warning';
  title: string;
  detail?: string;
}

export interface Target {
  product: Product;
  unitPriceCents: number;
}

export type PurchaseStep =
  | { kind: 'idle' }
  | { kind: 'quantity'; target: Target; quantity: number }
  | {
      kind: 'pix';
      target: Target;
      quantity: number;
      /** Null while the charge is being created. */
      payment: PixPayment | null;
      checking: boolean;
      pollFailing: boolean;
      deadStatus: string | null;
      answer: PixAnswer | null;
    }
  | { kind: 'approved'; target: Target; payment: PixPayment; step: number; percent: number };

export interface PurchaseState {
  step: PurchaseStep;
  /** Bumped by every new charge and every close: names the PIX dialog answers belong to. */
  session: number;
  /** The product whose purchase is being prepared (price or product loading). */
  preparingId: number | null;
}

export type PurchaseEvent =
  | { type: 'preparing'; productId: number | null }
  | { type: 'open-quantity'; target: Target; quantity?: number }
  | { type: 'set-quantity'; quantity: number }
  | { type: 'pay' }
  | { type: 'pix-created'; session: number; payment: PixPayment }
  | { type: 'pix-failed'; session: number }
  | { type: 'check-started'; session: number }
  | { type: 'check-answered'; session: number; answer: PixAnswer | null }
  | { type: 'check-finished'; session: number }
  | { type: 'poll'; session: number; failing: boolean }
  | { type: 'dead'; session: number; status: string }
  | { type: 'approved'; session: number }
  | { type: 'progress'; step?: number; percent: number }
  | { type: 'creep'; step: number; max: number }
  | { type: 'close' };

export const initialPurchase: PurchaseState = { step: { kind: 'idle' }, session: 0, preparingId: null };

export function purchaseReducer(state: PurchaseState, e: PurchaseEvent): PurchaseState {
  const s = state.step;
  const pixOf = (session: number) => (s.kind === 'pix' && session === state.session ? s : null);
  switch (e.type) {
    case 'preparing':
      return { ...state, preparingId: e.productId };
    case 'open-quantity':
      if (s.kind === 'pix' || s.kind === 'approved') return state;
      return { ...state, preparingId: null, step: { kind: 'quantity', target: e.target, quantity: clampQuantity(e.quantity ?? 1) } };
    case 'set-quantity':
      return s.kind === 'quantity' ? { ...state, step: { ...s, quantity: clampQuantity(e.quantity) } } : state;
    case 'pay': {
      // From the quantity dialog, or 'Gerar novo código' in the PIX dialog: a new charge, a new session.
      if (s.kind !== 'quantity' && s.kind !== 'pix') return state;
      return {
        ...state,
        session: state.session + 1,
        step: {
          kind: 'pix',
          target: s.target,
          quantity: s.quantity,
          payment: null,
          checking: false,
          pollFailing: false,
          deadStatus: null,
          answer: null,
        },
      };
    }
    case 'pix-created': {
      const p = pixOf(e.session);
      return p ? { ...state, step: { ...p, payment: e.payment } } : state;
    }
    case 'pix-failed':
      return pixOf(e.session) ? { ...state, session: state.session + 1, step: { kind: 'idle' } } : state;
    case 'check-started': {
      const p = pixOf(e.session);
      return p ? { ...state, step: { ...p, checking: true, answer: null } } : state;
    }
    case 'check-answered': {
      const p = pixOf(e.session);
      return p ? { ...state, step: { ...p, checking: false, answer: e.answer } } : state;
    }
    case 'check-finished': {
      const p = pixOf(e.session);
      return p && p.checking ? { ...state, step: { ...p, checking: false } } : state;
    }
    case 'poll': {
      const p = pixOf(e.session);
      return p && p.pollFailing !== e.failing ? { ...state, step: { ...p, pollFailing: e.failing } } : state;
    }
    case 'dead': {
      const p = pixOf(e.session);
      return p ? { ...state, step: { ...p, deadStatus: e.status } } : state;
    }
    case 'approved': {
      // Once per payment, whichever check saw it first; the PIX dialog closes (a new session).
      const p = pixOf(e.session);
      if (!p || !p.payment) return state;
      return {
        ...state,
        session: state.session + 1,
        step: { kind: 'approved', target: p.target, payment: p.payment, step: 0, percent: 10 },
      };
    }
    case 'progress':
      return s.kind === 'approved' ? { ...state, step: { ...s, step: e.step ?? s.step, percent: Math.max(s.percent, e.percent) } } : state;
    case 'creep':
      return s.kind === 'approved' && s.percent < e.max
        ? { ...state, step: { ...s, percent: Math.min(e.max, s.percent + e.step) } }
        : state;
    case 'close':
      return { ...state, session: state.session + 1, step: { kind: 'idle' } };
  }
}
